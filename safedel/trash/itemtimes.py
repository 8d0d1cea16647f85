"""What the kernel says about a trash item's life: when its inode was born, and when it
entered the trash. No process can set these back.

A rename keeps the inode, so the payload in files/ has the birth time (statx btime)
of the file that was deleted, and its ctime is no earlier than the rename into the
trash. The info file is created just before that rename, so its birth time is when the
item entered the trash (an info file rewritten through a new inode is only younger).
Everything else about an item (its DeletionDate=, a report line, the catalog cache)
is text that any process of the user may write.
"""

import os

from ..core.statx import birth_time


def lived_before_trash(item):
    """How long (seconds), at most, the item's inode had lived when it entered the
    trash: its payload's ctime (no earlier than the rename into the trash) less its
    birth time. None when that cannot be told (no birth time, no payload)."""
    try:
        born = birth_time(item.file_path)
        changed = os.lstat(item.file_path).st_ctime
    except OSError:
        return None
    if born is None:
        return None
    return max(0.0, changed - born)


def entered_trash(item):
    """When the item entered the trash, as the kernel kept it: its info file's birth
    time, else that file's ctime (either only later for a rewritten info file)."""
    try:
        born = birth_time(item.info_path)
        return born if born is not None else os.lstat(item.info_path).st_ctime
    except OSError:
        return float("inf")  # cannot tell: no event can be shown to come after it
