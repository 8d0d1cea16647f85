"""What a refusal tells its reader to do, which depends on who reads it.

Under an agent host (core/contract/host.py: CLAUDECODE=1 and the others) or a harness
(SAFEDEL_HARNESS=1, set by `safedel run --json/--result` and `safedel serve`) the
reader is a model. It should ask its user, so it is told that, and no command or
setting that would lift the guard: the harness has the structured payload (the marker,
the signal file). A person is told a command that works as written on their next
command line: in a bootstrapped shell `safedel guard approve` (which there approves
this line and the next, commands/guard.py), elsewhere the same with the session and
turn to approve, and how to run the command again in that turn.
shims/node/refusal.cjs words it the same way.
"""

import os

from ..contract import host
from ..printable import printable

FOR_A_MODEL = "the user must approve it"
# The session a bootstrapped interactive shell gives itself (shells/bootstrap.py).
SHELL_SESSION = "shell-"


def read_by_a_model():
    """Whether a model reads what this thread prints: the command it judges for (the
    net), else this process, runs under a harness or an agent host."""
    harness = host.judged_harness()
    if harness is not None:
        judged = host.judged_environ() or {}
        return harness or host.detect(judged, interactive=False).kind == "agent"
    return os.environ.get("SAFEDEL_HARNESS") == "1" or host.current().kind == "agent"


def in_a_bootstrapped_shell(settings):
    """A person's interactive shell with the bootstrap, each command line a turn of its
    own, and no run around it."""
    return settings.session.startswith(SHELL_SESSION) and not settings.bound


def _quoted(value):
    """value as one shell word a person can paste, control characters escaped."""
    value = printable(value)
    if value and all(c.isalnum() or c in "-_.:/@%+=," for c in value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def _approve(settings, option):
    if in_a_bootstrapped_shell(settings):
        return f"run `safedel guard approve{option}`, then run the command again"
    where = f"--session {_quoted(settings.session)} --turn {_quoted(settings.turn)}"
    again = f"with `safedel run {where}`" if settings.bound else "in that turn"
    return f"run `safedel guard approve{option} {where}`, then run the command again {again}"


def bulk(settings):
    """The end of a bulk refusal's reason."""
    if read_by_a_model():
        return FOR_A_MODEL
    return "to allow it, " + _approve(settings, "")


def outside(settings):
    """The end of an outside-the-workspace refusal's reason."""
    if read_by_a_model():
        return FOR_A_MODEL
    return (
        "to allow it, "
        + _approve(settings, " --outside-workspace")
        + " (or add the folder with `safedel workspace add`)"
    )
