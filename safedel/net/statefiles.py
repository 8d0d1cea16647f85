"""What the net lets delete for real in safedel's state directory, and nothing more.

The state directory holds what a run cannot be trusted to undo: the guard's ledgers,
approvals, run records, run pointers. A command that removes them resets its count or
forges its consent, so the net refuses every deletion there (EPERM and a marker, as
the rm shim refuses it), except the few that safedel's own shims and launchers make,
each known by its exact name (renames over a file are not deletions the net sees):

- the guard's pruning (core/guard/turn.py's prune, the Node shim's ledgerturn.cjs): a ledger or
  signal file `bulk-guard|signals/<session>/<name>` untouched for a day (by the later of mtime and
  ctime), and the emptied session directory once it too is a day old;
- a signal claimed by its reader (core/guard/signals.py's _claim):
  `signals/<session>/.<name>.<pid>.<hex>.taking`, pid the caller's own;
- a process's own run pointer when it ends (core/contract/runpointer.py's unpoint):
  `by-pid/<pid>-<start>`, pid the caller's own;
- the prompt's git link made aside (shells.promptgit): `prompt-git/<hash>/git.<pid>`,
  pid the caller's own.

The report and its rotated segments are judged like any path (see places).

Renames out of a name there are refused too (`mv approvals x` loses the record as
surely as rm), but for those safedel makes: a temporary file of an atomic write
(`*.<pid>.tmp`, `.<name>.<pid>.<hex>.tmp`; core/guard/signals.py,
core/policy/workspacefiles.py, the Node shim's audit.cjs), the prompt's git link made
aside, and a signal claimed by its reader. Renames onto a name there are writes, which
the net does not see.
"""

import os
import stat
import time

from ..core.contract import runpointer
from ..core.guard import ledger

KERNEL, REFUSE = "kernel", "refuse"


def verdict(path, state, caller_pid):
    """KERNEL or REFUSE for path (real, str) inside the state dir (state: its real path
    and a trailing '/'); caller_pid: the calling process (thread group) id."""
    parts = path[len(state) :].split(os.sep)
    if len(parts) == 2 and parts[0] == runpointer.BY_PID:
        return KERNEL if parts[1].partition("-")[0] == str(caller_pid) else REFUSE
    if len(parts) == 3 and parts[0] == "prompt-git":
        return KERNEL if parts[2] == f"git.{caller_pid}" else REFUSE
    if parts[0] not in (ledger.LEDGERS, ledger.SIGNALS) or len(parts) not in (2, 3):
        return REFUSE
    if len(parts) == 3 and parts[0] == ledger.SIGNALS and _claimed_by(parts[2], caller_pid):
        return KERNEL
    return KERNEL if _pruned(path, len(parts) == 2) else REFUSE


def may_rename(path, state, caller_pid):
    """Whether path (real, inside the state dir) may leave its name."""
    parts = path[len(state) :].split(os.sep)
    name = parts[-1]
    if name.endswith(".tmp") and f".{caller_pid}." in name:
        return True  # an atomic write's temporary file, renamed into place
    if len(parts) == 3 and parts[0] == "prompt-git":
        return name == f"git.{caller_pid}"
    return len(parts) == 3 and parts[0] == ledger.SIGNALS  # claimed by its reader


def _claimed_by(name, pid):
    if not (name.startswith(".") and name.endswith(".taking")):
        return False
    fields = name[: -len(".taking")].rsplit(".", 2)
    return len(fields) == 3 and fields[1] == str(pid)


def _pruned(path, is_session_dir):
    """Whether the guard's pruning would remove it now: untouched for PRUNE_AGE. Judged
    by the later of mtime and ctime: a command sets mtime back with touch, but no call
    sets ctime back, and touching mtime moves ctime to now."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    kind_ok = stat.S_ISDIR(st.st_mode) if is_session_dir else stat.S_ISREG(st.st_mode)
    return kind_ok and max(st.st_mtime, st.st_ctime) < time.time() - ledger.PRUNE_AGE
