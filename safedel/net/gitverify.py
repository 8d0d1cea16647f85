"""Whether a file in git's object store is what its name says it is.

What the net leaves to git in the object store rests on these files: a loose object
that a pack holds too, a pack whose objects another pack holds, the blob that lets git
delete a file HEAD has. A name proves nothing: the command can move any file in under
an object's name, or write an index listing objects its pack does not hold. So a loose
object counts only when its bytes inflate to the object its name hashes to, and a
pack only when it and its index were born before the run started (the command did
not write them) or `git verify-pack` hashes every object of the pack to what the index
lists (once per pack and version of the two files).
"""

import os
import stat

from . import birth


def stamp(path):
    """(inode, mtime, ctime, size) of the regular file at path (never followed; or
    open as a descriptor), or None: what tells one version of it from another (a
    ctime is never set back, and a rename sets it)."""
    try:
        st = os.fstat(path) if isinstance(path, int) else os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size


def made_before(started, path, inode):
    """Whether the file at path (never followed), inode inode, was born before
    started (birth.mark()), its birth known."""
    try:
        entry = birth.of(birth.AT_FDCWD, path)
    except OSError:
        return False
    return entry.ino == inode and birth.born_before(entry, started)


def pack_holds(git, idx):
    """Whether `git verify-pack` finds idx's pack to hold exactly what idx lists."""
    if git is None:
        return False
    import subprocess

    from ..core.git import inert

    try:
        done = subprocess.run(
            inert.argv(git, "verify-pack", idx),
            cwd=os.path.dirname(os.path.dirname(os.path.dirname(idx))),
            capture_output=True,
            env=inert.environ(os.environ),
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def loose(objects_dir, name):
    """Whether objects_dir holds object name (bytes) loose, in a file that is it."""
    hexname = name.hex()
    path = os.path.join(objects_dir, hexname[:2], hexname[2:])
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return False
    with open(fd, "rb") as handle:
        return stat.S_ISREG(os.fstat(handle.fileno()).st_mode) and inflates_to(handle, hexname)


def inflates_to(handle, hexname):
    """Whether handle's bytes inflate, exactly and to the end, to `type size\\0data`
    hashing to hexname (sha1, or sha256 for 64 digits)."""
    import hashlib  # only once git deletes an object: they cost `safedel run`
    import zlib

    digest = hashlib.sha1() if len(hexname) == 40 else hashlib.sha256()
    inflater = zlib.decompressobj()
    header, size, seen = b"", None, 0
    try:
        while not inflater.eof:
            # At most a MiB out at a time: a small file may inflate to gigabytes.
            chunk = inflater.unconsumed_tail or handle.read(1 << 20)
            if not chunk:
                return False  # cut short
            data = inflater.decompress(chunk, 1 << 20)
            digest.update(data)
            if size is None:
                header += data
                if b"\0" in header:
                    head, _, body = header.partition(b"\0")
                    kind, _, length = head.partition(b" ")
                    if kind not in (b"blob", b"tree", b"commit", b"tag") or not length.isdigit():
                        return False
                    size, seen = int(length), len(body)
                elif len(header) > 64:
                    return False
            else:
                seen += len(data)
        if inflater.unused_data or handle.read(1):
            return False  # something after the object
    except (OSError, zlib.error):
        return False
    return size is not None and seen == size and digest.hexdigest() == hexname
