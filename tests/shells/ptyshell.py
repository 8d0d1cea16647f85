"""An interactive shell on a pseudo-terminal, driven one command line at a time.

Each line ends with a mark that prints the line's exit status, on the same command line
so that nothing is typed ahead while it runs; or, to see $? survive the shell's hooks, as
a line of its own. The mark is typed with a quote in the middle, so the terminal's echo
of the typed text never matches what the mark prints.
"""

import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios

ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


class Terminal:
    def __init__(self, argv, env, cwd, status="$?"):
        self.status = status
        self.marks = 0
        self.output = b""
        pid, fd = pty.fork()
        if pid == 0:
            try:
                os.chdir(cwd)
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        # Wide enough that no line editor wraps a long command line.
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 1000, 0, 0))

    def run(self, line, own_line=False, timeout=90):
        """Type line; return (exit status, what the terminal showed meanwhile, as text)."""
        self.marks += 1
        mark = f"__sd_mark_{self.marks}"
        start = len(self.output)
        echo = f'echo "{mark[:5]}""{mark[5:]}:{self.status}"'
        self.send(f"{line}\n{echo}\n" if own_line else f"{line}; {echo}\n")
        found = self.expect(re.compile(rf"{mark}:(\d+)".encode()), timeout)
        shown = ANSI.sub(b"", self.output[start:]).decode("utf-8", "replace")
        return int(found.group(1)), shown

    def close(self):
        try:
            self.send("exit\n")
        except OSError:
            pass
        # The shell gets time to run its hooks and leave on its own; one that does not
        # (or is wedged) is hung up on, then killed: a test must never hang.
        if not self._reaped(5.0):
            for sig, grace in ((signal.SIGHUP, 5.0), (signal.SIGKILL, 30.0)):
                try:
                    os.kill(self.pid, sig)
                except ProcessLookupError:
                    break
                if self._reaped(grace):
                    break
        os.close(self.fd)

    def _reaped(self, grace):
        for _ in range(int(grace * 20)):
            try:
                pid, _status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                return True
            if pid:
                return True
            # Drain the terminal so a shell blocked writing to it can go on.
            if select.select([self.fd], [], [], 0.05)[0]:
                try:
                    self.output += os.read(self.fd, 65536)
                except OSError:
                    pass
        return False

    def send(self, text):
        os.write(self.fd, text.encode())

    def expect(self, pattern, timeout):
        # The deadline only keeps a broken shell from hanging the suite; nothing is timed.
        while True:
            match = pattern.search(ANSI.sub(b"", self.output))
            if match:
                return match
            ready, _, _ = select.select([self.fd], [], [], timeout)
            if not ready:
                raise TimeoutError(f"no {pattern.pattern!r}; the terminal showed:\n{self.text()}")
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                raise EOFError(f"the shell ended; the terminal showed:\n{self.text()}")
            self.output += chunk

    def text(self):
        return ANSI.sub(b"", self.output).decode("utf-8", "replace")
