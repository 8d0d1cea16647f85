"""The commands a large trash makes slow, answered without typer or rich: `list
--json`, `list PREFIX --json` and `restore --last`. Importing typer and rich costs
more than listing 100,000 cached items, so the console script comes here first, and
only these exact forms are taken; any other argv goes to the full CLI. What these
print is what the full commands print, byte for byte (they share the code that makes
it: catalog.json_rows, restoreflow)."""

import os
import sys


def run(argv):
    """An exit code, or None when argv is not one of the forms served here."""
    if argv[:1] == ["list"] and "--json" in argv[1:] and len(argv) <= 3:
        rest = [arg for arg in argv[1:] if arg != "--json"]
        if len(rest) > 1 or any(not arg or arg[:1] == "-" for arg in rest):
            return None
        return _list(rest[0] if rest else None)
    if argv == ["restore", "--last"]:
        return _restore_last()
    return None


def _served():
    from . import recyclebin

    return not recyclebin.in_use()


def _list(prefix):
    if not _served():
        return None
    from ..core.contract import settings as core_settings
    from . import catalogquery, restoreflow

    core_settings.load()  # its warnings, as the full command gives them
    base = os.path.abspath(os.fsencode(prefix)) if prefix is not None else None
    rows = catalogquery.json_rows(base, restoreflow.warn)
    out = sys.stdout.buffer
    out.write(b"[" + b", ".join(rows) + b"]\n")
    out.flush()
    return 0


def _restore_last():
    if not _served():
        return None
    from ..core.contract import settings as core_settings
    from . import catalogquery, restore, restoreflow

    settings = core_settings.load()
    item = catalogquery.newest_present(restoreflow.warn)
    if item is None:
        restoreflow.echo("safedel restore: the trash is empty", err=True)
        return 1
    outcome = restoreflow.Outcome()
    event = restoreflow.restore_one(settings, item, restore.REFUSE, outcome, restoreflow.echo)
    restoreflow.append_events(settings, [event] if event else [])
    restoreflow.echo(f"safedel restore: {outcome.summary()}", err=not outcome.ok)
    return 0 if outcome.ok else 1
