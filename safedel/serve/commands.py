"""The commands a client may send, each a function of (server, conn, request) that
returns the response's data, or (data, what to do once the response is out)."""

import base64
import itertools
import os
import signal

from ..core.guard import ledger, turn
from ..executor import limits
from . import runs, sessions, terminal
from .protocol import ProtocolError, field

CAPABILITIES = {
    "pty": True,
    "stdin": True,
    "guardRequests": True,
    "streams": ["stdout", "stderr", "pty"],
    "keys": sorted(terminal.KEYS),
}
SIGNALS = {"SIGTERM": signal.SIGTERM, "SIGKILL": signal.SIGKILL, "SIGINT": signal.SIGINT}
_process_ids = itertools.count(1)


def _session_id(request):
    value = request.get("sessionId")
    if not isinstance(value, str) or not value:
        raise ProtocolError("missing field: sessionId")
    return value


def _session(server, request):
    found = server.sessions.get(_session_id(request))
    if found is None:
        raise ProtocolError(f"no open session {request.get('sessionId')!r}; send OpenSession")
    return found


def _run(server, data):
    process_id = field(data, "processId", str)
    found = server.runs.get(process_id)
    if found is None:
        raise ProtocolError(f"unknown processId {process_id!r}")
    return found


def ping(server, conn, request):
    return {"pong": True}


def open_session(server, conn, request):
    session_id = _session_id(request)
    data = request["data"]
    roots = field(data, "workspaceRoots", list, required=False, default=[])
    if not all(isinstance(r, str) and os.path.isabs(r) for r in roots):
        raise ProtocolError("data.workspaceRoots must be absolute paths")
    threshold = field(data, "threshold", int, required=False)
    if threshold is not None and not 1 <= threshold <= 99999:
        raise ProtocolError("data.threshold must be in 1..99999")
    report = field(data, "reportPath", str, required=False)
    with server.lock:
        session = server.sessions.get(session_id)
        if session is None:  # idempotent: the same id gets the session it has
            session = sessions.Session(session_id, roots, threshold, report)
            server.sessions[session_id] = session
    reply = {"version": server.version, "capabilities": CAPABILITIES}
    reply.update(session.describe())
    return reply, server.warm_net  # runs come next: have their fork server ready


def _end_session(server, request, forget_guard):
    session = _session(server, request)
    with server.lock:
        mine = [r for r in server.runs.values() if r.session is session]
        server.sessions.pop(session.id, None)
    running = [run for run in mine if run.alive()]
    for run in running:
        run.kill(signal.SIGTERM)
    removed = 0
    if forget_guard:
        if server.keeper is not None:
            server.keeper.drop(session.id)  # its ledgers go on purpose: no damage
        try:
            removed = turn.reset(server.state_dir, session.id)
        except ledger.GuardError as exc:
            raise ProtocolError(str(exc)) from None
    return {"killed": len(running), "ledgersRemoved": removed}


def close_session(server, conn, request):
    return _end_session(server, request, False)


def delete_session(server, conn, request):
    return _end_session(server, request, True)


def _spec(server, data):
    argv = field(data, "argv", list, required=False)
    command = field(data, "command", str, required=False)
    if (argv is None) == (command is None):
        raise ProtocolError("give either data.argv or data.command")
    if command is not None:
        argv = [field(data, "shell", str, required=False, default="/bin/sh"), "-c", command]
    if not argv or not all(isinstance(a, str) for a in argv):
        raise ProtocolError("data.argv must be a non-empty list of strings")
    cwd = field(data, "cwd", str, required=False)
    if cwd is not None and not os.path.isdir(cwd):
        raise ProtocolError(f"data.cwd {cwd!r} is not a directory")
    env = field(data, "env", dict, required=False, default={})
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise ProtocolError("data.env must map strings to strings")
    unprotected = field(data, "unprotected", bool, required=False, default=False)
    if unprotected and not server.allow_unprotected:
        raise ProtocolError("unprotected runs need safedel serve --allow-unprotected")
    timeout = field(data, "timeoutMs", int, required=False)
    if timeout is None:
        timeout = limits.timeout_ms(None, server.base_env)
    elif not 0 <= timeout <= limits.max_timeout_ms(server.base_env):
        raise ProtocolError("data.timeoutMs is out of range")
    max_output = field(data, "maxOutput", int, required=False)
    max_output = limits.max_output(None if max_output is None else str(max_output), server.base_env)
    return {
        "argv": argv,
        "cwd": os.path.abspath(cwd) if cwd else None,
        "env": env,
        "turn": field(data, "turn", str, required=False),
        "toolCall": field(data, "toolCall", str, required=False),
        "timeoutMs": timeout or None,
        "graceMs": limits.DEFAULT_GRACE_MS,
        "maxOutput": max_output,
        "unprotected": unprotected,
        "usePty": field(data, "usePty", bool, required=False, default=False),
        "cols": _size(data, "cols", terminal.DEFAULT_SIZE[0]),
        "rows": _size(data, "rows", terminal.DEFAULT_SIZE[1]),
    }


def _size(data, name, default):
    value = field(data, name, int, required=default is None, default=default)
    if not 1 <= value <= 10_000:
        raise ProtocolError(f"data.{name} must be in 1..10000")
    return value


def run_executable(server, conn, request):
    session = _session(server, request)
    spec = _spec(server, request["data"])
    run = runs.ServedRun(server, session, conn, f"p{next(_process_ids)}", spec)
    data = run.start()
    with server.lock:
        server.runs[run.id] = run
    return data, run.begin


def process_kill(server, conn, request):
    run = _run(server, request["data"])
    name = field(request["data"], "signal", str, required=False, default="SIGTERM")
    if name not in SIGNALS:
        raise ProtocolError(f"data.signal must be one of {', '.join(SIGNALS)}")
    alive = run.alive()
    run.kill(SIGNALS[name])
    return {"processId": run.id, "wasAlive": alive}


def process_is_alive(server, conn, request):
    run = _run(server, request["data"])
    return {"processId": run.id, "alive": run.alive()}


def process_write(server, conn, request):
    data = request["data"]
    run = _run(server, data)
    text = field(data, "data", str, required=False, default="")
    if field(data, "encoding", str, required=False, default="utf-8") == "base64":
        raw = base64.b64decode(text, validate=True)
    else:
        raw = text.encode("utf-8")
    written = run.write(raw, eof=field(data, "eof", bool, required=False, default=False))
    return {"processId": run.id, "written": written}


def process_send_key(server, conn, request):
    run = _run(server, request["data"])
    run.send_key(field(request["data"], "key", str))
    return {"processId": run.id}


def process_resize(server, conn, request):
    data = request["data"]
    run = _run(server, data)
    run.resize(_size(data, "cols", None), _size(data, "rows", None))
    return {"processId": run.id}


def report_block_choice(server, conn, request):
    session = _session(server, request)
    data = request["data"]
    choice = field(data, "choice", str)
    request_id = field(data, "requestId", str, required=False)
    return sessions.answer(session, choice, request_id, server.keeper)


def get_statistics(server, conn, request):
    session = _session(server, request)
    with session.lock:
        stats = dict(session.stats)
    with server.lock:
        stats["running"] = sum(r.alive() for r in server.runs.values() if r.session is session)
    return stats


TABLE = {
    "Ping": ping,
    "OpenSession": open_session,
    "CloseSession": close_session,
    "DeleteSession": delete_session,
    "RunExecutable": run_executable,
    "ProcessKill": process_kill,
    "ProcessIsAlive": process_is_alive,
    "ProcessWrite": process_write,
    "ProcessSendKey": process_send_key,
    "ProcessResize": process_resize,
    "ReportBlockChoice": report_block_choice,
    "GetStatistics": get_statistics,
}


def dispatch(server, conn, request):
    handler = TABLE.get(request["command"])
    if handler is None:
        raise ProtocolError(f"unknown command {request['command']!r}")
    try:
        return handler(server, conn, request)
    except ValueError as exc:  # base64, limits
        raise ProtocolError(str(exc)) from None
