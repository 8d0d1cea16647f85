"""The Linux trash engine on one filesystem: layout, info files, names, links, batches."""

import errno
import os
import re
import stat
import sys
import types

import pytest

from safedel.core.contract import settings
from safedel.core.trash import info as trashinfo
from safedel.core.trash import move


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


def info_text(record):
    with open(record.info_path, "rb") as handle:
        return handle.read()


def test_file_goes_to_the_home_trash_with_a_valid_info_file(home_trash, work):
    victim = work / "notes.txt"
    victim.write_text("keep me")
    record = move.trash(str(victim))
    assert not os.path.lexists(victim)
    assert record.path == str(victim)
    assert record.trash_path == str(home_trash / "files" / "notes.txt")
    assert record.info_path == str(home_trash / "info" / "notes.txt.trashinfo")
    assert record.kind == "file"
    with open(record.trash_path) as handle:
        assert handle.read() == "keep me"
    lines = info_text(record).split(b"\n")
    assert lines[0] == b"[Trash Info]"
    assert lines[1] == b"Path=" + trashinfo.encode_path(os.fsencode(victim))
    assert re.fullmatch(rb"DeletionDate=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", lines[2])
    assert stat.S_IMODE(os.stat(record.info_path).st_mode) == 0o600
    for sub in ("", "files", "info"):
        assert stat.S_IMODE(os.stat(home_trash / sub).st_mode) == 0o700


def test_the_home_trash_follows_xdg_data_home_at_call_time(tmp_path, work, monkeypatch):
    for name in ("one", "two"):
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / name))
        victim = work / name
        victim.touch()
        record = move.trash(str(victim))
        assert record.trash_path == str(tmp_path / name / "Trash" / "files" / name)


def test_an_emptied_trash_is_made_again(home_trash, work):
    (work / "a").touch()
    move.trash(str(work / "a"))
    for sub in ("files", "info"):
        for entry in os.listdir(home_trash / sub):
            os.unlink(home_trash / sub / entry)
        os.rmdir(home_trash / sub)
    (work / "b").touch()
    assert move.trash(str(work / "b")).trash_path == str(home_trash / "files" / "b")


def test_path_is_percent_encoded_and_decodes_back(home_trash, work):
    raw = os.fsencode(work) + b"/100% sure \xff\n-x"
    with open(raw, "wb"):
        pass
    record = move.trash(raw)
    path_line = info_text(record).split(b"\n")[1]
    assert re.fullmatch(rb"Path=[A-Za-z0-9\-._~/%]+", path_line)
    assert b"%25" in path_line and b"%20" in path_line and b"%FF" in path_line
    assert trashinfo.parse(info_text(record))[0] == raw


def test_a_symlink_is_trashed_as_the_link(home_trash, work):
    target = work / "target"
    target.write_text("data")
    (work / "link").symlink_to(target)
    record = move.trash(str(work / "link"))
    assert record.kind == "symlink"
    assert os.path.islink(record.trash_path)
    assert target.read_text() == "data"


def test_a_dangling_symlink_is_trashed(home_trash, work):
    (work / "dangling").symlink_to(work / "nowhere")
    record = move.trash(str(work / "dangling"))
    assert record.kind == "symlink"
    assert os.readlink(record.trash_path) == str(work / "nowhere")
    assert not os.path.lexists(work / "dangling")


def test_link_with_a_trailing_slash_trashes_the_link_not_the_directory(home_trash, work):
    (work / "realdir").mkdir()
    (work / "realdir" / "inside").touch()
    (work / "dirlink").symlink_to(work / "realdir")
    record = move.trash(str(work / "dirlink") + "/")
    assert record.kind == "symlink"
    assert record.path == str(work / "dirlink")
    assert (work / "realdir" / "inside").exists()


def test_a_file_with_a_trailing_slash_is_not_a_directory(home_trash, work):
    (work / "plain").touch()
    with pytest.raises(NotADirectoryError):
        move.trash(str(work / "plain") + "/")
    assert (work / "plain").exists()
    assert not os.path.isdir(home_trash / "info") or not os.listdir(home_trash / "info")


def test_a_directory_moves_in_one_rename(home_trash, work):
    tree = work / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "leaf").write_text("leaf")
    inode = os.stat(tree).st_ino
    record = move.trash(str(tree))
    assert record.kind == "dir"
    assert os.stat(record.trash_path).st_ino == inode
    assert (home_trash / "files" / "tree" / "a" / "b" / "leaf").read_text() == "leaf"


def test_a_missing_path_raises_file_not_found_and_leaves_no_info(home_trash, work):
    with pytest.raises(FileNotFoundError):
        move.trash(str(work / "absent"))
    assert not home_trash.exists() or not os.listdir(home_trash / "info")


def test_root_is_refused():
    with pytest.raises(move.TrashFailure) as caught:
        move.trash("/")
    assert caught.value.errno == errno.EPERM


def test_safedel_trash_dir_takes_everything(home_trash, work, tmp_path, monkeypatch):
    override = tmp_path / "one-trash"
    monkeypatch.setenv("SAFEDEL_TRASH_DIR", str(override))
    (work / "f").touch()
    record = move.trash(str(work / "f"), settings.load().trash_dir)
    assert record.trash_path == str(override / "files" / "f")
    assert trashinfo.parse(info_text(record))[0] == os.fsencode(work / "f")
    assert not home_trash.exists()


def test_a_batch_goes_on_past_a_failure(home_trash, work):
    (work / "a").touch()
    (work / "c").touch()
    outcomes = list(move.trash_batch([str(work / "a"), str(work / "b"), str(work / "c")]))
    assert [path for path, _, _ in outcomes] == [str(work / n) for n in "abc"]
    assert outcomes[0][1].trash_path.endswith("/files/a") and outcomes[0][2] is None
    assert outcomes[1][1] is None and isinstance(outcomes[1][2], FileNotFoundError)
    assert outcomes[2][1].trash_path.endswith("/files/c") and outcomes[2][2] is None
    assert sorted(os.listdir(home_trash / "files")) == ["a", "c"]


@pytest.mark.parametrize(
    "name, utf8",
    [(b"x" * 255, True), ("é".encode() * 127 + b"x", True), (b"\xff" * 255, False)],
    ids=["ascii", "utf8", "bytes"],
)
def test_255_byte_names_fit_with_their_info_file(home_trash, work, name, utf8):
    source = os.path.join(os.fsencode(work), name)
    entries = []
    for _ in range(2):
        with open(source, "wb"):
            pass
        entries.append(os.fsencode(move.trash(source).trash_path))
    for entry in entries:
        base = os.path.basename(entry)
        assert len(base) + len(b".trashinfo") <= 255
        assert os.path.exists(entry)
        if utf8:
            base.decode("utf-8")  # never cut inside a UTF-8 character
    assert re.fullmatch(rb".*\.[0-9a-f]{8}", os.path.basename(entries[1]), re.S)
    info = os.path.join(os.fsencode(home_trash), b"info", os.path.basename(entries[1]))
    with open(info + b".trashinfo", "rb") as handle:
        assert trashinfo.parse(handle.read())[0] == source


def _fake_send2trash(monkeypatch, behaviour):
    calls = []
    module = types.ModuleType("send2trash")

    def send2trash(path):
        calls.append(path)
        behaviour(path)

    module.send2trash = send2trash
    monkeypatch.setitem(sys.modules, "send2trash", module)
    monkeypatch.setattr(move, "_NATIVE_TRASH", True)
    return calls


def test_macos_and_windows_hand_the_absolute_path_to_send2trash(work, monkeypatch):
    (work / "f").touch()
    calls = _fake_send2trash(monkeypatch, lambda path: None)
    monkeypatch.chdir(work)
    record = move.trash("f")
    assert calls == [str(work / "f")]
    assert (record.path, record.trash_path, record.info_path, record.kind) == (
        str(work / "f"),
        None,
        None,
        "file",
    )


def test_a_send2trash_error_becomes_a_trash_failure(work, monkeypatch):
    (work / "f").touch()

    def refuse(path):
        raise PermissionError(errno.EACCES, "Permission denied", path)

    _fake_send2trash(monkeypatch, refuse)
    with pytest.raises(move.TrashFailure) as caught:
        move.trash(str(work / "f"))
    assert caught.value.errno == errno.EACCES
    assert caught.value.reason == "the system trash refused it: Permission denied"


def test_without_send2trash_the_native_path_fails_closed(work, monkeypatch):
    (work / "f").touch()
    monkeypatch.setitem(sys.modules, "send2trash", None)  # import raises ImportError
    monkeypatch.setattr(move, "_NATIVE_TRASH", True)
    with pytest.raises(move.TrashFailure) as caught:
        move.trash(str(work / "f"))
    assert caught.value.errno == errno.ENOSYS
    assert (work / "f").exists()
