"""The tree is the architecture: who may import whom, and how big a module may grow.

docs/architecture.md gives the same rules in prose; each package's __init__.py
docstring says what it may import. Lazy imports inside functions count too.
"""

import ast
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "safedel"
CORE = PACKAGE / "core"
CORE_LEAVES = {"jsonl", "private", "printable", "outcome", "resolve", "mounts", "lendmode", "statx"}
BELOW_DELETION = {"guard", "policy", "trash", "report", "contract", "removable", "leaf"}
# What each part of core/ may import (besides itself). A "leaf" is one of CORE_LEAVES.
CORE_RULES = {
    "leaf": set(),
    "removable": {"leaf"},
    "contract": {"leaf"},
    "report": {"contract", "leaf"},
    "trash": {"report", "leaf"},
    "policy": {"contract", "trash", "leaf"},
    "guard": {"policy", "report", "contract", "leaf"},
    "deletion": BELOW_DELETION,
    "gnu": BELOW_DELETION | {"deletion"},
    "pyshim": BELOW_DELETION | {"deletion"},
    "git": BELOW_DELETION | {"deletion", "gnu"},
    "core": set(),
}
# The declared exceptions, module by module: the guard asks git/inert (a leaf that
# imports only os) whether a path is git's own; find -delete asks the net's stdlib half.
CORE_EXCEPTIONS = {
    ("core.guard.regenerable", "core.git.inert"),
    ("core.gnu.findsync", "net"),
}
# Outside core/: what each top-level part may import ("safedel" is the package's
# own __init__: its version and caller_active).
TOP_RULES = {
    "core": {"net"},
    "net": {"core"},
    "trash": {"core"},
    "executor": {"core", "net", "trash", "shells", "safedel"},
    "shells": {"core", "executor", "safedel"},
    "serve": {"executor", "net", "core", "safedel"},
    "commands": {"core", "executor", "net", "serve", "shells", "trash", "safedel"},
    "cli": {"commands"},
    "completions": {"cli", "shells"},
    "client": set(),
    "entry": {"cli", "commands", "core", "executor", "shells", "trash", "safedel"},
    "__main__": {"entry"},
    "safedel": set(),
}
# Narrower still, by module (the importer or the imported): only shells/bootstrap.py
# reaches the executor, the executor only the shells' __init__ (quoting), core only
# the net's stdlib half (from find -delete), entry only these modules.
TOP_EXCEPTIONS_ONLY = {
    ("core", "net"): {"core.gnu.findsync"},
    ("shells", "executor"): {"shells.bootstrap"},
    ("executor", "shells"): {"shells"},
    ("executor", "trash"): {"trash.retention"},
    ("entry", "commands"): {"commands.rm"},
    ("entry", "executor"): {"executor.runner"},
    ("entry", "shells"): {"shells.bootstrap"},
    ("entry", "trash"): {"trash.quick"},
    ("entry", "core"): {"core.printable"},
}


def modules():
    found = {}
    for path in PACKAGE.rglob("*.py"):
        dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[dotted.removesuffix(".__init__")] = path
    return found


def edges():
    """(importer, imported) dotted names below safedel, every import of every module."""
    mods = modules()
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = (
                    (base + (f".{node.module}" if node.module else ""))
                    if node.level
                    else node.module
                )
                for alias in node.names:
                    target = f"{base}.{alias.name}"
                    target = target if target in mods else base
                    if target in mods and target != name:
                        yield name[len("safedel.") :], target.removeprefix("safedel").lstrip(".")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in mods:
                        yield name[len("safedel.") :], alias.name.removeprefix("safedel.")


def core_part(name):
    """core.gnu.rm -> gnu; core.deletion -> deletion; core.jsonl -> leaf."""
    parts = name.split(".")
    if len(parts) == 1:
        return "core"
    return "leaf" if parts[1] in CORE_LEAVES else parts[1]


def top_part(name):
    return name.split(".")[0] if name else "safedel"


def test_core_parts_import_only_what_the_rules_allow():
    wrong = []
    for importer, imported in edges():
        if not importer.startswith("core"):
            continue
        if (importer, imported) in CORE_EXCEPTIONS:
            continue
        if not imported.startswith("core"):
            wrong.append(f"{importer} -> {imported} (core imports the stdlib only)")
            continue
        a, b = core_part(importer), core_part(imported)
        if a != b and b not in CORE_RULES[a]:
            wrong.append(f"{importer} -> {imported} ({a} may not import {b})")
    assert wrong == []


def test_the_top_level_parts_import_only_what_the_rules_allow():
    wrong = []
    for importer, imported in edges():
        a, b = top_part(importer), top_part(imported)
        if a == b:
            continue
        only = TOP_EXCEPTIONS_ONLY.get((a, b))
        if b not in TOP_RULES[a] or (only is not None and not {importer, imported} & only):
            wrong.append(f"{importer} -> {imported}")
    assert wrong == []


def test_few_loose_modules_and_every_package_says_what_lives_there():
    loose_core = [p.name for p in CORE.glob("*.py") if p.name != "__init__.py"]
    loose_top = [p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"]
    assert len(loose_core) <= 12, sorted(loose_core)
    assert len(loose_top) <= 10, sorted(loose_top)
    inits = [*PACKAGE.rglob("__init__.py"), ROOT / "shims" / "__init__.py"]
    silent = [
        str(p.relative_to(ROOT)) for p in inits if not ast.get_docstring(ast.parse(p.read_text()))
    ]
    assert silent == []


def test_no_module_is_over_300_lines():
    sources = [
        *PACKAGE.rglob("*.py"),
        *(ROOT / "shims").rglob("*.*js"),
        *(ROOT / "shims").rglob("*.py"),
    ]
    sources += [p for p in (ROOT / "shims" / "bin").iterdir()]
    long = {}
    for path in sources:
        if "__pycache__" in path.parts:
            continue
        count = len(path.read_bytes().splitlines())
        if count > 300:
            long[str(path.relative_to(ROOT))] = count
    assert long == {}


def test_every_name_the_engine_builds_from_strings_is_a_real_module():
    # The engine has three names (safedel.core, safedel_core in the launchers,
    # _safedel_core in the Python shim), so it finds some of its own modules in
    # sys.modules from its own __name__: a module that moved and was missed here would
    # be looked up under a name that never exists, silently.
    built = re.compile(
        r'__name__\.(?:rsplit\("\.", (\d)\)|rpartition\("\."\))\[0\] \+ "\.([\w.]+)"'
    )
    literal = re.compile(r'"(safedel\.core\.[\w.]+)"')
    mods = modules()
    checked = []
    for name, path in mods.items():
        text = path.read_text()
        for match in built.finditer(text):
            up = int(match.group(1) or 1)
            target = f"{name.rsplit('.', up)[0]}.{match.group(2)}"
            checked.append(target)
            assert target in mods, f"{path.relative_to(ROOT)} looks up {target}"
        for match in literal.finditer(text):
            checked.append(match.group(1))
            assert match.group(1) in mods, f"{path.relative_to(ROOT)} names {match.group(1)}"
    assert len(checked) >= 4  # the workspace, deletion and net look-ups


def test_the_engine_loads_by_file_path_under_a_private_name():
    # As the Python shim loads it inside a foreign interpreter: no safedel on sys.path,
    # a private package name, and every module (subpackages too) importable from there.
    script = """
import importlib, importlib.util, os, sys
core = sys.argv[1]
spec = importlib.util.spec_from_file_location(
    "_engine_test", os.path.join(core, "__init__.py"), submodule_search_locations=[core])
package = importlib.util.module_from_spec(spec)
sys.modules["_engine_test"] = package
spec.loader.exec_module(package)
names = []
for directory, folders, files in os.walk(core):
    folders[:] = [f for f in folders if f != "__pycache__"]
    prefix = os.path.relpath(directory, core).replace(os.sep, ".")
    for file in sorted(files):
        if file.endswith(".py"):
            stem = "" if file == "__init__.py" else file[:-3]
            parts = [p for p in (prefix if prefix != "." else "", stem) if p]
            names.append(".".join(["_engine_test", *parts]))
for name in names:
    importlib.import_module(name)
assert not any(n == "safedel" or n.startswith("safedel.") for n in sys.modules)
print(len(names))
"""
    done = subprocess.run(
        [sys.executable, "-I", "-c", script, str(CORE)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=os.sep,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) == len(list(CORE.rglob("*.py")))


def test_no_merge_left_its_conflict_markers():
    # A marker inside a docstring or a doc still parses and renders: only a look finds it.
    tracked = subprocess.run(
        ["git", "ls-files", "safedel", "shims", "tests", "docs", "bench", "README.md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert tracked.returncode == 0, tracked.stderr  # the tests run in a git checkout
    marker = re.compile(rb"^(<{7} |>{7} |={7}$)", re.M)
    left = [name for name in tracked.stdout.split() if marker.search((ROOT / name).read_bytes())]
    assert left == []
