"""The Node shim's promises beyond the happy path: inert when inactive, loaded once,
non-UTF-8 names, fail closed (guard error, another device, protected paths), topdir
trashes, and the turn file read at call time."""

import os

from conftest import last_markers
from test_node_common import NODES, SYSTEM_NODE, json_out, node_events, run_script

from safedel.core.guard import turn as guardturn
from safedel.executor import childenv, shimhome

TRY_UNLINK = r"""
const fs = require('fs');
const results = [];
for (const p of process.argv.slice(2)) {
  try { fs.unlinkSync(p); results.push(null); }
  catch (e) {
    results.push({ code: e.code, errno: e.errno, syscall: e.syscall, message: e.message });
  }
}
const loaded = Boolean(process[Symbol.for('safedel.node.installed')]);
console.log(JSON.stringify({ results, loaded }));
"""


def touch(path, text="x"):
    path.write_text(text)
    return str(path)


@NODES
def test_inert_without_safedel_active(sandbox, node):
    env = sandbox.shim_env()
    del env["SAFEDEL_ACTIVE"]
    target = touch(sandbox.work / "f")
    out = json_out(run_script(sandbox, node, TRY_UNLINK, env=env, args=[target]))
    assert out == {"results": [None], "loaded": False}
    assert not os.path.exists(target) and sandbox.trashed_names() == []


def test_loaded_once_from_a_path_with_spaces(sandbox, tmp_path):
    home = shimhome.materialize(str(tmp_path / "shim home with spaces"))
    env = sandbox.shim_env()
    once = childenv.add_node_preload("", home)
    env["NODE_OPTIONS"] = f"{once} {once}"
    env["SAFEDEL_HOME"] = home
    target = touch(sandbox.work / "f")
    out = json_out(run_script(sandbox, SYSTEM_NODE, TRY_UNLINK, env=env, args=[target]))
    assert out == {"results": [None], "loaded": True}
    assert sandbox.trashed_names() == ["f"]
    assert len(node_events(sandbox)) == 1


@NODES
def test_buffer_path_with_non_utf8_name(sandbox, node):
    raw = os.fsencode(str(sandbox.work)) + b"/\xff\xfename"
    with open(raw, "wb") as handle:
        handle.write(b"x")
    script = (
        "const fs = require('fs');\n"
        f"fs.unlinkSync(Buffer.from('{raw.hex()}', 'hex'));\n"
        "console.log(JSON.stringify({ ok: true }));\n"
    )
    assert json_out(run_script(sandbox, node, script)) == {"ok": True}
    assert not os.path.lexists(raw)
    files = os.fsencode(str(sandbox.trash / "files"))
    assert os.listdir(files) == [b"\xff\xfename"]
    with open(
        os.path.join(os.fsencode(str(sandbox.trash / "info")), b"\xff\xfename.trashinfo"), "rb"
    ) as f:
        info = f.read()
    assert (
        b"Path=" + os.fsencode(str(sandbox.work)).replace(b" ", b"%20") + b"/%FF%FEname\n" in info
    )
    (event,) = node_events(sandbox)
    assert event["path"] == os.fsdecode(raw)


@NODES
def test_guard_error_fails_closed(sandbox, node):
    env = sandbox.shim_env()
    blocker = sandbox.root / "state-is-a-file"
    blocker.write_text("")
    env["SAFEDEL_STATE_DIR"] = str(blocker)
    target = touch(sandbox.work / "kept")
    proc = run_script(sandbox, node, TRY_UNLINK, env=env, args=[target])
    (result,) = json_out(proc)["results"]
    assert result["code"] == "EPERM" and result["syscall"] == "unlink"
    assert "bulk guard failed" in result["message"]
    assert "SAFE_DELETE_BULK_GUARD_ERROR" in last_markers(proc.stderr)
    assert os.path.exists(target) and sandbox.trashed_names() == []


@NODES
def test_no_trash_on_the_device_fails_closed(sandbox, node, tmpfs):
    mount = tmpfs("other-device")
    env = sandbox.shim_env(SAFEDEL_TRASH_DIR=str(mount / "trash"))
    target = touch(sandbox.work / "kept")
    proc = run_script(sandbox, node, TRY_UNLINK, env=env, args=[target])
    (result,) = json_out(proc)["results"]
    assert result["code"] == "EXDEV" and result["syscall"] == "unlink"
    marker = last_markers(proc.stderr)["SAFE_DELETE_FAIL_CLOSED"]
    assert marker["path"] == target and "never copies" in marker["reason"]
    assert os.path.exists(target)
    assert os.listdir(mount / "trash" / "files") == []
    assert [e["path"] for e in node_events(sandbox, "refuse")] == [target]


@NODES
def test_topdir_trashes_on_another_device(sandbox, node, tmpfs):
    mount = tmpfs("usb", at=sandbox.work)
    (mount / "sub").mkdir()
    private = touch(mount / "sub" / "a")
    out = json_out(run_script(sandbox, node, TRY_UNLINK, args=[private]))
    assert out["results"] == [None]
    uid = os.getuid()
    own = mount / f".Trash-{uid}"
    assert os.listdir(own / "files") == ["a"]
    assert "Path=sub/a\n" in (own / "info" / "a.trashinfo").read_text()
    # A sticky, real $topdir/.Trash takes precedence, in its $uid subdirectory.
    (mount / ".Trash").mkdir(mode=0o777)
    os.chmod(mount / ".Trash", 0o1777)
    shared = touch(mount / "b")
    assert json_out(run_script(sandbox, node, TRY_UNLINK, args=[shared]))["results"] == [None]
    assert os.listdir(mount / ".Trash" / str(uid) / "files") == ["b"]
    assert "Path=b\n" in (mount / ".Trash" / str(uid) / "info" / "b.trashinfo").read_text()


@NODES
def test_home_directory_is_protected(sandbox, node):
    keep = touch(sandbox.home / "precious")
    script = (
        "const fs = require('fs');\n"
        "try { fs.rmSync(process.env.HOME, { recursive: true, force: true }); "
        "console.log('{}'); }\n"
        "catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }\n"
    )
    proc = run_script(sandbox, node, script)
    out = json_out(proc)
    assert out["code"] == "EPERM" and "home directory" in out["message"]
    assert "SAFE_DELETE_FAIL_CLOSED" in last_markers(proc.stderr)
    assert os.path.exists(keep)


TURNS = r"""
const fs = require('fs');
const codes = [];
const del = (name) => { fs.writeFileSync(name, 'x');
  try { fs.unlinkSync(name); codes.push(null); } catch (e) { codes.push(e.code); } };
del('a'); del('b');
fs.writeFileSync(process.env.SAFEDEL_TURN_FILE, 'turn-2\n');
del('c');
console.log(JSON.stringify(codes));
"""


@NODES
def test_turn_file_is_read_at_call_time(sandbox, node):
    turn_file = sandbox.root / "turn"
    turn_file.write_text("turn-1\n")
    env = sandbox.shim_env(threshold=1, SAFEDEL_TURN_FILE=str(turn_file))
    proc = run_script(sandbox, node, TURNS, env=env)
    assert json_out(proc) == [None, "EPERM", None]
    assert [e["turn"] for e in node_events(sandbox)] == ["turn-1", "turn-2"]
    # The Python engine reads the ledgers the JS engine wrote.
    first = guardturn.status(str(sandbox.state), sandbox.session, "turn-1")
    assert (first.takes, first.granted, first.refused) == (2, 1, 1)
    assert guardturn.status(str(sandbox.state), sandbox.session, "turn-2").granted == 1


@NODES
def test_state_is_private_and_never_followed_through_a_symlink(sandbox, node, tmp_path):
    first = touch(sandbox.work / "first")
    assert json_out(run_script(sandbox, node, TRY_UNLINK, args=[first]))["results"] == [None]
    assert oct(os.stat(sandbox.report_path).st_mode & 0o777) == "0o600"
    (ledger,) = (sandbox.state / "bulk-guard").rglob("*.jsonl")
    assert oct(os.stat(ledger).st_mode & 0o777) == "0o600"
    assert oct(os.stat(ledger.parent).st_mode & 0o777) == "0o700"
    for sub in ("files", "info"):
        assert oct(os.stat(sandbox.trash / sub).st_mode & 0o777) == "0o700"
    # A state directory swapped for a symlink is refused, not followed.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.rename(sandbox.state / "bulk-guard", elsewhere / "bulk-guard")
    os.symlink(elsewhere / "bulk-guard", sandbox.state / "bulk-guard")
    second = touch(sandbox.work / "second")
    proc = run_script(sandbox, node, TRY_UNLINK, args=[second])
    (result,) = json_out(proc)["results"]
    assert result["code"] == "EPERM"
    assert "SAFE_DELETE_BULK_GUARD_ERROR" in last_markers(proc.stderr)
    assert os.path.exists(second)


def test_without_the_in_process_engine_safedel_trash_does_the_work(sandbox):
    """macOS and Windows hand each deletion to `safedel trash` (guard, native trash,
    report). Here a preloaded line makes Node report another platform, so that path runs
    on Linux too, through the real CLI."""
    (sandbox.work / "platform.cjs").write_text(
        "Object.defineProperty(process, 'platform', { value: 'darwin' });\n"
    )
    first, second = touch(sandbox.work / "first"), touch(sandbox.work / "second")
    env = sandbox.shim_env(threshold=1)  # after the files: they predate the turn
    env["NODE_OPTIONS"] = f'--require "{sandbox.work / "platform.cjs"}" {env["NODE_OPTIONS"]}'
    proc = run_script(sandbox, SYSTEM_NODE, TRY_UNLINK, env=env, args=[first, second])
    results = json_out(proc)["results"]
    assert results[0] is None and results[1]["code"] == "EPERM"
    assert sandbox.trashed_names() == ["first"] and os.path.exists(second)
    assert [e["path"] for e in node_events(sandbox)] == [first]
    assert "SAFE_DELETE_BULK_CONFIRM_REQUIRED" in last_markers(proc.stderr)


@NODES
def test_a_temp_dir_symlink_into_the_project_is_not_exempt(sandbox, node):
    project = sandbox.work / "src"
    project.mkdir()
    (project / "main.js").write_text("1")
    (sandbox.tmpdir / "link").symlink_to(sandbox.work)
    target = str(sandbox.tmpdir / "link" / "src")
    done = run_script(sandbox, node, f"require('fs').rmSync({target!r}, {{recursive: true}})")
    assert done.returncode == 0, done.stderr
    assert not project.exists()
    assert "src" in sandbox.trashed_names()
