"""What the net leaves to git, and only to git: build trees git ignores by their own
rule, the real git's bookkeeping (not a program merely named git-*), objects a pack
still holds; and the git the supervisor runs itself starts nothing of the command's."""

import os
import shutil
import subprocess

from conftest import require
from netkit import GIT_ENV, require_net, restore_turn


def _dash(sandbox, script):
    """script under dash, where `/bin/rm` and `/usr/bin/git` meet only the net."""
    return sandbox.run(require("dash"), "-c", script, env=sandbox.base_env(**GIT_ENV))


def _repo(sandbox):
    git = require("git")
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "base"]):
        subprocess.run([git, *args], cwd=sandbox.work, env=env, check=True)
    return git, env


def _trashed_paths(sandbox):
    return sorted(e["path"] for e in sandbox.report() if e["operation"] == "trash")


def test_a_build_name_inside_an_ignored_data_dir_is_trashed(sandbox):
    require_net()
    work = sandbox.work
    _repo(sandbox)
    (work / ".gitignore").write_text("data/\ntarget/\nnode_modules/\nlib/**\n")
    files = [
        "data/target/labels.csv",  # target/ ignored only as part of data/
        "data/raw/x.csv",
        "lib/target/y.txt",  # lib/** takes everything in lib/, naming none of it
        "target/out.o",  # ignored by its own rule: a build tree
        "node_modules/p/build/x.js",
    ]
    for name in files:
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(name)
    done = _dash(sandbox, "/bin/rm " + " ".join(files))
    assert done.returncode == 0, done.stderr
    assert not any((work / name).exists() for name in files)
    assert _trashed_paths(sandbox) == sorted(str(work / name) for name in files[:3])


def test_an_ignore_rule_written_during_the_run_leaves_the_directory_judged(sandbox):
    """The command ignores out/ and dist/ itself (one rule in .git/info/exclude, one in
    a .gitignore whose mtime it then sets back), then deletes them: both are judged.
    So is sub/build/, though its rule in sub/.gitignore was written before the run:
    the files it wrote are read for sub/build too (an `!sub/` or `sub/` there decides
    whether git looks inside sub/ at all)."""
    require_net()
    work = sandbox.work
    _repo(sandbox)
    (work / "sub").mkdir()
    (work / "sub" / ".gitignore").write_text("build/\n")
    (work / ".gitignore").write_text("*.log\n")
    mine = ["out/f1.c", "out/f2.c", "dist/notes.md", "sub/build/a.o", "sub/build/b.o"]
    for name in mine:
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(name)
    script = (
        "echo out/ >> .git/info/exclude && echo dist/ >> .gitignore && "
        "touch -d 2001-01-01 .gitignore && /bin/rm -rf out dist sub/build"
    )
    done = _dash(sandbox, script)
    assert done.returncode == 0, done.stderr
    assert not any((work / name).exists() for name in mine + ["out", "dist"])
    moved = {e["path"]: e["trashPath"] for e in sandbox.report() if e["operation"] == "trash"}
    for name in mine:  # each file in the trash, whole
        with open(moved[str(work / name)]) as handle:
            assert handle.read() == name


def test_a_rule_written_off_the_path_leaves_a_build_tree_to_the_kernel(sandbox):
    """A .gitignore the command writes in another directory is not read for sub/build:
    sub/build/, ignored by a rule written before the run, is left to the kernel."""
    require_net()
    work = sandbox.work
    _repo(sandbox)
    (work / "sub").mkdir()
    (work / "other").mkdir()
    (work / "sub" / ".gitignore").write_text("build/\n")
    built = ["sub/build/a.o", "sub/build/b.o"]
    for name in built:
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(name)
    done = _dash(sandbox, "echo dist/ >> other/.gitignore && /bin/rm -rf sub/build")
    assert done.returncode == 0, done.stderr
    assert not (work / "sub" / "build").exists()
    # Its files left to the kernel (the emptied directory itself, as any, is judged).
    assert _trashed_paths(sandbox) == [str(work / "sub" / "build")]


def test_the_supervisors_git_runs_no_hook_of_the_command(sandbox):
    """The command points core.fsmonitor at a script; git under the command may run it
    (inside the net), the supervisor's check-ignore and cat-file never do."""
    require_net()
    work = sandbox.work
    git, env = _repo(sandbox)
    (work / "keep.txt").write_text("precious\n")
    (work / "sub").mkdir()
    (work / "sub" / "junk").write_text("x\n")
    (work / "tracked").write_text("t\n")
    subprocess.run([git, "add", "-A"], cwd=work, env=env, check=True)
    subprocess.run([git, "commit", "-qm", "files"], cwd=work, env=env, check=True)
    (work / "keep.txt").write_text("uncommitted edits\n")
    log = sandbox.root / "hook.log"
    hook = sandbox.root / "hook.sh"
    hook.write_text(
        f"#!/bin/sh\ngrep Seccomp: /proc/$$/status >> {log}\n/bin/rm -f {work}/keep.txt\nexit 1\n"
    )
    hook.chmod(0o755)
    done = _dash(
        sandbox,
        f"/usr/bin/git config core.fsmonitor {hook} && /bin/rm sub/junk"
        " && /usr/bin/git rm -q tracked",
    )
    assert done.returncode == 0, done.stderr
    assert not (work / "sub" / "junk").exists() and not (work / "tracked").exists()
    # Wherever the hook ran, it ran under the filter (mode 2): its deletion was judged.
    lines = log.read_text().splitlines() if log.exists() else []
    assert all(line.split() == ["Seccomp:", "2"] for line in lines), lines
    kept = (work / "keep.txt").exists()
    assert kept or str(work / "keep.txt") in _trashed_paths(sandbox)
    assert str(work / "sub" / "junk") in _trashed_paths(sandbox)


def test_a_program_named_git_is_not_git(sandbox):
    """A copy of rm called git-tidy (or git-annex) deleting in .git is judged."""
    require_net()
    work = sandbox.work
    _repo(sandbox)
    (work / ".git" / "annex" / "objects").mkdir(parents=True)
    (work / ".git" / "annex" / "objects" / "KEY").write_text("the only copy\n")
    tools = sandbox.root / "tools"
    tools.mkdir()
    for name in ("git-tidy", "git-annex"):
        shutil.copy(require("rm"), tools / name)
    done = _dash(
        sandbox,
        f"PATH={tools}:$PATH; /usr/bin/git tidy -rf .git/refs; /usr/bin/git annex -r .git/annex",
    )
    assert done.returncode == 0, done.stderr
    trashed = _trashed_paths(sandbox)
    assert str(work / ".git" / "annex" / "objects" / "KEY") in trashed
    assert any(p.startswith(str(work / ".git" / "refs" / "heads")) for p in trashed)


def test_real_git_from_its_exec_path_and_gc_trash_nothing(sandbox):
    require_net()
    work = sandbox.work
    git, env = _repo(sandbox)
    core = subprocess.run([git, "--exec-path"], capture_output=True, text=True, check=True)
    for index in range(20):
        (work / f"f{index}").write_text(f"{index}\n")
    script = (
        "/usr/bin/git add -A && /usr/bin/git commit -qm one && echo 2 > f1 && "
        "/usr/bin/git commit -qam two && /usr/bin/git checkout -q HEAD~1 && "
        f'"{core.stdout.strip()}/git" gc -q && /usr/bin/git checkout -q - && '
        "/usr/bin/git gc -q --prune=now"
    )
    done = _dash(sandbox, script)
    assert done.returncode == 0, done.stderr
    assert sandbox.trashed_names() == []
    loose = [d for d in os.listdir(work / ".git" / "objects") if len(d) == 2]
    assert all(not os.listdir(work / ".git" / "objects" / d) for d in loose)


def test_gc_dropping_the_only_copy_of_a_deleted_file_trashes_its_objects(sandbox):
    """git deletes the file as HEAD's blob; gc --prune=now then drops every object
    holding it. Loose ones no pack holds go to the trash, and so does a pack whose
    objects no other pack holds."""
    require_net()
    work = sandbox.work
    git, _ = _repo(sandbox)
    contents = {"notes.txt": b"notes nobody committed before\n", "packed.txt": b"dropped\n"}
    blobs = {}
    for name, content in contents.items():
        (work / name).write_bytes(content)
        hashed = subprocess.run([git, "hash-object", name], cwd=work, capture_output=True)
        blobs[name] = hashed.stdout.decode().strip()
    done = _dash(
        sandbox,
        "G=/usr/bin/git; $G add packed.txt && $G commit -qm p && $G branch side &&"
        " $G reset -q --hard HEAD~1 && $G repack -q -d &&"
        " $G branch -D -q side && $G add -A && $G commit -qm wip &&"
        " $G reset -q --hard HEAD~1 && $G reflog expire --expire=now --all &&"
        " $G gc -q --prune=now",
    )
    assert done.returncode == 0, done.stderr
    assert not (work / "notes.txt").exists() and not (work / "packed.txt").exists()
    trashed = _trashed_paths(sandbox)
    objects = str(work / ".git" / "objects") + os.sep
    assert any(p.startswith(objects) and "/pack/" not in p for p in trashed), trashed
    assert any(p.startswith(objects + "pack" + os.sep) and p.endswith(".pack") for p in trashed)
    # What the trash holds brings the content back: the loose objects as they were,
    # the pack once git indexes it again.
    assert restore_turn(sandbox).returncode == 0
    git = require("git")
    pack = next(p for p in trashed if p.endswith(".pack"))
    subprocess.run([git, "index-pack", pack], cwd=work, capture_output=True, check=True)
    for name in ("notes.txt", "packed.txt"):
        show = subprocess.run([git, "cat-file", "-p", blobs[name]], cwd=work, capture_output=True)
        assert show.returncode == 0 and show.stdout == contents[name], show.stderr


def test_a_git_put_on_path_by_the_command_is_neither_trusted_nor_run(sandbox):
    """git is found when the run starts; a `git` the command writes into a PATH
    directory afterwards neither answers the supervisor's questions nor is git."""
    require_net()
    work = sandbox.work
    _repo(sandbox)
    (work / "sub").mkdir()
    (work / "sub" / "junk").write_text("x\n")
    tools = sandbox.root / "tools"
    tools.mkdir()
    asked = sandbox.root / "asked.log"
    script = (
        f'printf \'#!/bin/sh\\necho "$*" >> {asked}\\nexec /bin/rm "$@"\\n\' > {tools}/git'
        f" && chmod +x {tools}/git && {tools}/git -r .git/refs/heads && /bin/rm sub/junk"
    )
    env = sandbox.base_env(**GIT_ENV)
    env["PATH"] = f"{tools}:{env['PATH']}"
    done = sandbox.run(require("dash"), "-c", script, env=env)
    assert done.returncode == 0, done.stderr
    assert asked.read_text().split() == ["-r", ".git/refs/heads"]  # only the command's call
    trashed = _trashed_paths(sandbox)
    assert str(work / "sub" / "junk") in trashed
    assert any(p.startswith(str(work / ".git" / "refs" / "heads")) for p in trashed), trashed
