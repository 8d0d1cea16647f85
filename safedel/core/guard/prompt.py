"""Ask a person on the terminal whether a refused batch may go ahead."""

import os

QUESTION = "Allow it for the rest of this turn? [y/N] "
SHOWN_TARGETS = 5
# Enter ends the answer in cooked mode (\n) and in raw mode (\r); in raw mode Ctrl-C
# and Ctrl-D arrive as bytes instead of as a signal and an end of file.
_ENDS = (b"\n", b"\r")
_CANCEL = (b"\x03", b"\x04")


def can_prompt(settings, environ=None):
    """Only with prompting on and CI unset; /dev/tty is tried when asking."""
    environ = os.environ if environ is None else environ
    return settings.prompt and "CI" not in environ


def describe(payload):
    lines = [
        f"safedel: this would trash {payload['targetCount']} more item(s); "
        f"this turn has trashed {payload['count']} of {payload['threshold']} allowed.",
    ]
    # repr() escapes newlines and control characters, so a name cannot redraw the screen.
    lines += [f"  {target!r}" for target in payload["targets"][:SHOWN_TARGETS]]
    if payload["targetCount"] > SHOWN_TARGETS:
        lines.append(f"  ... and {payload['targetCount'] - SHOWN_TARGETS} more")
    return "\n".join(lines) + "\n"


def ask(payload, text=None):
    """True for yes, False for no/EOF/Ctrl-C, None when there is no terminal to ask on
    (none opens, or this process is in the background, where reading would stop it).
    text replaces the bulk guard's question."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    try:
        if os.tcgetpgrp(fd) != os.getpgrp():
            return None
        text = text or describe(payload) + QUESTION
        os.write(fd, text.encode("utf-8", "backslashreplace"))
        answer = b""
        while len(answer) < 64:
            chunk = os.read(fd, 1)
            if not chunk or chunk in _CANCEL:
                _say(fd, b"\n")
                return False
            if chunk in _ENDS:
                break
            answer += chunk
        return answer.strip().lower() in (b"y", b"yes")
    except KeyboardInterrupt:
        _say(fd, b"\n")
        return False
    except OSError:
        return None
    finally:
        os.close(fd)


def _say(fd, data):
    try:
        os.write(fd, data)
    except OSError:
        pass
