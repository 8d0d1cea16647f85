"""Retention: `retention`, `regenerable_retention` and `max_size` from the config file.

When either retention is set, `safedel run` starts one detached, low-priority `safedel
purge` pass after its command has finished, at most once a day (a stamp file under the
state dir), so the command and its exit are never delayed. All are off unless
configured.

`max_size` never purges anything by itself: a command that trashes 20 GB of junk would
otherwise push out the items a person wants back, and nothing in the trash says which
items are junk (the class and the command of an item are only in the report, which
any process of the user can write). Over it, `list` and `doctor` say so, naming the
setting, and `safedel purge --max-size` lists what a person may choose to let go.

The settings are read before the command starts and handed to the pass: the command
could write the config file (`max_size = "1"` empties the trash), and the pass runs
outside the net, after the command, where nothing would refuse it.
"""

import json
import os
import sys
import time

from ..core.contract import settings as core_settings

KEYS = ("retention", "regenerable_retention", "max_size")
DAY = 86400


def configured(environ=None):
    environ = os.environ if environ is None else environ
    # A shorter retention or a smaller max_size only from a file a person confirmed.
    config = core_settings.user_config(environ)
    values = {key: config.get(key) for key in KEYS}
    return {key: value for key, value in values.items() if value}


def parse(text):
    """The values maybe_start handed over (JSON); only the known keys, as text."""
    try:
        found = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(found, dict):
        return {}
    return {k: found[k] for k in KEYS if isinstance(found.get(k), str) and found[k]}


def due(state_dir, now=None):
    stamp = os.path.join(state_dir, "retention.stamp")
    now = time.time() if now is None else now
    try:
        return now - os.stat(stamp).st_mtime >= DAY
    except OSError:
        return True


def mark(state_dir, now=None):
    os.makedirs(state_dir, mode=0o700, exist_ok=True)
    stamp = os.path.join(state_dir, "retention.stamp")
    with open(stamp, "w"):
        pass
    now = time.time() if now is None else now
    os.utime(stamp, (now, now))


def maybe_start(state_dir, environ=None, values=None):
    """Start the day's retention pass in the background if it is configured and due.
    values: the settings as read before the command ran (configured() of that moment).
    Never raises and never waits."""
    try:
        values = configured(environ) if values is None else values
        if not passes(values) or not due(state_dir):
            return False
        mark(state_dir)
        import subprocess  # only on the day's one pass: safedel run's path stays lean

        env = dict(os.environ if environ is None else environ)
        env.pop("SAFEDEL_ACTIVE", None)
        env.pop("SAFEDEL_RUN_ID", None)  # the run is over: the pass is not its command
        subprocess.Popen(
            [sys.executable, "-m", "safedel", "purge", "--retention-pass"]
            + ["--retention-values", json.dumps(values)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
        return True
    except (OSError, ValueError):
        return False


def passes(values):
    """The purge passes the configured values stand for: [(older than, regenerable
    only)], each age as the text the config gave. max_size is none of them."""
    found = []
    if values.get("regenerable_retention"):
        found.append((values["regenerable_retention"], True))
    if values.get("retention"):
        found.append((values["retention"], False))
    return found


def over_max_size(total, values=None, environ=None):
    """What to tell a person when the trash holds more than max_size, naming the
    setting; None when it fits, or none is set."""
    text = (configured(environ) if values is None else values).get("max_size")
    if not text:
        return None
    from .health import human
    from .purge import parse_size

    try:
        limit = parse_size(text)
    except ValueError:
        return f"max_size = {text!r} in the config file is not a size"
    if total <= limit:
        return None
    return (
        f"the trash holds {human(total)}, over max_size = {text!r}: nothing is purged to "
        f"make room (it could be what you want back); see safedel purge --max-size {text} "
        "--dry-run, or purge --older-than"
    )
