"""Ask a person on the terminal whether a refused batch may go ahead.

Ctrl-C, Ctrl-\\, a hang-up or a kill while the question waits is an answer too: no.
The caller records it as a rejection (core/guard/stage.py) and only then lets the
interruption go on (Interrupted.go_on), so a launcher still dies of SIGINT as the C
tool would, and a Python program still gets its KeyboardInterrupt; the rejection is
in the ledger either way, so nothing that runs again in the turn is let through.
"""

import os

QUESTION = "Allow it for the rest of this turn? [y/N] "
SHOWN_TARGETS = 5
# Enter ends the answer in cooked mode (\n) and in raw mode (\r); in raw mode Ctrl-C
# and Ctrl-D arrive as bytes instead of as a signal and an end of file.
_ENDS = (b"\n", b"\r")
_CANCEL = (b"\x03", b"\x04")
# The signals that would end the process while it waits (where their handler is the
# default, as in the launchers): caught for the length of the question.
_STOPPING = ("SIGINT", "SIGQUIT", "SIGHUP", "SIGTERM")


class Interrupted(BaseException):
    """The question was interrupted: the answer is no, then the interruption goes on."""

    def __init__(self, signum=None, exc=None):
        super().__init__(signum, exc)
        self.signum, self.exc = signum, exc

    def go_on(self):
        """Die of the signal (its default action), or raise what interrupted us."""
        if self.exc is not None:
            raise self.exc
        import signal
        import sys

        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass
        signal.signal(self.signum, signal.SIG_DFL)
        os.kill(os.getpid(), self.signum)
        raise KeyboardInterrupt  # a signal blocked here: never carry on as if answered


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


def ask(payload, text=None, gone=None):
    """True for yes, False for no/EOF/Ctrl-C as a byte, None when there is no terminal
    to ask on (none opens, or this process is in the background, where reading would
    stop it). Raises Interrupted when a signal or an exception stops the question.
    text replaces the bulk guard's question; gone() says the asker has gone (a run's
    keeper asks for a process that Ctrl-C may kill meanwhile): that is a no too."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | getattr(os, "O_NOCTTY", 0))
    except OSError:
        return None
    caught = _catch_stopping_signals()
    try:
        if os.tcgetpgrp(fd) != os.getpgrp():
            return None
        text = text or describe(payload) + QUESTION
        os.write(fd, text.encode("utf-8", "backslashreplace"))
        answer = b""
        while len(answer) < 64:
            if gone is not None and _wait_readable(fd, gone):
                _say(fd, b"\n")
                return False
            chunk = os.read(fd, 1)
            if not chunk or chunk in _CANCEL:
                _say(fd, b"\n")
                return False
            if chunk in _ENDS:
                break
            answer += chunk
        return answer.strip().lower() in (b"y", b"yes")
    except Interrupted:
        _say(fd, b"\n")
        raise
    except OSError:
        return None
    except BaseException as exc:  # KeyboardInterrupt, or a program's own handler's
        _say(fd, b"\n")
        raise Interrupted(exc=exc) from None
    finally:
        _restore(caught)
        os.close(fd)


def _wait_readable(fd, gone):
    """Wait until fd has input; True when gone() came first."""
    import select

    while not select.select([fd], [], [], 0.1)[0]:
        if gone():
            return True
    return False


def _catch_stopping_signals():
    """{signum: handler} replaced: each stopping signal whose handler is the default gets
    one that raises Interrupted, on the main thread only (signal.signal works there)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    import signal

    def stop(signum, _frame):
        raise Interrupted(signum)

    caught = {}
    for name in _STOPPING:
        signum = getattr(signal, name, None)
        if signum is not None and signal.getsignal(signum) == signal.SIG_DFL:
            caught[signum] = signal.signal(signum, stop)
    return caught


def _restore(caught):
    if caught:
        import signal

        for signum, handler in caught.items():
            signal.signal(signum, handler)


def _say(fd, data):
    try:
        os.write(fd, data)
    except OSError:
        pass
