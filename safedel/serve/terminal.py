"""Runs on a pseudo-terminal (`usePty: true`): the pty, its size, and named keys.

The child opens the pty's slave side after posix_spawn's setsid and before exec (glibc
does setsid first, then the file actions), so the terminal becomes its controlling
terminal: Ctrl-C written to the master reaches its foreground process group as SIGINT,
and a resize reaches it as SIGWINCH, as in a terminal emulator.
"""

import fcntl
import os
import struct
import termios

# Named keys as the original protocol sends them, and the bytes a terminal sends.
KEYS = {
    "CTRL_C": b"\x03",
    "CTRL_D": b"\x04",
    "CTRL_Z": b"\x1a",
    "CTRL_L": b"\x0c",
    "CTRL_U": b"\x15",
    "ENTER": b"\r",
    "TAB": b"\t",
    "ESCAPE": b"\x1b",
    "BACKSPACE": b"\x7f",
    "UP": b"\x1b[A",
    "DOWN": b"\x1b[B",
    "RIGHT": b"\x1b[C",
    "LEFT": b"\x1b[D",
}
DEFAULT_SIZE = (80, 24)


def open_pty(cols, rows):
    """(master fd, slave path) of a new pty of cols x rows."""
    master, slave = os.openpty()
    try:
        resize(master, cols, rows)
        return master, os.ttyname(slave)
    finally:
        os.close(slave)  # the child opens it by name, to make it its terminal


def resize(fd, cols, rows):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def child_actions(slave_path):
    """posix_spawn file actions: the slave as stdin, stdout and stderr."""
    return [
        (os.POSIX_SPAWN_OPEN, 0, slave_path, os.O_RDWR, 0),
        (os.POSIX_SPAWN_DUP2, 0, 1),
        (os.POSIX_SPAWN_DUP2, 0, 2),
    ]
