"""What `safedel config` shows a person about a config file, and how it asks.

A config file may hold anything, escape sequences and bidirectional controls included,
written to hide a line from the person reading it; every line shown here is escaped
first (core/printable.py, then whatever else is not printable), so what is on the
screen is what the file says.
"""

import difflib
import os

from ..core.contract import confirmed, userconfig
from ..core.contract import settings as core_settings
from ..core.policy.workspacefiles import parse_list
from ..core.printable import printable

QUESTION = "Apply this file as it is now? [y/N] "


def shown(text):
    """text as one line a terminal shows as it is."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in printable(text))


def _is_user_config(path):
    return os.path.abspath(path) == os.path.abspath(core_settings.config_path(os.environ))


def held(path, text, kept):
    """What the file widens beyond the version a person confirmed (kept, or None:
    never), as the settings would be named in a warning."""
    found = []
    if _is_user_config(path):  # the project's files hold workspace roots only
        now = userconfig.parse_flat(text)
        before = {} if kept is None else userconfig.parse_flat(kept)
        for key in sorted(set(now) | set(before)):
            if key == "workspace":
                continue
            current, was = now.get(key), before.get(key)
            if userconfig.RULES.get(key, userconfig.same)(current, was, os.environ) != current:
                found.append(f"the removal of {key}" if current is None else f"{key} = {current}")
    was = set() if kept is None else set(parse_list(kept))
    found += [f"workspace root {entry!r}" for entry in parse_list(text) if entry not in was]
    return [shown(item) for item in found]


def record(state_dir, path, text, info, environ=None):
    """Record a person's yes to text as the file's content, with its roots as they
    resolve now (core/policy/scopes.py)."""
    from ..core.policy.scopes import confirmed_roots

    roots, relative = confirmed_roots(path, text, environ)
    confirmed.confirm(state_dir, path, text, info, roots, relative)


def describe(path, state_dir):
    """{"path", "state", "held"} for status: absent, unreadable, confirmed, changed (since
    a person confirmed it) or new (never confirmed). A confirmed file taken away holds
    back its own removal."""
    text, info = confirmed.read(path)
    kept = confirmed.kept_text(path, state_dir)
    if text is None:
        state = "absent" if info is None else "unreadable"
        if kept is not None:  # what the confirmed version narrowed stays
            return {"path": path, "state": state, "held": ["the removal of the file"]}
        return {"path": path, "state": state, "held": []}
    if text == kept:
        return {"path": path, "state": "confirmed", "held": []}
    state = "new" if kept is None else "changed"
    return {"path": path, "state": state, "held": held(path, text, kept)}


def why_no_person():
    """Why nobody here can confirm a config file, or None: a person may be asked."""
    from ..core.contract import host
    from ..executor.approval import refuse_inside

    why = refuse_inside("confirming a config file")
    if why is not None:
        return why
    found = host.detect(os.environ)
    if found.kind in ("agent", "ci"):
        return (
            f"confirming a config file is a person's decision at their own terminal; "
            f"this runs under {found.name} ({found.evidence})"
        )
    if not os.isatty(0):
        return "confirming a config file needs a person at a terminal, and stdin is not one"
    return None


def ask(path, text, info, state_dir):
    """Show the file (what changed since it was confirmed, or all of it) and ask on the
    terminal: True, False, or None when no terminal answers."""
    from ..core.guard import prompt

    kept = confirmed.kept_text(path, state_dir)
    owner = "" if info.st_uid == os.getuid() else f", owned by uid {info.st_uid}, not by you"
    where = "changed since it was confirmed" if kept is not None else "never confirmed"
    lines = [f"{shown(path)} ({where}{owner}):"]
    if kept is None:
        lines += ["  " + shown(line) for line in text.splitlines()]
    else:
        diff = difflib.unified_diff(
            kept.splitlines(), text.splitlines(), "as confirmed", "as it is now", lineterm=""
        )
        lines += ["  " + shown(line) for line in diff]
    widens = held(path, text, kept)
    if widens:
        lines.append("It widens: " + ", ".join(widens))
    else:
        lines.append("It widens nothing that applies without this confirmation.")
    return prompt.ask(None, text="\n".join(lines) + "\n" + QUESTION)
