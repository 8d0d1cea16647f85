"""find -exec /bin/rm: the real rm, rmdir, unlink or find named by a path runs the launcher.

A bare `-exec rm` already meets the launcher, as find looks it up on PATH. A path
(`/bin/rm`, `//bin/rm`, `/usr/bin/../bin/rm`) skips PATH and the shell functions alike,
so the find launcher looks at each -exec, -execdir, -ok and -okdir command that has a
slash in it: when it is the same file (device and inode, as execve would reach it,
symlinks followed) as one of those tools where the launcher would find the real one,
and its last component names that tool, safedel's launcher for it runs in its place.
The name is asked too because one file can be several tools (busybox, coreutils built
as one binary): it then runs the tool its name says, and `-exec /bin/ls` stays ls.
"""

import os

from .launch import _is_launcher_dir

TOOLS = (b"rm", b"rmdir", b"unlink", b"find")
EXEC = (b"-exec", b"-execdir", b"-ok", b"-okdir")


def reroute(args, operators, launcher):
    """args (bytes) with the command of each -exec among operators (the indexes of the
    expression's operators) replaced by the launcher of the tool it is, when it is a
    real one by another spelling; args itself when there is none."""
    own_dir = os.path.dirname(os.path.realpath(launcher))
    known = {}
    changed = list(args)
    for i in operators:
        if args[i] in EXEC and i + 1 < len(args):
            ours = _launcher_for(args[i + 1], own_dir, known)
            if ours is not None:
                changed[i + 1] = ours
    return changed if changed != args else args


def _launcher_for(command, own_dir, known):
    if b"/" not in command:
        return None  # found on PATH: the launcher already
    name = command.rstrip(b"/").rsplit(b"/", 1)[-1]
    if name not in TOOLS:
        return None
    try:
        st = os.stat(command)
    except OSError:
        return None
    if (st.st_dev, st.st_ino) not in _real_identities(name, own_dir, known):
        return None
    ours = os.path.join(os.fsencode(own_dir), name)
    return ours if os.access(ours, os.X_OK) else None


def _real_identities(name, own_dir, known):
    """(device, inode) of every real `name` the launcher could run: on PATH past the
    launchers, and in /usr/bin and /bin."""
    if name not in known:
        found = set()
        path = os.environ.get("PATH", "").split(os.pathsep)
        for directory in [*path, "/usr/bin", "/bin"]:
            if not directory or _is_launcher_dir(directory, own_dir):
                continue
            try:
                st = os.stat(os.path.join(os.fsencode(directory), name))
            except OSError:
                continue
            found.add((st.st_dev, st.st_ino))
        known[name] = found
    return known[name]
