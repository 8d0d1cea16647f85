"""The launchers when stdout is closed or full, as GNU's close_stdout has it: output
that cannot be written never stops the removal, and is `write error: ...` and status
1 at the end; with nothing to write, a closed stdout (or stderr) changes nothing."""

import os
import subprocess

import pytest

CASES = [
    ("stdout closed", 1, ["a"]),
    ("stdout closed", 1, ["-v", "a", "b"]),
    ("stdout full", 1, ["-v", "a", "b"]),
    ("stdout closed", 1, ["--help"]),
    ("stderr closed", 2, ["a"]),
    # Questions go to stderr; the answers (stdin: y, then n) are read all the same.
    ("stderr closed", 2, ["-I", "a", "b", "c", "d"]),
    ("stderr full", 2, ["-i", "a", "b"]),
    ("stderr closed", 2, ["-ri", "d"]),
]


def run(executable, args, cwd, env, how, fd):
    """(status, stderr, what is left) of rm args with fd closed or on /dev/full."""
    full = how.endswith("full")
    with open("/dev/full", "wb") as sink, open(os.devnull, "wb") as out:
        done = subprocess.run(
            ["rm", *args],
            executable=executable,
            cwd=cwd,
            env=env,
            input=b"y\nn\ny\n",
            stdout=sink if full and fd == 1 else out,
            stderr=sink if full and fd == 2 else subprocess.PIPE,
            preexec_fn=None if full else (lambda: os.close(fd)),
            timeout=60,
        )
    return done.returncode, done.stderr, sorted(os.listdir(cwd))


@pytest.mark.parametrize("how,fd,args", CASES)
def test_rm_with_stdout_or_stderr_unusable_ends_as_gnus(sandbox, shim_home, how, fd, args):
    results = []
    for name, executable, env in (
        ("gnu", "/usr/bin/rm", sandbox.base_env()),
        ("ours", os.path.join(shim_home, "bin", "rm"), sandbox.shim_env()),
    ):
        base = sandbox.work / name
        base.mkdir()
        for name in ("a", "b", "c", "d/e", "d/f"):
            (base / name).parent.mkdir(exist_ok=True)
            (base / name).write_text("x")
        results.append(run(executable, args, base, env, how, fd))
    assert results[1] == results[0]
