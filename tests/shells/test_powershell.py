"""The PowerShell prelude. PowerShell is not installable here, so the prelude is parsed
with the tree-sitter PowerShell grammar (no ERROR or MISSING nodes), its functions and
aliases are found in the tree, and the Python side's rendering and quoting are checked.
The helper it calls (`safedel trash`) runs for real in test_trash_helper.py."""

import os
import subprocess
import sys

import pytest

from safedel import shells

ts = pytest.importorskip("tree_sitter")
tsp = pytest.importorskip("tree_sitter_powershell")

ODD = "/opt/it's $HOME \u2018q\u2019 `x`/python"
ALIASES = {"Remove-Item", "rm", "del", "erase", "ri", "rmdir", "rd"}


def parse(text):
    tree = ts.Parser(ts.Language(tsp.language())).parse(text.encode("utf-8"))
    return tree.root_node


def nodes(node, kind):
    if node.type == kind:
        yield node
    for child in node.children:
        yield from nodes(child, kind)


def broken(root):
    return [n for n in nodes_all(root) if n.type == "ERROR" or n.is_missing]


def nodes_all(node):
    yield node
    for child in node.children:
        yield from nodes_all(child)


def text(node):
    return node.text.decode("utf-8")


def unquote(literal):
    """A single-quoted PowerShell string's value: doubled quotes stand for one."""
    assert literal[0] in "'\u2018\u2019" and literal[-1] in "'\u2018\u2019"
    body = literal[1:-1]
    for quote in ("'", "\u2018", "\u2019", "\u201a", "\u201b"):
        body = body.replace(quote + quote, quote)
    return body


def commands(root, name):
    """The argument lists (as text) of every call to the command called name."""
    found = []
    for command in nodes(root, "command"):
        head = command.child_by_field_name("command_name")
        if head is not None and text(head) == name:
            elements = command.child_by_field_name("command_elements")
            found.append(text(elements) if elements is not None else "")
    return found


def functions(root):
    return {text(n.child(1)): n for n in nodes(root, "function_statement")}


def wrapped_prelude():
    argv = shells.wrap_for_shell("powershell", ["Remove-Item", "-Recurse", "build"])
    return argv, argv[-1]


def test_the_template_is_utf8_with_a_bom():
    path = os.path.join(shells.HERE, "powershell", "prelude.ps1")
    with open(path, "rb") as handle:
        data = handle.read()
    assert data.startswith(b"\xef\xbb\xbf")
    data.decode("utf-8")
    assert not shells.template("powershell").startswith("\ufeff")


def test_the_wrapped_prelude_parses_and_defines_its_functions():
    _, script = wrapped_prelude()
    root = parse(script)
    assert broken(root) == []
    assert set(functions(root)) == {
        "global:__safedel_json_ascii",
        "global:__safedel_marker",
        "global:__safedel_fail_closed",
        "global:__safedel_trash",
        "global:__safedel_Remove-Item",
        "global:__safedel_next_turn",
        "global:prompt",
    }


def test_every_remove_alias_points_at_the_function():
    root = parse(wrapped_prelude()[1])
    (set_alias,) = commands(root, "Set-Alias")
    assert "-Value __safedel_Remove-Item" in set_alias and "-Scope Global" in set_alias
    (loop,) = [n for n in nodes(root, "foreach_statement") if "Set-Alias" in text(n)]
    names = {unquote(text(s)) for s in nodes(loop, "verbatim_string_characters")}
    assert names >= ALIASES


def test_remove_item_takes_paths_literal_paths_and_pipeline_input():
    root = parse(wrapped_prelude()[1])
    remove = functions(root)["global:__safedel_Remove-Item"]
    params = {text(v) for p in nodes(remove, "script_parameter") for v in nodes(p, "variable")}
    assert {"$Path", "$LiteralPath", "$Recurse", "$Force", "$Include", "$Exclude"} <= params
    source = text(remove)
    assert "ValueFromPipeline = $true" in source
    assert "[Alias('PSPath', 'LP')]" in source
    assert "SupportsShouldProcess" in source


def test_only_non_file_items_reach_the_real_remove_item():
    root = parse(wrapped_prelude()[1])
    real = [c for c in nodes(root, "command") if "\\Remove-Item" in text(c)]
    assert len(real) == 1
    branch = real[0].parent
    while branch.type != "if_statement":
        branch = branch.parent
    assert "$item.PSProvider.Name -ne 'FileSystem'" in text(branch)


def test_a_missing_helper_fails_closed_with_the_marker():
    root = parse(wrapped_prelude()[1])
    trash = text(functions(root)["global:__safedel_trash"])
    assert "Test-Path -LiteralPath $global:__safedel_python -PathType Leaf" in trash
    assert "'-E', '-m', 'safedel.shells.trash_helper', '--runtime', 'powershell', '--json'" in trash
    assert "__safedel_fail_closed" in trash
    fail = text(functions(root)["global:__safedel_fail_closed"])
    assert "'SAFE_DELETE_FAIL_CLOSED'" in fail
    marker = text(functions(root)["global:__safedel_marker"])
    assert '"[safe-delete][$Kind] $json"' in marker


def test_the_prelude_defines_itself_once_per_process():
    root = parse(wrapped_prelude()[1])
    (statements,) = [n for n in root.children if n.type != "comment"]
    top = [n for n in statements.children if n.type != "comment"]
    # Everything sits inside one guarded `if`; after it comes only the wrapped command.
    assert [n.type for n in top] == ["if_statement", "pipeline"]
    assert text(top[1]) == "Remove-Item -Recurse build"
    assert "Get-Variable -Name __safedel_prelude -Scope Global" in text(top[0])


def test_odd_paths_survive_rendering():
    env = {"PATH": "/a b/it's/$x:/usr/bin", "SAFEDEL_HOME": "/h/\u2019q\u2019"}
    script = shells.powershell_prelude(ODD, env, "t-abc", "1.0")
    root = parse(script)
    assert broken(root) == []
    (python,) = [c for c in commands(root, "Set-Variable") if "__safedel_python" in c]
    assert unquote(python.split(" -Value ", 1)[1].strip()) == ODD
    assigned = {}
    for node in nodes(root, "assignment_expression"):
        target, value = text(node.child(0)), text(node.child(2))
        if target.startswith("$env:") and target != "$env:SAFEDEL_TURN":
            assigned[target[len("$env:") :]] = unquote(value)
    assert {k: assigned[k] for k in env} == env
    assert "if ($true)" in script


def test_bootstrap_powershell_exports_the_environment_without_a_fixed_turn(sandbox):
    done = subprocess.run(
        [sys.executable, "-m", "safedel", "bootstrap", "powershell"],
        env=sandbox.base_env(),
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    script = done.stdout.decode("utf-8")
    assert not script.startswith("\ufeff")
    root = parse(script)
    assert broken(root) == []
    targets = {text(n.child(0)) for n in nodes(root, "assignment_expression")}
    assert {"$env:PATH", "$env:SAFEDEL_ACTIVE", "$env:NODE_OPTIONS"} <= targets
    assert "$env:SAFEDEL_TURN" in targets  # only inside __safedel_next_turn
    assert "$env:SAFEDEL_TURN = '" not in script
    # A session of its own, set only inside the interactive branch, never exported fixed.
    assert script.count("$env:SAFEDEL_SESSION = 'shell-") == 1
    assert "-like 'shell-*'" in script


def test_wrap_for_shell_builds_a_pwsh_command_line():
    argv, script = wrapped_prelude()
    assert os.path.basename(argv[0]).split(".")[0] in ("pwsh", "powershell")
    assert argv[1:4] == ["-NoProfile", "-NonInteractive", "-Command"]
    assert script.rstrip().endswith("Remove-Item -Recurse build")
    assert "if ($false)" in script and "$env:PATH" not in script


def test_safedel_run_shell_powershell_hands_pwsh_the_prelude(sandbox, tmp_path):
    """pwsh is not installed: a stand-in records the argv safedel run gives it."""
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    record = tmp_path / "argv"
    stand_in = bin_dir / "pwsh"
    stand_in.write_text(f"#!/bin/sh\nprintf '%s\\0' \"$@\" > '{record}'\nexit 3\n")
    stand_in.chmod(0o755)
    env = sandbox.base_env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    done = sandbox.run(
        "Get-ChildItem *.log | Remove-Item", run_options=("--shell", "powershell"), env=env
    )
    assert done.returncode == 3, done.stderr
    argv = record.read_bytes().split(b"\0")[:-1]
    assert argv[:3] == [b"-NoProfile", b"-NonInteractive", b"-Command"]
    script = argv[3].decode("utf-8")
    assert broken(parse(script)) == []
    assert script.endswith("Get-ChildItem *.log | Remove-Item")
