"""Bring back what a turn's git snapshots saved: work-tree changes, stashes, branches."""

import os
import subprocess

from ..gnu.quoting import original_environ


def snapshots(events):
    return [event for event in events if event.get("operation") == "snapshot"]


def _git(repo, *args, text=True):
    env = original_environ()
    env.pop("SAFEDEL_ACTIVE", None)  # restoring is not a destructive command to judge
    done = subprocess.run(
        ["git", "-C", repo, *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    message = (done.stderr or done.stdout).decode("utf-8", "replace").strip()
    out = done.stdout.decode("utf-8", "replace") if text else done.stdout
    return done.returncode, out, message


def _names(repo, *args):
    status, out, message = _git(repo, *args, text=False)
    if status:
        raise UndoError(message)
    return [os.fsdecode(name) for name in out.split(b"\0") if name]


class UndoError(Exception):
    pass


def _conflicts(repo, commit, paths):
    """Paths changed since the command ran: neither as it left them (the snapshot's
    base) nor as the snapshot has them. Restoring must not overwrite those."""
    busy = []
    # The work tree may hold the base (reset --hard), the index (checkout -- .) or the
    # snapshot itself; the index the base or the snapshot's index.
    for cached, trees in (([], ("^1", "^2", "")), (["--cached"], ("^1", "^2"))):
        left = None
        for suffix in trees:
            changed = set(
                _names(repo, "diff", *cached, "--name-only", "-z", commit + suffix, "--", *paths)
            )
            left = changed if left is None else left & changed
        busy += sorted(left - set(busy))
    # A snapshot file that is neither in the index nor in the base, but exists again.
    tracked = set(_names(repo, "ls-files", "-z", "--", *paths))
    for path in paths:
        if path not in tracked and os.path.lexists(os.path.join(repo, path)):
            status, blob, _ = _git(repo, "rev-parse", "-q", "--verify", f"{commit}:{path}")
            status2, here, _ = _git(repo, "hash-object", "--", path)
            if status or status2 or blob.strip() != here.strip():
                busy.append(path)
    return busy


def _reapply_work_tree(repo, commit):
    """Put back the index and work-tree content of every path the snapshot changed,
    exactly as it was; refuse, naming them, where the paths changed again since."""
    try:
        paths = sorted(
            set(_names(repo, "diff", "--name-only", "-z", f"{commit}^1", f"{commit}^2"))
            | set(_names(repo, "diff", "--name-only", "-z", f"{commit}^1", commit))
        )
        busy = _conflicts(repo, commit, paths)
        if busy:
            shown = ", ".join(busy[:5]) + (" …" if len(busy) > 5 else "")
            return False, f"{shown} changed again in {repo}; nothing re-applied; saved as {commit}"
        for source, where in ((f"{commit}^2", "--staged"), (commit, "--worktree")):
            status, _, message = _git(repo, "restore", f"--source={source}", where, "--", *paths)
            if status:
                raise UndoError(message)
    except UndoError as exc:
        first = str(exc).splitlines()[0] if str(exc) else "git failed"
        return False, f"changes in {repo} not re-applied ({first}); saved as {commit}"
    return True, f"re-applied the uncommitted changes in {repo}"


def ref_exists(event):
    repo = str(event.get("repo"))
    if not os.path.isdir(repo):
        return False
    status, out, _ = _git(repo, "rev-parse", "-q", "--verify", str(event.get("ref")))
    return status == 0 and out.strip() == event.get("commit")


def reapply(event):
    """Put one snapshot back. Returns (ok, what happened, in one line)."""
    repo, commit, kind = str(event.get("repo")), str(event.get("commit")), event.get("kind")
    if not os.path.isdir(repo):
        return False, f"{repo} is not there any more"
    if kind == "worktree":
        return _reapply_work_tree(repo, commit)
    if kind == "stash":
        _, listing, _ = _git(repo, "log", "-g", "--format=%H", "refs/stash")
        if commit in listing.split():
            return True, f"stash entry {commit[:12]} is already in {repo}"
        message = str(event.get("message") or "restored by safedel")
        status, _, error = _git(repo, "stash", "store", "-m", message, commit)
        if status:
            return False, f"stash entry {commit[:12]} not restored in {repo}: {error}"
        return True, f"restored stash entry '{message}' in {repo}"
    if kind == "branch":
        name = str(event.get("name"))
        status, current, _ = _git(repo, "rev-parse", "--verify", "-q", f"refs/heads/{name}")
        if not status:
            if current.strip() == commit:
                return True, f"branch {name} is already at {commit[:12]} in {repo}"
            return False, f"branch {name} exists in {repo} at another commit; saved as {commit}"
        status, _, error = _git(repo, "branch", name, commit)
        if status:
            return False, f"branch {name} not re-created in {repo}: {error}"
        return True, f"re-created branch {name} at {commit[:12]} in {repo}"
    return False, f"unknown snapshot kind {kind!r} for {commit}"


def drop(event):
    """Delete a snapshot's ref (purge). True when it is gone."""
    repo = str(event.get("repo"))
    if not os.path.isdir(repo):
        return True
    ref, commit = str(event.get("ref")), str(event.get("commit"))
    status, _, _ = _git(repo, "update-ref", "-d", ref, commit)
    return status == 0 or not ref_exists(event)
