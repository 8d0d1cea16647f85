"""The guard stage of the deletion pipeline: take a batch from the turn's allowance,
or refuse it whole (marker, signal file, `refuse` events) with Refused."""

import errno

from . import guard, outside, report
from .outcome import DeletionError


class Refused(DeletionError):
    """The batch was refused whole; nothing in it was touched. Carries EPERM."""

    def __init__(self, message, path=None):
        super().__init__(errno.EPERM, message, path)


def _shown(path):
    shown = getattr(path, "shown", None)
    if shown is not None:
        return shown
    from .deletion import absolute

    return absolute(path)


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
        report_refusals(settings, runtime, targets, reason)
        raise Refused(reason, targets[0] if len(targets) == 1 else None)

    try:
        outside.check(settings, targets, refuse_outside)
        decision = guard.take(settings, len(targets))
        if decision.verdict != guard.ALLOW:
            decision = _without_regenerable(settings, targets, decision)
        if decision.verdict == guard.CONFIRM and _prompt().can_prompt(settings):
            answer = _prompt().ask(_payload(settings, decision, targets))
            if answer is not None:
                guard.mark(settings, "approve" if answer else "reject", "prompt")
                decision = guard.take(settings, len(targets))
    except guard.GuardError as exc:
        reason = f"the bulk guard failed, so nothing was deleted: {exc}"
        if announce:
            announce(reason)
        from . import markers

        markers.emit(markers.GUARD_ERROR, {"message": str(exc)})
        from .signals import write_signal

        write_signal(settings, "guardError", {"message": str(exc)})
        report_refusals(settings, runtime, targets, reason)
        raise Refused(reason, targets[0] if len(targets) == 1 else None) from None
    if decision.verdict != guard.ALLOW:
        _refuse(settings, runtime, decision, targets, announce)


def _prompt():
    from . import prompt  # only for a batch the guard holds back

    return prompt


def _without_regenerable(settings, targets, decision):
    """The decision once the batch's regenerable targets are left uncounted: they are
    looked for only now, when the batch would otherwise be refused."""
    from . import regenerable  # only for a batch the guard would refuse

    reasons = regenerable.classify(settings, targets)
    if not reasons:
        return decision
    # The refused take is taken back, so the turn reads as if only the counted part had
    # been asked for (a retry refused again is then the batch's one refusal).
    guard.mark(settings, guard.WITHDRAW, "regenerable", id=decision.take_id)
    counted = len(targets) - len(reasons)
    if counted:
        retry = guard.take(settings, counted)
        if retry.verdict != guard.ALLOW:
            return retry
    else:
        retry = guard.Decision(guard.ALLOW, decision.count, decision.threshold, decision.state)
    regenerable.remember_uncounted(reasons)
    return retry


def _payload(settings, decision, targets):
    from . import markers

    return {
        "count": decision.count,
        "threshold": decision.threshold,
        "scope": "turn",
        "targets": targets[: markers.MAX_TARGETS],
        "targetCount": len(targets),
        "session": settings.session,
        "turn": settings.turn,
    }


def _refuse(settings, runtime, decision, targets, announce):
    from . import markers

    if decision.verdict == guard.REJECTED:
        kind = markers.REJECTED
        reason = "bulk guard: this turn's bulk deletion was rejected; nothing was deleted"
    else:
        kind = markers.CONFIRM_REQUIRED
        reason = (
            f"bulk guard: {len(targets)} more would pass this turn's limit of "
            f"{decision.threshold} (already {decision.count}); nothing was deleted; "
            + markers.approve_hint("run `safedel guard approve` to allow it")
        )
    if announce:
        announce(reason)
    payload = _payload(settings, decision, targets)
    markers.emit(kind, payload)
    from .signals import write_signal

    write_signal(settings, decision.verdict, payload)
    report_refusals(settings, runtime, targets, reason)
    raise Refused(reason, targets[0] if len(targets) == 1 else None)


def report_refusals(settings, runtime, targets, reason):
    events = [
        report.event("refuse", settings, runtime, path=target, reason=reason) for target in targets
    ]
    try:
        report.append(settings.report, events)
    except OSError:
        pass
