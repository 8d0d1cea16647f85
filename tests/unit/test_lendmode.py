"""A lent mode lands on the directory that was judged, never on what replaced it."""

import errno
import os
import stat

import pytest

from safedel.core.lendmode import set_mode


def _mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_a_mode_zero_directory_gets_its_loan_and_its_mode_back(tmp_path):
    target = tmp_path / "d"
    target.mkdir(mode=0o000)
    st = os.lstat(target)
    parent = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        set_mode("d", 0o700, st, parent)
        assert _mode(target) == 0o700
        set_mode("d", 0o000, st, parent)
        assert _mode(target) == 0o000
    finally:
        os.close(parent)
        target.chmod(0o700)


def test_a_symlink_swapped_in_is_not_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir(mode=0o700)
    judged = tmp_path / "d"
    judged.mkdir(mode=0o000)
    st = os.lstat(judged)
    judged.rename(tmp_path / "moved")
    judged.symlink_to(victim)
    with pytest.raises(OSError) as caught:
        set_mode(str(judged), 0o000, st)
    assert caught.value.errno in (errno.ELOOP, errno.ENOTDIR)
    assert _mode(victim) == 0o700
    (tmp_path / "moved").chmod(0o700)


def test_another_directory_under_the_name_is_left_alone(tmp_path):
    judged = tmp_path / "d"
    judged.mkdir(mode=0o000)
    st = os.lstat(judged)
    judged.rename(tmp_path / "moved")
    judged.mkdir(mode=0o755)
    with pytest.raises(OSError) as caught:
        set_mode(str(judged), 0o000, st)
    assert caught.value.errno == errno.ESTALE
    assert _mode(judged) == 0o755
    assert _mode(tmp_path / "moved") == 0o000
    (tmp_path / "moved").chmod(0o700)
