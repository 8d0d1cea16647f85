"""pip uninstall under the Python shim: packages go to the trash under their real names.

pip first stashes what it uninstalls: each directory is renamed next to itself as
`~name` (a fresh, empty `~name` directory is made and removed first), files go to a
temporary directory, and commit() deletes the stashes. Left alone, the shim would
trash the empty `~name`, then the stash under that name: twice, and restoring it would
give back a directory Python cannot import. So pip's own removal of the empty stash
directory is a real one (and a cross-device move into the stash copies before it
unlinks), and commit() first puts each stashed item back where it was, then deletes
it there: once, under its own name. A refusal puts everything back and fails the
uninstall, so the package stays whole.

Loaded when pip imports its req_uninstall module (pyshim's Watcher).
"""

import os
import sys

from . import InternalCalls, deletions

_patched = []


def patch(module):
    stashes = getattr(module, "StashedUninstallPathSet", None)
    if stashes is None or stashes in _patched:
        return
    stash, commit = stashes.stash, stashes.commit

    def stash_wrapper(self, path):
        with InternalCalls(module.__name__, "shutil", "os"):
            return stash(self, path)

    def commit_wrapper(self):
        try:
            if self._moves and deletions().current_settings().active:
                _delete_in_place(self._moves)
        finally:
            commit(self)  # what is left: the emptied stash directories

    for wrapper, original in ((stash_wrapper, stash), (commit_wrapper, commit)):
        for name in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(wrapper, name, getattr(original, name))
        wrapper.__wrapped__ = original
    stashes.stash, stashes.commit = stash_wrapper, commit_wrapper
    _patched.append(stashes)


def _delete_in_place(moves):
    """Put each stashed item back at its own path and delete it there (the shim trashes
    it). After a refusal the rest is only put back; the refusal is raised at the end."""
    refusal = None
    for path, stashed in moves:
        if not os.path.lexists(stashed) or os.path.lexists(path):
            continue  # nothing stashed there, or its place is taken: pip's own way
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            _put_back(stashed, path)
        except OSError:
            continue
        if refusal is not None:
            continue
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                sys.modules["shutil"].rmtree(path)
            else:
                os.remove(path)
        except OSError as exc:
            refusal = exc
    if refusal is not None:
        raise refusal


def _put_back(stashed, path):
    try:
        os.rename(stashed, path)
    except OSError as exc:
        if exc.errno != 18:  # EXDEV: the stash was a copy on another device
            raise
        import shutil

        with InternalCalls("shutil"):
            shutil.move(stashed, path)
