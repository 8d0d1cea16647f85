"""The run's record as its guard keeper holds it, and the check of the run's files
against it (Linux).

The command runs as the same user as safedel, so it can rewrite its run's record
(runs/<id>/run.json), its run's pointer (runpointer.py), or plant a pointer of its own:
widen the workspace roots to /, allow every deletion outside them, name a project
folder an exempt root (deleted for real), move the trash. So under a keeper
(executor/keeper.py) what binds a process is the record the keeper published when the
run started (`r RUN POINTER RECORD` in its publication, keeperfind.py: a memfd only the
keeper can write), never a file:
- the nearest pointer above the process whose run the keeper publishes, under the
  pointer name the keeper gave it, is the run's: its bytes must be the published ones;
- a pointer below it (a `safedel run` inside the run, which keeps its enclosing run's
  values) must say what the published record says, but for its own run id and pid;
- a pointer that names a run the keeper publishes under another name (another run of
  the same server) is not the process's.
A file that says otherwise leaves the process with the published values and a reason
that fails every deletion closed (core/deletion.py, the Node shim the same), naming the
file. A process with no pointer (none could be left, or the net is off and the command
removed it) takes the record its SAFEDEL_RUN_ID names if the keeper publishes it, else
the keeper's only record; a server's keeper with several fails it closed.
"""

import os
import time

from .. import jsonl
from . import keeperfind, runpointer

# What a run inside another does not share with it: its own id and process.
OWN = ("run", "pid")
# A served run's root names its pointer a moment after it starts (serve/runs.py).
PLACING_DEADLINE = 10.0
_checked = {}  # (pid, run id) -> (record, why): a run's record never changes


def governing(run_id):
    """(record, why) of this process's run as its keeper holds it (why: None, or the
    reason its deletions fail closed); None when no keeper is among its ancestors."""
    keeper = keeperfind.find()
    if keeper is None:
        return None
    key = (os.getpid(), run_id)
    if key not in _checked:
        found = _check(keeper, run_id)
        if found is None:
            return None  # not kept: asked again next time, the keeper may hold it then
        _checked[key] = found
    return _checked[key]


def published(data):
    """{run id: (pointer name or "-", record bytes)} of a publication's text, whose
    record lines follow its first line."""
    found, at = {}, data.find(b"\n") + 1
    while data.startswith(b"r ", at):
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        parts = data[at:end].split(b" ", 3)
        if len(parts) == 4:
            run, pointer = (part.decode("ascii", "replace") for part in parts[1:3])
            found[run] = (pointer, parts[3])
        at = end + 1
    return found


def _check(keeper, run_id):
    try:
        records = published(keeperfind.snapshot(keeper))
    except keeperfind.Unreachable as exc:
        return {}, str(exc)
    if keeper[0] == keeperfind.own_pid():
        # The keeper's own process (a run's or a server's net, judging for one of its
        # runs): the run its environment names, never one a walk from this process
        # finds (a server judges for several at once).
        entry = records.get(run_id)
        # A run it holds no record of: bound as before the keeper held records (its
        # record file, core/contract/runrecord.py governing).
        return None if entry is None else (_parsed(entry[1]), None)
    below, walk = [], runpointer.pointers()
    try:
        for hit in walk:
            run = hit.record.get("run")
            entry = records.get(run) if isinstance(run, str) else None
            if entry is None:
                below.append(hit)  # a nested run's, or one the command planted
                continue
            if entry[0] == "-":
                entry = _placed(keeper, run) or entry
            if entry[0] != hit.name:
                return _parsed(entry[1]), _why(hit.path, "names another run than its own")
            if hit.data != entry[1]:
                return _parsed(entry[1]), _why(hit.path, "differs from the run's record")
            return _agreeing(hit.record, below)
    finally:
        walk.close()
    entry = records.get(run_id) or (next(iter(records.values())) if len(records) == 1 else None)
    if entry is None:
        why = "the run's guard keeper holds no record of this process's run"
        return {}, f"{why}, so nothing was deleted"
    return _agreeing(_parsed(entry[1]), below)


def _agreeing(record, below):
    """record, after each pointer below it was found to say the same."""
    shared = {k: v for k, v in record.items() if k not in OWN}
    for hit in below:
        if {k: v for k, v in hit.record.items() if k not in OWN} != shared:
            return record, _why(hit.path, "differs from the run's record")
    if below and isinstance(below[0].record.get("run"), str):
        return dict(record, run=below[0].record["run"]), None  # the nested run's own id
    return record, None


def _placed(keeper, run):
    """The run's entry once the keeper has named its pointer, or None."""
    deadline, pause = time.monotonic() + PLACING_DEADLINE, 0.0001
    while time.monotonic() < deadline:
        time.sleep(pause)
        pause = min(pause * 2, 0.01)
        try:
            entry = published(keeperfind.snapshot(keeper)).get(run)
        except keeperfind.Unreachable:
            return None
        if entry is None or entry[0] != "-":
            return entry
    return None


def _parsed(text):
    try:
        record = jsonl.loads(text)
    except ValueError:
        return {}
    return record if isinstance(record, dict) else {}


def _why(path, what):
    return (
        f"{path} {what}, as the run's guard keeper holds it (changed while the run was "
        "going), so nothing was deleted"
    )
