"""The prompt on a real terminal: a pty drives a process whose refusal becomes a question.

The child is a fresh session leader with the pty as its controlling terminal, so
/dev/tty opens there and it is in the foreground; CI is removed from its environment.
"""

import json
import os
import signal
import sys

import pytest
from personkit import on_a_pty, person_env

from safedel.core.guard import ledger
from safedel.core.guard import turn as guardturn
from safedel.core.guard.prompt import QUESTION

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guard_worker.py")


def run_on_pty(argv, env, answer):
    """argv on a terminal of its own, answer typed at the guard's question."""
    return on_a_pty(argv, env, answer, QUESTION.strip().encode())


@pytest.fixture
def setup(sandbox):
    """48 of 50 already counted in the turn, three files (older than the turn) to
    delete, no CI."""
    paths = []
    for name in ("a", "b", "c"):
        (sandbox.work / name).write_text(name)
        paths.append(str(sandbox.work / name))
    env = person_env(sandbox.shim_env(threshold=50), "SAFEDEL_PROMPT", "PYTHONPATH")
    from safedel.core.contract import settings

    current = settings.load(env)
    for _ in range(48):
        ledger.take(current, 1)
    return sandbox, env, paths


def status(sandbox):
    return guardturn.status(str(sandbox.state), sandbox.session, sandbox.turn)


def test_yes_approves_the_turn_and_the_batch_goes_ahead(setup):
    sandbox, env, paths = setup
    code, screen = run_on_pty([sys.executable, "-S", WORKER, *paths], env, b"y\r")
    assert code == 0, screen
    assert "this would trash 3 more item(s)" in screen
    assert "this turn has trashed 48 of 50 allowed" in screen
    assert all(repr(path) in screen for path in paths)
    assert json.loads(screen.strip().splitlines()[-1])["trashed"] == 3
    assert not any(os.path.exists(path) for path in paths)
    assert (status(sandbox).mode, status(sandbox).granted) == ("approved", 51)
    assert "[safe-delete]" not in screen


def pending_signal(sandbox):
    from safedel.core.guard.signals import take_pending

    return take_pending(str(sandbox.state), sandbox.session, turn=sandbox.turn)


@pytest.mark.parametrize(
    "answer", [b"n\r", b"\r", b"\x04", b"\x03"], ids=["no", "enter", "eof", "ctrl-c"]
)
def test_no_eof_or_ctrl_c_rejects_and_nothing_is_touched(setup, answer):
    sandbox, env, paths = setup
    code, screen = run_on_pty([sys.executable, "-S", WORKER, *paths], env, answer)
    # Ctrl-C is a no, recorded in the ledger, and then the interrupt it is: the
    # program gets its KeyboardInterrupt and dies of SIGINT.
    assert code == (-signal.SIGINT if answer == b"\x03" else 1), screen
    assert all(os.path.exists(path) for path in paths)
    assert status(sandbox).mode == "rejected"
    assert status(sandbox).granted == 48
    # A person who answered sees no JSON: the marker is for harnesses, which find the
    # refusal in the signal file and the report.
    assert "[safe-delete]" not in screen
    assert pending_signal(sandbox)["type"] == "rejected"
    assert {e["operation"] for e in sandbox.report()} == {"refuse"}
    assert sandbox.trashed_names() == []


def test_ci_or_safedel_prompt_0_means_no_question(setup):
    sandbox, env, paths = setup
    for extra in ({"CI": "true"}, {"SAFEDEL_PROMPT": "0"}):
        code, screen = run_on_pty([sys.executable, "-S", WORKER, *paths], {**env, **extra}, b"y\r")
        assert code == 1
        assert QUESTION.strip() not in screen
        assert "SAFE_DELETE_BULK_CONFIRM_REQUIRED" in screen
        assert all(os.path.exists(path) for path in paths)
    assert status(sandbox).mode == "open"


@pytest.mark.parametrize("answer", [b"y\r", b"n\r"], ids=["yes", "no"])
def test_the_rm_launcher_asks_too(setup, answer):
    sandbox, env, paths = setup
    rm = os.path.join(sandbox.shim_home, "bin", "rm")
    if not os.path.exists(rm):
        pytest.skip("the rm launcher ($SAFEDEL_HOME/bin/rm) has not landed yet")
    code, screen = run_on_pty([rm, *paths], env, answer)
    assert QUESTION.strip() in screen and "48 of 50" in screen
    if answer.startswith(b"y"):
        assert code == 0, screen
        assert not any(os.path.exists(path) for path in paths)
        assert status(sandbox).mode == "approved"
    else:
        assert code == 1, screen
        assert all(os.path.exists(path) for path in paths)
        assert status(sandbox).mode == "rejected"
        # One readable line after the answer, no marker.
        after = screen.split(QUESTION.strip(), 1)[1].strip().splitlines()
        assert len(after) == 2 and after[0].strip() == "n", after
        assert "rejected; nothing was deleted" in after[1] and "[safe-delete]" not in screen


@pytest.mark.parametrize("key", [b"\x03", b"\x1c"], ids=["ctrl-c", "ctrl-backslash"])
def test_ctrl_c_at_the_rm_launchers_question_is_a_recorded_no(setup, key):
    """The launcher dies of SIGINT as the C tool would, but only once the no is in the
    ledger: the same line run again in the turn is refused without a question."""
    sandbox, env, paths = setup
    rm = os.path.join(sandbox.shim_home, "bin", "rm")
    code, screen = run_on_pty([rm, *paths], env, key)
    assert code == -(signal.SIGINT if key == b"\x03" else signal.SIGQUIT), screen
    assert all(os.path.exists(path) for path in paths)
    assert status(sandbox).mode == "rejected"
    code, screen = run_on_pty([rm, *paths], env, b"y\r")
    assert code == 1 and QUESTION.strip() not in screen
    assert all(os.path.exists(path) for path in paths) and sandbox.trashed_names() == []
