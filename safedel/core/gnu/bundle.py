"""Writes lib/safedel_core.bundle, the launchers' start-up bundle (read by gnu/launch.py).

Every core module compiled once when the shim home is built, so that an active
launcher imports the engine from one open file instead of searching the path for one
.pyc per module. Apart from gnu/launch.py, which reads it, so that a launcher does not
load the writer.

The layout: MAGIC, then the lengths of BOOT's code and of the index (4 bytes each,
little-endian), BOOT's code, the index (marshal: ({module: (offset, length, is_package)},
plans, {extension module: its file})), then each module's marshalled code, then each
plan's. A launcher reads the header, BOOT and the index, then its plan and only the
other modules it imports, each with one pread: never the whole file.

A plan ({launcher: (modules, offset, (length, ...))}, and one per launcher + RUN for a
launcher under a run, which reads no config file) names the modules a launcher's
usual path imports, each after those it imports at its top, and holds their code again
in pieces, each a marshalled tuple of the next modules' code, one after the other from
offset: gnu/launch.py runs them in that order before the launcher's work, so no import
of that path goes through the import system (_BundleFinder.preload).

The extension modules a launcher's usual path imports (fcntl) are named with the file
the interpreter that builds the home finds them in: the launcher loads that file
instead of searching its path for it (gnu/launch.py: _BundleFinder.find_spec).
"""

import os

from .launch import BUNDLE, RUN  # noqa: F401 (BUNDLE: the name the launchers open)

HEADER = 12

# Where each launcher's work starts (with what its usual target, a file for rm, unlink
# and find and a directory for rmdir, imports from inside functions), and what every
# removal imports from inside functions: the plans' roots. The rest comes with these,
# from their top-level imports.
ENTRIES = {
    "rm": ("gnu.rm",),
    "rmdir": ("gnu.rmdir", "removable", "lendmode"),
    "unlink": ("gnu.rmdir",),
    "find": ("gnu.find", "removable"),
}
ON_EVERY_REMOVAL = (
    "deletion",
    "contract.settings",
    "contract.userconfig",
    "contract.host",
    "contract.runrecord",
    "contract.runpointer",
    "contract.keeperfind",
    "contract.keptrecord",
    "trash.orphans",
    "guard.keeperview",  # every take on Linux looks for a run's keeper
)
# What a removal outside a run also imports from inside functions: a run's record fixes
# every setting, so a launcher under one reads no config file and needs none of these.
OUTSIDE_A_RUN = ("contract.confirmed",)
# A new process pays for every page it touches first (a few µs each in a VM): a plan
# read in pieces of at most this many bytes reuses one piece's buffer for the next,
# where one read of the whole plan would touch a fresh page for every 4 kB of it.
PIECE = 48 << 10
# Standard modules the launchers' usual path imports that are shared libraries: the
# launcher loads each from the file named here, without searching its path (a search
# lists the stdlib's lib-dynload, about 80 files, and stats each path entry).
EXTENSIONS = ("fcntl",)

# Run by a launcher (shims/bin) with `handle` open on the bundle just past BOOT's code,
# and `head` its first HEADER bytes: gnu/launch.py from the bundle, which then serves
# the rest. sys.path[0] is the lib dir.
BOOT = """
_index, _plans, _extensions = loads(handle.read(int.from_bytes(head[8:12], "little")))
_base = 12 + int.from_bytes(head[4:8], "little") + int.from_bytes(head[8:12], "little")
_start, _length, _ = _index["gnu.launch"]
handle.seek(_base + _start)
gnulaunch = type(sys)("safedel_core.gnu.launch")
gnulaunch.__file__ = sys.path[0] + "/safedel_core/gnu/launch.py"
gnulaunch.__package__ = "safedel_core.gnu"
exec(loads(handle.read(_length)), gnulaunch.__dict__)
gnulaunch.from_bundle(handle, _base, _index, gnulaunch, _plans, _extensions)
"""


def write_bundle(core_dir, target, origin_dir):
    """Compile every module of core_dir, its subpackages' too, into one file at target.

    origin_dir is where the sources will be found once installed, so tracebacks
    name real files. Docstrings are left out (optimize=2; core has no assert): they
    are most of the bytes, and only people reading the source need them. The index
    is keyed by dotted name below the package ("gnu.rm"; "gnu" for gnu/__init__.py,
    "" for the package itself), each with whether it is a package.
    """
    import marshal
    from importlib.util import MAGIC_NUMBER

    sources = dict(_modules(core_dir))
    index, blobs, offset, imports, codes = {}, [], 0, {}, {}
    for module, (relative, is_package) in sources.items():
        with open(os.path.join(core_dir, relative), "rb") as handle:
            source = handle.read()
        path = os.path.join(origin_dir, relative)
        imports[module] = _imported_at_top(source, module, is_package, sources)
        codes[module] = compile(source, path, "exec", dont_inherit=True, optimize=2)
        blob = marshal.dumps(codes[module])
        index[module] = (offset, len(blob), is_package)
        blobs.append(blob)
        offset += len(blob)
    # Each plan's modules also go in a few pieces: a read and an unmarshalling for many
    # modules at once, which share most of their names and constants.
    plans = {}
    for launcher, entry in ENTRIES.items():
        for name, roots in (
            (launcher, (*entry, *ON_EVERY_REMOVAL, *OUTSIDE_A_RUN)),
            (launcher + RUN, (*entry, *ON_EVERY_REMOVAL)),
        ):
            order = _in_import_order(roots, imports)
            pieces = [marshal.dumps(piece) for piece in _pieces([codes[m] for m in order])]
            plans[name] = (order, offset, tuple(len(piece) for piece in pieces))
            blobs += pieces
            offset += sum(len(piece) for piece in pieces)
    boot_origin = os.path.join(origin_dir, "gnu", "launch.py")
    boot = marshal.dumps(compile(BOOT, boot_origin, "exec"))
    header = marshal.dumps((index, plans, _extension_files()))
    with open(target, "wb") as handle:
        handle.write(MAGIC_NUMBER + len(boot).to_bytes(4, "little"))
        handle.write(len(header).to_bytes(4, "little") + boot + header)
        handle.write(b"".join(blobs))


def _pieces(codes):
    """codes in consecutive tuples, each marshalled to at most PIECE bytes where a
    module allows (a bigger one goes alone)."""
    import marshal

    pieces, piece, size = [], [], 0
    for code in codes:
        length = len(marshal.dumps(code))
        if piece and size + length > PIECE:
            pieces.append(tuple(piece))
            piece, size = [], 0
        piece.append(code)
        size += length
    return [*pieces, tuple(piece)] if piece else pieces


def _extension_files():
    """{name: file} of EXTENSIONS as this interpreter finds them (the launchers run on
    it); one it does not find, or finds built in, is left to the usual import."""
    from importlib.machinery import ExtensionFileLoader
    from importlib.util import find_spec

    found = {}
    for name in EXTENSIONS:
        try:
            spec = find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is not None and isinstance(spec.loader, ExtensionFileLoader):
            found[name] = spec.origin
    return found


def _modules(core_dir):
    """(dotted name, (path relative to core_dir, is a package)) of every module, sorted."""
    for directory, folders, files in os.walk(core_dir):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        prefix = os.path.relpath(directory, core_dir)
        prefix = "" if prefix == os.curdir else prefix
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            relative = os.path.join(prefix, name)
            dotted = prefix.replace(os.sep, ".")
            if name == "__init__.py":
                yield dotted, (relative, True)
            else:
                yield (f"{dotted}.{name[:-3]}" if dotted else name[:-3]), (relative, False)


def _imported_at_top(source, module, is_package, known):
    """The engine modules a module imports at its top level, in statement order: its
    relative imports resolved at any level, each one a dotted name of known."""
    import ast

    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        base = package.split(".") if package else []
        if node.level - 1 > len(base):
            continue  # above the engine (findsync's net), served the usual way
        base = base[: len(base) - (node.level - 1)] + (
            node.module.split(".") if node.module else []
        )
        base = ".".join(base)
        named = [f"{base}.{a.name}" if base else a.name for a in node.names]
        named = [name for name in named if name in known]
        found += named or ([base] if base in known else [])
    return found


def _in_import_order(roots, imports):
    """roots and everything they import at their top, each after what it imports."""
    order, seen = [], set()

    def visit(module):
        if module in seen or module not in imports:
            return
        seen.add(module)
        if module:  # its packages run first, as an import would run them
            visit(module.rpartition(".")[0])
        for imported in imports[module]:
            visit(imported)
        order.append(module)

    for root in roots:
        visit(root)
    return tuple(module for module in order if module)  # the package itself BOOT imports
