"""`safedel config status|trust`: a person confirms a config file at a terminal, and
nothing else can: not a command inside a run (even on a terminal of its own), not an
agent harness, not a script without a terminal. `safedel workspace add` typed at a
terminal confirms its own change."""

import json
import subprocess
import sys

import pytest
from conftest import require
from personkit import on_a_pty
from personkit import person_env as terminal_env

from safedel.core.contract import confirmed, settings

SAFEDEL = [sys.executable, "-m", "safedel"]
HOSTILE = 'threshold = 99999\n# \x1b[2K\x1b[1Ahidden \u202e\nworkspace = ["/"]\n'


def config(sandbox):
    path = sandbox.home / ".config" / "safedel" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def person_env(sandbox, **extra):
    """A person's terminal: no CI, no agent harness (whatever runs the tests)."""
    return terminal_env(sandbox.base_env(), **extra)


def status_of(sandbox, path):
    done = subprocess.run(
        [*SAFEDEL, "config", "status", "--json", str(path)],
        env=sandbox.base_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    [entry] = json.loads(done.stdout)["files"]
    return entry


def threshold(sandbox):
    env = sandbox.base_env()
    env.pop("SAFEDEL_THRESHOLD", None)
    return settings.load(env).threshold


def test_trust_shows_the_file_as_it_is_and_asks(sandbox):
    path = config(sandbox)
    path.write_text(HOSTILE)
    entry = status_of(sandbox, path)
    assert entry["state"] == "new" and "threshold = 99999" in entry["held"]
    assert "workspace root '/'" in entry["held"]
    argv = [*SAFEDEL, "config", "trust", str(path)]
    code, screen = on_a_pty(argv, person_env(sandbox), b"n\r", cwd=sandbox.work)
    assert code == 0 and "not confirmed" in screen, screen
    # Every line is shown, escaped: nothing in the file can hide another line.
    assert "\\x1b[2K\\x1b[1Ahidden \\u202e" in screen and "\x1b[2K" not in screen
    assert "threshold = 99999" in screen and 'workspace = ["/"]' in screen
    assert status_of(sandbox, path)["state"] == "new" and threshold(sandbox) == 50
    code, screen = on_a_pty(argv, person_env(sandbox), b"y\r", cwd=sandbox.work)
    assert code == 0 and "confirmed; it applies" in screen, screen
    assert status_of(sandbox, path) == {"path": str(path), "state": "confirmed", "held": []}
    assert threshold(sandbox) == 99999
    record = sandbox.state / confirmed.RECORD
    assert record.stat().st_mode & 0o777 == 0o600
    # Changed since: the change is shown against the version confirmed, and waits.
    with open(path, "a") as handle:
        handle.write('exempt = "/"\n')
    entry = status_of(sandbox, path)
    assert entry["state"] == "changed" and entry["held"] == ["exempt = /"]
    assert threshold(sandbox) == 99999  # what was confirmed still applies
    code, screen = on_a_pty(argv, person_env(sandbox), b"n\r", cwd=sandbox.work)
    assert '+exempt = "/"' in screen and "It widens: exempt = /" in screen, screen


@pytest.mark.parametrize("net", ["on", "off"])
def test_a_command_in_a_run_cannot_confirm_even_on_its_own_terminal(sandbox, net):
    path = config(sandbox)
    path.write_text("threshold = 99999\n")
    trust = f"{sys.executable} -m safedel config trust"
    # A terminal of its own (script(1)), a yes typed into it, its run id dropped.
    forged = (
        f"(sleep 1; echo y) | env -u SAFEDEL_RUN_ID {require('script')} -qc '{trust}' /dev/null"
    )
    for script in (trust, forged):
        argv = [*SAFEDEL, "run", "--net", net, "--", "sh", "-c", script]
        code, screen = on_a_pty(argv, person_env(sandbox), b"y\r", cwd=sandbox.work)
        assert "the user's decision" in screen and "confirmed; it applies" not in screen
    assert not (sandbox.state / confirmed.RECORD).exists()
    assert threshold(sandbox) == 50


def test_no_person_no_confirmation(sandbox):
    path = config(sandbox)
    path.write_text("threshold = 99999\n")
    argv = [*SAFEDEL, "config", "trust", str(path)]
    piped = subprocess.run(
        argv, env=person_env(sandbox), input="y\n", capture_output=True, text=True, timeout=60
    )
    assert piped.returncode == 1 and "stdin is not one" in piped.stderr
    for found in ({"CLAUDECODE": "1"}, {"CI": "true"}):
        code, screen = on_a_pty(argv, person_env(sandbox, **found), b"y\r", cwd=sandbox.work)
        assert code == 1 and "a person's decision at their own terminal" in screen, screen
        assert "config trust" not in screen.split("decision", 1)[1]
    assert not (sandbox.state / confirmed.RECORD).exists()


def test_workspace_add_at_a_terminal_confirms_its_own_change(sandbox):
    project = sandbox.work / "proj"
    (project / ".git").mkdir(parents=True)
    other = sandbox.root / "other"
    other.mkdir()
    local = project / ".safedel" / "config.local.toml"
    argv = [*SAFEDEL, "workspace", "add", str(other), "--scope", "local"]
    code, screen = on_a_pty(argv, person_env(sandbox), cwd=project)
    assert code == 0 and "added" in screen and "not yet applying" not in screen, screen
    assert status_of(sandbox, local)["state"] == "confirmed"
    # A root the file gained from elsewhere first keeps the next add from confirming it.
    local.write_text(f'workspace = ["{other}", "/"]\n')
    more = sandbox.root / "more"
    more.mkdir()
    argv = [*SAFEDEL, "workspace", "add", str(more), "--scope", "local"]
    code, screen = on_a_pty(argv, person_env(sandbox), cwd=project)
    assert code == 0 and "not yet applying" in screen, screen
    assert status_of(sandbox, local)["state"] == "changed"


def test_a_confirmed_file_taken_away_narrows_until_a_person_forgets_it(sandbox):
    path = config(sandbox)
    path.write_text("threshold = 5\n")
    argv = [*SAFEDEL, "config", "trust", str(path)]
    assert on_a_pty(argv, person_env(sandbox), b"y\r", cwd=sandbox.work)[0] == 0
    path.unlink()  # what a command can do, or `mv` it away
    assert threshold(sandbox) == 5
    assert status_of(sandbox, path)["held"] == ["the removal of the file"]
    code, screen = on_a_pty(argv, person_env(sandbox), b"y\r", cwd=sandbox.work)
    assert code == 0 and "is gone since it was confirmed" in screen and "forgotten" in screen
    assert threshold(sandbox) == 50
    assert status_of(sandbox, path) == {"path": str(path), "state": "absent", "held": []}
