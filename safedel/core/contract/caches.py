"""The user's tool caches: directories whose owner (npm, pip, cargo …) regenerates
everything in them, so their deletions are done for real like the temp dir's.

They join the exempt roots (settings.exempt), and so are held to the same identity
rules (core/policy/exemptroot.py, shims/node/exemptids.cjs, net/exempt.py): each is
the very directory its name led to when the run (or the bootstrapped shell) started,
fixed by device and inode, and a target counts only on that directory's own mount. A
directory merely named like a cache is not one: only these places under the user's
home, each a directory owned by the user when it is fixed, and never the home itself
or a folder that holds it. shims/node/caches.cjs lists the same places.

The kernel's POSIX IPC directory joins them too: glibc's sem_open links and unlinks
`sem.*` names in /dev/shm and shm_unlink removes a shared memory object there
(multiprocessing's Lock, Pool, SharedMemory), and nobody keeps those. It counts only
as /dev/shm itself, a mount of its own (not a symlink, not a folder of /dev), fixed by
identity like the rest; a workspace file cannot be renamed onto another mount, so
what lies there was made there.
"""

import os

# Relative to HOME; XDG_CACHE_HOME replaces ".cache" when it is absolute. The XDG
# cache home holds pip's, yarn 1's, pnpm's, go's build cache, node-gyp's and more.
PLACES = (
    ".npm",
    ".yarn/berry/cache",
    ".local/share/pnpm/store",
    ".cargo/registry",
    ".cargo/git",
    "go/pkg/mod",
    ".m2/repository",
    ".gradle/caches",
    ".gradle/wrapper/dists",
    ".node-gyp",
    ".bun/install/cache",
    ".nuget/packages",
    ".conda/pkgs",
    ".ccache",
)
_found = {}


def candidates(environ):
    """The cache places environ names (absolute str), whether they exist or not."""
    home = environ.get("HOME") or ""
    if not os.path.isabs(home):
        return ()
    xdg = environ.get("XDG_CACHE_HOME") or ""
    first = xdg if os.path.isabs(xdg) else os.path.join(home, ".cache")
    return (first, *(os.path.join(home, place) for place in PLACES))


def roots(environ):
    """The cache places that are, now, directories of this user's strictly inside the
    home (by real path) and not holding it; found once per HOME and XDG_CACHE_HOME."""
    key = (environ.get("HOME"), environ.get("XDG_CACHE_HOME"))
    found = _found.get(key)
    if found is None:
        found = _found[key] = tuple(_usable(environ))
    return found


def _usable(environ):
    places = candidates(environ)
    if not places:
        return
    home = os.path.realpath(environ["HOME"])
    uid = os.getuid() if hasattr(os, "getuid") else None
    for place in places:
        try:
            st = os.stat(place)
        except (OSError, ValueError):
            continue
        if not os.path.isdir(place) or (uid is not None and st.st_uid != uid):
            continue
        real = os.path.realpath(place)
        if real.startswith(home.rstrip(os.sep) + os.sep):
            yield place


KERNEL_IPC = "/dev/shm"


def kernel_ipc():
    """(KERNEL_IPC,) when it is a mount point of its own here, else ()."""
    if not _found.get(KERNEL_IPC):
        try:
            st, parent = os.lstat(KERNEL_IPC), os.stat(os.path.dirname(KERNEL_IPC))
            mounted = os.path.isdir(KERNEL_IPC) and not os.path.islink(KERNEL_IPC)
            _found[KERNEL_IPC] = (KERNEL_IPC,) if mounted and st.st_dev != parent.st_dev else ()
        except OSError:
            _found[KERNEL_IPC] = ()
    return _found[KERNEL_IPC]


def joined(exempt, environ):
    """exempt (a tuple of roots) with the caches and the kernel's IPC dir added; none
    when exempt is empty: no exempt root at all (`--no-exempt`) means nothing is
    deleted for real."""
    if not exempt:
        return exempt
    extra = (*roots(environ), *kernel_ipc())
    return exempt + tuple(c for c in extra if c not in exempt)
