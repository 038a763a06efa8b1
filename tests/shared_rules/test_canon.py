"""Canonical JSON: the same text as CPython's json with sorted keys and no spaces."""

import json

from hypothesis import given, strategies as st

from shared_rules import canon

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=30)


@given(json_values)
def test_dumps_is_sorted_compact_ascii_json(value):
    assert canon.dumps(value) == json.dumps(value, sort_keys=True, separators=(",", ":"),
                                            ensure_ascii=True)


@given(json_values)
def test_streaming_dump_writes_the_same_bytes(value):
    parts = []
    canon.dump(value, parts.append)
    assert "".join(parts) == canon.dumps(value)
    assert canon.loads(canon.dumps(value)) == value


def test_floats_are_refused():
    try:
        canon.dumps({"x": 0.5})
    except TypeError as e:
        assert "0.5" in str(e)
    else:
        raise AssertionError("a float was accepted")


# ---------------------------------------------------------------- the bounded, strict reader

import pytest  # noqa: E402


def read_error(text):
    with pytest.raises(canon.ReadError) as err:
        canon.loads(text)
    return err.value


def test_nesting_is_bounded():
    deep = "[" * canon.MAX_DEPTH + "]" * canon.MAX_DEPTH
    assert canon.loads(deep) is not None
    e = read_error("[" * (canon.MAX_DEPTH + 1) + "]" * (canon.MAX_DEPTH + 1))
    assert "nested more than 64 levels" in e.message and e.message.startswith("line 1, column 65")
    # Far deeper than the interpreter's recursion limit: still a sentence, not RecursionError.
    assert "nested" in read_error('{"a":' * 100000 + "1" + "}" * 100000).message


def test_numbers_are_bounded_and_whole():
    assert canon.loads("-" + "9" * canon.MAX_INT_DIGITS) == -int("9" * canon.MAX_INT_DIGITS)
    assert "more than 18 digits" in read_error("1" * 19).message
    assert "more than 18 digits" in read_error("[" + "1" * 5000 + "]").message
    e = read_error('{"cards": [{"points": 1.5}]}')
    assert e.field == "cards[0].points" and "whole number" in e.message
    assert read_error("[1e400]").field == "[0]"


def test_strings_are_bounded():
    assert len(canon.loads('"' + "é" * canon.MAX_STRING_CHARS + '"')) == canon.MAX_STRING_CHARS
    assert "more than 10000 characters" in read_error('"' + "x" * 10001 + '"').message


@pytest.mark.parametrize("text", ["[1,]", "[1 2]", '{"a" 1}', '{"a":1,}', "01", "NaN", "tru",
                                  '"a\x01"', "[1] x", "", "  ", "'a'", '"\\x41"', '"\\ud800"',
                                  '"\\udc00\\ud800"', "\ufeff{}", "-", "1.", "1e", "[", "{"])
def test_text_the_standard_says_is_not_json_is_refused(text):
    e = read_error(text)
    assert e.message.startswith("line ") and e.field == ""


def test_errors_give_line_and_column_in_characters():
    assert read_error('{\n  "é": [1,\n   2 3]}').message.startswith("line 3, column 6:")


@given(st.binary(max_size=12))
def test_utf8_checker_agrees_with_cpython(data):
    try:
        data.decode("utf-8")
        ok = True
    except UnicodeDecodeError:
        ok = False
    assert (canon.utf8_error(data) == -1) == ok


def test_non_utf8_bytes_are_refused_with_where():
    e = read_error(b'{"a":\n "caf\xe9"}')
    assert e.message == "line 2, column 6: not UTF-8 text (save the file as UTF-8)"
    for bad in (b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"):  # MicroPython's decoder
        assert "not UTF-8" in read_error(b'"' + bad + b'"').message  # accepts these


@given(json_values)
def test_anything_canonical_reads_back_as_bytes_too(value):
    assert canon.loads(canon.dumps(value).encode()) == value


def test_a_name_given_twice_in_one_object_is_refused_with_its_path():
    # Both json modules keep the last of two equal names silently (MicroPython's has no
    # object_pairs_hook): a duplicated "type" would play another action.
    e = read_error('{"game": "storybook", "actions": [{"type": "draw"}, '
                   '{"type": "play", "cell": [1, 1], "type": "reveal"}]}')
    assert e.field == "actions[1].type"
    assert e.message == ("actions[1].type: given twice in one object (a reader would keep only "
                         "one of them: give each name once)")
    assert read_error('{"game": "royale", "seed": 1, "game": "storybook"}').field == "game"
    # The same text written with escapes is the same name.
    assert read_error('{"setup": {"moved": [], "mov\\u0065d": []}}').field == "setup.moved"
    assert read_error(b'{"\xc3\xa9": 1, "\\u00e9": 2}').field == '["\\u00e9"]'
    assert read_error('{"a b": 1, "a b": 2}').field == '["a b"]'
    # The same name in different objects, or nested, is fine.
    assert canon.loads('[{"a": 1}, {"a": 2}, {"a": {"a": [{"a": 0}]}}]') == [
        {"a": 1}, {"a": 2}, {"a": {"a": [{"a": 0}]}}]


def test_json_paths_quote_odd_names():
    assert canon.path("setup", "board") == "setup.board"
    assert canon.path("setup.board", 3) == "setup.board[3]"
    assert canon.path("", "") == '[""]'
    assert canon.path("options", "a b") == 'options["a b"]'
