"""A move into the trash held between its two steps, for the tests that kill safedel there.

A move creates the item's info file, then renames the item into files/. strace holds
the nth of those renames (-P keeps it to the calls on the trash's files/ folder), so
the info file exists and its item is not in files/ yet, for as long as the test needs:
the very moment at which a kill leaves an info file without its item. What the tests
then check is what the user has: every file of the tree in its place or in the trash
with its own bytes, and no info file without its item once safedel starts again.
"""

import os
import time

from conftest import require

from safedel.core.trash import info

HOLD_US = 600_000_000  # longer than any test: the kill ends it


def held(files_dir, nth=3):
    """The argv prefix that runs a program with its nth rename into files_dir held."""
    calls = "rename,renameat,renameat2"
    return [
        require("strace"),
        "-f",
        "-qq",
        "-o",
        "/dev/null",
        "-P",
        str(files_dir),
        "-e",
        f"trace={calls}",
        "-e",
        f"inject={calls}:delay_enter={HOLD_US}:when={nth}",
    ]


def tree(root, dirs=4, files=25):
    """{path: bytes} of a tree of dirs x files small files made under root."""
    made = {}
    for d in range(dirs):
        (root / f"d{d}").mkdir(parents=True)
        for f in range(files):
            path = root / f"d{d}" / f"f{f}"
            path.write_bytes(b"%d/%d" % (d, f))
            made[str(path)] = path.read_bytes()
    return made


def infos_without_item(trash):
    names = os.listdir(trash / "info") if (trash / "info").is_dir() else []
    items = set(os.listdir(trash / "files")) if (trash / "files").is_dir() else set()
    suffix = ".trashinfo"
    return sorted(n for n in names if n.endswith(suffix) and n[: -len(suffix)] not in items)


def wait_for_an_orphan(trash, proc, nth=3):
    """The info files without their item once the nth move is held: the moves before
    it are whole, and its info file is written (never one caught in passing)."""
    for _ in range(6000):
        found = infos_without_item(trash)
        whole = len(os.listdir(trash / "files")) >= nth - 1
        if whole and found and all(os.path.getsize(trash / "info" / n) for n in found):
            return found
        if proc.poll() is not None:
            break
        time.sleep(0.01)
    return infos_without_item(trash)


def child_of(pid):
    """The first child of pid (strace's tracee)."""
    with open(f"/proc/{pid}/task/{pid}/children") as handle:
        return int(handle.read().split()[0])


def original_path(trash, info_name):
    with open(trash / "info" / info_name, "rb") as handle:
        return os.fsdecode(info.parse(handle.read())[0])


def where_each_file_is(trash, made):
    """{original path: its bytes now, in place or in the trash}; a missing file is absent."""
    found = {}
    for path in made:
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                found[path] = handle.read()
    for name in os.listdir(trash / "info"):
        item = trash / "files" / name[: -len(".trashinfo")]
        if item.is_file():
            found.setdefault(original_path(trash, name), item.read_bytes())
    return found


def wait_gone(pid):
    """Until process pid has ended (a zombie has): a dying process may still be one
    for a moment after its killer returns."""
    for _ in range(6000):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return
        except OSError:
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} did not end")


def end(proc):
    """Kill strace. A tracee killed while held (safedel, above) finishes dying only
    once strace lets go of it, and the process a dying supervisor leaves behind stays
    blocked in its deletion until then; the kill skipped the held rename already."""
    proc.kill()
    proc.wait()
