"""Node trash-trust scenarios on a shared mount, run inside a private mount namespace.

`unshare -m --propagation private python node_mounts.py SPEC` mounts a world-writable
tmpfs that no other process on the machine can see, so nothing outside (a trash-empty,
a `restore --last` of another test run) can touch what lands in its trash dirs. SPEC is
JSON: {"scenario", "node", "env", "script"}; the observations go to stdout as JSON and
the calling test asserts on them, among them what trash-cli's trash-list and `safedel
list` show on the mount (SPEC's "plain_env" is the user's environment without shims).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from trashlisting import listings  # noqa: E402 - tests/ is not on a script's path

NOBODY = 65534

ATTACKER = r"""
import os, sys
base, victim = sys.argv[1], sys.argv[2]
while True:
    for name in ("0", "b"):
        try:
            path = os.path.join(base, name)
            if os.path.isdir(path) and not os.path.islink(path):
                os.rename(path, path + ".old")
                os.symlink(victim, path)
            else:
                os.unlink(path)
                if os.path.isdir(path + ".old"):
                    os.rename(path + ".old", path)
        except OSError:
            pass
"""


def attack(base, victim):
    """Another user (uid 65534) swapping base/0 and base/b for symlinks to victim."""
    argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    argv += ["/usr/bin/python3", "-c", ATTACKER, base, victim]
    return subprocess.Popen(argv)


def foreign_dir(path, mode):
    os.mkdir(path)
    os.chmod(path, mode)
    os.chown(path, NOBODY, NOBODY)
    return path


def listing(path):
    return sorted(os.listdir(path)) if os.path.isdir(path) else None


def node(spec, *args, **options):
    argv = [spec["node"], spec["script"], *args]
    return subprocess.run(argv, env=spec["env"], capture_output=True, text=True, **options)


def foreign_trash(spec, shared):
    foreign_dir(f"{shared}/.Trash", 0o1777)
    with open(f"{shared}/a", "w") as handle:
        handle.write("a")
    done = node(spec, f"{shared}/a", "-", timeout=60)
    return {
        "stdout": done.stdout,
        "uid_dir": os.path.lexists(f"{shared}/.Trash/0"),
        "own": listing(f"{shared}/.Trash-0/files"),
        "listed": listings(shared, spec["plain_env"]),
    }


def swapped_between_items(spec, shared):
    os.mkdir(f"{shared}/.Trash")
    os.chmod(f"{shared}/.Trash", 0o1777)
    theirs = foreign_dir(f"{shared}/theirs", 0o755)
    for name in ("a", "b"):
        with open(f"{shared}/{name}", "w") as handle:
            handle.write(name)
    argv = [spec["node"], spec["script"], f"{shared}/a", f"{shared}/b"]
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE}
    proc = subprocess.Popen(argv, env=spec["env"], text=True, **pipes)
    ready = proc.stdout.readline()
    own = f"{shared}/.Trash/0"
    first = listing(f"{own}/files")
    for sub in ("files", "info"):
        os.mkdir(f"{theirs}/{sub}")
    os.rename(own, f"{shared}/moved")
    os.symlink(theirs, own)
    out, _ = proc.communicate("go\n", timeout=60)
    return {
        "ready": ready,
        "first": first,
        "stdout": out,
        "theirs": [listing(f"{theirs}/files"), listing(f"{theirs}/info")],
        "fallback": listing(f"{shared}/.Trash-0/files"),
        "listed": listings(shared, spec["plain_env"]),
    }


def race_foreign_trash(spec, shared):
    trash = foreign_dir(f"{shared}/.Trash", 0o1777)
    theirs = foreign_dir(f"{shared}/theirs", 0o777)
    attacker = attack(trash, theirs)
    trials = []
    try:
        for trial in range(20):
            item = f"{shared}/item{trial}"
            with open(item, "w") as handle:
                handle.write(str(trial))
            done = node(spec, item, "-", timeout=60)
            trials.append([trial, done.stdout, done.stderr, os.path.lexists(item)])
    finally:
        attacker.kill()
        attacker.wait()
    found = []
    for directory, _, files in os.walk(shared):
        found += [os.path.join(directory, f) for f in files if "item" in f]
    return {
        "trials": trials,
        "own": listing(f"{shared}/.Trash-0/files"),
        "found": found,
        "listed": listings(shared, spec["plain_env"]),
    }


SCENARIOS = {f.__name__: f for f in (foreign_trash, swapped_between_items, race_foreign_trash)}


def main():
    spec = json.loads(sys.argv[1])
    base = tempfile.mkdtemp(prefix="safedel-node-", dir="/var/tmp")
    os.chmod(base, 0o755)
    shared = os.path.join(base, "shared")
    os.mkdir(shared)
    options = "size=16m,mode=1777"
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "safedel-test", shared], check=True)
    try:
        result = SCENARIOS[spec["scenario"]](spec, shared)
    finally:
        subprocess.run(["umount", "-l", shared], check=False)
        shutil.rmtree(base, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
