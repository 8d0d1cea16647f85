"""safedel/core and the Python shim run in foreign interpreters down to Python 3.9."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORE = ROOT / "safedel" / "core"
FILES = sorted(CORE.rglob("*.py")) + sorted((ROOT / "shims" / "python").glob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_parses_as_python_39(path):
    ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 9))


def test_core_imports_only_the_standard_library():
    import sys

    # The C halves of json and hashlib are stdlib too; _sha2 is 3.12+'s name for _sha256.
    allowed = set(sys.stdlib_module_names) | {"_sha2", "_sha256", "_json"}
    for path in FILES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            # send2trash is optional (the native trash); safedel_net is safedel's own
            # net, which a shim home holds beside safedel_core (stdlib-only too).
            extra = {"trash/move.py": "send2trash", "gnu/findsync.py": "safedel_net"}
            where = path.relative_to(CORE).as_posix() if CORE in path.parents else path.name
            for name in names:
                top = name.split(".")[0]
                assert top in allowed or extra.get(where) == top, f"{where} imports {name}"
