"""What every runtime does with a batch of deletions: guard, trash, report, markers.

A front end (the rm launcher, the Python shim, the PowerShell helper) first sorts its
operands the way its tool would (missing, not a directory, ...), splits off the exempt
ones, and hands the rest here as one batch.
"""

import errno
import json
import os
import time

from . import guard, markers, policy, prompt, report, trash
from .private import open_under
from .settings import warn_once


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


def authorize(settings, runtime, paths):
    """Take len(paths) from the turn's allowance, or raise Refused after signalling it."""
    if not paths:
        return
    targets = [absolute(p) for p in paths]
    while True:
        try:
            decision = guard.take(settings, len(targets))
        except guard.GuardError as exc:
            markers.emit(markers.GUARD_ERROR, {"message": str(exc)})
            _report_refusals(settings, runtime, targets, str(exc))
            raise Refused(f"the bulk guard failed, so nothing was deleted: {exc}") from None
        if decision.verdict == guard.ALLOW:
            return
        payload = {
            "count": decision.count,
            "threshold": decision.threshold,
            "scope": "turn",
            "targets": targets[: markers.MAX_TARGETS],
            "targetCount": len(targets),
        }
        if decision.verdict == guard.CONFIRM and prompt.can_prompt(settings):
            answer = prompt.ask(payload)
            if answer is not None:
                guard.mark(settings, "approve" if answer else "reject", "prompt")
                continue
        _refuse(settings, runtime, decision, payload, targets)


def _refuse(settings, runtime, decision, payload, targets):
    if decision.verdict == guard.REJECTED:
        kind, signal = markers.REJECTED, "rejected"
        reason = "this turn's bulk deletion was rejected"
    else:
        kind, signal = markers.CONFIRM_REQUIRED, "confirmRequired"
        reason = (
            f"bulk guard: {len(targets)} more would pass this turn's limit of "
            f"{decision.threshold} (already {decision.count}); "
            "run `safedel guard approve` to allow it"
        )
    markers.emit(kind, payload)
    write_signal(settings, {"type": signal, "payload": payload})
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


def signal_parts(session, key):
    return ["signals", guard.digest(session), guard.digest(key) + ".json"]


def write_signal(settings, signal):
    """Leave the refusal where a harness finds it: one file per tool call (or turn)."""
    signal = dict(signal, session=settings.session, turn=settings.turn)
    signal.update(toolCall=settings.tool_call, createdAt=int(time.time() * 1000))
    parts = signal_parts(settings.session, settings.tool_call or settings.turn)
    data = json.dumps(signal, ensure_ascii=True).encode("ascii")
    try:
        fd = open_under(settings.state_dir, parts, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
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
