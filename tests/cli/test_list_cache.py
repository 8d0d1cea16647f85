"""The catalog cache in each trash dir: listings with it are the same as a cold read of
the info files, also after other tools added, restored or removed items in between."""

import json
import os
import subprocess
import sys

from conftest import require

from safedel.core.trash import move


def listing(sandbox, *args):
    done = subprocess.run(
        [sys.executable, "-m", "safedel", "list", "--json", *args],
        cwd=sandbox.work,
        env=sandbox.base_env(),
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    mine = str(sandbox.work)
    return sorted(
        (r["path"], r["deletionDate"], r["kind"], r["size"])
        for r in json.loads(done.stdout)
        if r["path"].startswith(mine)
    )


def cold(sandbox, *args):
    cache = sandbox.trash / "safedel-catalog.v1"
    if cache.exists():
        cache.unlink()
    return listing(sandbox, *args)


def trash_many(sandbox, count, prefix="f"):
    env = sandbox.base_env()
    old = dict(os.environ)
    os.environ.update(env)
    try:
        for index in range(count):
            path = sandbox.work / f"{prefix}{index:04d}"
            path.write_text("x" * (index % 7))
            move.trash(str(path))
    finally:
        os.environ.clear()
        os.environ.update(old)


def test_cached_listings_match_a_cold_read_as_other_tools_change_the_trash(sandbox):
    env = sandbox.base_env()
    trash_many(sandbox, 300)
    (sandbox.work / "dir" / "sub").mkdir(parents=True)
    (sandbox.work / "dir" / "sub" / "x").write_text("12345")
    trash_many(sandbox, 0)
    os.environ["XDG_DATA_HOME"], saved = env["XDG_DATA_HOME"], os.environ.get("XDG_DATA_HOME")
    try:
        move.trash(str(sandbox.work / "dir"))
    finally:
        if saved is None:
            del os.environ["XDG_DATA_HOME"]
        else:
            os.environ["XDG_DATA_HOME"] = saved
    first = listing(sandbox)
    assert [size for path, _, kind, size in first if kind == "dir"] == [5]
    assert (sandbox.trash / "safedel-catalog.v1").exists()
    assert listing(sandbox) == first == cold(sandbox)
    # trash-put adds items; the cache sees them.
    for name in ("tp1", "tp2"):
        (sandbox.work / name).write_text(name)
        subprocess.run([require("trash-put"), name], cwd=sandbox.work, env=env, check=True)
    listing(sandbox)
    after_put = listing(sandbox)
    assert len(after_put) == len(first) + 2 and after_put == cold(sandbox)
    # trash-restore puts one back (its own prompt: the row number of tp1).
    rows = subprocess.run(
        [require("trash-restore")],
        cwd=sandbox.work,
        env=env,
        input="\n",
        capture_output=True,
        text=True,
    ).stdout
    (number,) = [line.split()[0] for line in rows.splitlines() if line.rstrip().endswith("/tp1")]
    subprocess.run(
        [require("trash-restore")],
        cwd=sandbox.work,
        env=env,
        input=f"{number}\n",
        capture_output=True,
        check=True,
        text=True,
    )
    assert (sandbox.work / "tp1").exists()
    assert listing(sandbox) == cold(sandbox) and len(listing(sandbox)) == len(first) + 1
    # trash-rm removes by pattern; an info file edited in place is read again.
    subprocess.run([require("trash-rm"), "f00*"], env=env, check=True)
    info = sandbox.trash / "info" / "f0100.trashinfo"
    info.write_text(
        info.read_text().replace("DeletionDate=", "DeletionDate=2020-01-02T03:04:05\n#")
    )
    now = listing(sandbox)
    assert now == cold(sandbox)
    assert not any(p.endswith("/f0005") for p, *_ in now)
    assert [d for p, d, *_ in now if p.endswith("/f0100")] == ["2020-01-02T03:04:05"]
    assert listing(sandbox, str(sandbox.work / "f0200")) == cold(
        sandbox, str(sandbox.work / "f0200")
    )


def test_a_damaged_cache_is_rebuilt(sandbox):
    trash_many(sandbox, 20)
    good = listing(sandbox)
    (sandbox.trash / "safedel-catalog.v1").write_bytes(b"\x00garbage")
    assert listing(sandbox) == good


def run(sandbox, *args):
    return subprocess.run(
        [sys.executable, "-m", "safedel", *args],
        cwd=sandbox.work,
        env=sandbox.base_env(),
        capture_output=True,
    )


def newest_by_a_cold_read(sandbox):
    """What `restore --last` must take: the last listed item that is there and valid,
    as a listing without the cache gives it."""
    cache = sandbox.trash / "safedel-catalog.v1"
    saved = cache.read_bytes() if cache.exists() else None
    if saved is not None:
        cache.unlink()
    rows = json.loads(run(sandbox, "list", "--json").stdout)
    if saved is not None:
        cache.write_bytes(saved)  # the warm cache, as it was, for the command under test
    present = [r for r in rows if r["kind"] != "missing" and not r["invalid"]]
    return present[-1]["path"] if present else None


def test_the_quick_forms_answer_as_the_full_commands_do(sandbox):
    """`list --json`, `list PREFIX --json` and `restore --last` skip typer; the same
    commands with an option only the full CLI takes must print the same bytes."""
    trash_many(sandbox, 40)
    report = str(sandbox.report_path)
    for quick, full in (
        (["list", "--json"], ["list", "--json", "--report", report]),
        (
            ["list", str(sandbox.work / "f0012"), "--json"],
            ["list", "--json", "--report", report, str(sandbox.work / "f0012")],
        ),
    ):
        fast, slow = run(sandbox, *quick), run(sandbox, *full)
        assert fast.returncode == slow.returncode == 0, (fast.stderr, slow.stderr)
        assert fast.stdout == slow.stdout and fast.stderr == slow.stderr == b""
    # A garbled info file: both warn the same way, every time (it is read again).
    (sandbox.trash / "info" / "bad.trashinfo").write_bytes(b"not an info file")
    for _ in range(2):
        fast, slow = (
            run(sandbox, "list", "--json"),
            run(sandbox, "list", "--json", "--report", report),
        )
        assert fast.stdout == slow.stdout and fast.stderr == slow.stderr
        assert b"skipped" in fast.stderr and b"bad.trashinfo" in fast.stderr
    fast = run(sandbox, "restore", "--last")
    slow = run(sandbox, "restore", "--last", "--report", report)
    for done, name in ((fast, "f0039"), (slow, "f0038")):  # each takes the newest left
        assert done.returncode == 0 and done.stderr == fast.stderr
        said = f"restored {sandbox.work / name}\nsafedel restore: restored 1 of 1\n"
        assert done.stdout == said.encode()


def test_restore_last_with_a_warm_cache_takes_what_a_cold_read_would(sandbox):
    """Other tools add and remove items between uses of the cache: `restore --last`
    must still take the newest item there is, never one the cache remembers."""
    env = sandbox.base_env()
    trash_many(sandbox, 30)
    assert run(sandbox, "list", "--json").returncode == 0  # the cache, warm
    # trash-put adds a newer item: it is the one to come back.
    (sandbox.work / "tp").write_text("tp")
    subprocess.run([require("trash-put"), "tp"], cwd=sandbox.work, env=env, check=True)
    assert newest_by_a_cold_read(sandbox) == str(sandbox.work / "tp")
    assert run(sandbox, "restore", "--last").returncode == 0
    assert (sandbox.work / "tp").read_text() == "tp"
    # trash-rm purges the newest two; the payload of the next one goes missing.
    subprocess.run([require("trash-rm"), "f0029"], env=env, check=True)
    subprocess.run([require("trash-rm"), "f0028"], env=env, check=True)
    (sandbox.trash / "files" / "f0027").unlink()
    expected = newest_by_a_cold_read(sandbox)
    assert expected == str(sandbox.work / "f0026")
    done = run(sandbox, "restore", "--last")
    assert done.returncode == 0, done.stderr
    assert os.path.exists(expected)
    # An info file edited in place (no change to the info dir) is read again.
    info = sandbox.trash / "info" / "f0003.trashinfo"
    info.write_text(
        info.read_text().replace("DeletionDate=", "DeletionDate=2099-01-02T03:04:05\n#")
    )
    assert newest_by_a_cold_read(sandbox) == str(sandbox.work / "f0003")
    assert run(sandbox, "restore", "--last").returncode == 0
    assert (sandbox.work / "f0003").exists()


def test_a_cache_damaged_inside_a_section_is_rebuilt(sandbox):
    trash_many(sandbox, 20)
    good = listing(sandbox)
    cache = sandbox.trash / "safedel-catalog.v1"
    data = bytearray(cache.read_bytes())
    data[-200:-100] = b"\xff" * 100  # inside the last section, the list rows
    cache.write_bytes(bytes(data))
    assert listing(sandbox) == good
    done = run(sandbox, "restore", "--last")
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    assert (sandbox.work / "f0019").exists()
