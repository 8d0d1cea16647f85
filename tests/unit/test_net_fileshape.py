"""What the net reads as safedel's own file before the kernel may delete it for real.

Every shape is checked against what safedel really writes (its own writers, not a
copy of their output), and against the nearest look-alikes a command could make.
"""

import json
import os

import pytest

from safedel.core.trash import dirsizes, info
from safedel.net import fileshape


def test_what_safedel_writes_reads_as_its_own(tmp_path):
    rendered = info.render(b"/home/u/caf\xc3\xa9 \n x", info.deletion_date())
    assert fileshape.trash_info(rendered)
    assert fileshape.trash_info(b"")  # created, not written yet
    dirsizes.write(os.fsencode(tmp_path), {b"build dir": (4096, 1764440000), b"x": (1, 2)})
    assert fileshape.directory_sizes((tmp_path / "directorysizes").read_bytes())
    from safedel.trash import catalogcache

    assert fileshape.catalog(catalogcache.MAGIC + b"\x00\x01rest")
    pointer = json.dumps({"session": "s", "turn": "t", "pid": 4242, "run": "r-1"}).encode()
    assert fileshape.run_pointer(pointer, 4242)
    assert fileshape.json_lines(b'{"op":"take","n":1}\n{"op":"approve"}\n')


@pytest.mark.parametrize(
    "content",
    [
        None,
        b"my notes",
        b"[Trash Info]\n",  # no Path=
        b"[Trash Info]\nPath=/a b\n",  # a space: not percent-encoded
        b"[Trash Info]\nPath=/a\nPath=/b\n",
        b"[Trash Info]\nPath=/a\nNote=my diary\n",
        b"[Trash Info]\nPath=/a\n\x00\x01binary",
        b"Path=/a\n[Trash Info]\n",
    ],
)
def test_a_look_alike_is_no_trash_info_file(content):
    assert not fileshape.trash_info(content)


@pytest.mark.parametrize(
    ("check", "content"),
    [
        (fileshape.directory_sizes, b"my sizes, in prose\n"),
        (fileshape.directory_sizes, b"12 34 a b\n"),
        (fileshape.directory_sizes, None),
        (fileshape.catalog, b"not a catalog at all"),
        (fileshape.catalog, b"safedel catalogue\n"),
        (fileshape.json_lines, b'{"op":"take"}\nmy notes\n'),
        (fileshape.json_lines, b"[1, 2]\n"),
        (fileshape.json_object, b"\xff\xfe"),
    ],
)
def test_a_look_alike_is_no_cache_nor_state(check, content):
    assert not check(content)


@pytest.mark.parametrize(
    "content",
    [
        b'{"run": "r", "pid": 4243}',  # another process's
        b'{"run": "r", "pid": "4242"}',
        b'{"run": 1, "pid": 4242}',
        b'{"pid": 4242}',
        b'[{"run": "r", "pid": 4242}]',
        b"4242",
    ],
)
def test_a_pointer_names_its_run_and_its_own_process(content):
    assert not fileshape.run_pointer(content, 4242)


def test_only_a_regular_file_of_ours_within_the_limit_is_read(tmp_path):
    (tmp_path / "small").write_bytes(b"x" * 10)
    (tmp_path / "big").write_bytes(b"x" * (fileshape.SMALL + 1))
    os.symlink("small", tmp_path / "link")
    os.mkfifo(tmp_path / "fifo")
    fd = os.open(tmp_path, os.O_PATH)
    try:
        assert fileshape.read((fd, b"small")) == b"x" * 10
        for name in (b"big", b"link", b"fifo", b"missing"):
            assert fileshape.read((fd, name)) is None, name
        assert fileshape.read((fd, b"big"), limit=fileshape.SMALL + 1) is not None
    finally:
        os.close(fd)
