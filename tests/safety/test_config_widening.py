"""Config written by a command widens nothing (issue #30, case 2), under `safedel run`.

The command itself writes `.safedel/config.local.toml` with `workspace = ["/"]`, or the
user config's `threshold`, `net`, `outside_workspace`, `exempt`, `max_size` and
`prompt`, then tries to delete outside the workspace or more than the threshold, with
the net and without, and uid 65534 plants the file in a shared project. Every refused
file stays, byte for byte: nothing applies until a person confirms the file at a
terminal (tests/cli/test_config_cmd.py). Served runs: tests/serve/
test_serve_config_widening.py; the bootstrap: tests/shells/test_rc_config_widening.py.
"""

import os
import subprocess
import sys

import pytest
from configkit import (
    LOCAL,
    PRECIOUS,
    node_unlink,
    project_with_victim,
    python_remove,
    refused_outside,
    user_config,
    widen_user_config,
)
from conftest import last_markers
from personkit import on_a_pty, person_env

from .conftest import NOBODY, as_nobody


@pytest.mark.parametrize("net", ["on", "off"])
def test_a_local_config_written_in_a_run_widens_nothing(sandbox, net):
    project, victim = project_with_victim(sandbox)
    options = ["--net", net]
    # In the run that writes it: the run's policy was fixed when it started.
    done = sandbox.run("sh", "-c", f"{LOCAL} && rm -f {victim}", cwd=project, run_options=options)
    refused_outside(done, victim)
    assert (project / ".safedel" / "config.local.toml").exists()
    # In every later run, through every front end: the file's "/" is held back.
    front_ends = [["rm", "-f", str(victim)], python_remove(victim), node_unlink(victim)]
    if net == "on":
        front_ends.append(["dash", "-c", f"/bin/rm -f {victim}"])
    for argv in front_ends:
        done = sandbox.run(*argv, cwd=project, run_options=options)
        refused_outside(done, victim)
        assert b"not applying workspace root '/'" in done.stderr
        assert b"config.local.toml" in done.stderr
    assert sandbox.trashed_names() == []


def test_user_settings_written_in_a_run_lift_nothing_later(sandbox):
    project, victim = project_with_victim(sandbox, files=60)
    done = sandbox.run("sh", "-c", widen_user_config(sandbox), cwd=project)
    assert done.returncode == 0, done.stderr
    # More than the threshold in one batch: refused whole, all 60 in place.
    done = sandbox.run("sh", "-c", "rm f*", cwd=project)
    assert done.returncode == 1, done.stderr
    assert "SAFE_DELETE_BULK_CONFIRM_REQUIRED" in last_markers(done.stderr)
    assert len(list(project.glob("f*"))) == 60 and sandbox.trashed_names() == []
    assert b"not applying threshold = 99999" in done.stderr
    # outside_workspace = "allow" is held back too.
    refused_outside(sandbox.run("rm", str(victim), cwd=project), victim)
    # net = false is held back: dash's /bin/rm is still caught, and trashed.
    (project / "g").write_bytes(PRECIOUS)
    done = sandbox.run("dash", "-c", "/bin/rm g", cwd=project)
    assert done.returncode == 0 and sandbox.trashed_names() == ["g"]
    assert (sandbox.trash / "files" / "g").read_bytes() == PRECIOUS
    # max_size = "1" started no retention pass: the trash stays whole.
    assert not (sandbox.state / "retention.stamp").exists()


def test_a_config_planted_by_another_user_widens_nothing(sandbox, shared):
    project = os.path.join(shared, "proj")
    os.makedirs(os.path.join(project, ".git"))
    os.chmod(project, 0o777)  # a shared project: anyone may write here
    planted = as_nobody(["sh", "-c", LOCAL], cwd=project)
    assert planted.wait(60) == 0
    assert os.stat(os.path.join(project, ".safedel", "config.local.toml")).st_uid == NOBODY
    _, victim = project_with_victim(sandbox)
    refused_outside(sandbox.run("rm", str(victim), cwd=project), victim)
    refused_outside(sandbox.run(*node_unlink(victim), cwd=project), victim)


def test_a_fifo_for_a_config_file_hangs_nothing(sandbox):
    path = user_config(sandbox)
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    (sandbox.work / "f").write_bytes(PRECIOUS)
    done = sandbox.run("sh", "-c", "rm f", timeout=60)
    assert done.returncode == 0 and sandbox.trashed_names() == ["f"]
    (sandbox.work / "g").write_bytes(PRECIOUS)
    env = sandbox.shim_env()
    done = subprocess.run(["rm", "g"], cwd=sandbox.work, env=env, capture_output=True, timeout=60)
    assert done.returncode == 0 and sorted(sandbox.trashed_names()) == ["f", "g"]


def test_a_question_the_command_asks_for_is_never_shown(sandbox):
    """The run fixed `prompt` when it started: a command that writes `prompt = 1` and
    sets SAFEDEL_PROMPT=1 for itself on a terminal it controls gets no question."""
    for index in range(60):
        (sandbox.work / f"f{index:02d}").write_bytes(PRECIOUS)
    user_config(sandbox).parent.mkdir(parents=True)
    script = f"printf 'prompt = 1\\n' >> {user_config(sandbox)}; SAFEDEL_PROMPT=1 rm f*"
    env = person_env(sandbox.base_env())
    argv = [sys.executable, "-m", "safedel", "run", "--", "sh", "-c", script]
    # y typed at any question, as a command at that terminal would answer
    code, screen = on_a_pty(argv, env, b"y\r", cwd=sandbox.work)
    assert code == 1, screen
    assert "[y/N]" not in screen and "SAFE_DELETE_BULK" in screen
    assert len(list(sandbox.work.glob("f*"))) == 60


@pytest.mark.parametrize("agent", ["CLAUDECODE=1", "CODEX_SANDBOX=seatbelt", "GEMINI_CLI=1"])
def test_under_an_agent_host_the_warning_names_no_command(sandbox, agent):
    project, victim = project_with_victim(sandbox)
    name, _, value = agent.partition("=")
    env = sandbox.base_env(**{name: value})
    done = sandbox.run("sh", "-c", f"{LOCAL}; {widen_user_config(sandbox)}", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    done = sandbox.run("rm", str(victim), cwd=project, env=env)
    refused_outside(done, victim)
    warnings = [line for line in done.stderr.splitlines() if b"not applying" in line]
    assert len(warnings) >= 2, done.stderr  # the root "/" and the outside_workspace
    assert all(b"waits until the user confirms the file" in line for line in warnings)
    assert b"config trust" not in done.stderr and b"safedel config" not in done.stderr
