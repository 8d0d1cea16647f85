"""The Python shim lives inside other people's programs: it never touches their
descriptors, and stays exact under threads, finalizers and signal handlers.

Each script runs under the shim in every CPython here and prints JSON facts; the
checks on the trash and the report are made from outside.
"""

import json
import os
import re

from test_python_shim_common import ALL_PYTHONS, assert_ok, in_trash, run_script, trashed_paths

# The program closes every descriptor, so the number the shim kept for its report (and
# ledger) now names the program's own log: it must stay the program's.
CLOSERANGE = """
import json, os
for name in "abc":
    open(name, "w").close()
os.remove("a")
os.closerange(3, 1024)
f = open("one.log", "w")
os.remove("b")
f.write("data\\n")
f.flush()
os.remove("c")
f.close()
print(json.dumps(open("one.log").read()))
"""


@ALL_PYTHONS
def test_descriptors_the_program_reuses_stay_the_programs(sandbox, python):
    done = assert_ok(run_script(sandbox, python, CLOSERANGE))
    assert json.loads(done.stdout) == "data\n"
    events = trashed_paths(sandbox)
    assert sorted(os.path.basename(p) for p in events) == ["a", "b", "c"]
    assert all(in_trash(sandbox, event) for event in events.values())


# Random programs: deletions interleaved with open, write, close, closerange and dup2
# over any small descriptor number, the shim's own included. Every file the program
# wrote must hold exactly the program's bytes, and every deletion must be trashed.
DESCRIPTOR_PROPERTY = """
import errno, json, os, random, shutil, sys

rounds, steps = int(sys.argv[1]), int(sys.argv[2])
expected, problems, deleted = {}, [], 0
for seed in range(rounds):
    rng = random.Random(seed)
    mine = {}  # descriptor -> file name
    for step in range(steps):
        op = rng.choice("ddddoowwwwcxr")
        if op == "d":
            name = f"victim-{seed}-{step}"
            if rng.random() < 0.2:
                os.makedirs(name + "/sub")
                shutil.rmtree(name)
            else:
                open(name, "w").close()
                os.remove(name)
            deleted += 1
        elif op == "o":
            name = f"log-{seed}-{rng.randrange(4)}"
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            mine[fd] = name
            expected.setdefault(name, b"")
        elif op == "w" and mine:
            fd = rng.choice(sorted(mine))
            data = f"{seed}:{step}:{fd}\\n".encode()
            try:
                os.write(fd, data)
                expected[mine[fd]] += data
            except OSError as exc:
                problems.append(f"write to the program's fd {fd}: {exc}")
        elif op == "c":
            fd = rng.randrange(3, 12)
            try:
                os.close(fd)
            except OSError:
                pass
            mine.pop(fd, None)
        elif op == "x":
            os.closerange(3, 64)
            mine.clear()
        elif op == "r" and mine:
            fd, target = rng.choice(sorted(mine)), rng.randrange(3, 12)
            if fd != target:
                os.dup2(fd, target)
                mine[target] = mine[fd]
    os.closerange(3, 64)
for name, data in expected.items():
    with open(name, "rb") as handle:
        if handle.read() != data:
            problems.append(f"{name} does not hold exactly the program's bytes")
print(json.dumps({"problems": problems, "deleted": deleted}))
"""


@ALL_PYTHONS
def test_random_descriptor_juggling_never_mixes_bytes(sandbox, python):
    done = assert_ok(
        run_script(sandbox, python, DESCRIPTOR_PROPERTY, args=(40, 60), threshold=99999)
    )
    facts = json.loads(done.stdout)
    assert facts["problems"] == []
    events = trashed_paths(sandbox)  # every report line parsed
    assert len(events) == facts["deleted"] > 100
    assert all(in_trash(sandbox, event) for event in events.values())


THREADS = """
import json, os, sys, threading

runs, threads, per_run, threshold = map(int, sys.argv[1:5])
log = os.open("program.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
results = []
for run in range(runs):
    os.environ["SAFEDEL_TURN"] = f"threads-{run}"
    names = [f"r{run}-f{index}" for index in range(per_run)]
    for name in names:
        with open(name, "w") as handle:
            handle.write(name)
    granted, refused, other = [], [], []
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def work(mine):
        start.wait()
        for name in mine:
            try:
                os.remove(name)
                outcome = granted
            except PermissionError as exc:
                outcome = refused if "bulk guard" in str(exc) else other
            except Exception as exc:
                outcome = other
                name = f"{name}: {exc!r}"
            with lock:
                outcome.append(name)
            os.write(log, f"program {name}\\n".encode())

    workers = [threading.Thread(target=work, args=(names[i::threads],)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    left = sorted(name for name in names if os.path.exists(name))
    results.append({"granted": len(granted), "refused": len(refused), "other": other,
                    "left": len(left), "refused_left": sorted(refused) == left})
print(json.dumps(results))
"""

INFO = re.compile(rb"\[Trash Info\]\nPath=[^\n]+\nDeletionDate=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\n")


@ALL_PYTHONS
def test_threads_get_exactly_the_threshold_and_nothing_spurious(sandbox, python):
    runs, threads, per_run, threshold = 20, 64, 200, 50
    done = assert_ok(
        run_script(
            sandbox,
            python,
            THREADS,
            args=(runs, threads, per_run, threshold),
            threshold=threshold,
        )
    )
    results = json.loads(done.stdout)
    assert len(results) == runs
    for result in results:
        assert result == {
            "granted": threshold,
            "refused": per_run - threshold,
            "other": [],
            "left": per_run - threshold,
            "refused_left": True,
        }
    info_dir = sandbox.trash / "info"
    infos = os.listdir(info_dir)
    assert len(infos) == runs * threshold
    for name in infos:
        with open(info_dir / name, "rb") as handle:
            assert INFO.fullmatch(handle.read()), name
    with open(sandbox.work / "program.log", "rb") as handle:
        lines = handle.read().splitlines()
    assert len(lines) == runs * per_run
    assert all(re.fullmatch(rb"program r\d+-f\d+", line) for line in lines)
    assert len(trashed_paths(sandbox)) == runs * threshold


FINALIZERS_AND_SIGNALS = """
import gc, json, os, signal, sys

count = int(sys.argv[1])
for prefix in ("gc", "sig", "own"):
    for index in range(count):
        open(f"{prefix}{index}", "w").close()
open("first-sig", "w").close()
own = iter(range(100 * count))


def delete_own():
    index = next(own)
    name = f"own{index}"
    if index >= count:
        open(name, "w").close()
    os.remove(name)


# The very first deletion imports the engine; a signal handler deletes meanwhile.
signal.signal(signal.SIGALRM, lambda *_: os.remove("first-sig"))
signal.setitimer(signal.ITIMER_REAL, 0.001)
delete_own()
while os.path.exists("first-sig"):
    delete_own()

# Finalizers run by collections that start inside the shim: each one leaves the
# next as garbage, which the next deletion's own allocations collect.
class Deleter:
    def __init__(self, index):
        self.index = index
        self.cycle = self

    def __del__(self):
        os.remove(f"gc{self.index}")
        if self.index + 1 < count:
            Deleter(self.index + 1)


gc.set_threshold(1)
Deleter(0)
while os.path.exists(f"gc{count - 1}"):
    delete_own()
gc.set_threshold(700)

# A signal handler deleting while the program deletes too.
pending = [f"sig{index}" for index in range(count)]


def on_alarm(signum, frame):
    if pending:
        os.remove(pending.pop())
        signal.setitimer(signal.ITIMER_REAL, 0.0003)  # one at a time: never nested


signal.signal(signal.SIGALRM, on_alarm)
signal.setitimer(signal.ITIMER_REAL, 0.0003)
while pending:
    delete_own()
signal.setitimer(signal.ITIMER_REAL, 0)
print(json.dumps({"own": next(own)}))
"""


@ALL_PYTHONS
def test_finalizers_and_signal_handlers_that_delete_are_trashed(sandbox, python):
    count = 200
    done = assert_ok(
        run_script(sandbox, python, FINALIZERS_AND_SIGNALS, args=(count,), threshold=99999)
    )
    facts = json.loads(done.stdout)
    events = trashed_paths(sandbox)
    names = {os.path.basename(path) for path in events}
    assert "first-sig" in names
    for prefix in ("gc", "sig"):
        assert {f"{prefix}{index}" for index in range(count)} <= names, prefix
    assert len(events) == 2 * count + 1 + facts["own"]
    assert all(in_trash(sandbox, event) for event in events.values())
    assert "partially initialized" not in done.stderr
    assert not [n for n in os.listdir(sandbox.work) if n.startswith(("gc", "sig", "first"))]
