"""A command under `safedel run` cannot widen its run's policy by rewriting the run's
files: its record (runs/<id>/run.json), its pointers (by-pid/<pid>-<start>), or a
pointer it plants for itself. Every deleter under the run takes its values from the
record the run's keeper holds (core/contract/keptrecord.py, shims/node/keptrecord.cjs):
a file that differs fails each deletion closed, the target stays, and the marker names
the file. The net judges with the keeper's values too. The attack is
tests/recordattack.py, run by the command itself."""

import json
import os
import shlex
import subprocess
import sys

import pytest
from conftest import IN_CI, require

from safedel.core.report import markers
from safedel.net import kernel_supports

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ATTACK = os.path.join(TESTS, "recordattack.py")
DELETERS = {
    "rm": "rm -rf {path}",
    "python": "python3 -c 'import os, sys; os.remove(sys.argv[1])' {path}",
    "node": "node -e 'require(\"fs\").rmSync(process.argv[1])' {path}",
}
PREFIX = f"[safe-delete][{markers.FAIL_CLOSED}] "


def require_net():
    ok, why = kernel_supports()
    if not ok:
        if IN_CI:
            pytest.fail(f"the net is required under CI=true: {why}")
        pytest.skip(why)


def run(sandbox, script, net="on"):
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, "--json", "--net", net, "--", "bash", "-c", script]
    env = sandbox.base_env(PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    done = subprocess.run(argv, env=env, cwd=sandbox.work, capture_output=True, timeout=300)
    return json.loads(done.stdout.decode())


def fail_closed(stderr):
    """{path: reason} of every fail-closed marker in stderr."""
    found = {}
    for line in stderr.splitlines():
        if line.startswith(PREFIX):
            payload = json.loads(line[len(PREFIX) :])
            found[payload["path"]] = payload["reason"]
    return found


def attack(mode, folder=""):
    return f"python3 {shlex.quote(ATTACK)} {mode} {shlex.quote(str(folder))}".rstrip()


@pytest.mark.parametrize("net", ["on", "off"])
@pytest.mark.parametrize("deleter", sorted(DELETERS))
@pytest.mark.parametrize("mode", ["widen", "plant"])
def test_a_rewritten_or_planted_pointer_widens_nothing(sandbox, mode, deleter, net):
    if net == "on":
        require_net()
    require("node")
    outside = sandbox.root / "outside" / "far"
    outside.parent.mkdir()
    outside.write_text("keep me")
    command = DELETERS[deleter].format(path=shlex.quote(str(outside)))
    result = run(sandbox, f"{attack(mode)} && {command}", net)
    stderr = result["stderr"]
    assert outside.read_text() == "keep me", stderr
    reason = fail_closed(stderr).get(str(outside), "")
    assert "by-pid/" in reason and "differs from the run's record" in reason, stderr
    assert result["exitCode"] != 0, stderr


@pytest.mark.parametrize("deleter", sorted(DELETERS))
def test_a_workspace_folder_named_exempt_is_not_deleted_for_real(sandbox, deleter):
    require("node")
    folder = sandbox.work / "project"
    folder.mkdir()
    target = folder / "data"
    target.write_text("keep me")
    command = DELETERS[deleter].format(path=shlex.quote(str(target)))
    result = run(sandbox, f"{attack('exempt', folder)} && {command}", "off")
    assert target.read_text() == "keep me", result["stderr"]
    assert "differs from the run's record" in fail_closed(result["stderr"]).get(str(target), "")


def test_a_trash_moved_into_the_temp_dir_takes_nothing(sandbox):
    decoy = sandbox.tmpdir / "decoy"
    decoy.mkdir()
    target = sandbox.work / "data"
    target.write_text("keep me")
    script = f"{attack('trash', decoy)} && rm {shlex.quote(str(target))}"
    result = run(sandbox, script, "off")
    assert target.read_text() == "keep me", result["stderr"]
    assert os.listdir(decoy) == []
    assert str(target) in fail_closed(result["stderr"])


def test_the_net_judges_with_the_keepers_record(sandbox):
    # busybox and /usr/bin/rm bypass every shim: the net asks about them with the
    # values the keeper holds, whatever the command wrote into the record.
    require_net()
    require("busybox")
    outside = sandbox.root / "outside" / "far"
    outside.parent.mkdir()
    outside.write_text("keep me")
    script = f"{attack('widen')} && busybox rm -f {shlex.quote(str(outside))}"
    result = run(sandbox, script)
    assert outside.read_text() == "keep me", result["stderr"]
    assert f"[safe-delete][{markers.OUTSIDE_WORKSPACE}] " in result["stderr"]


def test_a_nested_run_under_a_rewritten_record_deletes_nothing(sandbox):
    # The nested run takes its values from the enclosing keeper, and a nested pointer
    # that says otherwise fails closed below it too.
    outside = sandbox.root / "outside" / "far"
    outside.parent.mkdir()
    outside.write_text("keep me")
    nested = f"{shlex.quote(sys.executable)} -m safedel run -- rm -f {shlex.quote(str(outside))}"
    result = run(sandbox, f"{attack('widen')} && {nested}", "off")
    assert outside.read_text() == "keep me", result["stderr"]
    assert str(outside) in fail_closed(result["stderr"]), result["stderr"]


def test_untouched_files_change_nothing(sandbox):
    # The check costs a well-behaved run nothing: inside the workspace it trashes.
    mine = sandbox.work / "mine"
    mine.write_text("x")
    result = run(sandbox, "rm mine && python3 -c 'print(1)'", "off")
    assert result["exitCode"] == 0, result["stderr"]
    assert not mine.exists() and not fail_closed(result["stderr"])


@pytest.mark.parametrize("net", ["on", "off"])
@pytest.mark.parametrize("deleter", sorted(DELETERS))
def test_a_pid_namespace_of_its_own_still_finds_the_keeper(sandbox, net, deleter):
    """`unshare -p -f` makes the deleter pid 1 of a namespace of its own, with
    SAFEDEL_RUN_ID gone and a threshold of its own: /proc is still the run's, so it
    walks up to the keeper from the pid /proc knows it by, and 60 older files are
    refused at the run's threshold."""
    if net == "on":
        require_net()
    unshare = require("unshare")
    if os.getuid() != 0:
        message = "a pid namespace needs root (or a user namespace) here"
        pytest.fail(message) if IN_CI else pytest.skip(message)
    folder = sandbox.work / "src"
    folder.mkdir()
    for index in range(60):
        (folder / f"f{index}").write_text(str(index))
    each = DELETERS[deleter].format(path="$f")
    inner = f"for f in {folder}/f*; do {each} || exit 3; done"
    script = (
        f"{unshare} -p -f env -u SAFEDEL_RUN_ID SAFEDEL_THRESHOLD=99999 sh -c {shlex.quote(inner)}"
    )
    result = run(sandbox, script, net=net)
    assert result["exitCode"] == 3, result["stderr"]
    assert len(os.listdir(folder)) == 10, result["stderr"]  # the run's 50, then refused
