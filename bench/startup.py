"""What the shims cost a process that deletes nothing, and what `safedel run` adds.

Python: `python -c pass` with the shim not on PYTHONPATH, on it but inactive (no
SAFEDEL_ACTIVE), and on it and active. Node: `node -e 0` the same three ways with the
--require preload. `safedel run -- true` against `true`.
"""

import os

from . import rows
from .harness import PYTHON, Sandbox, interleave, timed_spawn, tool

PY_BARE = "python -c pass"
PY_INACTIVE = "python -c pass, shim on PYTHONPATH, inactive"
PY_ACTIVE = "python -c pass, shim on PYTHONPATH, active"
NODE_BARE = "node -e 0"
NODE_INACTIVE = "node -e 0, preload, inactive"
NODE_ACTIVE = "node -e 0, preload, active"
RUN = "safedel run -- true"
TRUE = "true"
# What the interpreter behind the safedel script costs before safedel does anything.
INTERPRETER = "python -c pass (the interpreter safedel runs on, site included)"


def python_rows():
    workload = "Python shim load, nothing deleted"
    return [
        rows.Row(workload, PY_INACTIVE, "per start", rows.plus(PY_BARE, 0.003)),
        rows.Row(workload, PY_ACTIVE, "per start", rows.plus(PY_BARE, 0.003)),
        rows.Row(workload, PY_BARE, "per start", anchor_of=PY_ACTIVE),
    ]


def node_rows():
    workload = "Node shim load, nothing deleted"
    return [
        rows.Row(workload, NODE_INACTIVE, "per start", rows.plus(NODE_BARE, 0.005)),
        rows.Row(workload, NODE_ACTIVE, "per start", rows.plus(NODE_BARE, 0.005)),
        rows.Row(workload, NODE_BARE, "per start", anchor_of=NODE_ACTIVE),
    ]


def run_rows():
    workload = "safedel run"
    return [
        rows.Row(workload, RUN, "per run", rows.plus(TRUE, 0.080)),
        rows.Row(workload, TRUE, "per run", anchor_of=RUN),
        rows.Row(workload, INTERPRETER, "per start", anchor_of=RUN),
    ]


def _measure(table, plans, missing, rounds, warmup, sandbox):
    errors = os.path.join(sandbox.root, "stderr")
    timers = {
        name: (lambda argv=argv, env=env: timed_spawn(argv, env, errors))
        for name, (argv, env) in plans.items()
        if name not in missing
    }
    results = interleave(timers, rounds, warmup)
    return rows.fill(table, results, missing)


def run_python(profile, root, shim_home):
    sandbox = Sandbox(root, "python-start", shim_home)
    try:
        missing = {}
        if not os.path.isfile(os.path.join(shim_home, "python", "sitecustomize.py")):
            reason = "the Python shim is not built yet (no python/sitecustomize.py)"
            missing = {PY_INACTIVE: reason, PY_ACTIVE: reason}
        argv = [PYTHON, "-c", "pass"]
        plans = {
            PY_BARE: (argv, sandbox.base_env()),
            PY_INACTIVE: (argv, sandbox.inactive_env()),
            PY_ACTIVE: (argv, sandbox.shim_env()),
        }
        return _measure(
            python_rows(), plans, missing, profile.startup_rounds, profile.warmup, sandbox
        )
    finally:
        sandbox.close()


def run_node(profile, root, shim_home):
    sandbox = Sandbox(root, "node-start", shim_home)
    try:
        node = tool("node")
        missing = {}
        if node is None:
            missing = dict.fromkeys(
                (NODE_BARE, NODE_INACTIVE, NODE_ACTIVE), "node is not installed"
            )
        elif not os.path.isfile(os.path.join(shim_home, "node", "safedel.cjs")):
            reason = "the Node shim is not built yet (no node/safedel.cjs)"
            missing = {NODE_INACTIVE: reason, NODE_ACTIVE: reason}
        argv = [node or "", "-e", "0"]
        plans = {
            NODE_BARE: (argv, sandbox.base_env()),
            NODE_INACTIVE: (argv, sandbox.inactive_env()),
            NODE_ACTIVE: (argv, sandbox.shim_env()),
        }
        return _measure(
            node_rows(), plans, missing, profile.startup_rounds, profile.warmup, sandbox
        )
    finally:
        sandbox.close()


def safedel_command():
    """The installed console script next to the interpreter, else `python -m safedel`."""
    beside = os.path.join(os.path.dirname(PYTHON), "safedel")
    # -I keeps the checkout (the working directory) off the path of the fallback.
    return [beside] if os.access(beside, os.X_OK) else [PYTHON, "-I", "-m", "safedel"]


def _script_interpreter():
    """The interpreter named in the safedel script's #! line (else this one)."""
    command = safedel_command()
    if len(command) == 1:
        with open(command[0], "rb") as handle:
            first = handle.readline()
        if first.startswith(b"#!"):
            return os.fsdecode(first[2:].split()[0])
    return PYTHON


def run_safedel_run(profile, root, shim_home):
    sandbox = Sandbox(root, "safedel-run", shim_home)
    try:
        true = tool("true")
        missing = {} if true else dict.fromkeys((RUN, TRUE), "true is not installed")
        interpreter = _script_interpreter()
        # safedel run materialises its own shim home under this sandbox's cache on its
        # first call, once per user; that call is always an untimed warm-up.
        plans = {
            RUN: ([*safedel_command(), "run", "--", true or ""], sandbox.base_env()),
            TRUE: ([true or ""], sandbox.base_env()),
            INTERPRETER: ([interpreter, "-c", "pass"], sandbox.base_env()),
        }
        return _measure(run_rows(), plans, missing, profile.run_rounds, 1, sandbox)
    finally:
        sandbox.close()
