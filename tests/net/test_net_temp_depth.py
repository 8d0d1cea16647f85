"""Files deeper in the temp dir (a tool's private `/tmp/cc-XXXX/`) are left to the
kernel, however the caller names them; a walk from the temp dir that leaves it by a
symlink or by '..' reaches the workspace, and is judged there.

The net lets these calls through by walking down from the temp dir by plain names only
(net/quick.py); every other walk goes to the full judgement. Both sides are checked
here: what must be deleted for real, and what must still land in the trash.
"""

from netkit import require_net

# No shim in this child (-I): only the net sees its unlinks. Absolute, relative to the
# cwd, and relative to a dirfd: each spelling of a file one level below the temp dir.
DEEP = """
import os, sys
tmp = sys.argv[1]
os.unlink(os.path.join(tmp, "cc-1", "a.o"))
os.chdir(tmp)
os.unlink("cc-1/b.o")
fd = os.open(tmp, os.O_RDONLY | os.O_DIRECTORY)
os.unlink("cc-1/deeper/c.o", dir_fd=fd)
os.rmdir("cc-1/deeper")
"""


def test_files_deeper_in_the_temp_dir_are_deleted_for_real(sandbox):
    require_net()
    deep = sandbox.tmpdir / "cc-1" / "deeper"
    deep.mkdir(parents=True)
    for path in (deep.parent / "a.o", deep.parent / "b.o", deep / "c.o"):
        path.write_text("obj")
    script = sandbox.root / "deep.py"
    script.write_text(DEEP)
    done = sandbox.run("python3", "-I", str(script), str(sandbox.tmpdir))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (sandbox.tmpdir / "cc-1").iterdir()) == []
    assert sandbox.trashed_names() == [], done.stderr


def test_a_walk_out_of_the_temp_dir_is_judged_where_it_lands(sandbox):
    require_net()
    proj = sandbox.work / "proj"
    proj.mkdir()
    for name in ("by-link.txt", "by-inner-link.txt", "by-dots.txt"):
        (proj / name).write_text("mine")
    tmp = sandbox.tmpdir
    (tmp / "link").symlink_to(proj)
    (tmp / "cc-2").mkdir()
    (tmp / "cc-2" / "inner").symlink_to(proj)
    script = (
        f"/usr/bin/rm {tmp}/link/by-link.txt"
        f" && /usr/bin/rm {tmp}/cc-2/inner/by-inner-link.txt"
        f" && /usr/bin/rm {tmp}/cc-2/../../work/proj/by-dots.txt"
        f" && cd {tmp} && /usr/bin/rm cc-2/inner/../inner/nothing.txt"
    )
    done = sandbox.run("sh", "-c", script)
    # The last file never existed: rm's own error, after the three were trashed.
    assert b"nothing.txt" in done.stderr, done.stderr
    assert sorted(sandbox.trashed_names()) == ["by-dots.txt", "by-inner-link.txt", "by-link.txt"]
    assert sorted(p.name for p in proj.iterdir()) == []
