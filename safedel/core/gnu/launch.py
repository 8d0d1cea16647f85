"""What the shims/bin launchers share: stay inert unless safedel is active.

Inert (SAFEDEL_ACTIVE is not "1"), a launcher execs the real tool: the next one on
PATH that isn't a safedel launcher, else /usr/bin or /bin. Active, it runs safedel's
GNU front end in this process.

Start-up is most of what `rm -f FILE` costs, and most of that is finding and opening
one .pyc per module. So the shim home also holds lib/safedel_core.bundle, every core
module compiled once when the home is built (core/gnu/bundle.py), and an active
launcher imports the rest of the engine from it: one open file instead of twenty path
searches. Without the bundle (or when it was built by another interpreter) imports go
the usual way.
"""

import os
import sys
from _frozen_importlib import ModuleSpec  # the import system's own, always loaded

BUNDLE = "safedel_core.bundle"  # its layout: core/gnu/bundle.py, which writes it
RUN = ":run"  # a launcher's plan under a run: <launcher>:run
_PACKAGE = __name__.rsplit(".", 2)[0]  # the engine root, two levels up from gnu.launch


class _BundleFinder:
    """A meta path finder and loader for the engine's package and modules, from the bundle.

    It keeps the bundle open and reads each module with one pread when it is imported:
    the launcher never reads (nor pays memory for) the modules it does not run. The
    bundle's index is keyed by dotted name below the engine root ("" for the root,
    "gnu" for gnu/__init__.py, "gnu.rm")."""

    def __init__(self, handle, base, index, origin_dir, plans, extensions):
        self.handle, self.base, self.index, self.origin_dir = handle, base, index, origin_dir
        self.plans, self.extensions = plans, extensions

    def _spec(self, name, relative):
        where = f"{self.origin_dir}/{relative.replace('.', '/')}" if relative else self.origin_dir
        # No has_location: importlib would then work out a __cached__ path for each
        # module (there is no .pyc to name); exec_module sets __file__ itself.
        if self.index[relative][2]:
            spec = ModuleSpec(name, self, origin=where + "/__init__.py")
            spec.submodule_search_locations = [where]
            return spec
        return ModuleSpec(name, self, origin=where + ".py")

    def find_spec(self, name, path=None, target=None):
        relative = _relative(name)
        if relative is None or relative not in self.index:
            return None if name not in self.extensions else self._extension(name)
        return self._spec(name, relative)

    def _extension(self, name):
        """The spec of a standard shared-library module from the file the bundle names,
        where the usual search would also look (a directory of sys.path) and it is
        there; None leaves it to that search."""
        origin = self.extensions[name]
        if os.path.dirname(origin) not in sys.path:
            return None
        try:
            os.stat(origin)
        except OSError:
            return None
        from _frozen_importlib_external import ExtensionFileLoader

        spec = ModuleSpec(name, ExtensionFileLoader(name, origin), origin=origin)
        spec.has_location = True
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        from marshal import loads

        name = module.__name__
        offset, length, _ = self.index[_relative(name)]
        code = os.pread(self.handle.fileno(), length, self.base + offset)
        if len(code) != length:
            raise ImportError(f"the bundle lost {name}")
        module.__file__ = module.__spec__.origin
        exec(loads(code), module.__dict__)

    def preload(self, launcher):
        """Run the modules a launcher's usual path imports (the bundle's plan for it,
        each after its packages and the modules it imports) straight into sys.modules.

        Each import through the import system costs a launcher tens of microseconds of
        locks, specs and lookups before the module's own code runs: for the twenty-odd
        modules of `rm FILE`, more than the removal itself. Their imports of each other
        then find them loaded. Anything off the plan is imported the usual way; so is a
        planned module whose code fails here, and its import then reports why."""
        from marshal import loads

        if _PACKAGE not in sys.modules or launcher not in self.plans:
            return
        names, offset, lengths = self.plans[launcher]
        done = 0
        for length in lengths:  # in pieces: each one's buffer is reused for the next
            data = os.pread(self.handle.fileno(), length, self.base + offset)
            offset += length
            try:  # damaged bytes in the plan: the rest is then imported the usual way
                codes = tuple(loads(data)) if len(data) == length else ()
            except (ValueError, EOFError, TypeError):
                return
            del data
            if not codes or not self._run(zip(names[done : done + len(codes)], codes)):
                return
            done += len(codes)

    def _run(self, planned):
        """Run each (relative name, code) of planned into sys.modules; False at the
        first that cannot run (it and the rest are then imported the usual way)."""
        modules = sys.modules
        for relative, code in planned:
            name = f"{_PACKAGE}.{relative}" if relative else _PACKAGE
            if name in modules:
                continue
            parent_name, _, short = name.rpartition(".")
            parent = modules.get(parent_name)
            if parent is None:
                return False
            spec = self._spec(name, relative)
            module = type(sys)(name)
            module.__spec__, module.__loader__, module.__file__ = spec, self, spec.origin
            if spec.submodule_search_locations is not None:
                module.__path__, module.__package__ = spec.submodule_search_locations, name
            else:
                module.__package__ = parent_name
            modules[name] = module
            try:
                exec(code, module.__dict__)
            except Exception:
                del modules[name]
                return False
            setattr(parent, short, module)
        return True


def _relative(name):
    """name's dotted part below the engine root ("" for the root), None outside it."""
    if name == _PACKAGE:
        return ""
    return name[len(_PACKAGE) + 1 :] if name.startswith(_PACKAGE + ".") else None


def from_bundle(handle, base, index, module, plans, extensions):
    """BOOT's end (core/gnu/bundle.py): serve the package and the rest of the engine
    from the bundle open as handle, with module (this one, made by BOOT) in its place."""
    if not _complete(handle, base, index, plans):
        raise ImportError("a damaged bundle")  # the launcher falls back to the files
    root = os.path.dirname(os.path.dirname(__file__))
    finder = _BundleFinder(handle, base, index, root, plans, extensions)
    sys.meta_path.insert(0, finder)
    sys.modules[module.__name__] = module
    parent = module.__name__.rpartition(".")[0]
    try:
        __import__(parent)
    except BaseException:  # a damaged bundle: the launcher falls back to the files
        sys.meta_path.remove(finder)
        for name in (module.__name__, parent, _PACKAGE):
            sys.modules.pop(name, None)
        raise
    sys.modules[parent].launch = module


def use_bundle():
    """The finder serving the engine's imports from the bundle beside this package,
    put in place if this module was imported the usual way (not booted from the
    bundle); None without a usable bundle."""
    for finder in sys.meta_path:
        if isinstance(finder, _BundleFinder):
            return finder
    here = os.path.dirname(os.path.dirname(__file__))
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
        index, plans, extensions = loads(handle.read(size))
        if _complete(handle, 12 + boot + size, index, plans):
            finder = _BundleFinder(handle, 12 + boot + size, index, here, plans, extensions)
            sys.meta_path.insert(0, finder)
            return finder
    except (OSError, ValueError, EOFError, TypeError):
        pass
    handle.close()
    return None


def _complete(handle, base, index, plans):
    """Whether the bundle holds every byte its index promises (a cut file does not)."""
    pieces = [entry[:2] for entry in index.values()]
    pieces += [(plan[1], sum(plan[2])) for plan in plans.values()]
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
    from .quoting import original_environ

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
        # Which plan only decides what is loaded ahead: the run is found from the process
        # tree all the same, and a module off the plan is imported when it is needed.
        finder.preload(name + RUN if os.environ.get("SAFEDEL_RUN_ID") else name)
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
