"""The report over time: segments by size, read as one stream; turn, session and time
lookups that do not parse the whole history."""

import json
import os
import subprocess
import sys
import time

from safedel.core.contract.settings import Settings
from safedel.core.report import segments as reportfiles
from safedel.core.report import write


def settings(turn, session="s"):
    values = dict.fromkeys(Settings.__slots__)
    values.update(session=session, turn=turn, tool_call="")
    return Settings(**values)


def test_a_full_report_becomes_a_segment_and_readers_see_every_event(tmp_path, monkeypatch):
    monkeypatch.setenv("SAFEDEL_REPORT_SEGMENT_BYTES", "4000")
    path = str(tmp_path / "report.jsonl")
    for index in range(100):
        write.append(path, [write.event("trash", settings(f"t{index // 10}"), "rm", n=index)])
    segments = reportfiles.segments(path)
    assert len(segments) >= 3
    assert all(os.path.getsize(s) <= 4000 + 400 for s in segments)
    assert [e["n"] for e in write.read(path)] == list(range(100))
    assert [e["n"] for e in write.read_matching(path, turn="t3")] == list(range(30, 40))
    assert [e["n"] for e in write.read_matching(path, session="s", turn="t9")] == list(
        range(90, 100)
    )
    assert list(write.read_matching(path, turn="t")) == []


def test_concurrent_writers_lose_nothing_across_rotations(tmp_path):
    path = str(tmp_path / "report.jsonl")
    writer = (
        "import sys\n"
        "from safedel.core.report import write as report\n"
        "from safedel.core.contract.settings import Settings\n"
        "v = dict.fromkeys(Settings.__slots__); v.update(session='s', turn='t', tool_call='')\n"
        "for i in range(300):\n"
        "    e = report.event('trash', Settings(**v), 'rm', w=sys.argv[2], i=i)\n"
        "    report.append(sys.argv[1], [e])\n"
    )
    env = dict(os.environ, SAFEDEL_REPORT_SEGMENT_BYTES="20000")
    procs = [
        subprocess.Popen([sys.executable, "-c", writer, path, str(w)], env=env) for w in range(6)
    ]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    seen = [(e["w"], e["i"]) for e in write.read(path)]
    assert sorted(seen) == sorted((str(w), i) for w in range(6) for i in range(300))
    assert len(reportfiles.segments(path)) >= 3


def test_read_after_a_mark_survives_a_rotation(tmp_path, monkeypatch):
    monkeypatch.setenv("SAFEDEL_REPORT_SEGMENT_BYTES", "3000")
    path = str(tmp_path / "report.jsonl")
    write.append(path, [write.event("trash", settings("before"), "rm", n=-1)])
    mark = reportfiles.position(path)
    for index in range(60):
        write.append(path, [write.event("trash", settings("after"), "rm", n=index)])
    assert reportfiles.segments(path)
    assert [e["n"] for e in write.read_after(path, mark)] == list(range(60))


def test_read_since_bisects_to_the_recent_events(tmp_path):
    path = tmp_path / "report.jsonl"
    now = int(time.time() * 1000)
    lines = []
    for index in range(20000):
        stamp = now - (20000 - index) * 60_000  # one event a minute, oldest first
        lines.append(json.dumps({"v": 1, "operation": "trash", "timestamp": stamp, "n": index}))
    path.write_text("\n".join(lines) + "\n")
    cutoff = now - 7 * 86400 * 1000
    recent = [e["n"] for e in write.read_since(str(path), cutoff)]
    expected = [i for i in range(20000) if now - (20000 - i) * 60_000 >= cutoff]
    assert recent == expected
    assert reportfiles.offset_since(path, cutoff) > 0


def test_safedel_report_shows_the_last_seven_days_unless_asked(tmp_path):
    path = tmp_path / "report.jsonl"
    now = int(time.time() * 1000)
    old = {"v": 1, "operation": "trash", "timestamp": now - 30 * 86400_000, "session": "s"}
    new = {"v": 1, "operation": "trash", "timestamp": now - 3600_000, "session": "s"}
    path.write_text(
        json.dumps(dict(old, turn="t-old"), separators=(",", ":"))
        + "\n"
        + json.dumps(dict(new, turn="t-new"), separators=(",", ":"))
        + "\n"
    )

    def turns(*args):
        argv = [sys.executable, "-m", "safedel", "report", str(path), "--json", *args]
        done = subprocess.run(argv, capture_output=True, check=True)
        return [row["turn"] for row in json.loads(done.stdout)]

    assert turns() == ["t-new"]
    assert turns("--all") == ["t-old", "t-new"]
    assert turns("--since", "60d") == ["t-old", "t-new"]
