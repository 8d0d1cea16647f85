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


NOBODY = 65534


def nobody_area():
    """(root, shim home): a world-reachable area under /var/tmp for running as nobody.

    The launchers there run on /usr/bin/python3, which nobody can execute; root/gnu
    and root/ours hold the two trees, root/home and root/state nobody's HOME and state.
    """
    import pathlib
    import tempfile

    from safedel.executor import shimhome

    root = pathlib.Path(tempfile.mkdtemp(prefix="safedel-nobody-", dir="/var/tmp"))
    os.chmod(root, 0o755)
    real_python = shimhome.python_for_launchers
    shimhome.python_for_launchers = lambda: "/usr/bin/python3"
    try:
        home_dir = shimhome.materialize(str(root / "shims"))
    finally:
        shimhome.python_for_launchers = real_python
    subprocess.run(["chmod", "-R", "a+rX", str(root / "shims")], check=True)
    for name in ("home", "gnu", "ours", "state"):
        (root / name).mkdir()
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(root / "home"), str(root / "state")])
    return root, home_dir


def nobody_env(root, home_dir, which):
    from safedel.executor import childenv

    base = {
        "PATH": "/usr/bin:/bin",
        "SAFEDEL_CHURN_SECONDS": "0",
        "HOME": str(root / "home"),
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "TMPDIR": str(root / "home"),
        "SAFEDEL_STATE_DIR": str(root / "state"),
        "SAFEDEL_REPORT": str(root / "state" / "report.jsonl"),
        "SAFEDEL_PROMPT": "0",
    }
    if which == "gnu":
        return base
    options = childenv.RunOptions(session="s", turn="t")
    env = childenv.child_environment(base, home_dir, options)
    # As `safedel run` started in the tree would decide: that is the workspace.
    env["SAFEDEL_WORKSPACE_ROOTS"] = str(root / "ours")
    return env


def nobody_run(root, home_dir, args, stdin, stdin_fd=None, only=("gnu", "ours"), tool="rm"):
    """{which: CompletedProcess} of `tool args` as nobody in root/gnu and root/ours."""
    setpriv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", tool]
    stdio = {"input": stdin} if stdin_fd is None else {"stdin": stdin_fd}
    return {
        which: subprocess.run(
            setpriv + args,
            cwd=root / which,
            env=nobody_env(root, home_dir, which),
            capture_output=True,
            timeout=120,
            **stdio,
        )
        for which in only
    }


def trash_names(root):
    files = root / "home" / ".local" / "share" / "Trash" / "files"
    return sorted(os.listdir(files)) if files.is_dir() else []


def walk_fd(top, visit):
    """visit(fd, name, prefix, is_dir) for every entry under top, by descriptor."""

    def walk(fd, prefix):
        for entry in os.scandir(fd):
            name = os.fsencode(entry.name)
            is_dir = entry.is_dir(follow_symlinks=False)
            visit(fd, name, prefix, is_dir)
            if is_dir:
                child = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                try:
                    walk(child, prefix + name + b"/")
                finally:
                    os.close(child)

    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        walk(fd, b"")
    finally:
        os.close(fd)


def deep_snapshot(top):
    """{relative path} under top, walked by descriptor (paths past PATH_MAX)."""
    found = set()
    walk_fd(top, lambda fd, name, prefix, is_dir: found.add(prefix + name))
    return found
