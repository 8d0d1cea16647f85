"""A person at a terminal: their environment, a program on a pseudo-terminal of its own
that they answer, and a folder of files too many to delete without being asked.

The tests of the guard's question (and of `safedel config trust`, `workspace add`, the
question for a deletion outside the workspace) drive the real program on a real pty: a
fresh session leader with the pty as its controlling terminal, so /dev/tty opens there
and it is in the foreground.
"""

import os
import pty
import select
import signal

import pytest

from safedel.core.contract import host

# A harness or CI runner around the test run would turn the question's default off.
HOST_VARIABLES = {variable for _kind, table in host.KINDS for _n, variable, _v in table}


def person_env(env, *drop, **extra):
    """env as at a person's terminal: no agent harness or CI variables (whatever runs
    the tests), nor the names in drop; then extra."""
    mine = {k: v for k, v in env.items() if k not in HOST_VARIABLES and k not in drop}
    mine.update(extra)
    return mine


def on_a_pty(argv, env, answer=None, question=b"[y/N]", cwd=None, timeout=60):
    """argv on a new pty; answer typed each time the question shows once more (never,
    if answer is None). (exit status, screen as text). A program that shows nothing
    for `timeout` seconds is killed and the test fails."""
    pid, fd = pty.fork()
    if pid == 0:
        try:
            if cwd is not None:
                os.chdir(cwd)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    screen, asked = b"", 0
    try:
        while True:
            if not select.select([fd], [], [], timeout)[0]:
                os.kill(pid, signal.SIGKILL)
                pytest.fail(f"no progress on the terminal; it shows {screen!r}")
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # EIO: the child is gone and the pty closed
                break
            if not chunk:
                break
            screen += chunk
            if answer is not None and screen.count(question) > asked:
                asked += 1
                os.write(fd, answer)
    finally:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), screen.decode("utf-8", "replace")


def many(sandbox, count=60):
    """sandbox.work/many holding count files (f00, f01, ...): past the threshold of 50."""
    folder = sandbox.work / "many"
    folder.mkdir()
    for index in range(count):
        (folder / f"f{index:02d}").write_text(str(index))
    return folder
