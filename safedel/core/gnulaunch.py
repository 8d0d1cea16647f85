"""What the shims/bin launchers share: stay inert unless safedel is active.

Inert (SAFEDEL_ACTIVE is not "1"), a launcher execs the real tool: the next one on
PATH that isn't a safedel launcher, else /usr/bin or /bin. Active, it runs safedel's
GNU front end in this process.

Start-up is most of what `rm -f FILE` costs, and most of that is finding and opening
one .pyc per module. So the shim home also holds lib/safedel_core.bundle, every core
module compiled once when the home is built, and an active launcher imports the rest
of the engine from it: one read instead of twenty path searches. Without the bundle
(or when it was built by another interpreter) imports go the usual way.
"""

import os
import sys

BUNDLE = "safedel_core.bundle"
_PACKAGE = __name__.rpartition(".")[0]


# Run by a launcher on the bundle's bytes (`bundle`), before anything is imported:
# this module from the bundle, which then serves the rest. sys.path[0] is the lib dir.
BOOT = """
_boot = int.from_bytes(bundle[4:8], "little")
_size = int.from_bytes(bundle[8 + _boot : 12 + _boot], "little")
_index = loads(bundle[12 + _boot : 12 + _boot + _size])
_start, _length = _index["gnulaunch"]
_base = 12 + _boot + _size
gnulaunch = type(sys)("safedel_core.gnulaunch")
gnulaunch.__file__ = sys.path[0] + "/safedel_core/gnulaunch.py"
gnulaunch.__package__ = "safedel_core"
exec(loads(memoryview(bundle)[_base + _start : _base + _start + _length]), gnulaunch.__dict__)
gnulaunch.from_bundle(bundle, _base, _index, gnulaunch)
"""


def write_bundle(core_dir, target, origin_dir):
    """Compile every module of core_dir into one file at target.

    origin_dir is where the sources will be found once installed, so tracebacks
    name real files. The layout is MAGIC, BOOT's length and code, the index's length
    (4 bytes each) and the index (marshal: {module: (offset, length)}), then each
    module's marshalled code: a launcher unmarshals only the modules it imports.
    Docstrings are left out (optimize=2; core has no assert): they are most of the
    bytes, and only people reading the source need them.
    """
    import marshal
    from importlib.util import MAGIC_NUMBER

    index, blobs, offset = {}, [], 0
    for name in sorted(os.listdir(core_dir)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(core_dir, name), "rb") as handle:
            source = handle.read()
        path = os.path.join(origin_dir, name)
        code = marshal.dumps(compile(source, path, "exec", dont_inherit=True, optimize=2))
        index["" if name == "__init__.py" else name[:-3]] = (offset, len(code))
        blobs.append(code)
        offset += len(code)
    boot = marshal.dumps(compile(BOOT, os.path.join(origin_dir, "gnulaunch.py"), "exec"))
    header = marshal.dumps(index)
    with open(target, "wb") as handle:
        handle.write(MAGIC_NUMBER + len(boot).to_bytes(4, "little") + boot)
        handle.write(len(header).to_bytes(4, "little") + header)
        handle.write(b"".join(blobs))


class _BundleFinder:
    """A meta path finder and loader for this package and its modules, from the bundle."""

    def __init__(self, data, base, index, origin_dir):
        self.data, self.base, self.index, self.origin_dir = data, base, index, origin_dir

    def find_spec(self, name, path=None, target=None):
        package, _, module = name.rpartition(".")
        if name == _PACKAGE:
            module = ""
        elif package != _PACKAGE or module not in self.index:
            return None
        from _frozen_importlib import ModuleSpec

        spec = ModuleSpec(
            name, self, origin=f"{self.origin_dir}/{module or '__init__'}.py", is_package=not module
        )
        if not module:
            spec.submodule_search_locations = [self.origin_dir]
        spec.has_location = True
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        from marshal import loads

        name = module.__name__
        offset, length = self.index["" if name == _PACKAGE else name.rpartition(".")[2]]
        start = self.base + offset
        exec(loads(memoryview(self.data)[start : start + length]), module.__dict__)


def from_bundle(data, base, index, module):
    """BOOT's end: serve the package and the rest of the engine from the bundle, with
    module (this one, made by BOOT) in its place."""
    if not _complete(data, base, index):
        raise ImportError("a damaged bundle")  # the launcher falls back to the files
    finder = _BundleFinder(data, base, index, os.path.dirname(__file__))
    sys.meta_path.insert(0, finder)
    sys.modules[module.__name__] = module
    try:
        package = __import__(_PACKAGE)
    except BaseException:  # a damaged bundle: the launcher falls back to the files
        sys.meta_path.remove(finder)
        for name in (module.__name__, _PACKAGE):
            sys.modules.pop(name, None)
        raise
    package.gnulaunch = module


def use_bundle():
    """Serve the rest of the engine's imports from the bundle beside this package
    (when this module was imported the usual way, not booted from the bundle)."""
    if any(isinstance(finder, _BundleFinder) for finder in sys.meta_path):
        return
    here = os.path.dirname(__file__)
    try:
        with open(os.path.join(os.path.dirname(here), BUNDLE), "rb", buffering=0) as handle:
            data = handle.readall()
    except OSError:
        return
    from _frozen_importlib_external import MAGIC_NUMBER
    from marshal import loads

    magic = len(MAGIC_NUMBER)
    if data[:magic] != MAGIC_NUMBER or len(data) < magic + 4:
        return
    boot = int.from_bytes(data[magic : magic + 4], "little")
    at = magic + 4 + boot
    size = int.from_bytes(data[at : at + 4], "little")
    index = loads(data[at + 4 : at + 4 + size])
    if _complete(data, at + 4 + size, index):
        sys.meta_path.insert(0, _BundleFinder(data, at + 4 + size, index, here))


def _complete(data, base, index):
    """Whether the bundle holds every byte its index promises (a cut file does not)."""
    return base + max(offset + length for offset, length in index.values()) == len(data)


def _is_launcher_dir(directory, own_dir):
    real = os.path.realpath(directory)
    return real == own_dir or os.path.isdir(os.path.join(real, os.pardir, "lib", "safedel_core"))


def real_tool(name, launcher):
    own_dir = os.path.dirname(os.path.realpath(launcher))
    path = os.environ.get("PATH", "").split(os.pathsep)
    for directory in [*path, "/usr/bin", "/bin"]:
        if not directory or _is_launcher_dir(directory, own_dir):
            continue
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def exec_real(name, launcher, args):
    """Replace this process with the real tool, argv[0] as a shell would give it."""
    from .gnu import original_environ

    real = real_tool(name, launcher)
    if real is None:
        os.write(2, f"{name}: safedel found no real {name} on PATH\n".encode())
        os._exit(127)
    try:
        os.execve(real, [name, *args], original_environ())
    except OSError as exc:
        os.write(2, f"{name}: cannot run {real}: {exc.strerror}\n".encode())
        os._exit(126)


def main(name, argv):
    """The launcher's whole body: argv is sys.argv of the launcher script."""
    import _signal

    # Die of SIGINT and SIGPIPE the way the C tools do, not with a traceback.
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
    _signal.signal(_signal.SIGPIPE, _signal.SIG_DFL)
    args = argv[1:]
    if os.environ.get("SAFEDEL_ACTIVE") != "1":
        exec_real(name, argv[0], args)
    use_bundle()
    if name == "find":
        from . import find

        status = find.run(args, argv[0])
    elif name == "rm":
        from . import rm

        status = rm.run(args)
    else:
        from . import rmdir

        status = rmdir.rmdir(args) if name == "rmdir" else rmdir.unlink(args)
    finish(status)


def finish(status):
    """Flush and leave without tearing the interpreter down, as a C tool exits.

    Finalising every loaded module costs a launcher more than its own work; nothing
    here needs it (no atexit hooks, every file is closed by now).
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0 if status is None else status if isinstance(status, int) else 1)
