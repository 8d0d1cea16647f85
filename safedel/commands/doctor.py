"""`safedel doctor`: check that every piece a deletion passes through works here."""

import json
import os
import shutil
import subprocess
import sys

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..core.contract import host, settings
from ..core.trash import dirs, visible
from ..executor import childenv, shimhome

PATCHED_PYTHON = "import os, posix; print(os.remove is not posix.remove)"


def _probe(argv, env):
    try:
        done = subprocess.run(argv, env=env, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    output = (done.stdout + done.stderr).decode("utf-8", "replace").strip()
    lines = output.splitlines()
    errors = [line.strip() for line in lines if "Error" in line or "error" in line]
    return done.returncode == 0, (errors or lines or [""])[0]


def checks():
    """Yield (check, ok, detail) for each piece, in the order a deletion meets them."""
    try:
        home = shimhome.materialize()
    except OSError as exc:
        yield "shim directory", False, str(exc)
        return
    yield "shim directory", True, home
    env = childenv.child_environment(
        os.environ, home, childenv.RunOptions(session="doctor", turn="doctor")
    )
    try:
        dirs.ensure_trash_root(dirs.home_trash())
        yield "home trash", True, os.fsdecode(dirs.home_trash())
    except OSError as exc:
        yield "home trash", False, f"{os.fsdecode(dirs.home_trash())}: {exc}"
    state_dir = settings.load(env).state_dir
    yield "state directory", not os.path.islink(state_dir), state_dir
    ok, output = _probe([os.path.join(home, "bin", "rm"), "--version"], env)
    yield "rm launcher", ok, output.splitlines()[0] if output else ""
    interpreters = [sys.executable] + [p for p in ("/usr/bin/python3",) if os.path.exists(p)]
    for python in interpreters:
        ok, output = _probe([python, "-c", PATCHED_PYTHON], env)
        yield f"python shim ({python})", ok and output == "True", output or "patched"
    node = shutil.which("node")
    if node:
        ok, output = _probe([node, "-e", "0"], env)
        yield "node preload", ok and not output, output or "loads cleanly"
    else:
        yield "node preload", True, "node is not installed (nothing to protect)"
    found = host.current()
    yield "host", True, f"{found.name} ({found.kind}: {found.evidence})"
    skipped = visible.foreign_trash_dirs()
    notes = "; ".join(why for _, why in skipped)
    yield "foreign trash dirs", True, f"skipped by list and restore: {notes}" if skipped else "none"
    if sys.platform.startswith("linux"):
        from ..net import status

        net_active, detail = status(os.environ)
        yield "net (safedel run)", True, detail if net_active else f"not active: {detail}"
    from .. import caller_active as active

    yield "this shell", True, "protected" if active else "not protected (no bootstrap, no run)"
    from ..shells import turncheck

    why = turncheck.problem()
    if why or os.environ.get("SAFEDEL_TURN_FILE"):
        yield "turns at the prompt", why is None, why or "each command line is a turn of its own"


def doctor(
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list."),
    repair: bool = typer.Option(
        False, "--repair", help="Remove info files whose item is gone; list items without one."
    ),
) -> None:
    """Check the shims, the trash and the state directory on this machine."""
    from ..trash import health

    if repair:
        health.repair(typer.echo)
    results = list(checks()) + list(health.checks())
    if as_json:
        rows = [{"check": c, "ok": ok, "detail": d} for c, ok, d in results]
        typer.echo(json.dumps(rows, indent=2))
    else:
        table = Table("check", "", "detail")
        for check, ok, detail in results:
            table.add_row(check, "[green]ok[/]" if ok else "[red]FAIL[/]", escape(detail))
        Console().print(table)
    if not all(ok for _, ok, _ in results):
        raise typer.Exit(1)
