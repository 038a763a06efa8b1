"""The formats both ends share: the LED scene bytes and the tag identity record with its MAC.

Written to run under MicroPython too (tests/mpy_run_tests.py): a tile and the host must
read these bytes the same way.
"""

from binascii import unhexlify

import pytest

from shared_rules import led_scene, tag_identity, tag_mac, wire
from shared_rules.led_scene import CHASE, CHASE_RING, OFF, SOLID, VALUE

KEY = bytes(range(32))
UID = b"\x04\x11\x22\x33\x44\x55\x66"
CARD_BODY = b"C\x12\x34\x56"


# -- LED scenes --------------------------------------------------------------------------

def test_a_segment_is_effect_colour_and_two_parameters():
    assert led_scene.segment(VALUE, (255, 10, 0), 3, 32) == bytes((5, 255, 10, 0, 3, 32))
    assert len(led_scene.segment(OFF)) == led_scene.SEGMENT_BYTES == 6


def test_a_cell_scene_lists_its_edges_north_east_south_west_and_none_is_off():
    north = led_scene.segment(SOLID, (1, 2, 3))
    west = led_scene.segment(CHASE, (4, 5, 6), 25, 2 | CHASE_RING)
    scene = led_scene.cell_scene(north, None, None, west)
    assert len(scene) == led_scene.CELL_SCENE_BYTES == 24
    assert scene[0:6] == north and scene[18:24] == west
    assert scene[6:18] == bytes(12)


def test_a_segment_of_the_wrong_size_is_refused():
    with pytest.raises(ValueError):
        led_scene.cell_scene(b"\x01\x02")


def test_a_uniform_scene_is_one_segment_on_all_four_edges():
    seg = led_scene.segment(SOLID, (9, 8, 7))
    assert led_scene.uniform_scene(SOLID, (9, 8, 7)) == led_scene.cell_scene(seg, seg, seg, seg)


def test_effect_names_give_their_ids():
    assert [led_scene.effect_id(n) for n in ("off", "solid", "blink", "pulse", "chase",
                                             "value", "rainbow")] == \
        [led_scene.OFF, led_scene.SOLID, led_scene.BLINK, led_scene.PULSE, led_scene.CHASE,
         led_scene.VALUE, led_scene.RAINBOW]


def test_an_unknown_effect_name_is_refused_in_words():
    with pytest.raises(ValueError) as e:
        led_scene.effect_id("sparkle")
    assert "sparkle" in str(e.value)


# -- the identity record -----------------------------------------------------------------

def test_a_record_is_magic_version_length_then_the_identity():
    rec = tag_identity.record(b"knight")
    assert len(rec) == tag_identity.RECORD_BYTES == 16
    assert rec[:4] == b"FT\x01\x06" and rec[4:10] == b"knight" and rec[10:] == bytes(6)
    assert tag_identity.parse(rec) == b"knight"
    assert tag_identity.parse(tag_identity.record(b"")) == b""


def test_an_identity_longer_than_twelve_bytes_does_not_fit_the_pages():
    with pytest.raises(ValueError):
        tag_identity.record(b"x" * 13)


def test_pages_without_a_record_parse_to_none():
    rec = tag_identity.record(b"knight")
    assert tag_identity.parse(None) is None
    assert tag_identity.parse(bytes(16)) is None                 # a blank tag
    assert tag_identity.parse(rec[:3]) is None                   # too short for a header
    assert tag_identity.parse(b"FX" + rec[2:]) is None           # another magic
    assert tag_identity.parse(rec[:2] + b"\x02" + rec[3:]) is None   # another version
    assert tag_identity.parse(rec[:3] + b"\x0d" + rec[4:]) is None   # 13 bytes claimed


# -- the identity and its MAC ------------------------------------------------------------

def test_hmac_sha256_gives_the_rfc_4231_values():
    cases = [(b"\x0b" * 20, b"Hi There",
              "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
             (b"Jefe", b"what do ya want for nothing?",
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
             (b"\xaa" * 131, b"Test Using Larger Than Block-Size Key - Hash Key First",
              "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")]
    for key, message, want in cases:
        assert tag_mac.hmac_sha256(key, message) == unhexlify(want)


def test_the_mac_covers_the_uid_and_the_body():
    assert tag_mac.mac(KEY, UID, CARD_BODY) == \
        tag_mac.hmac_sha256(KEY, b"FT1" + UID + CARD_BODY)[:8]


def test_a_signed_identity_checks_on_its_own_tag_with_its_own_key():
    identity = tag_mac.sign(KEY, UID, CARD_BODY)
    assert len(identity) == tag_mac.IDENTITY_BYTES and identity[:4] == CARD_BODY
    assert tag_mac.check(KEY, UID, identity) == "ok"


def test_an_identity_copied_to_another_tag_or_edited_or_of_another_key_is_forged():
    identity = tag_mac.sign(KEY, UID, CARD_BODY)
    assert tag_mac.check(KEY, b"\x04" + bytes(6), identity) == "forged"
    assert tag_mac.check(bytes(32), UID, identity) == "forged"
    edited = identity[:1] + b"\x99" + identity[2:]
    assert tag_mac.check(KEY, UID, edited) == "forged"
    last = identity[:11] + bytes((identity[11] ^ 1,))
    assert tag_mac.check(KEY, UID, last) == "forged"


def test_bytes_that_are_no_identity_say_so():
    identity = tag_mac.sign(KEY, UID, CARD_BODY)
    assert tag_mac.check(KEY, UID, identity[:11]) == "not_identity"
    assert tag_mac.check(KEY, UID, b"X" + identity[1:]) == "not_identity"
    assert tag_mac.check(KEY, UID, b"") == "not_identity"


def _written_in_pieces(pieces, room, seq=0x1234):
    out = []
    length = wire.encode_frame_pieces(lambda b: out.append(bytes(b)) or True, bytearray(room),
                                      wire.TAG, seq, pieces)
    return b"".join(out), length, max(len(b) for b in out)


def test_a_frame_written_in_pieces_is_the_frame_encode_frame_makes():
    # A tile sends a payload longer than its buffer from short pieces (a TAG of twelve tags):
    # the bytes on the line are encode_frame's, whatever the pieces and the buffer, with runs
    # of 254 bytes and more without a zero, zeros at the ends, an empty piece.
    payloads = [b"", b"\x00", b"\x00" * 300, bytes(range(1, 256)) * 2,
                bytes((7,)) * 253, bytes((7,)) * 254, bytes((7,)) * 255,
                bytes((9,)) * 254 + b"\x00" + bytes((9,)) * 249, bytes(range(256)) * 2]
    for payload in payloads:
        payload = payload[:wire.MAX_PAYLOAD]
        want = wire.encode_frame(wire.TAG, 0x1234, payload)
        for cut in (1, 13, 254, 600):
            pieces = [payload[i:i + cut] for i in range(0, len(payload), cut)] + [b""]
            for room in (1, 5, 170):
                got, length, longest = _written_in_pieces(pieces, room)
                assert got == want and length == len(want), (len(payload), cut, room)
                assert longest <= room


def test_twelve_tags_go_in_pieces_that_join_to_the_tag():
    tags = [(bytes((4, k, 1, 2, 3, 4, 5)), bytes((k + 1,)) * 12) for k in range(12)]
    tags[3] = (bytes((4, 3, 1, 2)), None)
    pieces = [bytes((5,))] + wire._tags(tags)     # as a tile's report_slot makes them
    assert b"".join(pieces) == wire.tag(5, tags)
    assert max(len(p) for p in pieces) <= 13
    got, length, _ = _written_in_pieces(pieces, 150)
    assert got == wire.encode_frame(wire.TAG, 0x1234, wire.tag(5, tags))
    with pytest.raises(wire.WireError):
        wire._tags(tags + tags[:1])


def test_a_failed_write_in_a_frame_written_in_pieces_says_so():
    calls = []

    def write(b):
        calls.append(len(b))
        return len(calls) != 2
    assert wire.encode_frame_pieces(write, bytearray(16), wire.TAG, 1, [bytes(100)]) == 0
    assert len(calls) > 2       # the rest is written: the host drops the damaged frame
