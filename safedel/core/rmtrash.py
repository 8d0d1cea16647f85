"""Carry out a GNU front end's plan: protect, guard the batch once, then trash each item.

Shared by rm, rmdir, unlink and find -delete. Protected paths are refused with a
FAIL_CLOSED marker; exempt paths are removed for real (uncounted, unreported); the
rest form one guard batch, refused whole or trashed item by item, in order.
"""

import errno
import os

_MISSING = (errno.ENOENT, errno.ENOTDIR)


def apply(tool, runtime, items, opts, what=b"cannot remove"):
    """Trash items (rmwalk.Item) in order; print -v lines for those that went.

    A directory item that isn't whole is trashed only if it is empty by then: when
    an entry inside it failed, it stays, as it would with rmdir.
    """
    if not items:
        return
    from . import deletion, policy, settings, trash

    conf = settings.load()
    kept = []
    for item in items:
        reason = deletion.protected(item.path)
        if reason:
            tool.error(os.fsencode(reason) + b": safedel protects it")
            from . import markers

            markers.emit(
                markers.FAIL_CLOSED, {"path": deletion.absolute(item.path), "reason": reason}
            )
        else:
            kept.append((item, policy.is_exempt(deletion.absolute(item.path), conf.exempt)))
    try:
        # The reason goes out through announce, before the marker that harnesses parse.
        deletion.authorize(
            conf,
            runtime,
            [item.path for item, exempt in kept if not exempt],
            announce=lambda reason: tool.error(reason.encode("utf-8", "surrogateescape")),
        )
    except deletion.Refused:
        return
    ignore_missing = getattr(opts, "ignore_missing", False)
    for item, exempt in kept:
        if item.is_dir and not item.whole and not _is_empty(item.path):
            tool.cannot(what, item.path, errno.ENOTEMPTY)
            continue
        try:
            if exempt:
                remove_for_real(item.path, item.is_dir)
            else:
                deletion.trash_one(conf, runtime, item.path)
        except trash.TrashFailure as exc:
            tool.cannot(what, item.path, exc.errno or errno.EIO)
            continue
        except RemovalError as exc:
            tool.cannot(what, exc.path, exc.errno)
            continue
        except OSError as exc:
            if not (ignore_missing and exc.errno in _MISSING):
                tool.cannot(what, item.path, exc.errno or errno.EIO)
            continue
        for line in item.lines:
            tool.out(line)


def _is_empty(path):
    try:
        with os.scandir(path) as listing:
            return next(listing, None) is None
    except OSError:
        return True  # let the trash report why it can't be moved


class RemovalError(OSError):
    def __init__(self, err, path):
        super().__init__(err, os.strerror(err), path)
        self.path = path


def remove_for_real(path, is_dir):
    """Delete an exempt path for good: children first, never following a symlink."""
    if not is_dir:
        os.unlink(path)
        return
    try:
        with os.scandir(path) as listing:
            entries = list(listing)
    except OSError as exc:
        raise RemovalError(exc.errno, path) from None
    for entry in entries:
        child = (path[:-1] if path.endswith(b"/") else path) + b"/" + entry.name
        try:
            remove_for_real(child, entry.is_dir(follow_symlinks=False))
        except RemovalError:
            raise
        except OSError as exc:
            raise RemovalError(exc.errno, child) from None
    try:
        os.rmdir(path)
    except OSError as exc:
        raise RemovalError(exc.errno, path) from None
