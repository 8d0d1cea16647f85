"""Which resolved paths the net leaves to the kernel (CONTINUE) without judging them.

- safedel's own places: the state directory and every trash directory. The shims only
  ever delete for real there or in exempt roots (info files of a failed move, signal
  files, exempt temp files), so a shim's own call is recognised by where it points,
  not by who makes it: no per-process mark to forge or to lose across exec.
- exempt roots (the temp directory by default), judged on the real path;
- a `.git` directory, when the caller is git itself (locks, gc, prune);
- anything inside a directory that git ignores as a whole (build/, dist/, target/,
  node_modules/): build tools churn there. An ignored file in a tracked directory
  (.env) is not such a tree, and is judged like any other file;
- a file git itself deletes whose exact content git stores (see gitblobs), and the
  empty directories git prunes after it.
"""

import os

from ..core import trashdirs
from . import gitblobs, target


class Places:
    def __init__(self, settings, environ):
        own = [settings.state_dir, os.fsdecode(trashdirs.home_trash(environ))]
        if settings.trash_dir:
            own.append(settings.trash_dir)
        # Prefixes ready for one str.startswith call per class: this runs on every call.
        self._own = _prefixes(own)
        self._exempt = _prefixes(settings.exempt)
        self._uid = str(os.getuid())
        self._ignored = {}  # real parent directory -> inside an ignored tree?
        self._repos = {}  # directory -> its work tree top, or None
        self._blobs = gitblobs.Blobs()

    def left_to_kernel(self, path, tid):
        """A short reason when the kernel should do this deletion itself, else None."""
        parent = os.path.dirname(path)
        if path.startswith(self._own) or self._in_topdir_trash(parent):
            return "safedel's own files"
        if path.startswith(self._exempt):
            return "exempt"  # path is real already: its parent came from the kernel
        parts = parent.split(os.sep)
        if ".git" in parts:
            return "git's own bookkeeping" if _is_git(tid) else None
        if self._ignored_tree(parent):
            return "inside a directory git ignores"
        return None

    def git_can_restore(self, found, tid):
        """When git itself deletes content it stores (found.inspect() done)."""
        if not _is_git(tid):
            return False
        top = self._top(os.path.dirname(found.path))
        if top is None:
            return False
        if found.removes_dir:
            return target.is_empty_dir(found)  # git prunes the directories it emptied
        return self._blobs.stored(top, found.parent_fd, found.name, found.st)

    def close(self):
        self._blobs.close()

    def _in_topdir_trash(self, parent):
        if ".Trash" not in parent:
            return False
        parts = parent.split(os.sep)
        if f".Trash-{self._uid}" in parts:
            return True
        return any(
            parts[i] == ".Trash" and parts[i + 1] == self._uid for i in range(len(parts) - 1)
        )

    def _ignored_tree(self, parent):
        known = self._ignored.get(parent)
        if known is None:
            if len(self._ignored) > 4096:
                self._ignored.clear()
            known = self._ignored[parent] = self._ask_git(parent)
        return known

    def _ask_git(self, parent):
        top = self._top(parent)
        if top is None or parent == top:
            return False
        relative = os.path.relpath(parent, top).split(os.sep)
        candidates = ["/".join(relative[: i + 1]) + "/" for i in range(len(relative))]
        import subprocess  # only once a git work tree is met

        try:
            done = subprocess.run(
                ["git", "-C", top, "check-ignore", "--stdin"],
                input="\n".join(candidates) + "\n",
                capture_output=True,
                text=True,
                timeout=30,
                env=_git_env(),
            )
        except (OSError, subprocess.SubprocessError):
            return False  # no verdict: judge the file as any other
        return done.returncode == 0 and bool(done.stdout.strip())

    def _top(self, directory):
        """The work tree containing directory (a `.git` entry above it), or None."""
        if directory in self._repos:
            return self._repos[directory]
        top, probe = None, directory
        while True:
            if os.path.lexists(os.path.join(probe, ".git")):
                top = probe
                break
            up = os.path.dirname(probe)
            if up == probe:
                break
            probe = up
        self._repos[directory] = top
        return top


def _prefixes(roots):
    """'root/' for each real root: a path strictly inside starts with one of them."""
    return tuple(os.path.realpath(r).rstrip(os.sep) + os.sep for r in roots if r)


def _is_git(tid):
    try:
        exe = os.readlink(f"/proc/{tid}/exe")
    except OSError:
        return False
    name = os.path.basename(exe)
    return name == "git" or name.startswith("git-")


def _git_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_OPTIONAL_LOCKS"] = "0"
    return env
