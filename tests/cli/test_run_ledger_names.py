"""A run names its guard ledger once, in its record; launchers under it use those names.

The names are sha256 digests of the session and turn (core/private.py). Loading sha256
costs an rm launcher more than the whole take, so `safedel run` computes them and the
launchers under it read them from the record (core/contract/runrecord.py); where no run record
exists, a shim still computes them itself.
"""

import json
import os
import subprocess

from safedel.core import private
from safedel.core.contract import runrecord
from safedel.core.guard import ledger as guard


def _imported(stderr):
    return {
        line.split("|")[-1].strip()
        for line in stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }


def test_a_launcher_under_a_run_takes_the_ledger_names_from_the_record(sandbox):
    (sandbox.work / "victim").write_bytes(b"x")
    # The launcher by its #! interpreter, with -X importtime: what it loads, shown.
    script = (
        'rm=$(command -v rm); py=$(head -n1 "$rm" | cut -c3- | cut -d" " -f1); '
        '"$py" -I -S -X importtime "$rm" victim'
    )
    done = sandbox.run("sh", "-c", script)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert not (sandbox.work / "victim").exists()
    assert len(sandbox.trashed_names()) == 1
    names = _imported(done.stderr)
    # The engine runs from the bundle's plan, past the import system; what hashing would
    # load still comes through it, and the trace shows there was none.
    assert "encodings" in names  # the trace is there ...
    assert not names & {"_sha256", "_sha2", "hashlib"}  # ... and holds no hashing
    # It went through the guard: the take went to the ledger the digests name, where
    # every other runtime looks.
    ledger = sandbox.state.joinpath(*guard.ledger_parts(sandbox.session, sandbox.turn))
    takes = [json.loads(line) for line in ledger.read_bytes().splitlines()]
    assert [t["op"] for t in takes] == ["take"] and takes[0]["n"] == 1


def test_the_record_holds_the_digests_of_its_own_session_and_turn(sandbox):
    done = sandbox.run("sh", "-c", 'cat "$SAFEDEL_STATE_DIR/runs/$SAFEDEL_RUN_ID/run.json"')
    assert done.returncode == 0, done.stderr.decode()
    record = json.loads(done.stdout)
    assert record[runrecord.LEDGER] == [
        private.digest(sandbox.session),
        private.digest(sandbox.turn),
    ]
    assert runrecord.known_digests(record) == {
        sandbox.session: private.digest(sandbox.session),
        sandbox.turn: private.digest(sandbox.turn),
    }


def test_names_that_are_not_digests_are_never_used():
    good = {"session": "s", "turn": "t", runrecord.LEDGER: ["0" * 16, "a" * 16]}
    assert runrecord.known_digests(good) == {"s": "0" * 16, "t": "a" * 16}
    for names in (["../../../etc", "a" * 16], ["A" * 16, "a" * 16], ["a" * 15, "a" * 16]):
        assert runrecord.known_digests(dict(good, ledger=names)) == {}
    assert runrecord.known_digests(dict(good, ledger="a" * 16)) == {}
    assert runrecord.known_digests({"session": "s", "turn": "t"}) == {}
    assert runrecord.known_digests(dict(good, turn=None)) == {}


def test_without_a_record_the_names_are_computed(sandbox):
    # Driven directly, with the run's environment but no run: the shim hashes.
    (sandbox.work / "victim").write_bytes(b"x")
    env = sandbox.shim_env()
    launcher = os.path.join(sandbox.shim_home, "bin", "rm")
    done = subprocess.run([launcher, "victim"], cwd=sandbox.work, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    ledger = sandbox.state.joinpath(*guard.ledger_parts(sandbox.session, sandbox.turn))
    assert ledger.exists()
