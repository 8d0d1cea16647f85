"""Races against the deletions in an exempt temp dir: the command keeps changing what
the temp dir's name leads to (the project swapped or mounted in, and out again) while
a front end deletes the same names from it, round after round. The temp dir and the
project both hold x0 .. x29; none of the project's files may be lost.
"""

import os
import shlex

from .exemptcase import contents, lost, run

# Deletes ROOT/x0 .. ROOT/x<N-1>, ROUNDS times over: whatever ROOT leads to each time.
RACING = {
    "python": (
        "python3 -c",
        "import os, sys\nroot, n, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])\n"
        "done = 0\nfor _ in range(rounds):\n    for i in range(n):\n        try:\n"
        "            os.remove(f'{root}/x{i}'); done += 1\n        except OSError:\n"
        "            pass\nprint('deleted', done)\n",
    ),
    "node": (
        "node -e",
        "const fs = require('fs'); const [root, n, rounds] = process.argv.slice(1);\n"
        "let done = 0;\nfor (let r = 0; r < +rounds; r++) for (let i = 0; i < +n; i++) {\n"
        "  try { fs.unlinkSync(`${root}/x${i}`); done++; } catch {}\n}\n"
        "console.log('deleted', done);\n",
    ),
    "rm": (
        "sh -c",
        'i=0; while [ $i -lt "$3" ]; do rm -f "$1"/x*; i=$((i+1)); done; echo deleted',
    ),
}


def racing_layout(base, files):
    """A temp dir and a project, both holding x0 .. x<files-1>."""
    written = {}
    for where, kind in ((base / "t", "temp"), (base / "proj", "mine")):
        where.mkdir(parents=True)
        for i in range(files):
            data = f"{kind} x{i} {os.urandom(8).hex()}\n".encode()
            (where / f"x{i}").write_bytes(data)
            written[data] = str(where / f"x{i}")
    return written


def racing_deleter(front_end, root, rounds=None):
    """The shell command deleting root/x0 .. root/x29, rounds times over (by default 12
    for rm, which is slower a round, and 40 for the others)."""
    rounds = rounds or (12 if front_end == "rm" else 40)
    interpreter, text = RACING[front_end]
    # sh -c and node -e take the program's own arguments after a name for $0 / argv[1].
    zero = " x" if interpreter == "sh -c" else ""
    return f"{interpreter} {shlex.quote(text)}{zero} {shlex.quote(root)} 30 {rounds}"


def race(sandbox, base, written, changer, front_end, net, mounts=False, elsewhere=()):
    """Runs `changer` (a shell command that loops until {base}/stop exists; it prints
    a line to {base}/changing once it has started) in the background while front_end
    deletes from {base}/t, the run's TMPDIR. The deleter must have run, and none of the
    project's files (of `written`, racing_layout's) is lost: each is in the sandbox or
    in one of the directories `elsewhere`."""
    delete = racing_deleter(front_end, f"{base}/t")
    started = f"while [ ! -s {base}/changing ]; do sleep 0.01; done"
    script = f"{changer} > {base}/changing & {started}; {delete}; touch {base}/stop; wait"
    env = sandbox.base_env(TMPDIR=base / "t")
    done = run(sandbox, script, net, env=env, mounts=mounts)
    why = done.stderr.decode()[-3000:]
    assert b"deleted" in done.stdout, why
    found = contents(sandbox.root)
    for top in elsewhere:
        for data, places in contents(top).items():
            found.setdefault(data, []).extend(places)
    mine = {data: where for data, where in written.items() if data.startswith(b"mine ")}
    assert lost(mine, found) == {}, why
