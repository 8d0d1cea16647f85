"""`safedel bootstrap` outside a terminal: quiet under strict mode, shell detection,
and the /bin/rm boundary (bash scripts are covered, dash scripts are a known gap)."""

import shlex
import subprocess
import sys

import pytest
from conftest import require

from safedel import shells

PY = shlex.quote(sys.executable)
STRICT = {
    "bash": ["bash", "-c"],
    "zsh": ["zsh", "-c"],
    "dash": ["dash", "-c"],
    "busybox": ["busybox", "sh", "-c"],
}
NAMES = {"bash": "bash", "zsh": "zsh", "dash": "sh", "busybox": "sh"}


@pytest.mark.parametrize("key", list(STRICT))
def test_bootstrap_is_silent_under_strict_mode_and_twice(sandbox, key):
    require(STRICT[key][0])
    strict = "set -eu" + ("o pipefail" if key != "dash" else "")
    line = f'eval "$({PY} -m safedel bootstrap {NAMES[key]})"'
    script = f'{strict}\n{line}\n{line}\necho "ok:$SAFEDEL_ACTIVE"\n'
    done = subprocess.run([*STRICT[key], script], env=sandbox.base_env(), capture_output=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"ok:1\n", b"")


def test_fish_bootstrap_is_silent_and_sourcing_twice_is_harmless(sandbox):
    require("fish")
    line = f"{PY} -m safedel bootstrap fish | source"
    script = f"{line}; {line}; echo ok:$SAFEDEL_ACTIVE"
    done = subprocess.run(["fish", "-c", script], env=sandbox.base_env(), capture_output=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"ok:1\n", b"")


@pytest.mark.parametrize(
    ("parent", "marker"),
    [
        (["bash", "-c"], "PROMPT_COMMAND"),
        (["zsh", "-c"], "preexec_functions"),
        (["dash", "-c"], "SAFEDEL_TURN_FILE="),
        (["busybox", "sh", "-c"], "SAFEDEL_TURN_FILE="),
        (["fish", "-c"], "fish_preexec"),
    ],
)
def test_the_calling_shell_is_detected(sandbox, parent, marker):
    require(parent[0])
    # `; true` keeps the shell from exec-ing Python in its own place.
    done = subprocess.run(
        [*parent, f"{PY} -m safedel bootstrap; true"], env=sandbox.base_env(), capture_output=True
    )
    assert done.returncode == 0, done.stderr
    assert marker in done.stdout.decode()


def test_shell_falls_back_to_dollar_shell(sandbox):
    # Started straight from pytest, the parent is Python, so $SHELL decides.
    done = subprocess.run(
        [sys.executable, "-m", "safedel", "bootstrap"],
        env=sandbox.base_env(SHELL="/usr/bin/fish"),
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    assert b"--on-event fish_preexec" in done.stdout


def test_process_names_map_to_shells():
    assert shells.shell_for_process("/usr/bin/fish") == "fish"
    assert shells.shell_for_process("-bash") == "bash"
    assert shells.shell_for_process("busybox") == "sh"
    assert shells.shell_for_process("pwsh.exe") == "powershell"
    assert shells.shell_for_process("python3") is None


def test_an_unknown_shell_is_refused(sandbox):
    done = subprocess.run(
        [sys.executable, "-m", "safedel", "bootstrap", "tcsh"],
        env=sandbox.base_env(),
        capture_output=True,
    )
    assert done.returncode == 2 and b"tcsh" not in done.stdout


def _bash_under_bootstrap(sandbox, command):
    script = f'eval "$({PY} -m safedel bootstrap bash)"\n{command}\n'
    # The shims land under a name with quotes, `$` and a backslash: BASH_ENV, which bash
    # expands before reading it, must still name env.sh.
    odd = sandbox.root / 'cache it\'s "odd" $HOME `x` \\'
    env = sandbox.base_env(SAFEDEL_THRESHOLD="50", XDG_CACHE_HOME=str(odd))
    return subprocess.run(["bash", "-c", script], cwd=sandbox.work, env=env, capture_output=True)


def test_bin_rm_in_a_bash_script_goes_to_the_trash(sandbox):
    require(f"{sandbox.shim_home}/bin/rm")
    (sandbox.work / "victim").write_text("keep me")
    (sandbox.work / "script.sh").write_text("/bin/rm victim\n/usr/bin/rm -f missing\n")
    done = _bash_under_bootstrap(sandbox, "bash ./script.sh")
    assert done.returncode == 0, done.stderr
    assert not (sandbox.work / "victim").exists()
    assert sandbox.trashed_names() == ["victim"]
    assert [e["operation"] for e in sandbox.report()] == ["trash"]


def test_bin_rm_in_a_dash_script_is_the_documented_gap(sandbox):
    """dash cannot name a function /bin/rm, so a hard-coded path deletes for real."""
    require("dash")
    (sandbox.work / "victim").write_text("gone for real")
    (sandbox.work / "script.sh").write_text("/bin/rm victim\n")
    done = _bash_under_bootstrap(sandbox, "dash ./script.sh")
    assert done.returncode == 0, done.stderr
    assert not (sandbox.work / "victim").exists()
    assert sandbox.trashed_names() == [] and sandbox.report() == []


def test_exec_bin_rm_is_the_documented_gap(sandbox):
    """`exec` and `command` look past functions, so a hard-coded path deletes for real."""
    for name in ("by-exec", "by-command"):
        (sandbox.work / name).write_text("gone for real")
    done = _bash_under_bootstrap(sandbox, "(exec /bin/rm by-exec); command /bin/rm by-command")
    assert done.returncode == 0, done.stderr
    assert list(sandbox.work.iterdir()) == []
    assert sandbox.trashed_names() == [] and sandbox.report() == []


def test_fish_bin_rm_is_the_documented_gap_and_plain_rm_is_covered(sandbox):
    """fish cannot name a function /bin/rm; PATH still catches a bare rm."""
    require("fish")
    require(f"{sandbox.shim_home}/bin/rm")
    (sandbox.work / "by-path").write_text("gone for real")
    (sandbox.work / "by-name").write_text("keep me")
    script = f"{PY} -m safedel bootstrap fish | source; /bin/rm by-path; rm by-name"
    env = sandbox.base_env()
    done = subprocess.run(["fish", "-c", script], cwd=sandbox.work, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert list(sandbox.work.iterdir()) == []
    assert sandbox.trashed_names() == ["by-name"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "sh", "fish"])
def test_run_with_shell_runs_the_line_in_that_shell(sandbox, shell):
    require(shell)
    require(f"{sandbox.shim_home}/bin/rm")
    for name in ("one", "two"):
        (sandbox.work / name).write_text("x")
    done = sandbox.run("rm one && rm two", run_options=("--shell", shell))
    assert done.returncode == 0, done.stderr
    assert sandbox.trashed_names() == ["one", "two"]


def test_run_refuses_an_unknown_shell(sandbox):
    done = sandbox.run("true", run_options=("--shell", "tcsh"))
    assert done.returncode == 2
    assert b"--shell must be one of" in done.stderr
