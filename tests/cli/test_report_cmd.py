"""`safedel report [FILE]`: per-turn counts of trashed, refused and restored items."""

import json
import os
import subprocess
import sys

# The events come from the code every runtime runs: trash_one for trashes, authorize
# (with a threshold of 1) for refusals.
EVENTS = """
import sys
from safedel.core import deletion
from safedel.core.contract import settings
s = settings.load()
paths = sys.argv[1:]
try:
    deletion.authorize(s, "python", paths)
except deletion.Refused:
    sys.exit(0)
for path in paths:
    deletion.trash_one(s, "python", path)
"""


def produce(sandbox, turn, *names, threshold=50):
    paths = []
    for name in names:
        (sandbox.work / name).write_text(name)
        paths.append(str(sandbox.work / name))
    env = sandbox.base_env(
        SAFEDEL_SESSION=sandbox.session, SAFEDEL_TURN=turn, SAFEDEL_THRESHOLD=threshold
    )
    # From the work tree, as a command there would: it is the workspace.
    subprocess.run([sys.executable, "-c", EVENTS, *paths], env=env, check=True, cwd=sandbox.work)
    return paths


def safedel(sandbox, *args):
    return subprocess.run(
        [sys.executable, "-m", "safedel", *args],
        env=sandbox.base_env(COLUMNS="200"),
        cwd=sandbox.work,
        capture_output=True,
        text=True,
    )


def counts(summaries):
    return [(s["turn"], s["trashed"], s["refused"], s["restored"]) for s in summaries]


def test_a_summary_per_turn_in_json_and_as_a_table(sandbox):
    first, _ = produce(sandbox, "t1", "a", "b")
    produce(sandbox, "t2", "c")
    produce(sandbox, "t3", "d", "e", threshold=1)
    assert safedel(sandbox, "restore", first).returncode == 0
    done = safedel(sandbox, "report", "--json")
    assert done.returncode == 0 and done.stderr == ""
    summaries = json.loads(done.stdout)
    # The restore counts for the turn that trashed the item.
    assert counts(summaries) == [("t1", 2, 0, 1), ("t2", 1, 0, 0), ("t3", 0, 2, 0)]
    assert {s["session"] for s in summaries} == {sandbox.session}
    assert all(s["first"] <= s["last"] for s in summaries)
    table = safedel(sandbox, "report").stdout
    rows = [line.split("│")[2:6] for line in table.splitlines() if " t" in line and "│" in line]
    assert [[cell.strip() for cell in row] for row in rows] == [
        ["t1", "2", "0", "1"],
        ["t2", "1", "0", "0"],
        ["t3", "0", "2", "0"],
    ]


def test_an_explicit_file_and_garbled_lines(sandbox, tmp_path):
    produce(sandbox, "t1", "a")
    other = tmp_path / "copied.jsonl"
    lines = sandbox.report_path.read_bytes()
    other.write_bytes(b"garbage\n" + lines + lines[:25])
    done = safedel(sandbox, "report", "--json", str(other))
    assert done.returncode == 0
    assert counts(json.loads(done.stdout)) == [("t1", 1, 0, 0)]
    assert done.stderr.splitlines() == [
        f"safedel: warning: {other}:1: skipped a garbled report line",
        f"safedel: warning: {other}:3: skipped a garbled report line",
    ]


def test_a_missing_or_symlinked_report(sandbox, tmp_path):
    done = safedel(sandbox, "report")
    assert done.returncode == 0 and "no report at" in done.stderr
    done = safedel(sandbox, "report", str(tmp_path / "absent.jsonl"))
    assert done.returncode == 1 and "no report at" in done.stderr
    produce(sandbox, "t1", "a")
    os.symlink(sandbox.report_path, tmp_path / "link.jsonl")
    done = safedel(sandbox, "report", str(tmp_path / "link.jsonl"))
    assert done.returncode == 1 and "cannot read" in done.stderr and done.stdout == ""
