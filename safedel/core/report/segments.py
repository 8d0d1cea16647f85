"""The report over time: size-bounded segments, read as one stream, and quick lookups.

The current report keeps its name (a harness tailing SAFEDEL_REPORT keeps working).
When an append takes it past report.SEGMENT_BYTES, the appender renames it to
`<name>.<epoch ns>-<inode>`, a name no other rotation can take, and the next append
starts a new file (core/report/write.py: writers load only that half). A process still
holding the old descriptor appends to the segment: no event is lost, and readers read
every segment, oldest first, then the current file.

Lookups stay fast on a long history without an index. A turn or session is found by
searching the raw bytes for its exact JSON field and parsing only those lines, and a
time range by bisecting each segment on its (nearly ordered) timestamps.
"""

import os

from .. import jsonl

# Concurrent writers can append slightly out of timestamp order: bisect with slack.
_SLACK_MS = 60_000


def segments(path, with_time=False):
    """The rotated segments of the report at path, oldest first (bytes paths; with
    with_time, (rotation time in ns, path) pairs)."""
    path = os.fsencode(path)
    directory, base = os.path.split(path)
    try:
        names = os.listdir(directory or b".")
    except OSError:
        return []
    found = []
    for name in names:
        if name.startswith(base):
            rotated = _rotation_time(name[len(base) :])
            if rotated is not None:
                found.append((rotated, os.path.join(directory, name)))
    found.sort()
    return found if with_time else [segment for _, segment in found]


def all_files(path):
    return [*segments(path), os.fsencode(path)]


def position(path):
    """Where the report ends now: (inode, size) of the current file, or None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size


def files_after(path, mark):
    """[(file, offset)] holding what was appended after position() returned mark."""
    files = all_files(path)
    if mark is None:
        return [(f, 0) for f in files]
    inode, size = mark
    for index, name in enumerate(files):
        try:
            if os.stat(name).st_ino == inode:
                return [(name, size)] + [(f, 0) for f in files[index + 1 :]]
        except OSError:
            continue
    return [(files[-1], 0)]


def matching_lines(name, needles):
    """Lines of the file that contain every needle (bytes), found without parsing."""
    import mmap

    try:
        with open(name, "rb") as handle:
            if os.fstat(handle.fileno()).st_size == 0:
                return
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return
    with data:
        first = needles[0]
        start = data.find(first)
        while start != -1:
            begin = data.rfind(b"\n", 0, start) + 1
            end = data.find(b"\n", start)
            end = len(data) if end == -1 else end
            line = data[begin:end]
            if all(needle in line for needle in needles[1:]):
                yield line
            start = data.find(first, end)


def field(name, value):
    """The exact bytes a report line holds for "name":value."""
    return (jsonl.dumps(name) + ":" + jsonl.dumps(value)).encode("ascii")


def files_since(path, cutoff_ms):
    """[(file, offset)] that hold every event from cutoff_ms on: segments rotated before
    it are skipped, and each file is entered where bisecting its timestamps says."""
    chosen = [
        name
        for rotated, name in segments(path, True)
        if rotated // 1_000_000 >= cutoff_ms - _SLACK_MS
    ]
    chosen.append(os.fsencode(path))
    return [(name, offset_since(name, cutoff_ms)) for name in chosen]


def offset_since(name, cutoff_ms):
    """A byte offset in the file before which every line is older than cutoff_ms."""
    try:
        size = os.path.getsize(name)
        handle = open(name, "rb")
    except OSError:
        return 0
    with handle:
        low, high = 0, size
        target = cutoff_ms - _SLACK_MS
        while high - low > 65536:
            middle = (low + high) // 2
            handle.seek(middle)
            handle.readline()  # to the start of the next whole line
            stamp = _timestamp(handle.readline())
            if stamp is None or stamp >= target:
                high = middle
            else:
                low = middle
        return low


def _rotation_time(suffix):
    """The ns time in a `.<19 digits>-<inode>` segment suffix, or None."""
    stamp, dash, inode = suffix[1:].partition(b"-")
    if suffix[:1] == b"." and dash and len(stamp) == 19 and stamp.isdigit() and inode.isdigit():
        return int(stamp)
    return None


def _timestamp(line):
    start = line.find(b'"timestamp":')
    if start == -1:
        return None
    digits = line[start + 12 : start + 40].split(b",")[0].split(b"}")[0].strip()
    return int(digits) if digits.isdigit() else None
