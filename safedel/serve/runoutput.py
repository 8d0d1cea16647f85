"""What a served run (runs.ServedRun) sends its harness: its output as it comes, and
its end.

The poll loop reads the command's stdout and stderr (or its pty) until they close, or
until the run's drain deadline once the tree has ended: every chunk goes to the run's
output file and out as a ProcessOutput event. The ProcessExit carries the result
object, as `safedel run --capture` builds it, with the views of the output files.
"""

import codecs
import os
import select
import time

from ..core.report import write as core_report
from ..executor import result
from ..executor.view import render
from . import protocol


def read_output(run):
    """Stream the run's output to its files and the harness, to its end or the drain."""
    decoders = {fd: codecs.getincrementaldecoder("utf-8")("replace") for fd in run.readers}
    # poll, not select: with hundreds of runs the fds pass select's limit of 1024.
    poller, open_fds = select.poll(), list(run.readers)
    for fd in open_fds:
        poller.register(fd, select.POLLIN)
    while open_fds:
        timeout = None if run.drain_by is None else 50
        ready = [fd for fd, _ in poller.poll(timeout)]
        if not ready and run.drain_by is not None and time.monotonic() > run.drain_by:
            break
        for fd in ready:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""  # EIO: a pty whose every slave end is closed
            if not chunk:
                open_fds.remove(fd)
                poller.unregister(fd)
                continue
            stream = run.readers[fd]
            os.write(run.outputs.fds["stdout" if stream == "pty" else stream], chunk)
            run.session.count("outputBytes", len(chunk))
            emit_output(run, stream, decoders[fd].decode(chunk))
    for fd in run.readers:
        os.close(fd)


def emit_output(run, stream, text):
    if text:
        data = {"processId": run.id, "stream": stream, "data": text}
        data["timestamp"] = protocol.now_ms()
        run.conn.send(protocol.event(run.session.id, "ProcessOutput", data))


def view(outputs, stream, budget, empty):
    """(text, truncated): the model-facing view of one output file."""
    return ("", False) if empty else render(outputs.paths[stream], budget)


def report(run, outcome, views):
    """Send the run's ProcessExit: its result with the report events it wrote and the
    guard signal it left, and count them in its session's statistics."""
    env, events = run.env, []
    if not run.spec["unprotected"]:
        offset = core_report.read_after(env["SAFEDEL_REPORT"], run.offset)
        events = [e for e in offset if e.get("run") == run.run_id]
        run.take_signal()
        run.server.watch.remove(run)
    signal = run.close_signals()
    env.setdefault("SAFEDEL_SESSION", run.session.id)
    env.setdefault("SAFEDEL_TURN", run.spec["turn"] or "")
    env.setdefault("SAFEDEL_TOOL_CALL", run.spec["toolCall"] or "")
    built = result.build(outcome, env, events, signal, run.run_id, views, run.outputs)
    run.session.count("trashed", len(built["trashed"]))
    run.session.count("refused", len(built["refused"]))
    run.session.count("restored", sum(e.get("operation") == "restore" for e in events))
    built["processId"] = run.id
    run.conn.send(protocol.event(run.session.id, "ProcessExit", built))
    run.server.finished(run)
