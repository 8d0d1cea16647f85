"""GNU coreutils' way of naming files in messages: shell-escape quoting, the locale's quotes.

rm, rmdir and unlink quote every file name in the shell-escape-always style, so a
message can be pasted back into a shell; whether a multibyte character is printed
as is or as octal escapes depends on the LC_CTYPE codeset, as in GNU's tools. Names
are bytes throughout: a file name need not be valid UTF-8.
"""

import os

_LETTER_ESCAPES = {7: b"a", 8: b"b", 9: b"t", 10: b"n", 11: b"v", 12: b"f", 13: b"r"}
# Shell-special characters: printed as they are inside single quotes, but a name
# holding one of them can't be given the tidier double-quoted form.
_SHELL_SPECIAL = frozenset(b'!"$&()*;<=>[^`|?\\')
_PLAIN, _QUOTE, _ESCAPE = 0, 1, 2
_utf8 = None


def interpreter_coerced_locale(environ=None):
    """True when Python itself set LC_CTYPE=C.UTF-8 (PEP 538) over the user's C locale.

    /proc/self/environ still holds the environment this process was started with.
    """
    environ = os.environ if environ is None else environ
    if environ.get("LC_CTYPE") != "C.UTF-8" or environ.get("LC_ALL"):
        return False
    try:
        with open("/proc/self/environ", "rb") as handle:
            return b"\0LC_CTYPE=" not in b"\0" + handle.read()
    except OSError:
        return False


def original_environ():
    """os.environ as the user gave it, without the interpreter's locale coercion."""
    env = dict(os.environ)
    if interpreter_coerced_locale(env):
        del env["LC_CTYPE"]
    return env


def utf8_locale():
    global _utf8
    if _utf8 is None:
        import _locale

        codeset = _locale.nl_langinfo(_locale.CODESET).upper().replace("-", "")
        _utf8 = codeset == "UTF8" and not interpreter_coerced_locale()
    return _utf8


def _printable(char):
    import unicodedata

    return unicodedata.category(char) not in ("Cc", "Cs", "Cn", "Zl", "Zp")


def _utf8_char(name, i):
    """(length, printable) of the UTF-8 sequence at name[i], or (1, False) when invalid."""
    lead = name[i]
    size = 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 0
    size = 4 if 0xF0 <= lead <= 0xF4 else size
    if size:
        try:
            char = name[i : i + size].decode("utf-8")
        except UnicodeDecodeError:
            return 1, False
        if len(char) == 1 and len(name[i : i + size]) == size:
            return size, _printable(char)
    return 1, False


def _units(name):
    """Split name into (kind, bytes) units, and say whether double quotes would do."""
    units, compat, utf8, i = [], True, None, 0
    while i < len(name):
        c = name[i]
        if c == 0x27:
            units.append((_QUOTE, b"'"))
        elif c in _LETTER_ESCAPES:
            units.append((_ESCAPE, _LETTER_ESCAPES[c]))
            compat = False
        elif c in _SHELL_SPECIAL or (c in b"{}" and len(name) != 1) or (c in b"#~" and i):
            units.append((_PLAIN, name[i : i + 1]))
            compat = False
        elif 0x20 <= c < 0x7F:
            units.append((_PLAIN, name[i : i + 1]))
        else:
            if utf8 is None:
                utf8 = utf8_locale()
            size, printable = _utf8_char(name, i) if utf8 and c >= 0x80 else (1, False)
            if printable:
                units.append((_PLAIN, name[i : i + size]))
            else:
                compat = False
                units += [(_ESCAPE, b"%03o" % byte) for byte in name[i : i + size]]
            i += size
            continue
        i += 1
    return units, compat


def _render(units, in_escape):
    out = bytearray(b"'")
    for kind, text in units:
        if kind == _ESCAPE:
            if not in_escape:
                out += b"'$'"
                in_escape = True
            out += b"\\" + text
        elif kind == _QUOTE:
            out += b"'\\''"
            in_escape = False
        else:
            if in_escape:
                out += b"''"
                in_escape = False
            out += text
    out += b"'"
    return bytes(out), in_escape


def _needs_quotes(name, units):
    if not name:
        return True
    for kind, text in units:
        if kind != _PLAIN or text[0] in _SHELL_SPECIAL or text == b" ":
            return True
    return name[:1] in (b"#", b"~") or name in (b"{", b"}")


def quote(name, always=True):
    """name (bytes or str) quoted as GNU's shell-escape(-always) style prints it."""
    name = os.fsencode(name)
    units, compat = _units(name)
    if not always and not _needs_quotes(name, units):
        return name
    text, in_escape = _render(units, False)
    if not any(kind == _QUOTE for kind, _ in units):
        return text
    if compat:
        return b'"' + name + b'"'
    # GNU first scans such a name to see whether double quotes would do, and the
    # second pass starts in the escape state the scan ended in. Match its output.
    return _render(units, in_escape)[0]


def locale_quote(text):
    """text quoted as GNU's quote() and find's messages do: curly quotes in UTF-8."""
    utf8 = utf8_locale()
    left, right = (b"\xe2\x80\x98", b"\xe2\x80\x99") if utf8 else (b"'", b"'")
    body = bytearray()
    for kind, unit in _units(os.fsencode(text))[0]:
        if kind == _ESCAPE or unit == b"\\" or (unit == b"'" and not utf8):
            body += b"\\" + unit
        else:
            body += unit
    return left + bytes(body) + right
