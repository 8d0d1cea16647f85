"""The record of confirmed config files (core/contract/confirmed.py): private, exact to
the byte, and a record that is damaged, replaced by a symlink or of another version
confirms nothing (which only narrows)."""

import json
import os

import pytest

from safedel.core.contract import confirmed


@pytest.fixture
def place(tmp_path):
    state = tmp_path / "state"
    config = tmp_path / "config.toml"
    config.write_text("threshold = 99999\n")
    confirmed.confirm(str(state), str(config), config.read_text(), config.stat())
    return state, config


def test_a_file_is_confirmed_while_its_content_is_the_text_shown(place):
    state, config = place
    assert confirmed.standing(str(config), str(state)).confirmed
    record = state / confirmed.RECORD
    assert record.stat().st_mode & 0o777 == 0o600
    assert state.stat().st_mode & 0o777 == 0o700
    entry = json.loads(record.read_text())["files"][str(config)]
    assert entry["text"] == "threshold = 99999\n" and len(entry["sha256"]) == 64
    assert entry["ino"] == config.stat().st_ino
    config.write_text("threshold = 99999 \n")  # one byte more
    assert not confirmed.standing(str(config), str(state)).confirmed
    # A new inode with the same content (an editor saving by rename) keeps it.
    fresh = config.with_name("new.toml")
    fresh.write_text("threshold = 99999\n")
    os.replace(fresh, config)
    assert confirmed.standing(str(config), str(state)).confirmed


@pytest.mark.parametrize("damage", ["garbage", "other version", "symlink", "directory"])
def test_a_record_it_cannot_trust_confirms_nothing(place, tmp_path, damage):
    state, config = place
    record = state / confirmed.RECORD
    good = record.read_text()
    if damage == "garbage":
        record.write_text(good[: len(good) // 2])
    elif damage == "other version":
        record.write_text(good.replace('"v":1', '"v":2'))
    elif damage == "symlink":
        elsewhere = tmp_path / "planted.json"
        elsewhere.write_text(good)
        record.unlink()
        record.symlink_to(elsewhere)
    else:
        record.unlink()
        record.mkdir()
    found = confirmed.standing(str(config), str(state))
    assert found.text == "threshold = 99999\n" and not found.confirmed and found.kept is None


def test_a_fifo_or_a_directory_is_no_config_file(tmp_path):
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    assert confirmed.read(str(fifo))[0] is None  # and returns at once: no writer needed
    assert confirmed.read(str(tmp_path))[0] is None
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * (confirmed.MAX_BYTES + 1))
    assert confirmed.read(str(big))[0] is None
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b"threshold = 9 # \xff\n")
    assert confirmed.read(str(latin))[0] is None


def test_forget_drops_one_file_only(place, tmp_path):
    state, config = place
    other = tmp_path / "other.toml"
    other.write_text("net = false\n")
    confirmed.confirm(str(state), str(other), other.read_text(), other.stat())
    confirmed.forget(str(state), str(config))
    assert confirmed.kept_text(str(config), str(state)) is None
    assert confirmed.kept_text(str(other), str(state)) == "net = false\n"
