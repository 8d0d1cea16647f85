"""Names in files/: the item's own name, else name.<8 random hex digits>, so that the
3,000th `conftest.c` costs as many probes as the second (issue 31, cases 3 and 12)."""

import os
import re

import pytest

from safedel.core.trash import info as trashinfo
from safedel.core.trash import move

TOKEN_NAME = re.compile(r"dup\.[0-9a-f]{8}")


@pytest.fixture
def home_trash(tmp_path, monkeypatch):
    data = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.delenv("SAFEDEL_TRASH_DIR", raising=False)
    return data / "Trash"


@pytest.fixture
def work(tmp_path):
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def info_probes(monkeypatch):
    """Every attempt to create an info file (os.open of a *.trashinfo), in order."""
    probes = []
    real_open = os.open

    def counting_open(path, flags, *args, **kwargs):
        if os.fsencode(path).endswith(trashinfo.INFO_SUFFIX):
            probes.append(os.fsencode(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", counting_open)
    return probes


def test_a_repeated_name_gets_its_own_name_then_random_suffixes(home_trash, work):
    names = []
    for content in ("first", "second", "third"):
        (work / "dup").write_text(content)
        names.append(os.path.basename(move.trash(str(work / "dup")).trash_path))
    assert names[0] == "dup"
    assert all(TOKEN_NAME.fullmatch(n) for n in names[1:]) and len(set(names)) == 3
    assert (home_trash / "files" / names[2]).read_text() == "third"
    assert sorted(os.listdir(home_trash / "info")) == sorted(f"{n}.trashinfo" for n in names)
    with open(home_trash / "info" / f"{names[1]}.trashinfo", "rb") as handle:
        assert trashinfo.parse(handle.read())[0] == os.fsencode(work / "dup")


def test_a_name_taken_in_files_without_an_info_file_is_skipped(home_trash, work):
    (work / "x").touch()
    move.trash(str(work / "x"))
    os.unlink(home_trash / "info" / "x.trashinfo")  # a stray entry in files/
    (work / "x").write_text("new")
    record = move.trash(str(work / "x"))
    assert re.fullmatch(r"x\.[0-9a-f]{8}", os.path.basename(record.trash_path))
    assert os.listdir(home_trash / "info") == [os.path.basename(record.trash_path) + ".trashinfo"]
    assert (home_trash / "files" / "x").read_text() == ""  # the stray entry is untouched


def test_the_300th_same_name_takes_as_many_probes_as_the_second(home_trash, work, info_probes):
    per_item = []
    for _ in range(300):
        (work / "dup").touch()
        before = len(info_probes)
        move.trash(str(work / "dup"))
        per_item.append(len(info_probes) - before)
    assert per_item[0] == 1  # the name itself, free
    assert per_item[1:] == [2] * 299  # the name itself (taken), then one fresh token
    assert len(os.listdir(home_trash / "files")) == 300


def test_a_token_already_taken_draws_another(home_trash, work, info_probes, monkeypatch):
    tokens = iter([b"aaaaaaaa", b"aaaaaaaa", b"bbbbbbbb"])
    monkeypatch.setattr(trashinfo, "collision_token", lambda: next(tokens))
    for _ in range(2):
        (work / "dup").touch()
        move.trash(str(work / "dup"))
    (work / "dup").write_text("third")
    record = move.trash(str(work / "dup"))
    assert os.path.basename(record.trash_path) == "dup.bbbbbbbb"
    assert [os.path.basename(p) for p in info_probes[-3:]] == [
        b"dup.trashinfo",
        b"dup.aaaaaaaa.trashinfo",
        b"dup.bbbbbbbb.trashinfo",
    ]
    assert (home_trash / "files" / "dup.aaaaaaaa").read_text() == ""
