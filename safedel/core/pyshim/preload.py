"""Everything a deletion in this interpreter can need, imported now, at once.

The shim loads its engine lazily, at the first deletion, so that the many interpreters
that never delete pay nothing. Some hosts forbid imports once they start work: pip
26.3 blocks every import after `pip install` starts replacing files ("Blocked import of
'_safedel_core.guard.keeperview' after pip install started"), and a deletion after that
point (pip's uninstall of the old version, its stash and temp clean-up) would fail and
leave the environment half-upgraded. For such a host the shim imports, before the host
starts, every engine module the Python front end can reach (all of it but the GNU and
git launchers) and the standard-library modules those import inside functions.
tests/unit/test_pyshim_preload.py keeps LATE_STDLIB in step with the engine's source.
"""

import os
import sys

# Imported inside the engine's functions (found by the test from its source), plus
# what importing those pulls in late. Optional ones may be missing: an ImportError now
# is the one the engine handles later.
LATE_STDLIB = (
    "_json",
    "_sha2",
    "_sha256",
    "_signal",
    "ctypes",
    "fcntl",
    "gc",
    "hashlib",
    "json",
    "json.decoder",
    "json.encoder",
    "mmap",
    "pwd",
    "select",
    "signal",
    "struct",
    "shutil",
    "subprocess",
    "tempfile",
    "threading",
    "warnings",
)
# send2trash serves macOS and Windows only (core/trash/move.py): not listed.
PLATFORM_ONLY = ("send2trash",)
# Front ends the Python shim never runs; git/inert.py is the one leaf guard/ uses.
_NOT_REACHED = {"gnu", "git"}
_NEEDED_FROM_SKIPPED = ("git.inert",)


def engine_modules(root_name, root_dir):
    """Dotted names of the engine modules the Python front end can reach."""
    names = []
    for directory, subdirs, files in os.walk(root_dir):
        relative = os.path.relpath(directory, root_dir)
        parts = [] if relative == os.curdir else relative.split(os.sep)
        if parts and parts[0] in _NOT_REACHED:
            subdirs[:] = []
            continue
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(("_", ".")))
        prefix = ".".join([root_name, *parts])
        for name in sorted(files):
            if name.endswith(".py"):
                stem = name[:-3]
                names.append(prefix if stem == "__init__" else f"{prefix}.{stem}")
    names += [f"{root_name}.{name}" for name in _NEEDED_FROM_SKIPPED]
    return names


def load_everything(root_name):
    """Import the whole reachable engine and its late standard-library modules."""
    for name in LATE_STDLIB:
        try:
            __import__(name)
        except ImportError:
            pass
    root = sys.modules[root_name]
    for name in engine_modules(root_name, root.__path__[0]):
        if name not in sys.modules:
            __import__(name)
