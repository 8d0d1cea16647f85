"""Whether the caller itself may delete what it names, as the kernel would judge it.

The supervisor trashes on the caller's behalf with its own credentials. A root run
whose child dropped to another uid (setpriv, a daemon's worker, su -c without
no_new_privs) would otherwise see a deletion succeed that the kernel refuses it. So
before acting for a caller whose credentials are not the supervisor's, the kernel's
may_delete is redone with the caller's fsuid, fsgid, groups and effective
capabilities (from /proc/TID/status): write and search on the parent
(CAP_DAC_OVERRIDE; search alone also CAP_DAC_READ_SEARCH), then the sticky-bit rule
(owner of the file or of the directory, or CAP_FOWNER). A capability counts only
over files whose owner and group the caller's user namespace maps. The answer is the
kernel's errno (EACCES, EPERM), with no marker: the kernel would fail it the same way.

Not redone: search permission on the directories above the parent, POSIX ACLs, and
LSMs; a caller so limited is refused by its parent's mode in every common case.
"""

import errno
import os
import stat

CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER = 1, 2, 3


class Credentials:
    __slots__ = ("fsuid", "fsgid", "groups", "caps")

    def __init__(self, status):
        fields = {}
        for line in status.splitlines():
            key, _, value = line.partition(b":")
            fields[key] = value.split()
        self.fsuid = int(fields[b"Uid"][3])
        self.fsgid = int(fields[b"Gid"][3])
        self.groups = frozenset(int(g) for g in fields.get(b"Groups", ()))
        self.caps = int(fields[b"CapEff"][0], 16)

    def key(self):
        return self.fsuid, self.fsgid, self.groups, self.caps


def _read(path):
    with open(path, "rb") as handle:
        return handle.read()


_status_fds = {}  # tid -> a descriptor of /proc/TID/status, read again with pread
_KEPT = 128


def _status(tid):
    """/proc/TID/status as it is now. The descriptor is kept: reading it again costs a
    third of opening it, and once its thread is gone it reads ESRCH, never another
    process's status under a reused id."""
    fd = _status_fds.get(tid)
    if fd is not None:
        try:
            return os.pread(fd, 16384, 0)
        except OSError:
            del _status_fds[tid]
            os.close(fd)
    if len(_status_fds) >= _KEPT:
        for old in _status_fds.values():
            os.close(old)
        _status_fds.clear()
    fd = os.open(b"/proc/%d/status" % tid, os.O_RDONLY | os.O_CLOEXEC)
    _status_fds[tid] = fd
    return os.pread(fd, 16384, 0)


def _key(status):
    """The credential lines of a status: Uid, Gid, Groups, CapEff."""
    start = status.find(b"\nUid:")
    end = status.find(b"\nFDSize:", start)
    groups = status.find(b"\nGroups:", end)
    caps = status.find(b"\nCapEff:", groups)
    return (
        status[start:end]
        + status[groups : status.find(b"\n", groups + 1)]
        + status[caps : status.find(b"\n", caps + 1)]
    )


_own_key = []


def same_as_supervisor(tid):
    """Whether thread tid has the supervisor's very credentials (a look at its
    status: no more than that is parsed)."""
    if not _own_key:
        _own_key.append(_key(_read(b"/proc/self/status")))
        _own_key.append(_userns(b"self"))
    if _key(_status(tid)) != _own_key[0]:
        return False
    # The same capabilities count only in the supervisor's own user namespace: in one
    # of its own (`unshare -r`) they reach only the files that namespace maps.
    return _userns(b"%d" % tid) == _own_key[1]


_own = []  # the supervisor's Credentials.key() and user namespace inode


def denies(tid, parent_st, st):
    """0 when thread tid may delete the entry st in the directory parent_st, else the
    errno the kernel gives it."""
    return _denies(tid, parent_st, st)


def _denies(tid, parent_st, st, need=3):
    """denies(), or with st None: whether tid may make an entry in parent_st (need:
    the rwx bits wanted on parent_st, write and search by default)."""
    caller = Credentials(_status(tid))
    if not _own:
        _own.extend((Credentials(_read(b"/proc/self/status")).key(), _userns(b"self")))
    foreign = _userns(str(tid).encode()) != _own[1]
    if caller.key() == _own[0] and not foreign:
        return 0  # the supervisor's own move meets the same rules as the kernel's unlink
    maps = (_ranges(tid, b"uid_map"), _ranges(tid, b"gid_map")) if foreign else None

    def capable(cap, of):
        if not caller.caps & (1 << cap):
            return False
        return maps is None or (_in(maps[0], of.st_uid) and _in(maps[1], of.st_gid))

    granted = _bits(caller, parent_st)  # write (2) and search (1) are needed
    if granted & need != need and not (
        capable(CAP_DAC_OVERRIDE, parent_st)
        or (granted & need == need & 2 and capable(CAP_DAC_READ_SEARCH, parent_st))
    ):
        return errno.EACCES
    if st is None:
        return 0
    owners = (st.st_uid, parent_st.st_uid)
    if parent_st.st_mode & stat.S_ISVTX and caller.fsuid not in owners:
        return 0 if capable(CAP_FOWNER, st) else errno.EPERM
    return 0


def callers_match():
    """Whether every caller under the net has the supervisor's own credentials, so
    that the kernel's checks on the supervisor are the caller's (see net/perform): the
    supervisor holds no capability and one uid and one gid throughout."""
    if not _match:
        status = _read(b"/proc/self/status")
        fields = dict(line.split(b":", 1) for line in status.splitlines() if b":" in line)
        uids, gids = set(fields[b"Uid"].split()), set(fields[b"Gid"].split())
        _match.append(Credentials(status).caps == 0 and len(uids) == 1 and len(gids) == 1)
    return _match[0]


_match = []


def denies_write(tid, st):
    """0 when thread tid may write the directory st (a directory moved to another
    parent has its '..' rewritten), else EACCES."""
    return _denies(tid, st, None, need=2)


def denies_arrival(tid, parent_st):
    """0 when thread tid may make a new entry in the directory parent_st (write and
    search on it), else the errno the kernel gives it."""
    return _denies(tid, parent_st, None)


def _bits(caller, st):
    """The rwx bits (0-7) of st's mode that apply to caller."""
    if caller.fsuid == st.st_uid:
        return (st.st_mode >> 6) & 7
    if caller.fsgid == st.st_gid or st.st_gid in caller.groups:
        return (st.st_mode >> 3) & 7
    return st.st_mode & 7


def _userns(who):
    return os.stat(b"/proc/%s/ns/user" % who).st_ino


def _ranges(tid, name):
    """[(first, count)] of ids, as the supervisor numbers them, that tid's user
    namespace maps."""
    found = []
    for line in _read(b"/proc/%d/%s" % (tid, name)).splitlines():
        parts = line.split()
        if len(parts) == 3:
            found.append((int(parts[1]), int(parts[2])))
    return found


def _in(ranges, ident):
    return any(first <= ident < first + count for first, count in ranges)
