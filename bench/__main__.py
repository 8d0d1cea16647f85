"""`python -m bench`: measure safedel side by side with what people would use instead.

Prints a markdown table (budget and pass/over mark per row) on stdout; --json FILE also
writes the figures for machines; --quick does fewer rounds (under a minute). A workload
that cannot run still has its rows, each saying why.
"""

import argparse
import os
import shutil
import sys
import time
import traceback

from safedel.executor import shimhome

from . import (
    bigdir,
    bigtrash,
    capture,
    git_calls,
    guard_load,
    inprocess,
    naming,
    net,
    prompt,
    regenerable_check,
    report_history,
    rm_calls,
    serve,
    startup,
    table,
)
from .harness import new_root
from .profiles import FULL, QUICK

# (name, runner, the rows it produces, for when it cannot run at all)
WORKLOADS = (
    ("rm", rm_calls.run, lambda p: rm_calls.row_list()),
    ("python-start", startup.run_python, lambda p: startup.python_rows()),
    ("python-loop", inprocess.run_python, lambda p: inprocess.python_rows(p.loop_files)),
    ("node-start", startup.run_node, lambda p: startup.node_rows()),
    ("node-loop", inprocess.run_node, lambda p: inprocess.node_rows(p.loop_files)),
    ("guard", guard_load.run, lambda p: guard_load.row_list((1, 16))),
    ("run", startup.run_safedel_run, lambda p: startup.run_rows()),
    ("prompt", prompt.run, lambda p: prompt.row_list()),
    ("capture", capture.run, lambda p: capture.row_list()),
    ("git", git_calls.run, lambda p: git_calls.row_list()),
    ("report", report_history.run, lambda p: report_history.row_list(p.report_events)),
    ("trash", bigtrash.run, lambda p: bigtrash.row_list(p.trash_items)),
    ("naming", naming.run, lambda p: naming.row_list()),
    ("net", net.run, lambda p: net.row_list()),
    ("serve", serve.run, lambda p: serve.row_list()),
    ("regenerable", regenerable_check.run, lambda p: regenerable_check.row_list()),
    # Last: deleting 100,000 files for rm -rf can slow the filesystem for a while.
    ("bigdir", bigdir.run, lambda p: bigdir.row_list(p.bigdir_files)),
)


def parse(argv):
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds, under a minute")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument(
        "--dir",
        metavar="DIR",
        help="where the run's private homes and work trees go (default: ~/.cache)",
    )
    parser.add_argument(
        "--only",
        action="append",
        choices=[name for name, _, _ in WORKLOADS],
        help="run only this workload (repeatable)",
    )
    return parser.parse_args(argv)


def run_all(profile, selected, root):
    try:
        shim_home = shimhome.materialize(f"{root}/shims")
        broken = None
    except OSError as exc:
        shim_home, broken = None, f"cannot materialise the shim home: {exc}"
    rows = []
    for name, runner, fallback in WORKLOADS:
        if selected and name not in selected:
            continue
        began = time.monotonic()
        if broken:
            rows += [row.unavailable(broken) for row in fallback(profile)]
            continue
        try:
            rows += runner(profile, root, shim_home)
        except Exception as exc:  # a bug in one workload must not hide the others' rows
            traceback.print_exc()
            reason = f"the bench itself failed: {type(exc).__name__}: {exc}"
            rows += [row.unavailable(reason) for row in fallback(profile)]
        print(f"bench: {name}: {time.monotonic() - began:.1f} s", file=sys.stderr, flush=True)
    for row in rows:
        if row.status is None:
            row.status = "unavailable"
    return rows


def main(argv=None):
    args = parse(sys.argv[1:] if argv is None else argv)
    profile = QUICK if args.quick else FULL
    root = new_root(args.dir)
    try:
        started, load_before = table.started(), os.getloadavg()[0]
        rows = run_all(profile, args.only, root)
        load = f"{load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
        info = dict(table.machine(root), started=started, load=load)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    sys.stdout.write(table.markdown(rows, info, profile.name))
    if args.json:
        table.write_json(args.json, table.as_json(rows, info, profile.name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
