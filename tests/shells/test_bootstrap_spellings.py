"""Issue #29, case 9, in a bootstrapped bash and zsh (no net there): the spellings of
`/bin/rm` that a function or PATH cannot reach delete for real, as docs/coverage.md's
table names them; the ones the functions and the find launcher reach go to the trash,
byte for byte. tests/net/test_net_spellings.py has the same spellings under the net."""

import os
import re
import subprocess

import pytest
from conftest import require
from spellings import COVERED, GAPS, content, coverage_text, plant, script, under_bootstrap


def run_bootstrapped(sandbox, shell, body, path=None):
    require(shell)
    require(f"{sandbox.shim_home}/bin/rm")
    env = sandbox.base_env(SAFEDEL_THRESHOLD="50")
    if path:
        env["PATH"] = path
    argv = [shell, "-c", under_bootstrap(shell, body)]
    return subprocess.run(argv, cwd=sandbox.work, env=env, capture_output=True, timeout=120)


def trashed_bytes(sandbox, name):
    with open(sandbox.trash / "files" / name, "rb") as handle:
        return handle.read()


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_the_named_spellings_delete_for_real_in_a_bootstrapped_shell(sandbox, shell):
    planted = plant(sandbox.work, GAPS, shell)
    done = run_bootstrapped(sandbox, shell, script(GAPS, shell, planted))
    assert done.returncode == 0, done.stderr
    survivors = [name for name in planted.values() if (sandbox.work / name).exists()]
    assert survivors == [], done.stderr
    assert sandbox.trashed_names() == [] and sandbox.report() == []
    table = coverage_text()
    for spelling_id, _line, shells, words in GAPS:
        if shell in shells:
            assert words in table, f"docs/coverage.md must name {words} ({spelling_id})"


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_the_covered_spellings_reach_the_trash_in_a_bootstrapped_shell(sandbox, shell):
    planted = plant(sandbox.work, COVERED, shell)
    done = run_bootstrapped(sandbox, shell, script(COVERED, shell, planted))
    assert done.returncode == 0, done.stderr
    assert sorted(sandbox.trashed_names()) == sorted(planted.values()), done.stderr
    for spelling_id, name in planted.items():
        assert not (sandbox.work / name).exists(), spelling_id
        assert trashed_bytes(sandbox, name) == content(spelling_id)


def test_find_exec_keeps_a_multi_call_binarys_other_tools(sandbox):
    """busybox is rm, ls and more in one file: find -exec of its ls must stay ls (the
    launcher checks the name as well as the file), and of its rm must trash."""
    busybox = require("busybox")
    tools = sandbox.root / "multicall"
    tools.mkdir()
    for name in ("rm", "ls"):
        os.symlink(busybox, tools / name)
    for name in ("listed", "removed"):
        (sandbox.work / name).write_text(name)
    body = (
        f"find . -name listed -exec {tools}/ls {{}} \\;\n"
        f"find . -name removed -exec {tools}/rm {{}} \\;\n"
    )
    path = f"{tools}:{os.environ.get('PATH', '/usr/bin:/bin')}"
    done = run_bootstrapped(sandbox, "bash", body, path=path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"./listed\n", done.stderr
    assert (sandbox.work / "listed").read_text() == "listed"
    assert sandbox.trashed_names() == ["removed"], done.stderr


def test_find_exec_of_the_real_rm_is_trashed_under_safedel_run_without_the_net(sandbox):
    """The find launcher's part needs no net: `--net off` (macOS, containers) too."""
    planted = plant(sandbox.work, COVERED, "dash")
    done = sandbox.run("dash", "-c", script(COVERED, "dash", planted), run_options=["--net", "off"])
    assert done.returncode == 0, done.stderr
    assert sorted(sandbox.trashed_names()) == sorted(planted.values()), done.stderr
    runtimes = {e["runtime"] for e in sandbox.report() if e["operation"] == "trash"}
    assert runtimes <= {"rm", "unlink"}, runtimes


def test_find_ok_asks_about_the_launcher_it_runs(sandbox):
    """As the coverage table says: -ok's question names the launcher that will run."""
    (sandbox.work / "asked").write_text("asked")
    script = "echo y | find . -name asked -ok /bin/rm {} \\;"
    done = sandbox.run("dash", "-c", script, run_options=["--net", "off"])
    assert done.returncode == 0, done.stderr
    asked = re.search(rb"< (\S+) \.\.\. \./asked > \? ", done.stderr)
    assert asked and asked.group(1).endswith(b"/bin/rm") and asked.group(1) != b"/bin/rm"
    assert sandbox.trashed_names() == ["asked"]


def test_find_exec_judges_the_command_as_find_starts(sandbox):
    """A command that turns into the real rm while find runs is the named gap: the
    launcher looked at it once, before find started. The net trashes it all the same."""
    script = '#!/bin/sh\nln -sf /bin/rm "$0"\n'
    line = "find . -name 'v*' -exec ./rm {} \\;"
    for netted in (False, True):
        (sandbox.work / "rm").write_text(script)
        (sandbox.work / "rm").chmod(0o755)
        for name in ("v1", "v2"):
            (sandbox.work / name).write_text(name)
        options = [] if netted else ["--net", "off"]
        done = sandbox.run("dash", "-c", line, run_options=options)
        assert done.returncode == 0, done.stderr
        left = sorted(p.name for p in sandbox.work.glob("v*"))
        assert len(left) == 1, left  # the script's turn kept one; the real rm took the other
        if netted:
            assert {"v1", "v2"} - set(left) <= set(sandbox.trashed_names()), done.stderr
        else:
            assert sandbox.trashed_names() == [], done.stderr
        for path in [*sandbox.work.glob("v*"), sandbox.work / "rm"]:
            path.unlink()
    assert "a script of yours named `rm`" in coverage_text()
