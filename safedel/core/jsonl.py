"""Compact ASCII JSON for report, ledger and marker lines, without importing `json`.

`import json` pulls in `re` (and with it enum, functools, collections), which costs an
rm launcher more than all of its own work. CPython's C helpers in `_json` do the one
hard part, string escaping and unescaping; the records themselves are flat objects of
strings, numbers, booleans, null and lists of strings, and anything else goes to
`json` after all.
"""

_helpers = []  # [(quote, scanstring)] once a string needs escaping: see _c()


def _c():
    """CPython's escaping and unescaping helpers, loaded at the first string that needs
    them: most records are plain ASCII, and loading _json costs a launcher a dlopen."""
    if not _helpers:
        try:
            from _json import encode_basestring_ascii, scanstring
        except ImportError:  # an interpreter without the C accelerator
            from json.decoder import py_scanstring as scanstring
            from json.encoder import py_encode_basestring_ascii as encode_basestring_ascii
        _helpers.append((encode_basestring_ascii, scanstring))
    return _helpers[0]


def _quote(text):
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return '"' + text + '"'
    return _c()[0](text)


def _scanstring(text, index, strict=True):
    """(the string that starts after the quote at index - 1, the index past its end)."""
    end = text.find('"', index)
    if end >= 0:
        chunk = text[index:end]
        if "\\" not in chunk and chunk.isprintable():
            return chunk, end + 1
    return _c()[1](text, index, strict)


_SCALARS = {"true": True, "false": False, "null": None}


def dumps(value):
    """ASCII-only, no spaces: a hostile name can never end or fake a line."""
    return _dump(value)


def _dump(value):
    if isinstance(value, str):
        return _quote(value)
    if value is None or isinstance(value, bool):
        return "null" if value is None else ("true" if value else "false")
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, dict):
        items = (f"{_quote(k)}:{_dump(v)}" for k, v in value.items() if isinstance(k, str))
        return "{" + ",".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_dump(v) for v in value) + "]"
    return _slow_dumps(value)


def _slow_dumps(value):
    import json

    return json.dumps(value, ensure_ascii=True, separators=(",", ":"))


def loads(text):
    """Parse one JSON value; flat objects take the fast path. Raises ValueError."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    stripped = text.strip()
    try:
        value, end = _parse(stripped, 0)
        if end == len(stripped):
            return value
    except (ValueError, IndexError):  # a shape the fast parser leaves to `json`
        pass
    import json

    return json.loads(text)


# A shape the fast parser leaves to `json` (which then decides) raises _Unsupported: a
# plain ValueError, so that a launcher does not build an exception class for it.
_Unsupported = ValueError


def _parse(text, index):
    char = text[index]
    if char == '"':
        return _scanstring(text, index + 1, True)
    if char == "{":
        return _parse_object(text, index + 1)
    if char == "[":
        return _parse_array(text, index + 1)
    end = index
    while end < len(text) and text[end] not in ",]}":
        end += 1
    word = text[index:end]
    if word in _SCALARS:
        return _SCALARS[word], end
    if word.lstrip("-").isdigit() and word.isascii() and not word.startswith(("0", "-0")):
        return int(word), end
    if word == "0":
        return 0, end
    raise _Unsupported(word)


def _parse_object(text, index):
    result = {}
    if text[index] == "}":
        return result, index + 1
    while True:
        if text[index] != '"':
            raise _Unsupported(index)
        key, index = _scanstring(text, index + 1, True)
        if text[index] != ":":
            raise _Unsupported(index)
        result[key], index = _parse(text, index + 1)
        if text[index] == "}":
            return result, index + 1
        if text[index] != ",":
            raise _Unsupported(index)
        index += 1


def _parse_array(text, index):
    result = []
    if text[index] == "]":
        return result, index + 1
    while True:
        value, index = _parse(text, index)
        result.append(value)
        if text[index] == "]":
            return result, index + 1
        if text[index] != ",":
            raise _Unsupported(index)
        index += 1
