"""The guard under load: many processes in one turn, and processes killed mid-use.

Deleters of every kind that exists take part: the in-process Python caller
(guard_worker.py), the rm launcher ($SAFEDEL_HOME/bin/rm) and the Python shim's
os.remove, once those land.
"""

import json
import os
import random
import signal
import subprocess
import sys
import time

from safedel.core.guard import ledger, rule
from safedel.core.guard import turn as guardturn

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guard_worker.py")
THRESHOLD = 50
# The shim's way: plain os.remove, which the sitecustomize shim routes through the guard.
# Each waits for the end of its stdin, so that all start deleting at once.
SHIM_DELETER = """
import os, sys
sys.stdin.buffer.read()
for path in sys.argv[1:]:
    try:
        os.remove(path)
    except PermissionError:
        pass
"""
RM_DELETER = 'cat >/dev/null; for f; do rm "$f"; done; exit 0'


def deleter_kinds(sandbox):
    """The worker, plus each other front end that exists and really trashes."""
    kinds = ["worker"]
    for kind, part in (("rm", ("bin", "rm")), ("shim", ("python", "sitecustomize.py"))):
        if os.path.exists(os.path.join(sandbox.shim_home, *part)) and trashes(sandbox, kind):
            kinds.append(kind)
    return kinds


def trashes(sandbox, kind):
    """Whether this front end, as installed now, sends one file to the trash."""
    env = sandbox.shim_env(turn=f"probe-{kind}")
    env["SAFEDEL_TRASH_DIR"] = str(sandbox.root / f"probe-{kind}")
    paths = make_files(sandbox.work / f"probe-{kind}", 1)
    subprocess.run(command(kind, paths), env=env, input=b"", capture_output=True, timeout=60)
    return trashed_count(env["SAFEDEL_TRASH_DIR"]) == 1


def command(kind, paths):
    if kind == "rm":
        return ["sh", "-c", RM_DELETER, "sh", *paths]
    if kind == "shim":
        return [sys.executable, "-c", SHIM_DELETER, *paths]
    # -S: the worker puts the repository on sys.path itself and needs no site start-up.
    return [sys.executable, "-S", WORKER, "--each", "--go", *paths]


def make_files(directory, count):
    directory.mkdir(parents=True)
    paths = []
    for index in range(count):
        path = directory / f"f{index}"
        path.write_text("x")
        paths.append(str(path))
    return paths


def ledger_lines(sandbox, turn):
    path = os.path.join(sandbox.state, *ledger.ledger_parts(sandbox.session, turn))
    with open(path, "rb") as handle:
        return handle.read().splitlines(keepends=True)


def granted_by_the_rule(lines):
    """The rule, computed here independently of guard/rule.py: takes in file order are
    granted while the granted sum stays within each take's threshold."""
    granted = 0
    for line in lines:
        assert line.endswith(b"\n"), "a torn ledger line"
        record = json.loads(line)
        if record["op"] == "take" and granted + record["n"] <= record["t"]:
            granted += record["n"]
    return granted


def trashed_count(trash_dir):
    files = os.path.join(trash_dir, "files")
    return len(os.listdir(files)) if os.path.isdir(files) else 0


def start(sandbox, turn, processes, per_process, kinds):
    # The files are there before the turn starts: what a turn makes itself is not counted.
    made = [make_files(sandbox.work / turn / f"p{n}", per_process) for n in range(processes)]
    time.sleep(0.01)
    env = sandbox.shim_env(threshold=THRESHOLD, turn=turn)
    env["SAFEDEL_TRASH_DIR"] = str(sandbox.root / f"trash-{turn}")
    children, paths = [], []
    for number, mine in enumerate(made):
        paths += mine
        kind = kinds[number % len(kinds)]
        children.append(
            subprocess.Popen(
                command(kind, mine),
                env=env,
                cwd=sandbox.work,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
    return env, children, paths


def go(children):
    for child in children:
        child.stdin.close()


def test_exact_under_concurrency_16_processes_20_rounds(sandbox):
    kinds = deleter_kinds(sandbox)
    print(f"deleter kinds: {kinds}")
    for round_number in range(20):
        turn = f"round-{round_number}"
        env, children, paths = start(sandbox, turn, 16, 10, kinds)
        go(children)
        for child in children:
            child.wait(timeout=120)  # a deadlock fails here instead of hanging the suite
        in_place = [path for path in paths if os.path.lexists(path)]
        assert trashed_count(env["SAFEDEL_TRASH_DIR"]) == 50, turn
        assert len(in_place) == 110, turn
        state = guardturn.status(str(sandbox.state), sandbox.session, turn)
        assert (state.granted, state.refused) == (50, 110), turn
        events = [e for e in sandbox.report() if e["turn"] == turn]
        assert sum(e["operation"] == "trash" for e in events) == 50
        refused = {e["path"] for e in events if e["operation"] == "refuse"}
        assert refused == set(in_place)


def test_sigkill_at_random_points_never_wedges_or_miscounts(sandbox):
    """ "Counts correctly" after a crash means: the ledger holds only whole lines; the
    count is the granted takes in it (by the rule, computed independently); every
    trashed item was granted; a granted-but-untrashed item can only come from a process
    killed between its take and its rename, so count <= trashed + killed; nothing is
    lost (every file is in place or in the trash); and the next take answers at once
    and continues from that count."""
    rng = random.Random(4)
    kinds = deleter_kinds(sandbox)
    for round_number in range(8):
        turn = f"crash-{round_number}"
        env, children, paths = start(sandbox, turn, 8, 15, kinds)
        time.sleep(0.3)  # let them start and wait, so that the kills land while deleting
        go(children)
        victims = rng.sample(children, 4)
        for child in victims:
            time.sleep(rng.uniform(0, 0.02))
            child.send_signal(signal.SIGKILL)
        for child in children:
            child.wait(timeout=120)
        killed = sum(child.returncode == -signal.SIGKILL for child in children)
        trashed = trashed_count(env["SAFEDEL_TRASH_DIR"])
        in_place = sum(os.path.lexists(path) for path in paths)
        count = granted_by_the_rule(ledger_lines(sandbox, turn))
        assert guardturn.status(str(sandbox.state), sandbox.session, turn).granted == count
        assert trashed <= count <= min(trashed + killed, THRESHOLD)
        assert in_place + trashed == len(paths)
        probe = (
            "from safedel.core.guard import ledger; from safedel.core.contract import settings; "
            "d = ledger.take(settings.load(), 1); print(d.verdict, d.count)"
        )
        answer = subprocess.run(
            [sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=30
        )
        expected = (rule.ALLOW, count + 1) if count < THRESHOLD else (rule.CONFIRM, count)
        assert answer.stdout.split() == [expected[0], str(expected[1])], answer.stderr


def _takes_from_threads(current, threads, per_thread):
    """Every verdict and every error of threads taking 1 at a time, all at once."""
    import threading

    verdicts, errors = [], []
    start = threading.Barrier(threads)

    def work():
        start.wait()
        for _ in range(per_thread):
            try:
                verdicts.append(ledger.take(current, 1).verdict)
            except Exception as exc:  # any error at all is a failure here
                errors.append(repr(exc))

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return verdicts, errors


def test_threads_in_one_process_get_exactly_the_threshold(tmp_path):
    """The take's descriptor and cursor are per process: 64 threads share them."""
    from safedel.core.contract import settings

    for run in range(10):
        env = {
            "SAFEDEL_STATE_DIR": str(tmp_path / "state"),
            "SAFEDEL_SESSION": "threads",
            "SAFEDEL_TURN": f"run-{run}",
            "SAFEDEL_THRESHOLD": str(THRESHOLD),
            "SAFEDEL_CONFIG": str(tmp_path / "no-config.toml"),
            "HOME": str(tmp_path),
        }
        verdicts, errors = _takes_from_threads(settings.load(env), 64, 4)
        assert errors == []
        assert verdicts.count(rule.ALLOW) == THRESHOLD
        state = guardturn.status(env["SAFEDEL_STATE_DIR"], "threads", f"run-{run}")
        assert (state.granted, state.takes) == (THRESHOLD, len(verdicts))
