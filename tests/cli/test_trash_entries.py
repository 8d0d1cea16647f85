"""Hostile trash contents (issue #29, cases 12 and 13): entries named ``, `.` or `..`; a
Path= into a trash dir or through /proc; files/ or info/ swapped for a symlink. The
command inside `safedel run` plants them, as the same user; uid 65534 plants and swaps
them on a shared mount (trashcase.py, in a private mount namespace). Every case ends
with the user's items in the trash, byte for byte, or back where they were."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import pytest
import trashcase
from conftest import require

from safedel.trash import catalog, purge, restore

HERE = os.path.dirname(os.path.abspath(__file__))
KEPT = {"keep1": b"K1 \x00\xff", "keep2": b"K2"}


def safedel(sandbox, *args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "safedel", *args],
        cwd=sandbox.work,
        env=env or sandbox.base_env(COLUMNS="400"),
        capture_output=True,
    )


def run(sandbox, turn, *command):
    done = safedel(sandbox, "run", "--session", "s", "--turn", turn, "--", *command)
    assert done.returncode == 0, done.stderr
    return done


def trash_kept(sandbox):
    for name, data in KEPT.items():
        (sandbox.work / name).write_bytes(data)
    run(sandbox, "t-user", "rm", *KEPT)


def assert_kept_in_trash(sandbox):
    for name, data in KEPT.items():
        assert (sandbox.trash / "files" / name).read_bytes() == data


def assert_kept_back(sandbox):
    for name, data in KEPT.items():
        assert (sandbox.work / name).read_bytes() == data


def rows(sandbox):
    done = safedel(sandbox, "list", "--json")
    assert done.returncode == 0, done.stderr
    return {os.path.basename(row["infoPath"]): row for row in json.loads(done.stdout)}


def plant(sandbox, turn, entries, extra=""):
    """The command, inside its run, writes info files (name: Path=) and payloads."""
    trash = sandbox.trash
    lines = [extra]
    for name, path in entries.items():
        info = f"[Trash Info]\\nPath={path}\\nDeletionDate=2030-01-01T00:00:00\\n"
        lines.append(f"printf '{info}' > '{trash}/info/{name}.trashinfo'")
        if name not in ("", ".", ".."):
            lines.append(f"echo planted > '{trash}/files/{name}'")
    run(sandbox, turn, "sh", "-c", "\n".join(lines))


DAMAGED = {"": "planted-empty", ".": "planted-dot", "..": "planted-dotdot"}


def test_entries_named_empty_dot_or_dotdot_are_damaged_and_never_acted_on(sandbox):
    """Case 12: `.trashinfo`, `..trashinfo` and `...trashinfo` name files/ itself and
    the trash dir. They are listed as damaged, saying why; purge and restore never act
    on them, and every other item still comes back."""
    trash_kept(sandbox)
    work = sandbox.work
    forged = {  # report lines for the command's turn naming the damaged info files
        "operation": "trash",
        "path": f"{work}/planted-dotdot",
        "infoPath": f"{sandbox.trash}/info/...trashinfo",
        "trashPath": f"{sandbox.trash}/files/..",
        "timestamp": 4102444800000,
        "session": "s",
        "turn": "t-evil",
    }
    twisted = dict(forged, infoPath=f"{sandbox.trash}/info/../info/keep1.trashinfo")
    report = "".join(json.dumps(line) + "\\n" for line in (forged, twisted))
    append = f"printf '{report}' >> {sandbox.report_path}"
    plant(sandbox, "t-evil", {n: f"{work}/{p}" for n, p in DAMAGED.items()}, append)

    listed = rows(sandbox)
    for name in DAMAGED:
        row = listed[name + ".trashinfo"]
        assert (
            row["kind"] == "damaged" and f"its name {name!r} is not a plain name" in row["invalid"]
        )
    assert {listed[n + ".trashinfo"]["invalid"] for n in KEPT} == {None}
    table = safedel(sandbox, "list")
    assert table.returncode == 0 and b"invalid (its name '..' is not a plain name)" in table.stdout

    for planted in DAMAGED.values():
        done = safedel(sandbox, "purge", str(work / planted), "--yes")
        assert done.returncode == 0 and b"Nothing in the trash matches" in done.stdout, done
        assert b"not purged: " in done.stderr and b"is damaged" in done.stderr
        done = safedel(sandbox, "restore", str(work / planted))
        assert done.returncode == 1
    for name in DAMAGED:
        done = safedel(sandbox, "restore", "--orphan", name, "--to", str(work / "x"))
        assert done.returncode == 1 and b"is no entry of files/" in done.stderr
    done = safedel(sandbox, "restore", "--turn", "t-evil", "--session", "s")
    assert done.returncode == 1
    assert_kept_in_trash(sandbox)

    # Every other item comes back, each way there is.
    done = safedel(sandbox, "restore", "--last")
    assert done.returncode == 0, done.stderr
    done = safedel(sandbox, "undo", "--session", "s")
    assert done.returncode == 0, done.stderr
    assert_kept_back(sandbox)
    for name in ("keep1", "keep2"):
        run(sandbox, "t-again", "rm", name)
    done = safedel(sandbox, "purge", str(work), "--yes")
    assert done.returncode == 0 and b"purged 2 of 2" in done.stdout, done
    for name in DAMAGED:  # left as they were, and so is everything they name
        assert (sandbox.trash / "info" / f"{name}.trashinfo").read_bytes().startswith(b"[Trash")
    assert (sandbox.trash / "files").is_dir() and (sandbox.trash / "info").is_dir()
    assert os.listdir(sandbox.trash / "files") == []


def test_a_path_into_a_trash_dir_or_proc_is_never_restored(sandbox):
    """Case 13: a Path= that points into the trash, or through /proc, as text (shown
    invalid) or through a symlink of the user's own (judged where the kernel leads,
    by descriptor): no restore puts anything there, in any conflict mode."""
    trash_kept(sandbox)
    trash, work = sandbox.trash, sandbox.work
    links = f"ln -s '{trash}/files' lnk && ln -s /proc/self/cwd plink"
    entries = {
        "intrash": f"{trash}/files/keep1",
        "proc": "/proc/self/cwd/stolen",
        "vialink": f"{work}/lnk/y",
        "viaproc": f"{work}/plink/z",
    }
    plant(sandbox, "t-evil", entries, links)
    listed = rows(sandbox)
    assert listed["intrash.trashinfo"]["invalid"] == "Path= points into a trash dir"
    assert listed["proc.trashinfo"]["invalid"] == "Path= runs through /proc"
    why = {"vialink": b"leads into a trash dir", "viaproc": b"leads through a proc file system"}
    for name, reason in why.items():
        assert listed[name + ".trashinfo"]["invalid"] is None
        for mode in ([], ["--rename"], ["--overwrite"]):
            done = safedel(sandbox, "restore", *mode, entries[name])
            assert done.returncode == 1 and reason in done.stderr, done.stderr
    for name in ("intrash", "proc"):
        done = safedel(sandbox, "restore", "--overwrite", entries[name])
        assert done.returncode == 1 and b"nothing in the trash was deleted from" in done.stderr
        (item,) = [i for i in catalog.items([os.fsencode(trash)]) if i.name == name.encode()]
        with pytest.raises(restore.RestoreError):
            restore.restore(item, restore.OVERWRITE)
    for name in entries:
        assert (trash / "files" / name).read_bytes() == b"planted\n"
    assert sorted(os.listdir(trash / "files")) == sorted([*KEPT, *entries])
    assert not os.path.lexists(work / "z") and not os.path.lexists(work / "stolen")
    assert_kept_in_trash(sandbox)
    done = safedel(sandbox, "restore", "--turn", "t-user", "--session", "s")
    assert done.returncode == 0, done.stderr
    assert_kept_back(sandbox)


@pytest.mark.parametrize("sub", ["files", "info"])
def test_a_symlinked_files_or_info_dir_is_named_and_never_followed(sandbox, sub):
    """Case 13: files/ (or info/) swapped for a symlink to the user's data. list says
    what is wrong instead of "empty"; purge, restore and undo follow nothing there."""
    trash_kept(sandbox)
    victim = sandbox.work / "victim"
    victim.mkdir()
    for name in KEPT:
        (victim / name).write_bytes(b"VICTIM " + name.encode())
        (victim / f"{name}.trashinfo").write_bytes(
            (sandbox.trash / "info" / f"{name}.trashinfo").read_bytes()
        )
    away = sandbox.trash / f"{sub}.away"
    run(
        sandbox,
        "t-evil",
        "sh",
        "-c",
        f"mv {sandbox.trash / sub} {away} && ln -s {victim} {sandbox.trash / sub}",
    )

    done = safedel(sandbox, "list")
    assert done.returncode == 0 and b"The trash is empty" not in done.stdout
    assert b"Nothing listed: 1 trash dir could not be read safely" in done.stdout
    assert f"{sandbox.trash}/{sub} is a symlink".encode() in done.stderr
    done = safedel(sandbox, "list", "--json")
    assert json.loads(done.stdout) == [] and b"is a symlink" in done.stderr
    doctor = {r["check"]: r for r in json.loads(safedel(sandbox, "doctor", "--json").stdout)}
    assert f"{sandbox.trash}/{sub} is a symlink" in doctor["foreign trash dirs"]["detail"]
    done = safedel(sandbox, "purge", str(sandbox.work), "--yes")
    assert done.returncode == 0 and b"Nothing in the trash matches" in done.stdout
    for args in (
        ["restore", "--turn", "t-user"],
        ["restore", "--last"],
        ["undo", "--session", "s"],
    ):
        assert safedel(sandbox, *args).returncode == 1
    for name in KEPT:
        assert (victim / name).read_bytes() == b"VICTIM " + name.encode()
        assert not os.path.lexists(sandbox.work / name)

    os.unlink(sandbox.trash / sub)  # the person puts it right; everything is there
    os.rename(away, sandbox.trash / sub)
    assert_kept_in_trash(sandbox)
    done = safedel(sandbox, "restore", "--turn", "t-user", "--session", "s")
    assert done.returncode == 0, done.stderr
    assert_kept_back(sandbox)


# The same swapper as on a shared mount: ROOT (here files/) renamed aside and a symlink
# to the victim put there, and back, until STOP exists.
SWAPPER = trashcase.SWAP


def replant(files_fd, info_fd, name, info_bytes):
    """Put the entry back into the real files/ and info/, through descriptors held on
    them (whatever name files/ has at the moment)."""
    for fd, entry, data in ((files_fd, name, b"JUNK"), (info_fd, name + ".trashinfo", info_bytes)):
        try:
            out = os.open(entry, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600, dir_fd=fd)
        except FileExistsError:
            continue
        os.write(out, data)
        os.close(out)


@pytest.mark.parametrize("action", ["purge", "restore"])
def test_files_swapped_while_purging_or_restoring_is_never_followed(sandbox, action, monkeypatch):
    """Case 13, racing: the command's leftover process keeps swapping files/ for a
    symlink to the user's data, which holds an entry of the same name, while the
    person purges or restores that item over and over."""
    for key, value in sandbox.base_env().items():
        monkeypatch.setenv(key, value)
    (sandbox.work / "junk").write_bytes(b"JUNK")
    run(sandbox, "t-junk", "rm", "junk")
    (item,) = catalog.items([os.fsencode(sandbox.trash)])
    info_bytes = (sandbox.trash / "info" / "junk.trashinfo").read_bytes()
    victim = sandbox.work / "victim"
    victim.mkdir()
    (victim / "junk").write_bytes(b"VICTIM")
    files_fd = os.open(sandbox.trash / "files", os.O_RDONLY | os.O_DIRECTORY)
    info_fd = os.open(sandbox.trash / "info", os.O_RDONLY | os.O_DIRECTORY)
    stop = sandbox.root / "stop"
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(sandbox.trash / "files"), str(victim), str(stop)],
        stdout=subprocess.PIPE,
    )
    outcomes = {"done": 0, "refused": 0}
    try:
        assert swapper.stdout.readline() == b"ready\n"
        for _ in range(300):
            try:
                if action == "purge":
                    purge.purge_item(item)
                else:
                    restore.restore(item)
                    os.unlink(sandbox.work / "junk")
                outcomes["done"] += 1
            except OSError:
                outcomes["refused"] += 1
            replant(files_fd, info_fd, "junk", info_bytes)
            assert (victim / "junk").read_bytes() == b"VICTIM"
    finally:
        stop.touch()
        swapper.wait(timeout=30)
        os.close(files_fd)
        os.close(info_fd)
    assert outcomes["refused"] > 0, outcomes  # the swaps were there to be met
    assert sorted(os.listdir(victim)) == ["junk"]
    # Once files/ holds still, the same item goes (or comes back) as asked.
    if action == "purge":
        purge.purge_item(item)
        assert not (sandbox.trash / "files" / "junk").exists()
    else:
        assert restore.restore(item) == os.fsencode(sandbox.work / "junk")
        assert (sandbox.work / "junk").read_bytes() == b"JUNK"
    assert (victim / "junk").read_bytes() == b"VICTIM"


def shared_mount_case(sandbox, case):
    if os.geteuid() != 0:
        pytest.skip("needs root for a mount namespace and uid 65534")
    require("unshare")
    require("setpriv")
    base = tempfile.mkdtemp(prefix="safedel-shared-", dir="/var/tmp")
    os.chmod(base, 0o755)
    try:
        done = subprocess.run(
            ["unshare", "-m", "--propagation", "private", sys.executable]
            + [os.path.join(HERE, "trashcase.py"), case, os.path.join(base, "mnt")],
            env=sandbox.base_env(COLUMNS="400"),
            cwd=sandbox.work,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_topdir_trash_planted_by_another_user_is_named_not_empty(sandbox):
    """Cases 12 and 13 as uid 65534 on a shared mount: before the user has one, they
    make `.Trash-0` with damaged entries and files/ linked to the user's data."""
    result = shared_mount_case(sandbox, "planted")
    assert result["list"]["code"] == 0
    assert "could not be read safely" in result["list"]["out"]
    assert "belongs to another user (uid 65534)" in result["list"]["err"]
    assert result["purge"]["code"] == 0 and result["restore"]["code"] == 1
    assert result["data"] == "the user's data"
    assert result["theirs"] == sorted(
        ["..trashinfo", "...trashinfo", ".trashinfo", "data.trashinfo"]
    )


@pytest.mark.parametrize("action", ["purge", "restore"])
def test_a_topdir_trash_root_swapped_by_another_user_is_never_followed(sandbox, action):
    """Case 13 as uid 65534, racing: they keep swapping the user's `.Trash-0` on a
    shared mount for a symlink to the user's other trash there, which holds an item of
    the same name, while the user purges or restores the `.Trash-0` item over and over."""
    result = shared_mount_case(sandbox, f"swap-{action}")
    assert result["home"] == "PRECIOUS" and result["home_info"]
    assert result["refused"] > 0, result


def test_a_forged_catalog_cache_never_chooses_what_purge_deletes(sandbox):
    """Case 13: the catalog cache (safedel-catalog.v1) is the user's file like any
    other. Rewritten to say the user's item came from the junk folder, it makes no
    purge of that folder take the item: purge reads each chosen info file itself."""
    from safedel.trash import catalogcache

    trash_kept(sandbox)
    (sandbox.work / "junk").mkdir()
    (sandbox.work / "junk" / "x").write_text("junk")
    run(sandbox, "t-junk", "rm", "-r", "junk")
    assert safedel(sandbox, "list", "--json").returncode == 0  # writes the cache
    root = os.fsencode(sandbox.trash)
    cache = catalogcache.load(root)
    sections = {name: list(cache[name]) for name in catalogcache.SECTIONS}
    where = sections["names"].index(b"keep1")
    sections["originals"][where] = os.fsencode(sandbox.work / "junk" / "keep1")
    catalogcache.save(root, dict(cache.header), sections)
    assert any(i.original.endswith(b"/junk/keep1") for i in catalog.items([root]))
    done = safedel(sandbox, "purge", str(sandbox.work / "junk"), "--yes")
    assert done.returncode == 0 and b"purged 1 of 1" in done.stdout, done
    assert b"not purged: " in done.stderr and b"keep1.trashinfo" in done.stderr
    assert_kept_in_trash(sandbox)
