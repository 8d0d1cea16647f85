"""Write the shim directory ($SAFEDEL_HOME): launchers, the engine copy, preloads, hooks.

The directory is named by a hash of everything in it, so a new safedel (or a new
interpreter) gets a new directory and an old one is never half-overwritten. It is
built in a private temporary directory and renamed into place; when two processes
race, one rename wins and the other discards its copy.
"""

import errno
import os
import sys
import zlib

from .. import __version__, shims
from ..core.contract import settings as core_settings
from ..core.gnu import bundle
from ..shells import quote_sh

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.dirname(HERE)
# Asked of the package itself: an editable install maps safedel.shims to the top-level
# shims/ directory, a wheel puts it at safedel/shims.
SHIMS_DIR = os.path.dirname(os.path.abspath(shims.__file__))
CORE_DIR = os.path.join(PACKAGE_DIR, "core")
SHELLS_DIR = os.path.join(PACKAGE_DIR, "shells")
# (source dir, where it goes in the home, the quoting its placeholders get or None)
LAYOUT = (
    (os.path.join(SHIMS_DIR, "bin"), "bin", "python"),
    (os.path.join(SHIMS_DIR, "python"), "python", None),
    (os.path.join(SHIMS_DIR, "node"), "node", None),
    (CORE_DIR, os.path.join("lib", "safedel_core"), None),
    # find -delete answers find's own unlinkat calls through the net's filter.
    (os.path.join(PACKAGE_DIR, "net"), os.path.join("lib", "safedel_net"), None),
    (os.path.join(SHELLS_DIR, "posix"), "posix", "sh"),
    (os.path.join(SHELLS_DIR, "zsh", "zdotdir"), "zsh", "sh"),
)
PRELOAD = os.path.join("node", "safedel.cjs")
SKIP = ("__pycache__", "ruff.toml", "__init__.pyc")


def default_root(environ=None):
    """The user cache dir's shims/ (platformdirs' answer, without importing it)."""
    environ = os.environ if environ is None else environ
    return os.path.join(core_settings.user_dir("cache", environ), "shims")


def _sources():
    for source, dest, quoting in LAYOUT:
        yield from _tree(source, dest, quoting, source == CORE_DIR)


def _tree(source, dest, quoting, recurse):
    """Files under source, subpackages included (core/ groups by concern), sorted."""
    if not os.path.isdir(source):
        return
    for name in sorted(os.listdir(source)):
        path = os.path.join(source, name)
        if name in SKIP or name.endswith(".pyc"):
            continue
        if os.path.isfile(path):
            yield path, os.path.join(dest, name), quoting
        elif recurse and os.path.isdir(path) and not name.startswith("."):
            yield from _tree(path, os.path.join(dest, name), quoting, recurse)


def python_for_launchers():
    return os.path.realpath(sys.executable)


def placeholders(home):
    """Values for @NAME@ placeholders; each is quoted for the template's language."""
    return {
        "PYTHON": python_for_launchers(),
        "LIB": os.path.join(home, "lib"),
        "SAFEDEL_HOME": home,
        "VERSION": __version__,
    }


QUOTERS = {"python": repr, "sh": quote_sh}


def shebang(python):
    """A direct `#!python -IS` (Linux passes one argument) if the path allows; else sh."""
    if " " not in python and len(python) < 120:
        return f"#!{python} -IS"
    quoted = python.replace("'", "'\\''")
    return f"#!/bin/sh\n''''exec '{quoted}' -I -S \"$0\" \"$@\" # '''"


def content_hash(files):
    """A cheap fingerprint of the shim sources (crc32 twice over: no hashlib import on
    `safedel run`'s path). It names a cache directory; it guards nothing."""
    forward = zlib.crc32(__version__.encode() + python_for_launchers().encode())
    backward = zlib.adler32(__version__.encode())
    # The Node preload is built by nodebundle.py, so its source counts too.
    bundler = (os.path.join(HERE, "nodebundle.py"), "nodebundle", None)
    for source, dest, _ in [*files, bundler]:
        with open(source, "rb") as handle:
            data = dest.encode() + b"\0" + handle.read()
        forward = zlib.crc32(data, forward)
        backward = zlib.adler32(data, backward)
    return f"{forward:08x}{backward:08x}"


def materialize(root=None):
    """Return the path of an up-to-date shim home under root, creating it if needed.
    PermissionError (NotPrivate) when root, or a home found in it, is not private."""
    root = os.path.abspath(root or default_root())
    files = list(_sources())
    home = os.path.join(root, f"{__version__}-{content_hash(files)}")
    if os.path.isfile(os.path.join(home, ".complete")):
        check_private(home)
        return home
    existing = root
    while not os.path.lexists(existing) and os.path.dirname(existing) != existing:
        existing = os.path.dirname(existing)
    check_private(existing, below=existing != root)  # before making anything in it
    os.makedirs(root, mode=0o700, exist_ok=True)
    check_private(root)
    staging = os.path.join(root, f".staging-{os.getpid()}-{os.urandom(4).hex()}")
    os.mkdir(staging, 0o700)
    try:
        _write(staging, home, files)
        try:
            os.rename(staging, home)
        except OSError:
            if not os.path.isfile(os.path.join(home, ".complete")):
                raise
    finally:
        if os.path.isdir(staging):
            import shutil  # only on this failure path: it is slow to import

            shutil.rmtree(staging, ignore_errors=True)
    return home


class NotPrivate(PermissionError):
    """A shim home, or a directory above it, that someone else could have written."""


def check_private(path, below=False):
    """Raise NotPrivate unless path and every directory above it could only have been
    written by this user or root.

    Every run executes the launchers of its shim home, as this user. A cache dir that
    lies where anyone can create entries (HOME=/tmp in a container: /tmp/.cache) lets
    another user make a home with the right name first, complete with a bin/rm of
    their own, which would then run as us, as root included. So each directory from the
    root of the filesystem down to path, as spelled and as resolved, must belong to this
    user or to root; one that others may write is allowed above path only if it is
    root's and sticky (/tmp: others' entries are theirs, ours stay ours), and path
    itself lets nobody else write (below: path is only the deepest folder that exists
    above the one wanted, and is judged as one above it).
    """
    if os.name != "posix":
        return
    for spelled in {path, os.path.realpath(path)}:
        current = spelled
        while True:
            _check_one(current, strict=current == spelled and not below)
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent


def _check_one(directory, strict):
    import stat

    found = os.lstat(directory)  # a link is judged as a link: the chain above holds it
    mode, owner = found.st_mode, found.st_uid
    if owner not in (os.getuid(), 0):
        why = f"owned by uid {owner}"
    elif stat.S_ISLNK(mode):
        return
    elif mode & (0o022 if strict else 0o002) and not (
        mode & stat.S_ISVTX and owner == 0 and not strict
    ):
        why = f"writable by others, mode {stat.S_IMODE(mode):04o}"
    else:
        return
    raise NotPrivate(
        errno.EPERM,
        f"not private ({why}): another user could have put a shim home there; remove"
        " it or set XDG_CACHE_HOME to a folder of your own",
        directory,
    )


def _write(staging, home, files):
    values = placeholders(home)
    for source, dest, quoting in files:
        target = os.path.join(staging, dest)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(source, "rb") as handle:
            data = handle.read()
        if dest == PRELOAD:
            from . import nodebundle  # only when a shim home is written

            data = nodebundle.bundle(os.path.dirname(source))
        if quoting == "python" and data.startswith(b"#!/bin/sh"):
            quoting = "sh"  # a launcher written in sh (git's) gets sh quoting
        if quoting:
            data = render(data.decode("utf-8"), values, QUOTERS[quoting]).encode("utf-8")
        with open(target, "wb") as handle:
            handle.write(data)
        mode = 0o755 if dest.startswith("bin" + os.sep) else 0o644
        os.chmod(target, mode)
    # The launchers' start-up bundle: compiled by the interpreter they run on.
    core = os.path.join("lib", "safedel_core")
    bundle.write_bundle(
        os.path.join(staging, core),
        os.path.join(staging, "lib", bundle.BUNDLE),
        os.path.join(home, core),
    )
    with open(os.path.join(staging, ".complete"), "w") as handle:
        handle.write(__version__ + "\n")


def render(template, values, quote):
    """Replace @SHEBANG@ raw and every other @NAME@ with quote(value)."""
    if "@SHEBANG@" in template:
        template = template.replace("@SHEBANG@", shebang(values["PYTHON"]))
    for key, value in values.items():
        template = template.replace(f"@{key}@", quote(value))
    return template
