"""The mount cases, run as root inside a private mount namespace (unshare -m), so the
tmpfs they mount is seen by nobody else on the machine.

    python mountcase.py CASE MOUNTPOINT [SPEC]

prints one JSON object with what happened. The attacker's steps run as uid 65534.
SPEC (JSON: {"python" or "node", "env"}) is for the cases that delete through a shimmed
Python or Node process. Every case also reports what trash-cli's `trash-list` and `safedel list`
show under the mount, both run in here, where the mount is visible.
"""

import json
import os
import subprocess
import sys

from safedel.core.trash import move

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from trashlisting import listings  # noqa: E402 - tests/ is not on a script's path

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def nobody(script):
    subprocess.run([*NOBODY, "sh", "-c", script], check=True)


def mount(point, mode="0777"):
    os.makedirs(point, exist_ok=True)
    options = f"size=8m,mode={mode}"
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "t", point], check=True)


def safedel(*argv):
    done = subprocess.run(
        [sys.executable, "-m", "safedel", *argv], capture_output=True, text=True, timeout=60
    )
    return {"code": done.returncode, "out": done.stdout, "err": done.stderr}


def where(m, *names):
    """name -> the directories under m (symlinks not followed) holding a file of it."""
    found = {name: [] for name in names}
    for directory, _, files in os.walk(m):
        for name in set(files) & set(names):
            found[name].append(os.path.relpath(directory, m))
    return found


def trash_it(path, trash_dir=None):
    try:
        return {"ok": move.trash(path, trash_dir).as_event()}
    except OSError as exc:
        return {"errno": exc.errno, "reason": getattr(exc, "reason", str(exc))}


def write(path, text):
    with open(path, "w") as handle:
        handle.write(text)


def foreign_shared_trash(m):
    """Another user's sticky world-writable $topdir/.Trash is never used."""
    nobody(f"mkdir -m 1777 {m}/.Trash")
    write(f"{m}/f", "mine")
    first = trash_it(f"{m}/f")
    return {"first": first, "shared": sorted(os.listdir(f"{m}/.Trash")), "listed": listings(m)}


def swapped_trash_root(m):
    """.Trash-0 swapped for a symlink to the attacker's dir between two items."""
    write(f"{m}/f1", "one")
    write(f"{m}/f2", "two")
    first = trash_it(f"{m}/f1")
    nobody(
        f"mkdir -p {m}/theirs/files {m}/theirs/info && chmod -R 777 {m}/theirs"
        f" && mv {m}/.Trash-0 {m}/away && ln -s {m}/theirs {m}/.Trash-0"
    )
    second = trash_it(f"{m}/f2")
    return {
        "first": first,
        "second": second,
        "theirs": os.listdir(f"{m}/theirs/files"),
        "listed": listings(m),
    }


def foreign_trash_dir(m):
    """--trash-dir naming someone else's world-writable directory is refused."""
    nobody(f"mkdir -m 777 {m}/tt {m}/tt/files {m}/tt/info")
    write(f"{m}/f", "mine")
    result = trash_it(f"{m}/f", f"{m}/tt")
    return {"result": result, "theirs": os.listdir(f"{m}/tt/files"), "listed": listings(m)}


def foreign_listed(m):
    """A .Trash-0 made by uid 65534 is neither listed nor restored from."""
    nobody(
        f"mkdir -p {m}/.Trash-0/files {m}/.Trash-0/info && echo evil > "
        f"{m}/.Trash-0/files/Makefile.sh && printf '[Trash Info]\\nPath=proj/Makefile.sh\\n"
        f"DeletionDate=2030-01-01T00:00:00\\n' > {m}/.Trash-0/info/Makefile.sh.trashinfo"
    )
    os.mkdir(f"{m}/proj")
    return {
        "listed": listings(m),
        "list": safedel("list", "--json"),
        "restore": safedel("restore", f"{m}/proj/Makefile.sh"),
        "planted": os.path.exists(f"{m}/proj/Makefile.sh"),
        "doctor": safedel("doctor", "--json"),
    }


def plant(root, name, owner="nobody"):
    """A trash dir at root holding one item, Path=name, made by owner."""
    script = (
        f"mkdir -p {root}/files {root}/info && echo planted > {root}/files/{name} && printf "
        f"'[Trash Info]\\nPath={name}\\nDeletionDate=2030-01-01T00:00:00\\n' > "
        f"{root}/info/{name}.trashinfo"
    )
    if owner == "nobody":
        nobody(script)
    else:
        subprocess.run(["sh", "-c", f"umask 077 && {script}"], check=True)


def topdir_trashes(m):
    """One item of ours on each of four mounts, next to trash dirs others made:
    ok: root's sticky .Trash, so ours goes to .Trash/0;
    open: a .Trash without the sticky bit, holding a .Trash/0 of ours from before;
    planted: root's sticky .Trash, in which uid 65534 made .Trash/0;
    theirs: a sticky world-writable .Trash that uid 65534 owns, with a .Trash/0."""
    for name in ("ok", "open", "planted", "theirs"):
        mount(f"{m}/{name}")
        write(f"{m}/{name}/f", name)
    for name, mode in (("ok", 0o1777), ("open", 0o777), ("planted", 0o1777)):
        os.mkdir(f"{m}/{name}/.Trash")
        os.chmod(f"{m}/{name}/.Trash", mode)
    plant(f"{m}/open/.Trash/0", "old", owner="root")
    plant(f"{m}/planted/.Trash/0", "evil")
    nobody(f"mkdir -m 1777 {m}/theirs/.Trash")
    plant(f"{m}/theirs/.Trash/0", "bad")
    trashed = {name: trash_it(f"{m}/{name}/f") for name in ("ok", "open", "planted", "theirs")}
    return {"trashed": trashed, "listed": listings(m), "doctor": safedel("doctor", "--json")}


SHIMMED = r"""
import json, os, sys, time
names = sys.argv[1:]

def delete(path):
    try:
        os.remove(path)
        return None
    except OSError as exc:
        return exc.errno

codes = [delete(names[0])]
print("ready", flush=True)
sys.stdin.readline()
for n, name in enumerate(names[1:]):
    until = time.perf_counter() + n * 25e-6  # a different moment in the swap loop each time
    while time.perf_counter() < until:
        pass
    codes.append(delete(name))
print(json.dumps(codes), flush=True)
"""


SHIMMED_NODE = r"""
const fs = require('fs');
const names = process.argv.slice(1);
const del = (p) => { try { fs.unlinkSync(p); return null; } catch (e) { return e.code; } };
const codes = [del(names[0])];
process.stdout.write('ready\n');
fs.readSync(0, Buffer.alloc(3));
for (let n = 1; n < names.length; n++) {
  const until = process.hrtime.bigint() + BigInt(n * 25000);
  while (process.hrtime.bigint() < until);
  codes.push(del(names[n]));
}
console.log(JSON.stringify(codes));
"""


def shimmed(spec, m, *names):
    """The shimmed interpreter (Python or Node), started: it deletes names[0], says
    ready, waits for a line on stdin, then deletes the rest and prints each one's
    error (errno or code; null when done)."""
    paths = [f"{m}/{name}" for name in names]
    if "node" in spec:
        argv = [spec["node"], "-e", SHIMMED_NODE, *paths]
    else:
        argv = [spec["python"], "-c", SHIMMED, *paths]
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    return subprocess.Popen(argv, env=spec["env"], cwd=m, text=True, **pipes)


THEIRS = "mkdir -p {m}/theirs/files {m}/theirs/info && chmod -R 777 {m}/theirs"
SWAPS = {
    # no .Trash: .Trash-0 (in a topdir anyone may write) becomes their symlink
    "trash_uid": THEIRS + " && mv {m}/.Trash-0 {m}/away && ln -s {m}/theirs {m}/.Trash-0",
    # root's sticky .Trash is moved away and replaced by theirs, .Trash/0 a symlink
    "shared_uid": THEIRS
    + " && mv {m}/.Trash {m}/away && mkdir -m 1777 {m}/.Trash && ln -s {m}/theirs {m}/.Trash/0",
}


def shim_swapped_root(m, spec, swap):
    """A shimmed process trashes f1, its trash root is swapped for a symlink to the
    attacker's directory, then it deletes f2 (swap "in_place": .Trash/0 itself, which
    only root could swap inside root's sticky .Trash, is replaced by the symlink)."""
    write(f"{m}/f1", "one")
    write(f"{m}/f2", "two")
    if swap != "trash_uid":
        os.mkdir(f"{m}/.Trash")
        os.chmod(f"{m}/.Trash", 0o1777)
    proc = shimmed(spec, m, "f1", "f2")
    ready = proc.stdout.readline()
    if swap == "in_place":
        nobody(THEIRS.format(m=m))
        os.rename(f"{m}/.Trash/0", f"{m}/away")
        os.symlink(f"{m}/theirs", f"{m}/.Trash/0")
    else:
        nobody(SWAPS[swap].format(m=m))
    out, err = proc.communicate("go\n", timeout=60)
    return {
        "ready": ready,
        "codes": json.loads(out.splitlines()[-1]),
        "stderr": err,
        "where": where(m, "f1", "f2"),
        "theirs": [sorted(os.listdir(f"{m}/theirs/{sub}")) for sub in ("files", "info")],
        "listed": listings(m),
    }


def shim_race(m, spec):
    """20 items, each at a different moment of uid 65534 swapping .Trash-0 for a
    symlink to their directory and back as fast as it can."""
    names = ["warm"] + [f"item{n}" for n in range(20)]
    for name in names:
        write(f"{m}/{name}", name)
    nobody(THEIRS.format(m=m))
    proc = shimmed(spec, m, *names)
    ready = proc.stdout.readline()
    stop = f"{m}/stop"
    script = os.path.join(HERE, "attacker.py")
    argv = [*NOBODY, sys.executable, "-I", script, "swaproot", f"{m}/.Trash-0", f"{m}/theirs"]
    swapper = subprocess.Popen([*argv, stop], stdout=subprocess.PIPE)
    try:
        started = swapper.stdout.readline()
        out, err = proc.communicate("go\n", timeout=60)
    finally:
        write(stop, "")
        swapper.wait(timeout=60)
    if os.path.islink(f"{m}/.Trash-0") and os.path.isdir(f"{m}/.Trash-0.away"):
        os.unlink(f"{m}/.Trash-0")  # put back what the attacker left swapped
        os.rename(f"{m}/.Trash-0.away", f"{m}/.Trash-0")
    return {
        "ready": [ready, started.decode()],
        "codes": json.loads(out.splitlines()[-1]),
        "stderr": err,
        "where": where(m, *names),
        "theirs": [sorted(os.listdir(f"{m}/theirs/{sub}")) for sub in ("files", "info")],
        "listed": listings(m),
    }


if __name__ == "__main__":
    case, point = sys.argv[1], sys.argv[2]
    mount(point)
    args = [json.loads(arg) for arg in sys.argv[3:]]
    print(json.dumps(globals()[case](point, *args)))
