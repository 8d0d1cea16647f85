"""Which run pointers the net lets the kernel delete: a process's own, as its run ends.

`safedel run` leaves a pointer to its run, named `<pid>-<start time>`, in each pointer
folder (core/contract/runpointer.py) and removes it when the run ends. A run started
inside another is under the outer run's net, so that removal reaches the net. The
kernel does it only when
- the directory the call acts in is a pointer folder as runpointer opens and checks
  it (this uid's, writable by nobody else), by device and inode: a `by-pid` folder
  anywhere else, the state directory's own included, holds files like any other;
- the name is the caller's own key, its pid and that pid's start time as the net sees
  them: `echo data > by-pid/$$-1; exec rm by-pid/$$-1` names no process;
- the file is a run pointer naming the caller's pid (fileshape.run_pointer).
Anything else there is judged like any file (a leftover pointer of a dead process is
the next run's to remove, outside any net: executor/killedruns.py).
"""

import os

from ..core.contract import runpointer
from . import fileshape, walk


def own(path, parent, st, tid, entry=None):
    """Whether deleting path (real; parent: its directory; st: that directory as the
    caller reaches it) removes the run pointer of the caller (thread tid). entry: (the
    caller's parent descriptor, name) to read the file through; None judges by place
    and name alone (a rename)."""
    if os.path.basename(parent) != runpointer.BY_PID:
        return False
    caller_pid = walk.tgid_of(tid)
    key = runpointer.pid_key(caller_pid)
    if key is None or path[len(parent) + 1 :] != key or not _a_pointer_folder(parent, st):
        return False
    return entry is None or fileshape.run_pointer(fileshape.read(entry), caller_pid)


def _a_pointer_folder(parent, st):
    for root, parts in runpointer.places():
        if os.path.realpath(os.path.join(root, *parts)) != parent:
            continue
        try:
            folder = runpointer.open_place(root, parts, create=False)
        except OSError:
            return False
        with folder:
            here = os.fstat(folder.fd)
        return (here.st_dev, here.st_ino) == (st.st_dev, st.st_ino)
    return False
