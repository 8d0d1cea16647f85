"""The environment safedel was started with, before the interpreter changed it.

With LC_ALL unset and a C or POSIX LC_CTYPE (`LANG=C`, or no locale at all), CPython
coerces the locale at start-up and writes LC_CTYPE=C.UTF-8 into its own environment
(PEP 538). Handed on, that changes the command: even /usr/bin/unlink then quotes names
with ‘…’. On Linux the environment a process was started with stays readable in
/proc/self/environ, so LC_CTYPE is put back to what it was there.
"""

import os

COERCED = ("C.UTF-8", "C.utf8", "UTF-8")


def original(environ=None):
    """environ (default os.environ) as a dict, with a coerced LC_CTYPE undone."""
    env = dict(os.environ if environ is None else environ)
    if env.get("LC_CTYPE") not in COERCED:
        return env
    try:
        with open("/proc/self/environ", "rb") as handle:
            block = handle.read()
    except OSError:
        return env  # no /proc: the variable cannot be told from one the user set
    started = {}
    for entry in block.split(b"\0"):
        name, sep, value = entry.partition(b"=")
        if sep:
            started[name] = value
    before = started.get(b"LC_CTYPE")
    if before is None:
        del env["LC_CTYPE"]
    else:
        env["LC_CTYPE"] = os.fsdecode(before)
    return env
