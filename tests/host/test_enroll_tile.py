"""Enrollment through a tile's reader: the real firmware under MicroPython on the virtual
table, spoken to over its pseudo-terminal with pyserial (by the host link, and frame by
frame), and the host's tag registry judging what the tiles then read.
"""

import asyncio
import time

import pytest
from mpy import requires_micropython
from test_firmware_loop_micropython import Host
from vtable_helpers import wait_event

from shared_rules.tag_identity import record as identity_record
from host.link import LinkError, TableLink
from host.table import tags
from shared_rules import wire

pytestmark = requires_micropython

KEY = b"installation key for the tests!!"
CROCODILE = "storybook:the_crocodile"
RABBIT = "storybook:the_white_rabbit"


@pytest.fixture
def registry(tmp_path):
    return tags.Registry(KEY, str(tmp_path / "tags.db"))


def run(table, scenario):
    async def main():
        link = TableLink(ports=table.ports())
        await link.start()
        try:
            await wait_event(link, lambda e: e.kind == "online")
            await scenario(link, table.tiles[0].uid)
        finally:
            await link.stop()
    asyncio.run(main())


def tags_on(slot, uid):
    return lambda e: e.kind == "tags" and e.slot == slot and uid.hex() in dict(e.tags)


def test_card_enrolled_on_a_tile_reader_is_recognised_on_another_cell(table, tile, registry):
    uid = tags.virtual_uid(CROCODILE)
    record = identity_record(registry.identity_for(uid, CROCODILE))

    async def scenario(link, tile_uid):
        assert link.tiles[tile_uid].hello["flags"] & wire.CAP_WRITE_IDENTITY
        await asyncio.to_thread(tile.place, 0, uid.hex())          # a blank tag
        ev = await wait_event(link, tags_on(0, uid))
        assert dict(ev.tags)[uid.hex()] is None
        result = await link.write_identity(tile_uid, 0, uid, record)
        assert (result.ok, result.reason, result.slot, result.uid) == (True, "written", 0,
                                                                       uid.hex())
        # The tile read the new identity from the tag and reported it on the slot at once.
        ev = await wait_event(link, lambda e: tags_on(0, uid)(e) and dict(e.tags)[uid.hex()])
        assert registry.resolve(uid, dict(ev.tags)[uid.hex()]) == CROCODILE
        # The tag itself holds the record: lifted, and put down on cell 3 as it is.
        held = await asyncio.to_thread(tile.lift, 0, uid.hex())
        assert held == record
        await asyncio.to_thread(tile.place, 3, uid.hex(), pages=held)
        ev = await wait_event(link, tags_on(3, uid))
        assert registry.resolve(uid, dict(ev.tags)[uid.hex()]) == CROCODILE
    run(table, scenario)


def test_read_only_tag_is_refused_by_the_tile_and_enrolled_by_uid(table, tile, registry):
    uid = bytes.fromhex("04d1e2f3a4b5c6")

    async def scenario(link, tile_uid):
        await asyncio.to_thread(tile.place, 1, uid.hex(), read_only=True)
        await wait_event(link, tags_on(1, uid))
        record = identity_record(registry.identity_for(uid, "pawn:red"))
        result = await link.write_identity(tile_uid, 1, uid, record)
        assert not result.ok and result.read_only
        assert result.reason.startswith("read-only tag: NAK on page 4"), result.reason
        registry.enroll_uid(uid, "pawn:red")
        assert registry.resolve(uid, link.tiles[tile_uid].slots[1][0][1]) == "pawn:red"
        held = await asyncio.to_thread(tile.lift, 1, uid.hex())
        assert held == bytes(16)                    # nothing was written
    run(table, scenario)


def test_copied_or_edited_identity_is_refused_as_forged(table, tile, registry):
    genuine = tags.virtual_uid(RABBIT)
    copy = bytes.fromhex("04ee0000000001")
    record = identity_record(registry.identity_for(genuine, RABBIT))

    async def scenario(link, tile_uid):
        await asyncio.to_thread(tile.place, 0, genuine.hex())
        await wait_event(link, tags_on(0, genuine))
        assert (await link.write_identity(tile_uid, 0, genuine, record)).ok
        held = await asyncio.to_thread(tile.lift, 0, genuine.hex())
        # The enrolled record copied byte for byte onto another tag.
        await asyncio.to_thread(tile.place, 1, copy.hex(), pages=held)
        ev = await wait_event(link, tags_on(1, copy))
        with pytest.raises(tags.TagRefused) as refused:
            registry.resolve(copy, dict(ev.tags)[copy.hex()])
        assert refused.value.code == "forged" and "did not write" in refused.value.message
        # The genuine tag edited to be another card (its item code changed, MAC kept).
        edited = bytearray(held)
        edited[5:8] = tags.item_code(CROCODILE)
        await asyncio.to_thread(tile.place, 2, genuine.hex(), pages=bytes(edited))
        ev = await wait_event(link, tags_on(2, genuine))
        with pytest.raises(tags.TagRefused) as refused:
            registry.resolve(genuine, dict(ev.tags)[genuine.hex()])
        assert refused.value.code == "forged"
    run(table, scenario)


def test_write_to_an_empty_reader_fails_in_words_and_the_tile_keeps_reading(table, tile,
                                                                             registry):
    uid = bytes.fromhex("04aa0000000077")
    record = identity_record(registry.identity_for(uid, "pawn:blue"))

    async def scenario(link, tile_uid):
        result = await link.write_identity(tile_uid, 2, uid, record)
        assert (result.ok, result.reason, result.tile_reason) == (False, "tag not in field",
                                                                  "no answer")
        await asyncio.to_thread(tile.place, 2, uid.hex())
        ev = await wait_event(link, tags_on(2, uid))
        assert dict(ev.tags)[uid.hex()] is None     # still blank: nothing was written
    run(table, scenario)


def test_bad_requests_are_refused_before_anything_is_sent(table, tile, registry):
    uid = bytes.fromhex("04aa0000000078")
    record = identity_record(registry.identity_for(uid, "pawn:blue"))

    async def scenario(link, tile_uid):
        with pytest.raises(ValueError, match="has 4 readers; there is no slot 4"):
            await link.write_identity(tile_uid, 4, uid, record)
        with pytest.raises(ValueError, match="no tile 00ff has said hello"):
            await link.write_identity("00ff", 0, uid, record)
        with pytest.raises(ValueError, match="record is 12 bytes, not 16"):
            await link.write_identity(tile_uid, 0, uid, record[:12])
        with pytest.raises(ValueError, match="uid of 3 bytes: 04aa00"):
            await link.write_identity(tile_uid, 0, uid[:3], record)
        assert link.pending_commands(tile_uid) == []
        # A tile whose HELLO does not announce the capability (older firmware) is not asked.
        hello = link.tiles[tile_uid].hello
        hello["flags"] &= ~wire.CAP_WRITE_IDENTITY
        with pytest.raises(LinkError, match="cannot write tag identities"):
            await link.write_identity(tile_uid, 0, uid, record)
        hello["flags"] |= wire.CAP_WRITE_IDENTITY
    run(table, scenario)


def test_a_tile_that_does_not_answer_gives_a_clear_error_in_time(table, tile, registry):
    uid = bytes.fromhex("04aa0000000079")
    record = identity_record(registry.identity_for(uid, "pawn:blue"))

    async def scenario(link, tile_uid):
        await asyncio.to_thread(tile.deaf, 1500)
        with pytest.raises(LinkError, match="gave no result for the write to slot 0 within 0.5 s"):
            await link.write_identity(tile_uid, 0, uid, record, timeout=0.5)
        assert link.pending_commands(tile_uid) == []   # not resent after the host gave up
        # Once the tile hears again, writes work again.
        await asyncio.sleep(1.5)
        result = await link.write_identity(tile_uid, 0, uid, record)
        assert (result.ok, result.reason) == (False, "tag not in field")
    run(table, scenario)


# ---------------------------------------------------------------- frame by frame

@pytest.fixture
def host(table):
    h = Host(table.tiles[0].port)
    h.ser.write(b"\x00")
    h.send(wire.HELLO_REQUEST)
    h.wait(lambda m: m["type"] == "hello", "hello")
    yield h
    h.ser.close()


def test_write_to_a_missing_slot_answers_no_such_slot_and_the_tile_keeps_working(tile, host):
    seq = host.send(wire.WRITE_IDENTITY, wire.write_identity(9, b"\x04" * 7, bytes(16)))
    result = host.wait(lambda m: m["type"] == "write_result", "write result")
    assert (result["ack"], result["slot"], result["ok"], result["reason"]) == \
        (seq, 9, False, "no such slot")
    host.wait(lambda m: m["type"] == "ack" and m["ack"] == seq, "ack")
    tile.place(3, "04bb0000000003")
    host.wait(lambda m: m["type"] == "tag" and m["slot"] == 3 and m["tags"], "tag on 3")


def test_malformed_write_is_refused_in_the_ack_and_writes_nothing(tile, host):
    uid = "04bb0000000004"
    tile.place(1, uid)
    host.wait(lambda m: m["type"] == "tag" and m["slot"] == 1 and m["tags"], "tag on 1")
    # A 5-byte uid, and a record one byte short.
    for seq, payload in ((501, b"\x01\x05" + bytes.fromhex(uid)[:5] + b"FT\x01\x00" + bytes(12)),
                         (502, b"\x01\x07" + bytes.fromhex(uid) + b"FT\x01\x00" + bytes(11))):
        host.ser.write(wire.encode_frame(wire.WRITE_IDENTITY, seq, payload))
        ack = host.wait(lambda m, seq=seq: m["type"] == "ack" and m["ack"] == seq, "ack")
        assert ack["status"] == "bad_payload"
    time.sleep(0.3)
    assert not [m for m in host.pump() + host.unread if m["type"] == "write_result"]
    assert tile.lift(1, uid) == bytes(16)


def test_a_resent_write_is_carried_out_once(tile, host, registry):
    uid = bytes.fromhex("04bb0000000005")
    tile.place(0, uid.hex())
    host.wait(lambda m: m["type"] == "tag" and m["slot"] == 0 and m["tags"], "tag on 0")
    frame = wire.encode_frame(wire.WRITE_IDENTITY, 600, wire.write_identity(
        0, uid, identity_record(registry.identity_for(uid, "die:1:3"))))
    host.ser.write(frame)
    host.wait(lambda m: m["type"] == "ack" and m["ack"] == 600, "ack")
    host.ser.write(frame)                        # the host did not hear the ack: resends
    host.wait(lambda m: m["type"] == "ack" and m["ack"] == 600, "second ack")
    time.sleep(0.5)
    results = [m for m in host.log if m["type"] == "write_result"]
    assert [(r["ack"], r["ok"]) for r in results] == [(600, True)]
    tags_msgs = [m for m in host.log if m["type"] == "tag" and m["slot"] == 0]
    assert registry.resolve(uid, tags_msgs[-1]["tags"][0]["identity"]) == "die:1:3"


def test_enrollment_leaves_the_tile_its_heap(table):
    # After the writes above, the 64 KB tile still has room: a qstr pool spilled by new
    # names (about 7.5 KB) or a leak per write would show here. (A 4-cell tile has about
    # 10 KB free with tags on it.)
    stats = table.tiles[0].stats()
    assert stats["heap_free"] > 8192, stats
    assert stats["failures"] == 0, stats
