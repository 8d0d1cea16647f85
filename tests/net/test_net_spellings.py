"""Issue #29, case 9, under `safedel run` with the net: each spelling of `/bin/rm` that a
bootstrapped shell lets through (tests/shells/test_bootstrap_spellings.py) is trashed,
and `safedel restore` gives every file back byte for byte. Without the net they delete
for real, as docs/coverage.md's table says. As the user in bash, zsh and dash, and as
uid 65534 in a directory others share."""

import os
import pathlib

import pytest
from conftest import require
from netkit import as_nobody, nobody_package, nobody_scratch, require_net, restore_turn
from spellings import GAPS, content, plant, script


@pytest.mark.parametrize("shell", ["bash", "zsh", "dash"])
def test_the_net_trashes_every_spelling_and_restore_gives_it_back(sandbox, shell):
    require_net()
    require(shell)
    planted = plant(sandbox.work, GAPS, shell)
    done = sandbox.run(shell, "-c", script(GAPS, shell, planted))
    assert done.returncode == 0, done.stderr
    assert set(planted.values()) <= set(sandbox.trashed_names()), done.stderr
    for name in planted.values():
        assert not (sandbox.work / name).exists(), name
    events = [e for e in sandbox.report() if e["operation"] == "trash"]
    assert {e["runtime"] for e in events} == {"net"}, events
    restored = restore_turn(sandbox)
    assert restored.returncode == 0, restored.stderr
    for spelling_id, name in planted.items():
        assert (sandbox.work / name).read_bytes() == content(spelling_id), spelling_id


def test_without_the_net_every_spelling_deletes_for_real(sandbox):
    """`--net off` (and macOS, Windows, containers without seccomp): the same gap as in
    a bootstrapped shell, and the reason the coverage table's net column says yes."""
    planted = plant(sandbox.work, GAPS, "bash")
    done = sandbox.run("bash", "-c", script(GAPS, "bash", planted), run_options=["--net", "off"])
    assert done.returncode == 0, done.stderr
    assert [name for name in planted.values() if (sandbox.work / name).exists()] == []
    assert sandbox.trashed_names() == []


def test_uid_65534_in_a_shared_directory_gets_every_spelling_trashed():
    require_net()
    with nobody_scratch("safedel-net-spellings-") as scratch:
        nobody_package(os.path.join(scratch, "package"))
        work = os.path.join(scratch, "work")
        os.makedirs(work)
        os.chown(work, 65534, 65534)
        planted = plant(pathlib.Path(work), GAPS, "dash")
        for name in planted.values():
            os.chown(os.path.join(work, name), 65534, 65534)
        status, stderr = as_nobody(scratch, "work", script(GAPS, "dash", planted), netted=True)
        assert status == 0, stderr
        trash = os.path.join(scratch, "home", ".local", "share", "Trash", "files")
        for spelling_id, name in planted.items():
            assert not os.path.exists(os.path.join(work, name)), spelling_id
            with open(os.path.join(trash, name), "rb") as handle:
                assert handle.read() == content(spelling_id), spelling_id
