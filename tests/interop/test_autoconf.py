"""A real autoconf-generated configure runs to completion under `safedel run` at the
default threshold and writes the same config.h as without safedel: its hundreds of
`rm -f conftest*` remove files the same turn made, which the guard does not count."""

import os
import re
import shutil
import subprocess

import pytest
from conftest import REPO, require


@pytest.fixture(autouse=True)
def churn_on(sandbox):
    """This module is about short-lived churn: the rule's own limit applies."""
    sandbox.churn = "60"


SOURCE = os.path.join(REPO, "tests", "interop", "autoconf", "configure.ac")


def generate(where):
    """configure and config.h.in from configure.ac (55 checks), by autoconf itself."""
    where.mkdir()
    shutil.copy(SOURCE, where / "configure.ac")
    for tool in ("autoconf", "autoheader"):
        subprocess.run([require(tool)], cwd=where, check=True, capture_output=True, timeout=300)
    assert (where / "configure").exists()
    return where


def count_checks():
    """Each header, function, size and type configure.ac asks about, and each C feature."""
    text = open(SOURCE, encoding="utf-8").read()
    lists = re.findall(r"AC_CHECK_(?:HEADERS|FUNCS|TYPES)\(\[([^\]]*)\]", text)
    items = sum(len(re.split(r"[ ,]+", names.strip())) for names in lists)
    return items + len(re.findall(r"AC_CHECK_SIZEOF|AC_C_", text))


def test_configure_completes_with_the_same_config_h(sandbox):
    require("cc")
    assert count_checks() >= 40
    bare = generate(sandbox.work / "bare")
    # The same generated script for both runs: autoconf runs once.
    guarded = shutil.copytree(bare, sandbox.work / "guarded")
    done = subprocess.run(
        ["./configure", "-q"], cwd=bare, env=sandbox.base_env(), capture_output=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    done = sandbox.run("./configure", "-q", cwd=guarded, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert b"[safe-delete]" not in done.stderr
    assert (guarded / "config.h").read_bytes() == (bare / "config.h").read_bytes()
    report = sandbox.report()
    trashed = [e for e in report if e["operation"] == "trash"]
    assert not [e for e in report if e["operation"] == "refuse"]
    # configure's conftest* files live a moment: short-lived churn, deleted for real
    # (docs/configuration.md); what reaches the trash is the rest of its own making.
    names = {os.path.basename(e["path"]) for e in trashed}
    assert not [n for n in names if n.startswith("conftest")], names
    assert {n for n in names if not n.startswith("conf")} <= {"a.out"}, names
    assert {e.get("why") for e in trashed if e.get("counted") is False} <= {"created-this-turn"}
