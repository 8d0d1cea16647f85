"""Issue #29, case 11: data lost without a deletion.

Covered, in every front end: a file with other hard links goes to the trash as a copy
of its own, so a link left elsewhere (`ln f $TMPDIR/h`, then `: > $TMPDIR/h`) cannot
empty what the trash holds; a race that keeps making links while the file is trashed
cannot either; a copy that cannot be made leaves the file in place. Named in
docs/coverage.md and shown here to lose the old content, with the net and without:
`ln -sf`, `ln -f`, `cp` over a file, truncation, `fallocate --punch-hole`, writing into
the trash itself, and a file inside a directory trashed whole.
"""

import os
import stat

import pytest
from conftest import last_markers, require
from netkit import NOBODY, as_nobody, nobody_package, nobody_scratch, require_net, restore_turn
from spellings import coverage_text

ORIGINAL = b"precious \x00 bytes\n" * 64
SHIMS = [
    ("rm", "rm f"),
    ("unlink", "unlink f"),
    ("find-delete", "find . -name f -delete"),
    ("python-os-remove", "python3 -c 'import os; os.remove(\"f\")'"),
    ("node-unlinkSync", 'node -e \'require("fs").unlinkSync("f")\''),
    ("node-rmSync", 'node -e \'require("fs").rmSync("f")\''),
]
# Each shim alone (--net off) and under the net (whose rename of the copy over the
# trashed link must go through), then what only the net sees: (id, deletion, netted).
FRONT_ENDS = [(f"{i}-{m}", d, n) for i, d in SHIMS for m, n in (("alone", False), ("net", True))]
FRONT_ENDS += [("net-bin-rm", "/bin/rm f", True), ("net-perl", "perl -e 'unlink \"f\"'", True)]


def run(sandbox, script, netted):
    if netted:
        require_net()
    options = [] if netted else ["--net", "off"]
    return sandbox.run("dash", "-c", script, run_options=options)


def plant(path, data=ORIGINAL):
    path.write_bytes(data)
    os.chmod(path, 0o640)
    os.utime(path, ns=(1_500_000_000_123_456_789, 1_600_000_000_987_654_321))


def assert_own_copy(sandbox, name, link):
    """The trash holds the original bytes, mode and mtime, in an inode of its own."""
    kept = sandbox.trash / "files" / name
    st = os.lstat(kept)
    assert kept.read_bytes() == ORIGINAL
    assert st.st_nlink == 1 and st.st_ino != os.lstat(link).st_ino
    assert stat.S_IMODE(st.st_mode) == 0o640
    # Node sets times from a double, to the microsecond: within a few of them.
    assert abs(st.st_mtime_ns - 1_600_000_000_987_654_321) < 10_000


@pytest.mark.parametrize("front,deletion,netted", FRONT_ENDS, ids=[f[0] for f in FRONT_ENDS])
def test_a_link_in_the_temp_dir_cannot_empty_the_trashed_copy(sandbox, front, deletion, netted):
    require(deletion.split()[0])
    plant(sandbox.work / "f")
    link = sandbox.tmpdir / "h"
    script = f'ln f "$TMPDIR/h" && {deletion} && : > "$TMPDIR/h" && echo junk >> "$TMPDIR/h"'
    done = run(sandbox, script, netted)
    assert done.returncode == 0, done.stderr
    assert not (sandbox.work / "f").exists()
    assert link.read_bytes() == b"junk\n"
    assert_own_copy(sandbox, "f", link)
    restored = restore_turn(sandbox)
    assert restored.returncode == 0, restored.stderr
    assert (sandbox.work / "f").read_bytes() == ORIGINAL
    assert os.lstat(sandbox.work / "f").st_nlink == 1  # a file of its own, as the table says


@pytest.mark.parametrize("deletion,netted", [("rm", False), ("/bin/rm", True)], ids=["rm", "net"])
def test_links_made_while_the_file_is_trashed_cannot_reach_the_trash(sandbox, deletion, netted):
    """The command races itself: a loop links each file into the temp dir for as long
    as the name is there, while it is trashed; then every link is emptied."""
    names = [f"f{i}" for i in range(6)]
    for name in names:
        plant(sandbox.work / name)
    script = "".join(
        f'( i=0; while ln {name} "$TMPDIR/{name}.$i" 2>/dev/null; do i=$((i+1)); done ) &\n'
        f"{deletion} {name}\nwait\n"
        for name in names
    )
    script += 'for l in "$TMPDIR"/f*; do : > "$l"; done\n'
    done = run(sandbox, script, netted)
    assert done.returncode == 0, done.stderr
    assert sorted(sandbox.trashed_names()) == names, done.stderr
    for name in names:
        kept = sandbox.trash / "files" / name
        assert kept.read_bytes() == ORIGINAL and os.lstat(kept).st_nlink == 1, name


def test_a_copy_that_cannot_be_made_leaves_the_file_in_place(sandbox, tmpfs):
    """A full disk: the file goes back to its name (its own inode, still linked), the
    deletion fails with the tool's own words and a marker, and the trash holds nothing."""
    small = tmpfs("small", size="1m")
    big = os.urandom(700 * 1024)
    cases = [("rm f", False), ('node -e \'require("fs").unlinkSync("f")\'', False)]
    cases.append(("/bin/rm f", True))
    for deletion, netted in cases:
        require(deletion.split()[0])
        (small / "f").write_bytes(big)
        os.link(small / "f", small / "h")
        done = sandbox.run(
            "dash", "-c", deletion, cwd=small, run_options=[] if netted else ["--net", "off"]
        )
        assert done.returncode != 0, (deletion, done.stderr)
        assert "SAFE_DELETE_FAIL_CLOSED" in last_markers(done.stderr), done.stderr
        assert (small / "f").read_bytes() == big, deletion
        assert os.lstat(small / "f").st_ino == os.lstat(small / "h").st_ino
        for folder in [*small.glob(".Trash-*/files"), *small.glob(".Trash-*/info")]:
            assert list(folder.iterdir()) == [], (deletion, folder)
        os.unlink(small / "f")
        os.unlink(small / "h")


WHOLE = [
    ("rm", "rm -rf {d}"),
    ("python", "python3 -c 'import shutil; shutil.rmtree(\"{d}\")'"),
    ("node", 'node -e \'require("fs").rmSync("{d}", {{recursive: true}})\''),
]


def test_a_directory_trashed_whole_keeps_its_files_links(sandbox):
    """Named in docs/coverage.md: a directory is one rename, and its files keep their
    inodes; the net, which trashes a tree entry by entry, copies each one."""
    for name in [w[0] for w in WHOLE] + ["entries"]:
        (sandbox.work / name).mkdir()
        plant(sandbox.work / name / "f")
    for name, deletion in WHOLE:
        require(deletion.split()[0])
        script = f'ln {name}/f "$TMPDIR/h-{name}" && {deletion.format(d=name)}'
        script += f' && : > "$TMPDIR/h-{name}"'
        done = run(sandbox, script, netted=False)
        assert done.returncode == 0, done.stderr
        assert (sandbox.trash / "files" / name / "f").read_bytes() == b"", name
    assert "a file inside a directory trashed whole" in coverage_text()
    require_net()
    script = 'ln entries/f "$TMPDIR/h2" && /bin/rm -rf entries && : > "$TMPDIR/h2"'
    done = run(sandbox, script, netted=True)
    assert done.returncode == 0, done.stderr
    assert (sandbox.trash / "files" / "f").read_bytes() == ORIGINAL


# (id, the overwrite of {f} ({o}: another file), the words docs/coverage.md names it by)
OVERWRITES = [
    ("ln-sf", "ln -sf {o} {f}", "`ln -sf`"),
    ("ln-f", "ln -f {o} {f}", "`ln -f`"),
    ("cp", "cp {o} {f}", "`cp` over a file"),
    ("truncate", ": > {f}", "`: > file`"),
    ("truncate-tool", "truncate -s 0 {f}", "`truncate -s 0`"),
    ("punch-hole", "fallocate --punch-hole -o 0 -l 8192 {f}", "`fallocate --punch-hole`"),
    ("zero-range", "fallocate --zero-range -o 0 -l 8192 {f}", "`--zero-range`"),
    ("collapse-range", "fallocate --collapse-range -o 0 -l 4096 {f}", "`--collapse-range`"),
    ("dd", "dd if={o} of={f} conv=notrunc status=none", "`dd conv=notrunc`"),
    ("shred", "shred -n 1 {f}", "`shred`"),
    ("mv", "mv {o} {f}", "`mv`, `ln -sf`, `ln -f` over an existing file"),
    ("trash-write", 'rm {f} && : > "$XDG_DATA_HOME/Trash/files/{f}"', "writing into the trash"),
    (
        "trash-link",
        'rm {f} && ln "$XDG_DATA_HOME/Trash/files/{f}" {f}.h && : > {f}.h',
        "a hard link to a trashed file",
    ),
]


@pytest.mark.parametrize("netted", [False, True], ids=["net-off", "net-on"])
def test_overwrites_lose_the_old_content_as_named(sandbox, netted):
    """Each overwrite on a file of its own, all in one run: afterwards no file, in the
    work tree or the trash, holds any of the old contents."""
    for tool in ("ln", "cp", "truncate", "fallocate", "dd", "shred", "mv"):
        require(tool)
    lines, olds = [], {}
    for spelling, overwrite, _words in OVERWRITES:
        name = f"f-{spelling}"
        olds[spelling] = spelling.encode() + b"\n" + ORIGINAL * 16
        plant(sandbox.work / name, olds[spelling])
        (sandbox.work / f"o-{spelling}").write_bytes(b"other\n")
        lines.append(overwrite.format(f=name, o=f"o-{spelling}"))
    done = run(sandbox, "set -e\n" + "\n".join(lines) + "\n", netted)
    assert done.returncode == 0, done.stderr
    everywhere = [*sandbox.work.iterdir(), *(sandbox.trash / "files").glob("*")]
    contents = {p.read_bytes() for p in everywhere if p.is_file()}
    kept = [spelling for spelling, old in olds.items() if old in contents]
    assert kept == [], f"{kept} kept the old content: the table must say so"
    table = coverage_text()
    for spelling, _overwrite, words in OVERWRITES:
        assert words in table, f"docs/coverage.md must name {words} ({spelling})"


def test_uid_65534_in_a_shared_directory_keeps_its_trashed_copies():
    require_net()
    script = (
        'echo p1 > f && ln f "$TMPDIR/f2" && rm f && : > "$TMPDIR/f2"\n'
        'echo p2 > g && ln g "$TMPDIR/g2" && /bin/rm g && : > "$TMPDIR/g2"\n'
        'echo p3 > n && ln n "$TMPDIR/n2" && node -e \'require("fs").unlinkSync("n")\''
        ' && : > "$TMPDIR/n2"\n'
        'echo p4 > u && chmod 0 u && ln u "$TMPDIR/u2" && rm u\n'
    )
    require("node")
    with nobody_scratch("safedel-net-links-") as scratch:
        nobody_package(os.path.join(scratch, "package"))
        status, stderr = as_nobody(scratch, "work", script, netted=True)
        assert status == 1, stderr
        assert b"rm: cannot remove 'u': Permission denied" in stderr
        assert "SAFE_DELETE_FAIL_CLOSED" in last_markers(stderr), stderr
        trash = os.path.join(scratch, "home", ".local", "share", "Trash", "files")
        for name, data in (("f", b"p1\n"), ("g", b"p2\n"), ("n", b"p3\n")):
            with open(os.path.join(trash, name), "rb") as handle:
                assert handle.read() == data, name
            assert os.lstat(os.path.join(trash, name)).st_uid == NOBODY
        kept = os.path.join(scratch, "work", "u")
        assert os.lstat(kept).st_nlink == 2 and sorted(os.listdir(trash)) == ["f", "g", "n"]
