"""What trash-cli's own `trash-list` and `safedel list --json` show under a directory.

The tests compare the two on every trash they fill. The mount cases call listings()
inside their private mount namespace, where the mount is visible to both, and hand
the result back to the test, which asserts with agreeing().
"""

import json
import os
import re
import shutil
import subprocess
import sys

# trash-list prints one `DATE TIME ORIGINAL-PATH` line per item (trash-cli 0.17 and 0.2x)
ENTRY = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) (.*)$")


def listings(directory, env=None):
    """{"trash_list", "safedel"}: sorted [date, original path] of every item under
    directory, as each shows it, and "skipped": trash-list's notes on trash dirs it
    skipped there."""
    under = os.path.join(directory, "")
    options = {"env": env, "capture_output": True, "text": True, "timeout": 60}
    shown = subprocess.run([shutil.which("trash-list") or "trash-list"], **options)
    theirs = [list(e.groups()) for e in map(ENTRY.match, shown.stdout.splitlines()) if e]
    ours = subprocess.run([sys.executable, "-m", "safedel", "list", "--json"], **options)
    return {
        "trash_list": sorted(e for e in theirs if e[1].startswith(under)),
        "skipped": [line for line in shown.stderr.splitlines() if under in line],
        "safedel": sorted(
            [e["deletionDate"].replace("T", " "), e["path"]]
            for e in json.loads(ours.stdout)
            if e["path"].startswith(under)
        ),
    }


def agreeing(listed):
    """{path: date} of the items both show: the same items, with the same dates."""
    assert listed["trash_list"] == listed["safedel"], listed
    return {path: date for date, path in listed["safedel"]}
