"""Where a process under a run finds its guard keeper's publication, and reads it (Linux).

The keeper (executor/keeper.py) is a thread of the `safedel run` (or `safedel serve`)
process; what a process asks it about its turn is core/guard/keeperpost.py, and what the
publication holds of the run's record is core/contract/keptrecord.py. Why a command
cannot stand in for it:
- the run process names its main thread `sdkeep <inode>` (prctl PR_SET_NAME): only a
  process can name its own threads, and /proc/<pid>/stat shows the name to everyone,
  even for the net's supervisor, which is not dumpable. The run process is an ancestor
  of every process under it (a child subreaper, or their parent), so the outermost
  ancestor with such a name is the run's keeper, whatever the command names its own;
- the publication is a memfd of that inode, sealed against every write but the
  keeper's own mapping (F_SEAL_FUTURE_WRITE), handed to the command at KEEPER_FD. A
  process reads its own copy, or the first of its ancestors' it can open through /proc
  (a program that closed its descriptors before it started this one): whichever it
  opens, the inode says it is the keeper's.

The publication: 8 bytes of sequence number (odd while the keeper writes), 8 of length,
then ASCII lines (keeperpost.py lists them).
"""

import os
import sys
import time

KEEPER_FD = 1000
MEMFD = "safedel-keeper"
NAME = "sdkeep "  # the run process's main thread: `sdkeep <inode in hex>`
HEADER = 16
MAGIC = b"safedel-keeper 1 "
_found = []  # [(pid, inode, chain) or None] once looked up: ancestors only die
_held = []  # [fd] this process opened on the keeper's memfd


class Unreachable(OSError):
    """The keeper's publication cannot be opened or read: callers fail closed."""


def proc_stat(pid):
    """(parent pid, thread name (bytes), start time) of pid from /proc/<pid>/stat, or
    None."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
        try:
            data = os.read(fd, 2048)
        finally:
            os.close(fd)
        # The command name (field 2) may hold spaces and ')': count after the last ')'.
        close = data.rindex(b")")
        rest = data[close + 2 :].split()
        return int(rest[1]), data[data.index(b"(") + 1 : close], rest[19].decode("ascii")
    except (OSError, ValueError, IndexError):
        return None


def _stat(pid):
    """(parent pid, thread name) of pid from /proc/<pid>/stat, or None."""
    found = proc_stat(pid)
    return found and found[:2]


def _keeper_named(name):
    """The inode a keeper's thread name gives, or None."""
    if not name.startswith(NAME.encode()):
        return None
    try:
        return int(name[len(NAME) :], 16)
    except ValueError:
        return None


def own_pid():
    """This process's pid as /proc numbers it: in a pid namespace of its own
    (`unshare -p -f`) os.getpid() is 1 there, while /proc, still the run's, walks up
    to the keeper from the pid it knows it by."""
    try:
        return int(os.readlink("/proc/self"))
    except (OSError, ValueError):
        return os.getpid()


def _lookup():
    """(pid, inode, the pids from this process up to it) of the outermost keeper among
    this process and its ancestors, or None."""
    chain, found, pid = [], None, own_pid()
    while pid > 0 and len(chain) < 256:
        info = _stat(pid)
        if info is None:
            break
        chain.append(pid)
        inode = _keeper_named(info[1])
        if inode is not None:
            found = (pid, inode, list(chain))
        pid = info[0]
    return found


def find():
    """(pid, inode, the pids from this process up to it) of the run's keeper, or None."""
    if not sys.platform.startswith("linux"):
        return None
    if not _found:
        _found.append(_lookup())
    return _found[0]


def keeper_pid():
    """The outermost ancestor of this process (itself included) that is a keeper."""
    found = find()
    return None if found is None else found[0]


def forget():
    """Look the keeper up again (a process that started or stopped one)."""
    _found.clear()
    while _held:
        try:
            os.close(_held.pop())
        except OSError:
            pass


def _publication(found):
    """A descriptor on the keeper's memfd: this process's own inherited one, else one
    opened through an ancestor that still holds it."""
    _pid, inode, chain = found
    if _held and _is_it(_held[0], inode):
        return _held[0]
    while _held:
        try:
            os.close(_held.pop())
        except OSError:
            pass
    if _is_it(KEEPER_FD, inode):
        return KEEPER_FD
    for pid in chain:
        try:
            fd = os.open(f"/proc/{pid}/fd/{KEEPER_FD}", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        if _is_it(fd, inode):
            _held.append(fd)
            return fd
        os.close(fd)
    raise Unreachable("cannot reach the run's guard keeper, so nothing was deleted")


def _is_it(fd, inode):
    try:
        info = os.fstat(fd)
    except OSError:
        return False
    return info.st_ino == inode and info.st_nlink == 0


def snapshot(found):
    """The publication's text (bytes after the header), read as a seqlock: again while
    the keeper is writing it. Unreachable when the keeper is gone or never stops."""
    fd = _publication(found)
    pause = 0.0
    while True:
        try:
            head = os.pread(fd, HEADER, 0)
            length = int.from_bytes(head[8:16], "little")
            data = os.pread(fd, length, HEADER)
            again = os.pread(fd, 8, 0)
        except OSError as exc:
            raise Unreachable(f"cannot read the run's guard keeper: {exc.strerror}") from None
        if again == head[:8] and not head[0] & 1:
            return data
        if pause > 1.0:  # a keeper descheduled mid-write gets well over a second
            raise Unreachable("the run's guard keeper never stops writing")
        time.sleep(pause)
        pause = pause * 2 or 0.0001


def line(data, head):
    """The rest of the line of data that starts with head, or None."""
    start = data.find(b"\n" + head)
    if start < 0:
        return None
    start += 1 + len(head)
    end = data.find(b"\n", start)
    return data[start : end if end >= 0 else len(data)]
