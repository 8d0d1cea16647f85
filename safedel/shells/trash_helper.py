"""The literal-path deleter behind the PowerShell prelude (and `safedel trash`).

The prelude runs it as `python -E -m safedel.shells.trash_helper`, without typer, since
every Remove-Item waits for it. It has already expanded wildcards and collected pipeline
input, so it hands over literal paths as one batch, which the bulk guard grants or
refuses whole. Messages use Remove-Item's wording.
"""

import argparse
import json
import os
import shutil
import stat
import sys

from ..core import deletion
from ..core import settings as core_settings


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
    """Trash paths as one batch; return {path: error message} for those left in place."""
    errors = {}
    candidates = []
    for path in dict.fromkeys(paths):
        problem = _problem(path, recurse)
        if problem:
            errors[path] = problem
        else:
            candidates.append(path)
    exempt, guarded = deletion.split_exempt(settings, candidates)
    for path in exempt:
        try:
            _delete_for_real(path)
        except OSError as exc:
            errors[path] = f"Cannot remove item {path}: {exc.strerror or exc}"
    try:
        deletion.authorize(settings, runtime, guarded)
    except deletion.Refused as exc:
        return {**errors, **{path: f"{path} was not deleted: {exc.message}" for path in guarded}}
    for path in guarded:
        try:
            deletion.trash_one(settings, runtime, path)
        except OSError as exc:
            reason = getattr(exc, "reason", None) or exc.strerror or str(exc)
            errors[path] = f"Cannot remove item {path}: {reason}"
    return errors


def _problem(path, recurse):
    """Why Remove-Item would not delete path, or None."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return f"Cannot find path '{path}' because it does not exist."
    except OSError as exc:
        return f"Cannot remove item {path}: {exc.strerror or exc}"
    reason = deletion.protected(path)
    if reason:
        return f"{path} was not deleted: {reason}"
    try:
        has_children = stat.S_ISDIR(st.st_mode) and not recurse and bool(os.listdir(path))
    except OSError as exc:
        return f"Cannot remove item {path}: {exc.strerror or exc}"
    if has_children:
        return (
            f"The item at {path} has children and the Recurse parameter was not specified. "
            "Nothing was removed."
        )
    return None


def _delete_for_real(path):
    """Exempt paths (the temp dir) are deleted for real, as the policy says."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    else:
        os.unlink(path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
