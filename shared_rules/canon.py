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


def _str(s):
    # Fast path: plain printable ASCII needs no escapes (ids, names, codes).
    if (not s or (len(s.encode()) == len(s) and min(s) >= " " and max(s) < "\x7f")) \
            and '"' not in s and "\\" not in s:
        return '"' + s + '"'
    out = ['"']
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
    return "".join(out)


def dumps(v):
    """Encode a value as canonical JSON text.

    Each container joins its own children, so no single list grows with the
    size of the whole document (MicroPython's heap is small and fragments).
    """
    # bool before int: isinstance(True, int) differs between the interpreters.
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        return _str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, dict):
        parts = []
        for k in sorted(v):
            if not isinstance(k, str):
                raise TypeError("canonical JSON keys must be strings, got %r" % (k,))
            parts.append(_str(k) + ":" + dumps(v[k]))
        return "{" + ",".join(parts) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join([dumps(item) for item in v]) + "]"
    raise TypeError("canonical JSON cannot hold %r" % (v,))


def dump(v, write, depth=2):
    """Write canonical JSON of v through write(str), streaming the outer `depth` levels.

    Same bytes as dumps(v); a long replay's output is never held whole in memory.
    """
    if depth > 0 and isinstance(v, dict):
        write("{")
        first = True
        for k in sorted(v):
            if not isinstance(k, str):
                raise TypeError("canonical JSON keys must be strings, got %r" % (k,))
            write((_str(k) + ":") if first else ("," + _str(k) + ":"))
            first = False
            dump(v[k], write, depth - 1)
        write("}")
    elif depth > 0 and isinstance(v, (list, tuple)):
        write("[")
        for i in range(len(v)):
            if i:
                write(",")
            dump(v[i], write, depth - 1)
        write("]")
    else:
        write(dumps(v))


def loads(text):
    """Decode JSON text (the standard decoder is deterministic on both interpreters)."""
    return json.loads(text)
