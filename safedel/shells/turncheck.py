"""Whether the command lines of a dash or busybox sh still rotate turns.

Those shells rotate the turn from a `$(...)` in PS1, and a PS1 assigned after the
bootstrap silently drops it: every later line shares one turn, so the bulk guard counts
across lines. The functions the sh bootstrap defines run in the shell itself, where PS1
can be seen; its `safedel` function passes what it saw in SAFEDEL_PROMPT_HOOK.
"""

import os
import sys

REPLACED = "PS1 was replaced after the bootstrap; put the line last in your rc"


def problem(environ=None):
    """A sentence saying why this sh shell's lines are not turns of their own, or None."""
    environ = os.environ if environ is None else environ
    turn_file = environ.get("SAFEDEL_TURN_FILE")
    if not turn_file:
        return None  # not an sh bootstrap: bash, zsh and fish turn without PS1
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
    if turn.endswith("-0") and sys.stdin is not None and sys.stdin.isatty():
        return f"turns are not rotating in this shell: {REPLACED}"
    return None
