"""Sessions: what OpenSession fixed, what the session's runs did, and the guard
questions waiting for the user's answer.

A session is shared by every connection that names it, so a harness may ask the user
on one connection and answer on another. Guard state itself lives on disk (the
ledger), so it survives the server; only `allow_session` lives here.
"""

import itertools
import os
import threading

from ..core.contract import settings as core_settings
from ..core.guard import ledger, rule, turn
from ..core.guard.outside import KIND as OUTSIDE
from ..core.policy import workspacefiles
from ..core.private import digest
from .protocol import ProtocolError

CHOICES = ("allow_once", "allow_session", "deny")


class Session:
    def __init__(self, session_id, roots, threshold, report):
        self.id = session_id
        self.digest = digest(session_id)
        self.roots = roots
        self.threshold = threshold
        self.report = report
        self.token_state_dir = None  # where the approval token was last recorded
        self.allow_all = False  # allow_session: later turns start approved
        self.stats = {"runs": 0, "trashed": 0, "refused": 0, "restored": 0, "outputBytes": 0}
        self.pending = {}  # request id -> (kind, env of the run that was refused)
        self.lock = threading.Lock()

    def count(self, key, amount=1):
        with self.lock:
            self.stats[key] += amount

    def describe(self):
        return {
            "sessionId": self.id,
            "workspaceRoots": self.roots,
            "threshold": self.threshold,
            "reportPath": self.report,
        }


_request_ids = itertools.count(1)


def ask(session, kind, env, payload=None):
    """Remember a guard question; its request id for the GuardRequest event."""
    request_id = f"g{next(_request_ids)}"
    with session.lock:
        session.pending[request_id] = (kind, env, payload)
    return request_id


def answer(session, choice, request_id=None, keeper=None):
    """Apply the user's choice to the turn that asked: approve or reject it. Through the
    server's guard keeper when it keeps the turn (a run of it is going), so that the
    approval counts at once: one the keeper did not make, it voids."""
    if choice not in CHOICES:
        raise ProtocolError(f"data.choice must be one of {', '.join(CHOICES)}")
    with session.lock:
        if request_id is None and session.pending:
            request_id = next(reversed(session.pending))
        found = session.pending.pop(request_id, None)
    if found is None:
        raise ProtocolError("no guard question is waiting for an answer")
    kind, env, payload = found
    settings = core_settings.load(env)
    if choice == "deny":
        op = "reject" if kind != OUTSIDE else None
    else:
        op = rule.APPROVE_OUTSIDE if kind == OUTSIDE else "approve"
        if choice == "allow_session" and kind == OUTSIDE:
            _add_folders(session, settings, (payload or {}).get("targets") or [])
        elif choice == "allow_session":
            session.allow_all = True
    if op is not None:
        try:
            if keeper is None or not keeper.mark_if_kept(settings, op, "serve"):
                turn.mark(settings, op, "serve")
        except ledger.GuardError as exc:
            raise ProtocolError(str(exc)) from None
    return {"requestId": request_id, "turn": settings.turn, "applied": op}


def _add_folders(session, settings, targets):
    """allow_session on an outside-workspace question: the folders the refused targets
    sit in join the session's workspace (in session scope, for `safedel workspace list`
    too), so later turns of the session delete there without asking."""
    folders = [os.path.dirname(t) for t in targets if os.path.isabs(t)]
    with session.lock:
        session.roots = [*session.roots, *(f for f in folders if f not in session.roots)]
    stored = workspacefiles.read_session(settings.state_dir, session.id)
    try:
        workspacefiles.write_session(
            settings.state_dir, session.id, [*stored, *(f for f in folders if f not in stored)]
        )
    except OSError:
        pass  # the in-memory roots still hold for this server's runs


def open_turn(session, env):
    """Approve a new turn up front when the user chose allow_session."""
    if session.allow_all:
        try:
            turn.mark(core_settings.load(env), "approve", "serve")
        except ledger.GuardError:
            pass  # the guard then asks again, which fails closed
