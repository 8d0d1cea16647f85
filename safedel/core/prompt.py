"""Ask a person on the terminal whether a refused batch may go ahead."""

import os

QUESTION = "Allow it for the rest of this turn? [y/N] "


def can_prompt(settings, environ=None):
    environ = os.environ if environ is None else environ
    return settings.prompt and not environ.get("CI")


def describe(payload):
    lines = [
        f"safedel: this would trash {payload['targetCount']} more item(s); "
        f"this turn has trashed {payload['count']} of {payload['threshold']} allowed.",
    ]
    lines += [f"  {target!r}" for target in payload["targets"][:5]]
    if payload["targetCount"] > 5:
        lines.append(f"  ... and {payload['targetCount'] - 5} more")
    return "\n".join(lines) + "\n"


def ask(payload):
    """True for yes, False for no/EOF/Ctrl-C, None when no terminal can be opened."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    try:
        os.write(fd, (describe(payload) + QUESTION).encode("utf-8", "backslashreplace"))
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = os.read(fd, 1)
            if not chunk:
                break
            answer += chunk
        return answer.strip().lower() in (b"y", b"yes")
    except (OSError, KeyboardInterrupt):
        return False
    finally:
        os.close(fd)
