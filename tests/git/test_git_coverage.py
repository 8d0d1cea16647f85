"""Coverage rows for git and for the other ways data is destroyed: each test shows what
happens under `safedel run` today, gaps included."""

import pytest
from conftest import require
from gitrepo import git, git_env, write


def repo_with_junk(sandbox, name="repo"):
    env = git_env(sandbox)
    repo = sandbox.work / name
    repo.mkdir(parents=True)
    git(repo, "init", "-q", env=env)
    write(repo / "junk.txt", b"untracked work\n")
    return repo, env


@pytest.mark.parametrize("shell", ["bash", "zsh"])
@pytest.mark.parametrize("git_path", ["/usr/bin/git", "/bin/git"])
def test_git_by_absolute_path_in_bash_and_zsh(sandbox, shell, git_path):
    require(shell)
    repo, env = repo_with_junk(sandbox)
    done = sandbox.run(shell, "-c", f"cd repo && {git_path} clean -f", env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"Removing junk.txt\n"
    assert not (repo / "junk.txt").exists()
    assert [e["runtime"] for e in sandbox.report() if e["operation"] == "trash"] == ["git"]


def test_git_dash_c_other_repo(sandbox):
    repo, env = repo_with_junk(sandbox, "other/repo")
    done = sandbox.run("git", "-C", "other/repo", "clean", "-f", env=env)
    assert done.returncode == 0 and done.stdout == b"Removing junk.txt\n", done.stderr
    trashed = [e["path"] for e in sandbox.report() if e["operation"] == "trash"]
    assert trashed == [str(repo / "junk.txt")]


def test_gap_rsync_delete_without_the_net(sandbox):
    rsync = require("rsync")
    (sandbox.work / "empty").mkdir()
    (sandbox.work / "mirror").mkdir()
    (sandbox.work / "mirror" / "extra").write_text("precious")
    done = sandbox.run(rsync, "-a", "--delete", "empty/", "mirror/", run_options=["--net", "off"])
    assert done.returncode == 0, done.stderr
    assert not (sandbox.work / "mirror" / "extra").exists()
    assert sandbox.trashed_names() == []


@pytest.mark.parametrize(
    "command",
    [
        "mv new old",
        "cp new old",
        "echo replaced > old",
    ],
)
def test_gap_overwriting_an_existing_file_is_not_caught(sandbox, command):
    (sandbox.work / "old").write_text("precious\n")
    (sandbox.work / "new").write_text("replaced\n")
    done = sandbox.run("bash", "-c", command)  # with the net too: nothing is unlinked
    assert done.returncode == 0, done.stderr
    assert (sandbox.work / "old").read_text() == "replaced\n"
    assert sandbox.trashed_names() == []


def test_gap_remove_item_stream_has_no_parameter_in_the_prelude():
    """`Remove-Item -Stream` fails under the prelude: its function has no -Stream."""
    ts = pytest.importorskip("tree_sitter")
    tsp = pytest.importorskip("tree_sitter_powershell")
    from safedel import shells

    source = shells.template("powershell").encode("utf-8")
    root = ts.Parser(ts.Language(tsp.language())).parse(source).root_node
    params = {
        source[v.start_byte : v.end_byte].decode().lower()
        for p in _nodes(root, "script_parameter")
        for v in _nodes(p, "variable")
    }
    assert {"$literalpath", "$recurse"} <= params
    assert "$stream" not in params


def _nodes(node, kind):
    if node.type == kind:
        yield node
    for child in node.children:
        yield from _nodes(child, kind)


def test_git_status_passes_through_untouched(sandbox):
    repo, env = repo_with_junk(sandbox)
    done = sandbox.run("git", "-C", "repo", "status", "--porcelain", env=env)
    assert done.returncode == 0 and done.stdout == b"?? junk.txt\n"
    assert sandbox.report() == []
