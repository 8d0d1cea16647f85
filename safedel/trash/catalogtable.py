"""One trash dir's entries, sorted by deletion order: from the catalog cache while it
is still right (catalogcache.py says when), else brought up to date from the info
files that changed, and the cache written again.

The entries are parallel lists: names, orders, original paths, the other fields
(deletion date, why the Path= is invalid, kind, size) and each entry's `list --json`
row. Ties in order go by name, so a cache brought up to date and a cold read agree
on which item is the last.
"""

import bisect
import os
import time

from ..core.trash import dirsizes, info
from . import catalogcache

FIELDS = ("names", "orders", "originals", "rest", "rows")
# Past this many changed entries, one sort of everything beats inserting each.
_INSERT_LIMIT = 2000


class Table:
    def __init__(self, root, sections):
        self.root, self._sections = root, sections

    def __getattr__(self, field):
        if field in FIELDS:
            return self._sections[field]
        raise AttributeError(field)

    def __len__(self):
        return len(self.names)


def table(root, read_item, render, warn=None):
    """root's Table. read_item(info_path, warn) parses one info file (an Item or None);
    render(root, name, original, deleted, invalid, kind, size) gives its list row."""
    try:
        listing = catalogcache.Listing(root)
    except OSError:
        return Table(root, {field: [] for field in FIELDS})
    cache = catalogcache.load(root)
    if cache is not None and cache.valid_for(listing) and not _readable_now(cache, warn, read_item):
        return Table(root, cache)
    return _refresh(listing, cache, read_item, render, warn)


def _readable_now(cache, warn, read_item):
    """Read again the info files that could not be read last time (warning as a cold
    read would); True if one can be now."""
    failed = cache.header["failed"]
    return any([read_item(info_path(cache.root, name), warn) for name in failed])


def info_path(root, name):
    return root + b"/info/" + name + info.INFO_SUFFIX


def _refresh(listing, cache, read_item, render, warn):
    root = listing.root
    if _only_files_touched(listing, cache):
        header = dict(cache.header, files_key=listing.files_key, written=listing.taken)
        header["files_written"] = _files_written(listing, cache["names"], cache["rest"])
        catalogcache.save(root, header, cache)
        return Table(root, cache)
    old = _Old(listing, cache)
    keep, fresh = [], []
    names = listing.names
    for name, stamp in catalogcache.paired(names, listing.stamps):
        if stamp is None:
            continue  # went away while we looked
        index = old.index.get(name)
        if index is not None and old.stamps[index] == stamp and cache.trusted(stamp):
            kind = old.kinds_now.get(name, "missing") if old.kinds_now is not None else None
            if kind is None or kind == old.rest[index][2]:
                keep.append(index)
                continue
        fresh.append(name)
    new, failed = _read_fresh(root, fresh, read_item, render, warn)
    header = {
        "signature": listing.signature,
        "newest_ctime": max((stamp[1] for stamp in listing.stamps if stamp), default=0),
        "files_key": listing.files_key,
        "written": listing.taken,
        "failed": failed,
    }
    if cache is not None and not new and len(keep) == len(old.index):
        # Nothing came, went or changed kind (files/ was touched, or the cache was
        # written too soon after a change to be sure): only the header is new.
        header["files_written"] = _files_written(listing, cache["names"], cache["rest"])
        catalogcache.save(root, header, cache)
        return Table(root, cache)
    sections = _merge(old, keep, new)
    header["files_written"] = _files_written(listing, sections["names"], sections["rest"])
    by_name = dict(catalogcache.paired(names, listing.stamps))
    stamps = [by_name[name] for name in sections["names"]]
    catalogcache.save(root, header, dict(sections, stamps=stamps))
    return Table(root, sections)


def _files_written(listing, names, rest):
    """The time from which the kinds in rest are known to hold for files/. files/ that
    changed within a clock tick of the listing may change again unseen, so then the
    kinds are looked at a second time, once files/ has settled; if they still hold,
    that second look's time it is. Otherwise the listing's, and the next use looks
    again. (A trash followed at once by a listing would else cost every later listing
    a look at files/.)"""
    key = listing.files_key
    if key is None or catalogcache.settled(key[2], listing.taken):
        return listing.taken
    later = time.time_ns()
    files_dir = os.path.join(listing.root, b"files")
    if catalogcache.dir_key(files_dir) != key or not catalogcache.settled(key[2], later):
        return listing.taken
    now = catalogcache.kinds(files_dir)
    if [now.get(name, "missing") for name in names] == [fields[2] for fields in rest]:
        return later
    return listing.taken


def _only_files_touched(listing, cache):
    """True if every info file is as the cache has it, and files/ changed without
    changing any item's kind (a trash and a restore since, say)."""
    if cache is None or cache.header["signature"] != listing.signature:
        return False
    if not catalogcache.settled(cache.header["newest_ctime"], cache.header["written"]):
        return False
    if cache.header["failed"]:
        return False  # read them again, and warn again, on the careful path
    now = catalogcache.kinds(os.path.join(listing.root, b"files"))
    return [now.get(name, "missing") for name in cache["names"]] == [
        fields[2] for fields in cache["rest"]
    ]


def _read_fresh(root, fresh, read_item, render, warn):
    """[name, order, original, rest, row] for each info file read again, and the names
    of those that could not be read."""
    new, failed, sizes_wanted = [], [], []
    for name in fresh:
        item = read_item(info_path(root, name), warn)
        if item is None:
            failed.append(name)
            continue
        size = None
        if item.kind == "dir":
            sizes_wanted.append(name)
        elif item.kind != "missing":
            try:
                size = os.lstat(item.file_path).st_size
            except OSError:
                pass
        new.append([name, item.order, item.original, [item.deleted, item.invalid, item.kind, size]])
    if sizes_wanted:
        measured = dirsizes.sizes(root, sizes_wanted)
        for entry in new:
            if entry[0] in measured:
                entry[3][3] = measured[entry[0]]
    for entry in new:
        entry[3] = tuple(entry[3])
        entry.append(render(root, entry[0], entry[2], *entry[3]))
    return new, failed


class _Old:
    """What the previous cache knew, and whether its kinds still hold."""

    def __init__(self, listing, cache):
        self.cache, self.index, self.stamps, self.kinds_now = cache, {}, [], None
        if cache is None:
            return
        self.stamps = cache["stamps"]
        self.index = {name: i for i, name in enumerate(cache["names"])}
        if not cache.same_files(listing):
            self.kinds_now = catalogcache.kinds(os.path.join(listing.root, b"files"))

    @property
    def sections(self):
        if self.cache is None:
            return {field: [] for field in FIELDS}
        return {field: self.cache[field] for field in FIELDS}

    @property
    def rest(self):
        return self.cache["rest"]


def _merge(old, keep, new):
    """The kept old entries and the new ones, as sections sorted by (order, name)."""
    sections = old.sections
    keep.sort()  # old indices ascending: still in (order, name) order
    merged = {field: [sections[field][i] for i in keep] for field in FIELDS}
    new.sort(key=lambda entry: (entry[1], entry[0]))
    if len(new) > _INSERT_LIMIT:
        for entry in new:
            for field, value in catalogcache.paired(FIELDS, entry):
                merged[field].append(value)
        order = sorted(
            range(len(merged["names"])),
            key=lambda i: (merged["orders"][i], merged["names"][i]),
        )
        return {field: [merged[field][i] for i in order] for field in FIELDS}
    keys = list(catalogcache.paired(merged["orders"], merged["names"]))
    for entry in new:
        position = bisect.bisect(keys, (entry[1], entry[0]))
        keys.insert(position, (entry[1], entry[0]))
        for field, value in catalogcache.paired(FIELDS, entry):
            merged[field].insert(position, value)
    return merged
