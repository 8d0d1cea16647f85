"""`safedel run`: exit codes, signals, the environment contract and --result."""

import json
import os
import signal
import subprocess
import sys

import pytest
from resultschema import valid_result

from safedel.core.contract import caches
from safedel.executor import childenv, shimhome


def test_exit_code_is_the_commands(sandbox):
    result = sandbox.run("sh", "-c", "exit 7")
    assert result.returncode == 7
    assert result.stderr == b""


def test_missing_command_exits_127_like_a_shell(sandbox):
    result = sandbox.run("no-such-command-safedel")
    assert result.returncode == 127
    assert b"no-such-command-safedel: command not found" in result.stderr


def test_unrunnable_command_exits_126(sandbox):
    script = sandbox.work / "not-executable"
    script.write_text("#!/bin/sh\necho hi\n")
    result = sandbox.run(str(script))
    assert result.returncode == 126


def test_signal_death_exits_128_plus_n(sandbox):
    result = sandbox.run("sh", "-c", "kill -TERM $$")
    assert result.returncode == 128 + signal.SIGTERM


def test_sigterm_to_safedel_reaches_the_child(sandbox):
    flag = sandbox.work / "got-term"
    child = (
        "import signal, sys, time\n"
        f"def h(*a):\n    open({str(flag)!r}, 'w').write('TERM')\n    sys.exit(3)\n"
        "signal.signal(signal.SIGTERM, h)\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    argv = [sys.executable, "-m", "safedel", "run", "--", sys.executable, "-c", child]
    proc = subprocess.Popen(argv, env=sandbox.base_env(), stdout=subprocess.PIPE)
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 3
    assert flag.read_text() == "TERM"


def test_stdin_and_stdout_pass_through_untouched(sandbox):
    data = bytes(range(256)) * 64
    result = sandbox.run("cat", input=data)
    assert result.returncode == 0
    assert result.stdout == data


def test_contract_reaches_the_child(sandbox):
    result = sandbox.run(
        sys.executable,
        "-c",
        "import json, os; print(json.dumps(dict(os.environ)))",
        run_options=["--tool-call", "call-9", "--threshold", "7"],
    )
    env = json.loads(result.stdout)
    assert env["SAFEDEL_ACTIVE"] == "1"
    assert env["SAFEDEL_SESSION"] == sandbox.session
    assert env["SAFEDEL_TURN"] == sandbox.turn
    assert env["SAFEDEL_TOOL_CALL"] == "call-9"
    assert env["SAFEDEL_THRESHOLD"] == "7"
    home = env["SAFEDEL_HOME"]
    assert env["PATH"].split(os.pathsep)[0] == os.path.join(home, "bin")
    assert env["PYTHONPATH"].split(os.pathsep)[0] == os.path.join(home, "python")
    assert env["NODE_OPTIONS"] == f'--require "{os.path.join(home, "node", "safedel.cjs")}"'
    assert env["ENV"] == os.path.join(home, "posix", "env.sh")
    # bash expands BASH_ENV itself, to env.sh for the user who owns the shim home.
    expand = 'eval "bash_env=\\"$BASH_ENV\\""; printf %s "$bash_env"'
    expanded = subprocess.run(["bash", "-c", expand], env=env, capture_output=True, text=True)
    assert expanded.stdout == env["ENV"]
    # The temp dir, then the user's tool caches and the kernel's IPC dir that exist.
    assert env["SAFEDEL_EXEMPT"].split(os.pathsep) == [
        str(sandbox.tmpdir),
        *caches.roots(env),
        *caches.kernel_ipc(),
    ]


def test_each_run_gets_a_new_turn_unless_given(sandbox):
    argv = [sys.executable, "-m", "safedel", "run", "--", "sh", "-c", "echo $SAFEDEL_TURN"]
    turns = {subprocess.run(argv, env=sandbox.base_env(), capture_output=True).stdout for _ in "ab"}
    assert len(turns) == 2


def test_nested_runs_do_not_double_path_or_preload(sandbox):
    inner = "import os; print(os.environ['PATH']); print(os.environ['NODE_OPTIONS'])"
    env = sandbox.base_env(NODE_OPTIONS="--max-old-space-size=100")
    result = sandbox.run(
        sys.executable, "-m", "safedel", "run", "--", sys.executable, "-c", inner, env=env
    )
    path, node_options = result.stdout.decode().splitlines()
    first = path.split(os.pathsep)[0]
    assert path.split(os.pathsep).count(first) == 1
    assert node_options.count("--require") == 1
    assert node_options.endswith("--max-old-space-size=100")


def test_result_file(sandbox):
    result_path = sandbox.work / "result.json"
    result = sandbox.run("sh", "-c", "exit 4", run_options=["--result", str(result_path)])
    assert result.returncode == 4
    data = valid_result(result_path)
    assert data["exitCode"] == 4
    assert data["signal"] is None
    assert data["session"] == sandbox.session and data["turn"] == sandbox.turn
    assert data["trashed"] == [] and data["refused"] == [] and data["guard"] is None
    assert isinstance(data["durationMs"], int)
    # Without capture mode the output went straight through, so there is no view.
    assert data["stdout"] is None and data["outputFiles"] is None and data["timedOut"] is False


def test_result_names_the_signal(sandbox):
    result_path = sandbox.work / "result.json"
    done = sandbox.run("sh", "-c", "kill -KILL $$", run_options=["--result", str(result_path)])
    data = valid_result(result_path)
    assert (done.returncode, data["exitCode"], data["signal"]) == (137, None, "SIGKILL")


@pytest.mark.parametrize("bad", [["--threshold", "0"], ["--bogus"], []])
def test_usage_errors_exit_2_and_run_nothing(sandbox, bad):
    argv = [sys.executable, "-m", "safedel", "run", *bad]
    if bad and bad[0] == "--threshold":
        argv += ["--", "touch", str(sandbox.work / "ran")]
    result = subprocess.run(argv, env=sandbox.base_env(), capture_output=True)
    assert result.returncode == 2
    assert b"safedel run:" in result.stderr
    assert not (sandbox.work / "ran").exists()


def test_env_command_matches_run(sandbox):
    argv = [sys.executable, "-m", "safedel", "env", "--session", "S1", "--turn", "T1"]
    as_json = subprocess.run([*argv, "--json"], env=sandbox.base_env(), capture_output=True)
    values = json.loads(as_json.stdout)
    assert values["SAFEDEL_SESSION"] == "S1" and values["SAFEDEL_TURN"] == "T1"
    script = subprocess.run(argv + ["--shell", "sh"], env=sandbox.base_env(), capture_output=True)
    check = 'eval "$1"; printf "%s|%s" "$SAFEDEL_ACTIVE" "$SAFEDEL_TURN"'
    shown = subprocess.run(
        ["sh", "-c", check, "sh", script.stdout.decode()],
        env=sandbox.base_env(),
        capture_output=True,
    )
    assert shown.stdout == b"1|T1"


def test_materialize_is_idempotent_and_race_safe(tmp_path):
    root = tmp_path / "root with 'quote' and $dollar"
    code = (
        "import sys; from safedel.executor import shimhome; "
        "print(shimhome.materialize(sys.argv[1]))"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(root)], stdout=subprocess.PIPE)
        for _ in range(8)
    ]
    homes = {p.communicate(timeout=60)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    assert len(homes) == 1
    home = homes.pop().decode()
    assert sorted(os.listdir(root)) == [os.path.basename(home)]
    assert os.path.isfile(os.path.join(home, ".complete"))
    assert shimhome.materialize(str(root)) == home
    env_sh = open(os.path.join(home, "posix", "env.sh")).read()
    assert shimhome.render("@SAFEDEL_HOME@", {"SAFEDEL_HOME": home}, repr) == repr(home)
    assert "'\\''" in env_sh  # the quote in the path is escaped for sh


def test_run_overhead_path_does_not_import_typer(sandbox):
    code = (
        "import sys, runpy\n"
        "sys.argv = ['safedel', 'run', '--', 'true']\n"
        "try:\n    runpy.run_module('safedel', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print('typer' in sys.modules, 'rich' in sys.modules)\n"
    )
    env = sandbox.base_env()
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True)
    assert result.stdout.split()[-2:] == [b"False", b"False"]


def test_contract_keeps_user_hooks_for_chaining():
    base = {"PATH": "/usr/bin", "BASH_ENV": "/u/bashenv", "ZDOTDIR": "/u/z", "HOME": "/u"}
    env = childenv.contract(base, "/h", childenv.RunOptions(turn="T"))
    assert env["SAFEDEL_USER_BASH_ENV"] == "/u/bashenv"
    assert env["SAFEDEL_USER_ZDOTDIR"] == "/u/z"
    assert env["ZDOTDIR"] == "/h/zsh"
    nested = {**base, **env}
    nested.update(childenv.contract(nested, "/h", childenv.RunOptions(turn="T")))
    assert nested["SAFEDEL_USER_BASH_ENV"] == "/u/bashenv"
    assert nested["SAFEDEL_USER_ZDOTDIR"] == "/u/z"
    assert nested["PATH"] == env["PATH"]


def test_duration_is_reported_in_milliseconds(sandbox):
    result_path = sandbox.work / "r.json"
    sandbox.run("sleep", "0.2", run_options=["--result", str(result_path)])
    # A unit check (milliseconds, not seconds), not a speed check.
    assert valid_result(result_path)["durationMs"] >= 200


def test_locale_coercion_does_not_reach_the_command(sandbox, tmp_path):
    """With LANG=C the interpreter sets LC_CTYPE=C.UTF-8 for itself; the command must get
    the environment safedel was given, so coreutils still quote with plain '."""
    env = {k: v for k, v in sandbox.base_env(LANG="C").items() if not k.startswith("LC_")}
    env.pop("PYTHONCOERCECLOCALE", None)
    env.pop("PYTHONUTF8", None)
    shown = sandbox.run("env", env=env)
    assert b"LC_CTYPE=" not in shown.stdout
    missing = str(tmp_path / "no-such-file")
    plain = subprocess.run(["/usr/bin/unlink", missing], env=env, capture_output=True)
    wrapped = sandbox.run("/usr/bin/unlink", missing, env=env)
    assert (
        plain.stderr
        == f"/usr/bin/unlink: cannot unlink '{missing}': No such file or directory\n".encode()
    )
    assert wrapped.stderr == plain.stderr
    given = sandbox.run("env", env={**env, "LC_CTYPE": "C.UTF-8"})
    assert b"\nLC_CTYPE=C.UTF-8\n" in b"\n" + given.stdout
