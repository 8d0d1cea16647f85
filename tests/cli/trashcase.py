"""A topdir trash on a shared mount, attacked by uid 65534: run as root inside a private
mount namespace (unshare -m), so the tmpfs is seen by nobody else on the machine.

    python trashcase.py CASE MOUNTPOINT

prints one JSON object with what happened; the test asserts on it. The mount is 0777
without the sticky bit, as a careless shared scratch mount is: uid 65534 may create,
rename and replace anything at its top.

planted       : uid 65534 makes `.Trash-0` first (damaged entries, files/ linked to the
                user's data); the user lists, purges and restores.
swap-purge    : the user's `.Trash-0` holds `junk`, their `.Trash/0` (under a root-owned
swap-restore    sticky `.Trash`) another `junk`, one they want back; uid 65534 keeps
                swapping `.Trash-0` for a symlink to `.Trash/0` while the user purges (or
                restores, then drops) the `.Trash-0` junk again and again, re-planting
                it through a descriptor on the real dir.
"""

import json
import os
import subprocess
import sys
import time

from safedel.core.trash import move
from safedel.trash import catalog, purge, restore

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
SWAP = """
import os, sys, time
root, theirs, stop = sys.argv[1:4]
away = root + ".away"
print("ready", flush=True)
while not os.path.exists(stop):
    try:
        os.rename(root, away)
        os.symlink(theirs, root)
        time.sleep(0.002)
        os.unlink(root)
        os.rename(away, root)
        time.sleep(0.002)
    except OSError:
        pass
"""


def safedel(*argv):
    done = subprocess.run(
        [sys.executable, "-m", "safedel", *argv], capture_output=True, text=True, timeout=60
    )
    return {"code": done.returncode, "out": done.stdout, "err": done.stderr}


def planted(m):
    os.makedirs(os.path.join(m, "data"))
    with open(os.path.join(m, "data", "data"), "w") as handle:
        handle.write("the user's data")
    script = f"""
    set -e
    mkdir -p {m}/.Trash-0/info
    ln -s {m}/data {m}/.Trash-0/files
    for name in '' . .. data; do
        printf '[Trash Info]\\nPath=data/data\\nDeletionDate=2030-01-01T00:00:00\\n' \\
            > "{m}/.Trash-0/info/$name.trashinfo"
    done
    """
    subprocess.run([*NOBODY, "sh", "-c", script], check=True)
    result = {
        "list": safedel("list", m),
        "purge": safedel("purge", m, "--yes"),
        "restore": safedel("restore", os.path.join(m, "data", "data"), "--overwrite"),
    }
    with open(os.path.join(m, "data", "data")) as handle:
        result["data"] = handle.read()
    result["theirs"] = sorted(os.listdir(os.path.join(m, ".Trash-0", "info")))
    return result


def swap(m, action):
    proj = os.path.join(m, "proj")
    os.makedirs(proj)
    junk = os.path.join(proj, "junk")
    with open(junk, "w") as handle:
        handle.write("JUNK")
    root = os.path.join(m, ".Trash-0")
    assert move.trash(junk).trash_path == os.path.join(root, "files", "junk")
    # The user's other trash on this mount (root made `.Trash`, sticky): their own
    # `junk`, from another folder, goes there.
    os.mkdir(os.path.join(m, ".Trash"), 0o1777)
    os.chmod(os.path.join(m, ".Trash"), 0o1777)
    os.makedirs(os.path.join(m, "mine"))
    precious = os.path.join(m, "mine", "junk")
    with open(precious, "w") as handle:
        handle.write("PRECIOUS")
    theirs = os.path.join(m, ".Trash", "0")
    kept = move.trash(precious).trash_path
    assert kept == os.path.join(theirs, "files", "junk"), kept
    (item,) = catalog.items([os.fsencode(root)])
    with open(os.path.join(root, "info", "junk.trashinfo"), "rb") as handle:
        info_bytes = handle.read()
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    stop = os.path.join(m, "stop")
    attacker = subprocess.Popen(
        [*NOBODY, sys.executable, "-I", "-c", SWAP, root, theirs, stop], stdout=subprocess.PIPE
    )
    outcome = {"done": 0, "refused": 0}
    try:
        assert attacker.stdout.readline() == b"ready\n"
        deadline = time.monotonic() + 20
        for _ in range(300):
            if time.monotonic() > deadline:
                break
            try:
                if action == "purge":
                    purge.purge_item(item)
                else:
                    restore.restore(item)
                    os.unlink(junk)  # what came back is the junk: the user drops it
                outcome["done"] += 1
            except OSError:
                outcome["refused"] += 1
            replant(root_fd, info_bytes)
    finally:
        open(stop, "w").close()
        attacker.wait(timeout=30)
        os.close(root_fd)
    with open(kept) as handle:
        outcome["home"] = handle.read()
    outcome["home_info"] = os.path.exists(os.path.join(theirs, "info", "junk.trashinfo"))
    return outcome


def replant(root_fd, info_bytes):
    for sub, name, data in (("files", "junk", b"JUNK"), ("info", "junk.trashinfo", info_bytes)):
        fd = os.open(sub, os.O_RDONLY | os.O_DIRECTORY, dir_fd=root_fd)
        try:
            out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600, dir_fd=fd)
            os.write(out, data)
            os.close(out)
        except FileExistsError:
            pass
        finally:
            os.close(fd)


def main(case, m):
    os.makedirs(m)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,mode=0777", "t", m], check=True)
    result = planted(m) if case == "planted" else swap(m, case.split("-", 1)[1])
    print(json.dumps(result))


if __name__ == "__main__":
    main(*sys.argv[1:])
