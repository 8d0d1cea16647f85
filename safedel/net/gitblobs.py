"""Whether HEAD already holds a file's exact content, so git may delete it itself.

`git checkout`, `switch`, `rebase`, `stash` and `pull` unlink tracked files by the
hundred. When git itself deletes a file whose content is the blob HEAD has at that
very path, nothing is lost: `git checkout HEAD -- path` (or the reflog, once HEAD has
moved) brings it back. Trashing each one would flood the trash and trip the guard
halfway through a branch switch. An untracked or modified file (what `git clean` or a
forced checkout destroys) is not in HEAD, so it is still trashed; so is a new file
that was only staged: its blob is in the object store, but nothing refers to it and
the next `git gc` drops it.
"""

import os
import stat

from ..core.git import inert
from . import birth

LARGEST = 64 << 20  # larger files are trashed rather than hashed


class Blobs:
    def __init__(self, git):
        self._git = git  # () -> the path of the git to ask, or None
        self._checkers = {}  # work tree top -> a `git cat-file --batch-check` process

    def in_head(self, top, relative, parent_fd, name, st):
        """(the blob's hex name, the file's birth.Entry.identity) when HEAD of the
        work tree at top has this file's (or symlink's) exact content at relative (a
        '/'-separated path from top), else None. The content is read through a
        descriptor of the very entry st describes (inspect()'s lstat)."""
        if "\n" in relative or "\r" in relative:
            return None
        if stat.S_ISLNK(st.st_mode):
            flags = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC
        elif stat.S_ISREG(st.st_mode) and st.st_size <= LARGEST:
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
        else:
            return None
        try:
            fd = os.open(name, flags, dir_fd=parent_fd)
        except OSError:
            return None
        try:
            entry = birth.of_fd(fd)
            if (entry.dev, entry.ino) != (st.st_dev, st.st_ino):
                return None  # another file bears the name now
            data = os.readlink(b"", dir_fd=fd) if flags & os.O_PATH else _read(fd, LARGEST + 1)
        except OSError:
            return None
        finally:
            os.close(fd)
        answer = self._blob(top, relative)
        if answer is None:
            return None
        import hashlib  # only once git deletes in a work tree: it costs `safedel run`

        header = b"blob %d\0" % len(data)
        # sha256 repositories name objects with 64 hex digits.
        digest = hashlib.sha1 if len(answer) == 40 else hashlib.sha256
        if digest(header + data).hexdigest().encode("ascii") != answer:
            return None
        return answer.decode("ascii"), entry.identity

    def _blob(self, top, relative):
        """The name of the blob HEAD has at relative, or None (missing, a directory,
        a submodule, or no git to ask)."""
        checker = self._checker(top)
        if checker is None:
            return None
        try:
            checker.stdin.write(b"HEAD:" + os.fsencode(relative) + b"\n")
            checker.stdin.flush()
            answer = checker.stdout.readline().split()
        except OSError:
            self._checkers.pop(top, None)
            return None
        if len(answer) != 3 or answer[1] != b"blob":
            return None
        return answer[0]

    def _checker(self, top):
        checker = self._checkers.get(top)
        if checker is not None and checker.poll() is None:
            return checker
        git = self._git()
        if git is None:
            return None
        import subprocess

        try:
            checker = subprocess.Popen(
                inert.argv(git, "-C", top, "cat-file", "--batch-check"),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=inert.environ(os.environ),
            )
        except OSError:
            return None
        self._checkers[top] = checker
        return checker

    def close(self):
        for checker in self._checkers.values():
            checker.stdin.close()
            checker.wait()
        self._checkers.clear()


def _read(fd, limit):
    chunks, left = [], limit
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
