"""Host detection: one row per host, each from a clean environment."""

import os
import subprocess
import sys

import pytest

from safedel.core.contract import host

TABLE = [
    ({"CLAUDECODE": "1"}, "claude-code", "agent"),
    ({"CODEX_SANDBOX": "seatbelt"}, "codex", "agent"),
    ({"CODEX_SANDBOX_NETWORK_DISABLED": "1"}, "codex", "agent"),
    ({"CURSOR_AGENT": "1"}, "cursor", "agent"),
    ({"GEMINI_CLI": "1"}, "gemini-cli", "agent"),
    ({"CODEX_THREAD_ID": "0199a3c2-7d1e"}, "codex", "agent"),
    ({"GITHUB_ACTIONS": "true", "CI": "true"}, "github-actions", "ci"),
    ({"GITLAB_CI": "true", "CI": "true"}, "gitlab-ci", "ci"),
    ({"BUILDKITE": "true", "CI": "true"}, "buildkite", "ci"),
    ({"JENKINS_URL": "https://ci.example/"}, "jenkins", "ci"),
    ({"CI": "true"}, "ci", "ci"),
    ({"CI": "1"}, "ci", "ci"),
    ({"TERM_PROGRAM": "vscode"}, "vscode", "editor"),
    ({"TERMINAL_EMULATOR": "JetBrains-JediTerm"}, "jetbrains", "editor"),
    # An agent inside an editor's terminal, or in CI, is still the agent.
    ({"TERM_PROGRAM": "vscode", "CLAUDECODE": "1"}, "claude-code", "agent"),
    ({"CI": "true", "GEMINI_CLI": "1"}, "gemini-cli", "agent"),
]


@pytest.mark.parametrize(("environ", "name", "kind"), TABLE)
def test_each_host_from_a_clean_environment(environ, name, kind):
    found = host.detect(dict(environ), interactive=False)
    assert (found.name, found.kind) == (name, kind)
    assert found.attended == (kind not in ("agent", "ci"))
    assert found.evidence.split("=", 1)[0] in environ


def test_plain_terminal_and_plain_script():
    assert host.detect({}, interactive=True).as_dict()["name"] == "terminal"
    assert host.detect({"TERM_PROGRAM": "iTerm.app"}, interactive=True).name == "terminal"
    assert host.detect({}, interactive=False).name == "script"
    # "false" and empty values are how runners say "not CI".
    assert host.detect({"CI": "false", "CLAUDECODE": ""}, interactive=False).name == "script"
    assert host.detect({"CLAUDECODE": "0"}, interactive=False).name == "script"


@pytest.mark.parametrize(("environ", "name", "kind"), TABLE[::3])
def test_a_real_process_reads_its_own_environment(environ, name, kind):
    env = {"PATH": os.environ["PATH"], **environ}
    code = "from safedel.core.contract import host; h = host.current(); print(h.name, h.kind)"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == [name, kind]
