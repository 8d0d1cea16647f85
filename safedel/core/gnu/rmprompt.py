"""GNU rm's questions: -i, -I, and the write-protected prompt on a terminal.

prompt() follows GNU's rules for when to ask, what to call the file, and which
errors (EISDIR, a failed lstat) end the matter before any question is asked.
"""

import errno
import os
import stat

from . import ask
from .quoting import quote
from .rmwalk import ALWAYS, DECLINED, ERROR, NEVER, OK, SOMETIMES  # noqa: F401


def prompt(walker, path, is_dir, descend, empty):
    """GNU's prompt(): OK, DECLINED, or ERROR after printing why."""
    opts = walker.opts
    if opts.interactive == NEVER:
        return OK
    protected, why, kind = 0, 0, "dir" if is_dir else None
    if not opts.ignore_missing and (opts.interactive == ALWAYS or opts.stdin_tty):
        protected, why = write_protected(walker, path)
    if not protected and opts.interactive != ALWAYS:
        return OK
    if protected >= 0 and kind is None:
        try:
            mode = os.lstat(path).st_mode
            kind = "link" if stat.S_ISLNK(mode) else "dir" if stat.S_ISDIR(mode) else None
        except OSError as exc:
            protected, why = -1, exc.errno
    if protected >= 0 and kind == "link" and opts.interactive != ALWAYS:
        return OK
    removable = opts.recursive or (opts.remove_empty_dirs and empty)
    if protected >= 0 and kind == "dir" and not removable:
        protected, why = -1, errno.EISDIR
    if protected < 0:
        walker.tool.cannot(b"cannot remove", path, why)
        return ERROR
    wp = b"write-protected " if protected else b""
    if kind == "dir" and descend and not empty:
        question = b"descend into " + wp + b"directory " + quote(path)
    else:
        try:
            st = os.lstat(path)
        except OSError as exc:
            walker.tool.cannot(b"cannot remove", path, exc.errno)
            return ERROR
        question = b"remove " + wp + ask.file_type(st.st_mode, st.st_size) + b" " + quote(path)
    walker.tool.say(walker.tool.prog + b": " + question + b"? ")
    return OK if ask.yesno() else DECLINED


def write_protected(walker, path):
    """(1, 0) when we may not write it, (-1, errno) when that can't be told, else (0, 0)."""
    if walker.privileged:
        return 0, 0
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            return 0, 0
    except OSError as exc:
        return -1, exc.errno
    if os.access(path, os.W_OK, effective_ids=True):
        return 0, 0
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return -1, errno.EROFS
    except OSError as exc:
        return -1, exc.errno
    return 1, 0
