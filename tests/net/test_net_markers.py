"""The net's markers arrive where the shims' do: in the command's own stderr, which
capture mode puts in the result a harness reads."""

import json

from conftest import last_markers
from netkit import require_net


def test_capture_mode_puts_net_markers_in_the_captured_stderr(sandbox):
    require_net()
    for name in ("a", "b", "c"):
        (sandbox.work / name).write_text(name)
    # dash runs /bin/rm by path: no shim sees these, only the net.
    script = "for f in a b c; do /bin/rm $f || echo failed $f; done; rm c || echo shim c"
    result = sandbox.run("dash", "-c", script, run_options=["--threshold", "2", "--json"])
    built = json.loads(result.stdout)
    assert built["stdout"] == "failed c\nshim c\n"
    captured = last_markers(built["stderr"])
    assert captured["SAFE_DELETE_BULK_CONFIRM_REQUIRED"]["targets"], built["stderr"]
    # The refusal of /bin/rm (net) and of the rm shim both sit in the captured stream,
    # the net's before rm's own complaint, as a program's own write would be.
    lines = built["stderr"].splitlines()
    net_marker = next(i for i, line in enumerate(lines) if line.startswith("[safe-delete]"))
    assert "/bin/rm: cannot remove 'c'" in "\n".join(lines[net_marker + 1 :])
    assert sum(line.startswith("[safe-delete][SAFE_DELETE_BULK") for line in lines) == 2
    # ... and not in safedel run's own stderr, where no harness looks in capture mode.
    assert "[safe-delete]" not in result.stderr.decode()
    assert built["guard"]["type"] == "confirmRequired"
    assert (sandbox.work / "c").read_text() == "c"
    assert sorted(sandbox.trashed_names()) == ["a", "b"]


def test_without_capture_net_markers_stay_on_safedels_stderr(sandbox):
    require_net()
    (sandbox.work / "kept.txt").write_text("kept")
    outside = sandbox.root / "elsewhere"
    outside.mkdir()
    (outside / "x.txt").write_text("x")
    script = f"/bin/rm {outside / 'x.txt'} || echo refused"
    result = sandbox.run("dash", "-c", script, run_options=["--workspace", str(sandbox.work)])
    assert result.stdout == b"refused\n"
    assert "SAFE_DELETE_OUTSIDE_WORKSPACE" in last_markers(result.stderr)
    assert (outside / "x.txt").read_text() == "x"
