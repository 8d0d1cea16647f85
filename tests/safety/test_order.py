"""Protected before exempt, in every front end: with HOME inside the temp dir (common in
CI containers), removing $HOME is refused everywhere, each refusal with a `refuse`
event, and nothing of it is deleted."""

import os
import subprocess
import sys

import pytest
from conftest import last_markers

FRONT_ENDS = {
    "rm": lambda home: ["rm", "-rf", home],
    "find": lambda home: ["find", home, "-delete"],
    "rmtree": lambda home: [sys.executable, "-c", f"import shutil; shutil.rmtree({home!r})"],
    "os.rmdir": lambda home: [sys.executable, "-c", f"import os; os.rmdir({home!r})"],
    "powershell": lambda home: [
        sys.executable,
        "-E",
        "-m",
        "safedel.shells.trash_helper",
        "--recurse",
        "--",
        home,
    ],
}


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_home_inside_the_temp_dir_is_refused_by_every_front_end(sandbox, front_end):
    home = sandbox.tmpdir / "home"
    home.mkdir()
    if front_end != "os.rmdir":  # rmdir needs it empty to get as far as the policy
        (home / ".bashrc").write_text("mine")
        (home / "notes").mkdir()
        (home / "notes" / "n.txt").write_text("notes")
    env = sandbox.shim_env(HOME=str(home))
    done = subprocess.run(
        FRONT_ENDS[front_end](str(home)), cwd=sandbox.work, env=env, capture_output=True
    )
    assert done.returncode != 0
    assert home.is_dir()
    if front_end != "os.rmdir":
        assert (home / ".bashrc").read_text() == "mine"
        assert (home / "notes" / "n.txt").read_text() == "notes"
    refusals = [e for e in sandbox.report() if e["operation"] == "refuse"]
    assert [e["path"] for e in refusals] == [str(home)], sandbox.report()
    assert "home directory" in refusals[0]["reason"]
    assert last_markers(done.stderr)["SAFE_DELETE_FAIL_CLOSED"]["path"] == str(home)
    assert sandbox.trashed_names() == []
    assert os.listdir(sandbox.tmpdir) == ["home"]
