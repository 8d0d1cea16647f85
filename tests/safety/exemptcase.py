"""Exempt roots swapped, renamed or mounted over under a run: the pieces the tests share.

A *case* is one exempt root T with a project P beside it. Before the run, T holds temp
files and P the user's files, each with content found nowhere else, so that afterwards
every byte of P can be looked for wherever it went. Inside the run the command (the
attacker) changes what T's name leads to, then a front end deletes everything under
T's name. Nothing of P may be lost: each of its files is still somewhere in the sandbox
(in place, or in a trash with its info file, so `safedel restore` and trash-cli bring it
back), byte for byte. A root left alone is the control: its temp files are deleted for
real (gone, and not in any trash), so a test cannot pass by exempting nothing at all.
"""

import os
import shlex
import subprocess
import sys

import pytest
from mountns import run_in_namespace

# Each front end deletes everything under each root named on its command line. The
# shim front ends run under --net off too; "native" (no shim: python -I) only means
# something with the net, and is left out without it.
PY_RMTREE = """
import os, shutil, sys
for root in sys.argv[1:]:
    for name in sorted(os.listdir(root)) if os.path.isdir(root) else ():
        path = os.path.join(root, name)
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.remove(path)
        except OSError as exc:
            print("failed", path, exc.errno, file=sys.stderr)
"""
PY_WALK = """
import os, sys
for root in sys.argv[1:]:
    for here, dirs, files in os.walk(root, topdown=False):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(here, d))]:
            try:
                os.unlink(os.path.join(here, name))
            except OSError as exc:
                print("failed", here, name, exc.errno, file=sys.stderr)
        for name in dirs:
            try:
                os.rmdir(os.path.join(here, name))
            except OSError as exc:
                print("failed", here, name, exc.errno, file=sys.stderr)
"""
NODE_RM = """
const fs = require('fs');
for (const root of process.argv.slice(2)) {
  let names = [];
  try { names = fs.readdirSync(root).sort(); } catch { continue; }
  for (const name of names) {
    const path = `${root}/${name}`;
    try {
      if (fs.lstatSync(path).isDirectory()) fs.rmSync(path, { recursive: true });
      else fs.unlinkSync(path);
    } catch (err) { console.error('failed', path, err.code); }
  }
}
"""
NODE_WALK = """
const fs = require('fs');
function empty(dir) {
  let names = [];
  try { names = fs.readdirSync(dir); } catch { return; }
  for (const name of names) {
    const path = `${dir}/${name}`;
    try {
      if (fs.lstatSync(path).isDirectory()) { empty(path); fs.rmdirSync(path); }
      else fs.unlinkSync(path);
    } catch (err) { console.error('failed', path, err.code); }
  }
}
for (const root of process.argv.slice(2)) empty(root);
"""
SHELL = {
    "rm": 'rm -rf "$r"/*',
    "find": 'find "$r" -mindepth 1 -delete',
    # The unlink and rmdir launchers, entry by entry; the real find only lists.
    "unlink": (
        'find "$r" -mindepth 1 -depth | while IFS= read -r p; do'
        ' if [ -d "$p" ] && [ ! -L "$p" ]; then rmdir "$p"; else unlink "$p"; fi; done'
    ),
}
FRONT_ENDS = ("rm", "find", "unlink", "python", "python-walk", "node", "node-walk", "native")
NETS = ("off", "on")


def cells(front_ends=FRONT_ENDS):
    """The (front end, net) pairs that mean something: a program with no shim ("native")
    is seen by the net alone, so it runs only with the net."""
    return [(f, n) for f in front_ends for n in NETS if (f, n) != ("native", "off")]


def deletion(front_end, roots, scripts):
    """The shell command that makes front_end delete everything under each of roots
    (paths, or shell words such as '"$TMPDIR"' as str). scripts: a directory to write
    the programs into."""
    quoted = " ".join(r if isinstance(r, str) else shlex.quote(str(r)) for r in roots)
    if front_end in SHELL:
        return f"for r in {quoted}; do {SHELL[front_end]}; done"
    programs = {
        "python": (PY_RMTREE, "py", "python3"),
        "python-walk": (PY_WALK, "py", "python3"),
        "native": (PY_WALK, "py", "python3 -I"),
        "node": (NODE_RM, "js", "node"),
        "node-walk": (NODE_WALK, "js", "node"),
    }
    text, suffix, interpreter = programs[front_end]
    program = os.path.join(str(scripts), f"delete-{front_end}.{suffix}")
    with open(program, "w") as handle:
        handle.write(text)
    return f"{interpreter} {shlex.quote(program)} {quoted}"


class Case:
    """One exempt root T (not necessarily there yet) and the project P to keep."""

    def __init__(self, base, name):
        self.name = name
        self.base = base / name
        self.root = self.base / "t"
        self.project = self.base / "proj"
        self.away = self.base / "t.away"

    def make(self, root_exists=True, project_files=("keep.txt", "sub/deep.txt", "sub/x/y.txt")):
        """The root's temp files and the project's files; {content: where it was}."""
        written = {}
        if root_exists:
            for rel in ("scratch.o", "cc/a.o"):
                written.update(self._write(self.root / rel, f"temp {self.name} {rel}"))
        for rel in project_files:
            written.update(self._write(self.project / rel, f"mine {self.name} {rel}"))
        return written

    def _write(self, path, text):
        path.parent.mkdir(parents=True, exist_ok=True)
        data = f"{text} {os.urandom(8).hex()}\n".encode()
        path.write_bytes(data)
        return {data: str(path)}

    def temp(self, written):
        return {data: where for data, where in written.items() if data.startswith(b"temp ")}

    def mine(self, written):
        return {data: where for data, where in written.items() if data.startswith(b"mine ")}


def contents(top):
    """{content: [paths]} of every regular file under top, symlinks not followed."""
    found = {}
    for here, _, files in os.walk(top):
        for name in files:
            path = os.path.join(here, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with open(path, "rb") as handle:
                found.setdefault(handle.read(), []).append(path)
    return found


def restorable(path):
    """Whether path, found in a trash's files/, has the info file of its top item."""
    head, marker, rest = path.partition(f"{os.sep}files{os.sep}")
    if not marker or "Trash" not in head:
        return False
    item = rest.split(os.sep, 1)[0]
    return os.path.isfile(os.path.join(head, "info", item + ".trashinfo"))


def lost(mine, found):
    """The user's files (content -> original place) that are nowhere now, or only in a
    trash with no info file to restore them by: they must be none."""
    missing = {}
    for data, where in mine.items():
        places = found.get(data, [])
        trashed = [p for p in places if f"{os.sep}files{os.sep}" in p and "Trash" in p]
        kept = [p for p in places if p not in trashed]
        if not kept and not any(restorable(p) for p in trashed):
            missing[where] = places
    return missing


def gone_for_real(temp, found):
    """The temp files (content -> place) that are still somewhere: they must be none."""
    return {where: found[data] for data, where in temp.items() if data in found}


def require_net(net):
    """The net, where a test asks for it: a skip on a laptop without it, a failure in CI."""
    if net != "on":
        return
    from conftest import IN_CI

    from safedel.net import kernel_supports

    ok, why = kernel_supports()
    if not ok:
        if IN_CI:
            pytest.fail(f"the net is required under CI=true: {why}")
        pytest.skip(why)


def require_tools(front_end):
    from conftest import require

    require("node" if front_end.startswith("node") else "python3")


def run(sandbox, script, net, extra=(), env=None, cwd=None, mounts=False):
    """`safedel run --net NET --outside-workspace allow --threshold 99999 -- sh -c
    script` in the sandbox's work tree; with mounts, in a mount namespace of its own."""
    options = ["--net", net, "--outside-workspace", "allow", "--threshold", "99999", *extra]
    if mounts:
        return run_in_namespace(sandbox, "true", script, run_options=options, cwd=cwd, env=env)
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, *options, "--", "sh", "-c", script]
    return subprocess.run(
        argv,
        cwd=cwd or sandbox.work,
        env=env or sandbox.base_env(),
        capture_output=True,
        timeout=300,
    )


def attacked_then_emptied(sandbox, case, front_end, net, attack, mounts=False):
    """The command empties the temp dir (case.root, its TMPDIR) through front_end, makes
    its name lead to the project with the shell command `attack`, and empties it again.
    The attack must have worked; the project's files are all kept, and the temp dir's
    own files, emptied before the attack, went for real."""
    written = case.make()
    empty = deletion(front_end, ['"$TMPDIR"'], sandbox.root)
    script = f"{empty}; {attack} && echo ATTACK-DONE; {empty}; true"
    done = run(sandbox, script, net, env=sandbox.base_env(TMPDIR=case.root), mounts=mounts)
    why = done.stderr.decode()[-3000:]
    assert b"ATTACK-DONE" in done.stdout, why
    found = contents(sandbox.root)
    assert lost(case.mine(written), found) == {}, why
    assert gone_for_real(case.temp(written), found) == {}, why
