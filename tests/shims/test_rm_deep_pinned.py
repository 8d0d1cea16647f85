"""rm -rf beside /usr/bin/rm on a tree with chattr +a/+i on a directory far down.

Deeper than the path budget, rm's walk goes by descriptor (rmdeep); a pinned
directory there must stop it as it stops GNU: the same messages, exit status and
remaining tree, and the trash holds exactly what GNU removed.
"""

import fcntl
import os
import subprocess

import pytest
from conftest import require
from gnu_side_by_side import REAL, deep_snapshot, walk_fd

LEVELS, WIDTH = 20, 200
_GETFLAGS, _SETFLAGS, _PINNED = 0x80086601, 0x40086602, 0x10 | 0x20


def name_at(level):
    return (b"%02d" % level) + b"n" * (WIDTH - 2)


def build(base, flag, pinned_level):
    """base/dk/00nnn.../01nnn.../... LEVELS deep, each level holding a file f, made by
    relative mkdir and chdir; the directory at pinned_level (1 = the first under dk)
    gets chattr flag. False when chattr does not work here."""
    chattr = require("chattr")
    start = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.chdir(base)
        os.mkdir(b"dk")
        os.chdir(b"dk")
        for level in range(LEVELS):
            open(b"f", "wb").close()
            os.mkdir(name_at(level))
            os.chdir(name_at(level))
        open(b"f", "wb").close()
        os.chdir(base)
        os.chdir(b"dk")
        for level in range(pinned_level - 1):
            os.chdir(name_at(level))
        done = subprocess.run([chattr, flag, name_at(pinned_level - 1)], capture_output=True)
        return done.returncode == 0
    finally:
        os.fchdir(start)
        os.close(start)


def unpin_all(top):
    """chattr -i -a on everything under top, wherever a pinned entry ended up."""

    def unpin(parent_fd, name, prefix, is_dir):
        if not is_dir and not os.path.isfile(os.path.join(b"/proc/self/fd/%d" % parent_fd, name)):
            return
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=parent_fd)
        try:
            flags = bytearray(8)
            fcntl.ioctl(fd, _GETFLAGS, flags)
            value = int.from_bytes(flags[:4], "little")
            if value & _PINNED:
                fcntl.ioctl(fd, _SETFLAGS, (value & ~_PINNED).to_bytes(8, "little"))
        except OSError:
            pass
        finally:
            os.close(fd)

    walk_fd(top, unpin)


@pytest.mark.parametrize("args", [["-rf", "dk"], ["-rfv", "dk"]])
@pytest.mark.parametrize("pinned_level", [16, 12])
@pytest.mark.parametrize("flag", [b"+a", b"+i"])
def test_pinned_directory_deep_down(sandbox, flag, pinned_level, args):
    """Level 16 is past the path budget (the descriptor walk), 12 within it."""
    sides = {"gnu": sandbox.work / "gnu", "ours": sandbox.work / "ours"}
    try:
        for base in sides.values():
            base.mkdir()
            if not build(os.fsencode(base), flag, pinned_level):
                pytest.skip("chattr does not work on this file system (or not as root)")
        before = deep_snapshot(sides["gnu"])
        done, after = {}, {}
        for which, base in sides.items():
            env = sandbox.shim_env() if which == "ours" else sandbox.base_env()
            executable = os.path.join(sandbox.shim_home, "bin", "rm")
            done[which] = subprocess.run(
                ["rm", *args],
                executable=REAL["rm"] if which == "gnu" else executable,
                cwd=base,
                env=env,
                capture_output=True,
                timeout=60,
            )
            after[which] = deep_snapshot(base)
        gnu, ours = done["gnu"], done["ours"]
        assert (ours.returncode, ours.stdout, ours.stderr) == (
            gnu.returncode,
            gnu.stdout,
            gnu.stderr,
        )
        assert gnu.returncode == 1 and b"Operation not permitted" in gnu.stderr
        assert after["ours"] == after["gnu"]
        events = [e for e in sandbox.report() if e["operation"] == "trash"]
        in_trash = set()
        for event in events:
            rel = os.path.relpath(os.fsencode(event["path"]), os.fsencode(sides["ours"]))
            in_trash.add(rel)
            if os.path.isdir(event["trashPath"]) and not os.path.islink(event["trashPath"]):
                in_trash |= {rel + b"/" + inner for inner in deep_snapshot(event["trashPath"])}
        assert in_trash == before - after["gnu"]
        assert len(sandbox.trashed_names()) == len(events)
    finally:
        unpin_all(sandbox.root)
