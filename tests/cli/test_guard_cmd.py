"""`safedel guard ...` and the guard outcome of `safedel run --result`."""

import json
import os
import subprocess
import sys

import pytest
from conftest import as_a_person, last_markers
from resultschema import valid_result

from safedel.core.contract import settings
from safedel.core.guard import ledger as guard
from safedel.core.guard import turn as guardturn
from safedel.core.report import markers

WORKER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "unit")
WORKER = os.path.join(WORKER, "guard_worker.py")


def safedel(sandbox, *args, env=None, cwd=None):
    """A person's `safedel ...` at their terminal."""
    return as_a_person(
        [sys.executable, "-m", "safedel", *args],
        env=env or sandbox.base_env(),
        cwd=cwd or sandbox.work,
        capture_output=True,
        text=True,
        timeout=120,
    )


def spend(sandbox, count, turn=None):
    env = sandbox.base_env(SAFEDEL_SESSION=sandbox.session, SAFEDEL_TURN=turn or sandbox.turn)
    current = settings.load(env)
    for _ in range(count):
        guard.take(current, 1)


def make(sandbox, *names):
    for name in names:
        (sandbox.work / name).write_text(name)
    return [str(sandbox.work / name) for name in names]


def status_json(sandbox, *args, env=None):
    done = safedel(sandbox, "guard", "status", "--json", *args, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_status_approve_reject_reset_with_options(sandbox):
    spend(sandbox, 7)
    where = ["--session", sandbox.session, "--turn", sandbox.turn]
    where += ["--state-dir", str(sandbox.state)]
    env = {k: v for k, v in sandbox.base_env().items() if k != "SAFEDEL_STATE_DIR"}
    got = status_json(sandbox, *where, env=env)
    assert (got["count"], got["threshold"], got["state"]) == (7, 50, "open")
    assert (got["turn"], got["turnSource"]) == (sandbox.turn, "--turn")
    text = safedel(sandbox, "guard", "status", *where, env=env).stdout
    assert f"turn {sandbox.turn!r} (from --turn)" in text and "7 of 50" in text
    assert safedel(sandbox, "guard", "reject", *where, env=env).returncode == 0
    assert status_json(sandbox, *where, env=env)["state"] == "rejected"
    assert safedel(sandbox, "guard", "approve", *where, env=env).returncode == 0
    assert status_json(sandbox, *where, env=env)["state"] == "approved"
    assert safedel(sandbox, "guard", "reset", *where, env=env).returncode == 0
    got = status_json(sandbox, *where, env=env)
    assert (got["count"], got["state"]) == (0, "open")


def test_every_command_defaults_to_the_environment_and_says_which_turn(sandbox):
    spend(sandbox, 3, turn="from-env")
    spend(sandbox, 5, turn="from-file")
    env = sandbox.base_env(SAFEDEL_SESSION=sandbox.session, SAFEDEL_TURN="from-env")
    got = status_json(sandbox, env=env)
    assert (got["turn"], got["turnSource"], got["count"]) == ("from-env", "SAFEDEL_TURN", 3)
    turn_file = sandbox.root / "turn"
    turn_file.write_text("from-file\n")
    env["SAFEDEL_TURN_FILE"] = str(turn_file)
    got = status_json(sandbox, env=env)
    assert (got["turn"], got["count"]) == ("from-file", 5)
    assert got["turnSource"] == f"SAFEDEL_TURN_FILE {turn_file}"
    assert safedel(sandbox, "guard", "reject", env=env).returncode == 0
    assert guardturn.status(str(sandbox.state), sandbox.session, "from-file").mode == "rejected"
    assert guardturn.status(str(sandbox.state), sandbox.session, "from-env").mode == "open"


def test_reset_forgets_a_turn_or_the_whole_session(sandbox):
    for turn in ("t1", "t2", "t3"):
        spend(sandbox, 2, turn=turn)
    spend(sandbox, 2, turn="t1")  # the same turn in another session stays
    other = settings.load(sandbox.base_env(SAFEDEL_SESSION="other", SAFEDEL_TURN="t1"))
    guard.take(other, 1)
    base = ["--session", sandbox.session]
    assert safedel(sandbox, "guard", "reset", *base, "--turn", "t1").returncode == 0
    counts = [
        guardturn.status(str(sandbox.state), sandbox.session, t).granted for t in ["t1", "t2"]
    ]
    assert counts == [0, 2]
    done = safedel(sandbox, "guard", "reset", *base)
    assert done.returncode == 0 and "every turn" in done.stdout
    assert guardturn.status(str(sandbox.state), sandbox.session, "t3").granted == 0
    assert guardturn.status(str(sandbox.state), "other", "t1").granted == 1
    assert safedel(sandbox, "guard", "reset", "--session", "other", "--all").returncode == 0
    assert guardturn.status(str(sandbox.state), "other", "t1").granted == 0


def test_run_result_reports_confirm_required_then_approve_lets_the_same_run_succeed(sandbox):
    paths = make(sandbox, "a", "b", "c")
    spend(sandbox, 48)
    result = sandbox.root / "result.json"
    options = ("--result", str(result), "--quiet")
    done = sandbox.run(sys.executable, "-S", WORKER, *paths, run_options=options)
    assert done.returncode == 1
    outcome = valid_result(result)
    assert outcome["guard"]["type"] == "confirmRequired"
    payload = outcome["guard"]["payload"]
    assert (payload["count"], payload["threshold"], payload["targetCount"]) == (48, 50, 3)
    assert payload["targets"] == paths
    assert last_markers(done.stderr)[markers.CONFIRM_REQUIRED] == payload
    assert [e["path"] for e in outcome["refused"]] == paths
    assert all(os.path.exists(path) for path in paths)
    where = ["--session", sandbox.session, "--turn", sandbox.turn]
    assert safedel(sandbox, "guard", "approve", *where).returncode == 0
    done = sandbox.run(sys.executable, "-S", WORKER, *paths, run_options=options)
    assert done.returncode == 0, done.stderr
    outcome = valid_result(result)
    assert outcome["guard"] is None
    assert sorted(e["path"] for e in outcome["trashed"]) == paths
    assert not any(os.path.exists(path) for path in paths)


def test_run_result_reports_a_rejected_turn(sandbox):
    paths = make(sandbox, "a")
    spend(sandbox, 1)
    where = ["--session", sandbox.session, "--turn", sandbox.turn]
    assert safedel(sandbox, "guard", "reject", *where).returncode == 0
    result = sandbox.root / "result.json"
    done = sandbox.run(sys.executable, "-S", WORKER, *paths, run_options=("--result", str(result)))
    assert done.returncode == 1
    assert valid_result(result)["guard"]["type"] == "rejected"
    assert os.path.exists(paths[0])


def test_signal_is_printed_as_json_and_taken_exactly_once(sandbox):
    paths = make(sandbox, "a", "b")
    env = sandbox.shim_env(threshold=1, SAFEDEL_TOOL_CALL="call-7")
    subprocess.run([sys.executable, "-S", WORKER, *paths], env=env, timeout=120, check=False)
    argv = [sys.executable, "-m", "safedel", "guard", "signal", "--session", sandbox.session]
    argv += ["--tool-call", "call-7"]
    takers = [
        subprocess.Popen(argv, env=sandbox.base_env(), stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    outputs = [(taker.communicate(timeout=120)[0], taker.returncode) for taker in takers]
    printed = [json.loads(out) for out, code in outputs if code == 0]
    assert len(printed) == 1, outputs
    assert printed[0]["type"] == "confirmRequired" and printed[0]["toolCall"] == "call-7"
    assert printed[0]["payload"]["targets"] == paths
    assert sorted(code for _out, code in outputs) == [0, 1, 1, 1]
    again = safedel(
        sandbox, "guard", "signal", "--session", sandbox.session, "--tool-call", "call-7"
    )
    assert again.returncode == 1 and again.stdout == ""


def test_a_torn_ledger_line_is_skipped_and_the_turn_goes_on(sandbox):
    spend(sandbox, 2)
    ledger = sandbox.state / os.path.join(*guard.ledger_parts(sandbox.session, sandbox.turn))
    with open(ledger, "ab") as handle:
        handle.write(b'{"op":"ta')
    paths = make(sandbox, "a")
    done = sandbox.run(sys.executable, "-S", WORKER, *paths)
    assert done.returncode == 0 and not os.path.exists(paths[0])
    assert b"[safe-delete]" not in done.stderr
    where = ["--session", sandbox.session, "--turn", sandbox.turn]
    shown = safedel(sandbox, "guard", "status", "--json", *where)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["count"] == 3


def test_a_symlinked_state_directory_is_refused(sandbox):
    elsewhere = sandbox.root / "elsewhere"
    elsewhere.mkdir()
    link = sandbox.root / "link"
    link.symlink_to(elsewhere)
    for command in ("status", "approve", "reset"):
        done = safedel(sandbox, "guard", command, "--state-dir", str(link))
        assert done.returncode == 1 and "symlink" in done.stderr, (command, done.stderr)
    assert list(elsewhere.iterdir()) == []


def rm_launcher(sandbox):
    rm = os.path.join(sandbox.shim_home, "bin", "rm")
    if not os.path.exists(rm):
        pytest.skip("the rm launcher ($SAFEDEL_HOME/bin/rm) has not landed yet")
    return rm


def test_rm_a_b_c_at_48_of_50_fails_with_one_reason_line_before_the_marker(sandbox):
    rm_launcher(sandbox)
    paths = make(sandbox, "a", "b", "c")
    spend(sandbox, 48)
    done = sandbox.run("rm", "a", "b", "c", run_options=("--quiet",))
    assert done.returncode == 1
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("rm: ") and "50" in lines[0]
    assert lines[1].startswith("[safe-delete][SAFE_DELETE_BULK_CONFIRM_REQUIRED] ")
    assert all(os.path.exists(path) for path in paths)
    # rm -rf big_dir counts 1.
    big = sandbox.work / "big_dir"
    big.mkdir()
    make(sandbox, *[f"big_dir/f{i}" for i in range(100)])
    done = sandbox.run("rm", "-rf", "big_dir", run_options=("--quiet",))
    assert done.returncode == 0, done.stderr
    assert guardturn.status(str(sandbox.state), sandbox.session, sandbox.turn).granted == 49
