"""Faithful: CPython's own rmtree, unlink and rmdir tests pass the same with the shim.

Each interpreter runs the same selection twice, bare and shimmed, and the two pass lists
are compared. The shimmed run must really be shimmed: the tests write under $TMPDIR,
which is exempt by default, so the exempt list is emptied there (and the threshold
raised, so the guard grants everything), and the run must leave items in the trash.
"""

import subprocess
import xml.etree.ElementTree as ET

import pytest
from conftest import IN_CI, require
from test_python_shim_common import ALL_PYTHONS, trashed_paths

SELECTION = ["test_shutil", "test_os", "test_pathlib"]
FILTERS = ["*RmTree*", "RemoveDirsTests", "*unlink*", "*rmdir*", "*remove*"]

# White-box tests of rmtree's walk, which a trash replaces by one rename by design:
# one asserts that rmtree calls the private shutil._rmtree_safe_fd, the other (3.12+)
# that it closes, through os.close, each directory it opened while walking.
# test_rmtree_uses_safe_fd_version_if_available's own first checks (shutil picks the
# fd-based rmtree, avoids_symlink_attacks is True) hold under the shim: the contract
# test asserts them.
WALK_INTERNALS = {"test_rmtree_uses_safe_fd_version_if_available", "test_rmtree_fails_on_close"}


def has_test_suite(python):
    done = subprocess.run(
        [python, "-c", "import test.support, test.test_shutil"], capture_output=True, timeout=60
    )
    return done.returncode == 0


def require_test_suite(python):
    """python's path, once it is known to have Lib/test (a skip, or a failure in CI)."""
    python = require(python)
    if not has_test_suite(python):
        message = f"{python} has no Lib/test (Debian: libpython3.11-testsuite)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return python


def run_selection(sandbox, python, env, tag):
    """{test id: outcome} for CPython's tests, from regrtest's JUnit XML."""
    report = sandbox.root / f"junit-{tag}.xml"
    argv = [python, "-m", "test", *SELECTION, "--junit-xml", str(report)]
    for pattern in FILTERS:
        argv += ["-m", pattern]
    done = subprocess.run(
        argv, cwd=sandbox.work, env=env, capture_output=True, text=True, timeout=600
    )
    assert report.exists(), f"{tag}: no JUnit report\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    outcomes = {}
    for case in ET.parse(report).iter("testcase"):
        kinds = {child.tag for child in case} & {"failure", "error", "skipped"}
        outcomes[case.get("name")] = kinds.pop() if kinds else "passed"
    return outcomes, done


@ALL_PYTHONS
def test_cpython_own_tests_pass_the_same_with_the_shim(sandbox, python):
    python = require_test_suite(python)
    bare, _ = run_selection(sandbox, python, sandbox.base_env(), "bare")
    env = sandbox.shim_env(threshold=99999, SAFEDEL_EXEMPT="")
    env["SAFEDEL_OUTSIDE_WORKSPACE"] = "allow"  # the tests write all over $TMPDIR
    shimmed, done = run_selection(sandbox, python, env, "shimmed")
    passed_bare = {name for name, outcome in bare.items() if outcome == "passed"}
    passed_shimmed = {name for name, outcome in shimmed.items() if outcome == "passed"}
    print(f"{python}: {len(passed_bare)} pass bare, {len(passed_shimmed)} shimmed")
    assert len(passed_bare) >= 15 and set(bare) == set(shimmed)
    assert not passed_shimmed - passed_bare
    differences = {name.split(" ")[0].rsplit(".", 1)[-1] for name in passed_bare - passed_shimmed}
    assert differences <= WALK_INTERNALS, done.stdout[-4000:]
    # It really ran through the shim: the tests' deletions went to the trash.
    assert len(trashed_paths(sandbox)) >= 20
    assert sandbox.trashed_names()


@ALL_PYTHONS
def test_cpython_own_tests_pass_list_matches_exactly_as_shipped(sandbox, python):
    """As shipped, the temp dir CPython's tests work in is exempt: the shim is loaded and
    every patched function is the wrapper, and the pass lists must be identical."""
    python = require_test_suite(python)
    bare, _ = run_selection(sandbox, python, sandbox.base_env(), "bare")
    shimmed, done = run_selection(sandbox, python, sandbox.shim_env(), "shipped")
    passed_bare = {name for name, outcome in bare.items() if outcome == "passed"}
    passed_shimmed = {name for name, outcome in shimmed.items() if outcome == "passed"}
    assert len(passed_bare) >= 15
    assert passed_bare == passed_shimmed, done.stdout[-4000:]
