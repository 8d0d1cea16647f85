"""The Python shim: os.remove, os.unlink, os.rmdir and shutil.rmtree move things to the trash.

The shim's sitecustomize calls install() inside any CPython 3.9+, safedel's own or not.
os.removedirs and pathlib's unlink and rmdir call these os functions, so they follow.
Each wrapper keeps its original's contract: the signature, dir_fd (and its place in
os.supports_dir_fd), the exception types, errno and `filename` (the very object passed
in). Only where the data ends up changes. Exempt paths get the original: a real delete.

This module is what every shimmed interpreter loads at start-up, so it imports nothing
new: the deletion logic (pyshim_os) loads at the first deletion, the rmtree wrapper
(pyshim_shutil) when shutil is imported.
"""

import os
import sys


def _snapshot(module):
    copy = type(module)(module.__name__)
    copy.__dict__.update(module.__dict__)
    return copy


# os as it was before the shim (or a program, or a test) patched anything: the engine
# works through it, so a monkeypatched os.lstat or os.close can neither break nor fool
# a trash.
OS_AT_START = _snapshot(os)
_installed = []
_deletions = []


def deletions():
    if not _deletions:
        from . import pyshim_os

        _deletions.append(pyshim_os)
    return _deletions[0]


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
    """shutil's real loader, plus the rmtree patch once the module has run. The module
    gets its real loader back before it runs, as if nothing had come between."""

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
        from . import pyshim_shutil

        pyshim_shutil.patch(module)


class ShutilWatcher:
    """A meta path finder that finds nothing itself: it hands back shutil's own spec
    with a loader that patches it. Importing shutil at start-up instead would cost
    every interpreter milliseconds, and most never delete anything."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "shutil":
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
    wrappers = {
        "remove": Builtin(os.remove, "remove_file"),
        "unlink": Builtin(os.unlink, "remove_file"),
        "rmdir": Builtin(os.rmdir, "remove_dir"),
    }
    for name, wrapper in wrappers.items():
        original = wrapper.__wrapped__
        setattr(os, name, wrapper)
        # shutil only takes its symlink-safe rmtree when these are listed.
        if original in os.supports_dir_fd:
            os.supports_dir_fd.discard(original)
            os.supports_dir_fd.add(wrapper)
    _repoint_pathlib(wrappers)
    if "shutil" in sys.modules:
        from . import pyshim_shutil

        pyshim_shutil.patch(sys.modules["shutil"])
    sys.meta_path.insert(0, ShutilWatcher)
    _installed.append(True)


def _repoint_pathlib(wrappers):
    # pathlib before 3.11 copied os.unlink and os.rmdir onto a class when imported.
    accessor = getattr(sys.modules.get("pathlib"), "_NormalAccessor", None)
    for name in ("unlink", "rmdir"):
        if getattr(accessor, name, None) is wrappers[name].__wrapped__:
            setattr(accessor, name, wrappers[name])
