"""jsonl writes what json writes and reads what json reads, without importing json."""

import json
import os
import random
import subprocess
import sys

import pytest

from safedel.core import jsonl

ALPHABET = ["a", "\n", '"', "\\", "\x00", "\x1b", "é", "\u2028", "\udcff", "💥", "%", "/", " "]


def random_records(count, seed=7):
    rng = random.Random(seed)
    for _ in range(count):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 12)))
        yield {
            "v": 1,
            "operation": rng.choice(["trash", "refuse"]),
            "path": text,
            "n": rng.randint(-(10**15), 10**15),
            "flag": rng.choice([True, False, None]),
            "targets": [text, text[::-1]],
            "empty": {},
            "none": [],
        }


@pytest.mark.parametrize("record", list(random_records(200)))
def test_dumps_matches_json_and_round_trips(record):
    line = jsonl.dumps(record)
    assert line == json.dumps(record, ensure_ascii=True, separators=(",", ":"))
    assert line.isascii() and "\n" not in line
    assert jsonl.loads(line) == record


@pytest.mark.parametrize(
    "text",
    ['{"a": 1}', "[1.5, 2e3]", '{"a":01}', "{", '{"a":1}x', "", "nul", '"\\ud800"', "-0"],
)
def test_loads_agrees_with_json_on_odd_input(text):
    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            jsonl.loads(text)
    else:
        assert jsonl.loads(text) == expected


def test_the_engine_never_imports_json_to_trash():
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "from safedel.core import deletion, jsonl;"
        "jsonl.loads(jsonl.dumps({'a': ['b']}));"
        "print('json' in sys.modules, 'hashlib' in sys.modules)"
    )
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(jsonl.__file__))))
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code, repo],
        capture_output=True,
        check=True,
    )
    assert out.stdout.split() == [b"False", b"False"]
