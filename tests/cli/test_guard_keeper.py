"""The turn's ledger under a run, written by the command as an attacker would write it:
nothing it does to the file lifts the guard (safedel/executor/keeper.py).

Each case: the command trashes 50 of its 60 files (the threshold), does something to its
turn's ledger, then tries the other 10 with one of the deleters (the rm launcher, the
Python shim, the Node shim, the net under /bin/rm's own unlink). The 10 stay, refused
(the attack changed nothing, or the net refused the attack itself) or failed closed
(the turn is damaged). Damage stays: a later run of the same turn fails closed until a
person resets the turn; an approval the command wrote never counts, then or later.

The matrix (attack x deleter) is sampled (sampling.py): each attack and each deleter in
every run, the rest in turn; SAFEDEL_TEST_ALL=1 runs all of it.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest
import sampling
from conftest import as_a_person, require

from safedel.core.guard import turn as guardturn

LEDGER = (
    'L="$SAFEDEL_STATE_DIR/bulk-guard/$(printf %s "$SAFEDEL_SESSION" | sha256sum | cut -c1-16)'
    '/$(printf %s "$SAFEDEL_TURN" | sha256sum | cut -c1-16).jsonl"'
)
REWRITE = (
    'python3 -c \'import sys; f = open(sys.argv[1], "r+b"); d = f.read(); '
    'f.seek(0); f.write(d.replace(b"\\"n\\":50", b"\\"n\\":00"))\' "$L"'
)
ATTACKS = {
    "garbage": 'echo garbage > "$L"',
    "emptied": ': > "$L"',
    "cut to its first line": 'head -c 10 "$L" > "$L.x"; cat "$L.x" > "$L"',
    "rewritten in place": REWRITE,
    "replaced": 'cp "$L" "$L.x"; mv -f "$L.x" "$L" 2>/dev/null || rm -f "$L"',
    "approve appended": 'echo \'{"op":"approve","by":"cli","ts":1}\' >> "$L"',
    "approve with an id appended": 'echo \'{"op":"approve","id":"1.ab","by":"cli"}\' >> "$L"',
}
VOIDED = {"approve with an id appended"}  # refused, not damaged: the keeper voided it
NODE = (
    "node -e \"const fs = require('fs'); let n = 0; for (let i = 51; i <= 60; i++) "
    "{ try { fs.unlinkSync('f' + i) } catch (e) { n++ } } process.exit(n ? 1 : 0)\""
)
PYTHON = (
    'python3 -c "import os, sys; sys.exit(sum(1 for i in range(51, 61) '
    "if not os.path.exists('f%d' % i) or os.remove('f%d' % i)))\""
)
DELETERS = {
    "rm": "rm " + " ".join(f"f{i}" for i in range(51, 61)),
    "python": PYTHON,
    "node": NODE,
    # `command`: past the bootstrap's /bin/rm function, to the real rm and the net
    "net": "command /bin/rm " + " ".join(f"f{i}" for i in range(51, 61)),
}
FIRST = "rm " + " ".join(f"f{i}" for i in range(1, 51))


def files(sandbox, count=60):
    for index in range(1, count + 1):
        (sandbox.work / f"f{index}").write_text(str(index))


def left(sandbox):
    return len([p for p in sandbox.work.iterdir() if p.name.startswith("f")])


def run(sandbox, script, *options):
    result = sandbox.root / "result.json"
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, "--result", str(result), *options]
    argv += ["--", "bash", "-c", script]
    done = subprocess.run(
        argv, env=sandbox.base_env(), cwd=sandbox.work, capture_output=True, timeout=300
    )
    return done, json.loads(result.read_text())


@sampling.matrix(
    "attack, deleter",
    [(a, d) for a in ATTACKS for d in DELETERS],
    "guard-keeper",
    extra=1,
    ids=lambda cell: "-".join(cell),
)
def test_what_the_command_does_to_its_ledger_never_lifts_the_guard(sandbox, attack, deleter):
    if deleter == "node":
        require("node")
    files(sandbox)
    script = f"{FIRST} && {LEDGER}; {ATTACKS[attack]}; {DELETERS[deleter]}; echo deleter=$?"
    done, result = run(sandbox, script)
    assert b"deleter=0" not in done.stdout, done.stderr
    assert left(sandbox) == 10, done.stderr
    assert len(result["trashed"]) == 50
    kind = result["guard"]["type"]
    assert kind in ("confirmRequired", "guardError"), result["guard"]
    if attack in VOIDED:
        assert kind == "confirmRequired", done.stderr
    state = guardturn.status(str(sandbox.state), sandbox.session, sandbox.turn)
    assert state.mode == "open" or state.damaged  # nothing it wrote approves the turn
    # Later, in a new run of the same turn, as the harness would run it again.
    done, result = run(sandbox, "rm f51")
    assert left(sandbox) == 10 and done.returncode == 1
    if kind != "guardError":
        assert result["guard"]["type"] == "confirmRequired"
        return
    assert result["guard"]["type"] == "guardError", done.stderr
    assert b"a person must reset the turn" in done.stderr
    assert b"safedel guard reset" not in done.stderr  # its reader may be a model
    reset = [sys.executable, "-m", "safedel", "guard", "reset", "--session", sandbox.session]
    reset += ["--turn", sandbox.turn]
    assert as_a_person(reset, env=sandbox.base_env(), capture_output=True).returncode == 0
    done, result = run(sandbox, "rm f51")
    assert done.returncode == 0 and left(sandbox) == 9, done.stderr


def test_an_approval_a_person_made_before_the_run_counts(sandbox):
    files(sandbox)
    done, _result = run(sandbox, FIRST + " && " + DELETERS["rm"])
    assert left(sandbox) == 10 and done.returncode == 1
    approve = [sys.executable, "-m", "safedel", "guard", "approve", "--session", sandbox.session]
    approve += ["--turn", sandbox.turn]
    assert as_a_person(approve, env=sandbox.base_env(), capture_output=True).returncode == 0
    done, result = run(sandbox, DELETERS["rm"])
    assert done.returncode == 0 and left(sandbox) == 0, done.stderr


FORGE = (
    "import json, sys\n"
    "for path in sys.argv[1:]:\n"
    "    record = json.load(open(path))\n"
    "    record['turn'] = 'elsewhere'\n"
    "    record.pop('ledger', None)\n"
    "    open(path, 'w').write(json.dumps(record))\n"
)


def test_a_process_moved_to_another_turn_deletes_nothing(sandbox):
    """A command that rewrites its run's record and pointers to give its deleters a turn
    of their own (whose ledger it could write as it likes) fails closed: its pointer no
    longer says what the run's keeper holds (core/contract/keptrecord.py)."""
    files(sandbox, 3)
    (sandbox.root / "forge.py").write_text(FORGE)
    places = (
        '"$SAFEDEL_STATE_DIR/runs/$SAFEDEL_RUN_ID/run.json" '
        "/run/user/$(id -u)/safedel/by-pid/$PPID-* /tmp/safedel-$(id -u)/by-pid/$PPID-* "
        '"$(getent passwd $(id -u) | cut -d: -f6)"/.local/state/safedel/by-pid/$PPID-*'
    )
    script = (
        f'for f in {places}; do [ -f "$f" ] && set -- "$@" "$f"; done; '
        f'python3 {sandbox.root / "forge.py"} "$@" && rm f1'
    )
    done, result = run(sandbox, script, "--net", "off")
    assert left(sandbox) == 3 and done.returncode == 1, done.stderr
    assert b"differs from the run's record" in done.stderr
    assert result["trashed"] == []


def test_the_keeper_holds_as_uid_65534_too():
    """Nothing above depends on root: the run and its command as uid 65534, in a scratch
    folder of its own, garbage then an approval written over the ledger."""
    if os.geteuid() != 0:
        pytest.skip("needs root to act as uid 65534")
    setpriv = require("setpriv")
    from robustness import fuzzcase

    scratch = pathlib.Path(tempfile.mkdtemp(prefix="safedel-keeper-"))  # pytest's is root's
    os.chmod(scratch, 0o755)
    for name in ("home", "work", "tmp"):
        (scratch / name).mkdir()
        os.chown(scratch / name, 65534, 65534)
    work = scratch / "work"
    for index in range(1, 61):
        (work / f"f{index}").write_text(str(index))
        os.chown(work / f"f{index}", 65534, 65534)
    env = fuzzcase.base_env(str(scratch))
    env["PYTHONPATH"] = fuzzcase.readable_package(str(scratch / "package"))
    script = (
        f"{FIRST} && {LEDGER}; "
        'echo \'{"op":"approve","id":"9.ab"}\' >> "$L"; '
        f'{DELETERS["rm"]}; echo garbage > "$L"; {DELETERS["rm"]}'
    )
    argv = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    # The system's python: the launchers run on the interpreter that runs safedel, and
    # uid 65534 cannot reach one under /root.
    argv += [require("/usr/bin/python3"), "-m", "safedel", "run", "--session", "S", "--turn", "T"]
    argv += ["--", "bash", "-c", script]
    try:
        done = subprocess.run(argv, cwd=work, env=env, capture_output=True, timeout=300)
        assert len([p for p in work.iterdir() if p.name.startswith("f")]) == 10, done.stderr
        assert b"SAFE_DELETE_BULK_CONFIRM_REQUIRED" in done.stderr
        assert b"SAFE_DELETE_BULK_GUARD_ERROR" in done.stderr
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
