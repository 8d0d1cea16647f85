"""The home directory the password database gives this uid stays protected when a
command points HOME elsewhere: `HOME=/x rm -rf ~real` is refused by every shim, as
`rm -rf $HOME` is. The password database is a file of the test's own here, read
through nss_wrapper by libc, so the uid's account home is a scratch directory."""

import os
import subprocess
import sys

import pytest
from conftest import IN_CI, require

WRAPPER = "/usr/lib/x86_64-linux-gnu/libnss_wrapper.so"
FRONT_ENDS = {
    "rm": lambda home: ["rm", "-rf", home],
    "rmtree": lambda home: [sys.executable, "-c", f"import shutil; shutil.rmtree({home!r})"],
    "node": lambda home: ["node", "-e", f"require('fs').rmSync({home!r}, {{recursive: true}})"],
}


def _account(sandbox, home):
    """Environment entries that make libc's getpwuid(uid) answer home."""
    if not os.path.exists(WRAPPER):
        if IN_CI:
            pytest.fail(f"{WRAPPER} (libnss-wrapper) is required under CI=true")
        pytest.skip("libnss-wrapper is not installed")
    uid, gid = os.getuid(), os.getgid()
    passwd, group = sandbox.root / "passwd", sandbox.root / "group"
    passwd.write_text(f"me:x:{uid}:{gid}:me:{home}:/bin/sh\n")
    group.write_text(f"me:x:{gid}:\n")
    return {"LD_PRELOAD": WRAPPER, "NSS_WRAPPER_PASSWD": passwd, "NSS_WRAPPER_GROUP": group}


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_the_account_home_is_protected_whatever_home_says(sandbox, front_end):
    if front_end == "node":
        require("node")
    home = sandbox.work / "account"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "n.txt").write_text("notes")
    elsewhere = sandbox.tmpdir / "elsewhere"
    elsewhere.mkdir()
    env = sandbox.base_env(**_account(sandbox, home))
    check = [sys.executable, "-c", "import os, pwd; print(pwd.getpwuid(os.getuid()).pw_dir)"]
    assert subprocess.run(check, env=env, capture_output=True, text=True).stdout.strip() == str(
        home
    )
    script = 'HOME="$0" exec "$@"'
    done = sandbox.run(
        "sh",
        "-c",
        script,
        str(elsewhere),
        *FRONT_ENDS[front_end](str(home)),
        run_options=["--net", "off"],
        env=env,
    )
    assert done.returncode != 0, done.stderr
    assert (home / "notes" / "n.txt").read_text() == "notes"
    assert sandbox.trashed_names() == []
    refusals = [e for e in sandbox.report() if e["operation"] == "refuse"]
    assert refusals and "home directory" in refusals[0]["reason"], sandbox.report()
