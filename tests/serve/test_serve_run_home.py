"""A served run is judged with the run's HOME and trash, not the server's: the client
(the socket's owner, the same user) may give the command another HOME or
XDG_DATA_HOME in RunExecutable's `env`, and the net, judging in the server's process,
then protects and trashes as the command's shims do."""

import os

import pytest
from servekit import Raw, Served

NATIVE = 'env -i /bin/{tool} -- "$1"; echo "{tool} $?"'


@pytest.fixture
def served(sandbox):
    server = Served(sandbox)
    yield server
    assert server.stop() == 0


def _run(raw, sandbox, name, env, argv):
    data = {"argv": argv, "cwd": str(sandbox.work), "turn": name, "env": env}
    return raw.exit_of(raw.ok(name, "RunExecutable", data)["processId"])


def _native(tool, path):
    return ["sh", "-c", NATIVE.format(tool=tool), "sh", str(path)]


def test_the_net_and_the_shims_trash_into_the_runs_home_trash(served, sandbox):
    home = sandbox.work / "runhome"
    data_home = home / ".local" / "share"
    data_home.mkdir(parents=True)
    env = {"HOME": str(home), "XDG_DATA_HOME": str(data_home)}
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    for name in ("by-net", "by-shim"):
        (sandbox.work / name).write_text(name)
    by_net = _run(raw, sandbox, "n", env, _native("rm", sandbox.work / "by-net"))
    assert "rm 0" in by_net["stdout"], by_net
    [event] = by_net["safeDeleteEvents"]
    assert event["runtime"] == "net", event
    by_shim = _run(raw, sandbox, "s", env, ["rm", "--", str(sandbox.work / "by-shim")])
    assert by_shim["exitCode"] == 0, by_shim
    trash = data_home / "Trash" / "files"
    assert sorted(os.listdir(trash)) == ["by-net", "by-shim"]
    servers = sandbox.home / ".local" / "share" / "Trash" / "files"
    assert not servers.exists() or not os.listdir(servers)


@pytest.mark.parametrize("how", ["net", "shim"])
def test_the_runs_home_is_protected_not_only_the_servers(served, sandbox, how):
    home = sandbox.work / "emptyhome"
    home.mkdir()
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    argv = _native("rmdir", home) if how == "net" else ["rmdir", "--", str(home)]
    result = _run(raw, sandbox, how, {"HOME": str(home)}, argv)
    assert home.is_dir(), result
    assert "refusing to remove your home directory" in result["stderr"], result
    if how == "net":
        assert "rmdir 1" in result["stdout"], result  # EPERM, as the kernel could say
    else:
        assert result["exitCode"] != 0, result
