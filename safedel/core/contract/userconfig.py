"""The user config file's values as they apply: what the file widens waits for a person.

Every value of a file a person confirmed applies (core/contract/confirmed.py). Of a file
nobody confirmed, or one changed since, each value applies only where it is no wider
than the value the confirmed version had, or, for a file never confirmed, than the
default; otherwise that value (or the default) stands, and one warning line names the
file, the setting and how a person confirms it. Narrowing always applies at once: a
lower threshold, `outside_workspace = "confirm"`, `prompt = 0`, fewer exempt roots, a
retention or size limit taken away.

Read only when a value is needed: under `safedel run` the run record fixes them all,
so a launcher there reads no config file at all.
"""

import os

OFF = ("0", "false", "no", "off")


def parse_flat(text):
    """Flat `key = value` lines (a subset of TOML that 3.9's stdlib can read)."""
    values = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if "=" not in line or line.startswith("["):
            continue
        key, value = (part.strip() for part in line.split("=", 1))
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key] = value
    return values


def _off(value):
    return value is not None and str(value).strip().lower() in OFF


def _threshold(current, kept, environ):
    from .settings import parse_threshold

    wider = parse_threshold(current, "threshold in the config file") > parse_threshold(
        kept, "threshold in the config file"
    )
    return kept if wider else current


def _choice(narrow):
    """The rule for a two-way choice whose narrow side narrow(value) tells: the narrow
    side applies at once; the wide side only as the confirmed version had it."""

    def rule(current, kept, environ):
        if narrow(current) or current == kept:
            return current
        return kept if narrow(kept) else None  # None: the default, as if unset

    return rule


def _confirm(value):
    return value is not None and str(value).strip().lower() not in ("", "allow")


def _exempt(current, kept, environ):
    """Each exempt root of current that lies in a root kept (or the default temp dir)
    has: fewer or smaller exempt roots delete less for real."""
    if current is None:
        return kept
    from .settings import default_exempt

    allowed = [_real(p) for p in _roots(default_exempt(environ) if kept is None else kept)]
    inside = [p for p in _roots(current) if any(_within(_real(p), a) for a in allowed)]
    return current if len(inside) == len(_roots(current)) else os.pathsep.join(inside)


def _roots(value):
    return [p for p in str(value).split(os.pathsep) if p]


def _real(path):
    return os.path.realpath(path)


def _within(path, root):
    root = root.rstrip(os.sep) or os.sep
    return path == root or path.startswith(root if root == os.sep else root + os.sep)


def _unset_or_same(current, kept, environ):
    """retention, regenerable_retention, max_size: none keeps everything; any other
    change waits for a person."""
    return current if current is None or current == kept else kept


def same(current, kept, environ):
    """Everything else (trash_dir, and any key a later version reads): as confirmed."""
    return current if current == kept else kept


RULES = {
    "threshold": _threshold,
    "outside_workspace": _choice(_confirm),
    "prompt": _choice(_off),
    "net": _choice(lambda value: value is not None and not _off(value)),
    "exempt": _exempt,
    "retention": _unset_or_same,
    "regenerable_retention": _unset_or_same,
    "max_size": _unset_or_same,
}


class UserConfig:
    """The user config file at path, read on the first value asked for; state_dir holds
    the confirmations."""

    def __init__(self, path, state_dir, environ):
        self.path, self.state_dir, self.environ = path, state_dir, environ
        self._standing = None

    def standing(self):
        if self._standing is None:
            from . import confirmed  # not loaded by a launcher under a run: it reads no file

            text, info = confirmed.read(self.path)
            if text is None and info is not None:
                # A config safedel cannot read must not stop every command (or shell start-up).
                from .settings import warn_once

                warn_once(f"{self.path} is not a UTF-8 text file safedel can read; ignoring it")
            self._standing = confirmed.standing(self.path, self.state_dir, text)
        return self._standing

    def raw(self):
        """Every value the file sets now, confirmed or not."""
        text = self.standing().text
        return {} if text is None else parse_flat(text)

    def get(self, key, default=None):
        found = self.standing()
        current = self.raw().get(key)
        if found.confirmed or (found.text is None and found.kept is None):
            return default if current is None else current
        kept = None if found.kept is None else parse_flat(found.kept).get(key)
        value = RULES.get(key, same)(current, kept, self.environ)
        if value != current:
            what = f"the removal of {key}" if current is None else f"{key} = {current}"
            held_back(self.path, what)
        return default if value is None else value


def held_back(path, what):
    """Say once, on stderr, that a setting of path waits for a person's confirmation."""
    from .settings import warn_once

    warn_once(held_message(path, what))


def held_message(path, what, verb="not applying"):
    """The one line that says so. Under an agent harness it names no command: the
    person confirms, not the model."""
    from . import host

    if host.current().kind == "agent":
        how = "it waits until the user confirms the file at their own terminal"
    else:
        how = "`safedel config trust` at a terminal shows the change and asks"
    return f"{path}: {verb} {what}: no person confirmed this version of the file; {how}"
