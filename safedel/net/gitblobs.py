"""Whether git already holds a file's exact content, so git may delete it itself.

`git checkout`, `switch`, `rebase`, `stash` and `pull` unlink tracked files by the
hundred. When git itself deletes a file whose content is a blob in its own object
store, nothing is lost: git can always bring it back. Trashing each one would flood
the trash and trip the guard halfway through a branch switch. An untracked or
modified file (what `git clean` or a forced checkout destroys) is not in the store,
so it is still trashed.
"""

import os
import stat

LARGEST = 64 << 20  # larger files are trashed rather than hashed


class Blobs:
    def __init__(self):
        self._checkers = {}  # work tree top -> a `git cat-file --batch-check` process

    def stored(self, top, parent_fd, name, st):
        """True when git at top holds this file's (or symlink's) content as a blob."""
        if stat.S_ISLNK(st.st_mode):
            data = os.readlink(name, dir_fd=parent_fd)
        elif stat.S_ISREG(st.st_mode) and st.st_size <= LARGEST:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent_fd)
            with open(fd, "rb") as handle:
                data = handle.read(LARGEST + 1)
        else:
            return False
        checker = self._checker(top)
        if checker is None:
            return False
        import hashlib  # only once git deletes in a work tree: it costs `safedel run`

        header = b"blob %d\0" % len(data)
        names = [hashlib.sha1(header + data).hexdigest()]
        names.append(hashlib.sha256(header + data).hexdigest())  # sha256 repositories
        try:
            for name_hex in names:
                checker.stdin.write(name_hex.encode("ascii") + b"\n")
                checker.stdin.flush()
                if not checker.stdout.readline().rstrip().endswith(b"missing"):
                    return True
        except OSError:
            self._checkers.pop(top, None)
        return False

    def _checker(self, top):
        checker = self._checkers.get(top)
        if checker is not None and checker.poll() is None:
            return checker
        import subprocess

        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        try:
            checker = subprocess.Popen(
                ["git", "-C", top, "cat-file", "--batch-check"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
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
