"""The outside-workspace question: a deletion outside every workspace root.

Under `safedel run` (outside_workspace = "confirm") such a batch is refused whole, with
a SAFE_DELETE_OUTSIDE_WORKSPACE marker, an `outsideWorkspace` signal file and a `refuse`
event per target, until the turn is approved (`safedel guard approve
--outside-workspace`) or the folder joins the workspace. On a terminal it is a
question instead. With "allow" (the interactive shells' default) it is trashed.
"""

import os

from ..policy import exemptroot, workspace
from ..printable import printable
from . import rule

KIND = "outsideWorkspace"
QUESTION = "Allow deletions outside the workspace for the rest of this turn? [y/N] "
_prefixes = {}


def outside(targets, roots):
    """The targets (real paths, str) that lie in no workspace root."""
    prefixes = _prefixes.get(roots)
    if prefixes is None:
        trimmed = [r.rstrip(os.sep) or os.sep for r in roots]
        prefixes = _prefixes[roots] = tuple(r if r == os.sep else r + os.sep for r in trimmed)
    # A root itself is inside: compare the target with a separator added.
    return [t for t in targets if not (t + os.sep).startswith(prefixes)]


def _not_holding(targets, roots, exempt_roots):
    """Drop the temp dir's directories that hold a workspace root: `rm -rf /tmp/x` over
    a project at /tmp/x/proj is a workspace deletion (trashed, counted), not a question,
    as the deletion of what lay there was none before."""
    return [
        t
        for t in targets
        if not (workspace.nearest_exempt(t, exempt_roots) and workspace.holds_root(t, roots))
    ]


def describe(payload):
    from . import prompt

    lines = [f"safedel: this would trash {payload['targetCount']} item(s) outside the workspace:"]
    lines += [f"  {t!r}" for t in payload["targets"][: prompt.SHOWN_TARGETS]]
    if payload["targetCount"] > prompt.SHOWN_TARGETS:
        lines.append(f"  ... and {payload['targetCount'] - prompt.SHOWN_TARGETS} more")
    lines.append("  the workspace: " + ", ".join(repr(r) for r in payload["workspace"]))
    return "\n".join(lines) + "\n" + QUESTION


def check(settings, targets, refuse):
    """Let targets (real paths) through, or signal the refusal and call refuse(reason),
    which raises. A guard ledger that cannot be read fails closed (GuardError)."""
    if settings.outside_workspace == "allow" or not targets:
        return
    roots = workspace.root_paths(handed=settings.workspace_roots)
    found = outside(targets, roots)
    if found and settings.exempt:
        found = _not_holding(found, roots, exemptroot.real_paths(settings))
    if not found:
        return
    from . import ledger, turn  # only for targets outside the workspace

    keeper = ledger._keeper(settings)
    if keeper is not None:  # under a run: what its keeper holds, not what the file says
        from . import keeperview

        state = keeperview.turn_view(keeper, settings)
    else:
        state = turn.status(settings.state_dir, settings.session, settings.turn)
    if state.damaged is not None:
        raise ledger.damaged(state.damaged)
    if state.outside:
        return
    from ..report import markers
    from . import prompt  # only for targets outside the workspace

    payload = {
        "targets": found[: markers.MAX_TARGETS],
        "targetCount": len(found),
        "workspace": list(roots),
        "session": settings.session,
        "turn": settings.turn,
    }
    answer = interrupted = None
    if prompt.can_prompt(settings) and keeper is not None:
        if state.can_ask:  # the keeper asks, and records a yes itself
            from .keeperview import ask_person

            answer = ask_person(keeper, settings, KIND, payload)
        if answer:
            return
    elif prompt.can_prompt(settings):
        try:
            answer = prompt.ask(payload, describe(payload))
        except prompt.Interrupted as stop:
            answer, interrupted = False, stop
        if answer:
            turn.mark(settings, rule.APPROVE_OUTSIDE, "prompt")
            return
    # A name can hold a newline and a whole fake marker line: shown escaped, never raw.
    first = printable(found[0])
    first = first if len(found) == 1 else f"{first} and {len(found) - 1} more"
    from .remedy import outside as remedy  # only on a refusal

    reason = (
        f"outside the workspace: {first} is in no workspace folder; nothing was deleted; "
        + remedy(settings)
    )
    # A person who just said no at the terminal reads the one-line reason, not JSON.
    if not (answer is not None and markers.to_a_terminal()):
        markers.emit(markers.OUTSIDE_WORKSPACE, payload)
    from .signals import write_signal  # only on a refusal

    write_signal(settings, KIND, payload)
    try:
        refuse(reason)
    finally:
        if interrupted is not None:
            interrupted.go_on()
