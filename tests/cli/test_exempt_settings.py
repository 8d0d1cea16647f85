"""The `exempt` config key and SAFEDEL_EXEMPT do what docs/configuration.md says
(issue 31, case 6): SAFEDEL_EXEMPT adds roots to the temp dir, and an empty one (as
--no-exempt) exempts nothing; `exempt` names the roots in place of the temp dir, under
`safedel run` too, but only once a person confirmed the file."""

import os
import subprocess
import sys

from conftest import confirm_config


def run_rm(sandbox, *paths, env=None, allow_outside=False):
    options = ["--outside-workspace", "allow"] if allow_outside else []
    return subprocess.run(
        [sys.executable, "-m", "safedel", "run", *options, "--", "rm", *map(str, paths)],
        cwd=sandbox.work,
        env=env or sandbox.base_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def scratch_and_temp(sandbox):
    scratch = sandbox.root / "scratch"
    scratch.mkdir()
    (scratch / "s").write_text("s")
    (sandbox.tmpdir / "t").write_text("t")
    return scratch, scratch / "s", sandbox.tmpdir / "t"


def trashed_paths(sandbox):
    return sorted(e["path"] for e in sandbox.report() if e["operation"] == "trash")


def write_config(sandbox, text):
    path = sandbox.home / ".config" / "safedel" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_safedel_exempt_adds_to_the_temp_dir(sandbox):
    scratch, s, t = scratch_and_temp(sandbox)
    done = run_rm(sandbox, s, t, env=sandbox.base_env(SAFEDEL_EXEMPT=str(scratch)))
    assert done.returncode == 0, done.stderr
    assert not s.exists() and not t.exists()
    assert trashed_paths(sandbox) == []  # both deleted for real, as exempt paths are


def test_an_empty_safedel_exempt_exempts_nothing(sandbox):
    _, _, t = scratch_and_temp(sandbox)
    done = run_rm(sandbox, t, env=sandbox.base_env(SAFEDEL_EXEMPT=""), allow_outside=True)
    assert done.returncode == 0, done.stderr
    assert trashed_paths(sandbox) == [str(t)]


def test_the_exempt_key_of_a_confirmed_config_names_the_roots(sandbox):
    scratch, s, t = scratch_and_temp(sandbox)
    config = write_config(sandbox, f'exempt = "{sandbox.tmpdir}{os.pathsep}{scratch}"\n')
    confirm_config(sandbox.state, config, sandbox.base_env())
    done = run_rm(sandbox, s, t)
    assert done.returncode == 0, done.stderr
    assert not s.exists() and not t.exists()
    assert trashed_paths(sandbox) == []


def test_the_exempt_key_waits_for_a_person_to_confirm_it(sandbox):
    scratch, s, t = scratch_and_temp(sandbox)
    # As a command could have written it: the root inside the temp dir narrows and
    # applies, the other one waits (tests/vectors/config.json).
    write_config(sandbox, f'exempt = "{sandbox.tmpdir}{os.pathsep}{scratch}"\n')
    done = run_rm(sandbox, s, t, allow_outside=True)
    assert done.returncode == 0, done.stderr
    assert "not applying exempt" in done.stderr
    assert trashed_paths(sandbox) == [str(s)]  # trashed, not deleted
    assert not t.exists()
