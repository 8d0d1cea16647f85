"""Save what reset, checkout, restore, switch, stash drop/clear and branch -D destroy.

Before the real command runs, the work at risk gets a ref under
refs/safedel/<session>/<turn>/<n>, so `git gc` keeps it and `safedel restore --turn`
can bring it back, and a `snapshot` report event names it. Nothing is saved when
there is nothing to lose.
"""

import os
import re

from .gitcmd import GitFailed

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
# Who a snapshot commit is by when the repository has no identity configured.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "safedel",
    "GIT_AUTHOR_EMAIL": "safedel@localhost",
    "GIT_COMMITTER_NAME": "safedel",
    "GIT_COMMITTER_EMAIL": "safedel@localhost",
}


def _flags(rest):
    """Option arguments before `--`, short clusters split into single letters."""
    flags = set()
    for arg in rest:
        if arg == "--":
            break
        if arg.startswith("--"):
            flags.add(arg.partition("=")[0])
        elif arg.startswith("-") and len(arg) > 1:
            flags.update("-" + letter for letter in arg[1:])
    return flags


def _operands(rest):
    """Non-option arguments (values of options that take one are not told apart)."""
    return [arg for arg in rest if arg != "--" and not arg.startswith("-")]


def at_risk(git, subcommand, rest):
    """[(kind, extra fields, commit)] that the command would destroy, if any."""
    flags = _flags(rest)
    if subcommand == "stash":
        return _stash_entries(git, rest)
    if subcommand == "branch":
        force_delete = "-D" in flags or (flags & {"-d", "--delete"} and flags & {"-f", "--force"})
        return _branches(git, _operands(rest)) if force_delete else []
    if not _discards(git, subcommand, rest, flags):
        return []
    commit = _work_tree_commit(git)
    return [("worktree", {}, commit)] if commit else []


def _discards(git, subcommand, rest, flags):
    if subcommand == "reset":
        return bool(flags & {"--hard", "--merge", "--keep"})
    if subcommand == "switch":
        return bool(flags & {"-f", "--force", "--discard-changes"})
    if subcommand == "restore":
        return True
    # checkout: forced, paths given, or an operand that names something in the tree.
    if flags & {"-f", "--force", "-p", "--patch"} or "--" in rest:
        return True
    base = os.getcwd()
    return any(os.path.lexists(os.path.join(base, arg)) for arg in _operands(rest))


def _work_tree_commit(git):
    """A stash-shaped commit of the index and work tree, or None for a clean tree."""
    if git.output("rev-parse", "--verify", "-q", "HEAD") is None:
        return None  # no commit yet: nothing for reset or checkout to go back to
    for env in (None, _IDENTITY):  # the second try covers a repo with no identity
        status, out, err = git.run("stash", "create", env=env)
        if not status:
            return os.fsdecode(out).strip() or None
    raise GitFailed(os.fsdecode(err).strip() or "git stash create failed")


def _stash_entries(git, rest):
    operands = _operands(rest)
    if not operands or operands[0] not in ("drop", "clear"):
        return []
    listing = git.output("log", "-g", "--format=%H%x00%gs", "refs/stash") or ""
    entries = [line.split("\0", 1) for line in listing.splitlines() if "\0" in line]
    if operands[0] == "clear":
        chosen = range(len(entries))
    else:
        wanted = operands[1] if len(operands) > 1 else "stash@{0}"
        index = re.fullmatch(r"(?:stash@\{)?(\d+)\}?", wanted)
        chosen = [int(index.group(1))] if index else []
    return [
        ("stash", {"index": i, "message": entries[i][1]}, entries[i][0])
        for i in chosen
        if i < len(entries)
    ]


def _branches(git, names):
    found = []
    for name in names:
        sha = git.output("rev-parse", "--verify", "-q", f"refs/heads/{name}^{{commit}}")
        if sha:
            found.append(("branch", {"name": name}, sha))
    return found


def ref_prefix(settings):
    parts = [_UNSAFE.sub("_", part).strip("_") or "_" for part in (settings.session, settings.turn)]
    return "refs/safedel/" + "/".join(parts) + "/"


def before(git, subcommand, rest):
    """Snapshot what the command would destroy and report each snapshot. True when the
    command may run; when a snapshot cannot be made it fails closed: a message, a
    FAIL_CLOSED marker, and False."""
    from ..contract import settings
    from ..report import markers, write

    conf = settings.load()
    try:
        risky = at_risk(git, subcommand, rest)
        if not risky:
            return True
        repo = git.output("rev-parse", "--show-toplevel") or os.getcwd()
        prefix = ref_prefix(conf)
        taken = git.output("for-each-ref", "--format=%(refname)", prefix) or ""
        number = 1 + max((int(r.rsplit("/", 1)[1]) for r in taken.split()), default=0)
        events = []
        for offset, (kind, fields, commit) in enumerate(risky):
            ref = f"{prefix}{number + offset}"
            git.run("update-ref", ref, commit, "", check=True)
            command = ["git", subcommand, *rest]
            events.append(
                write.event(
                    "snapshot",
                    conf,
                    "git",
                    repo=repo,
                    ref=ref,
                    commit=commit,
                    command=command,
                    kind=kind,
                    **fields,
                )
            )
        write.append(conf.report, events)
    except (OSError, GitFailed, ValueError) as exc:
        reason = f"could not save what git {subcommand} would discard ({exc}), so it did not run"
        os.write(
            2,
            f"safedel: {reason}; to run it unprotected on purpose: command {git.program} "
            f"{subcommand} ...\n".encode("utf-8", "replace"),
        )
        markers.emit(markers.FAIL_CLOSED, {"path": os.getcwd(), "reason": reason})
        return False
    return True
