"""What `safedel doctor` says about the trash itself: its size, and entries that lost
half of themselves (see core/trash/orphans.py)."""

import os

from ..core.trash import orphans, visible
from . import catalog, purge, retention


def human(size):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size} B"


def checks(environ=None):
    """Yield (check, ok, detail): the trash's size against max_size, and orphans."""
    items = [item for item in catalog.items() if item.kind != "missing"]
    total = sum(purge.sizes(items).values())
    detail = f"{len(items)} item{'s' if len(items) != 1 else ''}, {human(total)}"
    limit_text = retention.configured(environ).get("max_size")
    over = retention.over_max_size(total, environ=environ)
    ok = over is None
    if over:
        detail += f"; {over}"
    elif limit_text:
        detail += f" (max_size {limit_text})"
    yield "trash size", ok, detail
    stale, lonely = [], []
    for root in visible.visible_trash_dirs():
        found_stale, found_lonely = orphans.scan(root)
        stale += found_stale
        lonely += [os.path.join(root, b"files", name) for name in found_lonely]
    words = []
    if stale:
        words.append(f"{len(stale)} info files without their item (safedel doctor --repair)")
    if lonely:
        words.append(
            f"{len(lonely)} items without an info file (safedel doctor --repair lists them)"
        )
    yield "trash entries", not stale, "; ".join(words) or "every entry is whole"


def repair(say):
    """Remove stale info files everywhere; list payloads without info. Returns 0."""
    for root, removed, lonely in orphans.repair_all():
        for path in removed:
            say(f"removed {catalog.printable(path)} (its item was gone)")
        for name in lonely:
            path = os.path.join(root, b"files", name)
            say(
                f"kept {catalog.printable(path)}: no info file; put it back with "
                f"safedel restore --orphan {catalog.printable(name)} --to PATH"
            )
