"""Targets are judged where the kernel puts them: a trailing slash through a symlink in
the temp dir, or `..` after one, must never turn project files into exempt ones, and
`Path=` must name where the item really was. Each front end that can spell the case."""

import os
import subprocess
import sys

import pytest

from safedel.trash import catalog


def project(sandbox):
    """~/proj with sub/important/, sub/notes.txt and a file at the top."""
    proj = sandbox.work / "proj"
    (proj / "sub" / "important").mkdir(parents=True)
    (proj / "sub" / "important" / "data.txt").write_text("important")
    (proj / "sub" / "notes.txt").write_text("notes")
    (proj / "top.txt").write_text("top")
    return proj


def trashed_from(sandbox):
    """{original path: content (files only)} of everything in the home trash."""
    found = {}
    for item in catalog.items([os.fsencode(sandbox.trash)]):
        path = item.file_path
        found[os.fsdecode(item.original)] = open(path).read() if os.path.isfile(path) else None
    return found


def python(sandbox, code):
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=sandbox.work,
        env=sandbox.shim_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def shim(sandbox, *argv):
    return subprocess.run(
        list(argv), cwd=sandbox.work, env=sandbox.shim_env(), capture_output=True, timeout=60
    )


@pytest.mark.parametrize("front_end", ["find", "rmtree", "powershell"])
def test_a_trailing_slash_through_a_temp_dir_link_never_empties_the_project(sandbox, front_end):
    proj = project(sandbox)
    link = sandbox.tmpdir / "link"
    link.symlink_to(proj)
    if front_end == "find":
        done = shim(sandbox, "find", f"{link}/", "-delete")
    elif front_end == "powershell":
        helper = [sys.executable, "-E", "-m", "safedel.shells.trash_helper", "--recurse"]
        done = shim(sandbox, *helper, "--", f"{link}/")
    else:
        done = python(sandbox, f"import shutil; shutil.rmtree({str(link) + '/'!r})")
    assert link.is_symlink(), done
    trashed = trashed_from(sandbox)
    for path in ("sub/important/data.txt", "sub/notes.txt", "top.txt"):
        real = proj / path
        inside = [k for k in trashed if str(real).startswith(k + "/") or k == str(real)]
        assert real.exists() or inside, (path, done)
    assert trashed.get(str(proj / "top.txt")) == "top" or (proj / "top.txt").read_text() == "top"


@pytest.mark.parametrize("front_end", ["rm", "find", "rmtree", "os.remove", "unlink", "rmdir"])
def test_dotdot_after_a_link_means_the_links_parent(sandbox, front_end):
    proj = project(sandbox)
    (proj / "sub" / "empty").mkdir()
    link = sandbox.tmpdir / "link"
    link.symlink_to(proj / "sub")
    via = f"{link}/../"
    if front_end == "rm":
        done, gone = shim(sandbox, "rm", "-rf", via + "sub/important"), "sub/important"
    elif front_end == "find":
        done, gone = shim(sandbox, "find", via + "sub/important", "-delete"), "sub/important"
    elif front_end == "rmtree":
        code = f"import shutil; shutil.rmtree({via + 'sub/important'!r})"
        done, gone = python(sandbox, code), "sub/important"
    elif front_end == "os.remove":
        done, gone = python(sandbox, f"import os; os.remove({via + 'top.txt'!r})"), "top.txt"
    elif front_end == "unlink":
        done, gone = shim(sandbox, "unlink", via + "top.txt"), "top.txt"
    else:
        done, gone = shim(sandbox, "rmdir", via + "sub/empty"), "sub/empty"
    assert done.returncode == 0, done.stderr
    assert not (proj / gone).exists()
    trashed = trashed_from(sandbox)
    assert str(proj / gone) in trashed, trashed  # and Path= names where it really was
    if gone == "top.txt":
        assert trashed[str(proj / gone)] == "top"


def test_path_field_follows_the_kernel_not_the_text(sandbox):
    work = sandbox.work
    (work / "a" / "b").mkdir(parents=True)
    (work / "a" / "f").write_text("in a")
    (work / "ln").symlink_to(work / "a" / "b")
    done = shim(sandbox, "rm", "ln/../f")
    assert done.returncode == 0, done.stderr
    assert trashed_from(sandbox) == {str(work / "a" / "f"): "in a"}
    # restore puts it back where it was, not at work/f
    back = subprocess.run(
        [sys.executable, "-m", "safedel", "restore", str(work / "a" / "f")],
        env=sandbox.base_env(),
        capture_output=True,
        text=True,
    )
    assert back.returncode == 0, back.stderr
    assert (work / "a" / "f").read_text() == "in a" and not (work / "f").exists()


def test_a_link_in_the_temp_dir_is_itself_exempt(sandbox):
    proj = project(sandbox)
    link = sandbox.tmpdir / "link"
    link.symlink_to(proj)
    done = shim(sandbox, "rm", str(link))
    assert done.returncode == 0 and not os.path.lexists(link)
    assert (proj / "top.txt").exists() and sandbox.trashed_names() == []


def test_an_operand_given_twice_is_gone_the_second_time_not_failed(sandbox):
    (sandbox.work / "twice").write_text("x")
    (sandbox.tmpdir / "scratch").write_text("x")
    scratch = str(sandbox.tmpdir / "scratch")
    done = shim(sandbox, "rm", "-f", "twice", "twice", scratch, scratch)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    assert [e["operation"] for e in sandbox.report()] == ["trash"]
