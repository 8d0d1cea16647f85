"""Each interactive shell records when its turn began (SAFEDEL_TURN_START, or in dash and
busybox sh the turn file's mtime), so that what a command line made itself is trashed
without being counted, while what an earlier command line made still counts.

File stamps come from a clock that lags the precise one by up to a tick, so each line
waits a moment between the turn's start and the files it makes; nothing is timed.
"""

import os
import shlex
import sys

import pytest
import sampling
from conftest import last_markers, require
from test_interactive import SHELLS, start

NAMES = " ".join(f"n{i:02d}" for i in range(60))
LATE = " ".join(f"k{i:02d}" for i in range(60))
NODE_LOOP = (
    "const fs=require('fs');"
    "for(let i=0;i<60;i++)fs.writeFileSync('m'+i,'x');"
    "for(let i=0;i<60;i++)fs.unlinkSync('m'+i)"
)
PYTHON_LOOP = (
    "import os\n"
    "for i in range(60): open(f'p{i}', 'w').close()\n"
    "for i in range(60): os.remove(f'p{i}')"
)


def uncounted(events, prefix):
    return [
        e
        for e in events
        if e["operation"] == "trash"
        and os.path.basename(e["path"]).startswith(prefix)
        and e.get("counted") is False
        and e.get("why") == "created-this-turn"
    ]


@pytest.mark.parametrize("key", list(SHELLS))
def test_what_a_line_made_is_not_counted_and_what_an_earlier_line_made_is(sandbox, key):
    require(os.path.join(sandbox.shim_home, "bin", "rm"))
    terminal = start(sandbox, key)
    try:
        made = terminal.run(f"sleep 0.1; touch {NAMES}; rm n*")
        terminal.run(f"touch {LATE}; sleep 0.1")
        late = terminal.run("rm k*")
    finally:
        terminal.close()
    assert made[0] == 0, made[1]
    assert len(uncounted(sandbox.report(), "n")) == 60
    assert late[0] == 1, late[1]
    screen = late[1].replace("[safe-delete]", "\n[safe-delete]")
    assert last_markers(screen).get("SAFE_DELETE_BULK_CONFIRM_REQUIRED"), late[1]
    assert len([p for p in sandbox.work.iterdir() if p.name.startswith("k")]) == 60


def plain_start(sandbox, key):
    """A terminal as test_interactive's start, with a plain shim cache path: NODE_OPTIONS
    cannot quote the odd one's double quotes."""
    return start(sandbox, key, cache="cache")


# A matrix (tests/sampling.py): each shell and each runtime every run.
@sampling.matrix(
    "key, runtime",
    [(k, r) for k in ("bash", "dash", "zsh", "fish") for r in ("node", "python")],
    "turn-start",
    extra=1,
)
def test_in_process_shims_read_the_shells_turn_start(sandbox, key, runtime):
    """bash writes the start as one number, dash leaves it in the turn file's mtime, zsh
    as seconds:turn, fish as @ its stamp file: the Node and Python shims read each the
    way the rm launcher does."""
    tool = require("node" if runtime == "node" else sys.executable)
    loop = NODE_LOOP if runtime == "node" else PYTHON_LOOP
    terminal = plain_start(sandbox, key)
    try:
        flag = "-e" if runtime == "node" else "-c"
        status, shown = terminal.run(f"sleep 0.1; {shlex.quote(tool)} {flag} {shlex.quote(loop)}")
    finally:
        terminal.close()
    assert status == 0, shown
    assert len(uncounted(sandbox.report(), "m" if runtime == "node" else "p")) == 10, shown
    assert not [p for p in sandbox.work.iterdir() if p.name[0] in "mp"]
