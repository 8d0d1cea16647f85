"""A project bind-mounted into the temp dir is judged like any other path by the shims.

The temp dir is exempt (deleted for real) only on its own mount: `mount --bind ~/proj
$TMPDIR/x` must not let the rm shim, the Python shim or the Node shim destroy the
project's files, with the net off as much as with it on. Each test runs `safedel run
--net off` in its own mount namespace (tests/mountns.py) and checks that every project
file is still in place or in the trash, that each deletion that reached it was refused
or failed closed with a marker naming it, and that ordinary temp files, and temp
directories around the mount, are still deleted for real.
"""

import json
import sys

from conftest import require
from mountns import run_in_namespace

PREFIX = "[safe-delete]["


def _layout(sandbox):
    """The project, the temp dir's own files, and the mounts' setup script."""
    proj = sandbox.work / "proj"
    (proj / "sub").mkdir(parents=True)
    for name in ("notes.txt", "keep.txt", "sub/deep.txt"):
        (proj / name).write_text("mine")
    tmp = sandbox.tmpdir
    for folder in ("x", "d/in", "e/f"):
        (tmp / folder).mkdir(parents=True)
    (tmp / "plain.txt").write_text("scratch")
    (tmp / "d" / "scratch.txt").write_text("scratch")
    (tmp / "e" / "f" / "g.o").write_text("obj")
    setup = f"mount --bind {proj} {tmp}/x && mount --bind {proj} {tmp}/d/in"
    return proj, tmp, setup


def _marked_paths(stderr):
    """Every path a marker line names (a refusal's path, a question's targets)."""
    named = set()
    for line in stderr.decode("utf-8", "replace").splitlines():
        if line.startswith(PREFIX):
            payload = json.loads(line.split("] ", 1)[1])
            named.update(payload.get("targets", []))
            if "path" in payload:
                named.add(payload["path"])
    return named


def _trashed(sandbox):
    names = set(sandbox.trashed_names())
    for trash in sandbox.root.rglob(".Trash-*/files"):
        names.update(p.name for p in trash.iterdir())
    return names


def _check(sandbox, proj, done, reached, gone):
    """The project survives (in place or trashed); each path in reached was named by a
    marker (itself or a mount under it); the temp paths in gone were deleted for real."""
    trashed = _trashed(sandbox)
    for name in ("notes.txt", "keep.txt", "sub/deep.txt"):
        original = proj / name
        assert original.exists() or original.name in trashed, (name, done.stderr)
        if original.exists():
            assert original.read_text() == "mine"
    marked = _marked_paths(done.stderr)
    for path in reached:
        hit = [m for m in marked if m == str(path) or m.startswith(f"{path}/")]
        assert hit, (path, marked, done.stderr)
    for path in gone:
        assert not path.exists(), (path, done.stdout, done.stderr)
        assert path.name not in trashed, done.stderr
    real = {e["path"] for e in sandbox.report() if e["operation"] == "trash"}
    assert real.isdisjoint(str(p) for p in gone), done.stderr


def test_the_rm_shim_keeps_a_bind_mounted_project(sandbox):
    proj, tmp, setup = _layout(sandbox)
    script = (
        f"rm {tmp}/x/notes.txt; rm -r {tmp}/x; rm -rf {tmp}/d;"
        f" rm {tmp}/plain.txt && rm -r {tmp}/e && echo plain-gone"
    )
    done = run_in_namespace(sandbox, setup, script, run_options=("--net", "off"))
    assert b"plain-gone" in done.stdout, done.stderr
    reached = [tmp / "x" / "notes.txt", tmp / "x", tmp / "d" / "in"]
    gone = [tmp / "plain.txt", tmp / "e", tmp / "d" / "scratch.txt"]
    _check(sandbox, proj, done, reached, gone)


PYTHON = """
import os, shutil, sys
tmp = sys.argv[1]
for call, path in ((os.remove, "x/notes.txt"), (shutil.rmtree, "x"), (shutil.rmtree, "d"),
                   (os.unlink, "x/keep.txt"), (os.remove, "plain.txt"), (shutil.rmtree, "e")):
    try:
        call(os.path.join(tmp, path))
        print("ok", path)
    except OSError as exc:
        print("failed", path, exc.errno)
"""


def _run_program(sandbox, name, text, interpreter):
    """(proj, tmp, completed, stdout) of program text run with interpreter on the
    layout's temp dir, in its namespace, with the shims alone."""
    proj, tmp, setup = _layout(sandbox)
    program = sandbox.root / name
    program.write_text(text)
    script = f"{interpreter} {program} {tmp}"
    done = run_in_namespace(sandbox, setup, script, run_options=("--net", "off"))
    return proj, tmp, done, done.stdout.decode()


def test_the_python_shim_keeps_a_bind_mounted_project(sandbox):
    proj, tmp, done, out = _run_program(sandbox, "delete.py", PYTHON, sys.executable)
    assert "ok plain.txt" in out and "ok e" in out, (out, done.stderr)
    for path in ("x/notes.txt", "x", "d", "x/keep.txt"):
        assert f"failed {path} " in out or f"ok {path}" in out, (out, done.stderr)
    reached = [tmp / "x" / "notes.txt", tmp / "x", tmp / "d", tmp / "x" / "keep.txt"]
    _check(sandbox, proj, done, reached, [tmp / "plain.txt", tmp / "e"])


NODE = """
const fs = require('fs');
const tmp = process.argv[2];
const calls = [['unlinkSync', 'x/notes.txt', {}], ['rmSync', 'x', { recursive: true }],
  ['rmSync', 'd', { recursive: true, force: true }], ['rmSync', 'x/keep.txt', {}],
  ['unlinkSync', 'plain.txt', {}], ['rmSync', 'e', { recursive: true }]];
for (const [call, path, options] of calls) {
  try {
    if (call === 'unlinkSync') fs.unlinkSync(`${tmp}/${path}`);
    else fs.rmSync(`${tmp}/${path}`, options);
    console.log('ok', path);
  } catch (err) {
    console.log('failed', path, err.code);
  }
}
"""


def test_the_node_shim_keeps_a_bind_mounted_project(sandbox):
    node = require("node")
    proj, tmp, done, out = _run_program(sandbox, "delete.js", NODE, node)
    assert "ok plain.txt" in out and "ok e" in out, (out, done.stderr)
    reached = [tmp / "x" / "notes.txt", tmp / "x", tmp / "d" / "in", tmp / "x" / "keep.txt"]
    # Node's rmSync stops at its first error, so what d held beside the mount may stay.
    gone = [tmp / "plain.txt", tmp / "e"]
    _check(sandbox, proj, done, reached, gone)


MID_RUN = """
import os, subprocess, sys
tmp, proj = sys.argv[1], sys.argv[2]
os.remove(os.path.join(tmp, "cc", "t.o"))  # left to the real delete, and remembered
subprocess.run(["mount", "--bind", proj, os.path.join(tmp, "cc")], check=True)
try:
    os.remove(os.path.join(tmp, "cc", "notes.txt"))
    print("ok")
except OSError as exc:
    print("failed", exc.errno)
"""


def test_a_mount_made_mid_process_over_a_remembered_temp_dir_is_judged(sandbox):
    proj, tmp, _ = _layout(sandbox)
    (tmp / "cc").mkdir()
    (tmp / "cc" / "t.o").write_text("obj")
    program = sandbox.root / "midrun.py"
    program.write_text(MID_RUN)
    script = f"{sys.executable} {program} {tmp} {proj}"
    done = run_in_namespace(sandbox, "true", script, run_options=("--net", "off"))
    assert b"ok" in done.stdout or b"failed" in done.stdout, done.stderr
    _check(sandbox, proj, done, [tmp / "cc" / "notes.txt"], [tmp / "cc" / "t.o"])


def test_a_temp_dir_that_is_a_mount_itself_keeps_its_files_exempt(sandbox):
    # The exempt root's own mount (a tmpfs on /tmp, as many systems have) is no boundary.
    tmp = sandbox.tmpdir
    setup = f"mount -t tmpfs safedel-test {tmp} && mkdir -p {tmp}/d/e && echo x > {tmp}/d/e/f"
    script = (
        f"echo y > {tmp}/g && rm {tmp}/g && rm -r {tmp}/d && test ! -e {tmp}/d"
        f' && {sys.executable} -c \'import os; open("{tmp}/h", "w").close(); os.remove("{tmp}/h")\''
        f" && test ! -e {tmp}/h"
    )
    done = run_in_namespace(sandbox, setup, script, run_options=("--net", "off"))
    assert done.returncode == 0, done.stderr
    assert _trashed(sandbox) == set(), done.stderr
    assert [e for e in sandbox.report() if e["operation"] == "trash"] == []
