"""Under every agent host safedel detects, nothing a `safedel run` prints names a command,
option or setting that would lift the guard (core/guard/remedy.py, shims/node/remedy.cjs):
not the rm launcher's refusal, the Python or Node shim's, the outside-workspace one, a
damaged ledger's, the guard commands' own refusals, nor the run's summary. The model
asks its user; the harness has the structured payload. And what the model runs anyway
(`safedel guard approve`, `reset`) approves nothing.
"""

import json
import os
import subprocess
import sys

import pytest
from conftest import require
from personkit import person_env

from safedel.core.contract import host

AGENTS = [(variable, value or "1") for _name, variable, value in host.AGENTS]
LIFTING = (
    "safedel guard approve",
    "guard reset",
    "--outside-workspace",
    "workspace add",
    "--token-file",
    "--threshold",
    "SAFEDEL_",
    "threshold =",
    "outside_workspace",
    "config.toml",
)
NODE = (
    "const fs = require('fs'); for (const f of fs.readdirSync('node')) "
    "{ try { fs.unlinkSync('node/' + f) } catch (e) { console.error(e.message); break } }"
)
PYTHON = (
    "import os\n"
    "for f in sorted(os.listdir('py')):\n"
    "    try:\n"
    "        os.remove('py/' + f)\n"
    "    except OSError as e:\n"
    "        print(e)\n"
    "        break\n"
)


def folder(sandbox, name, count):
    where = sandbox.work / name
    where.mkdir()
    for index in range(count):
        (where / f"f{index:02d}").write_text(str(index))
    return where


@pytest.mark.parametrize(("variable", "value"), AGENTS, ids=[a[0] for a in AGENTS])
def test_under_an_agent_host_no_text_of_a_run_names_what_lifts_the_guard(
    sandbox, tmp_path, variable, value
):
    require("node")
    many, node, py = (folder(sandbox, name, 60) for name in ("many", "node", "py"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "cv.txt").write_text("cv")
    (sandbox.root / "each.py").write_text(PYTHON)
    ledger = (
        '"$SAFEDEL_STATE_DIR/bulk-guard/$(printf %s "$SAFEDEL_SESSION" | sha256sum | cut -c1-16)'
        '/$(printf %s "$SAFEDEL_TURN" | sha256sum | cut -c1-16).jsonl"'
    )
    script = "; ".join(
        [
            "rm many/*",
            f"python3 {sandbox.root / 'each.py'}",
            f"node -e {json.dumps(NODE)}",
            f"rm {elsewhere / 'cv.txt'}",
            "safedel guard approve",
            "safedel guard approve --outside-workspace",
            "safedel guard reset",
            f"echo garbage >> {ledger}",
            "rm many/f00",
        ]
    )
    env = person_env(sandbox.base_env())
    env[variable] = value
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env["PATH"]
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, "--", "bash", "-c", script]
    done = subprocess.run(argv, env=env, cwd=sandbox.work, capture_output=True, timeout=300)
    shown = (done.stdout + done.stderr).decode("utf-8", "replace")
    told = [line for line in shown.splitlines() if not line.startswith("[safe-delete][")]
    for text in LIFTING:
        assert not [line for line in told if text in line], (text, told)
    assert "the user must approve it" in shown
    assert "a person must reset the turn" in shown  # the damaged ledger's error
    assert shown.count("approval must come from the user") == 3
    # Nothing got past the threshold, outside the workspace, or the damage.
    assert len(list(many.iterdir())) == 60
    assert len(list(node.iterdir())) + len(list(py.iterdir())) == 70
    assert (elsewhere / "cv.txt").exists()
