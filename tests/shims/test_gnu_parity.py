"""rm as uid 65534 beside /usr/bin/rm: where permission bits make GNU stop part way.

Each case builds the same tree twice, runs GNU rm in one and safedel's launcher in
the other as nobody, and compares stdout, stderr (no marker where GNU itself fails),
the exit status and the resulting tree; what vanished from ours must be in the trash,
and the trash must hold nothing GNU kept.
"""

import json
import os
import shutil
import stat
import subprocess

import pytest
from conftest import require
from gnu_side_by_side import (
    NOBODY,
    deep_snapshot,
    nobody_area,
    nobody_run,
    snapshot,
    trash_names,
)


@pytest.fixture(scope="module")
def area():
    require("setpriv")
    if os.geteuid() != 0 or not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("needs root (to become nobody) and /usr/bin/python3")
    root, home_dir = nobody_area()
    yield root, home_dir
    subprocess.run(["chmod", "-R", "u+rwx", str(root)], check=False)
    shutil.rmtree(root, ignore_errors=True)


def fresh(root):
    """Empty both trees, the trash and the report, between cases."""
    for name in ("gnu", "ours"):
        subprocess.run(["chmod", "-R", "u+rwx", str(root / name)], check=False)
        shutil.rmtree(root / name)
        (root / name).mkdir()
        (root / name).chmod(0o777)
    share = root / "home" / ".local" / "share"
    subprocess.run(["chmod", "-R", "u+rwx", str(share)], check=False)
    shutil.rmtree(share, ignore_errors=True)
    # The report and the bulk guard's ledger: each case starts a fresh turn.
    for entry in (root / "state").iterdir():
        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def build(root, setup):
    for name in ("gnu", "ours"):
        base = root / name
        setup(base)


def chown(*paths):
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", *map(str, paths)], check=True)


def compare(root, home_dir, args, stdin=b"", tool="rm", any_order=False):
    """any_order: find's own messages (from its traversal) come before ours, which
    GNU find interleaves; the lines must still be the same ones."""
    runs = nobody_run(root, home_dir, args, stdin, tool=tool)
    gnu, ours = runs["gnu"], runs["ours"]
    if any_order:
        assert sorted(ours.stderr.splitlines()) == sorted(gnu.stderr.splitlines())
    else:
        assert ours.stderr == gnu.stderr
    assert (ours.returncode, ours.stdout) == (gnu.returncode, gnu.stdout)
    after = snapshot(root / "ours")
    assert after == snapshot(root / "gnu")
    events = []
    report = root / "state" / "report.jsonl"
    if report.exists():
        events = [json.loads(line) for line in report.read_text().splitlines()]
    ours = root / "ours"
    trashed = [os.path.relpath(e["path"], ours) for e in events if e["operation"] == "trash"]
    # Nothing in the trash that GNU kept, and everything GNU removed is in the trash.
    assert not [t for t in trashed if t in after]
    assert len(trash_names(root)) == len(trashed)
    return gnu, trashed


def tree_b(base):
    (base / "b" / "a" / "p").mkdir(parents=True)
    (base / "b" / "f").write_text("x")
    (base / "b" / "a" / "g").write_text("x")
    (base / "b" / "c" / "d").mkdir(parents=True)
    (base / "b" / "c" / "d" / "h").write_text("x")
    chown(base / "b")


@pytest.mark.parametrize("mode", ["ug-w", "u-r", "u-x", "0"])
def test_a_directory_the_owner_closed_stops_gnu_and_us(area, mode):
    root, home_dir = area
    fresh(root)

    def setup(base):
        tree_b(base)
        subprocess.run(["chmod", mode, str(base / "b" / "a")], check=True)

    build(root, setup)
    gnu, trashed = compare(root, home_dir, ["-rf", "b"])
    assert gnu.returncode == 1 and b"b/a" in gnu.stderr
    # What GNU could remove went, the rest stayed: never b as one rename.
    assert "b" not in trashed and "b/f" in trashed and "b/c" in trashed


def test_mode_000_empty_directory_is_removed(area):
    root, home_dir = area
    fresh(root)

    def setup(base):
        (base / "d").mkdir()
        (base / "t" / "z").mkdir(parents=True)
        chown(base / "d", base / "t")
        (base / "d").chmod(0)
        (base / "t" / "z").chmod(0)

    build(root, setup)
    gnu, trashed = compare(root, home_dir, ["-rf", "d", "t"])
    assert gnu.returncode == 0 and sorted(trashed) == ["d", "t"]
    # The mode is put back inside the trash.
    files = root / "home" / ".local" / "share" / "Trash" / "files"
    assert stat.S_IMODE(os.lstat(files / "d").st_mode) == 0


def test_file_in_an_unwritable_directory_gets_gnus_message_only(area):
    root, home_dir = area
    fresh(root)

    def setup(base):
        (base / "d").mkdir()
        (base / "d" / "f").write_text("x")
        chown(base / "d")
        (base / "d").chmod(0o555)

    build(root, setup)
    gnu, trashed = compare(root, home_dir, ["-rf", "d/f", "d"])
    assert b"Permission denied" in gnu.stderr and trashed == []


def test_sticky_directory_keeps_another_users_file(area):
    root, home_dir = area
    fresh(root)

    def setup(base):
        (base / "s").mkdir()
        (base / "s" / "theirs").write_text("x")
        (base / "s" / "mine").write_text("x")
        chown(base / "s" / "mine")
        (base / "s").chmod(0o1777)

    build(root, setup)
    gnu, trashed = compare(root, home_dir, ["-rf", "s"])
    assert gnu.returncode == 1 and trashed == ["s/mine"]


def make_deep(base, levels, width):
    """levels nested directories of width-byte names, made by descriptor (past PATH_MAX)."""
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for level in range(levels):
            name = (b"%02d" % level) + b"n" * (width - 2)
            os.mkdir(name, dir_fd=fd)
            child = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        os.close(os.open(b"leaf", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)


def test_deeper_than_path_max(area):
    root, home_dir = area
    fresh(root)

    def setup(base):
        (base / "deep").mkdir()
        make_deep(os.fsencode(base / "deep"), 52, 200)
        chown(base / "deep")

    build(root, setup)
    gnu, trashed = compare(root, home_dir, ["-rf", "deep"])
    assert gnu.returncode == 0 and trashed == ["deep"]


def test_prompt_once_then_the_write_protected_question(area):
    root, home_dir = area
    fresh(root)

    def setup(base):
        for name in "abcd":
            (base / name).write_text("x")
        chown(*(base / n for n in "abcd"))
        (base / "d").chmod(0o444)

    for answers in (b"y\ny\n", b"y\nn\n", b"n\n"):
        fresh(root)
        build(root, setup)
        compare(root, home_dir, ["-I", "---presume-input-tty", "a", "b", "c", "d"], answers)


@pytest.mark.parametrize("answers", [b"y\ny\ny\ny\ny\ny\n", b"y\nn\ny\ny\n", b"y\ny\nn\ny\ny\n"])
def test_interactive_walk_in_gnus_order(area, answers):
    root, home_dir = area
    fresh(root)

    def setup(base):
        tree_b(base)
        (base / "b" / "f").chmod(0o444)

    build(root, setup)
    compare(root, home_dir, ["-ri", "---presume-input-tty", "b"], answers)


@pytest.mark.parametrize(
    "args",
    [
        ["--ignore-fail-on-non-empty", "x/y"],
        ["--ignore-fail-on-non-empty", "x/full"],
        ["-p", "x/y"],
        ["x/y", "open/m0"],
    ],
)
def test_rmdir_where_the_parent_is_closed(area, args):
    root, home_dir = area
    fresh(root)

    def setup(base):
        (base / "x" / "y").mkdir(parents=True)
        (base / "x" / "full").mkdir()
        (base / "x" / "full" / "f").write_text("x")
        (base / "open" / "m0").mkdir(parents=True)
        chown(base / "x", base / "open")
        (base / "x").chmod(0o555)
        (base / "open" / "m0").chmod(0)

    build(root, setup)
    compare(root, home_dir, args, tool="rmdir")


def test_deep_tree_with_prompts_possible(area):
    """stdin a terminal: no prompt comes (nothing write-protected), so still one rename."""
    root, home_dir = area
    fresh(root)

    def setup(base):
        (base / "deep").mkdir()
        make_deep(os.fsencode(base / "deep"), 52, 200)
        chown(base / "deep")

    build(root, setup)
    gnu, trashed = compare(root, home_dir, ["---presume-input-tty", "-r", "deep"], b"n\n")
    assert gnu.returncode == 0 and trashed == ["deep"]


def find_tree(base):
    (base / "d" / "ro").mkdir(parents=True)
    (base / "d" / "ro" / "f").write_text("x")
    (base / "d" / "m0").mkdir()
    (base / "d" / "s").mkdir()
    (base / "d" / "s" / "mine").write_text("x")
    (base / "d" / "ok" / "deeper").mkdir(parents=True)
    (base / "d" / "ok" / "deeper" / "g").write_text("x")
    (base / "e" / "f").mkdir(parents=True)
    (base / "w" / "x").mkdir(parents=True)
    (base / "w" / "x" / "f").write_text("x")
    (base / "w" / "empty").mkdir()
    chown(base / "d", base / "e", base / "w")
    (base / "w" / "x").chmod(0o300)
    (base / "w" / "empty").chmod(0o300)
    (base / "d" / "s" / "theirs").write_text("x")
    (base / "d" / "s").chmod(0o1777)
    (base / "d" / "ro").chmod(0o555)
    (base / "d" / "m0").chmod(0)


@pytest.mark.parametrize(
    "args",
    [
        ["d", "-delete"],
        ["d/ok", "d/ro", "-delete"],
        ["d", "-name", "f", "-delete"],
        ["e", "-delete"],
        ["w", "-delete"],
    ],
)
def test_find_delete_keeps_what_gnu_find_keeps(area, args):
    root, home_dir = area
    fresh(root)
    build(root, find_tree)
    gnu, trashed = compare(root, home_dir, args, tool="find", any_order=True)
    if args == ["d", "-delete"]:
        assert "d" not in trashed and "d/ok" in trashed


def test_find_double_dash_delete(area):
    root, home_dir = area
    fresh(root)

    def setup(base):
        (base / "sub").mkdir()
        (base / "sub" / "f").write_text("x")
        chown(base / "sub")

    build(root, setup)
    for name in ("gnu", "ours"):
        (root / name).chmod(0o755)
        chown(root / name)
    gnu, trashed = compare(root, home_dir, ["--", "-delete"], tool="find")
    assert gnu.returncode == 0 and trashed == ["sub"]


# -delete's value and what follows it: find itself makes each unlinkat, answered by
# the launcher, so the messages come in GNU's order and the output is GNU's.
@pytest.mark.parametrize(
    "args",
    [
        ["d", "-delete", "-print"],
        ["d", "-delete", "-o", "-print"],
        ["d", "-type", "f", "-delete", "-printf", "gone %p\\n"],
        ["d", "-type", "f", "-delete", "-exec", "touch", "{}", ";"],
        ["d", "-delete", "-o", "-printf", "kept %p %n %M\\n"],
        ["d", "e", "w", "-empty", "-delete", "-print"],
        ["d", "!", "-delete", "-print"],
    ],
)
def test_find_delete_value_and_later_actions(area, args):
    root, home_dir = area
    fresh(root)
    build(root, find_tree)
    gnu, trashed = compare(root, home_dir, args, tool="find")
    assert gnu.returncode == 1 and trashed  # something failed, something went
    if "touch" in args:  # re-created after the trash took them, as GNU re-creates
        assert (root / "ours" / "d" / "ok" / "deeper" / "g").is_file()


def test_find_delete_by_age(area):
    """find judges a directory by the times it read before emptying it: all goes."""
    root, home_dir = area
    fresh(root)

    def setup(base):
        (base / "old" / "sub").mkdir(parents=True)
        (base / "old" / "sub" / "f").write_text("x")
        (base / "old" / "g").write_text("x")
        for path in ("old/sub/f", "old/sub", "old/g", "old"):
            os.utime(base / path, (1e9, 1e9))
        chown(base / "old")

    build(root, setup)
    gnu, trashed = compare(root, home_dir, ["old", "-mmin", "+5", "-delete"], tool="find")
    assert sorted(trashed) == ["old", "old/g", "old/sub", "old/sub/f"]


@pytest.fixture
def mounted(sandbox):
    """work/{gnu,ours}/top/{a/f, mnt} with a live tmpfs on each mnt (holding x)."""
    require("mount")
    mounts = []
    for name in ("gnu", "ours"):
        top = sandbox.work / name / "top"
        (top / "a").mkdir(parents=True)
        (top / "a" / "f").write_text("x")
        (top / "mnt").mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "safedel-test", str(top / "mnt")])
        if done.returncode != 0:
            pytest.skip("cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN)")
        mounts.append(top / "mnt")
        (top / "mnt" / "x").write_text("x")
    yield sandbox
    for point in mounts:
        subprocess.run(["umount", "-l", str(point)], check=False)


def without_trash_dirs(tree):
    return {p: kind for p, kind in tree.items() if b"/.Trash-" not in b"/" + os.fsencode(p)}


@pytest.mark.parametrize("tool,args", [("rm", ["-rf", "top"]), ("find", ["top", "-delete"])])
def test_a_live_mount_point_is_never_trashed(mounted, tool, args):
    from gnu_side_by_side import SideBySide

    pair = SideBySide(mounted, tool)
    gnu, ours = pair.run(args)
    assert (ours.status, ours.stdout) == (gnu.status, gnu.stdout)
    assert b"Device or resource busy" in gnu.stderr
    if tool == "rm":
        assert ours.stderr == gnu.stderr
    else:
        assert sorted(ours.stderr.splitlines()) == sorted(gnu.stderr.splitlines())
    # What GNU removed is gone from ours too (the tmpfs's own trash dir aside).
    assert without_trash_dirs(ours.after) == without_trash_dirs(gnu.after)
    assert os.path.ismount(mounted.work / "ours" / "top" / "mnt")
    assert not any(
        "/mnt" in event["path"] and event["path"].endswith("mnt")
        for event in mounted.report()
        if event["operation"] == "trash"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["-p", "a/b/c"],
        ["-pv", "a/b/c"],
        ["-p", "--ignore-fail-on-non-empty", "a/b/c"],
        ["-p", "w/e/f"],
        ["w/e/f/.."],
        ["w/e/f/."],
        ["-p", "w/e/f/", "a/b"],
    ],
)
def test_rmdir_parents_as_gnu(area, args):
    root, home_dir = area
    fresh(root)

    def setup(base):
        (base / "a" / "b" / "c").mkdir(parents=True)
        (base / "a" / "keep").write_text("x")
        (base / "w" / "e" / "f").mkdir(parents=True)
        chown(base / "a", base / "w")
        (base / "w").chmod(0o555)

    build(root, setup)
    compare(root, home_dir, args, tool="rmdir")


def test_an_acl_grant_counts_as_gnu_counts_it(area):
    """Mode bits say no, an ACL says yes: GNU removes it all, and so does safedel."""
    require("setfacl")
    root, home_dir = area
    fresh(root)

    def setup(base):
        (base / "d" / "sub").mkdir(parents=True)
        (base / "d" / "sub" / "f").write_text("x")
        (base / "d" / "g").write_text("x")
        for path in (base / "d", base / "d" / "sub"):
            path.chmod(0o755)
            subprocess.run(["setfacl", "-m", f"u:{NOBODY}:rwx", str(path)], check=True)

    build(root, setup)
    gnu, trashed = compare(root, home_dir, ["-rf", "d"])
    assert gnu.returncode == 0 and trashed == ["d"]


def deep_with_a_locked_bottom(base, levels=24, width=200):
    """deep/NNnnn.../... levels deep (past PATH_MAX), built by relative mkdir and chdir
    steps; each level also holds a file and a small subtree, and the bottom a 555
    directory with a file GNU cannot remove, so GNU stops part way down."""
    start = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.chdir(base)
        os.mkdir(b"deep")
        os.chdir(b"deep")
        for level in range(levels):
            for name in (b"f", b"s", b"s/x"):
                (os.mkdir if name.startswith(b"s") else lambda n: open(n, "wb").close())(name)
            name = (b"%02d" % level) + b"n" * (width - 2)
            os.mkdir(name)
            os.chdir(name)
        os.mkdir(b"ro")
        open(b"ro/keep", "wb").close()
        os.chdir(start)
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", os.path.join(base, b"deep")])
        os.chdir(base)
        os.chdir(b"deep")
        for level in range(levels):
            os.chdir((b"%02d" % level) + b"n" * (width - 2))
        os.chmod(b"ro", 0o555)
    finally:
        os.fchdir(start)
        os.close(start)


@pytest.mark.parametrize("args", [["-rf", "deep"], ["-rfv", "deep"]])
def test_past_path_max_with_a_locked_bottom(area, args):
    """The per-entry walk below PATH_MAX goes by descriptor: GNU's outcome, and the
    trash holds exactly what GNU removed."""
    root, home_dir = area
    fresh(root)
    for name in ("gnu", "ours"):
        deep_with_a_locked_bottom(os.fsencode(root / name))
    before = deep_snapshot(root / "gnu")
    runs = nobody_run(root, home_dir, args, b"")
    gnu, ours = runs["gnu"], runs["ours"]
    assert (ours.returncode, ours.stdout, ours.stderr) == (gnu.returncode, gnu.stdout, gnu.stderr)
    assert gnu.returncode == 1 and b"ro/keep': Permission denied" in gnu.stderr
    after = deep_snapshot(root / "gnu")
    assert deep_snapshot(root / "ours") == after
    report = (root / "state" / "report.jsonl").read_text()
    events = [json.loads(line) for line in report.splitlines()]
    in_trash = set()
    for event in events:
        assert event["operation"] == "trash"
        rel = os.path.relpath(os.fsencode(event["path"]), os.fsencode(root / "ours"))
        in_trash.add(rel)
        if os.path.isdir(event["trashPath"]) and not os.path.islink(event["trashPath"]):
            in_trash |= {rel + b"/" + inner for inner in deep_snapshot(event["trashPath"])}
    assert in_trash == before - after
    assert len(trash_names(root)) == len(events)
