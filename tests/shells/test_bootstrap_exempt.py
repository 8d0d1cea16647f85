"""Issue #29, case 1 outside a run: a shell started with the bootstrap fixes its temp
dir as the directory it was when the shell started (SAFEDEL_EXEMPT_IDS), so a later
`mv "$TMPDIR" x; mv ~/project "$TMPDIR"; rm -rf "$TMPDIR"/*` trashes the project, in
every shell and in the programs the shell starts. The temp dir's own files, deleted
before the swap, still go for real."""

import shlex
import subprocess
import sys

import pytest
from conftest import require

PY = shlex.quote(sys.executable)
SHELLS = {
    "bash": (["bash", "-c"], "bash", 'eval "$({py} -m safedel bootstrap bash)"'),
    "zsh": (["zsh", "-c"], "zsh", 'eval "$({py} -m safedel bootstrap zsh)"'),
    "dash": (["dash", "-c"], "sh", 'eval "$({py} -m safedel bootstrap sh)"'),
    "fish": (["fish", "-c"], "fish", "{py} -m safedel bootstrap fish | source"),
}
DELETE = {
    "rm": 'rm -rf "$TMPDIR"/*',
    "python": 'python3 -c \'import os, shutil; t = os.environ["TMPDIR"];'
    ' os.remove(t + "/keep.txt"); shutil.rmtree(t + "/sub")\'',
    "node": 'node -e \'const fs = require("fs"), t = process.env.TMPDIR;'
    ' fs.unlinkSync(t + "/keep.txt"); fs.rmSync(t + "/sub", { recursive: true })\'',
}


def _layout(sandbox):
    proj = sandbox.root / "proj"
    (proj / "sub").mkdir(parents=True)
    (proj / "keep.txt").write_bytes(b"mine, kept\n")
    (proj / "sub" / "deep.txt").write_bytes(b"mine, deep\n")
    (sandbox.tmpdir / "scratch.o").write_bytes(b"temp\n")
    return proj


@pytest.mark.parametrize(
    "shell, front_end",
    [("bash", "rm"), ("zsh", "rm"), ("dash", "rm"), ("fish", "rm")]
    + [("bash", "python"), ("bash", "node")],
)
def test_a_bootstrapped_shell_keeps_a_project_swapped_in_for_its_temp_dir(
    sandbox, shell, front_end
):
    argv, _, bootstrap = SHELLS[shell]
    require(argv[0])
    require("node" if front_end == "node" else "python3")
    proj = _layout(sandbox)
    tmp = shlex.quote(str(sandbox.tmpdir))
    steps = [
        bootstrap.format(py=PY),
        f"rm {tmp}/scratch.o",
        f"mv {tmp} {tmp}.old",
        f"mv {shlex.quote(str(proj))} {tmp}",
        DELETE[front_end],
        "echo ids=$SAFEDEL_EXEMPT_IDS",
    ]
    script = "\n".join(steps) + "\n"
    done = subprocess.run([*argv, script], env=sandbox.base_env(), capture_output=True)
    assert str(sandbox.tmpdir).encode() in done.stdout, done.stderr
    assert sorted(sandbox.trashed_names()) == ["keep.txt", "sub"], done.stderr
    files = sandbox.trash / "files"
    assert (files / "keep.txt").read_bytes() == b"mine, kept\n"
    assert (files / "sub" / "deep.txt").read_bytes() == b"mine, deep\n"
    # Before the swap the temp dir was exempt: its own file went for real.
    assert not (sandbox.root / "tmpdir.old" / "scratch.o").exists()
