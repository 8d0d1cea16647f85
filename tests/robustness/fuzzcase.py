"""A scratch world for one robustness case, and the checks every case must pass.

Each case gets its own directory holding a HOME, a work tree (the cwd), files and
directories that paths in argv and in the environment may name, and a bystander tree
that nothing names: after the case, every file no operand covers is unchanged.
"""

import os
import shutil
import stat
import subprocess
import sys
import tempfile

TRACEBACK = b"Traceback (most recent call last)"
SCRATCH = "@S@"  # stands for the case's scratch dir in generated values


def make_scratch(base):
    root = tempfile.mkdtemp(prefix="case-", dir=base)
    for sub in ("home", "work/dir1", "tmp", "adir", "state", "bystander/inner"):
        os.makedirs(os.path.join(root, sub), exist_ok=True)
    files = {
        "afile": b"plain\n",
        "work/file1": b"one\n",
        "work/dir1/f": b"two\n",
        "work/scratchfile": b"three\n",
        "junk.jsonl": b'{"not": "an event"\n\xff\xfe\n[1,2]\n',
        "bad.toml": b"[safedel\nthreshold = = 3\n",
        "bystander/keep": b"keep\n",
        "bystander/inner/keep2": b"keep\n",
    }
    for name, data in files.items():
        with open(os.path.join(root, name), "wb") as handle:
            handle.write(data)
    return root


def expand(value, root):
    return value.replace(SCRATCH, root) if isinstance(value, str) else value


def snapshot(paths):
    """Every file and directory under paths, with what identifies its content."""
    seen = {}
    for top in paths:
        if not os.path.lexists(top):
            seen[top] = None
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            for name in [dirpath, *(os.path.join(dirpath, n) for n in filenames + dirnames)]:
                try:
                    st = os.lstat(name)
                except FileNotFoundError:
                    continue
                seen[name] = (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ino)
    return seen


def operands(root, cwd, strings):
    """What a case may change: every path its argv or environment names (relative ones
    from its cwd, with all below them), and the dirs safedel writes by default."""
    named = {os.path.join(root, d) for d in ("home", "tmp", "state")}
    for value in strings:
        if value and "\0" not in value:
            named.add(os.path.normpath(os.path.join(cwd, value)))
    return named


def untouched(before, after, allowed):
    """The files in before that no operand covers are all still there, unchanged.

    (The real user's own dirs are not watched: other programs use them meanwhile; a
    case never has HOME or an XDG dir outside its scratch dir.)"""

    def covered(path):
        return any(path == a or path.startswith(a.rstrip("/") + "/") for a in allowed)

    return [
        path
        for path, seen in before.items()
        if seen is not None
        and not stat.S_ISDIR(seen[0])  # a dir's mtime moves with its operands
        and not covered(path)
        and after.get(path) != seen
    ]


def base_env(root):
    """An environment with nothing of the caller's safedel and HOME/XDG in scratch."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SAFEDEL_", "XDG_"))
        and key not in ("BASH_ENV", "ENV", "ZDOTDIR", "NODE_OPTIONS", "PYTHONPATH")
    }
    env.update(
        HOME=os.path.join(root, "home"),
        TMPDIR=os.path.join(root, "tmp"),
        SAFEDEL_PROMPT="0",
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def readable_package(dest):
    """dest, holding a copy of safedel and what it imports that every user can read.

    Another uid may not reach the checkout an editable install points at, nor a
    site-packages under a private home. The shims go in as safedel/shims, where a
    wheel puts them (an editable install maps them to the checkout's shims/).
    """
    import safedel
    from safedel.executor import shimhome

    if os.path.isdir(dest):
        return dest
    # The bytecode comes too (copied with its source's times, it stays valid): uid 65534
    # cannot write it there, and would compile typer and rich anew in every process.
    target = os.path.join(dest, "safedel")
    shutil.copytree(os.path.dirname(safedel.__file__), target)
    if not os.path.isfile(os.path.join(target, "shims", "__init__.py")):
        shutil.copytree(shimhome.SHIMS_DIR, os.path.join(target, "shims"))
    for dist in requirement_closure("safedel"):
        for name in dist.files or ():
            source = str(dist.locate_file(name))
            if not os.path.isfile(source):
                continue
            os.makedirs(os.path.join(dest, *name.parts[:-1]), exist_ok=True)
            shutil.copy2(source, os.path.join(dest, *name.parts))
    subprocess.run(["chmod", "-R", "a+rX", dest], check=True)
    return dest


def requirement_closure(name):
    """The installed distributions `name` needs, transitively (not `name` itself)."""
    import re
    from importlib import metadata

    found, todo = {}, [name]
    while todo:
        for requirement in metadata.requires(todo.pop()) or ():
            if "extra ==" in requirement:
                continue
            wanted = re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0]
            try:
                dist = metadata.distribution(wanted)
            except metadata.PackageNotFoundError:
                continue  # a marker that excludes it here
            key = dist.metadata["Name"].lower()
            if key not in found:
                found[key] = dist
                todo.append(wanted)
    return list(found.values())


def run_safedel(argv, env, cwd, timeout=60, preexec=None, prefix=()):
    return subprocess.run(
        [*prefix, sys.executable, "-m", "safedel", *argv],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        preexec_fn=preexec,
    )


def check_outcome(done, argv):
    """No traceback; 0, or 1/2 with a `safedel: ` line (what `run` wraps may differ)."""
    shown = f"argv={argv!r}\nrc={done.returncode}\nstderr={done.stderr[-3000:]!r}"
    assert TRACEBACK not in done.stderr, shown
    assert TRACEBACK not in done.stdout, shown
    # A run that never reached safedel checks nothing.
    assert b"No module named safedel" not in done.stderr, shown
    assert done.returncode >= 0, "killed by a signal: " + shown
    if argv[:1] == ["run"] and done.returncode not in (1, 2):
        return  # the wrapped command's own status, passed through
    assert done.returncode in (0, 1, 2), shown
