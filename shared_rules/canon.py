"""Canonical JSON: sorted keys, no spaces, ASCII only; identical bytes on CPython and MicroPython.

MicroPython's json.dumps has no sort_keys or separators, and dict order
differs between interpreters, so the encoder is written here. Only the JSON
types the engines use are accepted: dict (str keys), list, tuple, str, int,
bool, None. Floats are refused: the rules are integer-only.

The reader (`loads`) is the one gate every scenario, catalog, save and
journal record passes through, so it is strict and bounded the same way on
both interpreters. MicroPython's json module accepts text CPython refuses
(`[1 2]`, `[1,]`, `01`, raw control characters) and CPython's recursive
decoder overflows on deep nesting, so `loads` first checks the text itself
against the JSON grammar (RFC 8259) with an explicit stack, then lets the
json module build the values, then refuses decimals. The check also refuses a
name given twice in one object (`{"type": "play", "type": "draw"}`): both json
modules would keep the last one silently (MicroPython's has no object_pairs_hook
to see it), so a duplicated "type" would play another action. The limits:

  MAX_DEPTH        64 nested arrays/objects (a scenario needs 5)
  MAX_INT_DIGITS   18 digits in a number (every 64-bit count; CPython refuses
                   more than 4,300 digits and MicroPython would build a bignum)
  MAX_NUMBER_CHARS 40 characters in one number, fraction and exponent included
  MAX_STRING_CHARS 10,000 characters between the quotes of one string or key

Text over a limit, text that is not JSON, decimals and names given twice raise
`ReadError`, a ValueError whose message is the same sentence on both
interpreters: where (line and column, or the JSON path of a decimal or of the
second of two names) and what is wrong.
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


class Encoded:
    """Text already encoded by dumps(), written as it is (the replay keeps a long game's
    events encoded: one string each takes a fraction of a dict's memory on MicroPython)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __eq__(self, other):
        return isinstance(other, Encoded) and other.text == self.text


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
    if isinstance(v, Encoded):
        return v.text
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


MAX_DEPTH = 64
MAX_INT_DIGITS = 18
MAX_NUMBER_CHARS = 40
MAX_STRING_CHARS = 10000

# The checker works on bytes: MicroPython indexes a str in O(position) (it is UTF-8 inside),
# bytes in O(1), and indexing bytes gives ints on both interpreters.
_WS = b" \t\n\r"
_DIGITS = b"0123456789"
_HEX = b"0123456789abcdefABCDEF"
_SIMPLE_ESCAPES = b'"\\/bfnrt'
_QUOTE, _BACKSLASH, _MINUS, _DOT, _COLON_CH, _COMMA = 34, 92, 45, 46, 58, 44
_OPEN_OBJ, _CLOSE_OBJ, _OPEN_LIST, _CLOSE_LIST = 123, 125, 91, 93
_NEWLINE = 10

# What the checker expects next.
_VALUE, _VALUE_OR_END, _KEY, _KEY_OR_END, _COLON, _AFTER = 0, 1, 2, 3, 4, 5


class ReadError(ValueError):
    """Text that is not JSON, over a limit, or holding a decimal.

    `field` is the JSON path of the bad value ("setup.board[3].cell[0]") when
    the value could be built, else "" (the message then gives line and column).
    """

    def __init__(self, message, field=""):
        super().__init__(message)
        self.message = message
        self.field = field


def _where(data, i):
    line = data.count(b"\n", 0, i) + 1
    line_start = data.rfind(b"\n", 0, i) + 1
    # Columns count characters, not bytes: skip UTF-8 continuation bytes.
    col = 1
    for k in range(line_start, i):
        if data[k] & 0xC0 != 0x80:
            col += 1
    return "line %d, column %d" % (line, col)


def _fail(data, i, what):
    raise ReadError("%s: %s" % (_where(data, i), what))


def _check_plain(data, start, end):
    # Raw control characters are not allowed between quotes (JSON escapes them).
    if end > start and min(data[start:end]) < 32:
        for k in range(start, end):
            if data[k] < 32:
                _fail(data, k, "a control character inside quotes (write it as an escape "
                      "such as \\n)")


def _hex4(data, k):
    """The code of the escape \\uXXXX at data[k]; ReadError unless four hex digits follow."""
    digits = data[k + 2:k + 6]
    if len(digits) == 4:
        for c in digits:
            if c not in _HEX:
                break
        else:
            return int(digits.decode(), 16)
    _fail(data, k, "\\u must be followed by four hexadecimal digits")


def _string(data, i, n, pairs):
    """Check the string whose quote is data[i]; return the index after it.

    pairs[0] is set when an escaped surrogate pair is seen."""
    start = i
    i += 1
    while True:
        j = data.find(b'"', i)
        if j < 0:
            _fail(data, start, "a text in quotes is never closed")
        k = data.find(b"\\", i, j)
        if k < 0:
            _check_plain(data, i, j)
            i = j + 1
            break
        _check_plain(data, i, k)
        e = data[k + 1] if k + 1 < n else -1
        if e >= 0 and e in _SIMPLE_ESCAPES:
            i = k + 2
        elif e == 117:  # u
            code = _hex4(data, k)
            i = k + 6
            if 0xD800 <= code <= 0xDFFF:
                # Only a high surrogate followed by a low one is a character (how canonical
                # JSON writes characters beyond U+FFFF); a lone half is not text.
                low = _hex4(data, i) if data[i:i + 2] == b"\\u" else -1
                if not (code <= 0xDBFF and 0xDC00 <= low <= 0xDFFF):
                    _fail(data, k, "half of a surrogate pair (\\u%s) without its other half" %
                          data[k + 2:k + 6].decode())
                i += 6
                pairs[0] = True
        else:
            _fail(data, k, "an unknown escape after a backslash")
        if i - start > 6 * MAX_STRING_CHARS:
            break
    # Bytes over-count characters; count them exactly only when it matters.
    if i - start - 2 > MAX_STRING_CHARS and _chars(data, start + 1, i - 1) > MAX_STRING_CHARS:
        _fail(data, start, "a text of more than %d characters" % MAX_STRING_CHARS)
    return i


def _chars(data, start, end):
    n = 0
    for k in range(start, end):
        if data[k] & 0xC0 != 0x80:
            n += 1
    return n


def _digits(data, i, n):
    """The index after the run of digits starting at data[i] (i itself if there is none)."""
    while i < n and data[i] in _DIGITS:
        i += 1
    return i


def _number(data, i, n):
    """Check the number starting at data[i]; return the index after it."""
    start = i
    if data[i] == _MINUS:
        i += 1
    first = i
    i = _digits(data, i, n)
    if i == first:
        _fail(data, start, "a minus sign must be followed by digits")
    if i - first > MAX_INT_DIGITS:
        _fail(data, start, "a number of more than %d digits" % MAX_INT_DIGITS)
    if data[first] == 48 and i - first > 1:
        _fail(data, start, "a number must not start with 0")
    if i < n and data[i] == _DOT:
        frac = i + 1
        i = _digits(data, frac, n)
        if i == frac:
            _fail(data, start, "a decimal point must be followed by digits")
    if i < n and data[i] in b"eE":
        i += 1
        if i < n and data[i] in b"+-":
            i += 1
        exp = i
        i = _digits(data, exp, n)
        if i == exp:
            _fail(data, start, "an exponent must have digits")
    if i - start > MAX_NUMBER_CHARS:
        _fail(data, start, "a number of more than %d characters" % MAX_NUMBER_CHARS)
    return i


def utf8_error(data):
    """The index of the first byte that is not strict UTF-8 (RFC 3629), or -1.

    Written out because MicroPython's bytes.decode accepts overlong forms, encoded
    surrogates and code points past U+10FFFF, which CPython refuses.
    """
    n = len(data)
    if not n or max(data) < 0x80:
        return -1
    i = 0
    while i < n:
        b = data[i]
        if b < 0x80:
            i += 1
            continue
        if 0xC2 <= b <= 0xDF:
            lo, hi, more = 0x80, 0xBF, 1
        elif 0xE0 <= b <= 0xEF:
            lo, hi, more = (0xA0 if b == 0xE0 else 0x80), (0x9F if b == 0xED else 0xBF), 2
        elif 0xF0 <= b <= 0xF4:
            lo, hi, more = (0x90 if b == 0xF0 else 0x80), (0x8F if b == 0xF4 else 0xBF), 3
        else:
            return i
        if i + more >= n:
            return i
        if not lo <= data[i + 1] <= hi:
            return i
        for k in range(i + 2, i + 1 + more):
            if not 0x80 <= data[k] <= 0xBF:
                return i
        i += 1 + more
    return -1


def check_text(data):
    """Raise ReadError unless `data` (UTF-8 bytes) is one JSON value within the limits,
    no object giving a name twice.

    Returns True if it holds escaped surrogate pairs (characters beyond U+FFFF).

    Nothing is built: an explicit stack, no recursion, so any nesting is safe to check.
    """
    n = len(data)
    i = 0
    stack = []
    # Beside each open container: the names an object has given so far (None for a list),
    # and where the checker is in it (an object's last name, a list's index), for the path
    # of a name given twice.
    names = []
    at = []
    state = _VALUE
    pairs = [False]
    while True:
        while i < n and data[i] in _WS:
            i += 1
        if i >= n:
            if state == _AFTER and not stack:
                return pairs[0]
            if not data.strip(_WS):
                _fail(data, i, "the file is empty")
            _fail(data, i, "the text ends before the JSON is complete")
        ch = data[i]
        if state == _VALUE or state == _VALUE_OR_END:
            if ch == _CLOSE_LIST and state == _VALUE_OR_END:
                stack.pop()
                names.pop()
                at.pop()
                state = _AFTER
                i += 1
            elif ch == _OPEN_OBJ or ch == _OPEN_LIST:
                if len(stack) >= MAX_DEPTH:
                    _fail(data, i, "nested more than %d levels deep" % MAX_DEPTH)
                stack.append(ch)
                if ch == _OPEN_OBJ:
                    names.append(set())
                    at.append(None)
                    state = _KEY_OR_END
                else:
                    names.append(None)
                    at.append(0)
                    state = _VALUE_OR_END
                i += 1
            elif ch == _QUOTE:
                i = _string(data, i, n, pairs)
                state = _AFTER
            elif ch == _MINUS or ch in _DIGITS:
                i = _number(data, i, n)
                state = _AFTER
            else:
                for word in (b"true", b"false", b"null"):
                    if data[i:i + len(word)] == word:
                        i += len(word)
                        state = _AFTER
                        break
                else:
                    _fail(data, i, "expected a value (an object, list, text in quotes, whole "
                          "number, true, false or null)")
        elif state == _KEY or state == _KEY_OR_END:
            if ch == _CLOSE_OBJ and state == _KEY_OR_END:
                stack.pop()
                names.pop()
                at.pop()
                state = _AFTER
                i += 1
            elif ch == _QUOTE:
                end = _string(data, i, n, pairs)
                name = data[i + 1:end - 1]
                if _BACKSLASH in name:
                    name = _name_bytes(name)
                at[-1] = name
                if name in names[-1]:
                    _given_twice(at)
                names[-1].add(name)
                i = end
                state = _COLON
            else:
                _fail(data, i, "expected a name in double quotes")
        elif state == _COLON:
            if ch != _COLON_CH:
                _fail(data, i, 'expected ":" after a name')
            state = _VALUE
            i += 1
        else:
            if not stack:
                _fail(data, i, "more text after the end of the JSON value")
            top = stack[-1]
            if ch == _COMMA:
                if top == _OPEN_OBJ:
                    state = _KEY
                else:
                    state = _VALUE
                    at[-1] += 1
            elif (ch == _CLOSE_LIST and top == _OPEN_LIST) or (ch == _CLOSE_OBJ
                                                               and top == _OPEN_OBJ):
                stack.pop()
                names.pop()
                at.pop()
            else:
                _fail(data, i, 'expected "," or "%s"' % ("}" if top == _OPEN_OBJ else "]"))
            i += 1


def _name_bytes(raw):
    """A name written with escapes, as the UTF-8 bytes of the text it stands for (so that
    "type" and "typ\\u0065" are the same name)."""
    text = json.loads(b'"' + raw + b'"')
    if _PAIRS_SPLIT:
        text = _join_str(text)
    return text.encode()


def _given_twice(at):
    """ReadError for the name an object gives twice; `at` is where the checker is."""
    where = ""
    for step in at:
        where = _path(where, step if isinstance(step, int) else step.decode())
    raise ReadError("%s: given twice in one object (a reader would keep only one of them: "
                    "give each name once)" % where, where)


# MicroPython's json leaves "\\ud83d\\ude00" as two characters; CPython joins them into one.
_PAIRS_SPLIT = len(json.loads('"\\ud83d\\ude00"')) != 1


def _join_str(s):
    out = []
    i = 0
    while i < len(s):
        c = ord(s[i])
        if 0xD800 <= c <= 0xDBFF and i + 1 < len(s) and 0xDC00 <= ord(s[i + 1]) <= 0xDFFF:
            out.append(chr(0x10000 + ((c - 0xD800) << 10) + (ord(s[i + 1]) - 0xDC00)))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def _join_pairs(v):
    if isinstance(v, str):
        return _join_str(v)
    if isinstance(v, dict):
        return dict([(_join_str(k), _join_pairs(v[k])) for k in v])
    if isinstance(v, list):
        return [_join_pairs(x) for x in v]
    return v


_NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"


def path(parent, key):
    """The JSON path of `key` inside `parent`: setup.board[3].card, or options["a b"] when a
    name is empty or holds other characters than letters, digits, "_" and "-"."""
    if isinstance(key, int):
        return "%s[%d]" % (parent, key)
    if key and len(key) <= 40 and not [c for c in key if c not in _NAME_CHARS]:
        return key if not parent else parent + "." + key
    quoted = dumps(key)
    if len(quoted) > 42:
        quoted = quoted[:40] + '..."'
    return "%s[%s]" % (parent, quoted)


_path = path


def _refuse_decimals(v, path):
    # Depth is already bounded by check_text, so this recursion is too.
    if isinstance(v, float):
        raise ReadError("%s: must be a whole number, not a decimal" % (path or "value"),
                        path or "value")
    if isinstance(v, dict):
        for k in sorted(v):
            _refuse_decimals(v[k], _path(path, k))
    elif isinstance(v, list):
        for i in range(len(v)):
            _refuse_decimals(v[i], _path(path, i))


def loads(text):
    """Decode JSON (str, or UTF-8 bytes), strictly and within the limits above.

    ReadError (a ValueError) if not; the same input gives the same value or the same
    error sentence on both interpreters.
    """
    if isinstance(text, str):
        data = text.encode()
    elif isinstance(text, (bytes, bytearray)):
        data = text if isinstance(text, bytes) else bytes(text)
        bad = utf8_error(data)
        if bad >= 0:
            _fail(data, bad, "not UTF-8 text (save the file as UTF-8)")
    else:
        raise ReadError("JSON must be text")
    pairs = check_text(data)
    value = json.loads(data)
    if pairs and _PAIRS_SPLIT:
        value = _join_pairs(value)
    _refuse_decimals(value, "")
    return value
