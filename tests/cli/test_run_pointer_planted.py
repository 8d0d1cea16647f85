"""Another uid made /tmp/safedel-<uid> first, for a user with no runtime directory and no
usable home (uid 65534: /nonexistent): no place takes that user's run pointer. The run
still starts and binds its commands by SAFEDEL_RUN_ID, and says once on stderr which
place refused and why, so that the planted folder can be removed (core/contract/runpointer.py).
"""

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

import pytest
from conftest import require
from robustness import fuzzcase

NOBODY, PLANTER = 65534, 1234
PLACE = f"/tmp/safedel-{NOBODY}"


@pytest.fixture
def planted():
    """PLACE, made by PLANTER; a folder already there is moved aside and put back."""
    if os.geteuid() != 0:
        pytest.skip("needs root to act as two other uids")
    if os.path.isdir(f"/run/user/{NOBODY}"):
        pytest.skip(f"/run/user/{NOBODY} exists: the run's pointer would go there")
    try:
        home = pwd.getpwuid(NOBODY).pw_dir
    except KeyError:
        home = None
    if home and os.path.isdir(home) and os.stat(home).st_uid == NOBODY:
        pytest.skip(f"uid {NOBODY} has a home of its own here ({home})")
    aside = f"{PLACE}.aside-{os.getpid()}"
    had = os.path.lexists(PLACE)
    if had:
        os.rename(PLACE, aside)
    try:
        os.mkdir(PLACE, 0o755)
        os.chown(PLACE, PLANTER, PLANTER)
        yield PLACE
    finally:
        shutil.rmtree(PLACE, ignore_errors=True)
        if had:
            os.rename(aside, PLACE)


@pytest.fixture
def scratch():
    """A scratch dir uid 65534 can enter (pytest's own tmp dir is root's alone)."""
    root = tempfile.mkdtemp(prefix="safedel-planted-")
    os.chmod(root, 0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def test_a_planted_pointer_place_warns_and_the_run_still_binds(planted, scratch):
    setpriv = require("setpriv")
    home, work = os.path.join(scratch, "home"), os.path.join(scratch, "work")
    for path in (home, work, os.path.join(scratch, "tmp")):
        os.mkdir(path)
        os.chown(path, NOBODY, NOBODY)
    for name in ("by-rm", "by-python"):
        with open(os.path.join(work, name), "w") as handle:
            handle.write(name)
        os.chown(os.path.join(work, name), NOBODY, NOBODY)
    env = fuzzcase.base_env(scratch)
    env["PYTHONPATH"] = fuzzcase.readable_package(os.path.join(scratch, "package"))
    report = os.path.join(home, "report.jsonl")
    command = "rm by-rm && python3 -c 'import os; os.remove(\"by-python\")'"
    argv = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
    argv += [sys.executable, "-m", "safedel", "run", "--session", "S", "--turn", "T"]
    argv += ["--report", report, "--", "sh", "-c", command]
    done = subprocess.run(argv, cwd=work, env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if b"run's pointer" in line]
    assert len(warnings) == 1, done.stderr
    assert (
        f"{PLACE}: not private, owned by uid {PLANTER}, not by uid {NOBODY}".encode()
        in (warnings[0])
    )
    assert b"remove it" in warnings[0]
    assert os.listdir(work) == []
    with open(report, "rb") as handle:
        events = [json.loads(line) for line in handle if line.strip()]
    trashed = {os.path.basename(e["path"]): e for e in events if e["operation"] == "trash"}
    assert set(trashed) == {"by-rm", "by-python"}
    runs = {event.get("run") for event in trashed.values()}
    assert len(runs) == 1 and None not in runs  # both bound to the run, by its id
    for event in trashed.values():
        assert (event["session"], event["turn"]) == ("S", "T")
        assert os.path.isfile(event["trashPath"])
    assert sorted(os.listdir(PLACE)) == []  # nothing of the run went into the planted folder


def test_a_served_run_starts_too(planted, scratch):
    setpriv = require("setpriv")
    home, work = os.path.join(scratch, "home"), os.path.join(scratch, "work")
    for path in (home, work, os.path.join(scratch, "tmp")):
        os.mkdir(path)
        os.chown(path, NOBODY, NOBODY)
    with open(os.path.join(work, "victim"), "w") as handle:
        handle.write("x")
    os.chown(os.path.join(work, "victim"), NOBODY, NOBODY)
    env = fuzzcase.base_env(scratch)
    env["PYTHONPATH"] = fuzzcase.readable_package(os.path.join(scratch, "package"))
    argv = [setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"]
    argv += [sys.executable, "-m", "safedel", "serve", "--stdio"]
    messages = [
        {"command": "OpenSession", "data": {"workspaceRoots": [work]}},
        {"command": "RunExecutable", "data": {"command": "rm victim", "shell": "sh", "cwd": work}},
    ]
    lines = b"".join(
        json.dumps(dict(m, messageId=str(n), sessionId="S")).encode() + b"\n"
        for n, m in enumerate(messages)
    )
    server = subprocess.Popen(
        argv,
        cwd=work,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        server.stdin.write(lines)
        server.stdin.flush()
        replies = []
        for line in server.stdout:
            replies.append(json.loads(line))
            if replies[-1]["command"] == "ProcessExit" or replies[-1].get("success") is False:
                break
    finally:
        server.stdin.close()
        server.wait(timeout=60)
    stderr = server.stderr.read()
    server.stderr.close()
    assert replies[-1]["command"] == "ProcessExit", replies
    result = replies[-1]["data"]
    assert result["exitCode"] == 0 and len(result["trashed"]) == 1, result
    assert os.listdir(work) == []
    assert stderr.count(b"safedel serve: warning: no place takes the run's pointer") == 1
    assert f"{PLACE}: not private, owned by uid {PLANTER}".encode() in stderr
