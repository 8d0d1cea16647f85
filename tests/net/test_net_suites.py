"""CPython's own rmtree, unlink and rmdir tests pass the same under the net alone.

The interpreter runs with -I, so the Python shim never loads and every deletion of
the tests is a system call the net answers; the exempt list is emptied (the tests
write under $TMPDIR) and the threshold raised, so each is really trashed.
"""

import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from conftest import IN_CI, require
from netkit import require_net

SELECTION = ["test_shutil", "test_os", "test_pathlib"]
FILTERS = ["*RmTree*", "RemoveDirsTests", "*unlink*", "*rmdir*", "*remove*"]


def _outcomes(sandbox, argv, tag):
    report = sandbox.root / f"junit-{tag}.xml"
    argv = [*argv, "-I", "-m", "test", *SELECTION, "--junit-xml", str(report)]
    for pattern in FILTERS:
        argv += ["-m", pattern]
    done = subprocess.run(
        argv, cwd=sandbox.work, env=sandbox.base_env(), capture_output=True, timeout=600
    )
    assert report.exists(), f"{tag}: no JUnit report\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    outcomes = {}
    for case in ET.parse(report).iter("testcase"):
        kinds = {child.tag for child in case} & {"failure", "error", "skipped"}
        outcomes[case.get("name")] = kinds.pop() if kinds else "passed"
    return outcomes


def test_cpython_rmtree_tests_pass_the_same_under_the_net(sandbox):
    require_net()
    python = require("/usr/bin/python3")
    probe = subprocess.run([python, "-c", "import test.test_shutil"], capture_output=True)
    if probe.returncode != 0:
        message = f"{python} has no Lib/test (Debian: libpython3.11-testsuite)"
        (pytest.fail if IN_CI else pytest.skip)(message)
    bare = _outcomes(sandbox, [python], "bare")
    run = [sys.executable, "-m", "safedel", "run", "-q", "--no-exempt", "--threshold", "99999"]
    netted = _outcomes(sandbox, [*run, "--", python], "net")
    passed_bare = {name for name, outcome in bare.items() if outcome == "passed"}
    passed_net = {name for name, outcome in netted.items() if outcome == "passed"}
    assert len(passed_bare) >= 15 and set(bare) == set(netted)
    assert passed_net == passed_bare
    events = [e for e in sandbox.report() if e["operation"] == "trash"]
    assert len(events) >= 20 and {e["runtime"] for e in events} == {"net"}
