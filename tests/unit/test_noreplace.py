"""Restoring never replaces what appeared at the destination."""

import errno
import os

import pytest

from safedel.trash.noreplace import rename_noreplace


@pytest.mark.parametrize("kind", ["file", "dir", "symlink"])
def test_an_existing_destination_is_never_replaced(tmp_path, kind):
    source = tmp_path / "trashed"
    source.write_text("old")
    destination = tmp_path / "there"
    if kind == "file":
        destination.write_text("new")
    elif kind == "dir":
        destination.mkdir()
    else:
        destination.symlink_to("nowhere")
    with pytest.raises(FileExistsError) as caught:
        rename_noreplace(source, destination)
    assert caught.value.errno == errno.EEXIST
    assert source.read_text() == "old"
    assert os.path.lexists(destination)


def test_a_free_destination_is_a_plain_move(tmp_path):
    source = tmp_path / "trashed"
    source.mkdir()
    (source / "inner").write_text("x")
    rename_noreplace(source, tmp_path / "back")
    assert (tmp_path / "back" / "inner").read_text() == "x"
    assert not source.exists()


def test_other_errors_are_reported_as_they_are(tmp_path):
    with pytest.raises(FileNotFoundError):
        rename_noreplace(tmp_path / "missing", tmp_path / "back")
