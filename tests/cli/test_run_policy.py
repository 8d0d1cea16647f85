"""What `safedel run` hands its command for the location classes: the workspace roots,
the outside-workspace answer, the turn's start and the host."""

import json
import os
import subprocess
import sys
import time

from conftest import as_a_person, confirm_config
from resultschema import valid_result

from safedel.core.contract import host
from safedel.core.guard import turn as guardturn

PRINT_ENV = (
    "import json, os; "
    "print(json.dumps({k: v for k, v in os.environ.items() if k.startswith('SAFEDEL_')}))"
)


def child_env(sandbox, *run_options, env=None, cwd=None):
    done = sandbox.run(sys.executable, "-c", PRINT_ENV, run_options=run_options, env=env, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr.decode()


def test_workspace_roots_outside_answer_turn_start_and_host(sandbox):
    (sandbox.work / "a").mkdir()
    before = time.time()
    env, _ = child_env(sandbox, "--workspace", "a", "--workspace", str(sandbox.root))
    after = time.time()
    real = os.path.realpath(sandbox.work)
    assert env["SAFEDEL_WORKSPACE"].split(os.pathsep) == [real + "/a", str(sandbox.root)]
    roots = env["SAFEDEL_WORKSPACE_ROOTS"].split(os.pathsep)
    assert roots == [real + "/a", os.path.realpath(sandbox.root)]
    assert env["SAFEDEL_OUTSIDE_WORKSPACE"] == "confirm"
    seconds, _, turn = env["SAFEDEL_TURN_START"].partition(":")
    # Recorded while the run started: between the two clock readings around it.
    assert turn == sandbox.turn and before - 1 <= float(seconds) <= after
    # No terminal: "script", unless this machine's environment names a host (CI=true).
    assert env["SAFEDEL_HOST"] == host.detect(sandbox.base_env(), interactive=False).name
    default, _ = child_env(sandbox, "--outside-workspace", "allow")
    assert default["SAFEDEL_WORKSPACE_ROOTS"] == real and "SAFEDEL_WORKSPACE" not in default
    assert default["SAFEDEL_OUTSIDE_WORKSPACE"] == "allow"
    config = sandbox.home / ".config" / "safedel" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('outside_workspace = "allow"\n')
    env, stderr = child_env(sandbox)  # nobody confirmed it: a command could have written it
    assert env["SAFEDEL_OUTSIDE_WORKSPACE"] == "confirm" and "outside_workspace = allow" in stderr
    confirm_config(sandbox.state, config)
    assert child_env(sandbox)[0]["SAFEDEL_OUTSIDE_WORKSPACE"] == "allow"
    bad = sandbox.run("true", run_options=["--outside-workspace", "maybe"])
    assert bad.returncode == 2 and b"allow or confirm" in bad.stderr


def test_a_malicious_project_config_is_ignored_with_a_warning(sandbox):
    project = sandbox.work / "cloned"
    (project / ".git").mkdir(parents=True)
    (project / ".safedel").mkdir()
    (project / ".safedel" / "config.toml").write_text('workspace = ["/", "~"]\n')
    env, stderr = child_env(sandbox, cwd=project)
    assert env["SAFEDEL_WORKSPACE_ROOTS"] == os.path.realpath(project)
    assert stderr.count("may only name folders inside") == 2


def test_result_and_report_carry_the_host(sandbox):
    (sandbox.work / "f").write_text("x")
    result = sandbox.root / "result.json"
    env = sandbox.base_env(GEMINI_CLI="1")
    done = sandbox.run("rm", "f", run_options=["--result", str(result)], env=env)
    assert done.returncode == 0, done.stderr
    got = valid_result(result)
    assert got["host"] == "gemini-cli"
    assert [e["host"] for e in got["trashed"]] == ["gemini-cli"]


def test_guard_approve_outside_workspace_is_recorded_for_the_turn(sandbox):
    where = ["--session", sandbox.session, "--turn", sandbox.turn]
    done = as_a_person(
        [sys.executable, "-m", "safedel", "guard", "approve", "--outside-workspace", *where],
        env=sandbox.base_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and "outside the workspace" in done.stdout, done.stderr
    state = guardturn.status(str(sandbox.state), sandbox.session, sandbox.turn)
    assert state.outside and state.mode == "open"
    assert not guardturn.status(str(sandbox.state), sandbox.session, "other").outside


def bootstrap_bash(sandbox):
    return subprocess.run(
        [sys.executable, "-m", "safedel", "bootstrap", "bash"],
        env=sandbox.base_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def test_the_interactive_bootstrap_allows_outside_the_workspace(sandbox):
    """A person typing `rm ~/Downloads/x` meant it: still trashed, never asked about."""
    done = bootstrap_bash(sandbox)
    assert "export SAFEDEL_OUTSIDE_WORKSPACE='allow'" in done.stdout
    # No fixed start or host: the shell stamps each turn's start itself.
    assert "SAFEDEL_TURN_START='" not in done.stdout and "SAFEDEL_HOST" not in done.stdout
    config = sandbox.home / ".config" / "safedel" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('outside_workspace = "confirm"\n')
    done = bootstrap_bash(sandbox)
    assert "export SAFEDEL_OUTSIDE_WORKSPACE='confirm'" in done.stdout
