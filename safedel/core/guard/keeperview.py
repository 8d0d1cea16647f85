"""The run's guard keeper, as a process under the run sees it (Linux).

A command owns everything its processes can write: the turn's ledger included, since
it runs as the same user. So under `safedel run` (and `safedel serve`) the ledger is
only the request queue, and the verdict comes from the run's keeper
(safedel/executor/keeper.py): a thread of the run process that reads the ledger as it
grows and keeps the turn's state in its own memory, which the command cannot reach. A
process under the run appends its take as always, then waits until the keeper has read
that very line and published what it got (core/guard/keeperpost.py: where, and why a
command cannot stand in for the keeper). Whatever the command writes to the ledger, it
can only make the keeper refuse: a shrunk, rewritten or replaced ledger, or a line
safedel never writes, damages the turn; an approval the keeper did not make itself
never counts. A process bound to a run (its record found) that finds no keeper fails
closed.
"""

import os
import sys
import time

from ..private import digest
from .keeperpost import find, read
from .ledger import GuardError, damaged
from .rule import Decision

# A person may take their time over a question; a keeper that says nothing for this
# long about a take is wedged, and the take fails closed.
TAKE_DEADLINE = 60.0
TORN = "torn"


def for_settings(settings):
    """The keeper this process must ask ((pid, inode, chain)), None when it decides from
    the ledger itself; GuardError when it is bound to a run whose keeper it cannot find."""
    found = find()
    if found is None and settings.bound and sys.platform.startswith("linux"):
        raise GuardError(
            "the run's guard keeper is not among this process's ancestors, so nothing was deleted"
        )
    return found


def turn_key(settings):
    known = settings.digests or {}
    names = [known.get(value) or digest(value) for value in (settings.session, settings.turn)]
    return f"{names[0]}/{names[1]}"


# The keeper usually answers within a fraction of a millisecond: the first looks only
# yield the processor (a sleep, with the kernel's timer slack, costs more than the wait),
# then the pauses grow.
SPINS = 200


def _waiting(keeper, key, ready):
    """Poll the keeper until ready(view) gives something; a damaged turn fails closed."""
    deadline, pause, looks = time.monotonic() + TAKE_DEADLINE, 0.0001, 0
    while True:
        view = read(keeper, key)
        if view.damaged is not None:
            raise damaged(view.damaged)
        found = ready(view)
        if found is not None:
            return view, found
        looks += 1
        if looks < SPINS:
            os.sched_yield()
            continue
        if time.monotonic() > deadline:
            raise GuardError("the run's guard keeper did not answer, so nothing was deleted")
        time.sleep(pause)
        pause = min(pause * 2, 0.01)


def decide(keeper, settings, record, ledger_ino):
    """The keeper's Decision on the take record (already appended to the ledger of inode
    ledger_ino); None when the line was glued to a torn fragment (its writer takes
    again). A take the keeper read with another count or threshold was rewritten before
    it read it, and one appended to a ledger it does not read (a state dir moved by a
    rewritten record) would never be answered: both fail closed."""
    key, take_id = turn_key(settings), record["id"]

    def ready(view):
        if view.ino not in (0, ledger_ino):
            raise GuardError("this process writes to a ledger the run's keeper does not read")
        return view.verdict(take_id)

    view, found = _waiting(keeper, key, ready)
    verdict, granted, n, threshold = found
    if verdict == TORN:
        return None
    if (n, threshold) != (record["n"], record["t"]):
        raise damaged("a take was rewritten before the run's keeper read it")
    if verdict == "damaged":
        raise damaged(view.damaged or "the run's keeper found it damaged")
    return Decision(verdict, granted, min(threshold, view.threshold), view.mode, take_id)


def turn_view(keeper, settings):
    view = read(keeper, turn_key(settings))
    if view.damaged is not None:
        raise damaged(view.damaged)
    return view


def answer(keeper, settings, take_id):
    """The person's answer to the question asked for take_id (True, False), or None
    when the keeper cannot ask (no terminal, in the background)."""
    _view, found = _waiting(keeper, turn_key(settings), lambda view: view.answer(take_id))
    return None if found == "cannot" else found


def ask_person(keeper, settings, kind, payload):
    """Have the run's keeper ask the person at the run's terminal; True, False, or None
    when it cannot (no terminal there, the run in the background). An interruption
    while waiting (Ctrl-C) is a no, recorded as a reject before it goes on."""
    from . import turn

    ident = f"{os.getpid()}.{os.urandom(6).hex()}"
    turn.mark(settings, "ask", "shim", take=ident, kind=kind, payload=payload)
    try:
        return answer(keeper, settings, ident)
    except GuardError:
        raise
    except BaseException:
        if kind != "outsideWorkspace":
            turn.mark(settings, "reject", "prompt")
        raise
