"""The guard answers to the person, not to the command: a process that `safedel run`
started cannot approve its own turn, widen its workspace or purge what it trashed, not
from an orphan, a new pid namespace or an emptied environment, with the net or without.
"""

import os
import subprocess
import sys
import time

import pytest
from conftest import IN_CI, as_a_person, confirm_config, require
from netkit import require_net

from safedel.core.guard import turn as guardturn

PY = sys.executable
USER_ONLY = "the user's decision, not a command's that safedel run started"

# Forks; the child waits until its parent has exited (it is an orphan then), then
# runs argv[2:] with SAFEDEL_RUN_ID removed and writes the exit code and stderr to
# argv[1]: what a command does to look like a process of the user's own.
ORPHAN = """
import os, subprocess, sys, time
if os.fork():
    sys.exit(0)
parent = os.getppid()
while os.getppid() == parent:
    time.sleep(0.01)
env = {k: v for k, v in os.environ.items() if k != "SAFEDEL_RUN_ID"}
done = subprocess.run(sys.argv[2:], env=env, capture_output=True, text=True)
with open(sys.argv[1] + ".part", "w") as out:
    out.write(f"{done.returncode}\\n{done.stderr}")
os.rename(sys.argv[1] + ".part", sys.argv[1])
"""

# The command waits for the orphan's answer (no sleep of a guessed length).
WAIT_FOR = 'for i in $(seq 600); do [ -e "$1" ] && break; sleep 0.05; done; '


def _net_options(net):
    if net == "on":
        require_net()
        return []
    return ["--net", "off"]


def _files(sandbox, count):
    for n in range(count):
        (sandbox.work / f"f{n}").write_text(str(n))
    return [f"f{n}" for n in range(count)]


def _approve_argv(sandbox):
    return [
        PY,
        "-m",
        "safedel",
        "guard",
        "approve",
        "--session",
        sandbox.session,
        "--turn",
        sandbox.turn,
    ]


def _answer(path):
    code, _, stderr = path.read_text().partition("\n")
    return int(code), stderr


@pytest.mark.parametrize("net", ["on", "off"])
@pytest.mark.parametrize("mode", ["plain", "capture"])
def test_an_orphan_of_the_command_cannot_approve(sandbox, net, mode):
    _files(sandbox, 6)
    (sandbox.root / "orphan.py").write_text(ORPHAN)
    answer = sandbox.root / "answer"
    script = (
        "rm f0 f1; rm f2; "
        f'"{PY}" "{sandbox.root}/orphan.py" "$1" {" ".join(_approve_argv(sandbox))}; '
        + WAIT_FOR
        + "rm f2 f3 f4 f5"
    )
    options = ["--threshold", "2", *_net_options(net)] + (
        ["--capture"] if mode == "capture" else []
    )
    done = sandbox.run("bash", "-c", script, "sh", str(answer), run_options=options)
    assert done.returncode != 0
    code, stderr = _answer(answer)
    assert code == 1 and "approval must come from the user" in stderr, stderr
    assert guardturn.status(str(sandbox.state), sandbox.session, sandbox.turn).mode == "open"
    assert sorted(os.listdir(sandbox.work)) == ["f2", "f3", "f4", "f5"]


@pytest.mark.parametrize("unshare", [["-pf", "--mount-proc"], ["-rpf", "--mount-proc"]])
def test_a_new_pid_namespace_cannot_approve(sandbox, unshare):
    require_net()
    tool = require("unshare")
    probe = subprocess.run([tool, *unshare, "true"], capture_output=True)
    if probe.returncode != 0:
        if IN_CI:
            pytest.fail(f"unshare {unshare} failed: {probe.stderr!r}")
        pytest.skip("no pid namespaces here")
    _files(sandbox, 6)
    approve = " ".join([tool, *unshare, "env", "-u", "SAFEDEL_RUN_ID", *_approve_argv(sandbox)])
    script = f"rm f0 f1; rm f2; {approve} 2>&1; echo approve=$?; rm f2 f3 f4 f5"
    for options in ([], ["--capture"]):
        done = sandbox.run("bash", "-c", script, run_options=["--threshold", "2", *options])
        assert b"approval must come from the user" in done.stdout + done.stderr
        assert b"approve=1" in done.stdout
        assert guardturn.status(str(sandbox.state), sandbox.session, sandbox.turn).mode == "open"
        assert sorted(os.listdir(sandbox.work)) == ["f2", "f3", "f4", "f5"]


def test_outside_any_run_a_person_still_approves(sandbox):
    _files(sandbox, 4)
    done = sandbox.run("rm", "f0", "f1", "f2", run_options=["--threshold", "2"])
    assert done.returncode != 0 and (sandbox.work / "f0").exists()
    approve = as_a_person(_approve_argv(sandbox), env=sandbox.base_env(), capture_output=True)
    assert approve.returncode == 0, approve.stderr
    assert guardturn.status(str(sandbox.state), sandbox.session, sandbox.turn).mode == "approved"
    done = sandbox.run("rm", "f0", "f1", "f2", "f3", run_options=["--threshold", "2"])
    assert done.returncode == 0 and not os.listdir(sandbox.work)


@pytest.mark.parametrize("net", ["on", "off"])
def test_the_command_cannot_widen_its_workspace(sandbox, tmp_path, net):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "cv.pdf").write_text("precious")
    adds = "; ".join(
        f"{PY} -m safedel workspace add {outside} --scope {scope}; echo {scope}=$?"
        for scope in ("session", "local", "project", "user")
    )
    remove = f"{PY} -m safedel workspace remove {sandbox.work} --scope session; echo remove=$?"
    options = ["--capture", *_net_options(net)]
    done = sandbox.run("bash", "-c", f"{adds}; {remove}; rm {outside}/cv.pdf", run_options=options)
    for scope in ("session", "local", "project", "user", "remove"):
        assert f"{scope}=1".encode() in done.stdout, done.stdout
    assert done.stderr.count(f"changing the workspace is {USER_ONLY}".encode()) == 5
    assert (outside / "cv.pdf").read_text() == "precious"
    listed = subprocess.run(
        [PY, "-m", "safedel", "workspace", "list", "--session", sandbox.session],
        env=sandbox.base_env(),
        cwd=sandbox.work,
        capture_output=True,
        text=True,
    )
    assert str(outside) not in listed.stdout
    again = sandbox.run("rm", str(outside / "cv.pdf"), run_options=["--capture"])
    assert again.returncode != 0 and (outside / "cv.pdf").read_text() == "precious"


@pytest.mark.parametrize("net", ["on", "off"])
def test_the_command_cannot_purge_what_it_trashed(sandbox, net):
    (sandbox.work / "data.txt").write_text("precious")
    purge = f"{PY} -m safedel purge --turn {sandbox.turn} --session {sandbox.session} --yes"
    options = ["--capture", *_net_options(net)]
    done = sandbox.run("bash", "-c", f"rm data.txt && {purge}", run_options=options)
    assert done.returncode == 1
    assert f"deleting from the trash for good is {USER_ONLY}".encode() in done.stderr
    assert sandbox.trashed_names() == ["data.txt"]
    assert (sandbox.trash / "files" / "data.txt").read_text() == "precious"


def _retention_passes(state):
    """Pids of running retention passes of this sandbox (found by their state dir)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if b"--retention-pass" not in handle.read():
                    continue
            with open(f"/proc/{pid}/environ", "rb") as handle:
                if f"SAFEDEL_STATE_DIR={state}".encode() in handle.read().split(b"\0"):
                    found.append(pid)
        except OSError:
            continue
    return found


def test_retention_written_by_the_command_purges_nothing(sandbox):
    config = sandbox.home / ".config" / "safedel" / "config.toml"
    (sandbox.work / "old.txt").write_text("old precious")
    assert sandbox.run("rm", "old.txt").returncode == 0
    write = f"mkdir -p {config.parent}; echo 'max_size = \"1\"' >> {config}; rm new.txt"
    (sandbox.work / "new.txt").write_text("new")
    assert sandbox.run("sh", "-c", write).returncode == 0
    # Nothing was configured when the run started: no pass was even started.
    assert not (sandbox.state / "retention.stamp").exists()
    assert sandbox.trashed_names() == ["new.txt", "old.txt"]
    # A run that starts with a retention configured passes it on, and a max_size the
    # command adds is not among what its pass purges.
    config.write_text('retention = "3650d"\n')
    confirm_config(sandbox.state, config)
    (sandbox.work / "third.txt").write_text("3")
    assert sandbox.run("sh", "-c", write.replace("new.txt", "third.txt")).returncode == 0
    assert (sandbox.state / "retention.stamp").exists()
    deadline = time.monotonic() + 60
    while _retention_passes(sandbox.state) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _retention_passes(sandbox.state)
    assert sandbox.trashed_names() == ["new.txt", "old.txt", "third.txt"]
    # The same pass, given the values read at the start, keeps the trash whole too.
    values = '{"retention": "3650d"}'
    argv = [PY, "-m", "safedel", "purge", "--retention-pass", "--retention-values", values]
    assert subprocess.run(argv, env=sandbox.base_env()).returncode == 0
    assert sandbox.trashed_names() == ["new.txt", "old.txt", "third.txt"]


def test_the_canary_answers_only_under_the_net(sandbox):
    require_net()
    probe = "from safedel.net.canary import under_net; print(under_net())"
    outside = subprocess.run([PY, "-c", probe], env=sandbox.base_env(), capture_output=True)
    assert outside.stdout == b"False\n", outside.stderr
    assert sandbox.run(PY, "-c", probe).stdout == b"True\n"
    assert sandbox.run(PY, "-c", probe, run_options=["--net", "off"]).stdout == b"False\n"
    # What a real program sees from the same call outside the net: the kernel's EBADF.
    ebadf = "import ctypes, errno; c = ctypes.CDLL(None, use_errno=True); "
    ebadf += "c.ioctl(-1, 0x5AFEDE15); print(ctypes.get_errno() == errno.EBADF)"
    assert subprocess.run([PY, "-c", ebadf], capture_output=True).stdout == b"True\n"


@pytest.mark.parametrize("net", ["on", "off"])
def test_a_token_of_the_commands_own_approves_nothing(sandbox, net):
    _files(sandbox, 3)
    mine = sandbox.root / "mine.token"
    nested = f"{PY} -m safedel run --approval-token-file {mine} -- true"
    approve = " ".join(_approve_argv(sandbox)) + f" --token-file {mine}"
    script = f"rm f0 f1 f2; {nested}; {approve}; echo approve=$?; rm f0 f1 f2"
    options = ["--threshold", "2", *_net_options(net)]
    done = sandbox.run("bash", "-c", script, run_options=options)
    assert b"approve=1" in done.stdout and b"approval must come from the user" in done.stderr
    assert guardturn.status(str(sandbox.state), sandbox.session, sandbox.turn).mode == "open"
    assert sorted(os.listdir(sandbox.work)) == ["f0", "f1", "f2"]
    # Nor did the nested run bind the session to its token: a person outside still
    # approves without one.
    assert not mine.exists()
    outside = as_a_person(_approve_argv(sandbox), env=sandbox.base_env(), capture_output=True)
    assert outside.returncode == 0, outside.stderr


@pytest.mark.parametrize("net", ["on", "off"])
def test_the_command_cannot_start_a_server_to_answer_for_itself(sandbox, net):
    socket_path = sandbox.root / "own.sock"
    serve = f"{PY} -m safedel serve --socket {socket_path}; echo serve=$?"
    done = sandbox.run("bash", "-c", serve, run_options=_net_options(net))
    assert b"serve=1" in done.stdout
    assert f"starting a server for commands is {USER_ONLY}".encode() in done.stderr
    assert not socket_path.exists()
