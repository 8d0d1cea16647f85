"""`safedel guard`: look at and decide a turn's bulk guard, and take its signal.

Every subcommand finds its turn the way the shims do (--turn, else SAFEDEL_TURN_FILE,
else SAFEDEL_TURN) and says which one it used: a long-lived process keeps the turn it
read at start-up, so the turn a deletion was counted in is worth showing.
"""

import json
import os
from typing import Annotated, Optional

import typer

from ..core.contract import settings
from ..core.guard import ledger, rule
from ..core.guard import turn as guardturn
from ..core.guard.signals import take_pending
from ..executor import approval
from ..shells import shellturns, turncheck

app = typer.Typer(
    name="guard",
    help="The per-turn bulk guard: status, approve, reject, reset, signal.",
    no_args_is_help=True,
)
Text = Optional[str]  # noqa: UP045 - typer reads the annotation at run time
Session = Annotated[Text, typer.Option(help="Session id (default: $SAFEDEL_SESSION).")]
Turn = Annotated[
    Text, typer.Option(help="Turn id (default: $SAFEDEL_TURN_FILE's content, or $SAFEDEL_TURN).")
]
StateDir = Annotated[Text, typer.Option(help="State directory (default: $SAFEDEL_STATE_DIR).")]
TokenFile = Annotated[
    Text, typer.Option(help="The approval token file that safedel run --approval-token-file made.")
]


class Target:
    """The (state dir, session, turn) a command acts on, and where the turn came from."""

    def __init__(self, session, turn, state_dir):
        environ = os.environ
        self.settings = settings.load(environ)
        self.state_dir = os.path.abspath(state_dir or self.settings.state_dir)
        self.session = session or self.settings.session
        self.turn = turn or self.settings.turn
        self.turn_source = "--turn" if turn else _turn_source(environ)

    def describe(self):
        return f"turn {self.turn!r} (from {self.turn_source}) of session {self.session!r}"


def _turn_source(environ):
    """Where settings.current_turn found the turn: the same order, said in words."""
    turn_file = environ.get("SAFEDEL_TURN_FILE")
    if turn_file:
        try:
            with open(turn_file, encoding="utf-8") as handle:
                if handle.read().strip():
                    return f"SAFEDEL_TURN_FILE {turn_file}"
        except (OSError, UnicodeDecodeError):
            pass  # settings.current_turn skipped it too
    if environ.get("SAFEDEL_TURN"):
        return "SAFEDEL_TURN"
    return "the default: neither SAFEDEL_TURN nor SAFEDEL_TURN_FILE is set"


def _fail(message):
    typer.echo(f"safedel guard: {message}", err=True)
    raise typer.Exit(1)


@app.command()
def status(
    session: Session = None,
    turn: Turn = None,
    state_dir: StateDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON object.")] = False,
) -> None:
    """Show the turn's count, threshold and state (open, approved or rejected)."""
    target = Target(session, turn, state_dir)
    try:
        state = guardturn.status(target.state_dir, target.session, target.turn)
    except ledger.GuardError as exc:
        _fail(f"{target.describe()}: {exc}")
    threshold = state.threshold or target.settings.threshold
    warning = None if turn else turncheck.problem()
    if as_json:
        result = {
            "session": target.session,
            "turn": target.turn,
            "turnSource": target.turn_source,
            "state": state.mode,
            "count": state.granted,
            "threshold": threshold,
            "takes": state.takes,
            "refused": state.refused,
            "outsideWorkspaceApproved": state.outside,
            "damaged": state.damaged,
        }
        if warning:
            result["warning"] = warning
        typer.echo(json.dumps(result, indent=2))
        return
    mode = state.mode if state.damaged is None else f"damaged ({state.damaged})"
    typer.echo(
        f"{target.describe()}: {state.granted} of {threshold} counted, {mode}; "
        f"{state.refused} of {state.takes} batches refused"
    )
    if warning:
        typer.echo(f"safedel guard: {warning}", err=True)


@app.command()
def approve(
    session: Session = None,
    turn: Turn = None,
    state_dir: StateDir = None,
    outside_workspace: Annotated[
        bool,
        typer.Option("--outside-workspace", help="Allow deletions outside the workspace instead."),
    ] = False,
    token_file: TokenFile = None,
) -> None:
    """Allow bulk deletion (or, with --outside-workspace, deletions outside the
    workspace) for the rest of the turn."""
    op = rule.APPROVE_OUTSIDE if outside_workspace else "approve"
    _mark(op, session, turn, state_dir, token_file)


@app.command()
def reject(
    session: Session = None,
    turn: Turn = None,
    state_dir: StateDir = None,
    token_file: TokenFile = None,
) -> None:
    """Refuse every further deletion the guard counts in the turn."""
    _mark("reject", session, turn, state_dir, token_file)


def _allowed(target, token_file, what, lifts):
    """Stop here, saying why, when this process may not decide for the user."""
    why = approval.refusal(target.state_dir, target.session, token_file, lifts=lifts)
    if why is not None:
        _fail(f"{what}: {why}")


def _mark(op, session, turn, state_dir, token_file):
    target = Target(session, turn, state_dir)
    lifts = op != "reject"
    _allowed(target, token_file, {"reject": "reject"}.get(op, "approve"), lifts)
    target.settings.state_dir = target.state_dir
    target.settings.session = target.session
    turns = [target.turn]
    following = shellturns.following(target, turn) if lifts else None
    if following is not None:
        turns.append(following)
    try:
        for each in turns:
            target.settings.turn = each
            guardturn.mark(target.settings, op, "cli")
    except ledger.GuardError as exc:
        _fail(f"{target.describe()}: {exc}")
    done = {rule.APPROVE_OUTSIDE: "approved deletions outside the workspace in"}.get(
        op, {"approve": "approved", "reject": "rejected"}.get(op, op)
    )
    if following is None:
        typer.echo(f"{done} {target.describe()}")
    else:
        typer.echo(f"{done} this command line and the next one: {shellturns.describe(target)}")


@app.command()
def reset(
    session: Session = None,
    turn: Annotated[Text, typer.Option(help="Forget only this turn.")] = None,
    state_dir: StateDir = None,
    whole_session: Annotated[
        bool, typer.Option("--all", help="Forget every turn of the session (the default).")
    ] = False,
    token_file: TokenFile = None,
) -> None:
    """Forget a turn (--turn), or every turn of the session (no --turn, or --all)."""
    if whole_session and turn:
        raise typer.BadParameter("give --turn or --all, not both", param_hint="--all")
    target = Target(session, turn, state_dir)
    _allowed(target, token_file, "reset", lifts=True)
    try:
        removed = guardturn.reset(target.state_dir, target.session, turn)
    except ledger.GuardError as exc:
        _fail(str(exc))
    what = target.describe() if turn else f"every turn of session {target.session!r}"
    typer.echo(f"reset {what} ({removed} ledger(s) removed)")


@app.command()
def signal(
    session: Session = None,
    turn: Turn = None,
    state_dir: StateDir = None,
    tool_call: Annotated[Text, typer.Option(help="The tool call whose signal to take.")] = None,
) -> None:
    """Print the pending refusal signal as JSON and delete it; exit 1 if none is pending."""
    target = Target(session, turn, state_dir)
    found = take_pending(target.state_dir, target.session, tool_call, target.turn)
    if found is None:
        what = f"tool call {tool_call!r}" if tool_call else target.describe()
        _fail(f"no pending signal for {what}")
    typer.echo(json.dumps(found))
