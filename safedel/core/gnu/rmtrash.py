"""Carry out a GNU front end's plan: protect, guard the batch once, then trash each item.

Shared by rm, rmdir, unlink and find -delete, through the one deletion pipeline
(core.deletion): protected paths are refused with a FAIL_CLOSED marker and a `refuse`
event; exempt paths are removed for real by descriptor (uncounted, unreported); the
rest form one guard batch, refused whole or trashed item by item, in order.
"""

import errno
import os

from ..outcome import RemovalError

_MISSING = (errno.ENOENT, errno.ENOTDIR)


def apply(tool, runtime, items, opts, what=b"cannot remove"):
    """Trash items (rmwalk.Item) in order; print -v lines for those that went.
    False when the guard refused the batch (it said why), else None.

    Each item goes through the deletion pipeline: resolved where the kernel puts it,
    refused if protected, deleted for real if exempt, else guarded with the rest as
    one batch and trashed. A directory item that isn't whole is carried out only if it
    is empty by then: when an entry inside it failed, it stays, as it would with rmdir.
    """
    if not items:
        return
    from .. import deletion
    from ..contract import settings

    conf = settings.load()
    kept = []
    for item in items:
        try:
            target = deletion.judge(conf, _reached(item) if item.at else item.path)
        except OSError as exc:
            tool.cannot(what, item.path, exc.errno or errno.EIO)
            continue
        if target.klass == deletion.PROTECTED:
            say = lambda reason: tool.error(os.fsencode(reason) + b": safedel protects it")  # noqa: E731
            deletion.refuse(conf, runtime, target, announce=say)
            continue
        kept.append((item, target))
    try:
        # The reason goes out through announce, before the marker that harnesses parse.
        deletion.authorize(
            conf,
            runtime,
            [target for _, target in kept if target.klass == deletion.TRASH],
            announce=lambda reason: tool.error(reason.encode("utf-8", "surrogateescape")),
        )
    except deletion.Refused:
        return False
    ignore_missing = getattr(opts, "ignore_missing", False)
    for item, target in kept:
        if item.is_dir and not item.whole and not _is_empty(item.path):
            tool.cannot(what, item.path, errno.ENOTEMPTY)
            continue
        try:
            _carry_out_lending_write(deletion, conf, runtime, target, item)
        except RemovalError as exc:
            if not (ignore_missing and exc.errno in _MISSING):
                tool.cannot(what, exc.path, exc.errno)
            continue
        except OSError as exc:
            if not (ignore_missing and exc.errno in _MISSING):
                tool.cannot(what, item.path, exc.errno or errno.EIO)
            continue
        for line in item.lines:
            tool.out(line)


def _carry_out_lending_write(deletion, conf, runtime, target, item):
    if not item.is_dir:  # only a directory's move may need a loan: `rm FILE` loads none
        return deletion.carry_out(conf, runtime, target)
    from ..lendmode import carry_out_lending_write

    # An entry reached by descriptor (past PATH_MAX) is named relative to its parent.
    name, dir_fd = (target.name, target.parent_fd) if item.at else (target.path, None)
    return carry_out_lending_write(deletion, conf, runtime, target, True, name, dir_fd)


def _reached(item):
    """The Target of an item the walk reached by descriptor: its real path is the real
    parent path it carries plus its name, as resolve would say if the kernel took it."""
    from ..resolve import Target

    parent_fd, name, real_parent = item.at
    parent_st = os.fstat(parent_fd)
    st = os.lstat(name, dir_fd=parent_fd)
    target = Target(item.path, real_parent, name, st, False, (parent_st.st_dev, parent_st.st_ino))
    target.parent_fd = parent_fd
    return target


def _is_empty(path):
    """Whether rmdir(path) would find it empty. A directory this user may not read is
    looked into by its owner; anyone else's is taken as not empty, so it stays."""
    try:
        with os.scandir(path) as listing:
            return next(listing, None) is None
    except OSError:
        pass
    from .. import removable

    try:
        st = os.lstat(path)
    except OSError:
        return True  # let the trash report why it can't be moved
    return removable.empty_despite_mode(path, st, removable.User(), None)
