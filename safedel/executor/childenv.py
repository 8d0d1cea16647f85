"""The environment contract that `safedel run`, `safedel env` and the bootstraps set.

Kept free of typer and rich: `safedel run` builds this on its fast path.
"""

import os

from ..core.contract import exemptids
from ..core.contract import settings as core_settings
from ..core.policy import workspace

PRELOAD_FLAG = "--require"


class RunOptions:
    """What a caller may choose; None means 'take it from the environment or default'."""

    def __init__(self, **values):
        self.session = values.get("session")
        self.turn = values.get("turn")
        self.tool_call = values.get("tool_call")
        self.threshold = values.get("threshold")
        self.report = values.get("report")
        self.trash_dir = values.get("trash_dir")
        self.no_exempt = bool(values.get("no_exempt"))
        self.state_dir = values.get("state_dir")
        self.workspace = list(values.get("workspace") or ())
        self.outside_workspace = values.get("outside_workspace")
        # An interactive shell's bootstrap: a person typing `rm ~/Downloads/x` meant it.
        self.interactive = bool(values.get("interactive"))
        # `safedel run` decides the workspace roots once, where the command starts.
        self.decide_roots = bool(values.get("decide_roots"))
        self.cwd = values.get("cwd")  # where the command starts (default: here)


def new_turn_id():
    return "t-" + os.urandom(6).hex()


def prepend_path(value, entry):
    """entry first in an os.pathsep list, once, keeping the rest in order."""
    parts = [p for p in (value or "").split(os.pathsep) if p and p != entry]
    return os.pathsep.join([entry, *parts])


def node_preload(home):
    return f'{PRELOAD_FLAG} "{os.path.join(home, "node", "safedel.cjs")}"'


def add_node_preload(node_options, home):
    """Add our --require once; a user's own NODE_OPTIONS stay as they were."""
    preload = node_preload(home)
    current = (node_options or "").strip()
    if preload in current:
        return current
    return f"{preload} {current}".strip()


def contract(base, home, options):
    """The SAFEDEL_* variables and the PATH-like edits, as a dict of what to set."""
    env = {
        "SAFEDEL_ACTIVE": "1",
        "SAFEDEL_HOME": home,
        "SAFEDEL_SESSION": options.session
        or workspace.session_for(base, options.cwd or os.getcwd()),
        "SAFEDEL_TURN": options.turn or new_turn_id(),
        "SAFEDEL_TOOL_CALL": options.tool_call or base.get("SAFEDEL_TOOL_CALL") or "",
    }
    state_dir = (
        options.state_dir or base.get("SAFEDEL_STATE_DIR") or core_settings.default_state_dir(base)
    )
    env["SAFEDEL_STATE_DIR"] = os.path.abspath(state_dir)
    report = options.report or base.get("SAFEDEL_REPORT")
    env["SAFEDEL_REPORT"] = os.path.abspath(report or os.path.join(state_dir, "report.jsonl"))
    if options.threshold is not None:
        env["SAFEDEL_THRESHOLD"] = str(options.threshold)
    trash_dir = options.trash_dir or base.get("SAFEDEL_TRASH_DIR")
    if trash_dir:
        env["SAFEDEL_TRASH_DIR"] = os.path.abspath(trash_dir)
    if options.no_exempt:
        env["SAFEDEL_EXEMPT"] = ""
    else:
        config = core_settings.user_config(base, env["SAFEDEL_STATE_DIR"])
        env["SAFEDEL_EXEMPT"] = core_settings.exempt_roots(base, config)
    env[exemptids.VARIABLE] = exempt_identities(base, env.get("SAFEDEL_EXEMPT"))
    env.update(policy(base, options, env))
    env.update(hooks(base, home))
    return env


def exempt_identities(base, exempt):
    """SAFEDEL_EXEMPT_IDS for the exempt roots and the user's caches (exempt: the list
    set here, else the one base has): the directory each leads to now, unless base
    fixed it already (the shell a bootstrap started keeps the directories it found)."""
    if exempt is None:
        exempt = base.get("SAFEDEL_EXEMPT", "")
    from ..core.contract import caches

    roots = caches.joined(tuple(p for p in exempt.split(os.pathsep) if p), base)
    known = exemptids.parse(base.get(exemptids.VARIABLE, "")) or {}
    return exemptids.variable(exemptids.snapshot(roots, known))


def policy(base, options, env):
    """The turn's start, the host, and the workspace: what the location classes and
    the regenerable rule read."""
    from ..core.contract import host
    from ..core.guard import regenerable

    values = {
        regenerable.START_VARIABLE: regenerable.start_value(env["SAFEDEL_TURN"]),
        host.PINNED: host.current().name,
    }
    config = core_settings.user_config(base, env["SAFEDEL_STATE_DIR"])
    default = "allow" if options.interactive else "confirm"
    outside = options.outside_workspace or config.get("outside_workspace") or default
    values["SAFEDEL_OUTSIDE_WORKSPACE"] = core_settings.parse_outside(outside)
    session_roots = [os.path.abspath(p) for p in options.workspace]
    session_roots += [p for p in (base.get("SAFEDEL_WORKSPACE") or "").split(os.pathsep) if p]
    if session_roots:
        values["SAFEDEL_WORKSPACE"] = os.pathsep.join(session_roots)
    if options.decide_roots:
        merged = dict(base, **values, SAFEDEL_STATE_DIR=env["SAFEDEL_STATE_DIR"])
        merged["SAFEDEL_SESSION"] = env["SAFEDEL_SESSION"]
        roots, warnings = workspace.collect(merged, options.cwd or os.getcwd())
        for warning in warnings:
            core_settings.warn_once(warning)
        values[workspace.ROOTS_VARIABLE] = os.pathsep.join(r.path for r in roots)
    return values


def hooks(base, home):
    """PATH, the shell start-up hooks, NODE_OPTIONS and PYTHONPATH."""
    env = {
        "PATH": prepend_path(base.get("PATH", os.defpath), os.path.join(home, "bin")),
        "NODE_OPTIONS": add_node_preload(base.get("NODE_OPTIONS"), home),
        "PYTHONPATH": prepend_path(base.get("PYTHONPATH"), os.path.join(home, "python")),
    }
    for name, value in (("BASH_ENV", bash_env(home)), ("ENV", sh_env(home))):
        if base.get(name) and not is_ours(base[name]):
            env[f"SAFEDEL_USER_{name}"] = base[name]
        env[name] = value
    zdotdir = os.path.join(home, "zsh")
    # Under a bootstrapped zsh a command line runs with our ZDOTDIR; the user's is the
    # one the bootstrap passed on (it also sees a ZDOTDIR that ~/.zshenv did not export).
    if base.get("ZDOTDIR") == zdotdir:
        user_zdotdir = base.get("SAFEDEL_USER_ZDOTDIR")
    else:
        user_zdotdir = base.get("ZDOTDIR")
    env["SAFEDEL_USER_ZDOTDIR"] = user_zdotdir or base.get("HOME", "")
    env["ZDOTDIR"] = zdotdir
    return env


def shell_expansion_safe(path):
    """path escaped so that a shell's parameter expansion of it gives path back."""
    return path.replace("\\", "\\\\").replace("$", "\\$").replace("`", "\\`")


def sh_env(home):
    # dash, busybox sh and posix-mode bash expand ENV ($, ` and \) before reading it.
    return shell_expansion_safe(os.path.join(home, "posix", "env.sh"))


def bash_env(home):
    """BASH_ENV, which bash expands before reading it: the path of env.sh for the user
    who owns the shim home, and a missing /posix/env.sh, which bash skips without a
    word, for anyone else (`su user -c` from a root shell keeps the variable but cannot
    read root's home, and bash would complain at every start)."""
    if not hasattr(os, "geteuid"):
        return shell_expansion_safe(os.path.join(home, "posix", "env.sh"))
    return f"${{SAFEDEL_HOME:+${{SAFEDEL_HOME:0:EUID=={os.geteuid()}?4096:0}}/posix/env.sh}}"


def is_ours(value):
    """A BASH_ENV or ENV that names some safedel's env.sh: chaining to it would loop."""
    return value.endswith("/posix/env.sh") or value.endswith("/posix/env.sh}")


def child_environment(base, home, options):
    env = dict(base)
    env.update(contract(base, home, options))
    return env
