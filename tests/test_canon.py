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
