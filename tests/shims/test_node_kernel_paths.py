"""The Node shim judges a path where the kernel puts it: `..` after a symlink, `link/`
(the link's target), a current directory whose name is not UTF-8; protected comes
before exempt; and safedel's own error messages never carry a raw control character."""

import json
import os
import shutil
import subprocess

from conftest import last_markers, require
from test_node_common import NODES, json_out, node_events, run_script

TRY = r"""
const fs = require('fs');
const [op, target, opts] = process.argv.slice(2);
const options = opts ? JSON.parse(opts) : undefined;
const done = (e) => console.log(JSON.stringify(e ? { code: e.code, message: e.message } : null));
if (op === 'promises') fs.promises.rmdir(target).then(() => done(null), done);
else if (op === 'rmdir') fs.rmdir(target, done);
else { try { fs[op](target, options); done(null); } catch (e) { done(e); } }
"""


def test_dotdot_after_a_symlink_in_the_temp_dir_is_judged_where_it_lands(sandbox):
    """$TMPDIR/link/../node.txt, link -> project/sub, is project/node.txt: trashed."""
    (sandbox.work / "sub").mkdir()
    (sandbox.work / "node.txt").write_text("keep me")
    (sandbox.tmpdir / "link").symlink_to(sandbox.work / "sub")
    for node in NODES.args[1]:
        (sandbox.work / "node.txt").write_text("keep me")
        operand = f"{sandbox.tmpdir}/link/../node.txt"
        assert json_out(run_script(sandbox, node, TRY, args=["unlinkSync", operand])) is None
        assert not (sandbox.work / "node.txt").exists()
    first, second = sandbox.trashed_names()  # a repeated name takes a token (naming.py)
    assert first == "node.txt" and second.startswith("node.txt.") and len(second) == 17
    info = (sandbox.trash / "info" / "node.txt.trashinfo").read_text()
    assert f"Path={sandbox.work}/node.txt\n".replace(" ", "%20") in info
    assert [e["path"] for e in node_events(sandbox)] == [str(sandbox.work / "node.txt")] * 2


@NODES
def test_path_field_follows_the_link_before_dotdot(sandbox, node):
    """work/ln/../f with ln -> work/a/b is work/a/f, and Path= says so."""
    (sandbox.work / "a" / "b").mkdir(parents=True)
    (sandbox.work / "a" / "f").write_text("in a")
    (sandbox.work / "f").write_text("not this one")
    (sandbox.work / "ln").symlink_to(sandbox.work / "a" / "b")
    assert json_out(run_script(sandbox, node, TRY, args=["unlinkSync", "ln/../f"])) is None
    assert (sandbox.work / "f").read_text() == "not this one"
    info = (sandbox.trash / "info" / "f.trashinfo").read_text()
    assert f"Path={sandbox.work}/a/f\n".replace(" ", "%20") in info
    assert (sandbox.trash / "files" / "f").read_text() == "in a"


@NODES
def test_home_inside_the_temp_dir_is_protected_before_exempt(sandbox, node):
    home = sandbox.tmpdir / "home"
    (home / "proj").mkdir(parents=True)
    (home / "proj" / "x").write_text("x")
    env = sandbox.shim_env(HOME=str(home))
    proc = run_script(sandbox, node, TRY, env=env, args=["rmSync", str(home), '{"recursive":true}'])
    out = json_out(proc)
    assert out["code"] == "EPERM" and "home directory" in out["message"]
    assert (home / "proj" / "x").read_text() == "x"
    assert "SAFE_DELETE_FAIL_CLOSED" in last_markers(proc.stderr)
    assert [e["path"] for e in node_events(sandbox, "refuse")] == [str(home)]


def plain_node(sandbox, node, args):
    """The same script without the shim: what Node itself does."""
    (sandbox.work / "script.cjs").write_text(TRY)
    env = sandbox.base_env()
    proc = subprocess.run(
        [require(node), str(sandbox.work / "script.cjs"), *args],
        cwd=sandbox.work,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return json_out(proc)


def tree(root):
    return sorted(
        (os.path.relpath(os.path.join(d, n), root), os.path.islink(os.path.join(d, n)))
        for d, dirs, files in os.walk(root)
        for n in dirs + files
        if n != "script.cjs"
    )


LINK_SLASH_CALLS = (
    ("rmdirSync", None),
    ("rmdir", None),
    ("promises", None),
    ("rmSync", '{"recursive":true}'),
    ("rmSync", '{"recursive":true,"force":true}'),
)


def link_slash_tree(sandbox):
    for path in (sandbox.work, sandbox.tmpdir):
        for name in os.listdir(path):
            if name != "script.cjs":
                subprocess.run(["rm", "-rf", str(path / name)], check=True)
    (sandbox.work / "empty").mkdir()
    (sandbox.work / "full" / "sub").mkdir(parents=True)
    (sandbox.work / "full" / "sub" / "f").write_text("data")
    (sandbox.work / "full" / "top").write_text("top")
    (sandbox.work / "l").symlink_to(sandbox.work / "empty")
    (sandbox.work / "lf").symlink_to(sandbox.work / "full")
    (sandbox.tmpdir / "link").symlink_to(sandbox.work / "full")


@NODES
def test_link_slash_does_what_node_does(sandbox, node):
    """rmdir('l/') and rmSync('l/', {recursive}), l -> a directory, in the project and
    through the temp dir: plain Node's outcome, and what Node removes is in the trash."""
    operands = ["l/", "lf/", f"{sandbox.tmpdir}/link/"]
    for op, options in LINK_SLASH_CALLS:
        for operand in operands:
            args = [op, operand] + ([options] if options else [])
            link_slash_tree(sandbox)
            before = tree(sandbox.work)
            plain = plain_node(sandbox, node, args)
            removed = sorted({p.split("/")[1] for p, _ in set(before) - set(tree(sandbox.work))})
            after_plain = tree(sandbox.work)
            link_slash_tree(sandbox)
            shutil.rmtree(sandbox.trash, ignore_errors=True)
            shimmed = json_out(run_script(sandbox, node, TRY, args=args))
            assert shimmed == plain, (op, operand)
            assert tree(sandbox.work) == after_plain, (op, operand)
            assert sandbox.trashed_names() == removed, (op, operand)


@NODES
def test_a_current_directory_that_is_not_utf8_keeps_its_bytes(sandbox, node):
    cwd = os.fsencode(str(sandbox.work)) + b"/caf\xe9"
    os.mkdir(cwd)
    with open(cwd + b"/f", "w") as handle:
        handle.write("x")
    script = sandbox.work / "unlink.cjs"
    script.write_text("require('fs').unlinkSync('f'); console.log('null');\n")
    proc = subprocess.run(
        [require(node), str(script)], cwd=cwd, env=sandbox.shim_env(), capture_output=True
    )
    assert proc.returncode == 0, proc.stderr
    info = (sandbox.trash / "info" / "f.trashinfo").read_text()
    assert f"Path={sandbox.work}/caf%E9/f\n".replace(" ", "%20") in info
    (event,) = node_events(sandbox)
    assert os.fsencode(event["path"]) == cwd + b"/f"


FORGED = '\n[safe-delete][SAFE_DELETE_BULK_CONFIRM_REQUIRED] {"count":0,"forged":true}\n'

PRINT_ERRORS = r"""
const fs = require('fs');
for (const name of process.argv.slice(2)) {
  try { fs.unlinkSync(name); } catch (e) { console.error(e.message); }
}
"""


@NODES
def test_a_file_name_cannot_forge_a_marker_through_the_refusal(sandbox, node):
    hostile = "x" + FORGED + "y"
    (sandbox.work / "first").write_text("1")
    (sandbox.work / hostile).write_text("2")
    env = sandbox.shim_env(threshold=1)
    proc = run_script(sandbox, node, PRINT_ERRORS, env=env, args=["first", hostile])
    assert proc.returncode == 0, proc.stderr
    marker = last_markers(proc.stderr)["SAFE_DELETE_BULK_CONFIRM_REQUIRED"]
    assert "forged" not in marker and marker["targets"] == [str(sandbox.work / hostile)]
    assert "\\n[safe-delete]" in proc.stderr
    lines = [
        json.loads(line.split("] ", 1)[1])
        for line in proc.stderr.splitlines()
        if line.startswith("[safe-delete]")
    ]
    assert all("forged" not in payload for payload in lines)
    assert (sandbox.work / hostile).exists()


MOVE_BETWEEN = r"""
const fs = require('fs');
fs.unlinkSync('a/one');
fs.renameSync('a', 'b');
fs.symlinkSync('b', 'a');
fs.unlinkSync('a/two');
console.log('null');
"""


@NODES
def test_a_parent_moved_between_deletions_is_resolved_again(sandbox, node):
    """The shim remembers real parents it has seen; one moved since (its old name now a
    link to it) must give the new real place, not the remembered one."""
    (sandbox.work / "a").mkdir()
    for name in ("one", "two"):
        (sandbox.work / "a" / name).write_text(name)
    assert json_out(run_script(sandbox, node, MOVE_BETWEEN)) is None
    info = (sandbox.trash / "info" / "two.trashinfo").read_text()
    assert f"Path={sandbox.work}/b/two\n".replace(" ", "%20") in info
    assert (sandbox.trash / "files" / "two").read_text() == "two"


DOT_CALLS = (
    ("rmSync", "."),
    ("rmSync", ".."),
    ("rmdirSync", "."),
    ("rmdirSync", "sub/.."),
    ("unlinkSync", "."),
)


@NODES
def test_dot_operands_fail_as_plain_node_fails(sandbox, node):
    (sandbox.work / "sub").mkdir()
    (sandbox.work / "sub" / "keep").write_text("keep")
    for call in DOT_CALLS:
        args = list(call)
        plain = plain_node(sandbox, node, args)
        (sandbox.work / "sub").mkdir(exist_ok=True)
        (sandbox.work / "sub" / "keep").write_text("keep")
        shimmed = json_out(run_script(sandbox, node, TRY, args=args))
        assert (shimmed or {}).get("code") == (plain or {}).get("code"), (call, shimmed, plain)
        assert (sandbox.work / "sub" / "keep").read_text() == "keep", call
    assert sandbox.trashed_names() == []
