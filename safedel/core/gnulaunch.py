"""What the shims/bin launchers share: stay inert unless safedel is active.

Inert (SAFEDEL_ACTIVE is not "1"), a launcher execs the real tool: the next one on
PATH that isn't a safedel launcher, else /usr/bin or /bin. Active, it runs safedel's
GNU front end in this process.
"""

import os
import sys

from .gnu import original_environ


def _is_launcher_dir(directory, own_dir):
    real = os.path.realpath(directory)
    return real == own_dir or os.path.isdir(os.path.join(real, os.pardir, "lib", "safedel_core"))


def real_tool(name, launcher):
    own_dir = os.path.dirname(os.path.realpath(launcher))
    path = os.environ.get("PATH", "").split(os.pathsep)
    for directory in [*path, "/usr/bin", "/bin"]:
        if not directory or _is_launcher_dir(directory, own_dir):
            continue
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def exec_real(name, launcher, args):
    """Replace this process with the real tool, argv[0] as a shell would give it."""
    real = real_tool(name, launcher)
    if real is None:
        os.write(2, f"{name}: safedel found no real {name} on PATH\n".encode())
        os._exit(127)
    try:
        os.execve(real, [name, *args], original_environ())
    except OSError as exc:
        os.write(2, f"{name}: cannot run {real}: {exc.strerror}\n".encode())
        os._exit(126)


def main(name, argv):
    """The launcher's whole body: argv is sys.argv of the launcher script."""
    import _signal

    # Die of SIGINT and SIGPIPE the way the C tools do, not with a traceback.
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
    _signal.signal(_signal.SIGPIPE, _signal.SIG_DFL)
    args = argv[1:]
    if os.environ.get("SAFEDEL_ACTIVE") != "1":
        exec_real(name, argv[0], args)
    if name == "find":
        from . import find

        sys.exit(find.run(args, argv[0]))
    if name == "rm":
        from . import rm

        sys.exit(rm.run(args))
    from . import rmdir

    sys.exit(rmdir.rmdir(args) if name == "rmdir" else rmdir.unlink(args))
