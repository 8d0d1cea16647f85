"""The result object of a run, as result.schema.json (shipped beside this file) says.

Fields kept from before the executor existed: exitCode, signal, durationMs, session,
turn, trashed, refused, guard. Capture mode fills stdout, stderr, truncated and
outputFiles; without it they are null (false for truncated).
"""

import os

SCHEMA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "result.schema.json")


def build(outcome, env, events, guard, run_id, views=None, outputs=None):
    trashed = [e for e in events if e.get("operation") == "trash"]
    refused = [e for e in events if e.get("operation") == "refuse"]
    views = views or {}
    return {
        "stdout": views.get("stdout", (None, False))[0],
        "stderr": views.get("stderr", (None, False))[0],
        "exitCode": outcome.exit_code,
        "signal": outcome.signal,
        "interrupted": outcome.interrupted is not None,
        "timedOut": outcome.timed_out,
        "durationMs": outcome.duration_ms,
        "exitStatusUnknown": outcome.unknown,
        "truncated": any(cut for _, cut in views.values()),
        "outputFiles": dict(outputs.paths) if outputs is not None else None,
        "runId": run_id,
        "session": env["SAFEDEL_SESSION"],
        "turn": env["SAFEDEL_TURN"],
        "toolCall": env["SAFEDEL_TOOL_CALL"] or None,
        "host": env.get("SAFEDEL_HOST"),
        "guard": guard and {k: guard[k] for k in ("type", "payload")},
        "safeDeleteEvents": events,
        "trashed": trashed,
        "refused": refused,
    }


def write(result, path=None):
    """The result as JSON: to path, or (None) returned as text for stdout."""
    import json  # only here: json pulls in re, enum and functools

    text = json.dumps(result, indent=2) + "\n"
    if path is None:
        return text
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return None
