"""The Python shim: os.remove, os.unlink, os.rmdir and shutil.rmtree move things to the trash.

The shim's sitecustomize calls install() inside any CPython 3.9+, safedel's own or not.
os.removedirs and pathlib's unlink and rmdir call these os functions, so they follow.
Each wrapper keeps its original's contract: the signature, dir_fd (and its place in
os.supports_dir_fd), the exception types, errno and `filename` (the very object passed
in). Only where the data ends up changes. Exempt paths get the original: a real delete,
through a descriptor of the very directory judged exempt (exemptcall).

This module is what every shimmed interpreter loads at start-up, so it imports nothing
new: the deletion logic (oscalls, with paths and exemptcall) loads at the first
deletion, the rmtree wrapper (rmtree) when shutil is imported, early when a module bound
os functions before the shim came, and pipuninstall when pip's uninstaller is imported.
When pip's install command is imported, everything loads at once (preload): pip 26.3
forbids imports once an install starts. pipbuild keeps the shim in pip's build
environments, which rewrite PYTHONPATH.
"""

import os
import sys
from _thread import _local


def _snapshot(module):
    copy = type(module)(module.__name__)
    copy.__dict__.update(module.__dict__)
    return copy


# os as it was before the shim (or a program, or a test) patched anything: the engine
# works through it, so a monkeypatched os.lstat or os.close can neither break nor fool
# a trash.
OS_AT_START = _snapshot(os)
_ENGINE = __name__.rpartition(".")[0] + "."  # the engine root, not pyshim
try:  # where this interpreter started: its workspace, when safedel run named none
    START_DIR = os.getcwd()
except OSError:
    START_DIR = None
_installed = []
_deletions = []
_wrappers = {}
_internal = _local()


def deletions():
    if not _deletions:
        _load_engine()
    return _deletions[0]


def _load_engine(everything=False):
    """Import the engine at the first deletion, with the collector off and signals held
    back: a finalizer or a signal handler that deletes while the engine is half
    imported would find it partially initialised. Held signals arrive right after.
    With everything, import all that any later deletion can need (see preload)."""
    import gc

    collecting = gc.isenabled()
    gc.disable()
    held = _hold_signals()
    try:
        from . import oscalls

        if not _deletions:
            _deletions.append(oscalls)
        if everything:
            from . import preload

            preload.load_everything(_ENGINE[:-1])
    finally:
        _release_signals(held)
        if collecting:
            gc.enable()


def _hold_signals():
    try:
        import _signal

        held = _signal.pthread_sigmask(_signal.SIG_BLOCK, _signal.valid_signals())
    except (ImportError, AttributeError, OSError, ValueError):
        return None
    _let_pending_handlers_run()
    return held


def _let_pending_handlers_run():
    # A signal caught just before the mask has its Python handler run at the next
    # check, which a call makes: here, before the import starts, not halfway through it.
    pass


def _release_signals(held):
    if held is not None:
        import _signal

        _signal.pthread_sigmask(_signal.SIG_SETMASK, held)


def internal_call(frame):
    """The engine's own calls, and those of a module doing known housekeeping on this
    thread (InternalCalls), go straight to the original. Marked by who calls, not by a
    thread-wide flag: a finalizer or a signal handler that runs meanwhile is judged."""
    caller = frame.f_globals.get("__name__") or ""
    if caller.startswith(_ENGINE):
        return ".pyshim" not in caller
    modules = getattr(_internal, "modules", None)
    return bool(modules) and caller in modules


class InternalCalls:
    """While a known caller does housekeeping of its own on this thread, the unlink and
    rmdir calls made by the named modules' own code are not judged: shutil deleting an
    exempt tree for real, pip removing the empty stash directory it just made."""

    def __init__(self, *modules):
        self.modules = modules

    def __enter__(self):
        self.outer = getattr(_internal, "modules", ())
        _internal.modules = self.outer + self.modules

    def __exit__(self, *exc_info):
        _internal.modules = self.outer


class Builtin:
    """Stands in for a builtin os function. Like the builtin, and unlike a Python
    function, it does not bind as a method when kept as a class attribute: pathlib on
    3.9 and 3.10 keeps os.unlink and os.rmdir on its accessor class."""

    def __init__(self, original, handler):
        self.__wrapped__ = original
        self.__name__ = original.__name__
        self.__qualname__ = original.__qualname__
        self.__doc__ = original.__doc__
        self.__module__ = original.__module__
        self._handler = handler

    def __call__(self, *args, **kwargs):
        names = kwargs.keys() - {"dir_fd"}
        if len(args) == 1 and not names:
            path = args[0]
        elif not args and names == {"path"}:
            path = kwargs["path"]
        else:
            # A call the builtin rejects: let it raise its own TypeError.
            return self.__wrapped__(*args, **kwargs)
        if internal_call(sys._getframe(1)):
            return self.__wrapped__(*args, **kwargs)
        handler = getattr(deletions(), self._handler)
        return handler(self.__wrapped__, path, kwargs.get("dir_fd"))

    def __repr__(self):
        return f"<safedel shim of {self.__wrapped__!r}>"

    def __reduce__(self):
        # Unpickles (and copies) as os.<name> of whichever interpreter loads it, so a
        # multiprocessing child given os.remove gets its own, shimmed or not.
        return getattr, (_ModuleByName("os"), self.__name__)


class _ModuleByName:
    def __init__(self, name):
        self.name = name

    def __reduce__(self):
        return __import__, (self.name,)


class PatchAfterLoad:
    """A module's real loader, plus the patch once the module has run. The module gets
    its real loader back before it runs, as if nothing had come between."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        create = getattr(self.loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module):
        module.__loader__ = self.loader
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        if module.__name__ == "os":
            patch_os(module)
        elif module.__name__ == _PIP_UNINSTALL:
            from . import pipuninstall

            pipuninstall.patch(module)
        elif module.__name__ in _PIP_BUILD_ENVS:
            from . import pipbuild

            pipbuild.patch(module, sys.modules[_ENGINE[:-1]].__path__[0])
        elif module.__name__ == _PIP_INSTALL:
            # pip 26.3 blocks every import once its install starts: load it all now.
            _load_engine(everything=True)
        else:
            from . import rmtree

            rmtree.patch(module)


_PIP_UNINSTALL = "pip._internal.req.req_uninstall"
_PIP_INSTALL = "pip._internal.commands.install"
# pip's build environments (pipbuild): the class before pip 26, the package since.
_PIP_BUILD_ENVS = (
    "pip._internal.build_env",
    "pip._internal.build_env.venv",
    "pip._internal.build_env.virtual",
)
_WATCHED = ("shutil", "os", _PIP_UNINSTALL, _PIP_INSTALL, *_PIP_BUILD_ENVS)


class Watcher:
    """A meta path finder that finds nothing itself: it hands back the real spec with a
    loader that patches the module once it has run. For shutil, when it is imported:
    importing it at start-up instead would cost every interpreter milliseconds, and most
    never delete anything. For os, when importlib.reload runs it again. For pip's
    uninstaller, so that packages are trashed under their own names."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name not in _WATCHED:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is cls or find is None:
                continue
            spec = find(name, path, target)
            if spec is None:
                continue
            if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = PatchAfterLoad(spec.loader)
            return spec
        return None


def install():
    """Patch os now, and shutil now or when it is imported. Once."""
    if _installed:
        return
    _wrappers.update(
        remove=Builtin(os.remove, "remove_file"),
        unlink=Builtin(os.unlink, "remove_file"),
        rmdir=Builtin(os.rmdir, "remove_dir"),
    )
    patch_os(os)
    _repoint_pathlib(_wrappers)
    for name in ("shutil", "tempfile"):
        if name in sys.modules:
            _patch_early(sys.modules[name])
    sys.meta_path.insert(0, Watcher)
    _installed.append(True)


def patch_os(module):
    """Put the wrappers on os: at install, and again after importlib.reload(os)."""
    for name, wrapper in _wrappers.items():
        original = wrapper.__wrapped__
        setattr(module, name, wrapper)
        # shutil only takes its symlink-safe rmtree when these are listed.
        if original in module.supports_dir_fd:
            module.supports_dir_fd.discard(original)
            module.supports_dir_fd.add(wrapper)


def _patch_early(module):
    """A module imported before the shim (a `.pth` file importing tempfile, directly or
    through certifi or importlib.resources): os functions it bound then, such as
    tempfile's `unlink=_os.unlink` default, are pointed at the wrappers."""
    from . import early

    early.rebind(module, {id(w.__wrapped__): w for w in _wrappers.values()})
    if module.__name__ == "shutil":
        from . import rmtree

        rmtree.patch(module)


def _repoint_pathlib(wrappers):
    # pathlib before 3.11 copied os.unlink and os.rmdir onto a class when imported.
    accessor = getattr(sys.modules.get("pathlib"), "_NormalAccessor", None)
    for name in ("unlink", "rmdir"):
        if getattr(accessor, name, None) is wrappers[name].__wrapped__:
            setattr(accessor, name, wrappers[name])
