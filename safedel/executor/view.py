"""The model-facing view of an output file: at most `budget` characters.

The view is for a language model, not a terminal: invalid UTF-8 becomes U+FFFD, ANSI
escape sequences and control characters other than newline and tab are removed. When
the cleaned text is longer than the budget, the view keeps a head and a tail with one
note line between them saying how many bytes were cut and where the whole output is.

Only the two ends of the file are read (a few times the budget at most), so the cost
and the memory are the same for 50 kB and for 5 GB of output. That is also why the note
counts the cut in bytes: an exact count of cleaned characters would need a pass over
everything in between.
"""

import os

# A file this many bytes per character of budget, or less, is cleaned whole: it may
# still fit once its escape sequences are gone.
WHOLE_FACTOR = 4
GROW_STEPS = 4
CONTROL_PATTERN = (
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erase
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-OQ-WYZ\\`-~]"  # every other escape sequence (not the openers above)
    r"|\x9b[0-?]*[ -/]*[@-~]"  # CSI as one C1 character
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # what is left of C0, DEL and C1 (not \t, \n)
)
# C0 and DEL as bytes; a C1 character is 0xC2 0x80..0x9F in UTF-8.
_CONTROL_BYTES = bytes([*range(0x09), *range(0x0B, 0x20), 0x7F])
_compiled = []


def clean(data):
    """Text for a model from raw bytes. Never longer than data: one character at least
    per byte consumed."""
    text = data.decode("utf-8", "replace")
    if b"\xc2" not in data and len(data.translate(None, _CONTROL_BYTES)) == len(data):
        return text  # nothing to remove, and no need to import re (~4 ms) for it
    if not _compiled:
        import re

        _compiled.append(re.compile(CONTROL_PATTERN))
    return _compiled[0].sub("", text)


def note_line(cut_bytes, path):
    return f"… [{cut_bytes:,} bytes cut; full output: {path}] …"


def render(path, budget, shown_path=None):
    """(view, truncated) of the file at path; shown_path is what the note names."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size  # a background writer may go on: fix it
        if size <= budget * WHOLE_FACTOR:
            text = clean(_read(handle, 0, size))
            if len(text) <= budget:
                return text, False
        return _head_and_tail(handle, size, budget, shown_path or path), True


def _head_and_tail(handle, size, budget, shown):
    room = budget - len(note_line(size, shown)) - 2  # two line breaks around the note
    if room <= 0:
        return note_line(size, shown)[:budget]
    head_used, head = _grow(handle, size, room // 2, size - (room - room // 2), _head)
    tail_used, tail = _grow(handle, size, room - room // 2, size - head_used, _tail)
    joint = "" if head.endswith("\n") or not head else "\n"
    return f"{head}{joint}{note_line(size - head_used - tail_used, shown)}\n{tail}"


def _grow(handle, size, want, limit, take):
    """(bytes used, text) of one end: start with `want` bytes (their text cannot be
    longer), then read more while escape sequences leave room, a few steps at most."""
    span = min(want, limit)
    best = (0, "")
    for _ in range(GROW_STEPS):
        used, text = take(handle, size, span)
        if len(text) > want:
            break
        best = (used, text)
        if span >= limit or len(text) >= want * 9 // 10:
            break
        span = min(limit, span + want - len(text))
    return best


def _head(handle, _size, span):
    raw = _read(handle, 0, span)
    end = raw.rfind(b"\n") + 1
    if end < len(raw) * 3 // 4:  # no line end near the cut: cut inside the line,
        end = len(raw)  # but not inside a character
        while end > 0 and len(raw) - end < 3 and 0x80 <= raw[end - 1] < 0xC0:
            end -= 1
        if end > 0 and raw[end - 1] >= 0xC0:
            end -= 1
    return end, clean(raw[:end])


def _tail(handle, size, span):
    raw = _read(handle, size - span, span)
    start = raw.find(b"\n") + 1
    if not 0 < start <= len(raw) // 4:
        start = 0
        while start < min(3, len(raw)) and 0x80 <= raw[start] < 0xC0:
            start += 1
    return len(raw) - start, clean(raw[start:])


def _read(handle, offset, length):
    handle.seek(offset)
    return handle.read(length)
