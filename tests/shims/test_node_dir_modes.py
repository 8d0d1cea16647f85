"""Directories whose own mode stops a move but not the kernel's rmdir, under the Node shim.

As with Python (test_python_shim_dir_modes.py), an empty directory of its owner's that
lacks u+w is removed by plain Node, and goes to the trash under the shim on a loan of
u+wx, its own mode given back inside the trash. Node has no O_PATH: the loan goes
through a descriptor opened for reading, so a directory its owner may not read (mode 0)
gets none and still fails closed, with the item left in place.
"""

import os

from conftest import require
from test_python_shim_dir_modes import _as_nobody, _mode, scratch  # noqa: F401

SCRIPT = r"""
const fs = require('fs');
const seen = [];
function attempt(name, call) {
  try {
    call();
    seen.push(`${name}: ok`);
  } catch (err) {
    seen.push(`${name}: ${err.code}`);
  }
}
process.umask(0o022);
for (const [name, mode] of [['d5', 0o500], ['d4', 0o400], ['d0', 0]]) {
  fs.mkdirSync(name, { mode });
  attempt(name, () => fs.rmdirSync(name));
}
fs.mkdirSync('r5', { mode: 0o500 });
attempt('r5', () => fs.rmSync('r5', { recursive: true }));
fs.mkdirSync('t/a', { recursive: true });
fs.mkdirSync('t/a/e5', { mode: 0o500 });
fs.chmodSync('t', 0o500);
attempt('t', () => fs.rmSync('t', { recursive: true }));
console.log(seen.join('\n'));
console.log(JSON.stringify(fs.readdirSync('.').sort()));
"""


def test_readable_closed_directories_are_lent_and_unreadable_ones_fail_closed(scratch):  # noqa: F811
    node = require("node")
    plain = _as_nobody(scratch, "plain", [node, "-e", SCRIPT], shimmed=False)
    assert plain.returncode == 0, plain.stderr
    shimmed = _as_nobody(scratch, "shimmed", [node, "-e", SCRIPT])
    assert shimmed.returncode == 0, shimmed.stderr
    lines = plain.stdout.splitlines()
    assert lines[:3] == ["d5: ok", "d4: ok", "d0: ok"]
    # Plain Node could not empty t (no u+w on it), and says so; the shim matches. d0,
    # which its owner may not read, gets no loan (Node has no O_PATH) and stays.
    expected = [*lines[:2], "d0: EACCES", *lines[3:-1], '["d0","t"]']
    assert shimmed.stdout.splitlines() == expected
    assert plain.stdout.splitlines()[-1] == '["t"]'
    # t is not lent a mode (Node could not have emptied it): it stays, failed closed.
    assert [line for line in shimmed.stderr.splitlines() if '/shimmed/t"' not in line] == []
    work = f"{scratch}/shimmed"
    assert _mode(f"{work}/d0") == 0
    files = f"{scratch}/home/.local/share/Trash/files"
    assert {name: _mode(f"{files}/{name}") for name in os.listdir(files)} == {
        "d5": 0o500,
        "d4": 0o400,
        "r5": 0o500,
    }
