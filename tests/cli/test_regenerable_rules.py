"""The guard leaves ignored files uncounted only by ignore rules the command did not
write (issue #29, case 6, for the guard), as told by a git it did not plant: a rule it
adds to .gitignore or info/exclude, an excludes file it names in config or through
GIT_CONFIG_*, a GIT_DIR it points elsewhere, a `git` of its own first on PATH or
written over the one the run found: each leaves the 80 untracked files of dist/ counted, so a
runaway loop over them stops at the threshold, in Python, Node and rm alike."""

import os
import shlex
import subprocess
import sys

import sampling
from conftest import last_markers, require
from test_regenerable_loops import LOOP, NODE_LOOP

# What the command does first, before it empties dist/. $OLD: a rules file naming
# dist/, $O: another repository whose info/exclude ignores dist/; both made before.
SPELLINGS = {
    ".gitignore": "echo dist/ > .gitignore",
    "info/exclude": "echo dist/ >> .git/info/exclude",
    "config": "git config core.excludesFile $OLD",
    "GIT_CONFIG_*": (
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.excludesFile GIT_CONFIG_VALUE_0=$OLD;"
        " export GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0"
    ),
    "GIT_DIR": "GIT_DIR=$O/.git GIT_WORK_TREE=$PWD; export GIT_DIR GIT_WORK_TREE",
    # A git of its own that calls everything ignored: first on PATH, or written over
    # the git the run found (same inode) when that one is the user's to write.
    "git on PATH": "PATH=$FAKE:$PATH; export PATH",
    "git written over": "cat $FAKE/git > $PINNED/git",
    # The work tree moved up to a folder whose old .gitignore names dist/.
    "core.worktree": "git config core.worktree $PARENT",
}
# What a fake git answers: every path asked about is ignored by .gitignore's dist/.
FAKE_GIT = """#!{python}
import sys
if "check-ignore" in sys.argv:
    for path in sys.stdin.buffer.read().split(b"\\0"):
        if path:
            sys.stdout.buffer.write(b".gitignore\\0" b"1\\0" b"dist/\\0" + path + b"\\0")
"""


def _project(sandbox):
    """app/ with 80 untracked files in dist/, made before the run; nothing ignores them."""
    git = require("git")
    root = sandbox.work / "app"
    (root / "dist").mkdir(parents=True)
    subprocess.run([git, "init", "-q", str(root)], check=True)
    for number in range(80):
        (root / "dist" / f"{number}.js").write_text("x")
    (sandbox.root / "old-rules").write_text("dist/\n")
    other = sandbox.root / "other"
    subprocess.run([git, "init", "-q", str(other)], check=True)
    with open(other / ".git" / "info" / "exclude", "a") as handle:
        handle.write("dist/\n")
    fake, pinned = sandbox.root / "fake", sandbox.root / "pinned"
    fake.mkdir()
    (fake / "git").write_text(FAKE_GIT.format(python=sys.executable))
    (fake / "git").chmod(0o755)
    pinned.mkdir()  # a copy of git, the first on PATH when the run starts
    subprocess.run(["cp", os.path.realpath(git), str(pinned / "git")], check=True)
    (sandbox.work / ".gitignore").write_text("dist/\n")  # outside app's work tree
    names = {"OLD": str(sandbox.root / "old-rules"), "O": str(other), "PARENT": str(sandbox.work)}
    return root, {**names, "FAKE": str(fake), "PINNED": str(pinned)}


# A matrix (tests/sampling.py): each spelling and each runtime every run.
@sampling.matrix(
    "spelling, runtime",
    [(s, r) for s in sorted(SPELLINGS) for r in ("python", "node", "rm")],
    "regenerable-rules",
)
def test_rules_the_command_writes_leave_its_deletions_counted(sandbox, spelling, runtime):
    root, names = _project(sandbox)
    loop = {
        "python": f"{sys.executable} -c {shlex.quote(LOOP)}",
        "node": f"{require('node')} -e {shlex.quote(NODE_LOOP)}",
        "rm": "rm dist/*.js || exit 3",
    }[runtime]
    env = sandbox.base_env(**names)
    env["PATH"] = f"{names['PINNED']}{os.pathsep}{env['PATH']}"
    done = sandbox.run("sh", "-c", f"{SPELLINGS[spelling]} && {loop}", cwd=root, env=env)
    assert done.returncode == 3, done.stderr
    assert "SAFE_DELETE_BULK_CONFIRM_REQUIRED" in last_markers(done.stderr)
    assert len(os.listdir(root / "dist")) == (80 if runtime == "rm" else 30)
    assert [e for e in sandbox.report() if e.get("counted") is False] == []
