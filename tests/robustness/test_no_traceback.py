"""No traceback, ever: generated argv and environments for every safedel command.

Each example runs `python -m safedel ...` in a fresh scratch dir (HOME, XDG dirs, TMPDIR
and every path it may name live there) and checks: no Python traceback, exit status 0,
1 or 2 (or the wrapped command's own for `run`), and nothing outside the scratch dir's
own operands changed. The CI run has a fixed seed and a small count; set
SAFEDEL_FUZZ_EXAMPLES (e.g. 10000) for a nightly-size run.
"""

import os
import re

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from . import fuzzcase
from .fuzzcase import SCRATCH as S

EXAMPLES = int(os.environ.get("SAFEDEL_FUZZ_EXAMPLES", "150"))


def command_table():
    """{(command, subcommand...): (value options, flags, takes positionals)} from the app."""
    import typer.main

    from safedel.cli import app

    table = {}

    def walk(command, prefix):
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, (*prefix, name))
            return
        values, flags, positional = [], [], False
        for param in command.params:
            if getattr(param, "param_type_name", "") != "option":
                positional = True
            elif param.is_flag:
                flags += [*param.opts, *param.secondary_opts]
            else:
                values += param.opts
        table[prefix] = (values, flags, positional)

    walk(typer.main.get_command(app), ())
    return table


COMMANDS = command_table()
# rm's options are parsed by safedel's own GNU front end, not by typer.
RM_FLAGS = ["-f", "-r", "-R", "-d", "-v", "-i", "-I", "--interactive=never", "--one-file-system"]
RM_FLAGS += ["--preserve-root", "--force", "--recursive", "--dir", "--verbose", "--", "-x"]
COMMANDS[("rm",)] = ([], RM_FLAGS, True)

# Path operands stay inside the scratch dir: what safedel may act on is the test's own.
PATHS = [
    f"{S}/work/file1",
    f"{S}/work/dir1",
    f"{S}/work/dir1/f",
    f"{S}/work/missing",
    f"{S}/adir",
    f"{S}/afile",
    f"{S}/afile/below",
    f"{S}/junk.jsonl",
    f"{S}/bad.toml",
    "file1",
    "dir1",
    "missing",
    "./dir1/",
    ".",
    "/nonexistent/safedel-fuzz",
]
JUNK = ["", "0", "-1", "1", "abc", "-", "--", "99999999999999999999", "1e999", "nan"]
JUNK += ["2m", "90s", "100ms", "1d", "10K", "5M", "on", "off", "true", "\udcff\udcfe", "é", "\t"]
JUNK += ["-x", "--bogus", "x" * 300, "a\nb", "sh", "bash", "powershell", "today", "1970-01-01"]
VALUES = PATHS + JUNK
# `run` wraps only commands that cannot touch anything outside the scratch dir.
HARMLESS = [["true"], ["false"], ["echo", "x"], ["rm", "-f", "scratchfile"], ["exit-127-missing"]]

ENV_VARS = sorted(
    {
        *[
            "SESSION",
            "TURN",
            "TURN_FILE",
            "TURN_START",
            "STATE_DIR",
            "TRASH_DIR",
            "RUN_ID",
            "ACTIVE",
            "REPORT",
        ],
        *[
            "WORKSPACE",
            "WORKSPACE_ROOTS",
            "OUTSIDE_WORKSPACE",
            "TOOL_CALL",
            "THRESHOLD",
            "HOST",
            "EXEMPT",
            "EXEMPT_IDS",
        ],
        *[
            "RECYCLE_BIN",
            "PROMPT",
            "MAX_OUTPUT",
            "HARNESS",
            "TIMEOUT_MS",
            "MAX_TIMEOUT_MS",
            "NET",
            "CONFIG",
        ],
        *["REPORT_SEGMENT_BYTES", "HOME", "USER_ZDOTDIR", "USER_ENV", "USER_BASH_ENV"],
        "PROMPT_HOOK",
        "SERVE_RUN",
        "CHURN_SECONDS",
    }
)
ENV_VARS = ["SAFEDEL_" + name for name in ENV_VARS]
# HOME stays in scratch: unset, it would fall back to the real user's home (a fixed
# case below covers it as an unprivileged user instead).
DIR_VALUES = [f"{S}/home", f"{S}/adir", f"{S}/afile", f"{S}/missing/deeper", f"{S}/tmp", ""]
HOME_VARS = {
    "HOME": DIR_VALUES[:-1],
    "TMPDIR": DIR_VALUES[:-1],
    "XDG_DATA_HOME": DIR_VALUES,
    "XDG_STATE_HOME": DIR_VALUES,
    "XDG_CONFIG_HOME": DIR_VALUES,
    "XDG_CACHE_HOME": DIR_VALUES,
    "XDG_RUNTIME_DIR": DIR_VALUES,
}
# Variables whose every value is a path safedel may write under: kept inside scratch.
PATH_ONLY = {"SAFEDEL_STATE_DIR", "SAFEDEL_TRASH_DIR", "SAFEDEL_REPORT", "SAFEDEL_TURN_FILE"}
PATH_ONLY |= {"SAFEDEL_CONFIG", "SAFEDEL_HOME", "SAFEDEL_RECYCLE_BIN", "SAFEDEL_EXEMPT"}


@st.composite
def argv_for(draw):
    path = draw(st.sampled_from(sorted(COMMANDS)))
    values, flags, positional = COMMANDS[path]
    argv = list(path)
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["value", "flag", "positional", "junk"]))
        if kind == "value" and values:
            argv += [draw(st.sampled_from(values)), draw(st.sampled_from(VALUES))]
        elif kind == "flag" and flags:
            argv.append(draw(st.sampled_from(flags)))
        elif kind == "positional" and positional and path != ("run",):
            argv.append(draw(st.sampled_from(PATHS)))
        elif kind == "junk":
            argv.append(draw(st.sampled_from(JUNK + ["--help", "-h"])))
    if path == ("run",):
        if draw(st.booleans()):
            argv.append("--")
        argv += draw(st.sampled_from(HARMLESS))
    return tame(argv)


def tame(argv):
    """Drop what could reach outside the scratch dir: purge/restore of everything, or
    `serve` listening on a socket until killed."""
    if argv[:1] == ["purge"] and not any(a.startswith(S) for a in argv[1:]):
        argv = [a for a in argv if a != "--yes"]
    if argv[:1] == ["restore"]:
        argv = [a for a in argv if a != "--all"]
    if argv[:1] == ["serve"]:
        argv = [a for a in argv if a != "--socket"] + ["--stdio"]
    return argv


@st.composite
def environment_for(draw):
    env = {}
    for name in ENV_VARS:
        if draw(st.integers(0, 3)) == 0:
            pool = PATHS if name in PATH_ONLY else VALUES
            env[name] = draw(st.sampled_from(pool))
    for name, pool in HOME_VARS.items():
        if draw(st.integers(0, 3)) == 0:
            env[name] = draw(st.sampled_from(pool))
    return env


def run_case(base, argv, extra_env, cwd="work", unset=()):
    root = fuzzcase.make_scratch(str(base))
    env = fuzzcase.base_env(root)
    env.update({k: fuzzcase.expand(v, root) for k, v in extra_env.items()})
    for name in unset:
        env.pop(name, None)
    argv = [fuzzcase.expand(a, root) for a in argv]
    cwd = os.path.join(root, cwd)
    allowed = fuzzcase.operands(root, cwd, [*argv, *env.values()])
    before = fuzzcase.snapshot([root])
    done = fuzzcase.run_safedel(argv, env, cwd)
    fuzzcase.check_outcome(done, argv)
    changed = fuzzcase.untouched(before, fuzzcase.snapshot([root]), allowed)
    assert not changed, f"{argv!r} changed files outside its operands: {changed}"
    return done


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@seed(20261130)
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=False,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(argv=argv_for(), extra_env=environment_for())
def test_generated_argv_and_environment(base, argv, extra_env):
    run_case(base, argv, extra_env)


def test_every_command_is_generated():
    names = {" ".join(path) for path in COMMANDS}
    for expected in ("run", "rm", "purge", "undo", "markers", "report", "restore", "doctor"):
        assert expected in names
    for expected in ("env", "bootstrap", "shims", "list", "guard approve", "workspace add"):
        assert expected in names
    found = set()
    for root, _dirs, files in os.walk(os.path.join(os.path.dirname(__file__), "..", "..")):
        if "safedel" not in root.split(os.sep) or ".git" in root:
            continue
        for name in files:
            if name.endswith((".py", ".cjs", ".sh", ".bash", ".zsh", ".fish")):
                with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
                    found |= set(re.findall(r"\bSAFEDEL_[A-Z][A-Z0-9_]*[A-Z0-9]\b", f.read()))
    # Every variable the code reads is one the generator may set.
    missing = found - set(ENV_VARS) - {"SAFEDEL_FUZZ_EXAMPLES"}
    assert not missing, f"variables the generator never sets: {sorted(missing)}"
