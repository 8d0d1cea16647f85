"""The machine a run was on, the markdown table for people and the JSON for machines."""

import json
import os
import platform
import subprocess
import sys
import time

from .harness import tool
from .rows import ANCHOR, RATIO, UNAVAILABLE, fmt, times_text

COLUMNS = ("workload", "subject", "median", "p99", "min", "max", "n", "compared", "budget")


def _first_line(argv):
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except OSError:
        return None
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0].strip() if lines else None


def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _os_name():
    try:
        with open("/etc/os-release", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.system()


def _filesystem(path):
    """The type of the filesystem holding path: the longest mount point above it."""
    best, kind = "", "unknown"
    try:
        with open("/proc/self/mounts", encoding="utf-8") as handle:
            for line in handle:
                fields = line.split()
                mount = fields[1].replace("\\040", " ")
                inside = path == mount or path.startswith(mount.rstrip("/") + "/")
                if inside and len(mount) >= len(best):
                    best, kind = mount, fields[2]
    except OSError:
        pass
    return kind


def machine(root):
    def version(name, *args):
        path = tool(name)
        return _first_line([path, *args]) if path else "not installed"

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cpus": cpus,
        "cpu": _cpu_model(),
        "os": _os_name(),
        "kernel": f"{platform.system()} {platform.release()}",
        "filesystem": _filesystem(root),
        "directory": os.path.dirname(root),
        "python": f"CPython {platform.python_version()} ({os.path.realpath(sys.executable)})",
        "node": version("node", "--version"),
        "trash-cli": version("trash-put", "--version"),
        "coreutils": version("rm", "--version"),
        "gio": version("gio", "--version"),
    }


def _cells(row):
    stats = row.stats
    if stats is None:
        figures = [f"unavailable: {row.reason}", "—", "—", "—", "0"]
    else:
        shown = times_text if row.unit == RATIO else fmt
        figures = [shown(stats.median), shown(stats.p99), shown(stats.min), shown(stats.max)]
        figures.append(str(stats.n))
    if row.budget is not None:
        budget = f"{row.budget.text}: **{row.status}**"
    elif row.status == ANCHOR:
        budget = "anchor"
    else:
        budget = UNAVAILABLE
    if row.stats is not None and row.status == UNAVAILABLE:
        budget += f" ({row.reason})"
    subject = f"{row.subject} ({row.unit})"
    return [row.workload, subject, *figures, row.compared or "—", budget]


def markdown(rows, info, profile_name):
    lines = [
        f"safedel bench, {profile_name} run, {info['started']}",
        "",
        f"Machine: {info['cpus']} CPUs ({info['cpu']}), {info['os']}, {info['kernel']}, "
        f"{info['filesystem']} (under {info['directory']}); {info['python']}, "
        f"Node {info['node']}, {info['trash-cli']}, {info['coreutils']}, gio {info['gio']}. "
        f"Load average: {info['load']}.",
        "Absolute times depend on the machine and its load; each budget is checked against",
        "figures of this same run, taken in interleaved rounds (A B A B ...).",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    for row in rows:
        cells = [cell.replace("|", "\\|") for cell in _cells(row)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def as_json(rows, info, profile_name):
    def figures(row):
        stats = row.stats
        if stats is None:
            return dict.fromkeys(("median", "p99", "min", "max"), None) | {"n": 0}
        return {
            "median": stats.median,
            "p99": stats.p99,
            "min": stats.min,
            "max": stats.max,
            "n": stats.n,
        }

    return {
        "profile": profile_name,
        "machine": info,
        "unit": "seconds",
        "rows": [
            {
                "workload": row.workload,
                "subject": row.subject,
                "per": row.unit,
                "status": row.status,
                "reason": row.reason,
                **figures(row),
                "budget": row.budget.text if row.budget else None,
                "limit": row.limit,
                "ratio": row.ratio,
                "compared": row.compared,
            }
            for row in rows
        ],
    }


def started():
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def write_json(path, document):
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2, ensure_ascii=False)
        handle.write("\n")
