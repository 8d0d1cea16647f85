"""Directories whose own mode stops a move but not the kernel's rmdir, under the net.

rmdir needs write permission on the parent only. GNU's rm therefore removes an empty
directory of mode 0, an empty one without u+w, and answers a non-empty one it cannot
read with its own EACCES once rmdir says ENOTEMPTY. Under the net, as a user (root is
never stopped by a mode), each must come out the same: the empty ones in the trash with
their own mode, the unreadable one left in place with GNU's message.
"""

import os
import stat

import pytest
from netkit import NOBODY, as_nobody, nobody_package, nobody_scratch, require_net

# Each script builds its own tree, so the run without safedel and the one with it start
# from the same thing; /bin/rm under dash reaches only the net.
EMPTY_BUT_CLOSED = (
    "umask 022 && mkdir -m0 inacc && mkdir -p a/u z/du && chmod 0 a/u && chmod u-w z/du"
    " && /bin/rm -rf inacc a z"
)
UNREADABLE = "mkdir -p b/c && chmod u-r b && /bin/rm -rf b"


@pytest.fixture
def scratch():
    with nobody_scratch("safedel-net-modes-") as root:
        yield root


def _trashed_modes(scratch):
    files = os.path.join(scratch, "home", ".local", "share", "Trash", "files")
    return {
        name: stat.S_IMODE(os.lstat(os.path.join(files, name)).st_mode)
        for name in os.listdir(files)
    }


def test_empty_directories_closed_to_their_owner_are_trashed_with_their_mode(scratch):
    require_net()
    nobody_package(os.path.join(scratch, "package"))
    assert as_nobody(scratch, "plain", EMPTY_BUT_CLOSED, netted=False) == (0, b"")
    assert as_nobody(scratch, "netted", EMPTY_BUT_CLOSED, netted=True) == (0, b"")
    assert os.listdir(os.path.join(scratch, "netted")) == []
    modes = _trashed_modes(scratch)
    assert modes == {"inacc": 0, "u": 0, "a": 0o755, "du": 0o555, "z": 0o755}


def test_an_unreadable_directory_that_is_not_empty_stays_with_the_kernels_answer(scratch):
    require_net()
    nobody_package(os.path.join(scratch, "package"))
    plain = as_nobody(scratch, "plain", UNREADABLE, netted=False)
    assert plain == (1, b"/bin/rm: cannot remove 'b': Permission denied\n")
    assert as_nobody(scratch, "netted", UNREADABLE, netted=True) == plain
    os.chmod(os.path.join(scratch, "netted", "b"), 0o755)
    assert os.listdir(os.path.join(scratch, "netted", "b")) == ["c"]


def test_a_set_group_id_directory_of_another_group_keeps_its_mode(scratch):
    # The kernel clears set-group-ID when someone outside the directory's group changes
    # its mode, so a look lent and given back would strip it: no look is lent then.
    require_net()
    nobody_package(os.path.join(scratch, "package"))
    script = "/bin/rmdir g; /bin/rm -d g"
    outcomes = {}
    for name, netted in (("plain", False), ("netted", True)):
        group_dir = os.path.join(scratch, name, "g")
        os.makedirs(group_dir)
        open(os.path.join(group_dir, "kept"), "w").close()
        os.chown(group_dir, NOBODY, 1700)
        os.chmod(group_dir, 0o2070)
        outcomes[name] = as_nobody(scratch, name, script, netted=netted)
        assert stat.S_IMODE(os.lstat(group_dir).st_mode) == 0o2070
        assert os.listdir(group_dir) == ["kept"]
    assert outcomes["netted"] == outcomes["plain"]
    assert b"Directory not empty" in outcomes["plain"][1]
