"""The bulk-guard engine in-process: the verdict rule, batches, turns, state files."""

import json
import os
import stat
import subprocess
import sys
import time

import pytest

from safedel.core import deletion, private
from safedel.core.contract import settings
from safedel.core.guard import ledger, rule
from safedel.core.guard import turn as guardturn
from safedel.core.guard.signals import take_signal, write_signal
from safedel.core.report import markers

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guard_worker.py")


@pytest.fixture
def env(tmp_path):
    """A settings environment whose work tree is *not* exempt (exempt is elsewhere)."""
    (tmp_path / "work").mkdir()
    (tmp_path / "exempt").mkdir()
    return {
        "HOME": str(tmp_path / "home"),
        "SAFEDEL_STATE_DIR": str(tmp_path / "state"),
        "SAFEDEL_REPORT": str(tmp_path / "report.jsonl"),
        "SAFEDEL_TRASH_DIR": str(tmp_path / "trash"),
        "SAFEDEL_EXEMPT": str(tmp_path / "exempt"),
        "SAFEDEL_OUTSIDE_WORKSPACE": "allow",  # these tests are about the bulk guard
        "SAFEDEL_THRESHOLD": "50",
        "SAFEDEL_SESSION": "s1",
        "SAFEDEL_TURN": "t1",
        "SAFEDEL_PROMPT": "0",
        "SAFEDEL_CONFIG": str(tmp_path / "no-config.toml"),
        # The work tree is the workspace, and its files predate every turn here.
        "SAFEDEL_WORKSPACE_ROOTS": os.path.realpath(tmp_path / "work"),
        "SAFEDEL_TURN_START": f"{time.time() + 86400}:t1",
    }


def clean_environ():
    return {k: v for k, v in os.environ.items() if not k.startswith("SAFEDEL_")}


def files(directory, count, prefix="f"):
    paths = []
    for index in range(count):
        path = directory / f"{prefix}{index}"
        path.write_text("x")
        paths.append(str(path))
    return paths


def say(program, reason):
    os.write(2, f"{program}: {reason}\n".encode())


def spend(current, count):
    """Count `count` single deletions in the turn without touching any file."""
    for _ in range(count):
        assert ledger.take(current, 1).verdict == rule.ALLOW


def test_the_rule_grants_while_the_running_sum_stays_within_each_takes_threshold():
    lines = [
        b'{"op":"take","id":"a","n":30,"t":50}\n',
        b'{"op":"take","id":"b","n":21,"t":50}\n',  # 51 > 50: confirm
        b'{"op":"take","id":"c","n":20,"t":50}\n',  # 50: granted
        b'{"op":"take","id":"d","n":1,"t":60}\n',  # its own threshold is 60: granted
        b'{"op":"approve","by":"cli"}\n',
        b'{"op":"take","id":"e","n":500,"t":50}\n',
        b'{"op":"reject","by":"cli"}\n',
        b'{"op":"take","id":"f","n":1,"t":50}\n',
        b'{"op":"future-op"}\n',  # an op a newer writer may add is ignored
    ]
    got = [verdict for _record, verdict in rule.verdicts(lines)]
    assert got == [
        rule.ALLOW,
        rule.CONFIRM,
        rule.ALLOW,
        rule.ALLOW,
        None,
        rule.ALLOW,
        None,
        rule.REJECTED,
        None,
    ]


def made_before_the_turn(directory, count, prefix="f"):
    """Files older than the turn's first ledger line: counted (what a turn makes is not)."""
    paths = files(directory, count, prefix)
    time.sleep(0.01)  # the ledger's clock is in milliseconds
    return paths


def test_a_batch_over_the_limit_is_refused_whole_and_a_directory_counts_one(env, tmp_path, capfd):
    current = settings.load(env)
    batch = made_before_the_turn(tmp_path / "work", 3)
    spend(current, 47)
    big = tmp_path / "work" / "big_dir"
    big.mkdir()
    files(big, 200)
    deletion.authorize(current, "rm", [str(big)])  # rm -rf big_dir: 1, count 48
    deletion.trash_one(current, "rm", str(big))
    assert guardturn.status(current.state_dir, "s1", "t1").granted == 48
    with pytest.raises(deletion.Refused) as caught:
        deletion.authorize(current, "rm", batch)
    assert caught.value.errno == 1
    assert all(os.path.exists(path) for path in batch)
    assert guardturn.status(current.state_dir, "s1", "t1").granted == 48
    payload = markers.parse_markers(capfd.readouterr().err)[markers.CONFIRM_REQUIRED]
    assert payload["count"] == 48 and payload["threshold"] == 50
    assert payload["targetCount"] == 3 and payload["targets"] == batch
    refusals = [e for e in _report(env) if e["operation"] == "refuse"]
    assert [e["path"] for e in refusals] == batch
    assert take_signal(current.state_dir, "s1", "t1")["payload"] == payload
    # Two still fit.
    deletion.authorize(current, "rm", batch[:2])
    assert guardturn.status(current.state_dir, "s1", "t1").granted == 50


def test_a_new_turn_starts_at_zero_and_a_rejected_turn_stays_rejected(env, tmp_path, capfd):
    current = settings.load(env)
    old = made_before_the_turn(tmp_path / "work", 3, "r")
    spend(current, 50)
    assert ledger.take(current, 1).verdict == rule.CONFIRM
    guardturn.mark(current, "reject", "test")
    for path in old:
        with pytest.raises(deletion.Refused):
            deletion.authorize(current, "python", [path])
    assert markers.REJECTED in markers.parse_markers(capfd.readouterr().err)
    assert guardturn.status(current.state_dir, "s1", "t1").mode == "rejected"
    next_turn = settings.load(dict(env, SAFEDEL_TURN="t2"))
    decision = ledger.take(next_turn, 50)
    assert (decision.verdict, decision.count) == (rule.ALLOW, 50)


def test_approve_allows_the_rest_of_the_turn(env, tmp_path):
    current = settings.load(env)
    spend(current, 50)
    guardturn.mark(current, "approve", "test")
    batch = files(tmp_path / "work", 100)
    deletion.authorize(current, "python", batch)
    assert guardturn.status(current.state_dir, "s1", "t1").granted == 150


def test_exempt_paths_never_count_2000_files_under_tmpdir(env, tmp_path):
    """A build-like workload: a script deletes 2,000 files under $TMPDIR one by one."""
    build = tmp_path / "exempt" / "build"
    build.mkdir()
    paths = files(build, 2000)
    worker_env = {**clean_environ(), **env, "SAFEDEL_THRESHOLD": "5", "TMPDIR": str(build.parent)}
    del worker_env["SAFEDEL_EXEMPT"]  # the default: the temp dir
    result = subprocess.run(
        [sys.executable, WORKER, "--each", *paths],
        env=worker_env,
        capture_output=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"trashed": 0, "refused": 0, "exempt": 2000}
    assert os.listdir(build) == []  # deleted for real
    assert not os.path.exists(env["SAFEDEL_TRASH_DIR"])
    assert _report(env) == [] and b"[safe-delete]" not in result.stderr
    assert guardturn.status(env["SAFEDEL_STATE_DIR"], "s1", "t1").takes == 0


@pytest.mark.parametrize(
    "damage",
    [b'{"op":"take","id":"x","n":1,"t', b'{"op":"take","id":"x","n":1,"t":5}'],
    ids=["truncated", "whole-but-newline"],
)
def test_a_torn_line_is_skipped_and_never_wedges_the_turn(env, tmp_path, damage):
    env = {**env, "SAFEDEL_THRESHOLD": "5"}
    current = settings.load(env)
    spend(current, 3)
    parts = ledger.ledger_parts("s1", "t1")
    with open(os.path.join(current.state_dir, *parts), "ab") as handle:
        handle.write(damage)
    spend(current, 2)  # exactly the rest of the threshold: the damage never counted
    assert ledger.take(current, 1).verdict == rule.CONFIRM
    state = guardturn.status(current.state_dir, "s1", "t1")
    assert (state.granted, state.takes, state.refused) == (5, 6, 1)
    assert state.damaged is None
    with open(os.path.join(current.state_dir, *parts), "rb") as handle:
        lines = handle.read().splitlines()
    # Without a newline, the fragment swallowed the next take, which was taken again.
    glued = [line for line in lines if line.startswith(damage)]
    assert len(glued) == 1 and glued[0] != damage


@pytest.mark.parametrize(
    "damage",
    [b"\x00garbage\xff\n", b"\n", b'{"op":"take","id":"x","n":-40,"t":5}\n', b"garbage"],
    ids=["garbage", "blank-line", "no-writer-makes-it", "garbage-without-newline"],
)
def test_a_line_safedel_never_writes_fails_the_turn_closed_until_reset(env, damage):
    env = {**env, "SAFEDEL_THRESHOLD": "5"}
    current = settings.load(env)
    spend(current, 3)
    path = os.path.join(current.state_dir, *ledger.ledger_parts("s1", "t1"))
    with open(path, "ab") as handle:
        handle.write(damage)
    for _ in range(2):
        with pytest.raises(ledger.GuardError, match="damaged"):
            ledger.take(current, 1)
    assert guardturn.status(current.state_dir, "s1", "t1").damaged is not None
    assert guardturn.reset(current.state_dir, "s1", "t1") == 1
    spend(current, 5)


def test_a_ledger_overwritten_with_garbage_or_emptied_does_not_reset_the_count(env):
    """Overwritten with garbage: damaged. Truncated to nothing: a file-only reader cannot
    tell (no run's keeper watches it), so that is named in docs/design.md; the run's
    keeper catches it (tests/cli/test_guard_keeper.py)."""
    env = {**env, "SAFEDEL_THRESHOLD": "5"}
    current = settings.load(env)
    spend(current, 5)
    path = os.path.join(current.state_dir, *ledger.ledger_parts("s1", "t1"))
    with open(path, "wb") as handle:
        handle.write(b"garbage\n")
    with pytest.raises(ledger.GuardError, match="damaged"):
        ledger.take(current, 1)


@pytest.mark.parametrize("link", ["root", "bulk-guard", "session"])
def test_a_state_directory_that_is_a_symlink_is_refused_not_followed(env, tmp_path, capfd, link):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    state = tmp_path / "state"
    current = settings.load(env)
    if link == "root":
        state.symlink_to(elsewhere)
    else:
        spend(current, 1)
        session_dir = state / "bulk-guard" / private.digest("s1")
        victim = state / "bulk-guard" if link == "bulk-guard" else session_dir
        os.rename(victim, elsewhere / "moved")
        victim.symlink_to(elsewhere / "moved")
    before = sorted(p.name for p in elsewhere.rglob("*"))
    target = files(tmp_path / "work", 1)
    with pytest.raises(deletion.Refused):
        deletion.authorize(current, "python", target)
    assert os.path.exists(target[0])
    assert (
        "symlink" in markers.parse_markers(capfd.readouterr().err)[markers.GUARD_ERROR]["message"]
    )
    assert sorted(p.name for p in elsewhere.rglob("*")) == before
    with pytest.raises(ledger.GuardError):
        guardturn.reset(current.state_dir, "s1")


def test_state_is_private(env):
    current = settings.load(env)
    spend(current, 1)
    guardturn.mark(current, "approve", "test")
    write_signal(current, "rejected", {"count": 1})
    state = current.state_dir
    for directory, _dirs, names in os.walk(state):
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700, directory
        for name in names:
            assert stat.S_IMODE(os.stat(os.path.join(directory, name)).st_mode) == 0o600


def test_entries_older_than_a_day_are_pruned_when_the_guard_next_runs(env, tmp_path):
    old = settings.load(dict(env, SAFEDEL_SESSION="old-session"))
    spend(old, 2)
    write_signal(old, "confirmRequired", {"count": 2})
    fresh = settings.load(dict(env, SAFEDEL_TURN="kept"))
    spend(fresh, 1)
    state = tmp_path / "state"
    day_ago = time.time() - ledger.PRUNE_AGE - 60
    stale = [state / "bulk-guard" / private.digest("old-session"), state / "signals"]
    for top in stale:
        for path in top.rglob("*"):
            os.utime(path, (day_ago, day_ago))
    kept = state / os.path.join(*ledger.ledger_parts("s1", "kept"))
    assert kept.exists()
    spend(settings.load(dict(env, SAFEDEL_TURN="a-new-turn")), 1)  # the guard runs
    assert not list((state / "bulk-guard" / private.digest("old-session")).iterdir())
    assert not any(p.is_file() for p in (state / "signals").rglob("*"))
    assert kept.exists() and guardturn.status(str(state), "s1", "kept").granted == 1
    # Emptied session directories go once they too are a day old.
    for path in [state / "bulk-guard" / private.digest("old-session"), *state.glob("signals/*")]:
        os.utime(path, (day_ago, day_ago))
    guardturn.prune(str(state))
    assert not (state / "bulk-guard" / private.digest("old-session")).exists()
    assert list((state / "signals").iterdir()) == []


def test_prune_does_not_walk_a_symlinked_signals_directory(env, tmp_path):
    elsewhere = tmp_path / "elsewhere" / "x"
    elsewhere.mkdir(parents=True)
    precious = elsewhere / "old-file"
    precious.write_text("keep me")
    day_ago = time.time() - 2 * ledger.PRUNE_AGE
    os.utime(precious, (day_ago, day_ago))
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "signals").symlink_to(tmp_path / "elsewhere")
    spend(settings.load(env), 1)
    assert precious.read_text() == "keep me"


def test_a_cursor_survives_a_reset_by_another_process(env):
    """This process caches how far it has read; a reset elsewhere (which may hand the
    new ledger the old inode) must not leave it counting from the old file."""
    current = settings.load(env)
    script = "import sys; from safedel.core.guard import turn; turn.reset(sys.argv[1], 's1', 't1')"
    for _ in range(3):
        spend(current, 45)
        subprocess.run([sys.executable, "-c", script, current.state_dir], check=True, timeout=60)
        decision = ledger.take(current, 10)  # a stale cursor would say 55 > 50
        assert (decision.verdict, decision.count) == (rule.ALLOW, 10)
        guardturn.reset(current.state_dir, "s1", "t1")


def test_an_invalid_threshold_warns_once_and_falls_back_to_50(env, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text("threshold = 7\n")
    code = (
        "import sys; from safedel.core.contract import settings\n"
        "for _ in range(3): print(settings.load().threshold)\n"
    )
    cases = {"0": 50, "100000": 50, "abc": 50, "1_0": 50, "99999": 99999, "1": 1, None: 7}
    for raw, expected in cases.items():
        run_env = {**clean_environ(), **env, "SAFEDEL_CONFIG": str(config)}
        run_env.pop("SAFEDEL_THRESHOLD")
        if raw is not None:
            run_env["SAFEDEL_THRESHOLD"] = raw
        done = subprocess.run(
            [sys.executable, "-c", code], env=run_env, capture_output=True, text=True, timeout=60
        )
        assert done.stdout.split() == [str(expected)] * 3
        assert done.stderr.count("warning") == (expected == 50), (raw, done.stderr)


def _report(env):
    try:
        with open(env["SAFEDEL_REPORT"], "rb") as handle:
            return [json.loads(line) for line in handle]
    except FileNotFoundError:
        return []
