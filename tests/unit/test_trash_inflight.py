"""A sweep never takes the info file of a move under way for an orphan.

One process trashes files as fast as it can while another sweeps the same trash in a
loop with a clock a year ahead, so that every info file is past the grace: only the
lock the mover holds from before the info file's first byte to its item's arrival
(core/trash/inflight.py) keeps the sweep off. The sweep may take an info file still
empty, before its mover locked it; the mover then takes the next name. No item may
be in files/ without its info file, and every file must be in the trash.
"""

import os
import subprocess
import sys
import time

from safedel.core.trash import inflight, info, move, orphans

SWEEP = """
import os, sys, time
from safedel.core.trash import orphans
root, stop = os.fsencode(sys.argv[1]), sys.argv[2]
swept = 0
while not os.path.exists(stop):
    swept += len(orphans.repair(root, now=time.time() + 366 * 86400)[0])
print(swept)
"""


def test_a_sweep_a_year_ahead_never_takes_a_moving_info_file(tmp_path):
    trash, work = tmp_path / "trash", tmp_path / "work"
    work.mkdir()
    for sub in ("files", "info"):
        (trash / sub).mkdir(parents=True, mode=0o700)
    stop = tmp_path / "stop"
    sweeper = subprocess.Popen(
        [sys.executable, "-c", SWEEP, str(trash), str(stop)], stdout=subprocess.PIPE
    )
    try:
        for number in range(400):
            path = work / f"f{number}"
            path.write_text(str(number))
            record = move.trash(str(path), trash_dir=str(trash))
            assert os.stat(record.info_path).st_mode & 0o777 == inflight.DONE
    finally:
        stop.touch()
        sweeper.communicate(timeout=120)
    assert orphans.scan(os.fsencode(trash), now=time.time() + 366 * 86400) == ([], [])
    trashed = {}
    for name in os.listdir(trash / "info"):
        with open(trash / "info" / name, "rb") as handle:
            original = info.parse(handle.read())[0]
        trashed[os.fsdecode(original)] = (trash / "files" / name[:-10]).read_text()
    assert trashed == {str(work / f"f{n}"): str(n) for n in range(400)}


def test_an_info_file_left_mid_move_is_abandoned_once_its_mover_is_gone(tmp_path):
    info = tmp_path / "a.trashinfo"
    directory = os.open(tmp_path, os.O_RDONLY)
    fd = os.open("a.trashinfo", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400, dir_fd=directory)
    assert inflight.hold(fd, "a.trashinfo", directory)
    os.write(fd, b"[Trash Info]\nPath=/a\n")
    reader = os.open(info, os.O_RDONLY)
    try:
        assert not inflight.lock(reader)  # its mover holds it
        os.close(fd)  # as the kernel does for a mover it killed
        assert inflight.lock(reader) and inflight.abandoned(os.fstat(reader))
    finally:
        os.close(reader)
        os.close(directory)


def test_a_mover_whose_empty_info_file_a_sweep_took_takes_the_next_name(tmp_path):
    directory = os.open(tmp_path, os.O_RDONLY)
    fd = os.open("a.trashinfo", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400, dir_fd=directory)
    sweep = os.open(tmp_path / "a.trashinfo", os.O_RDONLY)
    try:
        assert inflight.lock(sweep)  # before the mover's lock: the file is still empty
        os.unlink(tmp_path / "a.trashinfo")
        os.close(sweep)
        assert not inflight.hold(fd, "a.trashinfo", directory)
    finally:
        os.close(fd)
        os.close(directory)
