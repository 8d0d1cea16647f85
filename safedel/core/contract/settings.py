"""The environment contract and the config file, read into one Settings value.

Every runtime (the rm launcher, the Python shim, the CLI) reads its settings here, at
call time, so a process that changes its environment is seen as it is now.
"""

import os
import sys

from . import caches, exemptids

DEFAULT_THRESHOLD = 50
_OPTIONAL = ("run", "digests", "bound", "home_trash", "exempt_ids", "tampered", "git")
MAX_THRESHOLD = 99999
_warned = set()


class Settings:
    __slots__ = (
        "active",
        "session",
        "turn",
        "tool_call",
        "state_dir",
        "report",
        "threshold",
        "trash_dir",
        "exempt",
        "exempt_ids",
        "prompt",
        "outside_workspace",
        "workspace_roots",
        "turn_start",
        "run",
        "digests",
        "bound",
        "home_trash",
        "tampered",
        "git",
    )

    def __init__(self, **values):
        for name in self.__slots__:
            # run: the `safedel run` this process is under, if any (report events and
            # guard signals carry it); digests: {value: sha256 digest} the run computed
            # for its session and turn (core/contract/runrecord.py); bound: a run record fixed
            # them, so a turn file no longer moves the turn; home_trash: the home trash
            # a run fixed (None: from the environment at call time); exempt_ids: the
            # exempt roots' identities a run or the bootstrap fixed, as (root, (dev,
            # ino) or None) pairs (core/contract/exemptids.py; None: none fixed);
            # tampered: why every deletion fails closed (a run's file differs from
            # what its keeper holds, core/contract/keptrecord.py); git: the git a run
            # found when it started, (path, "dev:ino:ctime_ns"), or False for none
            # (None: not fixed, the guard looks on PATH). The values a caller may
            # leave out.
            setattr(self, name, values[name] if name in values or name not in _OPTIONAL else None)

    def __repr__(self):
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"Settings({fields})"


def warn_once(message):
    if message in _warned:
        return
    _warned.add(message)
    try:
        sys.stderr.write(f"safedel: warning: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def parse_threshold(raw, origin="SAFEDEL_THRESHOLD"):
    """A threshold in 1..99999; anything else warns once and gives the default."""
    if raw is None or raw == "":
        return DEFAULT_THRESHOLD
    text = str(raw).strip()
    # Plain ASCII digits only: int() would also take "1_000", "+5" and other scripts' digits.
    if text.isascii() and text.isdigit() and 1 <= int(text) <= MAX_THRESHOLD:
        return int(text)
    warn_once(f"{origin}={raw!r} is not a whole number in 1..{MAX_THRESHOLD}; using 50")
    return DEFAULT_THRESHOLD


# platformdirs' user_state_dir / user_cache_dir for "safedel", computed here because the
# shims cannot import platformdirs and `safedel run` should not pay for importing it.
# (Windows: LOCALAPPDATA, macOS: a folder under ~/Library, elsewhere: XDG or ~/.x.)
_USER_DIRS = {
    "state": (("safedel", "safedel"), ("Application Support", "safedel"), "XDG_STATE_HOME"),
    "cache": (("safedel", "safedel", "Cache"), ("Caches", "safedel"), "XDG_CACHE_HOME"),
}
_XDG_DEFAULTS = {"XDG_STATE_HOME": (".local", "state"), "XDG_CACHE_HOME": (".cache",)}


def user_dir(kind, environ):
    windows, macos, xdg = _USER_DIRS[kind]
    home = os.path.expanduser("~")
    if sys.platform == "win32":
        base = environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return os.path.join(base, *windows)
    if sys.platform == "darwin":
        return os.path.join(home, "Library", *macos)
    base = environ.get(xdg) or os.path.join(home, *_XDG_DEFAULTS[xdg])
    return os.path.join(base, "safedel")


def default_state_dir(environ):
    return user_dir("state", environ)


def config_path(environ):
    if sys.platform == "win32":
        base = environ.get("APPDATA") or os.path.expanduser("~")
    elif sys.platform == "darwin":
        base = os.path.join(os.path.expanduser("~"), "Library", "Application Support")
    else:
        base = environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return environ.get("SAFEDEL_CONFIG") or os.path.join(base, "safedel", "config.toml")


def user_config(environ, state_dir=None):
    """The user config file as it applies (core/contract/userconfig.py): what it widens
    counts only once a person confirmed it, and the confirmations live in state_dir
    (default: the environment's state dir)."""
    from .userconfig import UserConfig

    if state_dir is None:
        state_dir = environ.get("SAFEDEL_STATE_DIR") or default_state_dir(environ)
    return UserConfig(config_path(environ), state_dir, environ)


def default_exempt(environ):
    return environ.get("TMPDIR") or environ.get("TEMP") or environ.get("TMP") or "/tmp"


def exempt_roots(environ, config):
    """The exempt roots, os.pathsep-joined: the config's `exempt` as it applies (what a
    person has not confirmed is held back, core/contract/userconfig.py), else the temp
    dir; plus a person's SAFEDEL_EXEMPT. An empty SAFEDEL_EXEMPT (what
    `--no-exempt` sets) means none. One handed down by a run or a bootstrap (which set
    SAFEDEL_EXEMPT_IDS beside it) is already the whole list and is taken as it is.
    shims/node/settings.cjs does the same."""
    given = environ.get("SAFEDEL_EXEMPT")
    if given == "" or (given is not None and exemptids.VARIABLE in environ):
        return given
    parts = []
    configured = config.get("exempt")
    for value in (default_exempt(environ) if configured is None else configured, given):
        for part in str(value or "").split(os.pathsep):
            if part and part not in parts:
                parts.append(part)
    return os.pathsep.join(parts)


def load(environ=None):
    environ = os.environ if environ is None else environ
    state_dir = environ.get("SAFEDEL_STATE_DIR") or default_state_dir(environ)
    # Under `safedel run` these were fixed when the run started: the command cannot
    # move its deletions to another turn or lift the threshold for itself, whatever it
    # does to SAFEDEL_RUN_ID (core/contract/runpointer.py finds the run from the process tree).
    from . import runrecord

    run_id = environ.get("SAFEDEL_RUN_ID")
    fixed, tampered = runrecord.governing(state_dir, run_id)
    fixed = fixed or {}
    # The run's ledger, signals and report too: a command that moves SAFEDEL_STATE_DIR
    # would otherwise count from zero in a ledger of its own, out of the run's sight.
    report = runrecord.fixed_path(fixed, runrecord.REPORT)
    state_dir = runrecord.fixed_path(fixed, runrecord.STATE_DIR) or state_dir
    # Read only for what neither the run nor the environment decided.
    config = user_config(environ, state_dir)
    who = {
        "session": environ.get("SAFEDEL_SESSION") or "default",
        "turn": current_turn(environ),
        "toolCall": environ.get("SAFEDEL_TOOL_CALL") or "",
        "turnStart": environ.get("SAFEDEL_TURN_START"),  # `seconds:turn` (core.regenerable)
    }
    who.update({k: fixed[k] for k in runrecord.FIELDS if fixed.get(k) is not None})
    if "threshold" not in who:
        if "SAFEDEL_THRESHOLD" in environ:
            who["threshold"] = parse_threshold(environ["SAFEDEL_THRESHOLD"])
        else:
            raw = config.get("threshold")
            who["threshold"] = parse_threshold(raw, "threshold in the config file")
    # And the run's deletion policy: a command that widens its workspace, exempts
    # everything, skips the outside question, moves the trash into an exempt folder or
    # brings the terminal question back for itself still deletes as the run decided.
    policy = runrecord.fixed_policy(fixed)
    if "exempt" not in policy:
        raw = exempt_roots(environ, config)
        policy["exempt"] = caches.joined(tuple(p for p in raw.split(os.pathsep) if p), environ)
    if "outside_workspace" not in policy:
        raw = environ.get("SAFEDEL_OUTSIDE_WORKSPACE")
        policy["outside_workspace"] = config.get("outside_workspace") if raw is None else raw
    if "trash_dir" not in policy:
        policy["trash_dir"] = environ.get("SAFEDEL_TRASH_DIR") or config.get("trash_dir") or None
    if "prompt" not in policy:
        policy["prompt"] = prompt_wanted(environ, config)
    if "exempt_ids" not in policy and exemptids.VARIABLE in environ:
        policy["exempt_ids"] = exemptids.parse(environ[exemptids.VARIABLE])
    return Settings(
        active=environ.get("SAFEDEL_ACTIVE") == "1",
        session=who["session"],
        turn=who["turn"],
        tool_call=who["toolCall"],
        state_dir=state_dir,
        report=report or environ.get("SAFEDEL_REPORT") or os.path.join(state_dir, "report.jsonl"),
        threshold=who["threshold"],
        trash_dir=policy["trash_dir"],
        exempt=policy["exempt"],
        exempt_ids=_pairs(policy.get("exempt_ids")),
        prompt=policy["prompt"],
        # What `safedel run` decided (core.workspace reads it); None elsewhere.
        workspace_roots=policy.get("workspace_roots", environ.get("SAFEDEL_WORKSPACE_ROOTS")),
        # A run's own start, not one the command exports to uncount older files.
        turn_start=who["turnStart"],
        run=fixed.get("run") or run_id or None,  # a run found by ancestry names itself
        digests=runrecord.known_digests(fixed),
        bound=bool(fixed),
        outside_workspace=parse_outside(policy["outside_workspace"]),
        home_trash=policy.get("home_trash"),
        tampered=tampered,
        git=policy.get("git"),
    )


def prompt_wanted(environ, config):
    """Whether a terminal question may be asked: SAFEDEL_PROMPT, else the config's
    `prompt`, else whether the host has a person at the terminal."""
    raw = environ.get("SAFEDEL_PROMPT")
    if raw is None:
        raw = config.get("prompt")
    if raw is None:
        # Nobody answers a prompt under an agent harness or in CI; a setting says otherwise.
        from . import host

        found = host.current() if environ is os.environ else host.detect(environ)
        raw = "1" if found.attended else "0"
    return str(raw).strip().lower() not in ("0", "false", "no", "off")


def _pairs(ids):
    """{root: identity} as a tuple of pairs, which caches can key on; None stays."""
    return None if ids is None else tuple(ids.items())


OUTSIDE_CHOICES = ("confirm", "allow")


def parse_outside(raw):
    """What a deletion outside every workspace root gets: "confirm" (the default: refused
    until approved, or asked on a terminal) or "allow" (trashed, as inside)."""
    if raw is None or raw == "":
        return "confirm"
    value = str(raw).strip().lower()
    if value in OUTSIDE_CHOICES:
        return value
    warn_once(f"outside_workspace={raw!r} is not one of confirm, allow; using confirm")
    return "confirm"


def current_turn(environ):
    """SAFEDEL_TURN_FILE wins over SAFEDEL_TURN, so a prompt hook can rotate turns."""
    turn_file = environ.get("SAFEDEL_TURN_FILE")
    if turn_file:
        try:
            with open(turn_file, encoding="utf-8") as handle:
                turn = handle.read().strip()
            if turn:
                return turn
        except (OSError, UnicodeDecodeError):
            pass  # as if there were no file: the shims read this too, and stay quiet
    return environ.get("SAFEDEL_TURN") or "default"
