"""Short-lived churn (issue 31, case 4): a file born in the turn and removed seconds
later is deleted for real and never counted; a file older than the turn, or one that
lived longer than the limit, always reaches the trash."""

import os

import pytest
from conftest import require


@pytest.fixture(autouse=True)
def churn_on(sandbox):
    """This module is about short-lived churn: the rule's own limit applies."""
    sandbox.churn = "60"


MODES = {"net": (), "net-off": ("--net", "off")}
LOOP = (
    "for i in $(seq 80); do echo 'int main(void){return 0;}' > conftest$i.c; "
    "rm -f conftest$i.c; done; mkdir conftest.dir; rmdir conftest.dir; rm -f precious.txt"
)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_configure_churn_neither_counts_nor_fills_the_trash(sandbox, mode):
    """80 conftest files made and removed, then an older file: the older one is the
    turn's first counted deletion (threshold 1) and the only item in the trash."""
    (sandbox.work / "precious.txt").write_text("older than the turn")
    done = sandbox.run("sh", "-c", LOOP, run_options=("--threshold", "1", *MODES[mode]))
    assert done.returncode == 0, done.stderr.decode()
    assert [n for n in sandbox.trashed_names()] == ["precious.txt"]
    assert not [e for e in sandbox.report() if e.get("operation") == "refuse"]
    assert not list(sandbox.work.glob("conftest*"))


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_file_moved_into_a_churn_name_keeps_its_birth(sandbox, mode):
    """`mv precious conftest.c; rm conftest.c`: precious was born before the turn."""
    (sandbox.work / "precious").write_text("older than the turn")
    script = "mv precious conftest.c && rm -f conftest.c"
    done = sandbox.run("sh", "-c", script, run_options=MODES[mode])
    assert done.returncode == 0, done.stderr.decode()
    assert sandbox.trashed_names() == ["conftest.c"]


def test_python_and_node_shims_delete_churn_for_real(sandbox):
    node = require("node")
    python = require("python3")
    py = "import os\nfor i in range(70):\n open('p%d' % i, 'w').close(); os.remove('p%d' % i)"
    js = "const fs=require('fs');"
    js += "for(let i=0;i<70;i++){fs.writeFileSync('n'+i,'');fs.unlinkSync('n'+i)}"
    script = f'{python} -c "{py}" && {node} -e "{js}"'
    done = sandbox.run("sh", "-c", script, run_options=("--threshold", "1", "--net", "off"))
    assert done.returncode == 0, done.stderr.decode()
    assert sandbox.trashed_names() == []
    assert os.listdir(sandbox.work) == []


def test_a_directory_with_entries_is_never_churn(sandbox):
    script = "mkdir conftest.dir && echo x > conftest.dir/f && rm -rf conftest.dir"
    done = sandbox.run("sh", "-c", script, run_options=("--net", "off"))
    assert done.returncode == 0, done.stderr.decode()
    assert sandbox.trashed_names() == ["conftest.dir"]
