"""The mount cases, run as root inside a private mount namespace (unshare -m), so the
tmpfs they mount is seen by nobody else on the machine.

    python mountcase.py CASE MOUNTPOINT DATA_HOME

prints one JSON object with what happened. The attacker's steps run as uid 65534.
"""

import json
import os
import subprocess
import sys

from safedel.core import trash

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def nobody(script):
    subprocess.run([*NOBODY, "sh", "-c", script], check=True)


def trash_it(path, trash_dir=None):
    try:
        return {"ok": trash.trash(path, trash_dir).as_event()}
    except OSError as exc:
        return {"errno": exc.errno, "reason": getattr(exc, "reason", str(exc))}


def write(path, text):
    with open(path, "w") as handle:
        handle.write(text)


def foreign_shared_trash(m):
    """Another user's sticky world-writable $topdir/.Trash is never used."""
    nobody(f"mkdir -m 1777 {m}/.Trash")
    write(f"{m}/f", "mine")
    return {"first": trash_it(f"{m}/f"), "shared": sorted(os.listdir(f"{m}/.Trash"))}


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
    return {"first": first, "second": second, "theirs": os.listdir(f"{m}/theirs/files")}


def foreign_trash_dir(m):
    """--trash-dir naming someone else's world-writable directory is refused."""
    nobody(f"mkdir -m 777 {m}/tt {m}/tt/files {m}/tt/info")
    write(f"{m}/f", "mine")
    return {"result": trash_it(f"{m}/f", f"{m}/tt"), "theirs": os.listdir(f"{m}/tt/files")}


def foreign_listed(m):
    """A .Trash-0 made by uid 65534 is neither listed nor restored from."""
    nobody(
        f"mkdir -p {m}/.Trash-0/files {m}/.Trash-0/info && echo evil > "
        f"{m}/.Trash-0/files/Makefile.sh && printf '[Trash Info]\\nPath=proj/Makefile.sh\\n"
        f"DeletionDate=2030-01-01T00:00:00\\n' > {m}/.Trash-0/info/Makefile.sh.trashinfo"
    )
    os.mkdir(f"{m}/proj")

    def safedel(*argv):
        done = subprocess.run(
            [sys.executable, "-m", "safedel", *argv], capture_output=True, text=True, timeout=60
        )
        return {"code": done.returncode, "out": done.stdout, "err": done.stderr}

    return {
        "list": safedel("list", "--json"),
        "restore": safedel("restore", f"{m}/proj/Makefile.sh"),
        "planted": os.path.exists(f"{m}/proj/Makefile.sh"),
        "doctor": safedel("doctor", "--json"),
    }


if __name__ == "__main__":
    case, point = sys.argv[1], sys.argv[2]
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m,mode=0777", "t", point], check=True)
    print(json.dumps(globals()[case](point)))
