"""A served command cannot leave its run by changing its environment: the run's root
process carries the run's pointer (serve/pointers.py), so the shims and the runtimes
find their run from the process tree, as under `safedel run`."""

import json
import os
import sys

import pytest
from servekit import Raw, Served

from safedel.core import jsonl
from safedel.core.contract import runpointer
from safedel.net import install, kernel_supports
from safedel.net import spawn as direct
from safedel.serve import forking, pointers

# Drop the run id, move the state dir and HOME, lift the threshold: everything a command
# can do to its environment.
ESCAPE = (
    "env -u SAFEDEL_RUN_ID SAFEDEL_STATE_DIR={moved}/state XDG_STATE_HOME={moved} "
    "HOME={moved} SAFEDEL_THRESHOLD=999 "
)
DELETERS = {
    "rm": "rm -f f*",
    "python": "python3 -c 'import glob, os; [os.remove(p) for p in sorted(glob.glob(\"f*\"))]'",
    "node": (
        'node -e \'const fs = require("fs"); '
        'for (const n of fs.readdirSync(".").sort()) if (n.startsWith("f")) fs.rmSync(n)\''
    ),
}
THRESHOLD = 50


def _net_off(sandbox):
    folder = sandbox.home / ".config" / "safedel"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text("net = false\n")


@pytest.mark.parametrize("net", ["on", "off"])
def test_a_command_that_changes_its_environment_stays_under_its_runs_guard(sandbox, net):
    if net == "off":
        _net_off(sandbox)  # the run env's config file says so (XDG_CONFIG_HOME)
    served = Served(sandbox)
    try:
        raw = Raw(served.path)
        raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)], "threshold": THRESHOLD})
        for name, deleter in sorted(DELETERS.items()):
            folder = sandbox.work / name
            folder.mkdir()
            for n in range(60):
                (folder / f"f{n:02}").write_text("x")
            command = ESCAPE.format(moved=sandbox.root / "moved") + deleter
            data = {"command": command, "shell": "bash", "cwd": str(folder), "turn": name}
            process_id = raw.ok(name, "RunExecutable", data)["processId"]
            result = raw.exit_of(process_id)
            left = sorted(os.listdir(folder))
            # rm refuses its 60 operands at once; the runtimes, one by one, stop at 50.
            assert len(left) == (60 if name == "rm" else 60 - THRESHOLD), result["stderr"]
            assert len(result["trashed"]) == 60 - len(left), result
            assert result["guard"]["type"] == "confirmRequired", result
            [asked] = [e for e in raw.of(process_id) if e["command"] == "GuardRequest"]
            assert asked["data"]["turn"] == name
            events = [e for e in sandbox.report() if e.get("turn") == name]
            assert {e["run"] for e in events} == {result["runId"]}
        # Nothing reached the state dir or the trash the commands named for themselves.
        assert not (sandbox.root / "moved" / "state").exists()
    finally:
        assert served.stop() == 0


def _pointers():
    """{name: pointer} in every place that opens."""
    found = {}
    for root, parts in runpointer.places():
        try:
            folder = runpointer.open_place(root, parts, create=False)
        except OSError:
            continue
        with folder:
            for name in folder.listdir():
                try:
                    with open(os.path.join(folder.path, name), "rb") as handle:
                        found[name] = json.loads(handle.read())
                except (OSError, ValueError):
                    continue
    return found


@pytest.mark.parametrize("net", ["on", "off"])
def test_the_pointer_is_the_roots_own_while_the_run_lasts(sandbox, net):
    if net == "off":
        _net_off(sandbox)
    served = Served(sandbox)
    try:
        raw = Raw(served.path)
        raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
        # The pointer is not the command's: its folders are not among its descriptors.
        show = 'for fd in /proc/$$/fd/*; do readlink "$fd"; done; echo listed; exec cat'
        argv = ["sh", "-c", show]
        data = {"argv": argv, "cwd": str(sandbox.work), "turn": "T", "toolCall": "c1"}
        started = raw.ok("r", "RunExecutable", data)
        key = runpointer.pid_key(started["pid"])
        pointer = _pointers()[key]
        assert pointer["run"] == started["runId"]
        assert (pointer["session"], pointer["turn"], pointer["toolCall"]) == ("S", "T", "c1")
        assert pointer["stateDir"] == str(sandbox.state)
        raw.ok("w", "ProcessWrite", {"processId": started["processId"], "eof": True})
        result = raw.exit_of(started["processId"])
        assert result["exitCode"] == 0 and "listed" in result["stdout"], result
        # The guard keeper's publication is handed down on purpose (fd 1000); the
        # pointer folders are not.
        shown = result["stdout"].replace("/memfd:safedel-keeper (deleted)", "")
        assert "by-pid" not in shown and "safedel-" not in shown
        assert key not in _pointers()  # removed when the run ended
    finally:
        assert served.stop() == 0


SHOW = (
    "from safedel.core.contract import runpointer; import json; "
    "print(json.dumps(runpointer.enclosing()))"
)


@pytest.mark.parametrize("how", ["fork server", "direct fork"])
@pytest.mark.parametrize("net", ["on", "off"])
def test_the_child_leaves_the_pointer_before_its_exec(how, net):
    """Both ways a served run starts: the child writes the pointer, and the command
    (here the root process itself, with an empty environment) finds it."""
    if net == "on" and not kernel_supports()[0]:
        pytest.fail("the net is wanted here: " + kernel_supports()[1])
    machine = os.uname().machine
    filtered = install.Installer(machine) if net == "on" else None
    pointer = pointers.Pointer({"run": "r-pointertest0", "session": "P", "turn": "t"})
    installer = pointers.Installer(pointer, filtered)
    out_r, out_w = os.pipe()
    actions = [(os.POSIX_SPAWN_DUP2, out_w, 1)]
    argv = [sys.executable, "-c", SHOW]
    env = {"PYTHONPATH": os.path.dirname(os.path.dirname(pointers.__file__))}
    forks = forking.ForkServer()
    try:
        if how == "fork server":
            forks.warm()
            assert _wait(lambda: forks._sock is not None)
            spawn = forks.spawn
        else:
            spawn = direct.spawn
        child = spawn(installer, argv[0], argv, env, (), actions, True)
        os.close(out_w)
        pointer.started(child.pid)
        assert (child.listener is not None) == (net == "on")
        if child.listener is not None:
            os.close(child.listener)  # nothing here deletes: no supervisor needed
        with os.fdopen(out_r, "rb") as handle:
            shown = json.loads(handle.read())
        os.waitpid(child.pid, 0)
        forks.exec_failure(child.pid)
    finally:
        forks.close()
    assert shown == {"run": "r-pointertest0", "session": "P", "turn": "t"}
    assert pointer.key in _pointers()
    pointer.remove()
    assert pointer.key not in _pointers()


def test_a_root_reaped_early_still_has_its_pointer_removed():
    pointer = pointers.Pointer({"run": "r-pointertest1"})
    # Written as a root would, under a name the server never learnt (pid gone).
    name = "999999999-1"
    for fd in pointer.fds:
        written = os.open(name, os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd)
        os.write(written, jsonl.dumps({"run": "r-pointertest1"}).encode())
        os.close(written)
    pointer.remove()
    assert name not in _pointers()


def _wait(predicate, seconds=30):
    import time

    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_the_next_server_removes_the_pointers_of_a_server_killed_mid_run(sandbox):
    served = Served(sandbox)
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    started = raw.ok("r", "RunExecutable", {"argv": ["cat"], "cwd": str(sandbox.work)})
    key = runpointer.pid_key(started["pid"])
    assert _pointers()[key]["run"] == started["runId"]
    served.proc.kill()
    served.proc.wait()
    served.proc.stderr.close()
    raw.close()
    successor = Served(sandbox)  # ends the dead server's runs, and forgets their pointers
    try:
        Raw(successor.path).ok("p", "Ping")  # it serves: its start is over
        assert key not in _pointers()
    finally:
        assert successor.stop() == 0


@pytest.mark.parametrize("deleter", ["rm", "node"])
def test_an_orphan_of_a_served_run_is_still_under_its_guard(sandbox, deleter):
    """An orphan inside the run is adopted by the run's root, which carries the
    pointer (and its session's leader is that root too)."""
    served = Served(sandbox)
    try:
        raw = Raw(served.path)
        raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)], "threshold": THRESHOLD})
        for n in range(60):
            (sandbox.work / f"f{n:02}").write_text("x")
        inner = ESCAPE.format(moved=sandbox.root / "moved") + DELETERS[deleter]
        # The middle subshell exits at once; the innermost one waits for its parent to
        # be gone (it is adopted), then deletes.
        waits = "me=$BASHPID; while [ $(ps -o ppid= -p $me) -eq $mid ]; do sleep 0.01; done"
        command = f"( mid=$BASHPID; ( {waits}; {inner}; echo ORPHAN-DONE $? ) & ); sleep 60"
        data = {"command": command, "shell": "bash", "cwd": str(sandbox.work), "turn": "T"}
        process_id = raw.ok("r", "RunExecutable", data)["processId"]
        raw.output_of(process_id, "ORPHAN-DONE")
        raw.ok("k", "ProcessKill", {"processId": process_id})
        result = raw.exit_of(process_id)
        left = os.listdir(sandbox.work)
        assert len(left) == (60 if deleter == "rm" else 60 - THRESHOLD), result
        assert any(e["command"] == "GuardRequest" for e in raw.of(process_id)), result
    finally:
        assert served.stop() == 0


def test_a_process_that_leaves_for_a_session_of_its_own_stays_under_its_runs_guard(sandbox):
    """`setsid -f` forks, and the child makes a session of its own while its parent
    exits: the run's root adopts it (a subreaper), so its chain still reaches the
    pointer."""
    served = Served(sandbox)
    try:
        raw = Raw(served.path)
        raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)], "threshold": THRESHOLD})
        for n in range(60):
            (sandbox.work / f"f{n:02}").write_text("x")
        inner = (
            ESCAPE.format(moved=sandbox.root / "moved") + "sh -c 'rm -f f*; echo SETSID-DONE $?'"
        )
        command = f"setsid -f {inner}; sleep 60"
        data = {"command": command, "shell": "bash", "cwd": str(sandbox.work), "turn": "T"}
        process_id = raw.ok("r", "RunExecutable", data)["processId"]
        raw.output_of(process_id, "SETSID-DONE")
        raw.ok("k", "ProcessKill", {"processId": process_id})
        result = raw.exit_of(process_id)
        assert len(os.listdir(sandbox.work)) == 60, result
        assert any(e["command"] == "GuardRequest" for e in raw.of(process_id)), result
    finally:
        assert served.stop() == 0
