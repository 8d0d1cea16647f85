"""A real bash in a tmux pane, typed into as a person types, its screen read back.

tmux gives the shell a terminal of its own, as a person's terminal emulator would: the
prompt, the readline echo and the guard's question all go through it. Each line ends
with a mark that prints its exit status, typed with a quote in the middle so that the
echo of the typed text never matches what the mark prints. Waiting is bounded only to
fail a wedged test, never to judge speed.
"""

import os
import re
import subprocess
import time

from conftest import require


class Tmux:
    def __init__(self, root, env, argv, cwd):
        self.tmux = require("tmux")
        self.socket = str(root / "tmux.sock")
        self.marks = 0
        command = " ".join(_quote(a) for a in argv)
        self._tmux(
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-x",
            "250",
            "-y",
            "50",
            "-c",
            str(cwd),
            command,
            env=env,
        )

    def _tmux(self, *args, env=None):
        return subprocess.run(
            [self.tmux, "-S", self.socket, *args],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )

    def screen(self):
        """The pane's whole history, wrapped lines joined."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-5000").stdout

    def send(self, text):
        self._tmux("send-keys", "-l", text)

    def key(self, name):
        self._tmux("send-keys", name)

    def run(self, line, timeout=120):
        """Type line and Enter; (exit status, what the screen shows from the line on)."""
        self.marks += 1
        mark = f"__sd_mark_{self.marks}"
        start = len(self.screen())
        self.send(f'{line}; echo "{mark[:5]}""{mark[5:]}:$?"')
        self.key("Enter")
        found = self.wait_for(rf"^{mark}:(\d+)$", timeout)
        return int(found.group(1)), self.screen()[max(start - 200, 0) :]

    def wait_for(self, pattern, timeout=120):
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern, re.M)
        while True:
            shown = self.screen()
            found = regex.search(shown)
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} never showed; the screen:\n{shown}")
            time.sleep(0.05)

    def close(self):
        subprocess.run([self.tmux, "-S", self.socket, "kill-server"], capture_output=True)
        try:
            os.unlink(self.socket)
        except OSError:
            pass


def _quote(word):
    return "'" + word.replace("'", "'\\''") + "'"
