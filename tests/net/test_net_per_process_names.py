"""/proc/self, /proc/thread-self and /dev/fd name the caller's own entries: the net
resolves them for the process that made the call, never for itself.

Node's shim deletes exempt items through /proc/self/fd/N/name (it has no unlinkat), so
under the net every such delete failed with ENOENT before: the supervisor had opened
its own descriptor N.
"""

import pytest
from conftest import require
from netkit import require_net

# perl is not shimmed: only the net sees its unlink. It opens the directory and unlinks
# by the descriptor's /proc (or /dev/fd) name, as a program with no unlinkat does.
PERL = """
opendir(my $dir, $ARGV[0]) or die "opendir: $!";
my $fd = fileno($dir);
unlink("$ARGV[1]/$fd/$ARGV[2]") or die "unlink: $!\\n";
print "done\\n";
"""


@pytest.mark.parametrize("prefix", ["/proc/self/fd", "/proc/thread-self/fd", "/dev/fd"])
def test_a_workspace_file_unlinked_by_descriptor_name_is_trashed(sandbox, prefix):
    require_net()
    (sandbox.work / "d").mkdir()
    (sandbox.work / "d" / "keep.txt").write_text("mine")
    done = sandbox.run(require("perl"), "-e", PERL, "d", prefix, "keep.txt")
    assert done.returncode == 0 and done.stdout == b"done\n", done.stderr
    assert not (sandbox.work / "d" / "keep.txt").exists()
    trashed = [e["path"] for e in sandbox.report() if e["operation"] == "trash"]
    assert trashed == [str(sandbox.work / "d" / "keep.txt")]
    assert (sandbox.trash / "files" / "keep.txt").read_text() == "mine"


def test_node_deletes_exempt_items_under_the_net(sandbox):
    require_net()
    scratch = sandbox.tmpdir / "scratch é"
    (scratch / "tree" / "sub").mkdir(parents=True)
    (scratch / "one.txt").write_text("x")
    (scratch / "tree" / "sub" / "two.txt").write_text("y")
    script = (
        "const fs = require('fs');"
        f"fs.unlinkSync({str(scratch / 'one.txt')!r});"
        f"fs.rmSync({str(scratch / 'tree')!r}, {{ recursive: true }});"
        "console.log('done');"
    )
    done = sandbox.run(require("node"), "-e", script)
    assert done.returncode == 0 and done.stdout == b"done\n", done.stderr
    assert list(scratch.iterdir()) == []
    assert sandbox.trashed_names() == []  # exempt: deleted for real, as without safedel
