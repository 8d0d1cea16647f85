"""The turns of a bootstrapped interactive shell, as `safedel guard approve` sees them.

There each command line is a turn of its own (the bootstraps step SAFEDEL_TURN, or
the sh turn file, by one before each line runs), so approving the line that runs
`safedel guard approve` would approve a turn that deletes nothing, and the line that
deletes again would start a turn nobody approved. So typed without --turn in such a
shell, approve (and --outside-workspace) covers this command line and the next one:
`safedel guard approve && rm *.log` and `safedel guard approve`, then `rm *.log`, both
work as written. Nothing else takes this path: an explicit --turn, a shell inside a
run (whose turn is the run's) and a session that is not a shell's approve what they
name.
"""

import re

from ..core.guard.remedy import in_a_bootstrapped_shell

_COUNTED = re.compile(r"(.*-)?([0-9]+)")


def following(target, turn_option):
    """The turn of the command line after this one, or None where lines are not turns."""
    if turn_option or not in_a_bootstrapped_shell(target.settings):
        return None
    found = _COUNTED.fullmatch(target.turn)
    if found is None:
        return None
    prefix, number = found.group(1) or "", found.group(2)
    return f"{prefix}{int(number) + 1}"


def describe(target):
    turns = f"turns {target.turn!r} and {following(target, None)!r}"
    return f"{turns} (from {target.turn_source}) of session {target.session!r}"
