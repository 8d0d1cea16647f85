"""`safedel run --capture`: timeouts, the whole process tree ended, output to files with a
bounded view, and the result contract checked against the shipped JSON Schema."""

import json
import os
import re
import signal
import stat
import subprocess
import sys
import time

import psutil
import pytest
from resultschema import valid_result

NOTE = re.compile(r"… \[([0-9,]+) bytes cut; full output: (.+)\] …")


def sleeps_alive(*seconds):
    """Live `sleep N` processes for the given (unique) N."""
    wanted = {str(s) for s in seconds}
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        cmd = proc.info["cmdline"] or []
        alive = proc.info["status"] != psutil.STATUS_ZOMBIE
        if cmd[:1] == ["sleep"] and cmd[1:2] and cmd[1] in wanted and alive:
            found.append(proc)
    return found


@pytest.fixture
def cleanup_sleeps():
    numbers = []
    yield numbers
    for proc in sleeps_alive(*numbers):  # only if a test failed: never leave them around
        proc.kill()


def captured(sandbox, *command, options=(), env=None, timeout=120):
    result_path = sandbox.work / "result.json"
    if result_path.exists():
        result_path.unlink()
    done = sandbox.run(
        *command,
        run_options=["--capture", "--result", str(result_path), *options],
        env=env,
        timeout=timeout,
    )
    return done, valid_result(result_path)


def test_timeout_ends_setsid_and_double_forked_children(sandbox, cleanup_sleeps):
    cleanup_sleeps += [3001, 3002, 3003, 3004]
    script = "sleep 3001 & setsid sleep 3002 & (setsid sleep 3003 &); sleep 3004"
    # The sleeps would live 50 minutes; the helper's hang guard fails a run that waits.
    done, result = captured(sandbox, "bash", "-c", script, options=["--timeout", "1s"])
    assert done.returncode == 124
    assert result["timedOut"] is True and result["interrupted"] is False
    assert result["exitCode"] is None and result["signal"] == "SIGTERM"
    assert sleeps_alive(*cleanup_sleeps) == []


def test_a_child_ignoring_sigterm_gets_sigkill(sandbox, cleanup_sleeps):
    cleanup_sleeps += [3005, 3006]
    script = "trap '' TERM; setsid sleep 3005 & sleep 3006"
    options = ["--timeout", "500ms", "--kill-grace", "300ms"]
    done, result = captured(sandbox, "bash", "-c", script, options=options)
    assert done.returncode == 124
    assert result["timedOut"] is True and result["signal"] == "SIGKILL"
    assert sleeps_alive(*cleanup_sleeps) == []


def test_sigterm_to_safedel_ends_the_tree(sandbox, cleanup_sleeps):
    cleanup_sleeps += [3007, 3008, 3009]
    out = sandbox.work / "out"
    result_path = sandbox.work / "result.json"
    script = "sleep 3007 & (setsid sleep 3008 &); echo ready; sleep 3009"
    argv = [sys.executable, "-m", "safedel", "run", "--capture", "--stdout-file", str(out)]
    argv += ["--result", str(result_path), "--", "bash", "-c", script]
    proc = subprocess.Popen(argv, env=sandbox.base_env(), cwd=sandbox.work)
    deadline = time.monotonic() + 60
    while len(sleeps_alive(*cleanup_sleeps)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert out.read_bytes() == b"ready\n"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    result = valid_result(result_path)
    assert result["interrupted"] is True and result["timedOut"] is False
    assert result["stdout"] == "ready\n"
    assert sleeps_alive(*cleanup_sleeps) == []


def test_background_child_does_not_hold_the_run_and_is_ended(sandbox, cleanup_sleeps):
    cleanup_sleeps.append(3010)
    script = "sleep 3010 >/dev/null 2>&1 & echo done"
    # The sleep would live 50 minutes: a run that waited for it would hit the helper's
    # hang guard (a failure), and one that timed out would say so in the result.
    done, result = captured(sandbox, "bash", "-c", script)
    assert done.returncode == 0 and done.stdout == b"done\n"
    assert result["exitCode"] == 0 and result["stdout"] == "done\n"
    assert result["timedOut"] is False
    assert sleeps_alive(3010) == []


def test_keep_background_leaves_a_daemon_running(sandbox, cleanup_sleeps):
    cleanup_sleeps.append(3011)
    done, _ = captured(
        sandbox,
        "bash",
        "-c",
        "setsid sleep 3011 >/dev/null 2>&1 & echo started",
        options=["--keep-background"],
    )
    assert done.returncode == 0
    assert len(sleeps_alive(3011)) == 1


WRITER = r"""
import os, sys
line = b"\x1b[1;31mred\x1b[0m \xff\xfe bad \x1b]0;title\x07 %07d tab\there\r\n"
out = sys.stdout.buffer
count = 0
for n in range(5 * 1024 * 1024 // len(line % 0) + 1):
    out.write(line % n)
out.write(b"LAST LINE\n")
"""


def expected_bytes():
    line = b"\x1b[1;31mred\x1b[0m \xff\xfe bad \x1b]0;title\x07 %07d tab\there\r\n"
    rows = 5 * 1024 * 1024 // len(line % 0) + 1
    return b"".join(line % n for n in range(rows)) + b"LAST LINE\n"


def test_five_megabytes_with_ansi_and_bad_utf8(sandbox):
    done, result = captured(sandbox, sys.executable, "-c", WRITER)
    assert done.returncode == 0
    raw = expected_bytes()
    assert len(raw) > 5 * 1024 * 1024
    with open(result["outputFiles"]["stdout"], "rb") as handle:
        assert handle.read() == raw  # every byte, raw
    view = result["stdout"]
    assert done.stdout.decode() == view
    assert len(view) <= 30_000 and result["truncated"] is True
    assert "\x1b" not in view and "\r" not in view and "\x07" not in view
    shown_line = "red \ufffd\ufffd bad  %07d tab\there\n"
    cut = NOTE.search(view)
    assert cut.group(2) == result["outputFiles"]["stdout"]
    before, _, after = view.partition("\n… [")
    head, tail = before + "\n", after[after.index("\n") + 1 :]
    lines = head.count("\n")
    assert head == "".join(shown_line % n for n in range(lines))  # whole lines, in order
    rows = len(raw.splitlines()) - 1
    tail_lines = tail.count("\n") - 1
    assert tail == "".join(shown_line % n for n in range(rows - tail_lines, rows)) + "LAST LINE\n"
    line_bytes = len(raw.splitlines(keepends=True)[0])
    shown_bytes = (lines + tail_lines) * line_bytes + len(b"LAST LINE\n")
    assert int(cut.group(1).replace(",", "")) == len(raw) - shown_bytes


def test_memory_stays_flat_whatever_the_output_size(sandbox):
    """safedel's peak memory for 40 MB of output is that for 1 MB, give or take."""
    probe = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )

    def peak_kib(megabytes):
        writer = f"head -c {megabytes * 1024 * 1024} /dev/zero | tr '\\0' 'x\\033[m\\n'"
        argv = [sys.executable, "-c", probe, sys.executable, "-m", "safedel", "run", "--capture"]
        argv += ["--", "sh", "-c", writer]
        out = subprocess.run(argv, env=sandbox.base_env(), capture_output=True, check=True)
        return int(out.stdout)

    small, large = peak_kib(1), peak_kib(40)
    assert large < small + 12 * 1024, (small, large)


def test_output_files_are_private_and_named(sandbox):
    done, result = captured(sandbox, "sh", "-c", "echo out; echo err >&2")
    assert (result["stdout"], result["stderr"]) == ("out\n", "err\n")
    assert done.stderr.startswith(b"err\n")
    files = result["outputFiles"]
    run_dir = os.path.dirname(files["stdout"])
    assert run_dir == str(sandbox.state / "runs" / result["runId"])
    assert os.path.dirname(files["stderr"]) == run_dir
    assert stat.S_IMODE(os.stat(run_dir).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(sandbox.state / "runs").st_mode) == 0o700
    for path in files.values():
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_stdout_and_stderr_files_chosen_by_the_harness(sandbox):
    out, err = sandbox.work / "o.bin", sandbox.work / "e.bin"
    options = ["--stdout-file", str(out), "--stderr-file", str(err)]
    script = r"printf '\033[32mok\377\n'; echo e >&2"
    _, result = captured(sandbox, "sh", "-c", script, options=options)
    assert out.read_bytes() == b"\x1b[32mok\xff\n" and err.read_bytes() == b"e\n"
    assert result["outputFiles"] == {"stdout": str(out), "stderr": str(err)}
    assert result["stdout"] == "ok\ufffd\n"
    assert os.listdir(sandbox.state / "runs" / result["runId"]) == ["run.json"]


def test_json_prints_the_result_instead_of_the_view(sandbox):
    done = sandbox.run("sh", "-c", "echo hello", run_options=["--json", "--tool-call", "c-1"])
    result = valid_result(done.stdout.decode())
    assert result["stdout"] == "hello\n" and result["toolCall"] == "c-1"
    assert result["session"] == sandbox.session and result["turn"] == sandbox.turn


def test_missing_command_in_capture_mode(sandbox):
    done, result = captured(sandbox, "no-such-command-safedel")
    assert done.returncode == 127 and result["exitCode"] == 127
    assert "no-such-command-safedel: command not found" in result["stderr"]


@pytest.mark.parametrize(
    "options, message",
    [
        (["--timeout", "601s"], "over the cap"),
        (["--timeout", "11m"], "over the cap"),
        (["--timeout", "soon"], "not a duration"),
        (["--max-output", "150001"], "--max-output"),
        (["--max-output", "12k"], "--max-output"),
        (["--kill-grace", "2h"], "not a duration"),
    ],
)
def test_out_of_range_limits_are_usage_errors(sandbox, options, message):
    argv = [sys.executable, "-m", "safedel", "run", *options, "--", "touch", "ran"]
    done = subprocess.run(argv, env=sandbox.base_env(), cwd=sandbox.work, capture_output=True)
    assert done.returncode == 2
    assert message.encode() in done.stderr
    assert not (sandbox.work / "ran").exists()


def test_environment_sets_the_timeout_and_the_cap(sandbox, cleanup_sleeps):
    cleanup_sleeps.append(3012)
    env = sandbox.base_env(SAFEDEL_TIMEOUT_MS="300")
    done, result = captured(sandbox, "sleep", "3012", env=env)
    assert done.returncode == 124 and result["timedOut"] is True
    env = sandbox.base_env(SAFEDEL_MAX_TIMEOUT_MS="1000")
    argv = [sys.executable, "-m", "safedel", "run", "--timeout", "2s", "--", "true"]
    assert subprocess.run(argv, env=env, capture_output=True).returncode == 2


def test_invalid_environment_values_warn_once_and_use_the_default(sandbox):
    env = sandbox.base_env(SAFEDEL_TIMEOUT_MS="soon", SAFEDEL_MAX_OUTPUT="lots")
    done, result = captured(sandbox, "sh", "-c", "echo fine", env=env)
    assert done.returncode == 0 and result["stdout"] == "fine\n"
    assert done.stderr.count(b"SAFEDEL_TIMEOUT_MS='soon'") == 1
    assert done.stderr.count(b"SAFEDEL_MAX_OUTPUT='lots'") == 1


def test_timeout_zero_means_none(sandbox):
    env = sandbox.base_env(SAFEDEL_TIMEOUT_MS="1")
    done, result = captured(sandbox, "sleep", "0.3", options=["--timeout", "0"], env=env)
    assert done.returncode == 0 and result["timedOut"] is False


def test_old_runs_are_pruned_at_most_once_an_hour(sandbox):
    runs = sandbox.state / "runs"
    old, recent = runs / "r-000000000001", runs / "r-000000000002"
    for directory in (old, recent):
        directory.mkdir(parents=True, mode=0o700)
        (directory / "stdout").write_text("x")
    eight_days = time.time() - 8 * 86400
    os.utime(old, (eight_days, eight_days))
    captured(sandbox, "true")
    assert not old.exists() and recent.exists()
    old.mkdir(mode=0o700)
    os.utime(old, (eight_days, eight_days))
    captured(sandbox, "true")
    assert old.exists()  # the stamp says it was pruned less than an hour ago


def test_safe_delete_events_are_the_lines_this_run_added(sandbox):
    for name in "abc":
        (sandbox.work / name).write_text(name)
    before = sandbox.report_path.read_bytes() if sandbox.report_path.exists() else b""
    code = "import os; os.remove('b')"
    script = f"rm a && {sys.executable} -c \"{code}\" && node -e \"require('fs').unlinkSync('c')\""
    done, result = captured(sandbox, "bash", "-c", script)
    assert done.returncode == 0, done.stderr
    added = sandbox.report_path.read_bytes()[len(before) :]
    lines = [json.loads(line) for line in added.splitlines()]
    assert result["safeDeleteEvents"] == lines
    assert [e["runtime"] for e in lines] == ["rm", "python", "node"]
    assert all(e["run"] == result["runId"] for e in lines)
    assert result["trashed"] == lines


def test_concurrent_tool_calls_of_one_turn_get_their_own_events(sandbox):
    procs = {}
    for call in ("A", "B"):
        folder = sandbox.work / call
        folder.mkdir()
        for n in range(5):
            (folder / f"{call}{n}").write_text(call)
        argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
        argv += ["--turn", sandbox.turn, "--tool-call", call, "--json", "--"]
        argv += ["sh", "-c", f'for f in {call}/*; do rm "$f"; done']
        procs[call] = subprocess.Popen(
            argv, env=sandbox.base_env(), cwd=sandbox.work, stdout=subprocess.PIPE
        )
    for call, proc in procs.items():
        result = valid_result(proc.communicate(timeout=120)[0].decode())
        assert result["toolCall"] == call
        paths = sorted(os.path.basename(e["path"]) for e in result["safeDeleteEvents"])
        assert paths == [f"{call}{n}" for n in range(5)]
