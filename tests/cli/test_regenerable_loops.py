"""Build-style loops under the default threshold: what the turn created and what git
ignores is trashed uncounted; 80 tracked files are refused at the 51st."""

import json
import os
import shlex
import subprocess
import sys

import pytest
from conftest import last_markers, require

LOOP = (
    "import os, sys\n"
    "done = 0\n"
    "for name in sorted(os.listdir('dist'), key=lambda n: int(n.split('.')[0])):\n"
    "    try:\n"
    "        os.remove(os.path.join('dist', name))\n"
    "    except PermissionError:\n"
    "        print(done); sys.exit(3)\n"
    "    done += 1\n"
    "print(done)\n"
)


def project(sandbox, ignored, count=80):
    root = sandbox.work / "app"
    root.mkdir()
    git = require("git")
    subprocess.run([git, "init", "-q", str(root)], check=True)
    if ignored:
        (root / ".gitignore").write_text("dist/\n")
    (root / "dist").mkdir()
    for number in range(count):
        (root / "dist" / f"{number}.js").write_text("x")
    subprocess.run([git, "-C", str(root), "add", "-A"], check=True)
    # The files predate the turn: only git's answer can leave them uncounted.
    return root


def uncounted(sandbox):
    return [e.get("why") for e in sandbox.report() if e.get("counted") is False]


def batches(sandbox):
    """(takes, refused) of the turn as `safedel guard status` reads its ledger: a batch
    let through as regenerable after a refusal reads as never refused."""
    argv = [sys.executable, "-m", "safedel", "guard", "status", "--json"]
    argv += ["--session", sandbox.session, "--turn", sandbox.turn]
    done = subprocess.run(argv, env=sandbox.base_env(), capture_output=True, text=True)
    status = json.loads(done.stdout)
    return status["takes"], status["refused"]


def test_python_empties_an_ignored_dist(sandbox):
    root = project(sandbox, ignored=True)
    done = sandbox.run(sys.executable, "-c", LOOP, cwd=root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [b"80"] and os.listdir(root / "dist") == []
    assert len(sandbox.trashed_names()) == 80
    assert uncounted(sandbox) == ["ignored"] * 30  # the first 50 fitted the allowance
    assert batches(sandbox) == (50, 0)


def test_python_over_tracked_files_is_refused_at_the_51st(sandbox):
    root = project(sandbox, ignored=False)
    done = sandbox.run(sys.executable, "-c", LOOP, cwd=root)
    assert done.returncode == 3 and done.stdout.split() == [b"50"]
    assert len(os.listdir(root / "dist")) == 30
    assert "SAFE_DELETE_BULK_CONFIRM_REQUIRED" in last_markers(done.stderr)
    assert batches(sandbox) == (51, 1)


def test_without_git_nothing_is_ignored_and_nothing_crashes(sandbox):
    root = project(sandbox, ignored=True)
    env = sandbox.base_env(PATH=str(sandbox.root / "no-git-here"))
    done = sandbox.run(sys.executable, "-c", LOOP, cwd=root, env=env)
    assert done.returncode == 3 and done.stdout.split() == [b"50"], done.stderr
    assert b"Traceback" not in done.stderr


@pytest.mark.parametrize("runtime", ["python", "rm"])
def test_files_this_turn_made_are_not_counted(sandbox, runtime):
    """Directories with entries: a lone file removed at once is short-lived churn,
    deleted for real (tests/realwork/test_churn.py); these go to the trash uncounted."""
    root = project(sandbox, ignored=False, count=0)
    if runtime == "python":
        code = (
            "import os, shutil\n"
            "for n in range(120):\n"
            "    os.mkdir(f'dist/{n}'); open(f'dist/{n}/f', 'w').close()\n"
            "    shutil.rmtree(f'dist/{n}')\n"
        )
        command = [sys.executable, "-c", code]
    else:
        loop = "mkdir dist/$i; : > dist/$i/f; rm -r dist/$i || exit 1; i=$((i+1))"
        command = ["sh", "-c", f"i=0; while [ $i -lt 120 ]; do {loop}; done"]
    done = sandbox.run(*command, cwd=root)
    assert done.returncode == 0, done.stderr
    assert len(sandbox.trashed_names()) == 120
    assert uncounted(sandbox) == ["created-this-turn"] * 70


NODE_LOOP = (
    "const fs = require('fs'); let done = 0;\n"
    "const names = fs.readdirSync('dist').sort((a, b) => parseInt(a) - parseInt(b));\n"
    "for (const name of names) {\n"
    "  try { fs.unlinkSync('dist/' + name); } catch (err) {\n"
    "    if (err.code !== 'EPERM') throw err;\n"
    "    console.log(done); process.exit(3);\n"
    "  }\n"
    "  done += 1;\n"
    "}\n"
    "console.log(done);\n"
)


@pytest.mark.parametrize("ignored", [True, False], ids=["ignored", "tracked"])
def test_node_empties_a_dist(sandbox, ignored):
    root = project(sandbox, ignored=ignored)
    done = sandbox.run(require("node"), "-e", NODE_LOOP, cwd=root)
    if ignored:
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == [b"80"] and os.listdir(root / "dist") == []
        assert uncounted(sandbox) == ["ignored"] * 30
        assert {e["runtime"] for e in sandbox.report()} == {"node"}
        assert batches(sandbox) == (50, 0)
    else:
        assert done.returncode == 3 and done.stdout.split() == [b"50"], done.stderr
        assert len(os.listdir(root / "dist")) == 30
        assert "SAFE_DELETE_BULK_CONFIRM_REQUIRED" in last_markers(done.stderr)
        assert batches(sandbox) == (51, 1)


@pytest.mark.parametrize("runtime", ["python", "node", "rm"])
def test_a_start_the_command_exports_does_not_uncount_older_files(sandbox, runtime):
    """The turn's start is the run's, fixed in its record: a command that exports an
    earlier SAFEDEL_TURN_START still has the 80 files it found counted."""
    root = project(sandbox, ignored=False)
    loop = {
        "python": f"{sys.executable} -c {shlex.quote(LOOP)}",
        "node": f"{require('node')} -e {shlex.quote(NODE_LOOP)}",
        "rm": "rm dist/*.js || exit 3",
    }[runtime]
    forged = f'SAFEDEL_TURN_START="1:$SAFEDEL_TURN"; export SAFEDEL_TURN_START; {loop}'
    done = sandbox.run("sh", "-c", forged, cwd=root)
    assert done.returncode == 3, done.stderr
    assert "SAFE_DELETE_BULK_CONFIRM_REQUIRED" in last_markers(done.stderr)
    assert len(os.listdir(root / "dist")) == (80 if runtime == "rm" else 30)
    assert uncounted(sandbox) == []
