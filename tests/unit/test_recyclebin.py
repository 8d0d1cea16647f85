"""The Windows recycle bin, from `$I` files built byte by byte as Windows writes them."""

import json
import os
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from safedel.cli import app
from safedel.trash import recyclebin

WHEN = 1764440000.0  # 2025-11-29, a whole second
LONG = "C:\\" + "\\".join(["deep folder"] * 30) + "\\file.txt"  # 30 x 12 = far over 259


def v1_bytes(path, size=1234, filetime=None):
    """Version 1 by hand: the documented layout, not recyclebin.build()."""
    filetime = filetime if filetime is not None else int(WHEN * 10**7) + 116444736000000000
    raw = path.encode("utf-16-le", "surrogatepass")
    return struct.pack("<qqq", 1, size, filetime) + raw + b"\0" * (520 - len(raw))


def v2_bytes(path, size=1234, units=None):
    raw = path.encode("utf-16-le", "surrogatepass") + b"\0\0"
    units = len(raw) // 2 if units is None else units
    filetime = int(WHEN * 10**7) + 116444736000000000
    return struct.pack("<qqqI", 2, size, filetime, units) + raw


PATHS = [
    "C:\\Users\\ada\\notes.txt",
    "D:\\photos\\\U0001f600 party\\\U0001d11e.jpg",  # non-BMP: surrogate pairs in UTF-16
    "C:\\" + "a" * 256,  # 259 units: the most version 1 holds
    "C:\\Users\\ada\\\udc80lone surrogate.txt",  # NTFS allows an unpaired surrogate
    "\\\\server\\share\\x",
]


@pytest.mark.parametrize("path", PATHS)
def test_version_1_round_trips(path):
    data = v1_bytes(path)
    assert len(data) == 544 and recyclebin.build(path, 1234, WHEN, 1) == data
    record = recyclebin.parse(data)
    assert (record.version, record.original, record.size, record.deleted) == (1, path, 1234, WHEN)


@pytest.mark.parametrize("path", [*PATHS, LONG, "C:\\" + "\U0001f600" * 5000])
def test_version_2_round_trips(path):
    data = v2_bytes(path, size=2**40)
    assert recyclebin.build(path, 2**40, WHEN) == data
    record = recyclebin.parse(data)
    assert (record.version, record.original, record.size, record.deleted) == (2, path, 2**40, WHEN)


def test_version_1_cannot_hold_260_units():
    with pytest.raises(recyclebin.RecycleBinError, match="at most 259"):
        recyclebin.build("C:\\" + "a" * 257, 1, WHEN, 1)


GARBAGE = [
    (b"", "too short"),
    (b"\x02\x00\x00", "too short"),
    (v1_bytes("C:\\x")[:300], "544 bytes"),
    (v1_bytes("C:\\x") + b"\0\0", "544 bytes"),
    (struct.pack("<qqq", 1, 1, 0) + "a".encode("utf-16-le") * 260, "no terminating NUL"),
    (v1_bytes(""), "empty"),
    (v2_bytes("C:\\x")[:26], "ends before its path length"),
    (v2_bytes("C:\\x")[:-4], "path length says 5"),
    (v2_bytes("C:\\x", units=50), "path length says 50"),
    (v2_bytes("C:\\x", units=0), "path length says 0"),
    (v2_bytes("C:\\x", units=2**32 - 1), "path length says"),
    (v2_bytes("C:\\x")[:-2] + b"y\0", "no terminating NUL"),
    (v2_bytes("C:\\x")[:-3] + b"\0", "path length"),
    (struct.pack("<qqq", 3, 1, 0) + b"\0" * 520, "unknown $I version 3"),
    (struct.pack("<qqq", 0, 1, 0), "unknown $I version 0"),
    (b"MZ" + b"\x90" * 600, "unknown $I version"),
    (v2_bytes("C:\\x", size=-5), "negative size"),
    (v1_bytes("C:\\x", filetime=2**63 - 1), "out of range"),
    (v1_bytes("C:\\x", filetime=0), "out of range"),
    (v1_bytes("C:\\x", filetime=-1), "out of range"),
]


@pytest.mark.parametrize("data, message", GARBAGE)
def test_garbage_gives_a_clear_error(data, message):
    with pytest.raises(recyclebin.RecycleBinError) as caught:
        recyclebin.parse(data)
    assert message in str(caught.value)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=700))
def test_fuzz_parse_gives_a_record_or_a_clear_error(data):
    try:
        record = recyclebin.parse(data)
    except recyclebin.RecycleBinError as exc:
        assert str(exc)
    else:
        assert record.original and record.size >= 0


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=23), st.binary(min_size=1, max_size=40))
def test_fuzz_versions_with_noise(version_byte, tail):
    data = bytes([version_byte % 3]) + b"\0" * 7 + tail
    try:
        recyclebin.parse(data)
    except recyclebin.RecycleBinError:
        pass


def test_item_and_info_names_map_both_ways():
    assert recyclebin.info_name("$RAB12CD.txt") == "$IAB12CD.txt"
    assert recyclebin.item_name("$IAB12CD.txt") == "$RAB12CD.txt"
    assert recyclebin.item_name(recyclebin.info_name("$R0Q9ZZ")) == "$R0Q9ZZ"
    with pytest.raises(recyclebin.RecycleBinError):
        recyclebin.info_name("$IAB12CD.txt")
    with pytest.raises(recyclebin.RecycleBinError):
        recyclebin.item_name("desktop.ini")


@pytest.fixture
def windows(tmp_path, monkeypatch):
    """A fake $Recycle.Bin\\<SID> folder, and the platform simulated as Windows."""
    folder = tmp_path / "$Recycle.Bin" / "S-1-5-21-1111-2222-3333-1001"
    folder.mkdir(parents=True)
    (folder / "desktop.ini").write_bytes(b"[.ShellClassInfo]\r\n")
    monkeypatch.setattr(recyclebin, "PLATFORM", "win32")
    env = {"SAFEDEL_RECYCLE_BIN": str(folder), "SAFEDEL_REPORT": str(tmp_path / "r.jsonl")}
    env["SAFEDEL_STATE_DIR"] = str(tmp_path / "state")
    return folder, env


def recycle(folder, original, name, data, deleted, version=2):
    item = folder / ("$R" + name)
    if isinstance(data, dict):
        item.mkdir()
        for child, content in data.items():
            (item / child).write_bytes(content)
    else:
        item.write_bytes(data)
    (folder / ("$I" + name)).write_bytes(recyclebin.build(str(original), 5, deleted, version))
    return item


def invoke(env, *args):
    return CliRunner().invoke(app, list(args), env=env)


def test_list_and_restore_on_simulated_windows(windows, tmp_path):
    folder, env = windows
    work = tmp_path / "work"
    work.mkdir()
    recycle(folder, work / "report.txt", "AB12CD.txt", b"hello", WHEN, version=1)
    recycle(folder, work / "\U0001f600 dir", "XY34EF", {"a": b"1"}, WHEN + 60)
    (folder / "$IGARBAGE.txt").write_bytes(b"not a recycle-bin file")
    (folder / "$IGONE.txt").write_bytes(recyclebin.build(str(work / "gone.txt"), 1, WHEN + 120))
    listed = invoke(env, "list", "--json")
    assert listed.exit_code == 0, listed.output
    entries = json.loads(listed.stdout)
    assert [e["path"] for e in entries] == [
        str(work / "report.txt"),
        str(work / "\U0001f600 dir"),
        str(work / "gone.txt"),
    ]
    assert [e["kind"] for e in entries] == ["file", "dir", "missing"]
    assert entries[0]["trashPath"] == str(folder / "$RAB12CD.txt")
    assert entries[0]["infoPath"] == str(folder / "$IAB12CD.txt")
    assert "$IGARBAGE.txt" in listed.output and "Traceback" not in listed.output
    assert [e["size"] for e in entries] == [5, 5, 1]  # as the $I records say
    # Wide enough that the table keeps the whole name, whatever the temp dir's length.
    shown = invoke({**env, "COLUMNS": "400"}, "list")
    assert shown.exit_code == 0 and "report.txt" in shown.output and "3 items" in shown.output

    restored = invoke(env, "restore", str(work / "report.txt"))
    assert restored.exit_code == 0, restored.output
    assert (work / "report.txt").read_bytes() == b"hello"
    assert not (folder / "$RAB12CD.txt").exists() and not (folder / "$IAB12CD.txt").exists()

    last = invoke(env, "restore", "--last")
    assert last.exit_code == 0, last.output
    assert (work / "\U0001f600 dir" / "a").read_bytes() == b"1"
    assert not (folder / "$IXY34EF").exists()
    events = [json.loads(line) for line in open(env["SAFEDEL_REPORT"])]
    assert [e["operation"] for e in events] == ["restore", "restore"]


def test_restore_never_replaces_what_is_there(windows, tmp_path):
    folder, env = windows
    target = tmp_path / "taken.txt"
    target.write_bytes(b"new")
    recycle(folder, target, "TAKEN.txt", b"old", WHEN)
    refused = invoke(env, "restore", str(target))
    assert refused.exit_code == 1 and "already exists" in refused.output
    assert target.read_bytes() == b"new" and (folder / "$RTAKEN.txt").exists()
    renamed = invoke(env, "restore", "--rename", str(target))
    assert renamed.exit_code == 0, renamed.output
    assert (tmp_path / "taken.txt.restored-1").read_bytes() == b"old"
    assert not (folder / "$ITAKEN.txt").exists()


def test_without_windows_the_freedesktop_trash_is_read(windows, monkeypatch, tmp_path):
    folder, env = windows
    recycle(folder, tmp_path / "x.txt", "X.txt", b"x", WHEN)
    monkeypatch.setattr(recyclebin, "PLATFORM", "linux")
    env = {**env, "XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    listed = invoke(env, "list", "--json")
    assert json.loads(listed.stdout) == []


def test_folders_found_on_drives_without_the_override(monkeypatch):
    listing = {"C:\\$Recycle.Bin": ["S-1-5-21-9-1001", "S-1-5-18", "desktop.ini"]}

    def fake_listdir(path):
        if path in listing:
            return listing[path]
        raise FileNotFoundError(path)

    monkeypatch.setattr(os, "listdir", fake_listdir)
    found = recyclebin.folders({})
    assert [os.path.basename(p) for p in found] == ["S-1-5-21-9-1001", "S-1-5-18"]
