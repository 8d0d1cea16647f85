"""What a person, and what a model, is told when the guard refuses in a bootstrapped bash,
typed into a real bash in tmux as either would type it.

A person is told a command that works as written: refused, type the hinted command,
run the line again, and it goes through. Under an agent host nothing printed names a
command or setting that would lift the guard, and the approve command, typed anyway,
refuses and the files stay.
"""

import re
import shlex
import sys

import pytest
from conftest import require
from personkit import many, person_env
from tmuxshell import Tmux

from safedel.core.contract import host

AGENTS = [(name, variable, value or "1") for name, variable, value in host.AGENTS]
HINT = re.compile(r"run `(safedel guard approve[^`]*)`, then run the command again")
NODE_EACH = (
    "const fs = require('fs'); let code = 0;"
    "for (const f of fs.readdirSync('many')) {"
    " try { fs.unlinkSync('many/' + f) } catch (e) { console.error(e.message); code = 1; break } }"
    "process.exit(code)"
)
COMMANDS = {"rm": "rm many/*", "node": f"node -e {shlex.quote(NODE_EACH)}"}
LIFTING = ("safedel guard approve", "guard reset", "--outside-workspace", "workspace add")
SETTINGS = ("SAFEDEL_THRESHOLD", "SAFEDEL_PROMPT", "threshold =", "--threshold", "config.toml")


def bash(sandbox, **extra):
    rc = sandbox.home / ".bashrc"
    rc.write_text(
        f"PS1='$ '\neval \"$({shlex.quote(sys.executable)} -m safedel bootstrap bash)\"\n"
    )
    env = person_env(sandbox.base_env())
    env.update(TERM="xterm", SAFEDEL_THRESHOLD="50", **extra)
    terminal = Tmux(
        sandbox.root, env, ["bash", "--noprofile", "--rcfile", str(rc), "-i"], sandbox.work
    )
    assert terminal.run("true")[0] == 0
    return terminal


@pytest.mark.parametrize("tool", sorted(COMMANDS))
def test_the_hint_a_person_sees_works_as_written_on_the_next_command_lines(sandbox, tool):
    if tool == "node":
        require("node")
    folder = many(sandbox)
    terminal = bash(sandbox)  # SAFEDEL_PROMPT=0: no question, so the hint is the way
    try:
        status, shown = terminal.run(COMMANDS[tool])
        assert status == 1 and len(list(folder.iterdir())) >= 10, shown
        hinted = HINT.search(shown)
        assert hinted, shown
        assert hinted.group(1) == "safedel guard approve"
        status, shown = terminal.run(hinted.group(1))
        assert status == 0 and "this command line and the next one" in shown, shown
        status, shown = terminal.run(COMMANDS[tool])
        assert status == 0, shown
        assert list(folder.iterdir()) == []
        assert len(sandbox.trashed_names()) == 60
        # The line after that one is a turn of its own again, which nobody approved.
        folder.rmdir()
        many(sandbox)
        status, shown = terminal.run(COMMANDS[tool])
        assert status == 1 and len(list(folder.iterdir())) >= 10, shown
    finally:
        terminal.close()


def test_approving_on_the_same_line_works_too(sandbox):
    folder = many(sandbox)
    terminal = bash(sandbox)
    try:
        status, shown = terminal.run("safedel guard approve && rm many/*")
        assert status == 0 and list(folder.iterdir()) == [], shown
    finally:
        terminal.close()


@pytest.mark.parametrize(("name", "variable", "value"), AGENTS, ids=[a[1] for a in AGENTS])
def test_under_an_agent_host_nothing_printed_names_what_lifts_the_guard(
    sandbox, name, variable, value
):
    folder = many(sandbox)
    terminal = bash(sandbox, **{variable: value})
    try:
        status, shown = terminal.run("rm many/*")
        assert status == 1 and "the user must approve it" in shown, shown
        after = shown.split("rm many/*", 1)[1]
        for text in (*LIFTING, *SETTINGS):
            assert text not in after, (text, after)
        # The model does it anyway, at the terminal it has: approve refuses.
        status, shown = terminal.run("safedel guard approve")
        assert status == 1 and "the user's decision" in shown, shown
        said = shown.split("safedel guard approve", 1)[1].split("\n", 1)[1]
        assert "--token-file" not in said and "safedel guard approve" not in said, said
        status, shown = terminal.run("safedel guard approve && rm many/*")
        assert status == 1 and len(list(folder.iterdir())) == 60, shown
        status, shown = terminal.run("safedel guard reset")
        assert status == 1, shown
        assert sandbox.trashed_names() == []
    finally:
        terminal.close()
