"""The one deletion pipeline every Python-side front end goes through.

    resolve -> protected -> location class -> guard -> trash or real delete -> report

A front end (the rm/rmdir/unlink/find launchers, the Python shim, the PowerShell
helper) first sorts its operands the way its tool would (missing, not a directory,
prompts ...), then:

    target = deletion.judge(settings, path)          # resolve, protected?, classify
    if target.klass == deletion.PROTECTED:
        raise deletion.refuse(settings, runtime, target)   # marker + `refuse` event
    deletion.authorize(settings, runtime, [t for t in targets if t.klass == TRASH])
    outcome = deletion.carry_out(settings, runtime, target)  # or raises DeletionError

or, when it has nothing of its own to interleave, `deletion.delete(...)` runs all of
it over a batch and returns one Outcome per operand. Every refusal or failure is an
outcome.DeletionError (`.reason`, `.errno`): Refused (the guard), TrashFailure (no
usable trash), RemovalError (a real delete that stopped).

Targets are judged where the kernel puts them (core.resolve), so a symlink or `..` in
an operand can neither make project files look exempt nor write a wrong `Path=`.
classify() is the single place that decides a target's location class.
"""

import errno
import os
import sys

from . import resolve
from .contract.settings import warn_once
from .guard.stage import Refused, authorize
from .outcome import DeletionError, Outcome
from .policy import churn, exemptroot, targets, workspace
from .report import write
from .trash import move

PROTECTED, EXEMPT, TRASH = "protected", "exempt", "trash"
__all__ = ["DeletionError", "Outcome", "Refused", "authorize", "judge", "classify", "delete"]


def judge(settings, path, dir_fd=None):
    """Resolve path and decide its class: target.klass is PROTECTED (target.reason says
    why), EXEMPT or TRASH. Raises OSError when the kernel can't reach its parent."""
    target = path if isinstance(path, resolve.Target) else resolve.resolve(path, dir_fd)
    # A run's file that differs from what its keeper holds (core/contract/keptrecord.py):
    # nothing under that run is deleted, and the reason names the file.
    target.reason = settings.tampered or targets.target_protected(target)
    target.klass = PROTECTED if target.reason else classify(target, settings)
    if not settings.exempt or not _reaches_exempt(target.parent, settings):
        resolve.remember(target)
    return target


def _reaches_exempt(directory, settings):
    """Whether directory (real bytes) is an exempt root or lies inside one."""
    shown = os.fsdecode(directory)
    roots = exemptroot.real_paths(settings)
    return any(exemptroot.depth(shown, root) is not None for root in roots)


def classify(target, settings):
    """The class of a target that is not protected: its location's (_location), save
    that short-lived churn born in this turn (core/policy/churn.py) is EXEMPT."""
    klass = _location(target, settings)
    if klass == TRASH and churn.short_lived(target, settings):
        return EXEMPT
    return klass


def _location(target, settings):
    """The location class of a target that is not protected: EXEMPT (deleted for real,
    never counted) or TRASH. A target inside a workspace root is TRASH even in the temp
    dir; one outside every workspace root is TRASH too, and the guard stage puts the
    outside-workspace question for it (core.outside). So is one inside safedel's own
    trash or state (core.kept) in the temp dir. An exempt directory holding a workspace
    root is TRASH, in one rename and without the question (core.outside); one that is or
    holds a kept root is PROTECTED (target.reason says why). An exempt root is the very
    directory it was when the run started (core/policy/exemptroot.py)."""
    if not settings.exempt:
        return TRASH
    exempt_roots = exemptroot.real_paths(settings)
    if workspace.nearest_exempt(target.shown, exempt_roots) is None:
        return TRASH  # the commonest case: nothing exempt to weigh
    from .policy import kept  # only for a target in an exempt root

    roots = workspace.root_paths(handed=settings.workspace_roots)
    kept_roots = kept.roots(settings, exempt_roots)
    held = kept.held(target.shown, kept_roots) if kept_roots else None
    if held is not None:
        target.reason = kept.refusal(target.shown, held)
        return PROTECTED
    where = workspace.location(target.shown, roots, exempt_roots, kept_roots)
    if where != workspace.EXEMPT:
        return TRASH
    inner = workspace.inner_roots(roots, exempt_roots)
    if inner and workspace.holds_root(target.shown, inner):
        return TRASH
    return EXEMPT if exemptroot.holds(target, settings) else TRASH


def refuse(settings, runtime, target, announce=None):
    """Signal a protected target (marker, `refuse` event); return the error to raise."""
    if announce:
        announce(target.reason)
    from .guard.refusal import report_refusals
    from .report.markers import FAIL_CLOSED, emit  # only on a refusal

    emit(FAIL_CLOSED, {"path": target.shown, "reason": target.reason})
    report_refusals(settings, runtime, [target.shown], target.reason)
    return DeletionError(errno.EPERM, target.reason, target.shown)


def carry_out(settings, runtime, target):
    """Delete an authorized, judged target for real (EXEMPT) or trash it (TRASH).
    Returns the Outcome; raises DeletionError (or OSError from the trash) on failure."""
    if target.klass == EXEMPT:
        from .trash import realdelete  # exempt paths only

        realdelete.remove(target)
        return Outcome(target, "deleted")
    if target.klass != TRASH:
        raise DeletionError(errno.EPERM, target.reason or "refused", target.shown)
    if target.via_link and target.st is not None:
        return Outcome(target, "trashed", _trash_link_contents(settings, runtime, target))
    return Outcome(target, "trashed", trash_one(settings, runtime, target))


def _trash_link_contents(settings, runtime, target):
    """`link/` names the directory the link leads to: its entries go to the trash one by
    one, and then, as rmdir("link/") would, the link itself stays (ENOTDIR)."""
    try:
        names = os.listdir(target.path)
    except OSError as exc:
        raise DeletionError(exc.errno, exc.strerror, target.shown) from None
    for name in names:
        trash_one(settings, runtime, resolve.resolve(os.path.join(target.path, name)))
    raise DeletionError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), os.fsdecode(target.given))


def trash_one(settings, runtime, path):
    """Trash an authorized path (or Target) and report it. A TrashFailure is signalled
    (marker, `refuse` event), then raised."""
    try:
        home = settings.home_trash and os.fsencode(settings.home_trash)
        record = move.trash(path, settings.trash_dir, home)
    except move.TrashFailure as exc:
        shown = resolve.absolute(path)
        if exc.errno == errno.ENOENT and not os.path.lexists(shown):
            # Gone meanwhile (`rm -f x x`, a racing cleanup): the tool's own ENOENT, as
            # the real tool would meet it; nothing stayed in place, so no marker.
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), shown) from None
        if exc.errno == errno.EPERM and _pinned(shown):
            # chattr +i/+a: the real tool's unlink fails the same way; nothing changed.
            raise PermissionError(errno.EPERM, os.strerror(errno.EPERM), shown) from None
        from .guard.refusal import report_refusals
        from .report.markers import FAIL_CLOSED, emit

        emit(FAIL_CLOSED, {"path": shown, "reason": exc.reason})
        report_refusals(settings, runtime, [shown], exc.reason)
        raise
    fields = record.as_event()
    # Set aside by the guard stage, which imports regenerable only when it needs it.
    # Another thread may be importing it right now: a module still without its table
    # has set nothing aside yet.
    regenerable = sys.modules.get(__name__.rpartition(".")[0] + ".guard.regenerable")
    uncounted = getattr(regenerable, "uncounted", None)
    why = uncounted.pop(resolve.absolute(path), None) if uncounted is not None else None
    if why is not None:
        fields.update(counted=False, why=why)
    try:
        write.append(settings.report, [write.event("trash", settings, runtime, **fields)])
    except OSError as exc:
        # The item is safe in the trash; only the audit line is missing.
        warn_once(f"cannot write the report {settings.report}: {exc.strerror or exc}")
    from .trash import orphans  # only once something was trashed

    orphans.after_trash(record.trash_path, settings.state_dir)
    return record


def _pinned(shown):
    """Whether the entry at shown, or its directory, has chattr +i or +a."""
    from .removable import pinned

    try:
        parent = os.path.dirname(shown) or "."
        return pinned(shown, os.lstat(shown)) or pinned(parent, os.stat(parent))
    except OSError:
        return False


def delete(settings, runtime, paths, announce=None):
    """The whole pipeline over one batch: one Outcome per path, in order. Protected
    and unreachable paths are refused one by one; the rest is guarded as one batch,
    and a guard refusal refuses every TRASH target in it."""
    outcomes, judged = [], []
    for path in paths:
        try:
            target = judge(settings, path)
        except OSError as exc:
            outcomes.append(Outcome(path, "failed", error=_as_error(exc, path)))
            continue
        if target.klass == PROTECTED:
            outcomes.append(Outcome(target, "refused", error=refuse(settings, runtime, target)))
        else:
            judged.append(target)
            outcomes.append(None)
    try:
        authorize(settings, runtime, [t for t in judged if t.klass == TRASH], announce)
    except Refused as exc:
        refused = exc
    else:
        refused = None
    slots = iter(judged)
    for index, outcome in enumerate(outcomes):
        if outcome is not None:
            continue
        target = next(slots)
        if refused is not None and target.klass == TRASH:
            outcomes[index] = Outcome(target, "refused", error=refused)
            continue
        try:
            outcomes[index] = carry_out(settings, runtime, target)
        except OSError as exc:
            outcomes[index] = Outcome(target, "failed", error=_as_error(exc, target.shown))
    return outcomes


def _as_error(exc, path):
    if isinstance(exc, DeletionError):
        return exc
    reason = getattr(exc, "reason", None) or exc.strerror or str(exc)
    return DeletionError(exc.errno, reason, os.fsdecode(os.fspath(path)))


def split_exempt(settings, paths):
    """(exempt, guarded) for plain paths, judged by the pipeline's classify()."""
    exempt, guarded = [], []
    for path in paths:
        target = resolve.resolve_or_none(path)
        klass = judge(settings, target).klass if target is not None else TRASH
        (exempt if klass == EXEMPT else guarded).append(path)
    return exempt, guarded


def protected(path):
    target = resolve.resolve_or_none(path)
    return targets.target_protected(target) if target is not None else None
