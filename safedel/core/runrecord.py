"""The record `safedel run` leaves for the processes it starts.

<state>/runs/<run id>/run.json holds the run's session, turn, tool call and threshold,
fixed when the run started. Shims under the run (SAFEDEL_RUN_ID) take these from the
record rather than from their environment, so a command that sets SAFEDEL_THRESHOLD or
SAFEDEL_TURN for itself still deletes under the run's values, and its deletions still
count in the run's turn. The record is read without following symlinks, like all
state; a command that edits it on purpose is beyond what safedel defends against.
"""

import os

from . import jsonl
from .private import open_dir, open_under

RUNS = "runs"
RECORD = "run.json"
FIELDS = ("session", "turn", "toolCall", "threshold")


def write(state_dir, run_id, values):
    """Create the run's record once (O_EXCL); OSError if it cannot be written."""
    with open_dir(state_dir, [RUNS, run_id]) as directory:
        fd = directory.open(RECORD, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        try:
            os.write(fd, jsonl.dumps(values).encode("ascii"))
        finally:
            os.close(fd)


# Records found, by (state dir, run id): a record is written once and never changes, and
# a shim reads its settings at every deletion.
_found = {}


def read(state_dir, run_id):
    """The run's record as a dict, or None when there is none (or it is damaged)."""
    if not run_id or os.sep in run_id or run_id in (".", ".."):
        return None
    key = (state_dir, run_id)
    if key in _found:
        return _found[key]
    try:
        fd = open_under(state_dir, [RUNS, run_id, RECORD], os.O_RDONLY, create_dirs=False)
        with os.fdopen(fd, "rb") as handle:
            record = jsonl.loads(handle.read(65536))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    _found[key] = record
    return record
