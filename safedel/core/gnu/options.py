"""What GNU tools share around their work: getopt_long and diagnostics (answers to
questions and option arguments: core/gnu/ask.py).

A Tool writes messages as GNU's error() does (`rm: ...` on stderr, unbuffered) and
parses options exactly like glibc's getopt_long: permuted operands, bundled short
options, unambiguous abbreviations of long ones, and glibc's own error messages.
"""

import errno
import os
import sys


def quote(name, always=True):
    """gnu.quote, imported on first use: a message is the rare case, not start-up's."""
    from .quoting import quote as shell_quote

    return shell_quote(name, always)


def locale_quote(text):
    from .quoting import locale_quote as quote_for_locale

    return quote_for_locale(text)


NO_ARG, OPTIONAL_ARG = 0, 1


class Exit(Exception):
    """Stop the tool with this exit status (after its message has been printed)."""

    def __init__(self, status):
        super().__init__(status)
        self.status = status


class Tool:
    def __init__(self, name, quoter=quote):
        self.name = name
        self.quoter = quoter
        self.prog = os.fsencode(name)
        self.failed = False
        self.stdout_error = 0  # the errno a write to stdout met (GNU's close_stdout)
        self.stderr_failed = False  # stderr could not be written: status 1 at the end

    def err(self, message):
        """`prog: message` on stderr, straight to fd 2 like C's unbuffered stderr."""
        _write_all(2, self.prog + b": " + message + b"\n")

    def say(self, data):
        """Bytes on stderr as they are (a question, a hint), unbuffered as C's
        fprintf(stderr): with stderr closed or full a question's answer is still read,
        and the tool ends with status 1 (run)."""
        if not _write_all(2, data):
            self.stderr_failed = True

    def error(self, message, errnum=None):
        if errnum:
            message += b": " + os.strerror(errnum).encode()
        self.err(message)
        self.failed = True

    def cannot(self, what, path, errnum):
        self.error(what + b" " + self.quoter(path), errnum)

    def try_help(self):
        _write_all(2, b"Try '" + self.prog + b" --help' for more information.\n")

    def run(self, body):
        """Run body(), the tool's whole life, and return its exit status: an Exit's
        status, body's own, or 1 if anything failed. stdout is flushed whatever happens,
        and, as GNU's close_stdout does, output that could not be written (stdout
        closed or full) is `write error: ...` and status 1."""
        try:
            status = body()
        except Exit as done:
            status = done.status
        except BaseException:
            _flush_stdout()
            raise
        if status is None:
            status = 1 if self.failed else 0
        errnum = _flush_stdout() or self.stdout_error
        if errnum:
            self.err(b"write error: " + os.strerror(errnum).encode())
            return 1
        return 1 if self.stderr_failed else status

    def usage_error(self, message=None):
        if message is not None:
            self.err(message)
        self.try_help()
        raise Exit(1)

    def out(self, line):
        """A line on stdout."""
        self.write_out(line + b"\n")

    def write_out(self, data):
        """Bytes on stdout. Like C's stdio, a failed write does not stop the tool: it
        is reported once at the end (run)."""
        stream = sys.stdout
        if stream is None:  # fd 1 was closed when the interpreter started
            self.stdout_error = errno.EBADF
            return
        try:
            stream.buffer.write(data)
        except OSError as exc:
            self.stdout_error = exc.errno or errno.EIO


def _flush_stdout():
    """The errno of writing out what stdout still holds, or 0."""
    stream = sys.stdout
    if stream is None:
        return 0
    try:
        stream.flush()
    except OSError as exc:
        return exc.errno or errno.EIO
    except ValueError:  # closed by the tool itself: nothing left to write
        pass
    return 0


def _write_all(fd, data):
    """Whether all of data was written."""
    try:
        while data:
            data = data[os.write(fd, data) :]
    except OSError:
        return False
    return True


def getopt(tool, argv, short, long):
    """Yield (option, value) like getopt_long; operands end up in the returned list.

    short maps option letters to option names; long maps names to NO_ARG or
    OPTIONAL_ARG, in the order GNU lists them (which orders ambiguity messages).
    Errors print glibc's message and raise Exit through tool.usage_error, unless
    the caller catches UsageError first (rm adds a hint about '-foo' files).
    """
    operands = []
    posixly = "POSIXLY_CORRECT" in os.environ
    args = iter(argv)
    for arg in args:
        raw = os.fsencode(arg)
        if raw == b"--":
            operands.extend(args)
            break
        if not raw.startswith(b"-") or raw == b"-":
            operands.append(arg)
            if posixly:
                operands.extend(args)
                break
            continue
        if raw.startswith(b"--"):
            yield _long_option(raw[2:], long)
            continue
        for index in range(1, len(raw)):
            letter = raw[index : index + 1]
            if letter.decode("latin-1") not in short:
                raise UsageError(b"invalid option -- '" + letter + b"'")
            yield short[letter.decode("latin-1")], None
    return operands


def _long_option(text, long):
    name, has_value, value = text.partition(b"=")
    name = name.decode("utf-8", "surrogateescape")
    matches = [name] if name in long else [option for option in long if option.startswith(name)]
    if not matches:
        raise UsageError(b"unrecognized option '--" + text + b"'")
    if len(matches) > 1:
        listed = b" ".join(b"'--" + m.encode() + b"'" for m in matches)
        raise UsageError(
            b"option '--" + name.encode("utf-8", "surrogateescape") + b"' is ambiguous; "
            b"possibilities: " + listed
        )
    option = matches[0]
    if has_value and long[option] == NO_ARG:
        raise UsageError(b"option '--" + option.encode() + b"' doesn't allow an argument")
    return option, (value if has_value else None)


class UsageError(Exception):
    def __init__(self, message):
        super().__init__(message)
        self.message = message


def parse(tool, argv, short, long, handle):
    """Run getopt over argv, calling handle(option, value) for each; return operands."""
    options = getopt(tool, argv, short, long)
    try:
        while True:
            option, value = next(options)
            handle(option, value)
    except StopIteration as done:
        return done.value
