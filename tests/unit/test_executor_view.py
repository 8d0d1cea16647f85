"""The model-facing view: cleaned, within the budget, head and tail kept, bytes counted."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safedel.executor import limits, view

NOTE = re.compile(r"\n?… \[([0-9,]+) bytes cut; full output: (.+)\] …\n")


def render(tmp_path, data, budget=1000):
    path = tmp_path / "out"
    path.write_bytes(data)
    return view.render(str(path), budget)


@pytest.mark.parametrize(
    "raw, shown",
    [
        (b"plain\n", "plain\n"),
        (b"\x1b[1;31mred\x1b[0m\n", "red\n"),
        (b"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", "link\n"),  # OSC 8 hyperlink
        (b"\x1b]0;title\x07after", "after"),
        (b"\x1bPqsixel\x1b\\ok", "ok"),
        (b"a\x1b7b\x1b8c\x1b(Bd", "abcd"),  # save/restore cursor, charset
        (b"tab\there\r\nbell\x07nul\x00del\x7f", "tab\there\nbellnuldel"),
        (b"\xc2\x9b31mC1 CSI", "C1 CSI"),
        (b"bad \xff\xfe utf-8 \xe2\x82", "bad \ufffd\ufffd utf-8 \ufffd"),
        (b"\xf0\x9f\x98\x80 non-BMP", "\U0001f600 non-BMP"),
        (b"lone \x1b", "lone "),
        (b"", ""),
    ],
)
def test_cleaning(tmp_path, raw, shown):
    assert render(tmp_path, raw) == (shown, False)


def test_escape_heavy_output_that_fits_once_cleaned_is_whole(tmp_path):
    raw = b"\x1b[38;5;208m\x1b[1mx\x1b[0m\n" * 150  # 3,150 bytes, 300 characters
    assert render(tmp_path, raw) == ("x\n" * 150, False)


def test_long_output_keeps_whole_lines_at_both_ends(tmp_path):
    lines = [b"\x1b[32mline %05d\x1b[0m\n" % n for n in range(5000)]
    text, truncated = render(tmp_path, b"".join(lines), budget=2000)
    assert truncated and len(text) <= 2000
    note = NOTE.search(text)
    head, tail = text[: note.start()] + "\n", text[note.end() :]
    kept_head = head.count("\n")
    kept_tail = tail.count("\n")
    assert head == "".join(f"line {n:05d}\n" for n in range(kept_head))
    assert tail == "".join(f"line {n:05d}\n" for n in range(5000 - kept_tail, 5000))
    cut = sum(map(len, lines[kept_head : 5000 - kept_tail]))
    assert int(note.group(1).replace(",", "")) == cut
    assert kept_head > 30 and kept_tail > 30  # the budget is used, not wasted


def test_one_long_line_is_cut_between_characters(tmp_path):
    raw = "é€😀".encode() * 10000  # 2-, 3- and 4-byte characters, no newline
    text, truncated = render(tmp_path, raw, budget=1500)
    assert truncated and len(text) <= 1500
    assert "\ufffd" not in text
    note = NOTE.search(text)
    head, tail = text[: note.start()], text[note.end() :]
    assert "é€😀".startswith(head[:3]) and tail.endswith("é€😀")


def test_a_budget_smaller_than_the_note_gives_the_note(tmp_path):
    path = tmp_path / ("long-name-" * 20)
    path.write_bytes(b"x" * 5000)
    text, truncated = view.render(str(path), 50)
    assert truncated and len(text) == 50 and text.startswith("… [5,000 bytes cut")


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=6000), st.integers(min_value=200, max_value=3000))
def test_any_output_gives_a_view_within_the_budget(tmp_path_factory, data, budget):
    path = tmp_path_factory.mktemp("v") / "out"
    path.write_bytes(data)
    text, truncated = view.render(str(path), budget)
    assert len(text) <= budget
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)
    if not truncated:
        assert text == view.clean(data)
    else:
        cut = int(NOTE.search(text).group(1).replace(",", ""))
        assert 0 <= cut <= len(data)


@pytest.mark.parametrize(
    "text, ms",
    [
        ("90s", 90_000),
        ("2m", 120_000),
        ("120000ms", 120_000),
        ("1500", 1_500),
        ("0", 0),
        ("1.5s", 1_500),
        (" 10S ", 10_000),
    ],
)
def test_durations(text, ms):
    assert limits.duration_ms(text) == ms


@pytest.mark.parametrize("text", ["", "s", "1h", "-5s", "1e3", "½s", "1..2s", "٣s"])
def test_bad_durations(text):
    with pytest.raises(limits.LimitError):
        limits.duration_ms(text)


def test_limits_from_the_environment(capsys):
    assert limits.timeout_ms(None, {}) == 120_000
    assert limits.timeout_ms("0", {}) is None
    assert limits.timeout_ms(None, {"SAFEDEL_TIMEOUT_MS": "0"}) is None
    assert limits.timeout_ms(None, {"SAFEDEL_TIMEOUT_MS": "5000"}) == 5_000
    assert limits.timeout_ms("20m", {"SAFEDEL_MAX_TIMEOUT_MS": "1800000"}) == 1_200_000
    with pytest.raises(limits.LimitError):
        limits.timeout_ms("601s", {})
    assert limits.max_output(None, {"SAFEDEL_MAX_OUTPUT": "999"}) == 30_000
    assert limits.max_output(None, {"SAFEDEL_MAX_OUTPUT": "150000"}) == 150_000
    assert "SAFEDEL_MAX_OUTPUT='999'" in capsys.readouterr().err
