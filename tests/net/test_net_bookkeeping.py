"""safedel's own bookkeeping is known to the net by identity and content, never by name.

The net lets the kernel delete some of safedel's own files for real: a trash's info
files and caches, a run's own pointer. A command can give any file of its own those
names, anywhere: a `.Trash-<uid>` made in the workspace with info/*.trashinfo,
directorysizes and safedel-catalog.v1, a `by-pid/<pid>-<start time>` file named for the
very process that removes it. Each test deletes such look-alikes as an attacker would
(the real rm under dash, busybox, find -delete, a Python with a clean environment:
only the net sees them) and checks that every byte is in the trash and comes back, or
that the deletion was refused and the file is untouched; and that what safedel itself
deletes there (an info file whose item is gone, in a trash it uses; a nested run's own
pointer) still goes, with no marker.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest
from conftest import last_markers, require
from mountns import run_in_namespace
from netkit import (
    NOBODY,
    as_nobody,
    nobody_package,
    nobody_scratch,
    require_net,
    restore_turn,
    snapshot,
)

UID = os.getuid()
INFO = b"[Trash Info]\nPath=/nowhere/gone\nDeletionDate=2026-01-01T00:00:00\n"
LOOK_ALIKES = {
    f".Trash-{UID}/info/gone.trashinfo": INFO,
    f".Trash-{UID}/info/notes.trashinfo": b"my notes, whatever the name says\n",
    f".Trash-{UID}/info/empty.trashinfo": b"",
    f".Trash-{UID}/directorysizes": b"4096 1764440000 build\n",
    f".Trash-{UID}/directorysizes.77.tmp": b"1 2 x\n",
    f".Trash-{UID}/safedel-catalog.v1": b"safedel catalog 3\n\x00\x01 the user's bytes",
    f".Trash/{UID}/info/old.trashinfo": INFO,
    f".Trash/{UID}/directorysizes": b"12 34 y\n",
    f"deep/er/.Trash-{UID}/info/x.trashinfo": INFO,
    f"deep/er/.Trash-{UID}/safedel-catalog.v1": b"",
}
REMOVERS = {
    "launcher": "rm -rf {targets}",  # the shim on PATH: no exception by name there either
    "rm": "/bin/rm -rf {targets}",
    "busybox": "busybox rm -rf {targets}",
    "find": "/usr/bin/find {targets} -delete",
    "python": "python3 -I -c 'import shutil, sys; [shutil.rmtree(p) for p in sys.argv[1:]]' "
    "{targets}",
}


def plant(root, files):
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    for directory in {p for r in files for p in (root / r).parents if root in p.parents}:
        os.chmod(directory, 0o700)  # as private as a real trash: trust alone proves nothing


@pytest.mark.parametrize("remover", sorted(REMOVERS))
def test_a_trash_made_by_the_user_in_the_workspace_goes_to_the_trash(sandbox, remover):
    require_net()
    require("busybox")
    plant(sandbox.work, LOOK_ALIKES)
    before = snapshot(sandbox.work)
    targets = f".Trash-{UID} .Trash deep"
    done = sandbox.run("dash", "-c", REMOVERS[remover].format(targets=targets))
    assert done.returncode == 0, done.stderr
    assert os.listdir(sandbox.work) == [], done.stderr
    trashed = {e["path"] for e in sandbox.report() if e["operation"] == "trash"}
    for relative in LOOK_ALIKES:  # each file, or a folder above it (the shim's one rename)
        path = sandbox.work / relative
        assert {str(p) for p in (path, *path.parents)} & trashed, relative
    restored = restore_turn(sandbox)
    assert restored.returncode == 0, restored.stderr
    assert snapshot(sandbox.work) == before


def test_a_trash_safedel_uses_keeps_only_its_own_bookkeeping_out_of_the_trash(sandbox, tmpfs):
    """At a mount's top, `.Trash-<uid>` is where safedel trashes that mount's items: an
    info file whose item is gone and a well-formed cache go for real; a file of the
    user's named like them is judged, and an info file whose item is there too."""
    require_net()
    volume = tmpfs("vol", at=sandbox.work)
    trash = volume / f".Trash-{UID}"
    plant(
        volume,
        {
            f".Trash-{UID}/files/kept": b"an item",
            f".Trash-{UID}/info/kept.trashinfo": INFO,
            f".Trash-{UID}/info/orphan.trashinfo": INFO,
            f".Trash-{UID}/info/notes.trashinfo": b"my notes\n",
            f".Trash-{UID}/directorysizes": b"4096 1764440000 build\n",
            # A temporary name: the retention pass of the run may rewrite the cache itself.
            f".Trash-{UID}/safedel-catalog.v1.99.tmp": b"not a catalog at all",
        },
    )
    names = "orphan notes kept"
    script = (
        f"cd {trash} && for n in {names}; do /bin/rm -f info/$n.trashinfo; done;"
        " /bin/rm -f directorysizes safedel-catalog.v1.99.tmp"
    )
    done = sandbox.run("dash", "-c", script)
    assert done.returncode == 0, done.stderr
    assert b"SAFE_DELETE" not in done.stderr
    moved = {e["path"]: e["trashPath"] for e in sandbox.report() if e["operation"] == "trash"}
    info, catalog = trash / "info", trash / "safedel-catalog.v1.99.tmp"
    judged = [info / "notes.trashinfo", info / "kept.trashinfo", catalog]
    assert sorted(moved) == sorted(map(str, judged)), done.stderr
    with open(moved[str(info / "notes.trashinfo")], "rb") as handle:
        assert handle.read() == b"my notes\n"
    with open(moved[str(catalog)], "rb") as handle:
        assert handle.read() == b"not a catalog at all"
    assert not (info / "orphan.trashinfo").exists()
    assert not (trash / "directorysizes").exists()
    assert (trash / "files" / "kept").read_bytes() == b"an item"


def test_the_home_trash_holds_no_data_the_net_deletes_for_real(sandbox):
    """The home trash is outside the workspace: a file of the user's there that is named
    like bookkeeping is refused and stays. An orphan info file is bookkeeping to the
    net, which lets it go; the shim on PATH makes no such exception and refuses it."""
    require_net()
    plant(
        sandbox.trash,
        {
            "files/.keep": b"",
            "info/orphan.trashinfo": INFO,
            "info/orphan2.trashinfo": INFO,
            "info/notes.trashinfo": b"my notes\n",
            "directorysizes": b"my sizes, in prose\n",
        },
    )
    script = (
        f"cd {sandbox.trash} && rm -f info/orphan2.trashinfo;"
        " /bin/rm -f info/orphan.trashinfo info/notes.trashinfo directorysizes"
    )
    done = sandbox.run("dash", "-c", script)
    assert not (sandbox.trash / "info" / "orphan.trashinfo").exists(), done.stderr
    assert (sandbox.trash / "info" / "orphan2.trashinfo").read_bytes() == INFO
    assert (sandbox.trash / "info" / "notes.trashinfo").read_bytes() == b"my notes\n"
    assert (sandbox.trash / "directorysizes").read_bytes() == b"my sizes, in prose\n"
    refused = last_markers(done.stderr).get("SAFE_DELETE_OUTSIDE_WORKSPACE")
    assert refused is not None and refused["targets"], done.stderr
    assert done.stderr.count(b"SAFE_DELETE_OUTSIDE_WORKSPACE") == 3, done.stderr


# -- run pointers ------------------------------------------------------------------------

OWN_KEY = "$$-$(cut -d' ' -f22 /proc/$$/stat)"  # what runpointer.pid_key names this shell
NESTED = f"{sys.executable} -m safedel run -q -- sh -c 'echo $PPID > nested.pid'"
# A whole pointer naming the process that removes it: what the net takes for one.
FORGED = (
    "k=$$-$(cut -d' ' -f22 /proc/$$/stat); echo $k > forged\n"
    'printf \'{{"run":"x","pid":%s,"note":"data"}}\' $$ > {folder}/$k\n'
    "exec /bin/rm {folder}/$k\n"
)


def test_a_file_named_for_its_own_process_in_the_state_directory_stays(sandbox):
    """The state directory's by-pid holds no pointer here (the pointer folders are
    found from the password database, not the environment): whatever a command puts
    there under its own key, as data or shaped as a pointer, is state it may not
    remove."""
    require_net()
    pointers = sandbox.state / "by-pid"
    pointers.mkdir()
    (pointers / "1-99").write_text("another process's pointer")
    script = (
        f"k={OWN_KEY}; echo precious > {pointers}/$k.data;"
        f' printf \'{{"run":"r","pid":%s}}\' $$ > {pointers}/$k;'
        f" exec /bin/rm {pointers}/$k {pointers}/$k.data {pointers}/1-99"
    )
    done = sandbox.run("dash", "-c", script)
    assert done.returncode != 0
    names = sorted(os.listdir(pointers))
    assert len(names) == 3 and "1-99" in names, done.stderr
    own = [n for n in names if n != "1-99" and not n.endswith(".data")]
    assert (pointers / (own[0] + ".data")).read_text() == "precious\n"
    pid = own[0].split("-")[0]
    assert (pointers / own[0]).read_text() == f'{{"run":"r","pid":{pid}}}'
    marker = last_markers(done.stderr).get("SAFE_DELETE_FAIL_CLOSED")
    assert marker is not None and marker["reason"] == "safedel's own state", done.stderr
    assert sandbox.trashed_names() == []


def _pointer_folders():
    from safedel.core.contract import runpointer

    return [os.path.join(root, *parts) for root, parts in runpointer.places()]


def test_a_nested_run_removes_its_own_pointers_and_a_look_alike_stays(sandbox):
    """In the real pointer folders (the run writes them: the literal /tmp's is one), a
    nested `safedel run` removes its own pointer through the outer run's net, with no
    marker; a file of data under the caller's own key is judged, not deleted. A whole
    pointer naming its remover is one, as docs/net.md says: it goes."""
    require_net()
    folder = f"/tmp/safedel-{UID}/by-pid"
    (sandbox.work / "forge.sh").write_text(FORGED.format(folder=folder))
    script = (
        f"{NESTED} && dash forge.sh && k={OWN_KEY}; echo $k > key;"
        f" echo precious > {folder}/$k; exec /bin/rm {folder}/$k"
    )
    done = sandbox.run("dash", "-c", script)
    key = (sandbox.work / "key").read_text().strip()
    assert key, done.stderr
    try:
        assert read(f"{folder}/{key}") == b"precious\n", done.stderr
        refused = last_markers(done.stderr).get("SAFE_DELETE_OUTSIDE_WORKSPACE")
        assert refused is not None and refused["targets"] == [f"{folder}/{key}"], done.stderr
    finally:
        os.unlink(f"{folder}/{key}")
    forged = (sandbox.work / "forged").read_text().strip()
    assert forged and not os.path.exists(f"{folder}/{forged}"), done.stderr
    pid = (sandbox.work / "nested.pid").read_text().strip()
    left = [n for f in _pointer_folders() if os.path.isdir(f) for n in os.listdir(f)]
    assert not [n for n in left if n.startswith(pid + "-")], done.stderr
    assert done.stderr.count(b"[safe-delete]") == 1, done.stderr
    assert sandbox.trashed_names() == []


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


# -- as uid 65534 ------------------------------------------------------------------------


@pytest.fixture
def scratch():
    with nobody_scratch("safedel-net-books-") as root:
        nobody_package(os.path.join(root, "package"))
        yield root


def test_uid_65534_loses_nothing_named_like_its_bookkeeping(scratch):
    """The same look-alikes, and a file of data under its own key in its own pointer
    folder in the shared /tmp, as uid 65534 (whose pointers go only there)."""
    require_net()
    work = pathlib.Path(scratch, "work")
    files = {r.replace(str(UID), str(NOBODY)): c for r, c in LOOK_ALIKES.items()}
    plant(work, files)
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(work)], check=True)
    folder = f"/tmp/safedel-{NOBODY}/by-pid"
    script = (
        f"/bin/rm -rf .Trash-{NOBODY} .Trash deep && k={OWN_KEY} && echo $k > key &&"
        f" echo precious > {folder}/$k && exec /bin/rm {folder}/$k"
    )
    status, stderr = as_nobody(scratch, "work", script, netted=True)
    key = read(work / "key").decode().strip() if (work / "key").exists() else ""
    assert key, stderr
    try:
        assert read(f"{folder}/{key}") == b"precious\n", stderr
    finally:
        os.unlink(f"{folder}/{key}")
    assert os.listdir(work) == ["key"], stderr
    report = pathlib.Path(scratch, "home", ".local", "state", "safedel", "report.jsonl")
    events = [json.loads(line) for line in report.read_text().splitlines()]
    moved = {e["path"]: e["trashPath"] for e in events if e["operation"] == "trash"}
    for relative, content in files.items():
        assert read(moved[str(work / relative)]) == content, relative


def test_a_folder_mounted_over_the_trash_info_is_not_the_trash(sandbox):
    """`mount --bind ~/proj/notes ~/.local/share/Trash/info` (root, in the run's own
    mount namespace): the folder there is the user's, whatever its files hold."""
    require_net()
    notes = sandbox.work / "notes"
    notes.mkdir()
    (notes / "x.trashinfo").write_bytes(INFO)
    info = sandbox.trash / "info"
    setup = (
        f"mkdir -p {info} {sandbox.trash}/files && chmod 700 {info} {sandbox.trash}/files"
        f" && mount --bind {notes} {info}"
    )
    done = run_in_namespace(sandbox, setup, f"/bin/rm {info}/x.trashinfo")
    assert (notes / "x.trashinfo").read_bytes() == INFO, done.stderr
    refused = last_markers(done.stderr).get("SAFE_DELETE_OUTSIDE_WORKSPACE")
    assert refused is not None and refused["targets"] == [f"{info}/x.trashinfo"], done.stderr
