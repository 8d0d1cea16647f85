"""`safedel purge`, retention, directorysizes and orphan repair, on trashes filled by
safedel, trash-put and gio, checked with trash-cli's own trash-list."""

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest
from conftest import confirm_config, require

from safedel.core.trash import info as trashinfo


def safedel(sandbox, *args, env=None, input=None):
    return subprocess.run(
        [sys.executable, "-m", "safedel", *args],
        cwd=sandbox.work,
        env=env or sandbox.base_env(),
        capture_output=True,
        input=input,
    )


def fill(sandbox, name, turn, session="purge-s"):
    """Trash name (a file of len(name) bytes) through safedel run in the given turn."""
    (sandbox.work / name).write_text(name)
    argv = [sys.executable, "-m", "safedel", "run", "--session", session, "--turn", turn]
    done = subprocess.run(
        [*argv, "--", "rm", name], cwd=sandbox.work, env=sandbox.base_env(), capture_output=True
    )
    assert done.returncode == 0, done.stderr


def backdate(sandbox, name, days):
    """Rewrite the DeletionDate= of the item trashed as name to `days` ago (negative:
    ahead). Its age is the later of that and its payload's ctime, which stays."""
    info = sandbox.trash / "info" / f"{name}.trashinfo"
    text = info.read_text()
    old = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(time.time() - days * 86400))
    lines = [
        f"DeletionDate={old}" if x.startswith("DeletionDate=") else x for x in text.split("\n")
    ]
    info.write_text("\n".join(lines))


def aged(sandbox, name, seconds):
    """Wait until the item trashed as name is really `seconds` old: its payload's
    ctime, set by the rename into the trash, is the one date no process can set back."""
    payload = sandbox.trash / "files" / name
    for _ in range(300):
        if time.time() - os.lstat(payload).st_ctime > seconds:
            return
        time.sleep(0.05)
    raise AssertionError(f"{name} never got {seconds}s old")


def listed(sandbox):
    done = safedel(sandbox, "list", "--json")
    assert done.returncode == 0, done.stderr
    mine = str(sandbox.work)
    return sorted(
        os.path.basename(r["path"]) for r in json.loads(done.stdout) if r["path"].startswith(mine)
    )


def trash_list(sandbox):
    done = subprocess.run(
        [require("trash-list")], env=sandbox.base_env(), capture_output=True, text=True
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    mine = str(sandbox.work)
    return sorted(
        os.path.basename(line.split(" ", 2)[2]) for line in done.stdout.splitlines() if mine in line
    )


@pytest.fixture
def mixed(sandbox):
    """Items from safedel (two turns), trash-put and gio, some made to look old."""
    fill(sandbox, "a-old", "t1")
    (sandbox.work / "c-trashput").write_text("c")
    subprocess.run(
        [require("trash-put"), "c-trashput"], cwd=sandbox.work, env=sandbox.base_env(), check=True
    )
    fill(sandbox, "b-new", "t2")
    (sandbox.work / "d-gio").write_text("d")
    subprocess.run(
        [require("gio"), "trash", "d-gio"], cwd=sandbox.work, env=sandbox.base_env(), check=True
    )
    aged(sandbox, "a-old", 2)  # really old, by a second or two
    aged(sandbox, "c-trashput", 2)
    assert listed(sandbox) == ["a-old", "b-new", "c-trashput", "d-gio"]
    return sandbox


@pytest.mark.parametrize(
    "args,left",
    [
        (["--older-than", "1s"], ["b-new", "d-gio"]),
        (["--turn", "t2"], ["a-old", "c-trashput", "d-gio"]),
        (["--session", "purge-s"], ["c-trashput", "d-gio"]),
        (["--all"], []),
        (["PREFIX/c-trashput"], ["a-old", "b-new", "d-gio"]),
    ],
)
def test_each_selector_purges_exactly_its_items(mixed, args, left):
    sandbox = mixed
    args = [a.replace("PREFIX", str(sandbox.work)) for a in args]
    if args[0] == "--older-than":  # the new ones dated ahead: younger however slow
        backdate(sandbox, "b-new", -1)  # the purge is to start
        backdate(sandbox, "d-gio", -1)
    dry = safedel(sandbox, "purge", *args, "--dry-run")
    assert dry.returncode == 0 and b"would delete" in dry.stdout
    assert listed(sandbox) == ["a-old", "b-new", "c-trashput", "d-gio"]
    done = safedel(sandbox, "purge", *args, "--yes")
    assert done.returncode == 0, done.stderr
    assert listed(sandbox) == left
    assert trash_list(sandbox) == left
    mine = str(sandbox.work)
    purged = [e for e in sandbox.report() if e["operation"] == "purge" and mine in e["path"]]
    assert len(purged) == 4 - len(left)


def test_no_selector_and_no_terminal_are_refused(mixed):
    assert safedel(mixed, "purge").returncode == 2
    done = safedel(mixed, "purge", "--all")
    assert done.returncode == 2 and b"--yes" in done.stderr
    assert listed(mixed) == ["a-old", "b-new", "c-trashput", "d-gio"]


def test_max_size_removes_the_oldest_until_the_trash_fits(sandbox):
    for index, turn in enumerate(["t1", "t2", "t3", "t4"]):
        fill(sandbox, f"f{index}-" + "x" * 100, turn)
        time.sleep(1.1)  # DeletionDate= has one-second steps; the order must be clear
    total = 4 * 103
    # The path limits the purge (and the size it fits) to this test's items.
    here = str(sandbox.work)
    done = safedel(sandbox, "purge", here, "--max-size", str(total - 50), "--yes")
    assert done.returncode == 0, done.stderr
    assert [n[:2] for n in listed(sandbox)] == ["f1", "f2", "f3"]
    done = safedel(sandbox, "purge", here, "--max-size", str(103), "--yes")
    assert [n[:2] for n in listed(sandbox)] == ["f3"]


def test_regenerable_selector_takes_uncounted_items(sandbox):
    env = sandbox.base_env(SAFEDEL_THRESHOLD="2")
    script = "for f in n1 n2 n3; do mkdir $f && echo x > $f/x; done; rm -r n1 n2 n3"
    argv = [sys.executable, "-m", "safedel", "run", "--turn", "tr", "--", "sh", "-c", script]
    done = subprocess.run(argv, cwd=sandbox.work, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    fill(sandbox, "counted", "tc")
    counted = {
        e["path"]: e.get("counted", True) for e in sandbox.report() if e["operation"] == "trash"
    }
    assert sorted(os.path.basename(p) for p, c in counted.items() if c is False) == [
        "n1",
        "n2",
        "n3",
    ]
    done = safedel(sandbox, "purge", "--regenerable", "--yes")
    assert done.returncode == 0, done.stderr
    assert listed(sandbox) == ["counted"]


def test_directorysizes_is_read_by_a_reader_written_from_the_spec(sandbox):
    tree = sandbox.work / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "a").write_bytes(b"a" * 1000)
    (tree / "sub" / "b").write_bytes(b"b" * 2345)
    (tree / "sub" / "link").symlink_to("../a")
    argv = [sys.executable, "-m", "safedel", "run", "--", "rm", "-r", "tree"]
    assert subprocess.run(argv, cwd=sandbox.work, env=sandbox.base_env()).returncode == 0
    listing = json.loads(safedel(sandbox, "list", "--json").stdout)
    (row,) = [r for r in listing if r["path"] == str(tree)]
    walked = 1000 + 2345 + len("../a")
    assert row["size"] == walked
    # The spec's reader: "size mtime percent-encoded-name" per line, mtime = info mtime.
    lines = (sandbox.trash / "directorysizes").read_bytes().split(b"\n")
    entries = {}
    for line in filter(None, lines):
        size, mtime, name = line.split(b" ", 2)
        entries[trashinfo.decode_path(name)] = (int(size), int(mtime))
    info_mtime = int(os.lstat(sandbox.trash / "info" / "tree.trashinfo").st_mtime)
    assert entries == {b"tree": (walked, info_mtime)}
    assert safedel(sandbox, "purge", "--all", "--yes").returncode == 0
    assert (sandbox.trash / "directorysizes").read_bytes() == b""


def until_it_starts(process, started):
    """Wait until process is gone or started() says it has begun its work."""
    while process.poll() is None and not started():
        time.sleep(0.002)


def test_a_killed_purge_never_leaves_an_item_without_its_info(sandbox):
    rm = os.path.join(sandbox.shim_home, "bin", "rm")
    files_dir = sandbox.trash / "files"
    for trial in range(20):
        names = [f"k{trial}-{i}" for i in range(40)]
        for name in names:
            (sandbox.work / name).mkdir()
            (sandbox.work / name / "inner").write_text("x" * 50)
        env = sandbox.shim_env(threshold=99999)
        assert subprocess.run([rm, "-r", *names], cwd=sandbox.work, env=env).returncode == 0
        there = len(os.listdir(files_dir))
        purge = subprocess.Popen(
            [sys.executable, "-m", "safedel", "purge", "--all", "--yes"],
            cwd=sandbox.work,
            env=sandbox.base_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # Killed somewhere in its deletions: once the first item is gone, at random.
        until_it_starts(purge, lambda n=there: len(os.listdir(files_dir)) < n)
        time.sleep(random.uniform(0, 0.05))
        purge.send_signal(signal.SIGKILL)
        purge.wait()
        files = set(os.listdir(files_dir))
        infos = {n[: -len(".trashinfo")] for n in os.listdir(sandbox.trash / "info")}
        assert files <= infos, files - infos
    assert safedel(sandbox, "purge", "--all", "--yes").returncode == 0


LOOP = """
import os, sys
for i in range(100000):
    name = f"o{sys.argv[1]}-{i}"
    open(name, "w").close()
    os.remove(name)
    if i == 0:
        print("trashing", flush=True)
"""


def test_orphans_after_killed_trash_loops_are_repaired(sandbox):
    env = sandbox.shim_env(threshold=99999)
    for trial in range(50):
        loop = subprocess.Popen(
            [sys.executable, "-c", LOOP, str(trial)],
            cwd=sandbox.work,
            env=env,
            stdout=subprocess.PIPE,
        )
        # Killed at a random point of its trashing, once it has begun.
        loop.stdout.readline()
        time.sleep(random.uniform(0, 0.3))
        loop.send_signal(signal.SIGKILL)
        loop.wait()
        loop.stdout.close()
    # One orphan of each kind for certain, besides whatever the kills left.
    (sandbox.trash / "info" / "planted.trashinfo").write_text(
        "[Trash Info]\nPath=/nowhere/planted\nDeletionDate=2026-01-01T00:00:00\n"
    )
    (sandbox.trash / "files" / "lonely").write_text("keep me")
    info_dir, files_dir = sandbox.trash / "info", sandbox.trash / "files"
    old = time.time() - 3600
    for name in os.listdir(info_dir):
        os.utime(info_dir / name, (old, old))
    done = safedel(sandbox, "doctor", "--repair")
    assert b"its item was gone" in done.stdout and b"--orphan lonely" in done.stdout
    files = set(os.listdir(files_dir))
    infos = {n[: -len(".trashinfo")] for n in os.listdir(info_dir)}
    assert infos == files - {"lonely"}
    assert trash_list(sandbox) == sorted(n for n in files if n.startswith("o"))
    # Nothing the user had is lost: every file a loop made is in the work tree or trash.
    for trial in range(50):
        made = [n for n in files | set(os.listdir(sandbox.work)) if n.startswith(f"o{trial}-")]
        highest = max((int(n.split("-")[1]) for n in made), default=-1)
        assert len(made) == highest + 1, (trial, sorted(made))
    back = safedel(sandbox, "restore", "--orphan", "lonely", "--to", str(sandbox.work / "found"))
    assert back.returncode == 0, back.stderr
    assert (sandbox.work / "found").read_text() == "keep me"


def test_retention_runs_detached_after_the_command(sandbox):
    fill(sandbox, "stale", "t-old")
    fill(sandbox, "fresh", "t-new")
    aged(sandbox, "stale", 2)
    backdate(sandbox, "fresh", -1)
    # Configured only now: a pass started by the fills above could still be running
    # when stale2 is trashed below, and take it.
    config = sandbox.home / ".config" / "safedel" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('retention = "1s"\n')
    confirm_config(sandbox.state, config)
    stamp = sandbox.state / "retention.stamp"
    if stamp.exists():
        stamp.unlink()
    argv = [sys.executable, "-m", "safedel", "run", "--", "true"]
    done = subprocess.run(argv, cwd=sandbox.work, env=sandbox.base_env(), capture_output=True)
    assert done.returncode == 0 and done.stderr == b""
    assert stamp.exists()
    for _ in range(600):
        if listed(sandbox) == ["fresh"]:
            break
        time.sleep(0.1)
    assert listed(sandbox) == ["fresh"]
    # Once a day: a second run right away starts no pass.
    fill(sandbox, "stale2", "t-old2")
    aged(sandbox, "stale2", 2)
    subprocess.run(argv, cwd=sandbox.work, env=sandbox.base_env(), capture_output=True)
    time.sleep(1)
    assert listed(sandbox) == ["fresh", "stale2"]


def test_a_backdated_info_file_does_not_make_an_item_old(sandbox):
    """A command trashes src and rewrites its DeletionDate= to 2001: the retention pass
    after the run keeps it, as does purge --older-than; once really old it goes."""
    config = sandbox.home / ".config" / "safedel" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('retention = "3s"\n')
    confirm_config(sandbox.state, config)
    (sandbox.work / "src").mkdir()
    (sandbox.work / "src" / "f.c").write_text("precious")
    info = sandbox.trash / "info" / "src.trashinfo"
    script = f"rm -rf src && sed -i 's/^DeletionDate=.*/DeletionDate=2001-01-01T00:00:00/' {info}"
    done = safedel(sandbox, "run", "--", "sh", "-c", script)
    assert done.returncode == 0, done.stderr
    assert "DeletionDate=2001-01-01T00:00:00" in info.read_text()
    assert safedel(sandbox, "purge", "--retention-pass").returncode == 0
    done = safedel(sandbox, "purge", "--older-than", "3s", "--yes")
    assert done.returncode == 0, done.stderr
    assert (sandbox.trash / "files" / "src" / "f.c").read_text() == "precious"
    assert listed(sandbox) == ["src"]
    aged(sandbox, "src", 3)
    assert safedel(sandbox, "purge", "--retention-pass").returncode == 0
    assert listed(sandbox) == []


def test_a_name_reused_in_the_trash_is_not_taken_for_the_earlier_turns(sandbox):
    """T1's item is restored, then T2 trashes a new file under the same name: purging
    or restoring T1 must not touch T2's item."""
    (sandbox.work / "a").write_text("old")
    fill_named(sandbox, "a", "T1")
    assert safedel(sandbox, "restore", "--turn", "T1", "--session", "purge-s").returncode == 0
    time.sleep(2.5)  # DeletionDate= has one-second steps
    (sandbox.work / "a").write_text("NEW")
    fill_named(sandbox, "a", "T2")
    assert (sandbox.trash / "files" / "a").read_text() == "NEW"
    done = safedel(sandbox, "purge", "--turn", "T1", "--session", "purge-s", "--yes")
    assert done.returncode == 0 and b"Nothing in the trash matches" in done.stdout
    again = safedel(sandbox, "restore", "--turn", "T1", "--session", "purge-s", "--rename")
    assert again.returncode == 1
    assert (sandbox.trash / "files" / "a").read_text() == "NEW"


def fill_named(sandbox, name, turn):
    argv = [sys.executable, "-m", "safedel", "run", "--session", "purge-s", "--turn", turn]
    done = subprocess.run(
        [*argv, "--", "rm", name], cwd=sandbox.work, env=sandbox.base_env(), capture_output=True
    )
    assert done.returncode == 0, done.stderr


def test_purge_never_deletes_into_a_mount_inside_an_item(sandbox, tmp_path):
    if os.getuid() != 0:
        pytest.skip("bind mounts need root (CI runs as root)")
    outside = tmp_path / "live"
    (outside / "deep").mkdir(parents=True)
    (outside / "s1").write_text("live data")
    (outside / "deep" / "d1").write_text("live data")
    fill(sandbox, "plain", "t-mnt")
    box = sandbox.trash / "files" / "plain"
    box.unlink()
    (box / "mnt").mkdir(parents=True)  # an item in the trash that has a mount inside
    mounted = subprocess.run(["mount", "--bind", str(outside), str(box / "mnt")])
    if mounted.returncode != 0:
        pytest.fail("cannot bind-mount here") if os.environ.get("CI") else pytest.skip("no mount")
    try:
        done = safedel(sandbox, "purge", "--turn", "t-mnt", "--session", "purge-s", "--yes")
        assert done.returncode == 1 and b"mounted inside it" in done.stderr
        assert (outside / "s1").read_text() == "live data"
        assert (outside / "deep" / "d1").read_text() == "live data"
        assert (sandbox.trash / "info" / "plain.trashinfo").exists()
    finally:
        subprocess.run(["umount", "-l", str(box / "mnt")])


def rotate_report(sandbox, days):
    """Move the current report aside as a segment rotated `days` ago, as an append past
    the segment size would have (its name's rotation time and its mtime both)."""
    then = time.time() - days * 86400
    inode = sandbox.report_path.stat().st_ino
    segment = sandbox.report_path.with_name(f"report.jsonl.{int(then * 1e9):019d}-{inode}")
    sandbox.report_path.rename(segment)
    os.utime(segment, (then, then))
    return segment


def test_purge_drops_report_segments_past_the_retention(sandbox):
    """Old segments whose items are gone go; a segment still holding an undoable turn's
    item stays, as does the current file; what is left reads without a torn line."""
    from safedel.core.report import segments

    def turn(name, *files):
        for file in files:
            (sandbox.work / file).write_text(file)
        done = safedel(sandbox, "run", "--session", "seg", "--turn", name, "--", "rm", *files)
        assert done.returncode == 0, done.stderr

    turn("t-gone", "g1", "g2")
    assert safedel(sandbox, "purge", "--turn", "t-gone", "--yes").returncode == 0
    gone = rotate_report(sandbox, 50)
    turn("t-live", "l1", "l2")
    live = rotate_report(sandbox, 45)
    turn("t-recent", "r1")
    recent = rotate_report(sandbox, 2)
    turn("t-new", "n1")
    # Configured only now, so that no `safedel run` above starts a pass of its own.
    config = sandbox.home / ".config" / "safedel" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('retention = "30d"\n')
    confirm_config(sandbox.state, config)
    kept = {p: p.read_bytes() for p in (live, recent, sandbox.report_path)}

    dry = safedel(sandbox, "purge", "--older-than", "30d", "--dry-run")
    assert dry.returncode == 0 and gone.name.encode() in dry.stdout, dry.stdout
    assert live.name.encode() not in dry.stdout and gone.exists()

    done = safedel(sandbox, "purge", "--older-than", "30d", "--yes")
    assert done.returncode == 0 and b"dropped 1 of 1 report segment" in done.stdout, done.stdout
    assert not gone.exists()
    for path, data in kept.items():  # whole, byte for byte; the current one only grew
        assert path.read_bytes()[: len(data)] == data
    events = [
        json.loads(line)
        for path in segments.all_files(sandbox.report_path)
        for line in open(path, "rb")
    ]
    dropped = [e for e in events if e["operation"] == "purge" and e.get("kind") == "report"]
    assert [e["path"] for e in dropped] == [str(gone)]
    assert not any(e.get("turn") == "t-gone" for e in events)

    # The undoable turn in the kept segment still restores; nothing warns of a torn line.
    back = safedel(sandbox, "restore", "--turn", "t-live", "--session", "seg")
    assert back.returncode == 0 and b"warning" not in back.stderr, back.stderr
    assert all((sandbox.work / f).read_text() == f for f in ("l1", "l2"))

    # Its items back home, that segment holds nothing to restore: the daily pass drops
    # it, and keeps the recent segment whatever it holds.
    assert safedel(sandbox, "purge", "--retention-pass").returncode == 0
    assert not live.exists() and recent.read_bytes() == kept[recent]
    assert listed(sandbox) == ["n1", "r1"]


def test_a_segment_whose_trash_is_unplugged_stays(sandbox):
    """A turn trashed to a drive that is not there now (here its trash dir moved away,
    as an unmounted drive's would be) may still be undone once it is back: its
    segment stays past the retention."""
    drive = sandbox.root / "drive"
    trash = drive / "Trash"
    env = sandbox.base_env(SAFEDEL_TRASH_DIR=str(trash))
    (sandbox.work / "usb.txt").write_text("usb")
    argv = ["run", "--session", "seg", "--turn", "t-usb", "--", "rm", "usb.txt"]
    done = safedel(sandbox, *argv, env=env)
    assert done.returncode == 0, done.stderr
    assert (trash / "files" / "usb.txt").read_text() == "usb"
    segment = rotate_report(sandbox, 50)
    config = sandbox.home / ".config" / "safedel" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('retention = "30d"\n')
    confirm_config(sandbox.state, config)

    drive.rename(sandbox.root / "unplugged")
    done = safedel(sandbox, "purge", "--older-than", "30d", "--yes")
    assert done.returncode in (0, 1) and b"report segment" not in done.stdout, done.stdout
    assert segment.exists()

    (sandbox.root / "unplugged").rename(drive)
    back = safedel(sandbox, "restore", "--turn", "t-usb", "--session", "seg", env=env)
    assert back.returncode == 0, back.stderr
    assert (sandbox.work / "usb.txt").read_text() == "usb"
