"""Retention and purge decide from the trash itself, never from a report line (issue #29,
cases 7 and 8). The attacker is the command inside `safedel run`, which may append
anything to the report; and uid 65534, who fills a shared directory with junk that the
user's command then trashes."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest
from conftest import confirm_config

NOBODY = 65534
FORGE = """
import json, os, sys, time
trash, work, turn = sys.argv[1:4]
line = {"v": 1, "operation": "trash", "path": work + "/precious",
        "trashPath": trash + "/files/precious", "infoPath": trash + "/info/precious.trashinfo",
        "kind": "file", "runtime": "rm", "timestamp": int(time.time() * 1000) + 1000,
        "session": os.environ.get("SAFEDEL_SESSION", ""), "turn": turn,
        "counted": False, "why": "created-this-turn"}
with open(os.environ["SAFEDEL_REPORT"], "a") as report:
    report.write(json.dumps(line, separators=(",", ":")) + "\\n")
"""


def safedel(sandbox, *args, env=None, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "safedel", *args],
        cwd=cwd or sandbox.work,
        env=env or sandbox.base_env(),
        capture_output=True,
    )


def run(sandbox, turn, *command, env=None, cwd=None):
    """`safedel run --session s --turn TURN -- command` (in the work tree, the workspace,
    unless cwd says where); must succeed."""
    argv = ["run", "--session", "s", "--turn", turn, "--", *command]
    done = safedel(sandbox, *argv, env=env, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done


def listed(sandbox):
    done = safedel(sandbox, "list", "--json")
    assert done.returncode == 0, done.stderr
    return sorted(os.path.basename(row["path"]) for row in json.loads(done.stdout))


def aged(path, seconds):
    """Wait until path (a payload in the trash) is really `seconds` old in there."""
    for _ in range(400):
        if time.time() - os.lstat(path).st_ctime > seconds:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} never got {seconds}s old")


def precious_and_churn(sandbox):
    """precious: a file that lived 3 s before the user trashed it (counted); n1..n3: a
    turn's churn, made and removed at once past a threshold of 2 (uncounted)."""
    (sandbox.work / "precious").write_bytes(b"precious \x00\xff bytes")
    time.sleep(3)
    run(sandbox, "t-user", "rm", "precious")
    env = sandbox.base_env(SAFEDEL_THRESHOLD="2")
    run(
        sandbox,
        "t-churn",
        "sh",
        "-c",
        "for f in n1 n2 n3; do mkdir $f && echo x > $f/x; done; rm -r n1 n2 n3",
        env=env,
    )
    counted = {
        os.path.basename(e["path"]): e.get("counted", True)
        for e in sandbox.report()
        if e["operation"] == "trash"
    }
    assert counted == {"precious": True, "n1": False, "n2": False, "n3": False}


def forge(sandbox, turn):
    """The command itself, inside its run, claims precious as its own uncounted churn."""
    script = [sys.executable, "-c", FORGE, str(sandbox.trash), str(sandbox.work), turn]
    run(sandbox, turn, *script)
    forged = [e for e in sandbox.report() if e.get("turn") == turn and e["operation"] == "trash"]
    assert [os.path.basename(e["path"]) for e in forged] == ["precious"]


def test_a_forged_uncounted_line_never_purges_the_users_item(sandbox):
    """Case 7: regenerable_retention takes the turn's churn, not the item a forged
    report line calls churn (the daily pass, and purge --regenerable by hand)."""
    precious_and_churn(sandbox)
    forge(sandbox, "t-evil")
    payload = sandbox.trash / "files" / "precious"
    aged(payload, 2)
    aged(sandbox.trash / "files" / "n3", 2)
    values = json.dumps({"regenerable_retention": "2s"})
    done = safedel(sandbox, "purge", "--retention-pass", "--retention-values", values)
    assert done.returncode == 0, done.stderr
    assert listed(sandbox) == ["precious"]
    for args in (["--regenerable"], ["--regenerable", "--older-than", "1s"]):
        done = safedel(sandbox, "purge", *args, "--yes")
        assert done.returncode == 0 and b"Nothing in the trash matches" in done.stdout, done
    assert payload.read_bytes() == b"precious \x00\xff bytes"
    back = safedel(sandbox, "restore", str(sandbox.work / "precious"))
    assert back.returncode == 0, back.stderr
    assert (sandbox.work / "precious").read_bytes() == b"precious \x00\xff bytes"


def test_a_forged_line_cannot_move_an_item_into_another_turn(sandbox):
    """Case 7, by turn and session: an item belongs to the first trash event naming it.
    A line the command appends later, claiming the user's item for its own turn,
    neither lets `purge --turn` of that turn take it nor keeps it from its own turn."""
    precious_and_churn(sandbox)
    forge(sandbox, "t-evil")
    done = safedel(sandbox, "purge", "--turn", "t-evil", "--yes")
    assert done.returncode == 0 and b"Nothing in the trash matches" in done.stdout, done
    assert (sandbox.trash / "files" / "precious").exists()
    dry = safedel(sandbox, "purge", "--turn", "t-user", "--dry-run")
    assert (
        dry.returncode == 0 and b"/precious" in dry.stdout and b"would delete 1 item" in dry.stdout
    )


def test_a_forged_line_cannot_even_be_written_by_another_user(sandbox, tmp_path):
    """Case 7 as uid 65534: the report is the user's own (0600 in 0700)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to act as uid 65534")
    (sandbox.work / "precious").write_text("p")
    run(sandbox, "t-user", "rm", "precious")
    before = sandbox.report_path.read_bytes()
    os.chmod(tmp_path, 0o755)  # the way to the report is open; the report is not
    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    script = f'echo \'{{"operation":"trash"}}\' >> {sandbox.report_path}'
    done = subprocess.run([*prefix, "sh", "-c", script], capture_output=True)
    assert done.returncode != 0 and b"Permission denied" in done.stderr
    assert sandbox.report_path.read_bytes() == before


def fill(path, size):
    with open(path, "wb") as handle:
        handle.write(os.urandom(size))


def test_max_size_never_evicts_the_users_items_for_a_commands_junk(sandbox):
    """Case 8: over max_size, the pass purges nothing, and list and doctor say so,
    naming the setting. The user's older items stay, byte for byte."""
    kept = {}
    for name in ("old1", "old2"):
        fill(sandbox.work / name, 3000)
        kept[name] = (sandbox.work / name).read_bytes()
        run(sandbox, "t-user", "rm", name)
    config = sandbox.home / ".config" / "safedel" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('max_size = "8K"\n')
    confirm_config(sandbox.state, config)  # a person's own setting, as `config trust` records
    run(
        sandbox,
        "t-junk",
        "sh",
        "-c",
        "mkdir junk && head -c 20000 /dev/urandom > junk/data && rm -r junk",
    )
    values = json.dumps({"max_size": "8K"})
    done = safedel(sandbox, "purge", "--retention-pass", "--retention-values", values)
    assert done.returncode == 0, done.stderr
    assert listed(sandbox) == ["junk", "old1", "old2"]
    for name, data in kept.items():
        assert (sandbox.trash / "files" / name).read_bytes() == data
    shown = safedel(sandbox, "list")
    assert shown.returncode == 0 and b"over max_size = '8K'" in shown.stderr, shown.stderr
    assert b"nothing is purged to make room" in shown.stderr
    doctor = json.loads(safedel(sandbox, "doctor", "--json").stdout)
    (size,) = [row for row in doctor if row["check"] == "trash size"]
    assert not size["ok"] and "over max_size = '8K'" in size["detail"]
    # A run whose daily pass is due starts none for max_size alone: it would do nothing.
    stamp = sandbox.state / "retention.stamp"
    if stamp.exists():
        stamp.unlink()
    run(sandbox, "t-after", "true")
    assert not stamp.exists()
    # What a person may still choose: the oldest items that would go, listed first.
    dry = safedel(sandbox, "purge", "--max-size", "8K", "--dry-run")
    assert dry.returncode == 0 and b"/old1" in dry.stdout, dry.stdout


@pytest.fixture
def shared():
    """A fresh directory every user may write (0777, no sticky bit), under /var/tmp:
    pytest's own tmp_path is private to root."""
    if os.geteuid() != 0:
        pytest.skip("needs root to act as uid 65534")
    base = tempfile.mkdtemp(prefix="safedel-shared-", dir="/var/tmp")
    os.chmod(base, 0o777)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_junk_another_user_leaves_in_a_shared_dir_evicts_nothing(sandbox, shared):
    """Case 8 as uid 65534: they fill a shared directory the user's command cleans;
    that junk in the user's trash pushes none of the user's items out."""
    fill(sandbox.work / "mine", 4000)
    mine = (sandbox.work / "mine").read_bytes()
    run(sandbox, "t-user", "rm", "mine")
    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    script = f"for i in 1 2 3; do head -c 9000 /dev/urandom > {shared}/junk$i; done"
    assert subprocess.run([*prefix, "sh", "-c", script]).returncode == 0
    run(sandbox, "t-clean", "sh", "-c", "rm -rf ./*", cwd=shared)
    assert sorted(listed(sandbox)) == ["junk1", "junk2", "junk3", "mine"]
    values = json.dumps({"max_size": "10K", "retention": "3650d"})
    done = safedel(sandbox, "purge", "--retention-pass", "--retention-values", values)
    assert done.returncode == 0, done.stderr
    assert (sandbox.trash / "files" / "mine").read_bytes() == mine
    assert sorted(listed(sandbox)) == ["junk1", "junk2", "junk3", "mine"]


def test_an_item_another_tool_trashed_is_claimed_by_the_first_line_naming_it(sandbox):
    """The named gap (docs/coverage.md): trash-put writes no report event, so a line a
    command appends is the only claim on its item. `purge --turn` of that turn lists
    it before it asks; the daily pass never reads turns, and --regenerable still asks
    the trash how long it lived."""
    from conftest import require

    (sandbox.work / "precious").write_text("by trash-put")
    time.sleep(3)
    subprocess.run(
        [require("trash-put"), "precious"], cwd=sandbox.work, env=sandbox.base_env(), check=True
    )
    forge(sandbox, "t-evil")
    dry = safedel(sandbox, "purge", "--turn", "t-evil", "--dry-run")
    assert (
        dry.returncode == 0 and b"/precious" in dry.stdout and b"would delete 1 item" in dry.stdout
    )
    aged(sandbox.trash / "files" / "precious", 2)
    values = json.dumps({"regenerable_retention": "2s"})
    assert (
        safedel(sandbox, "purge", "--retention-pass", "--retention-values", values).returncode == 0
    )
    assert (sandbox.trash / "files" / "precious").read_text() == "by trash-put"


def test_a_report_rewritten_without_the_items_own_event_is_the_named_gap(sandbox):
    """The other named gap: a command that rewrites the report (not only appends to
    it), dropping the item's own event, makes its claim the first. `purge --turn` of
    its turn lists the item before it asks; the daily regenerable pass still asks the
    trash how long it lived, and keeps it."""
    precious_and_churn(sandbox)
    drop = "import os, sys; p = os.environ['SAFEDEL_REPORT']; lines = open(p).readlines(); "
    drop += "open(p, 'w').writelines(l for l in lines if '/precious' not in l)"
    run(sandbox, "t-evil", sys.executable, "-c", drop)
    forge(sandbox, "t-evil")
    dry = safedel(sandbox, "purge", "--turn", "t-evil", "--dry-run")
    assert (
        dry.returncode == 0 and b"/precious" in dry.stdout and b"would delete 1 item" in dry.stdout
    )
    done = safedel(sandbox, "purge", "--turn", "t-evil")  # no terminal, no --yes: it asks
    assert done.returncode == 2 and b"add --yes" in done.stderr
    aged(sandbox.trash / "files" / "precious", 2)
    values = json.dumps({"regenerable_retention": "2s"})
    assert (
        safedel(sandbox, "purge", "--retention-pass", "--retention-values", values).returncode == 0
    )
    assert (sandbox.trash / "files" / "precious").read_bytes() == b"precious \x00\xff bytes"
