"""`python -m bench --quick` runs and gives every row figures or a reason.

Nothing here checks what the figures are: timings belong to the bench's own table,
never to a test's pass or fail.
"""

import json
import math
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARKS = {"pass", "over", "anchor", "unavailable"}
# Written out here rather than taken from the bench, so a row that goes missing from
# the bench cannot go missing from this list with it.
EXPECTED = {
    "rm, one file per call": [
        "safedel rm shim",
        "safedel rm shim, against trash-put",
        "python -I -S -c pass",
        "/usr/bin/rm",
        "trash-put",
        "send2trash one-liner",
        "gio trash",
    ],
    "a directory of 100,000 files": [
        "safedel's part, in process (guard, info file, rename, report)",
        "safedel rm -rf (rm shim), whole command",
        "rm launcher's permission pre-check (whole tree walked), in process",
        "python -I -S -c pass",
        "trash-put",
        "rm -rf",
    ],
    "Python shim load, nothing deleted": [
        "python -c pass, shim on PYTHONPATH, inactive",
        "python -c pass, shim on PYTHONPATH, active",
        "python -c pass",
    ],
    "Python os.remove × 2,000, in process": [
        "os.remove, Python shim active",
        "os.remove, no shim",
        "making a file (O_EXCL create, write, close), os.open",
    ],
    "Node shim load, nothing deleted": [
        "node -e 0, preload, inactive",
        "node -e 0, preload, active",
        "node -e 0",
    ],
    "Node fs.unlinkSync × 2,000, in process": [
        "fs.unlinkSync, Node preload active",
        "fs.unlinkSync, no preload",
        "making a file (flag wx), fs.writeFileSync",
    ],
    "bulk guard, added cost per deletion (p50 = median)": [
        "authorize, 1 process",
        "loop without authorize, 1 process",
        "authorize, 16 concurrent processes",
        "loop without authorize, 16 concurrent processes",
    ],
    "git launcher pass-through": [
        "git --version, through the launcher",
        "git --version",
        "git status, 1,000-file repository, through the launcher",
        "git status, 1,000-file repository",
    ],
    "git clean -f of 1,000 untracked files": [
        "git clean -f through safedel (trashed)",
        "real git clean -f",
    ],
    "a report of 100,000 events": [
        "safedel restore --turn (one of the newest turns, 3 items)",
        "safedel report (default range: the last 7 days)",
        "safedel report --all (parses every event)",
    ],
    "a trash of 20,000 items": [
        "safedel list --json (cache warm)",
        "safedel list PREFIX --json (cache warm)",
        "safedel restore --last",
        "safedel list --json, cache removed first",
        "trash-list",
    ],
    "trash naming, 3,000 items of one name": [
        "naming the first item of a name (info file, rename)",
        "naming the 3,000th conftest.c (info file, rename)",
        "3,000th / first, round by round",
    ],
    "safedel run": [
        "safedel run -- true",
        "true",
        "python -c pass (the interpreter safedel runs on, site included)",
    ],
    "Interactive prompt, per command line": [
        f"{shell} command line{prompt}, bootstrap {state}"
        for shell, prompt in (
            ("bash", ""),
            ("zsh", ""),
            ("fish", ""),
            ("fish", " with a git prompt"),
        )
        for state in ("loaded", "not loaded")
    ],
    "safedel run --capture": [
        "safedel run --capture -- true",
        "safedel run -- true",
        "safedel run --capture -- cat 5 MB",
        "safedel run -- cat 5 MB, stdout to a file",
        "cat of the same 5 MB to a file",
    ],
    "net": [
        "safedel run -- true, net on",
        "safedel run --net off -- true",
        "10,000 temp files created and unlinked, net on",
        "the same loop, --net off",
        "safedel run -- true, net on: CPU time",
        "safedel run --net off -- true: CPU time",
        "10,000 temp files, net on: CPU time",
        "10,000 temp files, --net off: CPU time",
        "10,000 temp files, net on ÷ off",
        "10,000 temp files, net on ÷ off: CPU time",
        "/bin/rm -rf of 1,000 files under dash, through the net",
        "rm -rf of 1,000 files, through the rm shim",
    ],
    "safedel serve": [
        "serve: RunExecutable true → ProcessExit",
        "serve: the same, net = false in the config",
        "safedel run -- true",
        "bare true",
        "serve: Ping p99 (per round), 8 commands streaming",
        "serve: RunExecutable true, CPU time (server and its children)",
        "serve: the same, net = false: CPU time",
    ],
    "regenerable check, a refused batch of 1,000 files in one ignored directory": [
        "git check of the whole batch, in process",
    ],
}


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--json", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out, encoding="utf-8") as handle:
        return json.load(handle), done.stdout


def test_every_row_is_there_once(quick_run):
    document, _ = quick_run
    found = [(row["workload"], row["subject"]) for row in document["rows"]]
    expected = [
        (workload, subject) for workload, subjects in EXPECTED.items() for subject in subjects
    ]
    assert sorted(found) == sorted(expected)
    assert document["profile"] == "quick"


def test_each_row_has_figures_or_a_reason(quick_run):
    document, _ = quick_run
    for row in document["rows"]:
        label = f"{row['workload']} / {row['subject']}"
        assert row["status"] in MARKS, label
        if row["median"] is None:
            assert row["status"] == "unavailable", label
            assert isinstance(row["reason"], str) and row["reason"].strip(), label
            continue
        figures = [row[key] for key in ("min", "median", "p99", "max")]
        assert all(isinstance(v, float) and math.isfinite(v) and v > 0 for v in figures), label
        assert figures == sorted(figures), label
        assert row["n"] >= 1, label
        if row["budget"] is None:
            assert row["status"] == "anchor", label
        elif row["status"] == "unavailable":
            assert "reference" in row["reason"], label
        else:
            assert row["status"] in ("pass", "over"), label
            assert isinstance(row["limit"], float) and row["limit"] > 0, label


def test_the_markdown_table_has_a_filled_line_per_row(quick_run):
    document, stdout = quick_run
    lines = [line for line in stdout.splitlines() if line.startswith("| ")]
    header, body = lines[0], lines[1:]
    width = header.count(" | ") + 1
    assert len(body) == len(document["rows"])
    for line, row in zip(body, document["rows"], strict=True):
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        assert len(cells) == width, line
        assert all(cells), line
        assert row["subject"] in line
        assert row["status"] in line


def test_the_machine_is_described(quick_run):
    document, stdout = quick_run
    machine = document["machine"]
    for key in ("cpus", "cpu", "kernel", "python", "node", "trash-cli", "filesystem"):
        assert machine[key], key
    assert "Machine:" in stdout
