"""Run GNU coreutils' own rm and rmdir tests against GNU's tools and against safedel's.

    python tests/gnu_suite.py CHECKOUT [--net] [--json FILE] [--only rm/rm1.sh ...]

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

With --net each test runs twice more, inside `safedel run --net on` (the seccomp net;
each run checks from the test's own shell that the filter is there): with safedel's
launchers first on PATH, and with GNU's tools and no shim directory at all, so that
only the net stands between the test and the disk.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import suite_net
from gnu_tree import NOBODY, TOOLS, make_tree, tests_in

STATUS = {0: "PASS", 77: "SKIP", 99: "ERROR"}


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


def run_test(tree, test, env, timeout, net=None):
    """(status, log tail); net is (argv prefix, sh code) to run the test under the net."""
    if test.endswith(".sh"):
        argv = ["/bin/sh", f"tests/{test}"]
    else:
        argv = ["perl", *(["-T"] if test.endswith(".xpl") else []), "-w", "-Itests"]
        argv += ["-MCuSkip", "-MCoreutils", f"-MCuTmpdir qw(tests/{test})", f"tests/{test}"]
    setpriv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    env = dict(env, CU_TEST_NAME=f"tests,{test.replace('/', '-')}")
    # make check runs each test with fd 9 open on stderr (9>&2).
    prefix, script = net or ([], "")
    script += 'exec 9>&2; exec "$@"'
    try:
        done = subprocess.run(
            setpriv
            + ["env", "-i", *(f"{k}={v}" for k, v in env.items())]
            + [*prefix, "/bin/sh", "-c", script, "sh", *argv],
            cwd=tree,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return "ERROR", "timed out"
    status = STATUS.get(done.returncode, "FAIL")
    if done.returncode == suite_net.NO_FILTER and net:
        status = "NO-NET"
    log = (done.stdout + done.stderr).decode("utf-8", "replace")
    return status, "\n".join(log.strip().splitlines()[-25:])


def run_base(work):
    """The environment `safedel run` itself gets: a home, temp and state dir in work."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": f"{work}/home",
        "TMPDIR": f"{work}/tmp",
        "SAFEDEL_STATE_DIR": f"{work}/state",
        "SAFEDEL_REPORT": f"{work}/state/report.jsonl",
        "SAFEDEL_PROMPT": "0",
    }


def safedel_env(work, home_dir, test, tree):
    """What `safedel run` gives a command, for nobody, with this test as the turn."""
    from safedel.executor import childenv

    base = run_base(work)
    options = childenv.RunOptions(session="gnu-suite", turn=test, threshold=99999)
    env = childenv.child_environment(base, home_dir, options)
    # Only the launchers are under test: the shells' and runtimes' hooks stay out (perl
    # -T, for one, refuses to run anything while ENV is set).
    for hook in ("BASH_ENV", "ENV", "ZDOTDIR", "NODE_OPTIONS", "PYTHONPATH"):
        env.pop(hook, None)
    # As `safedel run` started in the test tree would decide, once: that is the
    # workspace (the tests cd into subdirectories and name siblings by absolute path).
    env["SAFEDEL_WORKSPACE_ROOTS"] = tree
    return env


def trash_events(work):
    """(trash events so far, of which the net made)."""
    return suite_net.report_counts(os.path.join(work, "state", "report.jsonl"))


def net_run(work, package, test, tree, keep_shims):
    """(outer env, (argv prefix, sh code)) to run test in tree inside `safedel run --net
    on` as started there: with the launchers first on PATH when keep_shims, else with
    GNU's tools and no shim directory on PATH, the net alone."""
    base = run_base(work)
    env = suite_env(tree, base)
    env["PATH"] = base["PATH"]  # safedel run's own; the test's is set inside
    path = f"{tree}/src:" + ("$PATH" if keep_shims else base["PATH"])
    unset = ("PYTHONPATH", "NODE_OPTIONS", *suite_net.SHELL_HOOKS)
    prefix = suite_net.run_argv(package, "gnu-suite", test)
    return env, (prefix, suite_net.inner_script(path, unset, ""))


def shim_home(work):
    from safedel.executor import shimhome

    real_python = shimhome.python_for_launchers
    shimhome.python_for_launchers = lambda: "/usr/bin/python3"
    try:
        home_dir = shimhome.materialize(os.path.join(work, "shims"))
    finally:
        shimhome.python_for_launchers = real_python
    subprocess.run(["chmod", "-R", "a+rX", os.path.join(work, "shims")], check=True)
    return home_dir


def run_suite(checkout, only=None, timeout=600, net=False):
    work = tempfile.mkdtemp(prefix="safedel-gnu-suite-", dir="/var/tmp")
    os.chmod(work, 0o755)
    try:
        home_dir = shim_home(work)
        package = suite_net.install_package(os.path.join(work, "package")) if net else None
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
            row = results[test] = {}
            runs = [("gnu", gnu_tree, suite_env(gnu_tree, {}), None)]
            ours_env = suite_env(ours_tree, safedel_env(work, home_dir, test, ours_tree))
            runs.append(("safedel", ours_tree, ours_env, None))
            if net:
                runs.append(("safedel+net", ours_tree, *net_run(work, package, test, ours_tree, 1)))
                runs.append(("net only", gnu_tree, *net_run(work, package, test, gnu_tree, 0)))
            for column, tree, env, wrap in runs:
                before = trash_events(work)
                row[column], row[f"{column} log"] = run_test(tree, test, env, timeout, wrap)
                # Proof safedel acted (the test's own clean-up is an rm -rf too).
                after = trash_events(work)
                row[f"{column} trashed"] = [after[0] - before[0], after[1] - before[1]]
            print(test, *(f"{c}: {row[c]}" for c, *_ in runs), file=sys.stderr)
        return results
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", work], check=False)
        shutil.rmtree(work, ignore_errors=True)


def table(results):
    columns = [
        c
        for c in ("gnu", "safedel", "safedel+net", "net only")
        if c in next(iter(results.values()))
    ]
    names = {"gnu": "GNU"}
    head = [names.get(c, c) for c in columns] + ["items trashed (by the net)"]
    lines = ["| test | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    for test, r in results.items():
        counts = " / ".join(
            f"{r[c + ' trashed'][0]}" + (f" ({r[c + ' trashed'][1]})" if "net" in c else "")
            for c in columns[1:]
        )
        lines.append(f"| {test} | " + " | ".join(r[c] for c in columns) + f" | {counts} |")
    gnu_pass = [t for t, r in results.items() if r["gnu"] == "PASS"]
    lines += ["", f"{len(results)} tests; GNU passes {len(gnu_pass)}; of those,"]
    for column in columns[1:]:
        passed = sum(results[t][column] == "PASS" for t in gnu_pass)
        lines.append(f"{names.get(column, column)} passes {passed}.")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("checkout", nargs="?", help="coreutils 9.1 source tree")
    parser.add_argument("--json", help="also write every result, with logs, here")
    parser.add_argument("--only", action="append", help="run only this test (repeatable)")
    parser.add_argument("--net", action="store_true", help="also run each under the net")
    args = parser.parse_args(argv)
    if not args.checkout:
        print("skipped: no coreutils checkout given (see the docstring)")
        return 0
    checkout = os.path.abspath(args.checkout)
    if not os.path.isfile(os.path.join(checkout, "tests", "init.sh")):
        parser.error(f"{checkout} has no tests/init.sh")
    if os.geteuid() != 0:
        parser.error("run as root: the tests run as uid 65534 through setpriv")
    results = run_suite(checkout, args.only, net=args.net)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
