"""Approvals that a command cannot give itself.

The bulk guard exists so that a person agrees to a bulk deletion. A model that reads
"run `safedel guard approve`" in an error and does it is not an attacker, it is the
ordinary case, so:

- inside a command that `safedel run` or `safedel serve` started, `safedel guard
  approve|reject|reset` refuse, and so do the other commands by which a command could
  serve itself (`workspace add|remove`, `purge`, `serve`: see refuse_inside). Under
  the net "inside" is the filter's canary (net/canary.py), which no process under it
  can shed, not with a new pid namespace, a double fork or an emptied environment.
  Without the net:
  SAFEDEL_RUN_ID is set, or a `safedel run` process is among its ancestors
  (core/contract/runpointer.py; a plain run is a child subreaper, so orphans of the command stay
  among its descendants while it runs). Inside a run even the token below approves
  nothing;
- a harness can bind its session's approvals to a secret: `safedel run
  --approval-token-file F` creates F (0600, a random token) unless it exists, and
  records the token's SHA-256 for the session under <state>/approvals/. From then on
  approve, reject and reset of that session need `--token-file F`, outside any run.
  The token is never put in the command's environment;
- outside any run, approve and reset (what lifts the guard; a reject only tightens it)
  come from a person or from a harness's token: without the right token they refuse
  under an agent host (the command is the agent's, whatever terminal it has) and when
  stdin is not a terminal (a script, or a model's tool call). What they say names no
  command or option under an agent host: the reader there is the model.
"""

import errno
import hashlib
import hmac
import os

from ..core.private import digest, open_under

APPROVALS = "approvals"
TOKEN_BYTES = 32
INSIDE_A_RUN = (
    "approval must come from the user, not from a command that safedel run started; "
    "the user approves through the harness"
)
# What refuse_inside says. It speaks to the person reading the harness's log, and
# tells the command nothing to try: no other command, option or place.
USER_ONLY = "{what} is the user's decision, not a command's that safedel run started"


class TokenError(OSError):
    pass


def ensure_token(path):
    """The token in path, creating the file (0600) with a new one if it is missing."""
    token = os.urandom(TOKEN_BYTES).hex()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return read_token(path)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(token + "\n")
    return token


def read_token(path):
    with open(path, encoding="ascii", errors="replace") as handle:
        token = handle.read(4 * TOKEN_BYTES).strip()
    if len(token) != 2 * TOKEN_BYTES or not all(c in "0123456789abcdef" for c in token):
        raise TokenError(errno.EINVAL, "not an approval token file", path)
    return token


def _hash(token):
    return hashlib.sha256(token.encode("ascii")).hexdigest()


def record(state_dir, session, token):
    fd = open_under(state_dir, [APPROVALS, digest(session)], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(_hash(token) + "\n")


def required(state_dir, session):
    """The recorded token hash of the session, or None if it has none."""
    try:
        fd = open_under(state_dir, [APPROVALS, digest(session)], os.O_RDONLY, create_dirs=False)
    except OSError:
        return None
    with os.fdopen(fd, encoding="ascii", errors="replace") as handle:
        return handle.read(200).strip() or None


AGENT = (
    "approval is the user's decision, not the agent's: ask the user, who approves from a "
    "terminal of their own or through the harness"
)
NO_TERMINAL = (
    "approval must come from a person: stdin is not a terminal, so run `safedel guard "
    "approve` at a terminal, or give the harness's approval token (--token-file)"
)


def refusal(state_dir, session, token_file, environ=None, lifts=False):
    """Why this process may not approve, reject or reset the session; None if it may.
    lifts: the decision lifts the guard (approve, reset), so only a person or the
    harness's token may make it."""
    environ = os.environ if environ is None else environ
    if inside_a_run(state_dir, environ):
        # Whatever token it shows: a command may have found the file, or bound the
        # session to a token of its own with a nested `safedel run --approval-token-file`.
        return INSIDE_A_RUN
    by_a_model = _agent_host(environ)
    wanted = required(state_dir, session)
    if token_file:
        try:
            given = _hash(read_token(token_file))
        except OSError as exc:
            return f"cannot read the approval token {token_file}: {exc.strerror or exc}"
        if wanted is None or not hmac.compare_digest(given, wanted):
            return "the approval token does not match"
        return None
    if wanted is not None:
        if by_a_model:
            return AGENT
        return "this session's approvals need the harness's approval token (--token-file)"
    if lifts and by_a_model:
        return AGENT
    if lifts and not _stdin_is_a_terminal():
        return NO_TERMINAL
    return None


def _agent_host(environ):
    from ..core.contract import host

    return host.detect(environ, interactive=False).kind == "agent"


def _stdin_is_a_terminal():
    try:
        return os.isatty(0)
    except OSError:
        return False


def inside_a_run(state_dir, environ):
    from ..core.contract.runpointer import enclosing

    if _under_net():
        return True
    found = enclosing()
    return bool(environ.get("SAFEDEL_RUN_ID")) or found is not None


def refuse_inside(what, environ=None):
    """The refusal for a command that serves itself (widens its workspace, purges the
    trash): a message when this process runs inside a run, else None."""
    environ = os.environ if environ is None else environ
    if inside_a_run(None, environ):
        return USER_ONLY.format(what=what)
    return None


def _under_net():
    from ..net.canary import under_net

    return under_net()
