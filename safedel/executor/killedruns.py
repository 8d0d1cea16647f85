"""At a start: the trash that a killed run or server was filling is swept.

A run's net moves items into the trash in `safedel run`'s own process (in `safedel
serve`'s, for a served run). Killed mid-move (kill -9, the OOM killer), it leaves an
info file without its item, which trash-list shows and nothing can restore; its
pointers (core/contract/runpointer.py) outlive it too. So `safedel run` (when it is
not inside another run, whose net would judge these deletions) and `safedel serve`
look for pointers whose process is gone when they start (core/contract/
stalepointers.py). Where there are some, or where a server found a dead server's
journal (serve/leftovers.py), every trash dir safedel lists, and those the dead runs
used, is swept: an info file whose mover is gone (core/trash/inflight.py) goes at once,
a file of the user's named like one stays (core/trash/orphans.py). Then the dead
pointers go, so that the next start does not sweep again. A start with nothing dead
pays one listing of the pointer folder.
"""

import os


def sweep(force=False):
    """Sweep the trash after a killed run (or, force, after a dead server); returns the
    info files removed."""
    from ..core.contract import stalepointers

    dead = stalepointers.dead()
    if not dead and not force:
        return []
    from ..core.trash import orphans, trust, visible

    roots = list(visible.visible_trash_dirs())
    for pointer in dead.values():
        for root in stalepointers.trash_roots(pointer):
            known = root in roots or not os.path.isdir(os.path.join(root, b"info"))
            if not known and trust.why_not_listed(root) is None:
                roots.append(root)
    removed = []
    for root in roots:
        removed += orphans.repair(root)[0]
    stalepointers.forget(list(dead))
    return removed
