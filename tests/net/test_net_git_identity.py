"""What the net leaves to git is decided by identity, never by a name the command can
arrange (issue #29, cases 4 and 5): git's own bookkeeping is what git made during the
run, and a file git deletes as HEAD's blob is spared only while a store the command
cannot drop holds that blob. Each test is the attack itself, run inside `safedel run`
(dash with absolute paths, so that only the net sees the calls)."""

import os
import subprocess
import sys

from conftest import require
from netkit import GIT_ENV, NOBODY, as_nobody, nobody_package, nobody_scratch, require_net

G = "/usr/bin/git"
# A rebase in progress, as git keeps it, made by the command during the run.
FAKE_REBASE = (
    f"H=$({G} rev-parse HEAD) && mkdir .git/rebase-merge"
    " && echo refs/heads/master > .git/rebase-merge/head-name"
    " && echo $H > .git/rebase-merge/orig-head && echo $H > .git/rebase-merge/onto"
    " && echo 1 > .git/rebase-merge/interactive"
)


def _dash(sandbox, script, run_options=()):
    env = sandbox.base_env(**GIT_ENV)
    return sandbox.run(require("dash"), "-c", script, env=env, run_options=run_options)


def _repo(work, *files):
    """A repository at work with one commit, on branch master; files (name: content)
    are written before the run and left untracked."""
    git = require("git")
    env = {**os.environ, **GIT_ENV}
    subprocess.run([git, "init", "-q", "-b", "master"], cwd=work, env=env, check=True)
    subprocess.run([git, "commit", "-q", "--allow-empty", "-m", "base"], cwd=work, env=env)
    for name, content in files:
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_bytes(content)
    return git, env


def _trashed(sandbox):
    """{original path: the bytes the trash holds for it} of this run's trashed files."""
    found = {}
    for event in sandbox.report():
        if event["operation"] == "trash" and os.path.isfile(event["trashPath"]):
            with open(event["trashPath"], "rb") as handle:
                found[event["path"]] = handle.read()
    return found


def test_files_moved_into_the_git_dir_are_trashed_when_git_deletes_them(sandbox):
    """rebase-merge/, worktrees/, a loose object's name that a pack holds, and git's
    temporary files: each precious file moved there first reaches the trash whole.
    What git made there during the run goes without a trace."""
    require_net()
    work = sandbox.work
    precious = {f"p-{n}": f"precious {n}\n".encode() for n in ("rebase", "wt", "obj", "tmp")}
    _repo(work, *precious.items())
    script = (
        f"{FAKE_REBASE} && /bin/mv p-rebase .git/rebase-merge/x && {G} rebase --abort"
        " && mkdir -p .git/worktrees/w && echo /nowhere/.git > .git/worktrees/w/gitdir"
        f" && /bin/mv p-wt .git/worktrees/w/x && {G} worktree prune"
        f" && {G} repack -q -a -d && O=$({G} rev-parse HEAD)"
        " && D=$(echo $O | cut -c1-2) && mkdir -p .git/objects/$D"
        f" && /bin/mv p-obj .git/objects/$D/$(echo $O | cut -c3-) && {G} prune-packed"
        f" && /bin/mv p-tmp .git/objects/pack/tmp_pack_x && {G} prune --expire=now"
    )
    done = _dash(sandbox, script)
    assert done.returncode == 0, done.stderr
    assert not [name for name in precious if (work / name).exists()]
    trashed = _trashed(sandbox)
    assert sorted(trashed.values()) == sorted(precious.values()), trashed
    assert all(f"{os.sep}.git{os.sep}" in path for path in trashed)
    assert not (work / ".git" / "rebase-merge").exists()
    assert not (work / ".git" / "worktrees").exists()


def test_bookkeeping_from_before_the_run_is_trashed_not_lost(sandbox):
    """A rebase stopped by a conflict in an earlier turn: `git rebase --abort` deletes
    rebase-merge/, which this run did not make. It goes to the trash (counted)."""
    require_net()
    work = sandbox.work
    git, env = _repo(work, ("f.txt", b"base\n"))

    def commit(content, *args):
        (work / "f.txt").write_bytes(content)
        subprocess.run([git, "add", "f.txt"], cwd=work, env=env, check=True)
        subprocess.run([git, "commit", "-qm", "c", *args], cwd=work, env=env, check=True)

    commit(b"base\n")
    subprocess.run([git, "checkout", "-qb", "side"], cwd=work, env=env, check=True)
    commit(b"side\n")
    subprocess.run([git, "checkout", "-q", "master"], cwd=work, env=env, check=True)
    commit(b"master\n")
    stopped = subprocess.run([git, "rebase", "side"], cwd=work, env=env, capture_output=True)
    state = work / ".git" / "rebase-merge"
    assert stopped.returncode != 0 and state.is_dir(), stopped.stderr
    before = {p.name: p.read_bytes() for p in state.iterdir() if p.is_file()}
    done = _dash(sandbox, f"{G} rebase --abort")
    assert done.returncode == 0, done.stderr
    assert (work / "f.txt").read_text() == "master\n" and not state.exists()
    prefix = str(state) + os.sep
    trashed = {p[len(prefix) :]: c for p, c in _trashed(sandbox).items() if p.startswith(prefix)}
    assert trashed == before


def test_a_rename_racing_git_onto_its_own_files_loses_nothing(sandbox):
    """While git deletes rebase-merge/ (200 files it made in this run), the command
    renames precious files onto those names. Whatever the interleaving, each precious
    file is where it was, still in rebase-merge/, or in the trash: never gone."""
    require_net()
    work = sandbox.work
    count = 200
    precious = {f"p{i}": f"precious {i}\n".encode() for i in range(count)}
    _repo(work, *precious.items())
    script = (
        f"{FAKE_REBASE} && for i in $(seq 0 {count - 1}); do echo git > .git/rebase-merge/f$i;"
        f" done; (for i in $(seq 0 {count - 1}); do /bin/mv p$i .git/rebase-merge/f$i"
        f" 2>/dev/null; done) & {G} rebase --abort; wait"
    )
    done = _dash(sandbox, script, run_options=("--threshold", "99999"))
    assert done.returncode == 0, done.stderr
    kept = set(_trashed(sandbox).values())
    for name in precious:
        if (work / name).exists():
            kept.add((work / name).read_bytes())
    left = work / ".git" / "rebase-merge"
    if left.is_dir():
        kept.update(p.read_bytes() for p in left.iterdir())
    assert [n for n, c in precious.items() if c not in kept] == []


def test_a_rename_racing_git_onto_files_head_holds_loses_nothing(sandbox):
    """While `git rm -rf` deletes 200 tracked files (HEAD holds each: left to git), the
    command renames precious files onto their names. Each precious file is where it
    was, where it went, or in the trash: never gone."""
    require_net()
    work = sandbox.work
    count = 200
    git, env = _repo(work, *((f"t/{i}", f"tracked {i}\n".encode()) for i in range(count)))
    subprocess.run([git, "add", "t"], cwd=work, env=env, check=True)
    subprocess.run([git, "commit", "-qm", "t"], cwd=work, env=env, check=True)
    precious = {f"p{i}": f"precious {i}\n".encode() for i in range(count)}
    for name, content in precious.items():
        (work / name).write_bytes(content)
    script = (
        f"(for i in $(seq 0 {count - 1}); do /bin/mv p$i t/$i 2>/dev/null; done) &"
        f" {G} rm -rqf t; wait"
    )
    done = _dash(sandbox, script, run_options=("--threshold", "99999"))
    assert done.returncode == 0, done.stderr
    kept = set(_trashed(sandbox).values())
    kept.update((work / n).read_bytes() for n in precious if (work / n).exists())
    if (work / "t").is_dir():
        kept.update(p.read_bytes() for p in (work / "t").iterdir())
    assert [n for n, c in precious.items() if c not in kept] == []


def test_the_net_deletes_for_git_only_what_git_itself_may():
    """A root run whose git drops to uid 65534: the net deletes git's own files on its
    behalf, so it checks that uid's right first. In a sticky directory of root's,
    root's file stays and git gets the kernel's answer (EPERM), nothing trashed."""
    require_net()
    setpriv = require("setpriv")
    with nobody_scratch("safedel-git-drop-") as scratch:
        work = _nobody_repo(scratch, "work", {}, owner=None)
        home, report = os.path.join(scratch, "home"), os.path.join(scratch, "report.jsonl")
        os.makedirs(os.path.join(scratch, "tmp"))
        drop = f"{setpriv} --reuid={NOBODY} --regid={NOBODY} --clear-groups"
        script = (
            "mkdir -p .git/worktrees/w && chmod 1777 .git/worktrees/w"
            " && echo /nowhere/.git > .git/worktrees/w/gitdir"
            f" && {drop} {G} -c safe.directory='*' worktree prune"
        )
        env = {
            **GIT_ENV,
            "PATH": "/usr/bin:/bin",
            "SAFEDEL_CHURN_SECONDS": "0",
            "HOME": home,
            "SAFEDEL_PROMPT": "0",
        }
        env.update(TMPDIR=os.path.join(scratch, "tmp"), SAFEDEL_REPORT=report)
        argv = [sys.executable, "-m", "safedel", "run", "-q", "--net", "on", "--"]
        done = subprocess.run(
            [*argv, require("dash"), "-c", script], cwd=work, env=env, capture_output=True
        )
        gitdir = os.path.join(work, ".git", "worktrees", "w", "gitdir")
        assert os.path.exists(gitdir), done.stderr
        assert b"Operation not permitted" in done.stderr, done.stderr
        assert not os.path.exists(report) or b'"trash"' not in open(report, "rb").read()


def test_a_head_blob_in_a_store_the_command_can_drop_is_trashed(sandbox):
    """git deletes a file whose content HEAD holds, but the only copy of that blob is
    in a store the command can drop within the turn: a git dir in the temp dir
    (`git init --separate-git-dir=$TMPDIR/g`, then `rm -rf` of it is for real), a
    store made during the run, alternates in the temp dir. Each file is trashed; a
    tracked file of the work tree's own repository, made before the run, is not."""
    require_net()
    work = sandbox.work
    files = {
        "a/precious": b"only copy a\n",
        "b/precious": b"only copy b\n",
        "alt.txt": b"only copy alt\n",
        "tracked.txt": b"committed before the run\n",
    }
    git, env = _repo(work, *files.items())
    subprocess.run([git, "add", "tracked.txt"], cwd=work, env=env, check=True)
    subprocess.run([git, "commit", "-qm", "tracked"], cwd=work, env=env, check=True)
    alt = "$TMPDIR/alt"
    with_alt = f"GIT_OBJECT_DIRECTORY={alt} GIT_ALTERNATE_OBJECT_DIRECTORIES=$PWD/.git/objects"
    script = (
        f"{G} rm -q tracked.txt"
        f" && cd a && {G} init -q --separate-git-dir=$TMPDIR/g && {G} add precious"
        f" && {G} commit -qm a && {G} rm -q precious && /bin/rm -rf $TMPDIR/g .git"
        f" && cd ../b && {G} init -q && {G} add precious && {G} commit -qm b"
        f" && {G} rm -q precious && cd .. && mkdir -p {alt}"
        f" && echo {alt} > .git/objects/info/alternates && {with_alt} {G} add alt.txt"
        f" && {with_alt} {G} commit -qm alt && {G} rm -q alt.txt && /bin/rm -rf {alt}"
    )
    done = _dash(sandbox, script)
    assert done.returncode == 0, done.stderr
    assert not [name for name in files if (work / name).exists()]
    trashed = _trashed(sandbox)
    for name in ("a/precious", "b/precious", "alt.txt"):
        assert trashed.get(str(work / name)) == files[name], (name, sorted(trashed))
    assert str(work / "tracked.txt") not in trashed


def _nobody_repo(scratch, name, files, owner=NOBODY):
    """A repository at scratch/name (uid 65534's, unless owner is None), with files
    written before the run; its path."""
    work = os.path.join(scratch, name)
    os.makedirs(work)
    git = require("git")
    env = {**os.environ, **GIT_ENV}
    subprocess.run([git, "init", "-q", "-b", "master"], cwd=work, env=env, check=True)
    subprocess.run([git, "commit", "-q", "--allow-empty", "-m", "b"], cwd=work, env=env)
    for relative, content in files.items():
        os.makedirs(os.path.dirname(os.path.join(work, relative)), exist_ok=True)
        with open(os.path.join(work, relative), "wb") as handle:
            handle.write(content)
    if owner is not None:
        subprocess.run(["chown", "-R", f"{owner}:{owner}", scratch], check=True)
    return work


def _nobody_trash(scratch):
    files = os.path.join(scratch, "home", ".local", "share", "Trash", "files")
    found = {}
    for name in os.listdir(files) if os.path.isdir(files) else ():
        if os.path.isfile(os.path.join(files, name)):
            with open(os.path.join(files, name), "rb") as handle:
                found[name] = handle.read()
    return found


def test_as_uid_65534_in_a_shared_directory_moved_files_and_a_temp_store_are_trashed():
    """Cases 4 and 5 as another user, in a directory anyone may write: uid 65534's
    own precious files reach its own trash."""
    require_net()
    with nobody_scratch("safedel-git-identity-") as scratch:
        nobody_package(os.path.join(scratch, "package"))
        files = {"p-rebase": b"nobody's rebase\n", "sub/precious": b"nobody's blob\n"}
        _nobody_repo(scratch, "shared/work", files)
        os.chown(os.path.join(scratch, "shared"), 0, 0)
        os.chmod(os.path.join(scratch, "shared"), 0o1777)
        ident = " ".join(f"{k}={v}" for k, v in GIT_ENV.items())
        script = (
            f"export {ident} && {FAKE_REBASE} && /bin/mv p-rebase .git/rebase-merge/x"
            f" && {G} rebase --abort && cd sub && {G} init -q --separate-git-dir=$TMPDIR/g"
            f" && {G} add precious && {G} commit -qm x && {G} rm -q precious"
            " && /bin/rm -rf $TMPDIR/g"
        )
        status, stderr = as_nobody(scratch, "shared/work", script, netted=True)
        assert status == 0, stderr
        assert not os.path.exists(os.path.join(scratch, "shared", "work", "p-rebase"))
        assert sorted(_nobody_trash(scratch).values()) == sorted(files.values()), stderr


# Writes pack-X.idx for pack-X.pack (argv 1) listing object argv 2 at offset 12, with
# the pack's own checksum: git then takes the pack as holding that object.
FORGE_INDEX = """
import hashlib, struct, sys
pack = open(sys.argv[1], "rb").read()
name = bytes.fromhex(sys.argv[2])
fanout = b"".join(struct.pack(">I", int(i >= name[0])) for i in range(256))
body = b"\\377tOc" + struct.pack(">I", 2) + fanout + name + struct.pack(">II", 0, 12)
body += pack[-20:]
open(sys.argv[1][:-5] + ".idx", "wb").write(body + hashlib.sha1(body).digest())
"""


def test_a_forged_pack_index_cannot_have_git_drop_an_only_copy(sandbox):
    """The command packs some other object, then rewrites the pack's index to list a
    loose object whose only copy it is: git's prune-packed believes the pack and
    deletes the loose one. The net does not: the pack, written during the run, is
    verified (`git verify-pack`) before it counts, so the object goes to the trash."""
    require_net()
    work = sandbox.work
    git, env = _repo(work, ("notes.txt", b"the only copy of these notes\n"))
    hashed = subprocess.run(
        [git, "hash-object", "-w", "notes.txt"], cwd=work, env=env, capture_output=True
    )
    blob = hashed.stdout.decode().strip()
    loose = work / ".git" / "objects" / blob[:2] / blob[2:]
    original = loose.read_bytes()
    (work / "forge.py").write_text(FORGE_INDEX)
    script = (
        f"X=$(echo other | {G} hash-object -w --stdin)"
        f" && P=$(echo $X | {G} pack-objects -q .git/objects/pack/pack)"
        f" && python3 -I forge.py .git/objects/pack/pack-$P.pack {blob} && {G} prune-packed"
    )
    done = _dash(sandbox, script)
    assert done.returncode == 0, done.stderr
    assert not loose.exists()  # git deleted it, believing the forged index
    assert _trashed(sandbox).get(str(loose)) == original


def test_git_s_file_is_deleted_only_while_it_is_the_entry_judged(tmp_path):
    """gitunlink's capture, with the race already lost: the entry judged was replaced
    before the supervisor deletes. What bears the name now is put back, whole."""
    from safedel.net import birth, gitunlink

    directory = os.open(tmp_path, os.O_PATH | os.O_DIRECTORY)
    try:
        (tmp_path / "index.lock").write_text("git's\n")
        judged = birth.of(directory, "index.lock").identity
        (tmp_path / "precious").write_text("precious\n")
        os.rename(tmp_path / "precious", tmp_path / "index.lock")
        assert gitunlink.unlink_judged(directory, b"index.lock", judged) is False
        assert os.listdir(tmp_path) == ["index.lock"]
        assert (tmp_path / "index.lock").read_text() == "precious\n"
        again = birth.of(directory, "index.lock").identity
        assert gitunlink.unlink_judged(directory, b"index.lock", again) is True
        assert os.listdir(tmp_path) == []
    finally:
        os.close(directory)


def test_without_the_net_git_deletes_what_it_is_given_for_real(sandbox):
    """The gap the coverage table names: with `--net off` no shim sees git's own
    unlinks, so a file moved into rebase-merge/ and a file whose blob only the temp
    dir holds are gone for good."""
    work = sandbox.work
    files = {"p-rebase": b"gone without the net\n", "sub/precious": b"gone too\n"}
    _repo(work, *files.items())
    script = (
        f"{FAKE_REBASE} && /bin/mv p-rebase .git/rebase-merge/x && {G} rebase --abort"
        f" && cd sub && {G} init -q --separate-git-dir=$TMPDIR/g && {G} add precious"
        f" && {G} commit -qm x && {G} rm -q precious && /bin/rm -rf $TMPDIR/g"
    )
    done = _dash(sandbox, script, run_options=("--net", "off"))
    assert done.returncode == 0, done.stderr
    assert not (work / ".git" / "rebase-merge").exists()
    assert not (work / "sub" / "precious").exists()
    assert _trashed(sandbox) == {}


def test_a_file_made_the_moment_the_run_starts_counts_as_the_runs(tmp_path):
    """The run's start is read on the clock the kernel stamps files with, past the tick
    it began in: a file git makes a millisecond into the run (a `git add`'s
    tmp_obj_*) is born since it, and one made just before is not."""
    from safedel.net import birth

    for index in range(50):
        before = tmp_path / f"before-{index}"
        before.write_text("x")
        started = birth.mark(birth.clock_ns())
        after = tmp_path / f"after-{index}"
        after.write_text("x")
        fd = os.open(tmp_path, os.O_PATH)
        try:
            assert birth.born_since(birth.of(fd, after.name), started)
            assert not birth.born_since(birth.of(fd, before.name), started)
        finally:
            os.close(fd)
