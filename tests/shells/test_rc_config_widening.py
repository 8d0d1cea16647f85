"""In a bash with the bootstrap, a command line's config writes widen nothing for the
next lines (issue #30, case 2): the local config's `["/"]` and the user config's
threshold are held back, in the launchers, Python and Node alike."""

import shlex

from configkit import (
    LOCAL,
    PRECIOUS,
    node_unlink,
    project_with_victim,
    python_remove,
    user_config,
    widen_user_config,
)
from rcshell import bootstrap, environment, open_shell


def test_the_bash_bootstrap_applies_nothing_a_command_wrote(sandbox):
    project, victim = project_with_victim(sandbox, files=60)
    # The person's own config says "confirm" (a narrowing: it applies unconfirmed).
    user_config(sandbox).parent.mkdir(parents=True)
    user_config(sandbox).write_text('outside_workspace = "confirm"\n')
    # A plain cache dir: Node's --require cannot name one with a double quote in it.
    env = environment(sandbox)
    env["XDG_CACHE_HOME"] = str(sandbox.root / "cache")
    del env["SAFEDEL_THRESHOLD"]  # the threshold comes from the config file
    bashrc = {".bashrc": "PS1='$ '\n" + bootstrap("bash")}
    terminal = open_shell(sandbox, ["bash", "-i"], bashrc, env=env)
    try:
        terminal.run(f"cd {shlex.quote(str(project))}")
        status, shown = terminal.run(f"{LOCAL} && {widen_user_config(sandbox)}")
        assert status == 0, shown
        tries = [["rm", "-f", str(victim)], python_remove(victim), node_unlink(victim)]
        results = [terminal.run(shlex.join(argv)) for argv in tries]
        bulk = terminal.run("rm f*")
    finally:
        terminal.close()
    for status, shown in results:
        assert status != 0 and "SAFE_DELETE_OUTSIDE_WORKSPACE" in shown, shown
        assert "not applying workspace root '/'" in shown, shown
    assert victim.read_bytes() == PRECIOUS
    assert bulk[0] == 1 and "SAFE_DELETE_BULK" in bulk[1], bulk[1]
    assert "not applying threshold = 99999" in bulk[1]
    assert len(list(project.glob("f*"))) == 60 and sandbox.trashed_names() == []
