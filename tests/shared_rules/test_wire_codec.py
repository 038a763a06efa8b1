"""The wire codec on CPython: COBS, frames, the streaming decoder and every message."""

import binascii

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared_rules import wire

# "uid blob (4, 7 or 10 bytes)": ISO 14443-3A single, double and triple size.
uids = st.sampled_from((4, 7, 10)).flatmap(lambda n: st.binary(min_size=n, max_size=n))
identities = st.one_of(st.none(), st.binary(min_size=1, max_size=16))
tag_lists = st.lists(st.tuples(uids, identities), max_size=4)
u8 = st.integers(0, 255)
rgb = st.tuples(u8, u8, u8)


@given(st.binary(max_size=1200))
def test_cobs_round_trip_never_contains_the_delimiter(data):
    enc = wire.cobs_encode(data)
    assert 0 not in enc
    assert wire.cobs_decode(enc) == data


@given(st.integers(0, 255), st.integers(0, 0xFFFF), st.binary(max_size=wire.MAX_PAYLOAD))
def test_frame_round_trip(msg_type, seq, payload):
    data = wire.encode_frame(msg_type, seq, payload)
    assert data.endswith(b"\x00") and data.count(0) == 1
    frames = wire.Decoder().feed(data)
    assert len(frames) == 1
    f = frames[0]
    assert (f.version, f.type, f.seq, f.payload) == (wire.PROTOCOL_VERSION, msg_type, seq, payload)


@given(st.binary(max_size=3000), st.lists(st.integers(1, 50), max_size=20))
def test_decoder_never_raises_and_stays_bounded(garbage, chunks):
    d = wire.Decoder(report=True)
    pos = 0
    for c in chunks + [len(garbage)]:
        for item in d.feed(garbage[pos:pos + c]):
            assert isinstance(item, wire.Frame) or (
                isinstance(item, tuple) and item[0] in ("crc_errors", "cobs_errors",
                                                        "short_frames", "oversize"))
        pos += c
        assert len(d._buf) <= d.max_encoded


@given(st.binary(max_size=600), st.integers(0, 0xFFFF), tag_lists, st.integers(0, 7))
def test_resync_after_garbage_at_next_delimiter(garbage, seq, tags, slot):
    frame = wire.encode_frame(wire.TAG, seq, wire.tag(slot, tags))
    d = wire.Decoder()
    out = d.feed(garbage + b"\x00" + frame)
    assert out, "the frame after the delimiter must come through"
    m = wire.parse(out[-1])
    assert m["seq"] == seq and m["slot"] == slot
    assert [(t["uid"], t["identity"]) for t in m["tags"]] == list(tags)


@given(st.binary(min_size=1, max_size=100), st.integers(0, 200), st.integers(0, 7))
def test_corrupted_byte_is_dropped_and_counted(payload, where, flip):
    frame = bytearray(wire.encode_frame(wire.LOG, 1, payload))
    i = where % (len(frame) - 1)
    frame[i] ^= 1 << flip
    if frame[i] == 0:
        return  # the flip made a delimiter: that is a truncation, covered elsewhere
    d = wire.Decoder()
    assert d.feed(bytes(frame)) == []
    assert d.crc_errors + d.cobs_errors + d.short_frames == 1


def test_crc_error_counts_and_next_frame_survives():
    good = wire.encode_frame(wire.HEARTBEAT, 5, wire.heartbeat(1000))
    body = bytearray(wire.cobs_decode(good[:-1]))
    body[5] ^= 0xFF
    bad = wire.cobs_encode(bytes(body)) + b"\x00"
    d = wire.Decoder()
    out = d.feed(bad + good)
    assert [f.seq for f in out] == [5]
    assert d.crc_errors == 1


def test_oversize_run_is_discarded_and_decoder_recovers():
    d = wire.Decoder()
    assert d.feed(b"\x55" * 5000) == []
    assert len(d._buf) == 0
    out = d.feed(b"\x00" + wire.encode_frame(wire.HEARTBEAT, 9, wire.heartbeat(1)))
    assert [f.seq for f in out] == [9]
    assert d.oversize == 1


def test_frame_shorter_than_header_and_crc_is_counted_as_short():
    d = wire.Decoder(report=True)
    short = wire.cobs_encode(b"\x01\x81\x00") + b"\x00"   # a 3-byte body
    good = wire.encode_frame(wire.HEARTBEAT, 6, wire.heartbeat(0))
    out = d.feed(short + good)
    assert out[0] == ("short_frames", len(short) - 1)
    assert [f.seq for f in out[1:]] == [6]
    assert (d.short_frames, d.crc_errors, d.cobs_errors, d.frames) == (1, 0, 0, 1)


def _body_frame(payload_len, filler):
    """A frame whose body (header + payload + CRC) is payload_len + 8 bytes, CRC valid."""
    body = bytes((wire.PROTOCOL_VERSION, wire.LOG, 1, 1)) + filler * payload_len
    body += binascii.crc32(body).to_bytes(4, "big")
    return wire.cobs_encode(body) + b"\x00"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=8), st.integers(1, 300),
       st.integers(0, 0xFFFF))
def test_a_frame_written_in_pieces_is_byte_for_byte_encode_frame(pieces, room, seq):
    payload = b"".join(pieces)
    if len(payload) > wire.MAX_PAYLOAD:
        with pytest.raises(wire.WireError):
            wire.encode_frame_pieces(lambda b: True, bytearray(room), wire.TAG, seq, pieces)
        return
    out = bytearray()
    length = wire.encode_frame_pieces(lambda b: out.extend(b) or True, bytearray(room),
                                      wire.TAG, seq, pieces)
    assert bytes(out) == wire.encode_frame(wire.TAG, seq, payload) and length == len(out)


@pytest.mark.parametrize("filler", [b"\x55", b"\x00"])
def test_the_largest_body_is_exactly_max_frame(filler):
    # "The largest body is 512 bytes (MAX_FRAME)": with or without zeros in it, whatever
    # its COBS form's length.
    d = wire.Decoder()
    largest = _body_frame(wire.MAX_FRAME - 8, filler)
    assert [len(f.payload) for f in d.feed(largest)] == [wire.MAX_PAYLOAD]
    assert d.feed(_body_frame(wire.MAX_FRAME - 7, filler)) == []
    assert d.oversize == 1 and d.frames == 1
    assert [f.seq for f in d.feed(largest)] == [0x101]


def test_the_decoder_buffers_no_more_than_the_cobs_form_of_the_largest_body():
    # "The largest body is 512 bytes (MAX_FRAME); its COBS form at most 515."
    largest = _body_frame(wire.MAX_FRAME - 8, b"\x55")     # no zero anywhere, CRC included
    assert len(largest) == 515 + 1
    d = wire.Decoder()
    d.feed(largest[:-1])
    assert len(d._buf) == 515
    d.feed(b"\x55")    # one byte more cannot be a frame: dropped, not kept
    assert len(d._buf) == 0
    assert d.feed(b"\x00") == [] and d.oversize == 1


def test_a_bug_inside_the_decoder_is_counted_and_the_next_frame_survives():
    d = wire.Decoder(report=True)
    good = wire.encode_frame(wire.HEARTBEAT, 8, wire.heartbeat(0))
    assert d.feed(good[:5]) == []

    def broken(out):
        raise IndexError("a decoder bug")
    d._finish = broken
    # the frame's bytes (all but the delimiter) are dropped
    assert d.feed(good[5:]) == [("decoder_errors", len(good) - 1)]
    assert (d.decoder_errors, d.garbage_bytes, d.frames) == (1, len(good) - 1, 0)
    del d._finish
    assert [f.seq for f in d.feed(good)] == [8]
    plain = wire.Decoder()
    assert plain.feed(None) == [] and plain.decoder_errors == 1


@given(uids, st.tuples(u8, u8, u8), st.integers(0, 0xFFFFFFFF), u8, u8, u8, u8, u8, u8)
def test_hello_round_trip(uid, fw, boot, cells, segs, leds, readers, buttons, pockets):
    if len(uid) > 16:
        return
    p = wire.hello(uid, fw, boot, cells, segs, leds, readers, buttons, pockets, variant="cell")
    m = wire.parse(wire.Frame(wire.PROTOCOL_VERSION, wire.HELLO, 1, p))
    assert m["uid"] == uid and m["firmware"] == fw and m["boot_id"] == boot
    assert (m["cells"], m["segments"], m["leds_per_segment"], m["readers"], m["buttons"],
            m["dice_pockets"]) == (cells, segs, leds, readers, buttons, pockets)
    assert m["variant"] == "cell" and m["protocol"] == wire.PROTOCOL_VERSION


@given(st.lists(st.tuples(u8, st.binary(min_size=wire.SCENE_BYTES, max_size=wire.SCENE_BYTES)),
                max_size=wire.MAX_SCENE_CELLS))
def test_led_scene_round_trip(cells):
    m = wire.parse(wire.Frame(1, wire.LED_SCENE, 2, wire.led_scene(cells)))
    assert [(c["cell"], c["scene"]) for c in m["cells"]] == cells


@given(st.integers(0, 0xFFFFFFFF), st.lists(st.tuples(u8, tag_lists), max_size=8),
       st.lists(st.tuples(u8, st.one_of(st.none(), st.tuples(uids, identities))), max_size=3))
def test_snapshot_round_trip(uptime, slots, pockets):
    m = wire.parse(wire.Frame(1, wire.SNAPSHOT, 3, wire.snapshot(uptime, slots, pockets)))
    assert m["uptime_ms"] == uptime
    assert [(s["slot"], [(t["uid"], t["identity"]) for t in s["tags"]]) for s in m["slots"]] \
        == slots
    assert [(p["pocket"], None if p["die"] is None else (p["die"]["uid"], p["die"]["identity"]))
            for p in m["pockets"]] == pockets


def test_small_messages_round_trip():
    def rt(t, payload):
        return wire.parse(wire.Frame(1, t, 4, payload))
    assert rt(wire.GESTURE, wire.gesture(2, wire.HOLD))["gesture"] == "hold"
    assert rt(wire.DICE, wire.dice(1, None))["die"] is None
    assert rt(wire.DICE, wire.dice(1, (b"\x01\x02\x03\x04", b"d6:5")))["die"]["identity"] == b"d6:5"
    assert rt(wire.ACK, wire.ack(0x1234, wire.ACK_BAD_PAYLOAD)) == {
        "type": "ack", "seq": 4, "ack": 0x1234, "status": "bad_payload"}
    assert rt(wire.HEARTBEAT, wire.heartbeat(77))["uptime_ms"] == 77
    assert rt(wire.LOG, wire.log(3, "reader 2 hung"))["text"] == "reader 2 hung"
    assert rt(wire.LED_BRIGHTNESS, wire.led_brightness(128))["level"] == 128
    assert rt(wire.SET_CONFIG, wire.set_config(wire.CONFIG_ARRIVE_POLLS, 3)) == {
        "type": "set_config", "seq": 4, "key": "arrive_polls", "value": 3}
    h = rt(wire.HEALTH, wire.health(5000, [(True, 1, 0), (False, 9, 2)], 3, 40, 1, 30000, 12))
    assert h["readers"][1] == {"ok": False, "errors": 9, "reinits": 2}
    assert (h["rx_crc_errors"], h["resends"], h["heap_free"]) == (3, 1, 30000)
    for t in (wire.HELLO_REQUEST, wire.SNAPSHOT_REQUEST, wire.REBOOT):
        assert rt(t, b"")["type"] == wire.TYPE_NAMES[t]


@given(u8, uids, st.binary(min_size=16, max_size=16), st.integers(0, 0xFFFF))
def test_write_identity_round_trip(slot, uid, record, seq):
    frame = wire.Decoder().feed(wire.encode_frame(wire.WRITE_IDENTITY, seq,
                                                  wire.write_identity(slot, uid, record)))[0]
    assert wire.parse(frame) == {"type": "write_identity", "seq": seq, "slot": slot,
                                 "uid": uid, "record": record}


@given(st.integers(0, 0xFFFF), u8, st.booleans(), uids,
       st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=64))
def test_write_result_round_trip(answered_seq, slot, ok, uid, reason):
    m = wire.parse(wire.Frame(1, wire.WRITE_RESULT, 9,
                              wire.write_result(answered_seq, slot, ok, uid, reason)))
    assert m == {"type": "write_result", "seq": 9, "ack": answered_seq, "slot": slot,
                 "ok": ok, "uid": uid, "reason": reason}


def test_identity_writes_are_acknowledged_and_announced_by_a_capability_bit():
    assert wire.WRITE_IDENTITY in wire.ACKED and wire.WRITE_RESULT in wire.ACKED
    assert 0x40 <= wire.WRITE_IDENTITY <= 0x7F and 0x01 <= wire.WRITE_RESULT <= 0x3F
    caps = (wire.CAP_IDENTITY, wire.CAP_WATCHDOG, wire.CAP_WRITE_IDENTITY)
    assert len(set(caps)) == 3 and all(c & (c - 1) == 0 for c in caps)


def test_a_long_reason_is_cut_to_fit_the_message():
    m = wire.parse(wire.Frame(1, wire.WRITE_RESULT, 1,
                              wire.write_result(3, 0, False, b"\x01\x02\x03\x04", "x" * 300)))
    assert m["reason"] == "x" * 64


@given(st.text(max_size=300), st.sampled_from(["é", "☕", "𝄞", "x"]), st.integers(0, 3))
def test_long_text_is_cut_between_characters_never_inside_one(text, wide, skew):
    text = "x" * skew + wide * 130 + text
    reason = wire.parse(wire.Frame(1, wire.WRITE_RESULT, 1, wire.write_result(
        3, 0, False, b"\x01\x02\x03\x04", text)))["reason"]
    log = wire.parse(wire.Frame(1, wire.LOG, 1, wire.log(2, text)))["text"]
    for shown, limit in ((reason, 64), (log, wire.MAX_PAYLOAD - 1)):
        if len(text.encode()) <= limit:
            assert shown == text
        else:   # as much as fits: a character is at most 4 bytes
            assert text.startswith(shown) and limit - 4 < len(shown.encode()) <= limit


@pytest.mark.parametrize("t,payload,words", [
    (wire.WRITE_IDENTITY, b"", "write_identity: payload ends inside slot"),
    (wire.WRITE_IDENTITY, b"\x00\x07\x04\x01\x02", "payload ends inside uid"),
    (wire.WRITE_IDENTITY, b"\x00\x05\x04\x01\x02\x03\x04" + bytes(16),
     "write_identity: uid of 5 bytes is not 4, 7 or 10"),
    (wire.WRITE_IDENTITY, b"\x00\x0b" + bytes(11) + bytes(16), "uid of 11 bytes exceeds 10"),
    (wire.WRITE_IDENTITY, b"\x00\x04\x01\x02\x03\x04" + bytes(15),
     "payload ends inside record"),
    (wire.WRITE_IDENTITY, b"\x00\x04\x01\x02\x03\x04" + bytes(17),
     "write_identity: 1 unexpected bytes"),
    (wire.WRITE_RESULT, b"\x00\x05\x00\x02\x00\x00", "write_result: ok 2 is not 0 or 1"),
    (wire.WRITE_RESULT, b"\x00\x05\x00\x01\x04\x01\x02\x03\x04\x41" + b"x" * 65,
     "reason of 65 bytes"),
])
def test_malformed_identity_write_is_a_clear_wire_error(t, payload, words):
    with pytest.raises(wire.WireError, match=words):
        wire.parse(wire.Frame(1, t, 1, payload))


@pytest.mark.parametrize("t,payload,words", [
    (wire.TAG, b"\x01\x01\x08\x01", "payload ends inside uid"),
    (wire.TAG, b"\x01\x0d", "13 tags exceed"),
    (wire.GESTURE, b"\x01\x09", "unknown kind 9"),
    (wire.ACK, b"\x00\x01\x00\x00", "1 unexpected bytes"),
    (0x3F, b"", "unknown message type 0x3f"),
    (wire.LED_SCENE, b"\x01\x00\x07", "payload ends inside scene"),
    (wire.LED_SCENE, b"\x09", "9 cells exceed 8"),
])
def test_malformed_payload_is_a_clear_wire_error(t, payload, words):
    with pytest.raises(wire.WireError, match=words):
        wire.parse(wire.Frame(1, t, 1, payload))


BAD_UID = b"\x04\x01\x02\x03\x04"   # 5 bytes: no ISO 14443-3A UID has that size


@pytest.mark.parametrize("t,payload,words", [
    (wire.TAG, wire.tag(2, [(BAD_UID, None)]), "tag: uid of 5 bytes is not 4, 7 or 10"),
    (wire.TAG, wire.tag(2, [(b"\x01" * 4, None), (b"", b"x")]),
     "tag: uid of 0 bytes is not 4, 7 or 10"),
    (wire.DICE, wire.dice(1, (b"\x01" * 8, b"d6:5")), "dice: uid of 8 bytes is not 4, 7 or 10"),
    (wire.SNAPSHOT, wire.snapshot(5, [(0, [(b"\x01\x02\x03", None)])], []),
     "snapshot: uid of 3 bytes is not 4, 7 or 10"),
    (wire.SNAPSHOT, wire.snapshot(5, [], [(0, (b"\x01" * 9, None))]),
     "snapshot: uid of 9 bytes is not 4, 7 or 10"),
    (wire.WRITE_RESULT, wire.write_result(3, 0, True, BAD_UID, "written"),
     "write_result: uid of 5 bytes is not 4, 7 or 10"),
])
def test_tag_uids_are_4_7_or_10_bytes_in_every_message(t, payload, words):
    with pytest.raises(wire.WireError, match=words):
        wire.parse(wire.Frame(1, t, 1, payload))


NOT_UTF8 = b"\xff\xfe\x80"


@pytest.mark.parametrize("t,payload,field", [
    (wire.LOG, b"\x02" + NOT_UTF8, "text"),
    (wire.HELLO, wire.hello(b"\x01" * 8, (0, 1, 0), 1, 7, 4, 6, 7, 7, 0)[:-5] + b"\x03" + NOT_UTF8,
     "variant"),
    (wire.WRITE_RESULT, wire.write_result(3, 0, False, b"\x01" * 4, "")[:-1] + b"\x03" + NOT_UTF8,
     "reason"),
])
def test_text_that_is_not_utf8_is_shown_as_hex_not_raised(t, payload, field):
    m = wire.parse(wire.Frame(1, t, 1, payload))
    assert m[field] == "<3 bytes not UTF-8: fffe80>"


SAMPLE_PAYLOADS = {
    wire.HELLO: wire.hello(b"\xe6\x61\x41\x04", (0, 1, 0), 9, 8, 4, 5, 8, 8, 0, variant="dice"),
    wire.SNAPSHOT: wire.snapshot(1, [(0, [(b"\x04" * 7, b"card:1")]), (1, [])],
                                 [(0, None), (1, (b"\x01" * 4, b"d6:2"))]),
    wire.TAG: wire.tag(3, [(b"\x04" * 7, b"card:17"), (b"\x01" * 10, None)]),
    wire.GESTURE: wire.gesture(1, wire.TAP),
    wire.DICE: wire.dice(2, (b"\x01" * 4, b"d6:1")),
    wire.HEALTH: wire.health(5, [(True, 1, 2)], 1, 2, 3, 4, 5),
    wire.LOG: wire.log(1, "réader 2 ☕"),
    wire.WRITE_RESULT: wire.write_result(40, 2, False, b"\x04" * 7, "no answer"),
    wire.LED_SCENE: wire.led_scene([(1, bytes(24))]),
    wire.LED_BRIGHTNESS: wire.led_brightness(9),
    wire.SET_CONFIG: wire.set_config(wire.CONFIG_GONE_POLLS, 3),
    wire.WRITE_IDENTITY: wire.write_identity(2, b"\x04" * 7, bytes(16)),
    wire.FIELD_NEIGHBOURS: wire.field_neighbours([0b10, 0b101, 0b10]),
    wire.ACK: wire.ack(3),
    wire.HEARTBEAT: wire.heartbeat(0),
}


def test_field_neighbours_round_trip_and_refuse_more_than_eight_slots():
    masks = [0b10, 0b101, 0b1010, 0b100]
    frame = wire.Frame(1, wire.FIELD_NEIGHBOURS, 7, wire.field_neighbours(masks))
    assert wire.parse(frame)["masks"] == masks
    with pytest.raises(wire.WireError, match="9 slots exceed 8"):
        wire.field_neighbours([0] * 9)
    with pytest.raises(wire.WireError, match="9 slots exceed 8"):
        wire.parse(wire.Frame(1, wire.FIELD_NEIGHBOURS, 7, bytes([9]) + bytes(9)))
    with pytest.raises(wire.WireError, match="payload ends inside masks"):
        wire.parse(wire.Frame(1, wire.FIELD_NEIGHBOURS, 7, bytes([3, 1])))


def test_every_message_type_has_a_sample_payload():
    assert set(SAMPLE_PAYLOADS) | {wire.HELLO_REQUEST, wire.SNAPSHOT_REQUEST, wire.REBOOT} == \
        set(wire.TYPE_NAMES)


# A payload near a valid one (cut, with bytes inserted or replaced) reaches deep into the
# parsers, where plain random bytes stop at the first count.
near_valid = st.sampled_from(sorted(SAMPLE_PAYLOADS.items())).flatmap(
    lambda item: st.tuples(st.just(item[0]), st.integers(0, len(item[1])), st.binary(max_size=24),
                           st.integers(0, len(item[1]))).map(
        lambda c: (c[0], item[1][:c[1]] + c[2] + item[1][c[3]:])))
any_type = st.tuples(st.integers(0, 255), st.binary(max_size=600))


@settings(max_examples=400)
@given(st.one_of(st.just(wire.PROTOCOL_VERSION), u8), st.one_of(near_valid, any_type),
       st.integers(0, 0xFFFF))
def test_any_payload_of_any_type_parses_or_is_a_wire_error_in_words(version, typed, seq):
    msg_type, payload = typed
    try:
        m = wire.parse(wire.Frame(version, msg_type, seq, payload))
    except wire.WireError as e:     # never IndexError, struct.error, UnicodeError, TypeError
        assert len(str(e)) > 10
        return
    assert (m["type"], m["seq"]) == (wire.TYPE_NAMES[msg_type], seq)


def test_other_protocol_version_is_refused_by_name():
    with pytest.raises(wire.WireError, match="protocol version 9 is not supported"):
        wire.parse(wire.Frame(9, wire.HEARTBEAT, 1, wire.heartbeat(0)))


def test_builders_refuse_out_of_range_fields():
    with pytest.raises(wire.WireError, match="13 tags exceed the 12 per slot"):
        wire.tag(0, [(b"\x01\x02\x03\x04", None)] * 13)
    # The Dragon Inn's card, ten tokens and one more: twelve tags in one TAG.
    twelve = [(bytes((4, 1, 2, 3, 4, 5, k)), bytes(12)) for k in range(12)]
    assert len(wire.parse(wire.Frame(wire.PROTOCOL_VERSION, wire.TAG, 1,
                                     wire.tag(0, twelve)))["tags"]) == 12
    # A Fight Club wagon's five creatures and one too many still fit one TAG.
    six = [(bytes((4, 1, 2, 3, 4, 5, k)), b"fc:c0%d" % k) for k in range(6)]
    assert len(wire.parse(wire.Frame(wire.PROTOCOL_VERSION, wire.TAG, 1,
                                     wire.tag(0, six)))["tags"]) == 6
    with pytest.raises(wire.WireError, match="scene is 3 bytes, not 24"):
        wire.led_scene([(0, b"abc")])
    with pytest.raises(wire.WireError, match="slot 300"):
        wire.gesture(300, wire.TAP)


def test_describe_is_one_readable_line():
    from host.link.sniff import describe
    m = wire.parse(wire.Frame(1, wire.TAG, 12, wire.tag(5, [(b"\x04\xa1\xb2\xc3", None)])))
    assert describe(m) == "tag #12 slot=5 tags=[{identity=None uid=04a1b2c3}]"
    m = wire.parse(wire.Frame(1, wire.WRITE_RESULT, 13, wire.write_result(
        40, 2, False, b"\x04\xa1\xb2\xc3", "read-only tag: NAK on page 4")))
    assert describe(m) == ("write_result #13 ack=40 ok=False reason='read-only tag: NAK on "
                           "page 4' slot=2 uid=04a1b2c3")
