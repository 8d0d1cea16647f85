"""Real repositories for the git tests: built twice, so the real git can clean one
and safedel the other."""

import os
import shutil
import subprocess

from conftest import require

HOSTILE = [b"sp ace", b"new\nline", b"bad\xff", b'q"uote', b"back\\slash", b"-dash", b"pc%41"]


def git_env(sandbox):
    env = sandbox.base_env(
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@t",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@t",
        GIT_CONFIG_NOSYSTEM="1",
    )
    env["HOME"] = str(sandbox.home)
    return env


def real_git():
    return require("/usr/bin/git")


def git(repo, *args, env, check=True):
    done = subprocess.run(
        [real_git(), "-C", os.fsdecode(repo), *args], env=env, capture_output=True
    )
    if check and done.returncode:
        raise AssertionError(done.stderr.decode(errors="replace"))
    return done


def write(path, data=b"x\n"):
    path = os.fsencode(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)


def build(root, env):
    """A repository with tracked, untracked, ignored and hostile names, an untracked
    directory holding ignored files, and a nested repository."""
    root = os.fsencode(root)
    os.makedirs(root)
    git(root, "init", "-q", "-b", "main", env=env)
    write(root + b"/tracked.txt")
    write(root + b"/.gitignore", b"*.o\nbuild/\n")
    write(root + b"/src/keep.c")
    git(root, "add", "-A", env=env)
    git(root, "commit", "-qm", "init", env=env)
    for name in HOSTILE:
        write(root + b"/" + name)
    write(root + b"/a.o")
    write(root + b"/src/b.o")
    write(root + b"/src/new.c")
    write(root + b"/build/out/bin")
    write(root + b"/untracked/x.c")
    write(root + b"/untracked/y.o")
    write(root + b"/logs/app.log")
    nested = root + b"/nested"
    os.makedirs(nested)
    git(nested, "init", "-q", env=env)
    write(nested + b"/inner.txt")
    return root


def snapshot_tree(root):
    """Every path under root but its own .git (relative, bytes): file contents, or None
    for a directory."""
    root = os.fsencode(root)
    found = {}
    for parent, dirs, files in os.walk(root):
        if parent == root:
            dirs[:] = [d for d in dirs if d != b".git"]
        rel = os.path.relpath(parent, root)
        for name in dirs:
            found[os.path.normpath(os.path.join(rel, name))] = None
        for name in files:
            with open(os.path.join(parent, name), "rb") as handle:
                found[os.path.normpath(os.path.join(rel, name))] = handle.read()
    return found


def twins(tmp, env):
    """(real, ours): two identical repositories."""
    real = build(os.path.join(os.fsencode(tmp), b"real"), env)
    ours = os.path.join(os.fsencode(tmp), b"ours")
    shutil.copytree(real, ours, symlinks=True)
    return real, ours
