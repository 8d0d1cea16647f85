"""Guard signal files: a refusal left where a harness finds it, taken exactly once.

<state>/signals/<sha256(session)[:16]>/<sha256(key)[:16]>.json holds one JSON object:
{"type": "confirmRequired"|"rejected"|"guardError", "payload": {...}, "session",
"turn", "toolCall", "run", "createdAt"}. Under `safedel run` the key is the run
("run:<run id>"), so a run takes only what its own processes caused, never a signal an
earlier run's straggler left under the same tool call; elsewhere it is the tool call
(or the turn). Writers replace a file whole by rename, so a reader never sees half of
it; a reader claims it by renaming it to a private name first, so two readers can
never both take the same signal.
"""

import os
import time

from .. import jsonl
from ..private import digest, open_dir
from .ledger import SIGNALS


def signal_parts(session, key):
    return [SIGNALS, digest(session), digest(key) + ".json"]


def _unique(name):
    return f".{name}.{os.getpid()}.{os.urandom(4).hex()}"


def run_key(run_id):
    return "run:" + run_id


def write_signal(settings, kind, payload):
    """Leave the latest refusal for the run (or the tool call, or the turn). Never raises."""
    run = getattr(settings, "run", None) or os.environ.get("SAFEDEL_RUN_ID") or None
    signal = {"type": kind, "payload": payload, "session": settings.session}
    signal.update(turn=settings.turn, toolCall=settings.tool_call, run=run)
    signal["createdAt"] = int(time.time() * 1000)
    key = run_key(run) if run else settings.tool_call or settings.turn
    parts = signal_parts(settings.session, key)
    name = parts.pop()
    data = jsonl.dumps(signal).encode("ascii")
    temporary = _unique(name) + ".tmp"
    try:
        with open_dir(settings.state_dir, parts) as directory:
            directory.write(temporary, data, exclusive=True)
            directory.replace(temporary, name)
    except OSError:
        pass  # the marker and the report event already carry the refusal


def take_signal(state_dir, session, key):
    """The pending signal for key (a run key, tool call or turn), removed; None when
    there is none."""
    parts = signal_parts(session, key)
    name = parts.pop()
    try:
        with open_dir(state_dir, parts, create_dirs=False) as directory:
            return _claim(directory, name)
    except OSError:
        return None  # nothing pending


def take_pending(state_dir, session, tool_call=None, turn=None):
    """The newest pending signal of a tool call (or, without one, of a turn), whichever
    process left it: its own key first, then those left under a run that has ended."""
    found = take_signal(state_dir, session, tool_call or turn)
    if found is not None:
        return found
    field, wanted = ("toolCall", tool_call) if tool_call else ("turn", turn)
    try:
        with open_dir(state_dir, [SIGNALS, digest(session)], create_dirs=False) as directory:
            candidates = []
            for name in directory.listdir():
                signal = _peek(directory, name) if name.endswith(".json") else None
                if signal and signal.get("run") and signal.get(field) == wanted:
                    candidates.append((signal.get("createdAt") or 0, name))
            for _, name in sorted(candidates, reverse=True):
                taken = _claim(directory, name)
                if taken is not None:
                    return taken
    except OSError:
        pass
    return None


def _peek(directory, name):
    try:
        fd = directory.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            return jsonl.loads(handle.read(65536))
    except (OSError, ValueError):
        return None


def _claim(directory, name):
    """Read and remove one signal file; None if another reader claimed it first."""
    claimed = _unique(name) + ".taking"
    try:
        directory.replace(name, claimed)
    except OSError:
        return None
    try:
        fd = directory.open(claimed, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(65536)
    except OSError:
        return None
    finally:
        try:
            directory.unlink(claimed)
        except OSError:
            pass
    try:
        signal = jsonl.loads(data)
    except ValueError:
        return None
    return signal if isinstance(signal, dict) else None


def hand_over(state_dir, session, key, to_key):
    """The pending signal for key, read, then renamed to to_key's name: a nested run's
    refusal handed to the run around it, whose harness asks. None when there is none.
    A rename, not a claim: a process under the enclosing run's net that moves a state
    file to a name whose deletion is left to the kernel is refused (net/moves.py)."""
    parts = signal_parts(session, key)
    name = parts.pop()
    try:
        with open_dir(state_dir, parts, create_dirs=False) as directory:
            signal = _peek(directory, name)
            if signal is not None:
                directory.replace(name, signal_parts(session, to_key)[-1])
            return signal
    except OSError:
        return None  # nothing pending, or it stays where the signal of this run is
