"""The run's summary tells a person how to approve what the guard refused (issue 31,
case 9), in words that work as written; under an agent host it names no command."""

import sys

from conftest import as_a_person


def _files(sandbox, count):
    names = []
    for index in range(count):
        path = sandbox.work / f"f{index}"
        path.write_text("x")
        names.append(str(path))
    return names


def _summary(done):
    return [line for line in done.stderr.decode().splitlines() if line.startswith("safedel: ")]


def test_a_bulk_refusal_summary_names_the_approval_that_works(sandbox):
    names = _files(sandbox, 3)
    done = sandbox.run("rm", *names, run_options=("--threshold", "2"))
    assert done.returncode == 1
    summary = _summary(done)
    where = f"--session {sandbox.session} --turn {sandbox.turn}"
    assert summary[-1] == (
        f"safedel: to allow it, run `safedel guard approve {where}`, then run the command "
        f"again with `safedel run {where}`"
    )
    approve = [sys.executable, "-m", "safedel", "guard", "approve", *where.split()]
    answered = as_a_person(approve, env=sandbox.base_env(), capture_output=True)
    assert answered.returncode == 0, answered.stderr
    again = sandbox.run("rm", *names, run_options=("--threshold", "2"))
    assert again.returncode == 0, again.stderr.decode()
    assert len(sandbox.trashed_names()) == 3


def test_an_outside_refusal_summary_names_the_outside_approval(sandbox):
    elsewhere = sandbox.home / "notes.txt"
    elsewhere.write_text("x")
    done = sandbox.run("rm", str(elsewhere))
    assert done.returncode == 1
    assert "safedel guard approve --outside-workspace --session" in _summary(done)[-1]
    assert elsewhere.exists()


def test_under_an_agent_host_the_summary_names_no_command(sandbox):
    names = _files(sandbox, 3)
    env = sandbox.base_env(CLAUDECODE="1")
    done = sandbox.run("rm", *names, run_options=("--threshold", "2"), env=env)
    assert done.returncode == 1
    assert _summary(done) == ["safedel: refused 3"]


def test_a_refusal_nobody_can_approve_adds_nothing(sandbox):
    done = sandbox.run("rm", "-rf", "/")
    assert done.returncode == 1
    assert not any("approve" in line for line in _summary(done))
