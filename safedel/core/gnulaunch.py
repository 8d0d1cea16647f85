"""What the shims/bin launchers share: stay inert unless safedel is active.

Inert (SAFEDEL_ACTIVE is not "1"), a launcher execs the real tool: the next one on
PATH that isn't a safedel launcher, else /usr/bin or /bin. Active, it runs safedel's
GNU front end in this process.

Start-up is most of what `rm -f FILE` costs, and most of that is finding and opening
one .pyc per module. So the shim home also holds lib/safedel_core.bundle, every core
module compiled once when the home is built (core/launchbundle.py), and an active
launcher imports the rest of the engine from it: one open file instead of twenty path
searches. Without the bundle (or when it was built by another interpreter) imports go
the usual way.
"""

import os
import sys

BUNDLE = "safedel_core.bundle"  # its layout: core/launchbundle.py, which writes it
_PACKAGE = __name__.rpartition(".")[0]


class _BundleFinder:
    """A meta path finder and loader for this package and its modules, from the bundle.

    It keeps the bundle open and reads each module with one pread when it is imported:
    the launcher never reads (nor pays memory for) the modules it does not run."""

    def __init__(self, handle, base, index, origin_dir, plans):
        self.handle, self.base, self.index, self.origin_dir = handle, base, index, origin_dir
        self.plans = plans

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
        # No has_location: importlib would then work out a __cached__ path for each
        # module (there is no .pyc to name); exec_module sets __file__ itself.
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        from marshal import loads

        name = module.__name__
        offset, length = self.index["" if name == _PACKAGE else name.rpartition(".")[2]]
        code = os.pread(self.handle.fileno(), length, self.base + offset)
        if len(code) != length:
            raise ImportError(f"the bundle lost {name}")
        module.__file__ = module.__spec__.origin
        exec(loads(code), module.__dict__)

    def preload(self, launcher):
        """Run the modules a launcher's usual path imports (the bundle's plan for it,
        each after the modules it imports) straight into sys.modules.

        Each import through the import system costs a launcher tens of microseconds of
        locks, specs and lookups before the module's own code runs: for the twenty-odd
        modules of `rm FILE`, more than the removal itself. Their imports of each other
        then find them loaded. Anything off the plan is imported the usual way; so is a
        planned module whose code fails here, and its import then reports why."""
        from marshal import loads

        package = sys.modules.get(_PACKAGE)
        if package is None or launcher not in self.plans:
            return
        names, offset, length = self.plans[launcher]
        data = os.pread(self.handle.fileno(), length, self.base + offset)
        try:  # damaged bytes in the plan: every module is then imported the usual way
            codes = tuple(loads(data)) if len(data) == length else ()
        except (ValueError, EOFError, TypeError):
            return
        from _frozen_importlib import ModuleSpec

        modules = sys.modules
        for short, code in zip(names, codes):
            name = f"{_PACKAGE}.{short}"
            if name in modules:
                continue
            origin = f"{self.origin_dir}/{short}.py"
            module = type(sys)(name)
            module.__spec__ = ModuleSpec(name, self, origin=origin)
            module.__loader__, module.__package__, module.__file__ = self, _PACKAGE, origin
            modules[name] = module
            try:
                exec(code, module.__dict__)
            except Exception:
                del modules[name]
                return
            setattr(package, short, module)


def from_bundle(handle, base, index, module, plans):
    """BOOT's end (core/launchbundle.py): serve the package and the rest of the engine
    from the bundle open as handle, with module (this one, made by BOOT) in its place."""
    if not _complete(handle, base, index, plans):
        raise ImportError("a damaged bundle")  # the launcher falls back to the files
    finder = _BundleFinder(handle, base, index, os.path.dirname(__file__), plans)
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
    """The finder serving the engine's imports from the bundle beside this package,
    put in place if this module was imported the usual way (not booted from the
    bundle); None without a usable bundle."""
    for finder in sys.meta_path:
        if isinstance(finder, _BundleFinder):
            return finder
    here = os.path.dirname(__file__)
    try:
        handle = open(os.path.join(os.path.dirname(here), BUNDLE), "rb", buffering=0)
    except OSError:
        return None
    from _frozen_importlib_external import MAGIC_NUMBER
    from marshal import loads

    try:
        head = handle.read(12)
        if len(head) < 12 or head[:4] != MAGIC_NUMBER:
            raise ValueError("not a bundle of this interpreter")
        boot, size = int.from_bytes(head[4:8], "little"), int.from_bytes(head[8:12], "little")
        handle.seek(12 + boot)
        index, plans = loads(handle.read(size))
        if _complete(handle, 12 + boot + size, index, plans):
            finder = _BundleFinder(handle, 12 + boot + size, index, here, plans)
            sys.meta_path.insert(0, finder)
            return finder
    except (OSError, ValueError, EOFError, TypeError):
        pass
    handle.close()
    return None


def _complete(handle, base, index, plans):
    """Whether the bundle holds every byte its index promises (a cut file does not)."""
    pieces = [*index.values(), *(plan[1:] for plan in plans.values())]
    end = base + max(offset + length for offset, length in pieces)
    return end == os.fstat(handle.fileno()).st_size


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
    finder = use_bundle()
    if finder is not None:
        finder.preload(name)
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
        except (OSError, ValueError, AttributeError):  # AttributeError: None, fd closed
            pass
    os._exit(0 if status is None else status if isinstance(status, int) else 1)
