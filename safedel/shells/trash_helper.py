"""The literal-path deleter behind the PowerShell prelude (and `safedel trash`).

The prelude runs it as `python -E -m safedel.shells.trash_helper`, without typer, since
every Remove-Item waits for it. It has already expanded wildcards and collected pipeline
input, so it hands over literal paths as one batch, which the bulk guard grants or
refuses whole. Messages use Remove-Item's wording.
"""

import argparse
import json
import os
import stat
import sys

from ..core import deletion
from ..core.contract import settings as core_settings
from ..core.printable import printable


class UsageError(Exception):
    pass


def main(argv):
    parser = argparse.ArgumentParser(prog="safedel trash")
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--runtime", default="powershell")
    parser.add_argument("--recurse", action="store_true")
    parser.add_argument("--stdin", action="store_true")
    parser.add_argument("--json", dest="as_json", action="store_true")
    options = parser.parse_args(argv)
    try:
        return run(options.paths, options.runtime, options.recurse, options.stdin, options.as_json)
    except UsageError as exc:
        sys.stderr.write(f"safedel trash: {exc}\n")
        return 2


def run(paths, runtime, recurse, stdin, as_json):
    """Trash paths (and those on stdin); report each result; return the exit status."""
    targets = list(paths or [])
    if stdin:
        targets += _read_json_paths(sys.stdin.buffer.read())
    errors = trash_paths(core_settings.load(), runtime, targets, recurse)
    for path in targets:
        error = errors.get(path)
        if as_json:
            # The caller reports the errors in its own way (the prelude: Write-Error).
            line = json.dumps({"path": path, "ok": error is None, "error": error})
            sys.stdout.write(line + "\n")
        elif error:
            sys.stderr.write(f"safedel trash: {error}\n")
    sys.stdout.flush()
    return 1 if errors else 0


def _read_json_paths(data):
    try:
        value = json.loads(data.decode("utf-8") or "[]")
    except ValueError as exc:
        raise UsageError(f"stdin is not a JSON array of paths: {exc}") from None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise UsageError("stdin must be a JSON array of path strings")
    return value


def trash_paths(settings, runtime, paths, recurse):
    """Trash paths as one batch through the deletion pipeline; return {path: error
    message} for those left in place. A protected path is refused (with a `refuse`
    event) before its class is even considered; exempt ones are deleted for real."""
    errors = {}
    candidates = []
    for path in dict.fromkeys(paths):
        problem, target = _judge(settings, runtime, path, recurse)
        if problem:
            errors[path] = problem
        else:
            candidates.append((path, target))
    # Protected paths were refused above; delete() runs the rest of the pipeline.
    outcomes = deletion.delete(settings, runtime, [target for _, target in candidates])
    for index, (path, _) in enumerate(candidates):
        outcome = outcomes[index]
        if isinstance(outcome.error, deletion.Refused):
            errors[path] = f"{_shown(path)} was not deleted: {outcome.error.reason}"
        elif outcome.error is not None:
            errors[path] = f"Cannot remove item {_shown(path)}: {outcome.error.reason}"
    return errors


def _shown(path):
    """path for a message: control characters escaped, so a name can't fake a line."""
    return printable(os.fsencode(path))


def _judge(settings, runtime, path, recurse):
    """(why Remove-Item would not delete path, or None; its judged Target)."""
    try:
        st = os.lstat(path)
        target = deletion.judge(settings, path)
    except FileNotFoundError:
        return f"Cannot find path '{_shown(path)}' because it does not exist.", None
    except OSError as exc:
        return f"Cannot remove item {_shown(path)}: {exc.strerror or exc}", None
    if target.klass == deletion.PROTECTED:
        deletion.refuse(settings, runtime, target)
        return f"{_shown(path)} was not deleted: {target.reason}", None
    try:
        has_children = stat.S_ISDIR(st.st_mode) and not recurse and bool(os.listdir(path))
    except OSError as exc:
        return f"Cannot remove item {_shown(path)}: {exc.strerror or exc}", None
    if has_children:
        return (
            f"The item at {_shown(path)} has children and the Recurse parameter was not "
            "specified. Nothing was removed."
        ), None
    return None, target


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
