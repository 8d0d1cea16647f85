"""Run a GNU tool and safedel's launcher for it on two identical trees, and compare.

The same arguments, stdin and environment (apart from the safedel contract) go to
/usr/bin/<tool> in work/gnu and to the materialised launcher in work/ours. A test
then checks that stdout, stderr and the exit status match, that the two trees are
left in the same state, and that what vanished from ours is in the trash.
"""

import os
import subprocess

REAL = {"rm": "/usr/bin/rm", "rmdir": "/usr/bin/rmdir", "unlink": "/usr/bin/unlink"}
REAL["find"] = "/usr/bin/find"


def snapshot(root):
    """{relative path: kind} of everything under root, without following symlinks."""
    root = os.fsencode(root)
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            kind = "link" if os.path.islink(path) else "dir" if os.path.isdir(path) else "file"
            found[os.path.relpath(path, root)] = kind
    return found


class Outcome:
    def __init__(self, done, before, after):
        self.status, self.stdout, self.stderr = done.returncode, done.stdout, done.stderr
        self.before, self.after = before, after
        self.gone = sorted(set(before) - set(after))

    def __repr__(self):
        return f"Outcome({self.status}, {self.stdout!r}, {self.stderr!r}, gone={self.gone!r})"


class SideBySide:
    def __init__(self, sandbox, tool):
        self.sandbox, self.tool = sandbox, tool
        self.gnu = sandbox.work / "gnu"
        self.ours = sandbox.work / "ours"
        self.launcher = os.path.join(sandbox.shim_home, "bin", tool)

    def build(self, setup):
        """setup(base) creates the test tree under base; it runs once per side."""
        for base in (self.gnu, self.ours):
            base.mkdir(exist_ok=True)
            setup(os.fsencode(base))

    def run(self, args, stdin=b"", env=None, shim_env=None, cwd="."):
        """(gnu Outcome, our Outcome) for the same argv."""
        argv = [self.tool, *args]
        results = []
        for base, executable, environ in (
            (self.gnu, REAL[self.tool], env or self.sandbox.base_env()),
            (self.ours, self.launcher, shim_env or self.sandbox.shim_env()),
        ):
            before = snapshot(base)
            done = subprocess.run(
                argv,
                executable=executable,
                cwd=os.path.join(os.fsencode(base), os.fsencode(cwd)),
                env=environ,
                input=stdin,
                capture_output=True,
                timeout=60,
            )
            results.append(Outcome(done, before, snapshot(base)))
        return results

    def same(self, args, stdin=b"", **kwargs):
        """Run both, assert they behave the same, and return our Outcome."""
        gnu, ours = self.run(args, stdin, **kwargs)
        assert (ours.status, ours.stdout, ours.stderr) == (gnu.status, gnu.stdout, gnu.stderr)
        assert ours.after == gnu.after
        return ours


def assert_trashed(sandbox, outcome, base, runtime):
    """Everything that vanished went to the trash: a report line covers it, and it is there."""
    events = [e for e in sandbox.report() if e["operation"] == "trash"]
    assert all(e["runtime"] == runtime for e in events)
    # Judge each reported path by its real parent: `rm -r link/` trashes link/x.
    roots = [os.fsencode(e["path"]) for e in events]
    roots = [os.path.join(os.path.realpath(os.path.dirname(r)), os.path.basename(r)) for r in roots]
    base = os.fsencode(base)
    for gone in outcome.gone:
        path = os.path.join(base, gone)
        assert any(path == r or path.startswith(r + b"/") for r in roots), gone
    for event in events:
        assert os.path.lexists(os.fsencode(event["trashPath"]))
    return events
