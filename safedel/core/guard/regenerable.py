"""Regenerable targets: trashed like any other, but not counted by the bulk guard.

A target is regenerable when this turn created it (its birth time, else its ctime, is
not older than the turn's start), when git ignores it by rules older than the turn
(see ignorerules), or when the build itself made it (see buildoutput). Counting a
configure script's `conftest.*` files, a build's `dist/` or a tarball's objects helps
nobody; a tracked file, or a source that existed before the turn, always counts.

This is decided only for a batch the guard would otherwise refuse, so the common path
costs nothing. git itself decides what it ignores (`git check-ignore`, one process per
work tree per batch); directories found ignored are remembered for the process.
"""

import os
import time

from .. import jsonl, statx
from ..git import inert
from ..policy.workspace import work_tree
from ..private import open_dir
from . import ignorerules, ledger

CREATED = "created-this-turn"
IGNORED = "ignored"
BUILT = "build-output"
START_VARIABLE = "SAFEDEL_TURN_START"
_ignored_dirs = set()
_QUESTION = (*ignorerules.OPTIONS, "check-ignore", "-v", "--stdin", "-z")
# Targets let through uncounted, by path, until their trash event is written.
uncounted = {}


def birth_or_change_time(path):
    """The item's birth time where the system keeps one, else its ctime (seconds)."""
    info = os.lstat(path)
    return statx.birth_time(path) or info.st_ctime


def turn_start(settings, environ=None):
    """When the current turn began (seconds), or None when nobody recorded it.

    `safedel run` and the shell hooks export it as `seconds:turn`; it holds only for
    that turn (a turn file or a shell's next command line may have moved on). bash's
    prompt arithmetic writes one number instead (_bash_start). fish, which has no
    clock, writes `@FILE`: a stamp file its hook rewrites with the turn, whose mtime is
    the start. In dash and busybox sh the prompt rewrites the turn file as it starts a
    turn: its mtime is the start too. Otherwise the turn's first ledger line is the
    earliest moment known.
    """
    environ = os.environ if environ is None else environ
    raw = settings.turn_start if environ is os.environ else environ.get(START_VARIABLE)
    seconds, colon, turn = (raw or "").partition(":")
    start = None
    if raw and raw.startswith("@"):
        start = _turn_file_start(raw[1:], settings.turn)
    elif colon and turn == settings.turn:
        try:
            start = float(seconds)
        except ValueError:
            pass
    elif not colon:
        start = _bash_start(seconds, settings.turn)
    if start is None:
        start = _turn_file_start(environ.get("SAFEDEL_TURN_FILE"), settings.turn)
    if start is None or not start > 0:  # nan, 0 or a negative clock is no start
        return _first_ledger_time(settings)
    return start


def _bash_start(raw, turn):
    """The start bash's PS0 arithmetic wrote: microseconds times 1000 plus the turn's
    last three digits (its turns are numbers), or None when it is not for this turn."""
    if not (raw.isascii() and raw.isdigit() and turn.isascii() and turn.isdigit()):
        return None
    value = int(raw)
    if value % 1000 != int(turn) % 1000:
        return None
    return value // 1000 / 1e6


def _turn_file_start(path, turn):
    """The mtime of a turn file (sh) or stamp file (fish, which appends), when its last
    line still names this turn."""
    if not path:
        return None
    try:
        with open(path, "rb") as handle:
            info = os.fstat(handle.fileno())
            handle.seek(max(0, info.st_size - 4096))
            lines = [line.strip() for line in handle.read(4096).split(b"\n") if line.strip()]
    except OSError:
        return None
    return info.st_mtime if lines and lines[-1] == os.fsencode(turn) else None


def start_value(turn):
    """SAFEDEL_TURN_START for a turn beginning now: `seconds:turn`, so that a value
    inherited into a later turn is recognised as someone else's."""
    # The precise clock: file stamps lag it by up to a tick, so a file made just after
    # the start may look older and be counted, but one made before never looks newer.
    return f"{time.time():.6f}:{turn}"


def _first_ledger_time(settings):
    parts = ledger.ledger_parts(settings.session, settings.turn, settings.digests)
    name = parts.pop()
    try:
        with open_dir(settings.state_dir, parts, create_dirs=False) as directory:
            fd = directory.open(name, os.O_RDONLY)
        with os.fdopen(fd, "rb") as handle:
            first = handle.readline(4096)
        return jsonl.loads(first)["ts"] / 1000.0
    except (OSError, ValueError, KeyError, TypeError):
        return None


def created_this_turn(path, start):
    try:
        return start is not None and birth_or_change_time(path) >= start
    except OSError:
        return False


def _under_ignored_dir(path):
    directory = os.path.dirname(path)
    while directory not in _ignored_dirs:
        parent = os.path.dirname(directory)
        if parent == directory:
            return False
        directory = parent
    return True


def ignored(paths, environ=None, since=None, git=None):
    """The subset of paths (absolute, real parents) that git ignores by rules written
    before since (seconds; see ignorerules), as the git Settings.git names tells it
    (git: None for the first on PATH; see inert.trusted). No git, no work tree or any
    git failure means: not ignored."""
    found, by_tree, trees, known = set(), {}, {}, {}
    for path in paths:
        parent = os.path.dirname(path)
        if parent not in known:
            known[parent] = _under_ignored_dir(path)
        if known[parent]:
            found.add(path)
            continue
        tree = trees.get(parent, 0)
        if tree == 0:  # a batch is often one directory: look for its .git once
            tree = trees[parent] = work_tree(parent)
        if tree is not None and path != tree:
            by_tree.setdefault(tree, []).append(path)
    git = inert.trusted(git, os.environ if environ is None else environ)
    for tree, members in by_tree.items():
        parents = {os.path.dirname(p) for p in members} - {tree}
        asked = _git_output(git, tree, [*_QUESTION], sorted(parents) + members) or b""
        verdicts = ignorerules.parse_verbose(tree, asked)
        answer = ignorerules.believed(tree, verdicts, since, birth_or_change_time)
        # An ignored directory may still hold files someone force-added: those count.
        dirs = (parents & answer) | {p for p in answer.intersection(members) if os.path.isdir(p)}
        tracked = _git_paths(git, tree, ["ls-files", "-z", "--"], sorted(dirs), as_args=True)
        holding = {d for d in dirs if any(t == d or t.startswith(d + os.sep) for t in tracked)}
        if len(_ignored_dirs) > 4096:
            _ignored_dirs.clear()
        _ignored_dirs.update((parents & answer) - holding)
        found.update(p for p in members if p in answer and p not in holding)
    return found


def _git_paths(git, tree, args, paths, as_args=False):
    output = _git_output(git, tree, args, paths, as_args) or b""  # b"": none on failure
    return {os.path.join(tree, os.fsdecode(p)) for p in output.split(b"\0") if p}


def _git_output(git, tree, args, paths, as_args=False):
    """What git run in tree on paths (NUL-separated on stdin, or as arguments) prints,
    or None on any failure, or with no git at all."""
    if git is None or not paths:
        return None
    argv = inert.argv(git, "-C", tree, *args)
    if as_args:
        argv += paths
    payload = b"" if as_args else b"".join(os.fsencode(p) + b"\0" for p in paths)
    try:
        code, output = _run(argv, payload)
    except OSError:
        return None
    return output if code in (0, 1) else None


def _input_file(payload):
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("safedel-git", getattr(os, "MFD_CLOEXEC", 1))
    else:
        import tempfile

        with tempfile.TemporaryFile() as handle:
            fd = os.dup(handle.fileno())
    os.write(fd, payload)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _run(argv, payload):
    """(exit code, stdout) of argv fed payload. Spawned without the subprocess module,
    which the program being protected may have patched; stdin is a file, so a large
    batch can never deadlock against git's output."""
    if not hasattr(os, "posix_spawn"):
        import subprocess

        env = inert.environ(os.environ)
        done = subprocess.run(argv, input=payload, capture_output=True, check=False, env=env)
        return done.returncode, done.stdout
    source = _input_file(payload)
    reader, writer = os.pipe()
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            actions = [(os.POSIX_SPAWN_DUP2, source, 0), (os.POSIX_SPAWN_DUP2, writer, 1)]
            actions.append((os.POSIX_SPAWN_DUP2, null, 2))
            # No GIT_DIR, GIT_CONFIG_* of the command's: they would choose the rules.
            pid = os.posix_spawn(argv[0], argv, inert.environ(os.environ), file_actions=actions)
        finally:
            os.close(null)
        os.close(writer)
        writer = None
        chunks = []
        while True:
            chunk = os.read(reader, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        _, status = os.waitpid(pid, 0)
    finally:
        for fd in (source, reader, writer):
            if fd is not None:
                os.close(fd)
    return os.waitstatus_to_exitcode(status), b"".join(chunks)


def classify(settings, targets, environ=None):
    """{target: why} for the regenerable ones among targets (absolute paths)."""
    start = turn_start(settings, environ)
    reasons = {t: CREATED for t in targets if created_this_turn(t, start)}
    # git and the ignore cache see real paths: a symlinked parent names the same tree.
    real = {}
    for target in targets:
        if target not in reasons:
            parent = os.path.realpath(os.path.dirname(target))
            real[os.path.join(parent, os.path.basename(target))] = target
    if real:
        found = ignored(list(real), environ, start, getattr(settings, "git", None))
        reasons.update((real[t], IGNORED) for t in found)
        rest = [t for t in real if t not in found]
        if rest:  # no git needed: what the build itself made (a tarball's make clean)
            from . import buildoutput

            reasons.update((real[t], BUILT) for t in buildoutput.outputs(rest, start))
    return reasons


def remember_uncounted(reasons):
    if len(uncounted) > 4096:
        uncounted.clear()
    uncounted.update(reasons)
