"""What the guard stage (core/guard/stage.py) does with a batch the guard would refuse:
leave its regenerable targets uncounted, then refuse it whole with the marker, the
signal file and a `refuse` event per target. Loaded only for such a batch.
"""

from ..report import write
from . import ledger, remedy, rule, turn
from .stage import Refused


def without_regenerable(settings, targets, decision):
    """The decision once the batch's regenerable targets are left uncounted: they are
    looked for only now, when the batch would otherwise be refused."""
    from . import regenerable  # only for a batch the guard would refuse

    reasons = regenerable.classify(settings, targets)
    if not reasons:
        return decision
    # The refused take is taken back, so the turn reads as if only the counted part had
    # been asked for (a retry refused again is then the batch's one refusal).
    turn.mark(settings, rule.WITHDRAW, "regenerable", id=decision.take_id)
    counted = len(targets) - len(reasons)
    if counted:
        retry = ledger.take(settings, counted)
        if retry.verdict != rule.ALLOW:
            return retry
    else:
        retry = rule.Decision(rule.ALLOW, decision.count, decision.threshold, decision.state)
    regenerable.remember_uncounted(reasons)
    return retry


def refusal_payload(settings, decision, targets):
    from ..report import markers

    return {
        "count": decision.count,
        "threshold": decision.threshold,
        "scope": "turn",
        "targets": targets[: markers.MAX_TARGETS],
        "targetCount": len(targets),
        "session": settings.session,
        "turn": settings.turn,
    }


def refuse(settings, runtime, decision, targets, announce, answered=False):
    """Refuse the batch whole (raises Refused). answered: a person just said no at the
    terminal, so a terminal on stderr gets the one-line reason and no marker: the marker
    is for a harness, which finds the refusal in the signal file and the report too."""
    from ..report import markers

    if decision.verdict == rule.REJECTED:
        kind = markers.REJECTED
        reason = "bulk guard: this turn's bulk deletion was rejected; nothing was deleted"
    else:
        kind = markers.CONFIRM_REQUIRED
        reason = (
            f"bulk guard: {len(targets)} more would pass this turn's limit of "
            f"{decision.threshold} (already {decision.count}); nothing was deleted; "
            + remedy.bulk(settings)
        )
    if announce:
        announce(reason)
    payload = refusal_payload(settings, decision, targets)
    if not (answered and markers.to_a_terminal()):
        markers.emit(kind, payload)
    from .signals import write_signal

    write_signal(settings, decision.verdict, payload)
    report_refusals(settings, runtime, targets, reason)
    raise Refused(reason, targets[0] if len(targets) == 1 else None)


def report_refusals(settings, runtime, targets, reason):
    events = [
        write.event("refuse", settings, runtime, path=target, reason=reason) for target in targets
    ]
    try:
        write.append(settings.report, events)
    except OSError:
        pass
