"""An ignored build tree is left to the kernel only while every file that decides git's
verdict predates the run (issue #29, case 6): the config that names an old excludes
file, a `.gitignore` that lost its `!build/`, a `.git` pointing at another repository's
rules. Each spelling is the attack, inside `safedel run` (dash, absolute paths: only
the net sees the calls); the user's tree must reach the trash whole."""

import os
import subprocess

import pytest
from conftest import require
from netkit import GIT_ENV, as_nobody, nobody_package, nobody_scratch, require_net

G = "/usr/bin/git"
PRECIOUS = b"results nobody can build again\n"

# (name, where the precious tree lies, script). $OLD: a rules file naming dist/,
# $OLDCONF: a config file naming $OLD, $O: another repository whose
# .git/info/exclude ignores build/; all three written before the run.
SPELLINGS = [
    ("local config", "dist", f"{G} config core.excludesFile $OLD && /bin/rm -rf dist"),
    (
        "global config",
        "dist",
        "printf '[core]\\n\\texcludesFile = %s\\n' $OLD > $HOME/.gitconfig && /bin/rm -rf dist",
    ),
    ("config include", "dist", f"{G} config include.path $OLDCONF && /bin/rm -rf dist"),
    ("-c to git clean", "dist", f"{G} -c core.excludesFile=$OLD clean -q -fdX"),
    (
        "GIT_CONFIG_* to git clean",
        "dist",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.excludesFile GIT_CONFIG_VALUE_0=$OLD"
        f" {G} clean -q -fdX",
    ),
    ("negation taken back", "keep/build", ": > keep/.gitignore && /bin/rm -rf keep/build"),
    ("negation deleted", "keep/build", "/bin/rm keep/.gitignore && /bin/rm -rf keep/build"),
    (
        "gitdir: to another repository",
        "sub/build",
        'echo "gitdir: $O/.git" > sub/.git && /bin/rm -rf sub/build',
    ),
    ("a .git moved in", "sub/build", "/bin/mv $O/.git sub/.git && /bin/rm -rf sub/build"),
]


def _setup(root, work):
    """The user's repository at work and the old files the spellings point at."""
    git = require("git")
    env = {**os.environ, **GIT_ENV}
    old = root / "old-rules"
    old.write_text("dist/\n")
    (root / "old-config").write_text(f"[core]\n\texcludesFile = {old}\n")
    other = root / "other"
    other.mkdir()
    subprocess.run([git, "init", "-q"], cwd=other, env=env, check=True)
    with open(other / ".git" / "info" / "exclude", "a") as handle:
        handle.write("build/\n")
    subprocess.run([git, "init", "-q"], cwd=work, env=env, check=True)
    subprocess.run([git, "commit", "-q", "--allow-empty", "-m", "b"], cwd=work, env=env)
    for where in ("build", "dist", "keep/build", "sub/build"):
        (work / where).mkdir(parents=True)
        (work / where / "precious.csv").write_bytes(PRECIOUS)
    # build/ is build output; keep/build/ would be too, but keep/.gitignore takes it
    # back; nothing ignores dist/ nor sub/build/.
    (work / ".gitignore").write_text("/build/\n/keep/build/\n")
    (work / "keep" / ".gitignore").write_text("!build/\n")
    return {"OLD": str(old), "OLDCONF": str(root / "old-config"), "O": str(other)}


@pytest.mark.parametrize("name, where, script", SPELLINGS, ids=[s[0] for s in SPELLINGS])
def test_a_build_tree_whose_rules_changed_during_the_run_is_trashed(sandbox, name, where, script):
    require_net()
    work = sandbox.work
    names = _setup(sandbox.root, work)
    env = sandbox.base_env(**GIT_ENV, **names)
    done = sandbox.run(require("dash"), "-c", script, env=env)
    assert done.returncode == 0, done.stderr
    precious = work / where / "precious.csv"
    assert not precious.exists()
    trashed = [e for e in sandbox.report() if e["operation"] == "trash"]
    moved = {e["path"]: e["trashPath"] for e in trashed}
    # The file itself, or the whole tree it was in.
    path = moved.get(str(precious)) or os.path.join(moved[str(work / where)], "precious.csv")
    with open(path, "rb") as handle:
        assert handle.read() == PRECIOUS


def test_the_same_build_tree_untouched_rules_leave_it_to_the_kernel(sandbox):
    """The control: with nothing written, build/ (ignored by `/build/` in the
    .gitignore made before the run) is left to the kernel; only the emptied directory,
    like any, is judged."""
    require_net()
    work = sandbox.work
    names = _setup(sandbox.root, work)
    env = sandbox.base_env(**GIT_ENV, **names)
    done = sandbox.run(require("dash"), "-c", "/bin/rm -rf build", env=env)
    assert done.returncode == 0, done.stderr
    trashed = [e["path"] for e in sandbox.report() if e["operation"] == "trash"]
    assert trashed == [str(work / "build")]


def test_as_uid_65534_in_a_shared_directory_an_excludes_file_it_names_is_not_trusted():
    require_net()
    with nobody_scratch("safedel-git-rules-") as scratch:
        nobody_package(os.path.join(scratch, "package"))
        shared = os.path.join(scratch, "shared")
        work = os.path.join(shared, "work")
        os.makedirs(os.path.join(work, "build"))
        with open(os.path.join(work, "build", "precious.csv"), "wb") as handle:
            handle.write(PRECIOUS)
        with open(os.path.join(scratch, "old-rules"), "w") as handle:
            handle.write("build/\n")
        env = {**os.environ, **GIT_ENV}
        subprocess.run([require("git"), "init", "-q"], cwd=work, env=env, check=True)
        subprocess.run(["chown", "-R", "65534:65534", work], check=True)
        os.chmod(shared, 0o1777)
        script = f"{G} config core.excludesFile {scratch}/old-rules && /bin/rm -rf build"
        status, stderr = as_nobody(scratch, "shared/work", script, netted=True)
        assert status == 0, stderr
        assert not os.path.exists(os.path.join(work, "build"))
        files = os.path.join(scratch, "home", ".local", "share", "Trash", "files")
        trashed = []
        for here, _dirs, names in os.walk(files):
            for name in names:
                with open(os.path.join(here, name), "rb") as handle:
                    trashed.append(handle.read())
        assert trashed == [PRECIOUS], stderr
