"""The one error type and the one outcome type of the deletion pipeline (core.deletion).

Every refusal or failure a front end can meet (protected, bulk guard, no usable trash,
a real delete that stopped) is a DeletionError: an OSError whose errno a front end can
print its tool's way, and whose `.reason` says in words why the item stayed.
"""

import errno as _errno
import os as _os


class DeletionError(OSError):
    """The target was not deleted. `.reason` says why; `.errno` is the closest errno."""

    def __init__(self, err, reason, path=None):
        super().__init__(err if err is not None else _errno.EIO, reason, path)
        self.reason = reason
        self.message = reason


class RemovalError(DeletionError):
    """A real delete stopped at .path (bytes, as the caller spelled it). Here, not in
    realdelete, so that catching it does not load the real delete."""

    def __init__(self, err, path):
        super().__init__(err, _os.strerror(err), path)
        self.path = path


class Outcome:
    """What the pipeline did with one target.

    action: "trashed" (record is the trash.TrashRecord), "deleted" (exempt: removed for
    real), "refused" or "failed" (error is the DeletionError; the item stayed).
    """

    __slots__ = ("target", "action", "record", "error")

    def __init__(self, target, action, record=None, error=None):
        self.target, self.action, self.record, self.error = target, action, record, error

    @property
    def ok(self):
        return self.error is None

    def __repr__(self):
        return f"Outcome({self.target!r}, {self.action!r})"
