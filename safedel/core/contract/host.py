"""Who is running safedel, told from the environment the host leaves behind.

The host only picks defaults that a setting can override: under an agent harness or CI
nobody is at the terminal to answer a prompt, so none is shown. Each variable below is
one its host documents or is seen to set in the commands it runs (docs/configuration.md,
"Hosts").
"""

import _thread
import os

# Agent harnesses first: they often run inside an editor's terminal or in CI, and the
# agent is the one deleting. Each entry: (host, variable, the value it must have or None).
AGENTS = (
    ("claude-code", "CLAUDECODE", "1"),
    ("codex", "CODEX_SANDBOX", None),
    ("codex", "CODEX_SANDBOX_NETWORK_DISABLED", None),
    ("codex", "CODEX_THREAD_ID", None),
    ("cursor", "CURSOR_AGENT", None),
    ("gemini-cli", "GEMINI_CLI", None),
)
CI = (
    ("github-actions", "GITHUB_ACTIONS", "true"),
    ("gitlab-ci", "GITLAB_CI", None),
    ("buildkite", "BUILDKITE", "true"),
    ("jenkins", "JENKINS_URL", None),
    ("ci", "CI", None),
)
EDITORS = (
    ("vscode", "TERM_PROGRAM", "vscode"),
    ("jetbrains", "TERMINAL_EMULATOR", "JetBrains-JediTerm"),
)
KINDS = (("agent", AGENTS), ("ci", CI), ("editor", EDITORS))
PINNED = "SAFEDEL_HOST"
_cache = {}


class Host:
    __slots__ = ("name", "kind", "evidence")

    def __init__(self, name, kind, evidence):
        self.name, self.kind, self.evidence = name, kind, evidence

    @property
    def attended(self):
        """A person may be at the terminal: not an agent, not CI."""
        return self.kind not in ("agent", "ci")

    def as_dict(self):
        return {"name": self.name, "kind": self.kind, "evidence": self.evidence}


def _matches(environ, variable, value):
    found = environ.get(variable)
    if found is None or found == "":
        return False
    # CI=false is how some runners say "not CI"; a value is compared case-blind.
    if value is None:
        return found.strip().lower() not in ("0", "false", "no")
    return found.strip().lower() == value.lower()


def detect(environ=None, interactive=None):
    """The Host for environ. interactive (stdin is a terminal) separates a person at a
    plain terminal from a script; None means: look at fd 0."""
    environ = os.environ if environ is None else environ
    for kind, table in KINDS:
        for name, variable, value in table:
            if _matches(environ, variable, value):
                return Host(name, kind, f"{variable}={environ[variable]}")
    if interactive is None:
        try:
            interactive = os.isatty(0)
        except OSError:
            interactive = False
    if interactive:
        return Host("terminal", "terminal", "stdin is a terminal")
    return Host("script", "script", "no host variable, no terminal")


def current():
    """The Host of this process, computed once (report events ask for it often).
    A child of `safedel run` without a terminal of its own reports the host run saw
    (SAFEDEL_HOST) rather than "script"; any host variable still wins over that."""
    host = _cache.get("host")
    if host is None:
        host = detect()
        pinned = os.environ.get(PINNED)
        if host.kind == "script" and pinned and pinned != host.name:
            kinds = {n: k for k, table in KINDS for n, _v, _x in table}
            kind = kinds.get(pinned, "terminal" if pinned == "terminal" else "script")
            host = Host(pinned, kind, f"{PINNED}={pinned}")
        _cache["host"] = host
    return host


# thread id -> whether the command it judges for runs under a harness: a supervisor
# judges for one run among several in one process (`safedel serve`), whose own
# environment is no run's. And thread id -> that command's environment, whose HOME
# core/policy protects.
_harness = {}
_judged = {}


def judge_for(environ):
    """This thread judges for a command with environ; None: for this process again."""
    if environ is None:
        _harness.pop(_thread.get_ident(), None)
        _judged.pop(_thread.get_ident(), None)
    else:
        _harness[_thread.get_ident()] = environ.get("SAFEDEL_HARNESS") == "1"
        _judged[_thread.get_ident()] = environ


def judged_environ():
    """The environment of the command this thread judges for (judge_for), or None."""
    return _judged.get(_thread.get_ident()) if _judged else None


def judged_harness():
    """Whether the command this thread judges for runs under a harness; None when this
    thread judges for its own process."""
    return _harness.get(_thread.get_ident()) if _harness else None
