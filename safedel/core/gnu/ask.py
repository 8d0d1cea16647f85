"""What GNU tools ask and match: y/n answers, the file types their prompts name, and
argmatch for option arguments. Loaded only for a question or an option argument.
"""

import os
import stat
import sys

from .options import _write_all, locale_quote


def argmatch(tool, option, value, choices):
    """GNU argmatch: a unique prefix (or prefixes that all mean one thing) selects."""
    raw = os.fsencode(value)
    if raw.decode("utf-8", "surrogateescape") in choices:
        return choices[raw.decode("utf-8", "surrogateescape")]
    found = {meaning for word, meaning in choices.items() if word.encode().startswith(raw)}
    if len(found) == 1:
        return found.pop()
    kind = b"ambiguous" if found else b"invalid"
    tool.err(kind + b" argument " + locale_quote(raw) + b" for " + locale_quote(option))
    lines = [b"Valid arguments are:"]
    groups = {}
    for word, meaning in choices.items():
        groups.setdefault(meaning, []).append(locale_quote(word))
    lines += [b"  - " + b", ".join(words) for words in groups.values()]
    _write_all(2, b"\n".join(lines) + b"\n")
    tool.usage_error()


def yesno():
    """Read one answer line from stdin; True when it matches the locale's yes pattern."""
    line = sys.stdin.buffer.readline()
    if not line:
        return False
    import _locale
    import re

    try:
        _locale.setlocale(_locale.LC_MESSAGES, "")
        pattern = _locale.nl_langinfo(_locale.YESEXPR)
    except (_locale.Error, AttributeError):
        pattern = "^[yY]"
    return re.match(pattern.encode(), line) is not None


def file_type(mode, size):
    """The words GNU uses for a file's type in prompts."""
    if stat.S_ISREG(mode):
        return b"regular empty file" if size == 0 else b"regular file"
    for test, words in (
        (stat.S_ISDIR, b"directory"),
        (stat.S_ISLNK, b"symbolic link"),
        (stat.S_ISBLK, b"block special file"),
        (stat.S_ISCHR, b"character special file"),
        (stat.S_ISFIFO, b"fifo"),
        (stat.S_ISSOCK, b"socket"),
    ):
        if test(mode):
            return words
    return b"weird file"
