"""The Windows recycle bin, read by pure parsing (so every branch runs on any platform).

`<drive>:\\$Recycle.Bin\\<SID>\\` holds, for each deleted item, `$R<id><ext>` (the item
itself, renamed) and `$I<id><ext>` (where it came from). A `$I` file is little-endian:

  version 1 (Vista to 8.1): int64 version, int64 size, FILETIME deleted, then the path
                            as 520 bytes of UTF-16, NUL-terminated and NUL-padded
  version 2 (Windows 10+) : int64 version, int64 size, FILETIME deleted, uint32 path
                            length in UTF-16 code units (with its NUL), then the path

On Windows, `safedel list` and `restore` read these through the same Item interface as
freedesktop trash entries; restore renames `$R…` back, then removes its `$I…`.
SAFEDEL_RECYCLE_BIN (os.pathsep-separated `<SID>` folders) names the folders to read
instead of every readable one on every drive.
"""

import errno
import os
import struct
import sys
import time

from .catalogcache import kind_of

PLATFORM = sys.platform  # tests simulate Windows by changing this
V1, V2 = 1, 2
HEADER = struct.Struct("<qqq")  # version, size, FILETIME
V1_PATH_BYTES = 520
V2_LENGTH = struct.Struct("<I")
MAX_PATH_UNITS = 32767  # the longest path Windows allows, in UTF-16 code units
_EPOCH_AS_FILETIME = 116444736000000000  # 1970-01-01 in 100 ns ticks since 1601
_LAST_SECOND = 253402300799  # 9999-12-31T23:59:59Z


class RecycleBinError(ValueError):
    """A `$I` file that is not one; str() says what is wrong with it."""


class Record:
    __slots__ = ("version", "original", "size", "deleted")

    def __init__(self, version, original, size, deleted):
        self.version = version
        self.original = original  # the path as Windows stored it (str)
        self.size = size  # bytes, as Windows counted them
        self.deleted = deleted  # seconds since the epoch


def parse(data):
    """The Record in the bytes of one `$I` file; RecycleBinError if they are not one."""
    if len(data) < HEADER.size:
        raise RecycleBinError(f"{len(data)} bytes is too short for a $I header (24)")
    version, size, filetime = HEADER.unpack_from(data)
    if version == V1:
        raw = data[HEADER.size :]
        if len(raw) != V1_PATH_BYTES:
            raise RecycleBinError(f"a version 1 $I file has 544 bytes, not {len(data)}")
    elif version == V2:
        if len(data) < HEADER.size + V2_LENGTH.size:
            raise RecycleBinError("a version 2 $I file ends before its path length")
        (units,) = V2_LENGTH.unpack_from(data, HEADER.size)
        raw = data[HEADER.size + V2_LENGTH.size :]
        if not 1 <= units <= MAX_PATH_UNITS + 1 or len(raw) != units * 2:
            raise RecycleBinError(
                f"its path length says {units} UTF-16 units, but {len(raw)} bytes follow"
            )
    else:
        raise RecycleBinError(f"unknown $I version {version} (known: 1, 2)")
    if size < 0:
        raise RecycleBinError(f"negative size {size}")
    return Record(version, _path(raw), size, _epoch(filetime))


def _path(raw):
    units = [raw[i : i + 2] for i in range(0, len(raw), 2)]
    if b"\0\0" not in units:
        raise RecycleBinError("its path has no terminating NUL")
    end = units.index(b"\0\0") * 2
    if end == 0:
        raise RecycleBinError("its path is empty")
    # NTFS names may hold unpaired surrogates: keep them rather than refuse the entry.
    return raw[:end].decode("utf-16-le", "surrogatepass")


def _epoch(filetime):
    """Seconds since the epoch; a time before 1970 or after 9999 is a damaged file (and
    beyond what localtime() takes on every platform)."""
    seconds = (filetime - _EPOCH_AS_FILETIME) / 10**7
    if not 0 <= seconds <= _LAST_SECOND:
        raise RecycleBinError(f"deletion time {filetime} is out of range")
    return seconds


def build(original, size, deleted, version=V2):
    """The bytes of a `$I` file, as Windows writes them (tests and round trips)."""
    filetime = int(round(deleted * 10**7)) + _EPOCH_AS_FILETIME
    path = original.encode("utf-16-le", "surrogatepass") + b"\0\0"
    head = HEADER.pack(version, size, filetime)
    if version == V1:
        if len(path) > V1_PATH_BYTES:
            raise RecycleBinError("a version 1 $I file holds at most 259 UTF-16 units")
        return head + path.ljust(V1_PATH_BYTES, b"\0")
    return head + V2_LENGTH.pack(len(path) // 2) + path


def info_name(item_name):
    """`$RABC123.txt` -> `$IABC123.txt` (a `$R` name's `$I` sibling)."""
    if not item_name.startswith("$R"):
        raise RecycleBinError(f"{item_name!r} is not a $R name")
    return "$I" + item_name[2:]


def item_name(info):
    if not info.startswith("$I"):
        raise RecycleBinError(f"{info!r} is not a $I name")
    return "$R" + info[2:]


def in_use():
    """True where `list` and `restore` read the recycle bin instead of freedesktop trash."""
    return PLATFORM == "win32"


def folders(environ=None):
    """The `<SID>` folders to read: SAFEDEL_RECYCLE_BIN, else every readable
    `$Recycle.Bin\\S-…` on every drive (others' folders are closed to us by their ACLs)."""
    environ = os.environ if environ is None else environ
    given = environ.get("SAFEDEL_RECYCLE_BIN")
    if given:
        return [p for p in given.split(os.pathsep) if p]
    found = []
    for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ":
        bin_dir = f"{letter}:\\$Recycle.Bin"
        try:
            names = os.listdir(bin_dir)
        except OSError:
            continue
        found += [os.path.join(bin_dir, n) for n in names if n.upper().startswith("S-1-")]
    return found


def _bytes(text):
    try:
        return os.fsencode(text)
    except UnicodeEncodeError:  # an unpaired surrogate, off Windows
        return text.encode("utf-8", "surrogatepass")


class RecycledItem:
    """One recycle-bin entry, with the attributes of catalog.Item."""

    __slots__ = (
        "root",
        "name",
        "original",
        "deleted",
        "info_path",
        "file_path",
        "kind",
        "order",
        "size",
    )

    def __init__(self, folder, info, record, info_mtime):
        self.root = _bytes(folder)
        self.name = _bytes(item_name(info))
        self.original = _bytes(record.original)
        self.deleted = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(record.deleted))
        self.info_path = os.path.join(self.root, _bytes(info))
        self.file_path = os.path.join(self.root, self.name)
        self.kind = kind_of(self.file_path)
        self.order = (record.deleted, info_mtime)
        self.size = record.size

    def as_json(self):
        return {
            "path": os.fsdecode(self.original),
            "trashPath": os.fsdecode(self.file_path),
            "infoPath": os.fsdecode(self.info_path),
            "trashDir": os.fsdecode(self.root),
            "deletionDate": self.deleted,
            "kind": self.kind,
            "size": self.size,
        }


def items(warn=None, environ=None):
    """Every entry of the recycle-bin folders, oldest first; a bad `$I` file is skipped
    with a warning that says why."""
    found = []
    for folder in folders(environ):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for info in names:
            if not info.startswith("$I"):
                continue
            path = os.path.join(folder, info)
            try:
                with open(path, "rb") as handle:
                    data = handle.read(HEADER.size + V2_LENGTH.size + 2 * (MAX_PATH_UNITS + 2))
                    mtime = os.fstat(handle.fileno()).st_mtime_ns
                record = parse(data)
            except (OSError, RecycleBinError) as exc:
                if warn:
                    warn(f"skipped {path}: {getattr(exc, 'strerror', None) or exc}")
                continue
            found.append(RecycledItem(folder, info, record, mtime))
    found.sort(key=lambda item: item.order)
    return found


def restore(item, conflict, trash_dir=None):
    """Rename `$R…` back to where it came from, then remove its `$I…`."""
    from .restore import RestoreError, destination

    if item.kind == "missing":
        shown = os.fsdecode(item.file_path)
        raise RestoreError(errno.ENOENT, f"{shown} is gone from the recycle bin", shown)
    target = destination(item, conflict, trash_dir)
    shown = os.fsdecode(target)
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        _rename_noreplace(item.file_path, target)
    except OSError as exc:
        reason = f"cannot move it back to {shown}: {exc.strerror or exc}"
        raise RestoreError(exc.errno or errno.EIO, reason, shown) from None
    try:
        os.unlink(item.info_path)
    except OSError:
        pass  # the item is back; a stale $I only shows up as "missing" in `list`
    return target


def _rename_noreplace(source, target):
    if os.name == "nt":
        os.rename(source, target)  # Windows' rename never replaces
        return
    from .noreplace import rename_noreplace

    rename_noreplace(source, target)
