"""What every runtime does with a batch of deletions: guard, trash, report, markers.

A front end (the rm launcher, the Python shim, the PowerShell helper) first sorts its
operands the way its tool would (missing, not a directory, ...), splits off the exempt
ones, and hands the rest here as one batch.
"""

import errno
import os

from . import guard, markers, policy, prompt, report, trash
from .settings import warn_once
from .signals import write_signal


class Refused(OSError):
    """The batch was refused whole; nothing in it was touched. Carries EPERM."""

    def __init__(self, message, path=None):
        super().__init__(errno.EPERM, message, path)
        self.message = message


def absolute(path):
    """The absolute str form of path (str, bytes or PathLike), trailing slashes kept off."""
    raw, _ = trash.split_trailing_slash(os.fsencode(path))
    return os.fsdecode(os.path.abspath(raw))


def split_exempt(settings, paths):
    """(exempt, guarded): exempt paths are deleted for real and never counted."""
    exempt, guarded = [], []
    for path in paths:
        (exempt if policy.is_exempt(absolute(path), settings.exempt) else guarded).append(path)
    return exempt, guarded


def authorize(settings, runtime, paths, announce=None):
    """Take len(paths) from the turn's allowance, or raise Refused after signalling it.

    A refusal prints the marker, leaves the signal file, reports a `refuse` event per
    target and raises Refused (EPERM). A launcher passes announce, which prints the
    refusal's one-line reason its own way: it comes first on stderr, before the marker
    a harness parses.
    """
    if not paths:
        return
    targets = [absolute(p) for p in paths]
    try:
        decision = guard.take(settings, len(targets))
        if decision.verdict == guard.CONFIRM and prompt.can_prompt(settings):
            answer = prompt.ask(_payload(settings, decision, targets))
            if answer is not None:
                guard.mark(settings, "approve" if answer else "reject", "prompt")
                decision = guard.take(settings, len(targets))
    except guard.GuardError as exc:
        reason = f"the bulk guard failed, so nothing was deleted: {exc}"
        if announce:
            announce(reason)
        markers.emit(markers.GUARD_ERROR, {"message": str(exc)})
        write_signal(settings, "guardError", {"message": str(exc)})
        _report_refusals(settings, runtime, targets, reason)
        raise Refused(reason, targets[0] if len(targets) == 1 else None) from None
    if decision.verdict != guard.ALLOW:
        _refuse(settings, runtime, decision, targets, announce)


def _payload(settings, decision, targets):
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
    if decision.verdict == guard.REJECTED:
        kind = markers.REJECTED
        reason = "bulk guard: this turn's bulk deletion was rejected; nothing was deleted"
    else:
        kind = markers.CONFIRM_REQUIRED
        reason = (
            f"bulk guard: {len(targets)} more would pass this turn's limit of "
            f"{decision.threshold} (already {decision.count}); nothing was deleted; "
            "run `safedel guard approve` to allow it"
        )
    if announce:
        announce(reason)
    payload = _payload(settings, decision, targets)
    markers.emit(kind, payload)
    write_signal(settings, decision.verdict, payload)
    _report_refusals(settings, runtime, targets, reason)
    raise Refused(reason, targets[0] if len(targets) == 1 else None)


def _report_refusals(settings, runtime, targets, reason):
    events = [
        report.event("refuse", settings, runtime, path=target, reason=reason) for target in targets
    ]
    try:
        report.append(settings.report, events)
    except OSError:
        pass


def trash_one(settings, runtime, path):
    """Trash an authorized path and report it. A TrashFailure is signalled, then raised."""
    try:
        record = trash.trash(path, settings.trash_dir)
    except trash.TrashFailure as exc:
        markers.emit(markers.FAIL_CLOSED, {"path": absolute(path), "reason": exc.reason})
        _report_refusals(settings, runtime, [absolute(path)], exc.reason)
        raise
    try:
        report.append(
            settings.report, [report.event("trash", settings, runtime, **record.as_event())]
        )
    except OSError as exc:
        # The item is safe in the trash; only the audit line is missing.
        warn_once(f"cannot write the report {settings.report}: {exc.strerror or exc}")
    return record


def protected(path):
    return policy.protected_reason(absolute(path))
