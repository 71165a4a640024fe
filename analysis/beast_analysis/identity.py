"""Canonical config text and hashes, the same as the C++ side writes them.

beast::Config::Key() is "NAME=value,..." in parameter order with Python's
spelling of each value (True/False, repr of a float), and Config::Hash() /
HashText() are 16 hex digits of FNV-1a 64 over that text (beast/core/config.cpp).
Rows written from Python must match, so a config imported here and the same
config written by `beast tune` get the same key and hash.
"""

import math

_FNV_OFFSET = 0xCBF29CE484222325  # 1469598103934665603
_FNV_PRIME = 0x100000001B3  # 1099511628211
_MASK = 0xFFFFFFFFFFFFFFFF


def hash_text(text):
    """16 lower-case hex digits of FNV-1a 64 over text's UTF-8 bytes."""
    value = _FNV_OFFSET
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * _FNV_PRIME) & _MASK
    return f"{value:016x}"


def value_text(value):
    """A parameter value as Config::Key() spells it; None for a type it cannot hold."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else None
    if isinstance(value, str):
        return repr(value)  # a Python string literal, as Kernel Tuner's restrictions read it
    return None


def config_key(params):
    """'NAME=value,...' for an ordered dict of parameter values."""
    return ",".join(f"{name}={value_text(value)}" for name, value in params.items())
