"""The interactive restore picker: recent items from here and below, grouped by turn.

Each turn gets a letter and each item a number; the answer is numbers, ranges and
letters (`3`, `1-4,7`, `b`), or Enter for nothing. Names are shown through printable(),
so a newline or an escape sequence in a name can never move the cursor.
"""

import os
import re
import sys

import typer

from ..core.report import write as core_report
from ..trash import catalog
from .list import warn

MAX_TURNS = 26
MAX_ITEMS = 200
SIZE_WALK_LIMIT = 10_000


def interactive():
    return sys.stdin.isatty() and sys.stdout.isatty()


def _groups(report_path, everywhere):
    """[(label, [items newest first])] newest group first, under the cwd unless everywhere."""
    items = [item for item in catalog.items(warn=warn) if item.kind != "missing"]
    if not everywhere:
        here = os.fsencode(os.getcwd())
        items = [item for item in items if catalog.under(item, here)]
    turn_of = {}
    for record in core_report.read(report_path, warn):
        if record.get("operation") == "trash" and record.get("trashPath"):
            turn_of[os.fsencode(record["trashPath"])] = (record.get("session"), record.get("turn"))
    groups = {}
    for item in sorted(items, key=lambda i: i.order, reverse=True):
        key = turn_of.get(item.file_path) or ("", f"trashed {item.deleted.replace('T', ' ')}")
        groups.setdefault(key, []).append(item)
    return list(groups.items())


def _size(path):
    """Bytes under path (not following links); '≥' when the walk stopped early."""
    try:
        st = os.lstat(path)
    except OSError:
        return "?"
    if not os.path.isdir(path) or os.path.islink(path):
        return _human(st.st_size)
    total, seen, stack = 0, 0, [path]
    while stack and seen < SIZE_WALK_LIMIT:
        try:
            with os.scandir(stack.pop()) as listing:
                for entry in listing:
                    seen += 1
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    else:
                        total += entry.stat(follow_symlinks=False).st_size
        except OSError:
            continue
    return ("≥" if stack else "") + _human(total)


def _human(size):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size} B"


def show(groups):
    """Print the menu; return (numbered items, items of each letter)."""
    numbered, lettered = [], {}
    here = os.fsencode(os.getcwd())
    for index, ((session, turn), items) in enumerate(groups[:MAX_TURNS]):
        letter = chr(ord("a") + index)
        label = f"turn {turn}" if session else str(turn)
        typer.echo(f"{letter}) {catalog.printable(os.fsencode(label))}  ({len(items)} items)")
        lettered[letter] = []
        for item in items:
            if len(numbered) >= MAX_ITEMS:
                break
            numbered.append(item)
            lettered[letter].append(item)
            when = item.deleted.replace("T", " ")
            shown = catalog.printable(os.path.relpath(item.original, here))
            size = _size(item.file_path)
            typer.echo(f"  {len(numbered):>3}  {when}  {size:>9}  {item.kind:<7} {shown}")
    hidden = sum(len(items) for _, items in groups) - len(numbered)
    if hidden > 0:
        typer.echo(f"({hidden} older items not shown: safedel list, or restore them by path)")
    return numbered, lettered


TOKEN = re.compile(r"^(?:(\d+)-(\d+)|(\d+)|([a-z]))$")


def parse_answer(answer, numbered, lettered):
    """The items an answer names, or raise ValueError naming the part it cannot read."""
    chosen = []
    for token in filter(None, re.split(r"[,\s]+", answer.strip().lower())):
        match = TOKEN.match(token)
        if not match:
            raise ValueError(token)
        low, high, single, letter = match.groups()
        if letter:
            if letter not in lettered:
                raise ValueError(token)
            chosen += lettered[letter]
            continue
        first, last = (int(low), int(high)) if low else (int(single), int(single))
        if not 1 <= first <= last <= len(numbered):
            raise ValueError(token)
        chosen += numbered[first - 1 : last]
    unique = list({id(item): item for item in chosen}.values())
    # A directory before what was trashed from inside it.
    return sorted(unique, key=lambda item: item.original.count(b"/"))


def choose(report_path, everywhere):
    groups = _groups(report_path, everywhere)
    if not groups:
        where = "anywhere" if everywhere else "from here or below (--all for everywhere)"
        typer.echo(f"Nothing in the trash was deleted {where}.")
        return []
    numbered, lettered = show(groups)
    while True:
        try:
            answer = input("Restore which? (numbers, ranges like 1-4, turn letters; Enter: none) ")
        except EOFError:
            return []
        try:
            return parse_answer(answer, numbered, lettered)
        except ValueError as exc:
            shown = catalog.printable(os.fsencode(str(exc)))
            typer.echo(f"safedel restore: cannot read '{shown}'; try again", err=True)
