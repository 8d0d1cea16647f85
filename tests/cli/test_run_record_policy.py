"""A command under `safedel run` cannot change its run's deletion policy through its own
environment: the workspace roots, the exempt roots, the outside-workspace choice and the
trash are fixed in the run's record (core/contract/runrecord.py), and every deleter under the run
(the rm launcher, the Python and Node shims, and the net for what no shim sees) takes
them from there, with the net on and off."""

import json
import os
import re
import shlex
import subprocess
import sys

import pytest
from conftest import IN_CI, require
from resultschema import valid_result
from trashlisting import listings

from safedel.core.contract import caches
from safedel.core.report import markers
from safedel.net import kernel_supports

# Each tried on its own file inside the workspace: the file must reach the run's trash.
INSIDE = {
    "exempt-all": "env SAFEDEL_WORKSPACE_ROOTS= SAFEDEL_EXEMPT=/",
    "trash-dir": 'env SAFEDEL_TRASH_DIR="$TMPDIR/t"',
    "data-home": 'env XDG_DATA_HOME="$TMPDIR/x"',
    "home": 'env -u XDG_DATA_HOME HOME="$TMPDIR/h"',
}
# Each tried on its own file outside every workspace root: the run asks (refuses with the
# marker), and the file stays.
OUTSIDE = {
    "roots-slash": "env SAFEDEL_WORKSPACE_ROOTS=/",
    "roots-empty": "env SAFEDEL_WORKSPACE_ROOTS=",
    "allow": "env SAFEDEL_OUTSIDE_WORKSPACE=allow",
    "exempt-all": "env SAFEDEL_EXEMPT=/",
}
DELETERS = {
    "rm": "rm -rf {path}",
    "python": "python3 -c 'import os, sys; os.remove(sys.argv[1])' {path}",
    "node": "node -e 'require(\"fs\").rmSync(process.argv[1])' {path}",
    # No shim sees these: the net does.
    "busybox": "busybox rm -rf {path}",
    "usr-bin-rm": "/usr/bin/rm -rf {path}",
}
NET_ONLY = ("busybox", "usr-bin-rm")
CASES = [(d, net) for d in DELETERS for net in ("off", "on") if net == "on" or d not in NET_ONLY]
# Where the overrides would have sent the trash, emptied for real afterwards (exempt).
DECOYS = ("t", "x", "h")


def require_net():
    ok, why = kernel_supports()
    if not ok:
        if IN_CI:
            pytest.fail(f"the net is required under CI=true: {why}")
        pytest.skip(why)


def run(sandbox, script, net, run_options=()):
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, "--json", *run_options]
    argv += ["--net", "off"] if net == "off" else []
    argv += ["--", "bash", "-c", script]
    env = sandbox.base_env(PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    done = subprocess.run(argv, env=env, cwd=sandbox.work, capture_output=True, timeout=300)
    return valid_result(done.stdout.decode())


def outside_targets(stderr):
    """Every target of every outside-workspace marker in stderr (not only the last)."""
    prefix = f"[safe-delete][{markers.OUTSIDE_WORKSPACE}] "
    found = []
    for line in stderr.splitlines():
        if line.startswith(prefix):
            found += json.loads(line[len(prefix) :])["targets"]
    return found


def trash_listed(sandbox):
    """The original paths trash-list shows under the sandbox, checked against ours."""
    listed = listings(str(sandbox.root), env=sandbox.base_env())
    assert listed["trash_list"] == listed["safedel"], listed
    return {path for _, path in listed["trash_list"]}


def prepare(sandbox, deleter):
    for tool in ("trash-list", "node", "busybox") if deleter != "usr-bin-rm" else ("trash-list",):
        require(tool)
    inside = {name: sandbox.work / f"in-{name}" for name in INSIDE}
    outside = {name: sandbox.root / "outside" / f"out-{name}" for name in OUTSIDE}
    (sandbox.root / "outside").mkdir()
    for path in (*inside.values(), *outside.values()):
        path.write_text("keep me")
    return inside, outside


def script_for(deleter, inside, outside):
    lines = []
    for overrides, paths in ((INSIDE, inside), (OUTSIDE, outside)):
        for name, override in overrides.items():
            command = DELETERS[deleter].format(path=shlex.quote(str(paths[name])))
            lines.append(f"{override} {command}; echo {name}=$? >&2")
    # What a command would do next to destroy what it sent to a trash of its own.
    lines.append(" ".join(["rm -rf", *(f'"$TMPDIR/{d}"' for d in DECOYS)]))
    return "\n".join(lines)


@pytest.mark.parametrize(("deleter", "net"), CASES)
def test_environment_overrides_change_no_policy(sandbox, deleter, net):
    if net == "on":
        require_net()
    inside, outside = prepare(sandbox, deleter)
    result = run(sandbox, script_for(deleter, inside, outside), net)
    stderr = result["stderr"]
    listed = trash_listed(sandbox)
    for name, path in inside.items():
        assert not path.exists(), (name, stderr)
        assert str(path) in listed, (name, listed, stderr)
    trashed = [e for e in sandbox.report() if e["operation"] == "trash"]
    assert {e["path"] for e in trashed} == {str(p) for p in inside.values()}, stderr
    assert all(e["trashPath"].startswith(str(sandbox.trash)) for e in trashed), trashed
    asked = outside_targets(stderr)
    for name, path in outside.items():
        assert path.read_text() == "keep me", (name, stderr)
        assert str(path) in asked, (name, stderr)
        assert re.search(rf"^{name}=[1-9]", stderr, re.M), (name, stderr)
    for decoy in DECOYS:
        assert not (sandbox.tmpdir / decoy).exists(), stderr


def record_of(sandbox, run_id):
    return json.loads((sandbox.state / "runs" / run_id / "run.json").read_text())


@pytest.mark.parametrize("net", ["off", "on"])
def test_a_nested_run_keeps_the_enclosing_runs_policy(sandbox, net):
    if net == "on":
        require_net()
    require("node")
    (sandbox.root / "outside").mkdir()
    wide = sandbox.root / "outside" / "wide"
    wide.write_text("keep me")
    mine = sandbox.work / "mine"
    mine.write_text("x")
    # The nested run asks for the outside folder as its workspace, every deletion outside
    # allowed, everything exempt and a trash of its own in the temp dir.
    nested = [sys.executable, "-m", "safedel", "run", "--workspace", str(wide.parent)]
    nested += ["--outside-workspace", "allow", "--trash-dir", str(sandbox.tmpdir / "t")]
    script = f"SAFEDEL_EXEMPT=/ {shlex.join(nested)} -- bash -c " + shlex.quote(
        f"rm -f {shlex.quote(str(wide))}; node -e "
        f"'require(\"fs\").rmSync(process.argv[1])' {shlex.quote(str(wide))}; "
        f'rm mine; echo "$SAFEDEL_RUN_ID" > "$TMPDIR/nested-id"'
    )
    result = run(sandbox, script, net)
    assert wide.read_text() == "keep me", result["stderr"]
    assert outside_targets(result["stderr"]).count(str(wide)) == 2, result["stderr"]
    assert str(mine) in trash_listed(sandbox) and not mine.exists()
    assert not (sandbox.tmpdir / "t").exists()
    inner = record_of(sandbox, (sandbox.tmpdir / "nested-id").read_text().strip())
    outer = record_of(sandbox, result["runId"])
    policy = ("workspaceRoots", "exempt", "outsideWorkspace", "trashDir", "homeTrash")
    assert [inner[k] for k in policy] == [outer[k] for k in policy]
    assert outer["workspaceRoots"] == [os.path.realpath(sandbox.work)]
    assert outer["outsideWorkspace"] == "confirm" and outer["trashDir"] is None
    assert outer["homeTrash"] == str(sandbox.trash)


def test_the_run_s_own_choices_are_what_the_record_fixes(sandbox):
    # --outside-workspace allow and --trash-dir of the run itself still hold: only the
    # command's environment is ignored.
    trash_dir = sandbox.root / "mytrash"
    (sandbox.root / "outside").mkdir()
    far = sandbox.root / "outside" / "far"
    far.write_text("x")
    options = ["--outside-workspace", "allow", "--trash-dir", str(trash_dir)]
    script = f"SAFEDEL_OUTSIDE_WORKSPACE=confirm rm {shlex.quote(str(far))}"
    result = run(sandbox, script, "off", options)
    assert result["exitCode"] == 0, result["stderr"]
    assert not far.exists() and os.listdir(trash_dir / "files") == ["far"]
    record = record_of(sandbox, result["runId"])
    assert record["outsideWorkspace"] == "allow" and record["trashDir"] == str(trash_dir)


OLD_RECORD_ENV = {
    # Handed down whole by the run (SAFEDEL_EXEMPT_IDS beside it), not a person's own
    # SAFEDEL_EXEMPT, which would add to the temp dir.
    "SAFEDEL_EXEMPT": "/e",
    "SAFEDEL_EXEMPT_IDS": "",
    "SAFEDEL_WORKSPACE_ROOTS": "/w",
    "SAFEDEL_OUTSIDE_WORKSPACE": "allow",
    "SAFEDEL_TRASH_DIR": "/t",
}


def older_record(sandbox):
    """The id of a record written before the policy was fixed in it (a run of an older
    safedel still going during an upgrade)."""
    run_id = "r-0123456789ab"
    folder = sandbox.state / "runs" / run_id
    folder.mkdir(parents=True, mode=0o700)
    (folder / "run.json").write_text(json.dumps({"session": "S", "turn": "T", "threshold": 7}))
    os.chmod(folder / "run.json", 0o600)
    return run_id


def test_an_older_record_without_policy_leaves_it_to_the_environment(sandbox):
    # Its processes read their environment for the policy, as they did then.
    env = sandbox.base_env(SAFEDEL_RUN_ID=older_record(sandbox), **OLD_RECORD_ENV)
    code = (
        "from safedel.core.contract import settings; s = settings.load(); "
        "print(s.turn, s.threshold, s.exempt, s.workspace_roots, s.outside_workspace, "
        "s.trash_dir, s.home_trash)"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    exempt = str(("/e", *caches.kernel_ipc())).replace(" ", "")  # the IPC dir joins
    assert done.stdout.replace(", ", ",").split() == [
        "T",
        "7",
        exempt,
        "/w",
        "allow",
        "/t",
        "None",
    ], done


def test_the_node_shim_reads_an_older_record_the_same_way(sandbox):
    env = sandbox.base_env(SAFEDEL_RUN_ID=older_record(sandbox), **OLD_RECORD_ENV)
    code = (
        "const node = process.argv[1]; "
        "const s = require(node + '/settings.cjs').load(process.env); "
        "const roots = require(node + '/workspace.cjs').roots(process.env, s); "
        "console.log([s.turn, s.threshold, s.exempt.join(), roots.join(), "
        "s.outsideWorkspace, s.trashDir, String(s.homeTrash)].join(' '))"
    )
    argv = [require("node"), "-e", code, os.path.join(sandbox.shim_home, "node")]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    exempt = ",".join(("/e", *caches.kernel_ipc()))
    assert done.stdout.split() == ["T", "7", exempt, "/w", "allow", "/t", "null"], done
