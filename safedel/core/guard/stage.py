"""The guard stage of the deletion pipeline: take a batch from the turn's allowance,
or refuse it whole (marker, signal file, `refuse` events: core/guard/refusal.py, loaded
only then) with Refused."""

import errno

from .. import resolve
from ..outcome import DeletionError
from . import ledger, outside, rule


class Refused(DeletionError):
    """The batch was refused whole; nothing in it was touched. Carries EPERM."""

    def __init__(self, message, path=None):
        super().__init__(errno.EPERM, message, path)


def _shown(path):
    shown = getattr(path, "shown", None)
    if shown is not None:
        return shown
    return resolve.absolute(path)


def authorize(settings, runtime, paths, announce=None):
    """Take len(paths) (paths or resolve.Targets) from the turn's allowance, or raise
    Refused after signalling it.

    A refusal prints the marker, leaves the signal file, reports a `refuse` event per
    target and raises Refused (EPERM). A launcher passes announce, which prints the
    refusal's one-line reason its own way: it comes first on stderr, before the marker
    a harness parses.
    """
    if not paths:
        return
    targets = [_shown(p) for p in paths]

    def refuse_outside(reason):
        if announce:
            announce(reason)
        _refusal().report_refusals(settings, runtime, targets, reason)
        raise Refused(reason, targets[0] if len(targets) == 1 else None)

    answered = interrupted = None
    try:
        outside.check(settings, targets, refuse_outside)
        decision = ledger.take(settings, len(targets))
        if decision.verdict != rule.ALLOW:
            decision = _refusal().without_regenerable(settings, targets, decision)
        if decision.verdict == rule.CONFIRM and _prompt().can_prompt(settings):
            payload = _refusal().refusal_payload(settings, decision, targets)
            keeper = ledger._keeper(settings)
            if keeper is not None:  # under a run its keeper asks, and records the answer
                answered = _keeper_asks(keeper, settings, rule.CONFIRM, payload)
            else:
                try:
                    answered = _prompt().ask(payload)
                except _prompt().Interrupted as stop:
                    answered, interrupted = False, stop  # Ctrl-C is a no, recorded as one
                if answered is not None:
                    from .turn import mark  # only once a person has answered

                    mark(settings, "approve" if answered else "reject", "prompt")
            if answered is not None:
                decision = ledger.take(settings, len(targets))
    except ledger.GuardError as exc:
        reason = f"the bulk guard failed, so nothing was deleted: {exc}"
        if announce:
            announce(reason)
        from ..report import markers

        markers.emit(markers.GUARD_ERROR, {"message": str(exc)})
        from .signals import write_signal

        write_signal(settings, "guardError", {"message": str(exc)})
        _refusal().report_refusals(settings, runtime, targets, reason)
        raise Refused(reason, targets[0] if len(targets) == 1 else None) from None
    if interrupted is not None:
        try:
            _refusal().refuse(settings, runtime, decision, targets, announce, answered=True)
        finally:
            interrupted.go_on()
    if decision.verdict != rule.ALLOW:
        _refusal().refuse(settings, runtime, decision, targets, announce, answered is not None)


def _keeper_asks(keeper, settings, kind, payload):
    from . import keeperview

    if not keeperview.turn_view(keeper, settings).can_ask:
        return None
    return keeperview.ask_person(keeper, settings, kind, payload)


def _prompt():
    from . import prompt  # only for a batch the guard holds back

    return prompt


def _refusal():
    from . import refusal  # only for a batch the guard holds back or refuses

    return refusal
