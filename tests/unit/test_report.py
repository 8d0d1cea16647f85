"""The JSON-lines report: appended whole lines, private, never through a symlink."""

import errno
import json
import os
import stat
import subprocess
import sys

import pytest
from conftest import REPO

from safedel.core.contract import settings
from safedel.core.report import write

APPENDER = """
import sys
sys.path.insert(0, sys.argv[1])
from safedel.core.contract import settings
from safedel.core.report import write as report
s = settings.load({"SAFEDEL_SESSION": "s", "SAFEDEL_TURN": sys.argv[3]})
for number in range(int(sys.argv[4])):
    report.append(sys.argv[2], [report.event("trash", s, "python", path=f"/p/{number}")])
"""


def sample_settings(**env):
    return settings.load({"SAFEDEL_SESSION": "S", "SAFEDEL_TURN": "T", **env})


def test_an_event_carries_the_schema_fields():
    record = write.event("trash", sample_settings(SAFEDEL_TOOL_CALL="C"), "rm", path="/a")
    assert record["v"] == 1 and record["operation"] == "trash" and record["path"] == "/a"
    assert (record["runtime"], record["session"], record["turn"]) == ("rm", "S", "T")
    assert record["toolCall"] == "C" and record["pid"] == os.getpid()
    assert isinstance(record["timestamp"], int)


def test_the_file_is_0600_in_a_0700_directory_and_lines_are_appended(tmp_path):
    path = tmp_path / "state" / "report.jsonl"
    write.append(str(path), [write.event("trash", sample_settings(), "rm", path="/1")])
    write.append(str(path), [write.event("restore", sample_settings(), "cli", path="/1")])
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    assert [json.loads(line)["operation"] for line in lines[:-1]] == ["trash", "restore"]


def test_concurrent_writers_never_tear_a_line(tmp_path):
    path = tmp_path / "report.jsonl"
    writers = [
        subprocess.Popen([sys.executable, "-c", APPENDER, REPO, str(path), f"t{n}", "300"])
        for n in range(4)
    ]
    assert [writer.wait() for writer in writers] == [0, 0, 0, 0]
    warnings = []
    records = list(write.read(str(path), warnings.append))
    assert warnings == []
    assert len(records) == 1200
    for turn in ("t0", "t1", "t2", "t3"):
        paths = [r["path"] for r in records if r["turn"] == turn]
        assert paths == [f"/p/{n}" for n in range(300)]


def test_a_symlinked_report_is_refused_for_writing_and_reading(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("untouched\n")
    link = tmp_path / "report.jsonl"
    link.symlink_to(target)
    with pytest.raises(OSError) as caught:
        write.append(str(link), [write.event("trash", sample_settings(), "rm", path="/x")])
    assert caught.value.errno == errno.ELOOP
    with pytest.raises(OSError) as caught:
        list(write.read(str(link)))
    assert caught.value.errno == errno.ELOOP
    assert target.read_text() == "untouched\n"


def test_torn_and_garbled_lines_are_skipped_with_a_warning(tmp_path):
    path = tmp_path / "report.jsonl"
    good = write.encode(write.event("trash", sample_settings(), "rm", path="/ok"))
    path.write_bytes(
        good
        + b'{"v":1,"operation":"tra\n'  # torn by a crash mid-write
        + b"\xff\xfe not json\n"
        + b"[1, 2]\n"
        + b"\n"
        + good
        + good[:-10]  # torn last line, no newline
    )
    warnings = []
    records = list(write.read(str(path), warnings.append))
    assert [r["path"] for r in records] == ["/ok", "/ok"]
    assert warnings == [
        f"{path}:2: skipped a garbled report line",
        f"{path}:3: skipped a garbled report line",
        f"{path}:4: skipped a garbled report line",
        f"{path}:7: skipped a garbled report line",
    ]


def test_the_default_warning_goes_to_stderr(tmp_path, capsys):
    path = tmp_path / "report.jsonl"
    path.write_bytes(b"garbage\n")
    assert list(write.read(str(path))) == []
    assert capsys.readouterr().err == f"safedel: warning: {path}:1: skipped a garbled report line\n"


def test_hostile_paths_survive_on_one_ascii_line(tmp_path):
    path = tmp_path / "report.jsonl"
    raw = b"/w/new\nline/\xff\xfe/-dash/100%/\x1b[31m"
    record = write.event("trash", sample_settings(), "rm", path=os.fsdecode(raw))
    write.append(str(path), [record])
    data = path.read_bytes()
    assert data.count(b"\n") == 1 and data.isascii()
    (back,) = write.read(str(path))
    assert os.fsencode(back["path"]) == raw


def test_reading_a_missing_report_yields_nothing(tmp_path):
    assert list(write.read(str(tmp_path / "absent.jsonl"))) == []


def test_reading_from_an_offset_skips_what_came_before(tmp_path):
    path = tmp_path / "report.jsonl"
    write.append(str(path), [write.event("trash", sample_settings(), "rm", path="/a")])
    offset = path.stat().st_size
    write.append(str(path), [write.event("trash", sample_settings(), "rm", path="/b")])
    assert [r["path"] for r in write.read(str(path), offset=offset)] == ["/b"]
