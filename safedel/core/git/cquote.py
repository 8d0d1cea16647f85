"""git's C-style path quoting (quote.c): read it in dry-run output, write it for display."""

_LETTERS = {7: b"a", 8: b"b", 9: b"t", 10: b"n", 11: b"v", 12: b"f", 13: b"r"}
_LETTERS.update({0x22: b'"', 0x5C: b"\\"})
_UNLETTERS = {v[0]: k for k, v in _LETTERS.items()}


def _must_quote(byte, quote_path):
    return byte < 0x20 or byte in (0x22, 0x5C, 0x7F) or (byte >= 0x80 and quote_path)


def quote(name, quote_path=True):
    """name (bytes) as git prints it: bare if nothing needs quoting, else "…" with
    \\n-style escapes and octal for the rest (bytes >= 0x80 only when core.quotePath)."""
    if not any(_must_quote(b, quote_path) for b in name):
        return name
    out = bytearray(b'"')
    for byte in name:
        if not _must_quote(byte, quote_path):
            out.append(byte)
        elif byte in _LETTERS:
            out += b"\\" + _LETTERS[byte]
        else:
            out += b"\\%03o" % byte
    return bytes(out + b'"')


def unquote(text):
    """The bytes a quoted (or bare) name stands for; None if it is not well formed."""
    if not text.startswith(b'"'):
        return text
    if len(text) < 2 or not text.endswith(b'"'):
        return None
    out, i, body = bytearray(), 0, text[1:-1]
    while i < len(body):
        byte = body[i]
        if byte != 0x5C:
            out.append(byte)
            i += 1
            continue
        code = body[i + 1 : i + 2]
        if code and code[0] in _UNLETTERS:
            out.append(_UNLETTERS[code[0]])
            i += 2
        elif len(body) >= i + 4 and all(48 <= c <= 55 for c in body[i + 1 : i + 4]):
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            return None
    return bytes(out)
