"""Writes lib/safedel_core.bundle, the launchers' start-up bundle (read by gnulaunch).

Every core module compiled once when the shim home is built, so that an active
launcher imports the engine from one open file instead of searching the path for one
.pyc per module. Apart from gnulaunch, which reads it, so that a launcher does not load
the writer.

The layout: MAGIC, then the lengths of BOOT's code and of the index (4 bytes each,
little-endian), BOOT's code, the index (marshal: ({module: (offset, length)}, plans)), then each
module's marshalled code, then each plan's. A launcher reads the header, BOOT and the
index, then its plan and only the other modules it imports, each with one pread:
never the whole file.

A plan ({launcher: (modules, offset, length)}) names the modules a launcher's usual
path imports, each after those it imports at its top, and holds their code again as
one marshalled tuple: gnulaunch runs them in that order before the launcher's work,
so no import of that path goes through the import system (_BundleFinder.preload).
"""

import os

from .gnulaunch import BUNDLE  # noqa: F401 (the name the launchers open)

HEADER = 12

# Where each launcher's work starts (with what its usual target, a file for rm, unlink
# and find and a directory for rmdir, imports from inside functions), and what every
# removal imports from inside functions: the plans' roots. The rest comes with these,
# from their top-level imports.
ENTRIES = {
    "rm": ("rm",),
    "rmdir": ("rmdir", "rmcheck", "lendmode"),
    "unlink": ("rmdir",),
    "find": ("find", "rmcheck"),
}
ON_EVERY_REMOVAL = ("deletion", "settings", "host", "runrecord", "runpointer", "orphans")

# Run by a launcher (shims/bin) with `handle` open on the bundle just past BOOT's code,
# and `head` its first HEADER bytes: this module from the bundle, which then serves the
# rest. sys.path[0] is the lib dir.
BOOT = """
_index, _plans = loads(handle.read(int.from_bytes(head[8:12], "little")))
_base = 12 + int.from_bytes(head[4:8], "little") + int.from_bytes(head[8:12], "little")
_start, _length = _index["gnulaunch"]
handle.seek(_base + _start)
gnulaunch = type(sys)("safedel_core.gnulaunch")
gnulaunch.__file__ = sys.path[0] + "/safedel_core/gnulaunch.py"
gnulaunch.__package__ = "safedel_core"
exec(loads(handle.read(_length)), gnulaunch.__dict__)
gnulaunch.from_bundle(handle, _base, _index, gnulaunch, _plans)
"""


def write_bundle(core_dir, target, origin_dir):
    """Compile every module of core_dir into one file at target.

    origin_dir is where the sources will be found once installed, so tracebacks
    name real files. Docstrings are left out (optimize=2; core has no assert): they
    are most of the bytes, and only people reading the source need them.
    """
    import marshal
    from importlib.util import MAGIC_NUMBER

    index, blobs, offset, imports, codes = {}, [], 0, {}, {}
    for name in sorted(os.listdir(core_dir)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(core_dir, name), "rb") as handle:
            source = handle.read()
        path = os.path.join(origin_dir, name)
        module = "" if name == "__init__.py" else name[:-3]
        imports[module] = _imported_at_top(source)
        codes[module] = compile(source, path, "exec", dont_inherit=True, optimize=2)
        blob = marshal.dumps(codes[module])
        index[module] = (offset, len(blob))
        blobs.append(blob)
        offset += len(blob)
    # Each plan's modules also go in one piece: one read and one unmarshalling for the
    # whole path, whose modules share most of their names and constants.
    plans = {}
    for launcher, entry in ENTRIES.items():
        order = _in_import_order((*entry, *ON_EVERY_REMOVAL), imports)
        blob = marshal.dumps(tuple(codes[module] for module in order))
        plans[launcher] = (order, offset, len(blob))
        blobs.append(blob)
        offset += len(blob)
    boot = marshal.dumps(compile(BOOT, os.path.join(origin_dir, "gnulaunch.py"), "exec"))
    header = marshal.dumps((index, plans))
    with open(target, "wb") as handle:
        handle.write(MAGIC_NUMBER + len(boot).to_bytes(4, "little"))
        handle.write(len(header).to_bytes(4, "little") + boot + header)
        handle.write(b"".join(blobs))


def _imported_at_top(source):
    """The sibling modules a module imports at its top level, in statement order."""
    import ast

    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found += [node.module] if node.module else [alias.name for alias in node.names]
    return found


def _in_import_order(roots, imports):
    """roots and everything they import at their top, each after what it imports."""
    order, seen = [], set()

    def visit(module):
        if module in seen or module not in imports:
            return
        seen.add(module)
        for imported in imports[module]:
            visit(imported)
        order.append(module)

    for root in roots:
        visit(root)
    return tuple(order)
