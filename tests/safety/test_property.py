"""Property: whatever the tree and the operands, anything whose real location lies
outside the exempt root is afterwards in place or in the trash, byte for byte, and
nothing outside what the operands really name changes.

Random trees of dirs, files and symlinks (relative and absolute, pointing in and out
of the exempt root) are deleted through every front end (rm, find, unlink and rmdir,
the Python and the Node shims, the PowerShell helper), with operands that end in
slashes and walk through links and `..`.
"""

import itertools
import os
import shutil
import subprocess
import sys

import pytest
from conftest import require
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from safedel.trash import catalog

WORK_TREE = ["a/", "a/b/", "a/f1", "b/", "b/f2", "f3", "a/b/f6"]
TEMP_TREE = ["c/", "c/f4", "f5"]
LINK_SPOTS = ["tmp/l1", "tmp/c/l2", "work/l3", "work/a/l4"]
LINK_TARGETS = ["work/a", "work/a/b", "work/b", "work/f3", "tmp/c", "tmp/f5", "work"]
NAMES = ["a", "b", "c", "f1", "f3", "l1", "l2", "l3", "l4", "..", "."]
PYTHON_DELETE = """
import os, shutil, sys
for op in sys.argv[1:]:
    try:
        if os.path.isdir(op):
            shutil.rmtree(op)
        else:
            os.remove(op)
    except OSError:
        pass
"""
NODE_DELETE = """
const fs = require('fs');
for (const op of process.argv.slice(1)) {
  try { fs.rmSync(op, { recursive: true, force: true }); } catch {}
}
"""
# GNU unlink takes files and links, rmdir empty directories: each operand gets both.
ONE_BY_ONE = 'for op; do unlink -- "$op" || rmdir -- "$op"; done'
FRONT_ENDS = ["rm", "find", "unlink/rmdir", "python", "node", "powershell"]

# Every spot holds a link (absolute or relative); hypothesis picks where each leads.
links = st.fixed_dictionaries(
    {spot: st.tuples(st.sampled_from(LINK_TARGETS), st.booleans()) for spot in LINK_SPOTS}
)
operand = st.tuples(
    st.sampled_from(["tmp/l1", "tmp/c/l2", "work/l3", "tmp/c", "tmp", "work/a"]),
    st.one_of(st.just([]), st.lists(st.sampled_from(NAMES), max_size=2)),
    st.booleans(),
)
counter = itertools.count()


def build(root, link_spec):
    for rel in WORK_TREE + [f"tmp-{r}" for r in TEMP_TREE]:
        path = (root / "tmp" / rel[4:]) if rel.startswith("tmp-") else (root / "work" / rel)
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"content of {rel}")
    for spot, (target, absolute) in link_spec.items():
        link = root / spot
        aim = root / target
        link.symlink_to(aim if absolute else os.path.relpath(aim, link.parent))


def snapshot(work):
    """{path: ('file', bytes) | ('link', target) | ('dir', None)} below work."""
    found = {}
    for top, dirs, files in os.walk(work):
        for name in dirs + files:
            path = os.path.join(top, name)
            if os.path.islink(path):
                found[path] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                found[path] = ("dir", None)
            else:
                found[path] = ("file", open(path, "rb").read())
    return found


def real_location(path):
    """Where the kernel puts path: a trailing slash or a final `.`/`..` names what it
    resolves to; otherwise its real parent plus its name."""
    stripped = path.rstrip("/")
    if stripped != path or os.path.basename(stripped) in (".", ".."):
        return os.path.realpath(path)
    return os.path.join(os.path.realpath(os.path.dirname(stripped)), os.path.basename(stripped))


def in_trash(trash):
    """{original path: ('file', bytes) | ('link', target) | ('dir', None)} of the trash."""
    found = {}
    for item in catalog.items([os.fsencode(trash)]):
        base, origin = os.fsdecode(item.file_path), os.fsdecode(item.original)
        found.update({origin + p[len(base) :]: v for p, v in snapshot(base).items()})
        found[origin] = snapshot_one(base)
    return found


def snapshot_one(path):
    if os.path.islink(path):
        return ("link", os.readlink(path))
    if os.path.isdir(path):
        return ("dir", None)
    return ("file", open(path, "rb").read())


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    link_spec=links,
    operands=st.lists(operand, min_size=1, max_size=3),
)
# One case every front end can act on (files and a link, through links), so each is
# seen trashing from the workspace whatever hypothesis draws besides.
@example(
    link_spec={
        "tmp/l1": ("work/a", True),
        "tmp/c/l2": ("work/a/b", False),
        "work/l3": ("work", False),
        "work/a/l4": ("tmp/c", True),
    },
    operands=[("tmp/l1", ["f1"], False), ("tmp/c/l2", ["f6"], False), ("work/l3", [], False)],
)
@pytest.mark.parametrize("front_end", FRONT_ENDS)  # each gets its own examples
def test_nothing_outside_the_exempt_root_is_lost(sandbox, link_spec, operands, front_end):
    root = sandbox.root / f"ex{next(counter)}"
    build(root, link_spec)
    work, tmp = str(root / "work"), str(root / "tmp")
    ops = []
    for base, names, slash in operands:
        ops.append(os.path.join(str(root / base), *names) + ("/" if slash else ""))
    before = snapshot(work)
    named = [real_location(op) for op in ops]  # before anything is gone
    shutil.rmtree(sandbox.trash, ignore_errors=True)
    env = sandbox.shim_env(
        TMPDIR=tmp, SAFEDEL_EXEMPT=tmp, SAFEDEL_THRESHOLD="99999", SAFEDEL_WORKSPACE_ROOTS=work
    )
    argv = {
        "rm": ["rm", "-rf", "--", *ops],
        "find": ["find", *ops, "-delete"],
        "unlink/rmdir": ["sh", "-c", ONE_BY_ONE, "sh", *ops],
        "python": [sys.executable, "-c", PYTHON_DELETE, *ops],
        "node": [require("node"), "-e", NODE_DELETE, *ops],
        # what the PowerShell prelude runs once Remove-Item has its literal paths
        "powershell": [sys.executable, "-E", "-m", "safedel.shells.trash_helper"],
    }[front_end]
    if front_end == "powershell":
        argv += ["--recurse", "--", *ops]
    subprocess.run(argv, cwd=str(root), env=env, capture_output=True, timeout=60)
    after = snapshot(work)
    trashed = in_trash(sandbox.trash)
    for path, value in before.items():
        if after.get(path) == value:
            continue
        assert any(path == n or path.startswith(n.rstrip("/") + "/") for n in named), (
            f"{path} changed, but no operand names it: {ops} via {front_end}"
        )
        if value[0] != "dir":
            assert trashed.get(path) == value, f"{path} lost: {ops} via {front_end}"
    for path in after:
        assert path in before, f"{path} appeared: {ops} via {front_end}"
