"""Check a `safedel run` result against the JSON Schema that ships in the package."""

import json

import jsonschema

from safedel.executor import result

with open(result.SCHEMA_FILE, encoding="utf-8") as _handle:
    SCHEMA = json.load(_handle)
jsonschema.Draft202012Validator.check_schema(SCHEMA)
_VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def valid_result(data):
    """data (a dict, or the text or path of a result) checked against the schema."""
    if not isinstance(data, dict):
        text = data.read_text() if hasattr(data, "read_text") else data
        data = json.loads(text)
    _VALIDATOR.validate(data)
    return data
