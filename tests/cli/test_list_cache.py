"""The catalog cache in each trash dir: listings with it are the same as a cold read of
the info files, also after other tools added, restored or removed items in between."""

import json
import os
import subprocess
import sys

from conftest import require

from safedel.core import trash


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
            trash.trash(str(path))
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
        trash.trash(str(sandbox.work / "dir"))
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
