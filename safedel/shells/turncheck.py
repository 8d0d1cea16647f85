"""Whether the command lines of a dash, busybox sh or old bash still rotate turns.

dash and busybox sh rotate the turn from a `$(...)` in PS1, and a PS1 assigned after
the bootstrap silently drops it: every later line shares one turn, so the bulk guard
counts across lines. The functions the sh bootstrap defines run in the shell itself,
where PS1 can be seen; its `safedel` function passes what it saw in
SAFEDEL_PROMPT_HOOK. bash before 4.4 (or with promptvars off) has hooks in
PROMPT_COMMAND and PS1 that later assignments can both drop; its turn then stays at the
base the bootstrap chose.
"""

import os
import re
import sys

REPLACED = "PS1 was replaced after the bootstrap; put the line last in your rc"
BASH_REPLACED = (
    "PROMPT_COMMAND and PS1 were replaced after the bootstrap; put the line last in your rc"
)
# The bash bootstrap's turn before any line stepped it: twelve digits, then six zeros.
BASH_BASE = re.compile(r"[1-9][0-9]{11}0{6}")


def _at_a_terminal():
    return sys.stdin is not None and sys.stdin.isatty()


def problem(environ=None):
    """A sentence saying why this sh shell's lines are not turns of their own, or None."""
    environ = os.environ if environ is None else environ
    turn_file = environ.get("SAFEDEL_TURN_FILE")
    if not turn_file:
        # zsh and fish hooks cannot be assigned away; bash's can, before 4.4.
        if BASH_BASE.fullmatch(environ.get("SAFEDEL_TURN", "")) and _at_a_terminal():
            return f"turns are not rotating in this shell: {BASH_REPLACED}"
        return None
    hook = environ.get("SAFEDEL_PROMPT_HOOK")
    if hook == "lost":
        return (
            f"turns were not rotating in this shell: {REPLACED} (rm, rmdir, unlink, find "
            "and safedel put the hook back into PS1 when they run)"
        )
    if hook:
        return None
    # Run by another name (python -m safedel): the bootstrap writes PREFIX-0 and the
    # first prompt moves it on, so a terminal that still reads -0 has had no rotation.
    try:
        with open(turn_file, encoding="utf-8") as handle:
            turn = handle.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    if turn.endswith("-0") and _at_a_terminal():
        return f"turns are not rotating in this shell: {REPLACED}"
    return None
