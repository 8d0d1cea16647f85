"""Under `safedel run` the guard's question is the run's: asked by the run's keeper on the
run's own terminal (executor/keeper.py), answered by the person there, and recorded by
the keeper. A command that makes a terminal of its own and answers `y` on it is never
asked; Ctrl-C at the run's question is a recorded no.
"""

import subprocess
import sys

import pytest
from personkit import many, on_a_pty, person_env

from safedel.core.guard import turn as guardturn
from safedel.core.guard.prompt import QUESTION


def on_a_terminal(argv, sandbox, answer):
    """argv in the work tree on a terminal of its own, as a person runs it."""
    env = person_env(sandbox.base_env(), "SAFEDEL_PROMPT")
    return on_a_pty(argv, env, answer, QUESTION.strip().encode(), cwd=sandbox.work, timeout=120)


def status(sandbox):
    return guardturn.status(str(sandbox.state), sandbox.session, sandbox.turn)


@pytest.mark.parametrize(
    ("answer", "mode"),
    [(b"y\r", "approved"), (b"n\r", "rejected"), (b"\x03", "rejected")],
    ids=["yes", "no", "ctrl-c"],
)
def test_the_run_asks_on_its_terminal_and_records_the_answer(sandbox, answer, mode):
    folder = many(sandbox)
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, "--", "sh", "-c", "rm many/*"]
    code, screen = on_a_terminal(argv, sandbox, answer)
    assert QUESTION.strip() in screen and "this would trash 60 more item(s)" in screen
    assert status(sandbox).mode == mode, screen
    assert (list(folder.iterdir()) == []) == (mode == "approved")
    if answer == b"n\r":  # one readable line for the person, not the marker's JSON
        assert code == 1 and "[safe-delete]" not in screen
        assert "rejected; nothing was deleted" in screen
    # The same turn run again is not asked again: its answer stands.
    if mode == "approved":
        folder.rmdir()
        many(sandbox)
    again, screen = on_a_terminal(argv, sandbox, b"y\r")
    assert QUESTION.strip() not in screen
    assert (again == 0) == (mode == "approved"), screen
    assert (list(folder.iterdir()) == []) == (mode == "approved")


@pytest.mark.parametrize("capture", [True, False], ids=["capture", "plain-no-terminal"])
def test_a_command_cannot_answer_its_own_question_on_a_terminal_of_its_own(sandbox, capture):
    """`script` gives the deleting rm a pty of the command's making, with the prompt
    switched on in the command's environment and `y` typed into it: nobody asks it."""
    folder = many(sandbox)
    script = "SAFEDEL_PROMPT=1 script -qec 'rm many/*' /dev/null <<< y"
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, *(["--json"] if capture else []), "--"]
    argv += ["bash", "-c", script]
    done = subprocess.run(
        argv,
        env=person_env(sandbox.base_env(), "SAFEDEL_PROMPT"),
        cwd=sandbox.work,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=300,
        start_new_session=True,  # no controlling terminal of the test's
    )
    assert len(list(folder.iterdir())) == 60, done.stderr
    assert QUESTION.strip().encode() not in done.stdout
    assert status(sandbox).mode == "open"
