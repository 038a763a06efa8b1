"""Canonical JSON: sorted keys, no spaces, ASCII only; identical bytes on CPython and MicroPython.

MicroPython's json.dumps has no sort_keys or separators, and dict order
differs between interpreters, so the encoder is written here. Only the JSON
types the engines use are accepted: dict (str keys), list, tuple, str, int,
bool, None. Floats are refused: the rules are integer-only.
"""

import json

SCHEMA_VERSION = 1

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t",
            "\b": "\\b", "\f": "\\f"}


def _str(s, out):
    out.append('"')
    for ch in s:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
            continue
        code = ord(ch)
        if 0x20 <= code < 0x7F:
            out.append(ch)
        elif code < 0x10000:
            out.append("\\u%04x" % code)
        else:
            code -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)))
    out.append('"')


def _value(v, out):
    # bool before int: isinstance(True, int) differs between the interpreters.
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif isinstance(v, str):
        _str(v, out)
    elif isinstance(v, int):
        out.append(str(v))
    elif isinstance(v, dict):
        out.append("{")
        first = True
        for k in sorted(v):
            if not isinstance(k, str):
                raise TypeError("canonical JSON keys must be strings, got %r" % (k,))
            if not first:
                out.append(",")
            first = False
            _str(k, out)
            out.append(":")
            _value(v[k], out)
        out.append("}")
    elif isinstance(v, (list, tuple)):
        out.append("[")
        first = True
        for item in v:
            if not first:
                out.append(",")
            first = False
            _value(item, out)
        out.append("]")
    else:
        raise TypeError("canonical JSON cannot hold %r" % (v,))


def dumps(value):
    """Encode value as canonical JSON text."""
    out = []
    _value(value, out)
    return "".join(out)


def loads(text):
    """Decode JSON text (the standard decoder is deterministic on both interpreters)."""
    return json.loads(text)
