"""Run Node's own fs tests plain, under safedel's Node shim, and under the net.

    python tests/node_suite.py DIR [--node NODE] [--json FILE] [--only test-fs-rm.js ...]

DIR holds Node's test layout: DIR/test/common (index.js, tmpdir.js, ... as the tests
require them) and DIR/test/parallel/test-*.js, the test files to run. Nothing of it is
kept in this repository; given no DIR, the script says so and exits 0, and nothing in
CI runs it.

Each test file runs four times, each in its own copy of DIR: with node alone; inside
`safedel run --net off`, which gives node the preload (NODE_OPTIONS) and the launchers
first on PATH, as any command run by safedel gets them; inside `safedel run --net on`,
where the seccomp net lies under the shim; and there again with NODE_OPTIONS unset, so
that only the net sees node's calls. Each run under the net checks from inside that the
filter is there. The safedel runs use --no-exempt and a threshold no test reaches, so
every deletion a test makes really goes to the trash. Run as root, the tests run as uid
65534 (Node's permission tests skip themselves as root). A test passes when node exits
0, as Node's own runner has it; `1..0 # Skipped` on stdout is a skip. The `// Flags:`
line of a test is passed to node as Node's runner does.

Prints a markdown table: each file's outcome four ways and the items each safedel run
trashed (by the shim, by the net), then the totals.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import suite_net

NOBODY = 65534
MODES = ("node", "shim", "net", "net only")
SKIPPED = b"1..0 # Skipped"


def tests_in(directory):
    folder = os.path.join(directory, "test", "parallel")
    return sorted(n for n in os.listdir(folder) if n.startswith("test-") and n.endswith(".js"))


def flags_of(path):
    """The `// Flags:` of a test, as Node's test runner reads them (first 1500 bytes)."""
    with open(path, "rb") as handle:
        head = handle.read(1500).decode("utf-8", "replace")
    for line in head.splitlines():
        if line.startswith("// Flags:"):
            return line[len("// Flags:") :].split()
    return []


def prepare(directory, work, modes):
    """A copy of directory per mode under work, owned by whoever runs the tests."""
    trees = {}
    for mode in modes:
        trees[mode] = os.path.join(work, mode)
        shutil.copytree(directory, trees[mode], symlinks=True)
    for name in ("home", "state", "tmp"):
        os.mkdir(os.path.join(work, name))
    if os.geteuid() == 0:
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", work], check=True)
        os.chown(work, 0, 0)
    return trees


def environment(work, extra=()):
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": f"{work}/home",
        "TMPDIR": f"{work}/tmp",
        "LANG": "C.UTF-8",
        "SAFEDEL_STATE_DIR": f"{work}/state",
        "SAFEDEL_REPORT": f"{work}/state/report.jsonl",
        "SAFEDEL_PROMPT": "0",
    }
    env.update(item.partition("=")[::2] for item in extra)
    return env


def run_one(tree, name, mode, node, package, work, timeout, extra=()):
    """(outcome, log tail) of one test file in one mode."""
    path = os.path.join(tree, "test", "parallel", name)
    argv = [node, *flags_of(path), path]
    if mode != "node":
        net = "off" if mode == "shim" else "on"
        turn = f"{mode}-{name}"
        prefix = suite_net.run_argv(package, "node-suite", turn, net=net, extra=("--no-exempt",))
        if net == "on":
            # "net only": node without the preload, so only the net sees its calls.
            unset = ("NODE_OPTIONS",) if mode == "net only" else ()
            script = suite_net.inner_script("$PATH", unset, 'exec "$@"')
            argv = [*prefix, "/bin/sh", "-c", script, "sh", *argv]
        else:
            argv = [*prefix, *argv]
    if os.geteuid() == 0:
        argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv]
    try:
        done = subprocess.run(
            ["env", "-i", *(f"{k}={v}" for k, v in environment(work, extra).items()), *argv],
            cwd=tree,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return "TIMEOUT", "timed out"
    if done.returncode == suite_net.NO_FILTER and mode != "node":
        outcome = "NO-NET"
    elif done.returncode == 0:
        outcome = "SKIP" if SKIPPED in done.stdout else "PASS"
    else:
        outcome = "FAIL"
    log = (done.stdout + done.stderr).decode("utf-8", "replace")
    return outcome, "\n".join(log.strip().splitlines()[-30:])


def run_suite(directory, node, only=None, timeout=600, extra=()):
    work = tempfile.mkdtemp(prefix="safedel-node-suite-", dir="/var/tmp")
    os.chmod(work, 0o755)
    try:
        package = suite_net.install_package(os.path.join(work, "package"))
        trees = prepare(directory, work, MODES)
        report = os.path.join(work, "state", "report.jsonl")
        results = {}
        for name in only or tests_in(directory):
            row = results[name] = {}
            for mode in MODES:
                before = suite_net.report_counts(report, "node")
                before_net = suite_net.report_counts(report, "net")[1]
                row[mode], row[f"{mode} log"] = run_one(
                    trees[mode], name, mode, node, package, work, timeout, extra
                )
                after = suite_net.report_counts(report, "node")
                after_net = suite_net.report_counts(report, "net")[1]
                row[f"{mode} trashed"] = [after[1] - before[1], after_net - before_net]
            print(name, *(f"{m}: {row[m]}" for m in MODES), file=sys.stderr)
        return results
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", work], check=False)
        shutil.rmtree(work, ignore_errors=True)


def table(results, node):
    lines = [
        "| test file | node | safedel run --net off | safedel run --net on | --net on, no"
        " preload | trashed: shim, net (off / on / no preload) |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        counts = " / ".join(f"{r[m + ' trashed'][0]}, {r[m + ' trashed'][1]}" for m in MODES[1:])
        outcomes = " | ".join(r[m] for m in MODES)
        lines.append(f"| {name} | {outcomes} | {counts} |")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
    passed = [n for n, r in results.items() if r["node"] == "PASS"]
    lines += ["", f"node {version}: {len(results)} files; node alone passes {len(passed)};"]
    shown = {
        "shim": "`safedel run --net off`",
        "net": "`safedel run --net on`",
        "net only": "`safedel run --net on` without the preload",
    }
    for mode in MODES[1:]:
        same = sum(results[n][mode] == "PASS" for n in passed)
        other = [n for n, r in results.items() if r[mode] != r["node"]] or "none"
        lines.append(f"{shown[mode]}: {same} of those pass; differing: {other}.")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "directory", nargs="?", help="a directory holding test/common, test/parallel"
    )
    parser.add_argument("--node", default=shutil.which("node") or "node", help="the node to test")
    parser.add_argument("--json", help="also write every result, with logs, here")
    parser.add_argument("--only", action="append", help="run only this test file (repeatable)")
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        help="NAME=VALUE for every run (repeatable), e.g. NODE_TEST_KNOWN_GLOBALS=0 when an"
        " older test/common does not know a newer node's globals",
    )
    args = parser.parse_args(argv)
    if not args.directory:
        print("skipped: no directory of Node tests given (see the docstring)")
        return 0
    directory = os.path.abspath(args.directory)
    if not os.path.isdir(os.path.join(directory, "test", "parallel")):
        parser.error(f"{directory} has no test/parallel")
    results = run_suite(directory, os.path.abspath(args.node), args.only, extra=args.env)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)
    print(table(results, os.path.abspath(args.node)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
