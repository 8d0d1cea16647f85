"""Reading markers back: only whole, well-formed marker lines count; nothing is fatal."""

import io
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safedel.core.report import markers, markerscan

CONFIRM = markerscan.CONFIRM_REQUIRED
FAIL = markerscan.FAIL_CLOSED
REJECTED = markerscan.REJECTED
OUTSIDE = markerscan.OUTSIDE_WORKSPACE
GOOD = '{"count":48,"threshold":50,"targets":["/w/a"],"targetCount":3}'
PAYLOAD = json.loads(GOOD)


def line(kind=CONFIRM, body=GOOD):
    return f"[safe-delete][{kind}] {body}"


HUGE = {"targets": [f"/w/{'x' * 4000}{n}" for n in range(20)], "count": 1}
TOO_HUGE = json.dumps({"blob": "y" * (markerscan.MAX_LINE + 10)})

# (name, output, the markers found, what to ask about)
CASES = [
    ("plain", line(), {CONFIRM: PAYLOAD}, CONFIRM),
    ("crlf", line() + "\r\n", {CONFIRM: PAYLOAD}, CONFIRM),
    ("crlf between lines", f"a\r\n{line()}\r\nb\r\n", {CONFIRM: PAYLOAD}, CONFIRM),
    ("empty output", "", {}, None),
    ("only noise", "make: *** [all] Error 1\n", {}, None),
    ("wrong prefix", line().replace("[safe-delete]", "[safe_delete]"), {}, None),
    ("prefix case", line().replace("[safe-delete]", "[SAFE-DELETE]"), {}, None),
    ("no space", line().replace("] {", "]{"), {}, None),
    ("two spaces", line().replace("] {", "]  {"), {}, None),
    ("leading space", " " + line(), {}, None),
    ("inside a longer line", "rm: cannot remove '" + line() + "': Permission denied", {}, None),
    ("after text on the line", "note: " + line(), {}, None),
    ("trailing text", line() + " extra", {}, None),
    ("two markers on a line", line() + line(FAIL, '{"path":"/w/x"}'), {}, None),
    ("truncated JSON", line(body=GOOD[:-5]), {}, None),
    ("truncated prefix", "[safe-delete][SAFE_DELETE_BULK_CONF", {}, None),
    ("no payload", f"[safe-delete][{CONFIRM}] ", {}, None),
    ("array payload", line(body='["a"]'), {}, None),
    ("string payload", line(body='"x"'), {}, None),
    ("number payload", line(body="3"), {}, None),
    ("NaN in payload", line(body='{"count":NaN}'), {}, None),
    ("broken JSON", line(body='{"count":}'), {}, None),
    ("lower-case kind", line("safe_delete_fail_closed", '{"path":"/w/x"}'), {}, None),
    ("foreign kind", line("OTHER_THING", '{"a":1}'), {}, None),
    ("non-ASCII payload", line(FAIL, '{"path":"/w/\u00e9"}'), {}, None),
    ("escaped non-ASCII", line(FAIL, '{"path":"/w/\\u00e9"}'), {FAIL: {"path": "/w/\u00e9"}}, FAIL),
    (
        "last of a kind wins",
        line(body='{"count":1}') + "\n" + line(body='{"count":2}'),
        {CONFIRM: {"count": 2}},
        CONFIRM,
    ),
    (
        "a broken later one does not hide the earlier",
        line(body='{"count":1}') + "\n" + line(body='{"count":'),
        {CONFIRM: {"count": 1}},
        CONFIRM,
    ),
    ("rejected: nothing to ask", line(REJECTED), {REJECTED: PAYLOAD}, None),
    (
        "guard error: nothing to ask",
        line(markerscan.GUARD_ERROR, '{"message":"m"}'),
        {markerscan.GUARD_ERROR: {"message": "m"}},
        None,
    ),
    (
        "fail closed asks",
        line(FAIL, '{"path":"/w/x","reason":"r"}'),
        {FAIL: {"path": "/w/x", "reason": "r"}},
        FAIL,
    ),
    (
        "outside workspace asks",
        line(OUTSIDE, '{"targets":["/o"],"targetCount":1}'),
        {OUTSIDE: {"targets": ["/o"], "targetCount": 1}},
        OUTSIDE,
    ),
    (
        "the later asking kind is the one to ask about",
        line(FAIL, '{"path":"/w/x"}') + "\n" + line(),
        {FAIL: {"path": "/w/x"}, CONFIRM: PAYLOAD},
        CONFIRM,
    ),
    (
        "forged: a file name holding a newline, inside a native error",
        "Error: EPERM: operation not permitted, unlink '/w/evil\n" + line() + "\n'",
        {},
        None,
    ),
    (
        "forged: right after an error line for the same path",
        "rm: cannot remove '/w/a': Operation not permitted\n" + line(),
        {},
        None,
    ),
    (
        "forged: after Node's e.message, which has no error word",
        "ENOTEMPTY: directory not empty, rmdir '/w/d\n" + line() + "\n'",
        {},
        None,
    ),
    (
        "forged: after Python's str(exc) naming the same path",
        "[Errno 2] No such file or directory: /w/a\n" + line(),
        {},
        None,
    ),
    (
        "genuine: after an open quote in a line that is no error",
        "DONE: it's over\n" + line(),
        {CONFIRM: PAYLOAD},
        CONFIRM,
    ),
    (
        "genuine: marker first, then the error for its path",
        line(FAIL, '{"path":"/w/a"}') + "\nrm: cannot remove '/w/a': No space left on device",
        {FAIL: {"path": "/w/a"}},
        FAIL,
    ),
    (
        "genuine: after an error line for another path",
        "rm: cannot remove '/w/b': Permission denied\n" + line(),
        {CONFIRM: PAYLOAD},
        CONFIRM,
    ),
    (
        "genuine: after a closed double-quoted name with an apostrophe",
        'PermissionError: [Errno 1] Operation not permitted: "/w/it\'s"\n' + line(),
        {CONFIRM: PAYLOAD},
        CONFIRM,
    ),
    (
        "genuine: after GNU's escaped quote",
        "rm: cannot remove '/w/it'\\''s': Permission denied\n" + line(),
        {CONFIRM: PAYLOAD},
        CONFIRM,
    ),
    (
        "ls of a file named like a marker, then a genuine one",
        "'" + line(body='{"count":999}') + "'\n" + line(),
        {CONFIRM: PAYLOAD},
        CONFIRM,
    ),
    ("huge payload", line(body=json.dumps(HUGE, separators=(",", ":"))), {CONFIRM: HUGE}, CONFIRM),
    ("too huge to be ours", line(body=TOO_HUGE), {}, None),
    ("deep nesting", line(body='{"a":' + "[" * 100000 + "]" * 100000 + "}"), {}, None),
    ("NUL bytes", line().replace("48", "4\x008"), {}, None),
]


@pytest.mark.parametrize("name, output, found, ask", CASES, ids=[c[0] for c in CASES])
def test_marker_table(name, output, found, ask):
    for scan in (
        markerscan.scan_text(output),
        markerscan.scan_stream(io.BytesIO(output.encode("utf-8", "surrogatepass"))),
    ):
        assert scan.markers == found
        asking = scan.ask()
        assert (asking and asking[0]) == ask
        if ask:
            assert asking[1] == found[ask]


def test_the_table_is_big_enough():
    assert len(CASES) >= 30


def test_emitted_markers_read_back_whatever_the_name():
    hostile = "/w/a\n[safe-delete][SAFE_DELETE_FAIL_CLOSED] {}\x1b[31m\u2028\udcff"
    payload = {"count": 1, "threshold": 50, "targets": [hostile], "targetCount": 1}
    text = markers.format_marker(CONFIRM, payload)
    assert markerscan.scan_text(text).markers == {CONFIRM: payload}


def test_a_line_longer_than_the_limit_is_skipped_in_bounded_memory():
    stream = io.BytesIO(b"x" * (3 * markerscan.MAX_LINE) + b"\n" + line().encode() + b"\n")
    assert markerscan.scan_stream(stream).markers == {CONFIRM: PAYLOAD}


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_fuzz_text_never_raises(text):
    scan = markerscan.scan_text(text)
    assert all(isinstance(p, dict) for p in scan.markers.values())
    scan.as_json()


@settings(max_examples=300, deadline=None)
@given(st.binary())
def test_fuzz_bytes_never_raise(data):
    markerscan.scan_stream(io.BytesIO(data))


PIECES = st.sampled_from(
    [
        "[safe-delete]",
        "[",
        "]",
        " ",
        "{",
        "}",
        '"',
        ":",
        ",",
        "\n",
        "\r",
        "'",
        CONFIRM,
        FAIL,
        "count",
        "1",
        "Error: ",
        "\\",
        "null",
        "[]",
        "\u2018",
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(PIECES, max_size=40))
def test_fuzz_near_markers_never_raise(pieces):
    text = "".join(pieces)
    scan = markerscan.scan_text(text)
    for kind, payload in scan.markers.items():
        assert kind.startswith("SAFE_DELETE_") and isinstance(payload, dict)


def test_markers_command(tmp_path):
    out = tmp_path / "stderr.txt"
    out.write_text("noise\n" + line(FAIL, '{"path":"/w/x"}') + "\n" + line() + "\n")
    argv = [sys.executable, "-m", "safedel", "markers"]
    shown = subprocess.run([*argv, str(out), "--json"], capture_output=True, check=True)
    assert json.loads(shown.stdout) == {
        "markers": {FAIL: {"path": "/w/x"}, CONFIRM: PAYLOAD},
        "askUser": True,
        "ask": {"kind": CONFIRM, "payload": PAYLOAD},
    }
    piped = subprocess.run([*argv, "-"], input=b"nothing here\n", capture_output=True, check=True)
    assert piped.stdout == b"ask the user: no\n"
    missing = subprocess.run([*argv, str(tmp_path / "nope")], capture_output=True)
    assert missing.returncode == 2 and b"safedel markers:" in missing.stderr
    assert b"Traceback" not in missing.stderr
