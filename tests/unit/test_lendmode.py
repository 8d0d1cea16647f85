"""A lent mode lands on the directory that was judged, never on what replaced it, and
goes back on that directory wherever it has moved."""

import errno
import os
import stat

import pytest

from safedel.core.lendmode import keeps_its_bits, lend


def _mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def closed(tmp_path):
    judged = tmp_path / "d"
    judged.mkdir(mode=0o000)
    yield judged, os.lstat(judged)
    for path in tmp_path.iterdir():
        if not path.is_symlink():
            path.chmod(0o700)


def test_a_mode_zero_directory_gets_its_loan_and_its_mode_back(tmp_path, closed):
    judged, st = closed
    parent = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        loan = lend("d", st, 0o500, parent)
        assert _mode(judged) == 0o500
        assert loan.is_empty()
        loan.give_back()
    finally:
        os.close(parent)
    assert _mode(judged) == 0o000


def test_a_symlink_swapped_in_before_the_loan_is_not_followed(tmp_path, closed):
    judged, st = closed
    victim = tmp_path / "victim"
    victim.mkdir(mode=0o700)
    judged.rename(tmp_path / "moved")
    judged.symlink_to(victim)
    with pytest.raises(OSError) as caught:
        lend(str(judged), st, 0o300)
    assert caught.value.errno in (errno.ELOOP, errno.ENOTDIR)
    assert _mode(victim) == 0o700


def test_another_directory_under_the_name_is_left_alone(tmp_path, closed):
    judged, st = closed
    judged.rename(tmp_path / "moved")
    judged.mkdir(mode=0o755)
    with pytest.raises(OSError) as caught:
        lend(str(judged), st, 0o300)
    assert caught.value.errno == errno.ESTALE
    assert _mode(judged) == 0o755
    assert _mode(tmp_path / "moved") == 0o000


def test_the_mode_goes_back_on_the_directory_not_on_its_old_name(tmp_path, closed):
    judged, st = closed
    victim = tmp_path / "victim"
    victim.mkdir(mode=0o700)
    loan = lend(str(judged), st, 0o300)
    judged.rename(tmp_path / "moved")  # as into the trash, or as a racing rename
    judged.symlink_to(victim)
    loan.give_back()
    assert _mode(tmp_path / "moved") == 0o000
    assert _mode(victim) == 0o700


def test_a_loan_is_needed_only_for_missing_bits(tmp_path):
    (tmp_path / "open").mkdir(mode=0o755)
    assert lend(str(tmp_path / "open"), os.lstat(tmp_path / "open"), 0o500) is None


def test_set_group_id_of_a_group_of_ours_survives(tmp_path):
    (tmp_path / "g").mkdir()
    os.chmod(tmp_path / "g", 0o2750)
    assert keeps_its_bits(os.lstat(tmp_path / "g"))
