"""Whether a target lies in an exempt root: in the very directory the root was when it
was fixed (core/contract/exemptids.py), on that directory's own mount.

A root holds anything only while its name still leads to that directory (same device
and inode): after `mv "$TMPDIR" x; mv ~/project "$TMPDIR"`, or a bind mount over it,
nothing under the name is exempt. Its real path, found once, is then the prefix a
target's real path is placed by (core/policy/workspace.py), and the target's own
directory decides:

- straight inside the root, its parent must be the root's directory (device, inode);
- deeper, its parent must lie on the root's own mount (a project bind-mounted inside
  the temp dir is judged like any other path), and its ancestor that many levels up,
  walked by '..' from a descriptor of the parent, must be the root's directory. A
  rename racing the check cannot make the path say one thing and the directory be
  another: the walk starts at the directory itself;
- a directory target must not be a mount point of its own.

The descriptor a front end deletes through is checked against the parent's identity
judged here (core/trash/realdelete.py, core/pyshim/exemptcall.py); the Node shim does
the same (shims/node/exemptids.cjs) and the net checks the caller's own parent
(net/exempt.py). The rule itself, without the file system, is verdict(), held to the
Node shim's by tests/vectors/exemptids.json.
"""

import os

# Imported at load, never in a call: a program that has monkeypatched os (CPython's
# own tests replace os.close) would break an import made in the middle of its call.
from .. import mounts, resolve
from ..contract import exemptids

_DIR_FLAGS = (getattr(os, "O_PATH", 0) or os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0)
_DIR_FLAGS |= os.O_CLOEXEC
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_usable = {}  # (settings.exempt, settings.exempt_ids) -> (usable roots, real paths)
_last = [None, None]  # the settings asked about last, and what _found gave
_mounts = {}  # (real root, identity) -> its mount id
_below = {}  # (directory, identity, roots) -> whether it lies in one of them
_LIMIT = 4096


class Root:
    """An exempt root that holds something: its real path (str) and identity."""

    __slots__ = ("real", "ident")

    def __init__(self, real, ident):
        self.real, self.ident = real, ident

    def __repr__(self):
        return f"Root({self.real!r}, {self.ident!r})"


def roots(settings):
    """The exempt roots of settings that hold anything, found once per process: each
    whose name leads, the first time it is asked, to the directory it was fixed as."""
    return _found(settings)[0]


def _found(settings):
    """(usable roots, their real paths) for settings; asked several times a deletion,
    so the settings last asked about answer at once."""
    if _last[0] is settings:
        return _last[1]
    key = (settings.exempt, settings.exempt_ids)
    found = _usable.get(key)
    if found is None:
        if len(_usable) > 64:
            _usable.clear()
        idents = exemptids.fixed(settings.exempt, settings.exempt_ids)
        usable = tuple(_usable_roots(settings.exempt, idents))
        found = _usable[key] = (usable, tuple(root.real for root in usable))
    _last[:] = [settings, found]
    return found


def _usable_roots(exempt, idents):
    for root, ident in zip(exempt, idents):
        if ident is None:
            continue  # no directory when it was fixed: it holds nothing
        try:
            real, now = resolve.real_directory(os.fsencode(root))
        except OSError:
            continue
        if now == ident:
            yield Root(os.fsdecode(real.rstrip(b"/") or b"/"), ident)


def real_paths(settings):
    """The usable roots' real paths (str), as core/policy/workspace.py places paths."""
    return _found(settings)[1]


def depth(path, root):
    """How many levels below root (real str) the directory path (real str) lies: 0 for
    root itself, None when it is not inside."""
    if path == root:
        return 0
    top = root if root == os.sep else root + os.sep
    if not path.startswith(top):
        return None
    return path.count(os.sep, len(top)) + 1


def verdict(place, place_id, ancestor, same_mount, usable):
    """The rule without the file system: whether the directory at place (real str),
    whose identity is place_id, lies in one of usable (Roots). ancestor(n) is the
    identity of its ancestor n levels up, same_mount(root) whether it shares root's
    mount; both are asked only for a place below a root."""
    for root in usable:
        levels = depth(place, root.real)
        if levels is None:
            continue
        if levels == 0:
            if place_id == root.ident:
                return True
        elif same_mount(root) and ancestor(levels) == root.ident:
            return True
    return False


def holds(target, settings):
    """Whether target (a resolve.Target whose real path lies strictly inside an exempt
    root) is in it by the rule above."""
    usable = roots(settings)
    if target.via_link:  # what goes is the directory the link leads to
        return _directory_holds(target.path, target.dir_id, usable)
    if target.parent_id is None:
        return False
    parent = os.fsdecode(target.parent)
    if not _directory_holds(target.parent, target.parent_id, usable, parent):
        return False
    if not target.is_dir:
        return True
    return _not_a_mount_point(target.path, target.st, usable)


def _directory_holds(path, ident, usable, shown=None):
    """Whether the directory at path (real, bytes), which must be ident, lies in a root."""
    shown = os.fsdecode(path) if shown is None else shown
    if ident is None:
        return False
    if not any(depth(shown, root.real) for root in usable):
        return verdict(shown, ident, None, None, usable)  # the root itself, or nothing
    known = _below.get((shown, ident, usable))
    if known is not None:
        return known
    try:
        fd = os.open(path, _DIR_FLAGS | _NOFOLLOW)
    except OSError:
        return False
    try:
        return holds_at(fd, shown, ident, usable)
    finally:
        os.close(fd)


def holds_at(fd, place, ident, usable):
    """Whether the directory open as fd, at place (real str), lies in one of usable:
    ident must be its identity, and its mount and ancestors are read from fd itself.
    A directory below a root is asked once per path and identity (a build deleting
    thousands of files in /tmp/cc-XXXX walks once); moved, it has another path,
    replaced, another identity, and either is asked afresh."""
    try:
        st = os.fstat(fd)
    except OSError:
        return False
    if (st.st_dev, st.st_ino) != ident:
        return False  # not the directory judged: judged like any other path
    key = (place, ident, usable)
    found = _below.get(key)
    if found is None:
        found = _walk_verdict(fd, st, place, ident, usable)
        if len(_below) > _LIMIT:
            _below.clear()
        _below[key] = found
    return found


def _walk_verdict(fd, st, place, ident, usable):
    known = []

    def same_mount(root):
        if not known:
            known.append(_mount_key(fd, st))
        return known[0] is not None and known[0] == _root_mount(root)

    return verdict(place, ident, lambda levels: _ancestor(fd, levels), same_mount, usable)


def _ancestor(fd, levels):
    """The identity of the directory levels steps up from the one open as fd."""
    here = fd
    try:
        for _ in range(levels):
            up = os.open(b"..", _DIR_FLAGS, dir_fd=here)
            if here != fd:
                os.close(here)
            here = up
        st = os.fstat(here)
    except OSError:
        return None
    finally:
        if here != fd:
            os.close(here)
    return st.st_dev, st.st_ino


def _mount_key(fd, st):
    """The mount the directory open as fd lies on: the kernel's mount id on Linux,
    elsewhere its device, which tells a volume apart but not a bind mount."""

    if not mounts.LINUX:
        return st.st_dev
    try:
        return mounts.mount_id(fd)
    except (OSError, ValueError):
        return None


def _root_mount(root):
    """The mount of root's directory, found once, and only while it is that directory."""
    key = (root.real, root.ident)
    found = _mounts.get(key)
    if found is None:
        if not mounts.LINUX:
            return root.ident[0]
        found = mounts.mount_of(root.real, root.ident)
        if found is None:
            return None
        _mounts[key] = found
    return found


def _not_a_mount_point(path, st, usable):
    """Whether the directory at path (real, bytes; st its lstat) is on the mount of the
    root that holds it: not a mount point of its own."""

    shown = os.fsdecode(path)
    for root in usable:
        if not depth(shown, root.real) or st.st_dev != root.ident[0]:
            continue
        if not mounts.LINUX:
            return True
        if mounts.mount_of(path, (st.st_dev, st.st_ino), _NOFOLLOW) == _root_mount(root):
            return True
    return False
