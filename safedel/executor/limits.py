"""Timeouts, the output budget and the kill grace: parsed from options and environment.

A value given on the command line that is out of range is a usage error; a value from
the environment that is invalid warns once and the default is used instead, so a typo
in a profile never stops every command.
"""

import os

from ..core.contract.settings import warn_once

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
DEFAULT_MAX_OUTPUT = 30_000
MAX_OUTPUT_CAP = 150_000
MIN_OUTPUT = 1_000  # room for a head, a tail and the note that names the file
DEFAULT_GRACE_MS = 2_000
MAX_GRACE_MS = 60_000
_UNITS = (("ms", 1), ("s", 1000), ("m", 60_000))


class LimitError(ValueError):
    """A command-line value that is out of range: a usage error."""


def duration_ms(text):
    """Milliseconds for `90s`, `2m`, `120000ms` or a bare number (milliseconds)."""
    raw = text.strip().lower()
    factor = 1
    for suffix, unit in _UNITS:
        if raw.endswith(suffix) and not (suffix == "s" and raw.endswith("ms")):
            raw, factor = raw[: -len(suffix)], unit
            break
    number = raw.replace(".", "", 1)
    if not (number.isascii() and number.isdigit()):
        raise LimitError(f"{text!r} is not a duration (use 90s, 2m, 120000ms or milliseconds)")
    return int(round(float(raw) * factor))


def _whole(raw):
    text = raw.strip()
    return int(text) if text.isascii() and text.isdigit() else None


def _from_env(environ, name, default, high):
    raw = environ.get(name)
    if raw is None or raw == "":
        return default
    value = _whole(raw)
    if value is None or value > high:
        warn_once(f"{name}={raw!r} is not a whole number in 0..{high}; using {default}")
        return default
    return value


def max_timeout_ms(environ):
    value = _from_env(environ, "SAFEDEL_MAX_TIMEOUT_MS", MAX_TIMEOUT_MS, 10**12)
    return value or MAX_TIMEOUT_MS


def timeout_ms(option, environ=None):
    """The timeout in ms, or None for none (`--timeout 0`)."""
    environ = os.environ if environ is None else environ
    cap = max_timeout_ms(environ)
    if option is None:
        value = _from_env(environ, "SAFEDEL_TIMEOUT_MS", DEFAULT_TIMEOUT_MS, cap)
    else:
        value = duration_ms(option)
        if value > cap:
            raise LimitError(f"--timeout {option} is over the cap of {cap // 1000} s")
    return value or None


def max_output(option, environ=None):
    environ = os.environ if environ is None else environ
    if option is None:
        value = _from_env(environ, "SAFEDEL_MAX_OUTPUT", DEFAULT_MAX_OUTPUT, MAX_OUTPUT_CAP)
        if value < MIN_OUTPUT:
            raw = environ.get("SAFEDEL_MAX_OUTPUT")
            warn_once(f"SAFEDEL_MAX_OUTPUT={raw!r} is under {MIN_OUTPUT}; using the default")
            return DEFAULT_MAX_OUTPUT
        return value
    value = _whole(option)
    if value is None or not MIN_OUTPUT <= value <= MAX_OUTPUT_CAP:
        raise LimitError(
            f"--max-output must be a whole number in {MIN_OUTPUT}..{MAX_OUTPUT_CAP}, not {option!r}"
        )
    return value


def kill_grace_ms(option):
    if option is None:
        return DEFAULT_GRACE_MS
    value = duration_ms(option)
    if value > MAX_GRACE_MS:
        raise LimitError(f"--kill-grace {option} is over the cap of {MAX_GRACE_MS // 1000} s")
    return value
