"""Run GNU coreutils' own rm and rmdir tests against GNU's tools and against safedel's.

    python tests/gnu_suite.py CHECKOUT [--json FILE] [--only rm/rm1.sh ...]

CHECKOUT is a coreutils source tree at the release whose behaviour safedel follows
(9.1): the directory holding init.cfg and tests/init.sh. Nothing of it is kept in this
repository. Given no checkout, the script says so and exits 0; nothing in CI runs it.
It needs root (to become uid 65534 with setpriv), /usr/bin/python3 for the launchers,
and perl for the .pl tests.

Each test in tests/rm and tests/rmdir runs twice as uid 65534, in two copies of the
test tree whose src/ directory (first on PATH, as `make check` puts the built tools)
holds GNU's /usr/bin tools in one and safedel's launchers in the other, with the rest
of the environment `make check` would give. Prints a markdown table: each test's
status with GNU and with safedel (PASS, FAIL, SKIP, ERROR), then the totals.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

NOBODY = 65534
TOOLS = ("rm", "rmdir", "unlink")
STATUS = {0: "PASS", 77: "SKIP", 99: "ERROR"}
COPIED = ("init.cfg", "tests/init.sh", "tests/lang-default", "tests/envvar-check")
COPIED += ("tests/other-fs-tmpdir", "tests/d_type-check", "tests/no-perl")
PERL_MODULES = ("tests/Coreutils.pm", "tests/CuSkip.pm", "tests/CuTmpdir.pm")
# What `getlimits` prints that init.cfg's getlimits_ may read (LP64 Linux values).
GETLIMITS = """#!/bin/sh
cat <<'EOF'
CHAR_MAX=127
CHAR_MIN=-128
INT_MAX=2147483647
INT_MIN=-2147483648
INT_OFLOW=2147483648
INT_UFLOW=-2147483649
UINT_MAX=4294967295
UINT_OFLOW=4294967296
LONG_MAX=9223372036854775807
LONG_MIN=-9223372036854775808
LONG_OFLOW=9223372036854775808
LONG_UFLOW=-9223372036854775809
ULONG_MAX=18446744073709551615
ULONG_OFLOW=18446744073709551616
SIZE_MAX=18446744073709551615
SIZE_OFLOW=18446744073709551616
SSIZE_MAX=9223372036854775807
SSIZE_MIN=-9223372036854775808
INTMAX_MAX=9223372036854775807
INTMAX_MIN=-9223372036854775808
UINTMAX_MAX=18446744073709551615
OFF_T_MAX=9223372036854775807
OFF_T_MIN=-9223372036854775808
OFF_T_OFLOW=9223372036854775808
EOF
"""


def tests_in(checkout):
    found = []
    for group in ("rm", "rmdir"):
        folder = os.path.join(checkout, "tests", group)
        for name in sorted(os.listdir(folder)):
            if name.endswith((".sh", ".pl", ".xpl")):
                found.append(f"{group}/{name}")
    return found


def make_tree(checkout, tree, tools):
    """A copy of the test files at tree, with src/ holding tools {name: target}."""
    os.makedirs(os.path.join(tree, "tests"))
    for part in (*COPIED, *PERL_MODULES):
        if os.path.exists(os.path.join(checkout, part)):
            shutil.copy2(os.path.join(checkout, part), os.path.join(tree, part))
    for group in ("rm", "rmdir"):
        shutil.copytree(os.path.join(checkout, "tests", group), os.path.join(tree, "tests", group))
    # r-root.sh reads rm's source for a constant; the copy lives only in the tree.
    remove_c = os.path.join(checkout, "src", "remove.c")
    with open(os.path.join(tree, "config.h"), "w") as handle:
        handle.write("#define HAVE_OPENAT 1\n#define HAVE_FDOPENDIR 1\n")
    src = os.path.join(tree, "src")
    os.mkdir(src)
    for name, target in tools.items():
        os.symlink(target, os.path.join(src, name))
    if os.path.isfile(remove_c):
        shutil.copy2(remove_c, os.path.join(src, "remove.c"))
    with open(os.path.join(src, "getlimits"), "w") as handle:
        handle.write(GETLIMITS)
    os.chmod(os.path.join(src, "getlimits"), 0o755)
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", tree], check=True)


def suite_env(tree, extra):
    """The variables tests/local.mk's TESTS_ENVIRONMENT exports, for this tree."""
    env = {
        "PATH": f"{tree}/src:/usr/local/bin:/usr/bin:/bin",
        "LC_ALL": "C",
        "VERSION": "9.1",
        "PACKAGE_VERSION": "9.1",
        "abs_top_builddir": tree,
        "abs_top_srcdir": tree,
        "abs_srcdir": f"{tree}/tests",
        "built_programs": " ".join(TOOLS),
        "fail": "0",
        "host_os": "linux-gnu",
        "srcdir": ".",
        "top_srcdir": ".",
        "PERL": "perl",
        "SHELL": "/bin/sh",
        "EGREP": "grep -E",
        "AWK": "awk",
        "CC": "gcc",
        "MAKE": "make",
        # What init.cfg greps for: the features of a Linux build of coreutils.
        "CONFIG_HEADER": f"{tree}/config.h",
    }
    env.update(extra)
    env["PATH"] = f"{tree}/src:" + env["PATH"].replace(f"{tree}/src:", "")
    return env


def run_test(tree, test, env, timeout):
    if test.endswith(".sh"):
        argv = ["/bin/sh", f"tests/{test}"]
    else:
        argv = ["perl", *(["-T"] if test.endswith(".xpl") else []), "-w", "-Itests"]
        argv += ["-MCuSkip", "-MCoreutils", f"-MCuTmpdir qw(tests/{test})", f"tests/{test}"]
    setpriv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    env = dict(env, CU_TEST_NAME=f"tests,{test.replace('/', '-')}")
    try:
        done = subprocess.run(
            # make check runs each test with fd 9 open on stderr (9>&2).
            setpriv
            + ["env", "-i", *(f"{k}={v}" for k, v in env.items())]
            + ["/bin/sh", "-c", 'exec 9>&2; exec "$@"', "sh", *argv],
            cwd=tree,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return "ERROR", "timed out"
    status = STATUS.get(done.returncode, "FAIL")
    log = (done.stdout + done.stderr).decode("utf-8", "replace")
    return status, "\n".join(log.strip().splitlines()[-25:])


def safedel_env(work, home_dir, test, tree):
    """What `safedel run` gives a command, for nobody, with this test as the turn."""
    from safedel import environment

    base = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": f"{work}/home",
        "TMPDIR": f"{work}/tmp",
        "SAFEDEL_STATE_DIR": f"{work}/state",
        "SAFEDEL_REPORT": f"{work}/state/report.jsonl",
        "SAFEDEL_PROMPT": "0",
    }
    options = environment.RunOptions(session="gnu-suite", turn=test, threshold=99999)
    env = environment.child_environment(base, home_dir, options)
    # Only the launchers are under test: the shells' and runtimes' hooks stay out (perl
    # -T, for one, refuses to run anything while ENV is set).
    for hook in ("BASH_ENV", "ENV", "ZDOTDIR", "NODE_OPTIONS", "PYTHONPATH"):
        env.pop(hook, None)
    # As `safedel run` started in the test tree would decide, once: that is the
    # workspace (the tests cd into subdirectories and name siblings by absolute path).
    env["SAFEDEL_WORKSPACE_ROOTS"] = tree
    return env


def trash_events(work):
    try:
        with open(os.path.join(work, "state", "report.jsonl"), "rb") as handle:
            return sum(b'"operation":"trash"' in line for line in handle)
    except OSError:
        return 0


def shim_home(work):
    from safedel import materialize

    real_python = materialize.python_for_launchers
    materialize.python_for_launchers = lambda: "/usr/bin/python3"
    try:
        home_dir = materialize.materialize(os.path.join(work, "shims"))
    finally:
        materialize.python_for_launchers = real_python
    subprocess.run(["chmod", "-R", "a+rX", os.path.join(work, "shims")], check=True)
    return home_dir


def run_suite(checkout, only=None, timeout=600):
    work = tempfile.mkdtemp(prefix="safedel-gnu-suite-", dir="/var/tmp")
    os.chmod(work, 0o755)
    try:
        home_dir = shim_home(work)
        for name in ("home", "tmp", "state"):
            os.mkdir(os.path.join(work, name))
        subprocess.run(
            ["chown", f"{NOBODY}:{NOBODY}", *(f"{work}/{n}" for n in ("home", "tmp", "state"))]
        )
        gnu_tree, ours_tree = os.path.join(work, "gnu"), os.path.join(work, "ours")
        make_tree(checkout, gnu_tree, {t: f"/usr/bin/{t}" for t in TOOLS})
        make_tree(checkout, ours_tree, {t: os.path.join(home_dir, "bin", t) for t in TOOLS})
        results = {}
        for test in only or tests_in(checkout):
            gnu = run_test(gnu_tree, test, suite_env(gnu_tree, {}), timeout)
            ours_env = suite_env(ours_tree, safedel_env(work, home_dir, test, ours_tree))
            before = trash_events(work)
            ours = run_test(ours_tree, test, ours_env, timeout)
            results[test] = {"gnu": gnu[0], "safedel": ours[0], "gnu_log": gnu[1], "log": ours[1]}
            # Proof the launchers acted (the test's own clean-up is an rm -rf too).
            results[test]["trashed"] = trash_events(work) - before
            print(f"{test}: GNU {gnu[0]}, safedel {ours[0]}", file=sys.stderr)
        return results
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", work], check=False)
        shutil.rmtree(work, ignore_errors=True)


def table(results):
    lines = ["| test | GNU | safedel | items trashed |", "|---|---|---|---|"]
    lines += [
        f"| {test} | {r['gnu']} | {r['safedel']} | {r['trashed']} |" for test, r in results.items()
    ]
    gnu_pass = sum(r["gnu"] == "PASS" for r in results.values())
    both = sum(r["gnu"] == "PASS" and r["safedel"] == "PASS" for r in results.values())
    lines += ["", f"{len(results)} tests; GNU passes {gnu_pass}; safedel passes {both} of those."]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", nargs="?", help="coreutils 9.1 source tree")
    parser.add_argument("--json", help="also write every result, with logs, here")
    parser.add_argument("--only", action="append", help="run only this test (repeatable)")
    args = parser.parse_args(argv)
    if not args.checkout:
        print("skipped: no coreutils checkout given (see the docstring)")
        return 0
    checkout = os.path.abspath(args.checkout)
    if not os.path.isfile(os.path.join(checkout, "tests", "init.sh")):
        parser.error(f"{checkout} has no tests/init.sh")
    if os.geteuid() != 0:
        parser.error("run as root: the tests run as uid 65534 through setpriv")
    results = run_suite(checkout, args.only)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
