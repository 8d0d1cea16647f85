"""What `list --json` and `restore --last` ask of the catalog, answered from each trash
dir's table (catalogtable.py) without building an Item per entry: the list rows, and
the newest item that can be restored."""

import os

from ..core.trash import visible
from . import catalog, catalogcache, catalogtable, recyclebin


@catalog.rebuilt_if_damaged
def json_rows(prefix=None, warn=None):
    """The `list --json` rows of every item (or of those trashed from under prefix,
    absolute bytes), oldest first, from each root's cached rows."""
    found = catalog.tables(warn=warn)
    picked = []
    for table in found:
        if prefix is None:
            picked.append((table.orders, table.rows))
            continue
        if prefix == b"/":
            wanted = range(len(table.originals))
        else:
            base = prefix.rstrip(b"/")
            below = base + b"/"
            wanted = [
                i
                for i, original in enumerate(table.originals)
                if original.startswith(below) or original == base
            ]
        orders, rows = table.orders, table.rows
        picked.append(([orders[i] for i in wanted], [rows[i] for i in wanted]))
    if len(picked) == 1:
        return picked[0][1]
    everything = [pair for orders, rows in picked for pair in catalogcache.paired(orders, rows)]
    everything.sort(key=lambda pair: pair[0])  # stable, as items() sorts
    return [row for _, row in everything]


@catalog.rebuilt_if_damaged
def newest_present(warn=None):
    """The item `restore --last` takes: the last of items() whose payload is there and
    whose Path= is valid, found from the newest end of each root's table."""
    if recyclebin.in_use():
        found = [
            i
            for i in catalog.items(warn=warn)
            if i.kind != "missing" and not getattr(i, "invalid", None)
        ]
        return found[-1] if found else None
    best = None
    if warn:
        catalog.say_skipped(warn)
    for root in visible.visible_trash_dirs():
        root = root.rstrip(b"/") or b"/"
        found = newest(root, catalog.read_item, catalog.render_row, warn)
        # >=: of two roots' items trashed at the same moment, the later root's wins.
        if found is not None and (best is None or found[0] >= best[0][0]):
            best = (found, root)
    if best is None:
        return None
    (order, name, original, (deleted, invalid, kind, size)), root = best
    return catalog.Item(root, name, original, deleted, order, invalid, kind, size)


def newest(root, read_item, render, warn=None):
    """(order, name, original, rest) of root's newest entry whose payload is there and
    whose Path= is valid, or None. The same answer as table() gives, but the cache is
    only read: the entries that changed since it was written are read from their info
    files, the others are taken from its newest end."""
    try:
        listing = catalogcache.Listing(root)
    except OSError:
        return None
    cache = catalogcache.load(root)
    if cache is None:
        return _newest_in(
            catalogtable.table(root, read_item, render, warn), lambda index, kind: kind
        )
    names, stamps = cache["names"], cache["stamps"]
    current = dict(catalogcache.paired(listing.names, listing.stamps))
    known = dict(catalogcache.paired(names, stamps))
    if not cache.trusted((0, cache.header["newest_ctime"])):  # some stamps are too recent
        known = {n: s for n, s in known.items() if cache.trusted(s)}
    best = None
    for name, stamp in current.items():
        if stamp is None or known.get(name) == stamp:
            continue
        item = read_item(
            catalogtable.info_path(root, name), warn
        )  # new, changed, or unreadable before
        if item is not None and item.kind != "missing" and not item.invalid:
            found = (item.order, name, item.original, (item.deleted, None, item.kind, None))
            if best is None or found[:2] > best[:2]:
                best = found
    files_same = cache.same_files(listing)
    files_dir = os.path.join(root, b"files")

    def kind_now(index, kind):
        name = names[index]
        stamp = current.get(name)
        if stamp is None or known.get(name) != stamp:
            return None  # gone, or changed: read above
        return kind if files_same else catalogcache.kind_of(os.path.join(files_dir, name))

    from_cache = _newest_in(catalogtable.Table(root, cache), kind_now)
    if from_cache is not None and (best is None or from_cache[:2] > best[:2]):
        best = from_cache
    return best


def _newest_in(found, kind_now):
    """The last entry of found whose kind_now(index, cached kind) is present, if any."""
    rest = found.rest
    for index in range(len(rest) - 1, -1, -1):
        deleted, invalid, kind, size = rest[index]
        kind = kind_now(index, kind)
        if kind is not None and kind != "missing" and not invalid:
            fields = (deleted, invalid, kind, size)
            return (found.orders[index], found.names[index], found.originals[index], fields)
    return None
