"""The model-facing view of an output file: at most `budget` characters, read in chunks.

The view is for a language model, not a terminal: invalid UTF-8 becomes U+FFFD, ANSI
escape sequences and control characters other than newline and tab are removed, and
when the text is longer than the budget its head and tail are kept with one note line
between them saying how much was cut and where the whole output is. The file is read
once, in CHUNK-byte pieces, keeping only the first and the last `budget` characters,
so memory stays flat whatever the command printed.
"""

import codecs
import re

CHUNK = 1 << 18
# A sequence cut by a chunk boundary is carried to the next chunk when it starts this
# close to the end; a longer unterminated one is taken apart like any stray escape.
CARRY_LIMIT = 4096
_SEQUENCE = (
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erase
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: titles, hyperlinks
    r"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-OQ-WYZ\\`-~]"  # every other escape sequence (not the openers above)
    r"|\x9b[0-?]*[ -/]*[@-~]"  # CSI as one C1 character
)
_COMPLETE = re.compile(_SEQUENCE)
# What is left of C0, DEL and C1 after whole sequences (not \t, \n).
_CONTROL = re.compile(_SEQUENCE + r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_STARTS = re.compile(r"[\x1b\x9b][^\x1b\x9b]*\Z")


def clean(text):
    return _CONTROL.sub("", text)


class Cleaner:
    """clean() over a stream: a sequence split between two pieces is removed whole."""

    def __init__(self):
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.carry = ""

    def feed(self, data, final=False):
        text = self.carry + self.decoder.decode(data, final)
        self.carry = ""
        if not final:
            start = _STARTS.search(text, max(0, len(text) - CARRY_LIMIT))
            if start and not _COMPLETE.match(text, start.start()):
                self.carry = text[start.start() :]
                text = text[: start.start()]
        return clean(text)


def note_line(cut, path):
    return f"… [{cut:,} characters cut; full output: {path}] …"


class Keeper:
    """The first and the last `budget` characters of a stream, and its length."""

    def __init__(self, budget):
        self.budget = budget
        self.head = ""
        self.tail = ""
        self.total = 0

    def add(self, text):
        if not text:
            return
        self.total += len(text)
        if len(self.head) < self.budget:
            self.head += text[: self.budget - len(self.head)]
        self.tail = (self.tail + text)[-self.budget :]

    def view(self, path):
        """(text, truncated) within the budget."""
        if self.total <= self.budget:
            return self.head, False
        # Room for the note with the largest cut it could name, and two line breaks.
        room = self.budget - len(note_line(self.total, path)) - 2
        if room <= 0:
            return note_line(self.total, path)[: self.budget], True
        head = _to_line_end(self.head[: room // 2])
        tail = _from_line_start(self.tail[len(self.tail) - (room - room // 2) :])
        cut = self.total - len(head) - len(tail)
        joint = "" if head.endswith("\n") or not head else "\n"
        return f"{head}{joint}{note_line(cut, path)}\n{tail}", True


def _to_line_end(head):
    """head, ended after its last newline if that loses at most a quarter of it."""
    end = head.rfind("\n")
    return head[: end + 1] if end >= len(head) * 3 // 4 else head


def _from_line_start(tail):
    start = tail.find("\n")
    return tail[start + 1 :] if 0 <= start < len(tail) // 4 else tail


def render(path, budget, shown_path=None):
    """(view, truncated) of the file at path; shown_path is what the note names."""
    keeper = Keeper(budget)
    cleaner = Cleaner()
    with open(path, "rb") as handle:
        while True:
            data = handle.read(CHUNK)
            keeper.add(cleaner.feed(data, final=not data))
            if not data:
                break
    return keeper.view(shown_path or path)
