"""What the pipeline is given for a call: the path, or past PATH_MAX a descriptor.

GNU rm removes a tree deeper than PATH_MAX by unlinkat relative to the descriptors of
its walk. The net reaches such an item through the caller's own descriptor already
(target.resolve) and can spell its real path (target.real_path), but no path-based
call takes a path that long. So the pipeline gets a resolve.Target that carries the
parent descriptor, as rm's own deep walk hands it over: the guard counts it, the trash
moves it relative to that descriptor, and Path= records where it was.
"""

import os


def item_of(found):
    """(the path or resolve.Target to judge and trash, why it is protected or None)."""
    from ..core import deletion, resolve
    from ..core.gnu import rmdeep
    from ..core.policy import targets

    path = os.fsencode(found.path)
    if not rmdeep.too_long(path):
        return found.path, deletion.protected(found.path)
    parent_st = os.fstat(found.parent_fd)
    parent_id = (parent_st.st_dev, parent_st.st_ino)
    item = resolve.Target(path, os.fsencode(found.parent), found.name, found.st, False, parent_id)
    item.parent_fd = found.parent_fd
    return item, targets.target_protected(item)
