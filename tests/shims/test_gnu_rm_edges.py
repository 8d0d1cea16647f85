"""The rm launcher where it must differ from GNU rm, or where the setup is unusual.

Hostile names, protected paths, a device with no usable trash, the bulk guard,
exempt paths, inert mode, and (as an unprivileged user) write-protected prompts
and an unwritable parent directory.
"""

import os
import shutil
import subprocess

import pytest
from conftest import last_markers, require
from gnu_side_by_side import NOBODY, SideBySide, assert_trashed, nobody_area, nobody_run, snapshot

HOSTILE = [
    b"new\nline",
    b"-lead",
    b"with space",
    b"pct%41%",
    b"\xff\xfe-not-utf8",
    b"n" * 255,
    b"it's",
    b"\x1b[31mred",
    b"tab\there",
    b"caf\xc3\xa9",
    b"*",
]


def hostile_tree(base):
    os.mkdir(os.path.join(base, b"h"))
    for name in HOSTILE:
        with open(os.path.join(base, b"h", name), "wb") as handle:
            handle.write(b"x")


@pytest.fixture
def side(sandbox):
    require("/usr/bin/rm")
    pair = SideBySide(sandbox, "rm")
    pair.build(hostile_tree)
    return pair


@pytest.mark.parametrize("lang", ["C.UTF-8", "C"])
def test_hostile_names_same_as_gnu(side, sandbox, lang):
    names = [b"h/" + name for name in HOSTILE]
    missing = [name + b".missing" for name in names]
    env, shim_env = sandbox.base_env(LANG=lang), sandbox.shim_env(LANG=lang)
    ours = side.same(["-v", "--", *names, *missing], env=env, shim_env=shim_env)
    assert len(ours.gone) == len(HOSTILE) and ours.status == 1
    events = assert_trashed(sandbox, ours, side.ours, "rm")
    assert sorted(os.fsencode(os.path.basename(e["path"])) for e in events) == sorted(HOSTILE)


def test_hostile_names_prompted(side, sandbox):
    names = [b"h/" + name for name in HOSTILE]
    ours = side.same(["-i", "--", *names], b"y\nn\n" * len(HOSTILE))
    assert len(ours.gone) == (len(HOSTILE) + 1) // 2


def run_ours(sandbox, args, env=None, stdin=b""):
    launcher = os.path.join(sandbox.shim_home, "bin", "rm")
    return subprocess.run(
        ["rm", *args],
        executable=launcher,
        cwd=sandbox.work,
        env=env or sandbox.shim_env(),
        input=stdin,
        capture_output=True,
        timeout=60,
    )


@pytest.mark.parametrize("target", ["~", "~/", "/proc", "/sys/"])
def test_protected_paths_are_refused(sandbox, target):
    path = str(sandbox.home) + target[1:] if target.startswith("~") else target
    (sandbox.home / "keep").write_text("x")
    done = run_ours(sandbox, ["-rf", path])
    assert done.returncode == 1
    lines = done.stderr.decode().splitlines()
    assert lines[0].startswith("rm: refusing to remove ") and "safedel protects it" in lines[0]
    assert last_markers(done.stderr)["SAFE_DELETE_FAIL_CLOSED"]["path"] == path.rstrip("/")
    assert (sandbox.home / "keep").exists()
    assert [(e["operation"], e["path"]) for e in sandbox.report()] == [("refuse", path.rstrip("/"))]


def test_protection_spares_the_other_operands(sandbox):
    (sandbox.work / "a").write_text("x")
    done = run_ours(sandbox, ["-rf", str(sandbox.home), "a"])
    assert done.returncode == 1 and not (sandbox.work / "a").exists()
    assert sandbox.trashed_names() == ["a"] and sandbox.home.is_dir()


def test_device_without_usable_trash_fails_closed(sandbox, tmpfs):
    mount = tmpfs("mnt", at=sandbox.work)
    (mount / "f").write_text("keep me")
    (mount / f".Trash-{os.getuid()}").write_text("not a directory")
    done = run_ours(sandbox, ["-v", "mnt/f"])
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr.startswith(b"[safe-delete][SAFE_DELETE_FAIL_CLOSED] ")
    assert done.stderr.endswith(b"rm: cannot remove 'mnt/f': Invalid cross-device link\n")
    marker = last_markers(done.stderr)["SAFE_DELETE_FAIL_CLOSED"]
    assert marker["path"] == str(mount / "f") and "no usable trash" in marker["reason"]
    assert (mount / "f").read_text() == "keep me"
    assert [e["operation"] for e in sandbox.report()] == ["refuse"]


def test_device_with_topdir_trash(sandbox, tmpfs):
    mount = tmpfs("mnt", at=sandbox.work)
    (mount / "d").mkdir()
    (mount / "d" / "x").write_text("x")
    done = run_ours(sandbox, ["-rv", "mnt/d"])
    assert done.returncode == 0
    assert done.stdout == b"removed 'mnt/d/x'\nremoved directory 'mnt/d'\n"
    assert os.listdir(mount / f".Trash-{os.getuid()}" / "files") == ["d"]


def test_bulk_guard_refuses_the_whole_batch(sandbox):
    for name in "abc":
        (sandbox.work / name).write_text(name)
    done = run_ours(sandbox, ["-v", "a", "b", "c"], env=sandbox.shim_env(threshold=2))
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr.splitlines()[0].startswith(b"rm: bulk guard: 3 more would pass")
    marker = last_markers(done.stderr)["SAFE_DELETE_BULK_CONFIRM_REQUIRED"]
    assert marker["targetCount"] == 3 and marker["threshold"] == 2
    assert sorted(os.listdir(sandbox.work)) == ["a", "b", "c"]
    done = run_ours(sandbox, ["-rf", "a", "b"], env=sandbox.shim_env(threshold=2))
    assert done.returncode == 0 and sandbox.trashed_names() == ["a", "b"]


def test_exempt_paths_are_deleted_for_real(sandbox):
    (sandbox.tmpdir / "scratch").mkdir()
    (sandbox.tmpdir / "scratch" / "x").write_text("x")
    (sandbox.work / "kept").write_text("x")
    done = run_ours(sandbox, ["-rv", str(sandbox.tmpdir / "scratch"), "kept"])
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1] == b"removed 'kept'"
    assert not (sandbox.tmpdir / "scratch").exists()
    assert sandbox.trashed_names() == ["kept"] and len(sandbox.report()) == 1


def test_inert_without_safedel_active(sandbox):
    require("/usr/bin/rm")
    pair = SideBySide(sandbox, "rm")
    pair.build(hostile_tree)
    inert = sandbox.shim_env()
    del inert["SAFEDEL_ACTIVE"]
    ours = pair.same(["-rv", "h", "nope"], shim_env=inert)
    assert ours.gone and sandbox.trashed_names() == [] and sandbox.report() == []


@pytest.fixture
def unprivileged(tmp_path):
    """A world-reachable tree, shim home and HOME for running as nobody (uid 65534)."""
    require("setpriv")
    if os.geteuid() != 0 or not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("needs root (to become nobody) and /usr/bin/python3")
    root, home_dir = nobody_area()
    yield root, home_dir
    shutil.rmtree(root, ignore_errors=True)


def nobody_tree(root):
    for which in ("gnu", "ours"):
        base = root / which
        (base / "wp").write_text("x")
        (base / "wp").chmod(0o444)
        (base / "sealed").mkdir()
        (base / "sealed" / "inside").write_text("x")
        (base / "open").mkdir()
        (base / "open" / "wp2").write_text("x")
        (base / "open" / "wp2").chmod(0o400)
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(base / "wp"), str(base / "open")])
        (base / "sealed").chmod(0o755)  # root's: nobody may not remove what is inside
        base.chmod(0o777)


@pytest.mark.parametrize(
    "args, answers",
    [
        (["---presume-input-tty", "wp"], b"y\n"),
        (["---presume-input-tty", "wp"], b"n\n"),
        (["wp"], b""),
        (["-f", "---presume-input-tty", "wp"], b""),
        (["---presume-input-tty", "-r", "open"], b"y\ny\ny\n"),
        (["---presume-input-tty", "-r", "open"], b"y\nn\ny\n"),
        (["-v", "sealed/inside", "wp"], b""),
        (["-f", "sealed/inside"], b""),
    ],
)
def test_unprivileged_same_as_gnu(unprivileged, args, answers):
    root, home_dir = unprivileged
    nobody_tree(root)
    runs = nobody_run(root, home_dir, args, answers)
    gnu, ours = runs["gnu"], runs["ours"]
    # GNU's own failures get GNU's message and no marker: safedel changed nothing there.
    assert (ours.returncode, ours.stdout, ours.stderr) == (gnu.returncode, gnu.stdout, gnu.stderr)
    assert snapshot(root / "ours") == snapshot(root / "gnu")


def test_unset_variable_slash_is_root(sandbox):
    """`rm -rf "$UNSET/"` reaches rm as '/': GNU's preserve-root refusal, nothing touched."""
    script = 'rm -rf "$UNSET/"'
    gnu = subprocess.run(["sh", "-c", script], env=sandbox.base_env(), capture_output=True)
    ours = subprocess.run(["sh", "-c", script], env=sandbox.shim_env(), capture_output=True)
    assert gnu.stderr == b"rm: it is dangerous to operate recursively on '/'\n" + (
        b"rm: use --no-preserve-root to override this failsafe\n"
    )
    assert (ours.returncode, ours.stdout, ours.stderr) == (1, b"", gnu.stderr)
    assert sandbox.report() == []


def test_write_protected_prompt_on_a_real_terminal(unprivileged):
    """stdin a terminal (no ---presume-input-tty): GNU's question, and the answer obeyed."""
    root, home_dir = unprivileged
    nobody_tree(root)
    outcomes = {}
    for which in ("gnu", "ours"):
        leader, follower = os.openpty()
        os.write(leader, b"y\n")
        runs = nobody_run(root, home_dir, ["wp"], None, follower, only=[which])
        os.close(follower)
        os.close(leader)
        outcomes[which] = runs[which]
    gnu, ours = outcomes["gnu"], outcomes["ours"]
    assert gnu.stderr == b"rm: remove write-protected regular file 'wp'? "
    assert (ours.returncode, ours.stdout, ours.stderr) == (gnu.returncode, gnu.stdout, gnu.stderr)
    assert not (root / "ours" / "wp").exists() and not (root / "gnu" / "wp").exists()
