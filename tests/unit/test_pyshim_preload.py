"""The Python shim's preload (pyshim/preload.py) covers every late import the engine's
Python front end can make: pip 26.3 blocks imports once an install starts, so anything
missed here would fail a deletion then (issue 31, case 2)."""

import ast
import pathlib

from safedel.core.pyshim import preload

CORE = pathlib.Path(preload.__file__).resolve().parent.parent


def late_imports():
    """(module, file) for each absolute import made inside a function."""
    for name in preload.engine_modules("safedel.core", str(CORE)):
        relative = name.split(".")[2:]
        path = CORE.joinpath(*relative)
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        tree = ast.parse(path.read_text())
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Import):
                    yield from ((alias.name, path.name) for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    yield node.module, path.name


def test_every_late_standard_library_import_is_preloaded():
    known = set(preload.LATE_STDLIB) | set(preload.PLATFORM_ONLY) | {"sys"}
    missing = sorted({(module, where) for module, where in late_imports() if module not in known})
    assert missing == []


def test_the_preload_reaches_the_engine_but_not_the_launchers():
    names = preload.engine_modules("safedel.core", str(CORE))
    assert "safedel.core.guard.keeperview" in names
    assert "safedel.core.trash.orphans" in names
    assert "safedel.core.pyshim.oscalls" in names
    assert "safedel.core.git.inert" in names
    assert not [n for n in names if n.startswith(("safedel.core.gnu", "safedel.core.git.c"))]
