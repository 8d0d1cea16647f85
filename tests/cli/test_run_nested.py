"""A `safedel run` inside another run (issue #30, case 5): its own bookkeeping (its run
pointers, the pruning of old runs) is never judged by the enclosing run's guard, and
its refusal is the enclosing run's question: the harness of the outer capture run
sees confirmRequired, not an outside-the-workspace refusal of the inner run's clean-up.
The command is what a model would type: `safedel run -- rm f*` inside its tool call.
"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest
from conftest import IN_CI, as_a_person, last_markers, require
from resultschema import valid_result
from robustness import fuzzcase

from safedel.core.contract import runpointer

FILES = 60
NOBODY = 65534
# Its own session, turn and threshold: none of them counts inside a run.
NESTED = f"{sys.executable} -m safedel run --session S2 --turn T2 --threshold 99999 -- rm f*"


def make_files(sandbox):
    for n in range(FILES):
        (sandbox.work / f"f{n}").write_text(f"content {n}\n")
    return {f"f{n}": f"content {n}\n" for n in range(FILES)}


def outer(sandbox, script, net="on"):
    """The harness's run: capture mode, the result on stdout."""
    argv = [sys.executable, "-m", "safedel", "run", "--session", "S", "--turn", "T"]
    argv += ["--net", net, "--json", "--", "sh", "-c", script]
    done = subprocess.run(
        argv, env=sandbox.base_env(), cwd=sandbox.work, capture_output=True, timeout=300
    )
    result = valid_result(done.stdout.decode())
    assert done.returncode == result["exitCode"], done.stderr
    return result


def contents(folder):
    return {p.name: p.read_text() for p in folder.iterdir()}


def pointers_of(pid):
    """The pointer files named after pid in every place (core/contract/runpointer.py)."""
    found = []
    for root, parts in runpointer.places():
        found += glob.glob(os.path.join(root, *parts, f"{pid}-*"))
    return found


@pytest.mark.parametrize("net", ["on", "off"])
def test_the_outer_harness_sees_the_nested_run_s_refusal(sandbox, net):
    before = make_files(sandbox)
    # The inner run is the shell itself (exec), so its pid is known: $$.
    result = outer(sandbox, f"echo inner=$$; exec {NESTED}", net)
    inner_pid = int(result["stdout"].split("inner=")[1].split()[0])

    assert result["exitCode"] == 1  # rm's, refused
    assert result["guard"]["type"] == "confirmRequired", result["guard"]
    assert result["guard"]["payload"]["targetCount"] == FILES
    markers = last_markers(result["stderr"])
    assert "SAFE_DELETE_OUTSIDE_WORKSPACE" not in markers, result["stderr"]
    assert "SAFE_DELETE_FAIL_CLOSED" not in markers, result["stderr"]
    refused = [e["path"] for e in sandbox.report() if e["operation"] == "refuse"]
    assert len(refused) == FILES and all(os.path.dirname(p) == str(sandbox.work) for p in refused)
    assert pointers_of(inner_pid) == []  # the inner run removed its own pointers
    assert contents(sandbox.work) == before

    # The user approves the outer turn through the harness; the same command again
    # then moves all of it to the trash, byte for byte.
    approve = [sys.executable, "-m", "safedel", "guard", "approve", "--session", "S"]
    done = as_a_person(
        [*approve, "--turn", "T"], env=sandbox.base_env(), capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    result = outer(sandbox, NESTED, net)
    assert result["exitCode"] == 0 and result["guard"] is None, result
    assert contents(sandbox.work) == {}
    trashed = {p.name: p.read_text() for p in (sandbox.trash / "files").iterdir()}
    assert trashed == before


def test_a_nested_run_leaves_the_pruning_of_old_runs_to_a_run_at_the_top(sandbox):
    """Pruning deletes in the state directory, which the enclosing run's net refuses
    to its commands; a nested run does not try, so no refusal of it reaches the harness.
    The command makes the prune due (an old stamp, an old run) after the outer run's
    own pruning at its start."""
    make_files(sandbox)
    runs = sandbox.state / "runs"
    old = time.time() - 10 * 86400
    script = (
        f"mkdir -p {runs}/r-000000000000 && : > {runs}/r-000000000000/run.json"
        f" && touch -d @{int(old)} {runs}/r-000000000000 {runs}/.pruned"
        f" && {sys.executable} -m safedel run -- rm f0 && echo nested-ok"
    )
    result = outer(sandbox, script)
    assert "nested-ok" in result["stdout"], result
    assert result["guard"] is None, result
    assert "SAFE_DELETE_FAIL_CLOSED" not in last_markers(result["stderr"]), result["stderr"]
    assert (runs / "r-000000000000" / "run.json").exists()
    assert not (sandbox.work / "f0").exists()
    assert (sandbox.trash / "files" / "f0").read_text() == "content 0\n"
    assert [e for e in sandbox.report() if e["operation"] == "refuse"] == []


def test_as_another_user_in_a_shared_directory(tmp_path):
    """The same as uid 65534, in a directory every user can reach: the nested run (by
    the system's python3, which that user can run) hands its refusal to the outer run."""
    if os.geteuid() != 0:
        if IN_CI:
            pytest.fail("this test needs root under CI=true")
        pytest.skip("needs root to act as uid 65534")
    setpriv, python3 = require("setpriv"), require("/usr/bin/python3")
    scratch = tempfile.mkdtemp(prefix="safedel-nested-", dir="/var/tmp")
    os.chmod(scratch, 0o755)
    try:
        work = os.path.join(scratch, "work")
        for name in ("home", "work", "tmp"):
            os.mkdir(os.path.join(scratch, name))
        for n in range(FILES):
            with open(os.path.join(work, f"f{n}"), "w") as handle:
                handle.write(f"content {n}\n")
        env = fuzzcase.base_env(scratch)
        env["PYTHONPATH"] = fuzzcase.readable_package(os.path.join(scratch, "package"))
        for path, dirs, files in os.walk(scratch):
            for name in [path, *(os.path.join(path, n) for n in dirs + files)]:
                os.lchown(name, NOBODY, NOBODY)
        nested = f"{python3} -m safedel run --session S2 --turn T2 --threshold 99999 -- rm f*"
        argv = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
        argv += [sys.executable, "-m", "safedel", "run", "--session", "S", "--turn", "T"]
        argv += ["--json", "--", "sh", "-c", nested]
        done = subprocess.run(argv, cwd=work, env=env, capture_output=True, timeout=300)
        result = valid_result(done.stdout.decode())
        assert result["guard"]["type"] == "confirmRequired", (result, done.stderr)
        assert result["guard"]["payload"]["targetCount"] == FILES
        assert "SAFE_DELETE_OUTSIDE_WORKSPACE" not in last_markers(result["stderr"])
        assert sorted(os.listdir(work)) == sorted(f"f{n}" for n in range(FILES))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
