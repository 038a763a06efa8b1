"""Tiles that misbehave, played by fake tiles on real pseudo-terminals (tests/vtable_helpers.py,
FakeTile: the real codec, opened by the host with pyserial as it opens /dev/ttyACM0).

One misbehaving tile must never stop the host, nor feed it stale or foreign state: a
cloned unique id, another tile on a known port, another protocol version, a flood,
events beyond what its HELLO announced, frames of types the host does not know.
"""

import asyncio
import binascii
import logging

import pytest
from vtable_helpers import FakeTile, drain, red_scene, wait_event, wait_for

from shared_rules.led_scene import SOLID, uniform_scene
from host.link import LinkTimings, TableLink
from shared_rules import wire

UID = "e661410400000101"
OTHER = "e661410400000202"


class Quick(LinkTimings):
    unusable_retry_s = 0.1      # re-ask refused ports often: a test sees many refusals soon


class Strict(TableLink):
    """Small flood budgets that refill slowly: one flood stays one flood for the test."""

    gesture_rate, gesture_burst = 2.0, 10
    log_rate, log_burst = 2.0, 10
    state_rate, state_burst = 5.0, 20


def run_link(ports, scenario, timings=None, link_class=TableLink, close=()):
    """Run ``scenario(link)`` on a link to ``ports``; close the fake tiles in ``close``
    afterwards, whatever happened."""
    try:
        _run_link(ports, scenario, timings, link_class)
    finally:
        for fake in close:
            fake.close()


def _run_link(ports, scenario, timings, link_class):
    async def main():
        link = link_class(ports=ports, timings=timings or Quick())
        await link.start()
        try:
            await scenario(link)
        finally:
            await link.stop()
    asyncio.run(main())


def online(uid):
    return lambda e: e.kind == "online" and e.tile == uid


def green_scene():
    return uniform_scene(SOLID, (0, 200, 0))


# ---------------------------------------------------------------- a cloned unique id

def test_a_cloned_unique_id_on_a_second_port_is_refused_until_the_first_goes_away():
    first = FakeTile(UID)
    clone = FakeTile(UID, answer=False)

    async def scenario(link):
        seen = []
        await wait_event(link, online(UID), seen=seen)
        assert link.tiles[UID].port == first.port
        clone.answer = True
        ev = await wait_event(link, lambda e: e.kind == "problem", seen=seen)
        assert (ev.code, ev.tile, ev.port) == ("clone", UID, clone.port)
        assert first.port in ev.detail and clone.port in ev.detail and "unplug one" in ev.detail
        # The clone is asked again now and then and refused each time: the tile stays put.
        asked = clone.count("hello_request")
        await wait_for(lambda: clone.count("hello_request") >= asked + 5, what="re-asked")
        ignored = clone.tag(2, ["04000000000b02"])
        first.tag(1, ["04000000000a01"])
        ev = await wait_event(link, lambda e: e.kind == "tags", seen=seen)
        assert (ev.tile, ev.slot) == (UID, 1)
        await wait_for(lambda: ignored in clone.acks, what="the clone's tag acked")
        seen += await drain(link)
        state = link.tiles[UID]
        assert 2 not in state.slots            # what the clone says is not the tile's
        assert [e.kind for e in seen if e.kind in ("online", "offline", "problem")] == \
            ["online", "problem"]
        assert state.port == first.port and state.health["conflicts"] == 1
        assert link.conflicts == {clone.port: {"uid": UID, "owner": first.port}}
        # The first board is unplugged: the second one takes over as the tile.
        first.close()
        ev = await wait_event(link, online(UID), seen=seen)
        assert ev.detail == "reconnect" and link.tiles[UID].port == clone.port
        assert link.conflicts == {}
        clone.tag(2, ["04000000000b02"])
        ev = await wait_event(link, lambda e: e.kind == "tags" and e.slot == 2)
        assert ev.tags == (("04000000000b02", None),)

    run_link([first.port, clone.port], scenario, close=[first, clone])


# ---------------------------------------------------------------- another tile on a port

def test_another_tile_answering_on_a_port_takes_the_old_one_offline():
    fake = FakeTile(UID)

    async def scenario(link):
        await wait_event(link, online(UID))
        link.set_scene(UID, [(0, red_scene())])
        await wait_for(lambda: not link.pending_commands(UID), what="scene acked")
        assert fake.scene == {0: red_scene()}
        fake.reboot_as(OTHER)
        ev = await wait_event(link, lambda e: e.kind == "offline")
        assert ev.tile == UID
        assert ev.detail == "tile %s answered on its port %s" % (OTHER, fake.port)
        ev = await wait_event(link, online(OTHER))
        assert ev.detail == "new"
        old = link.tiles[UID]
        assert not old.online and old.session is None
        # The old tile's scene is kept for when it is back, not sent to the new one.
        assert link.set_scene(UID, [(1, red_scene())]) is None
        link.set_scene(OTHER, [(2, green_scene())])
        await wait_for(lambda: not link.pending_commands(OTHER), what="scene acked")
        assert fake.scene == {2: green_scene()}
        assert link.tiles[OTHER].port == fake.port

    run_link([fake.port], scenario, close=[fake])


# ---------------------------------------------------------------- another protocol version

@pytest.mark.parametrize("where", ["frame header", "hello payload"])
def test_a_tile_of_another_protocol_version_is_recorded_and_said_once(where, caplog):
    caplog.set_level(logging.DEBUG, logger="fairytable.link")
    fake = FakeTile(UID, protocol=2, version=2 if where == "frame header" else 1)

    async def scenario(link):
        seen = []
        ev = await wait_event(link, lambda e: e.kind == "problem", seen=seen)
        assert (ev.code, ev.tile, ev.port) == ("incompatible", UID, fake.port)
        assert "protocol 2" in ev.detail and "reflash" in ev.detail
        assert link.incompatible == {fake.port: {"uid": UID, "protocol": 2}}
        # Asked again now and then, answering the same each time: nothing new to say.
        asked = fake.count("hello_request")
        fake.send(wire.HEARTBEAT, wire.heartbeat(5))
        await wait_for(lambda: fake.count("hello_request") >= asked + 3, what="re-asked")
        seen += await drain(link)
        assert [e.kind for e in seen] == ["problem"]
        assert UID not in link.tiles
        # Reflashed: it speaks our version now and is used.
        fake.protocol = fake.version = wire.PROTOCOL_VERSION
        fake.hello()
        await wait_event(link, online(UID))
        assert link.incompatible == {}

    run_link([fake.port], scenario, close=[fake])
    assert "object at 0x" not in caplog.text
    if where == "frame header":
        assert "dropped hello frame (type 0x01, version 2, seq" in caplog.text


# ---------------------------------------------------------------- a flooding tile

def test_a_flooding_tile_is_limited_and_the_other_tiles_are_still_heard():
    flood = FakeTile(UID)
    calm = FakeTile(OTHER)
    final = (("04000000000003", None),)

    async def scenario(link):
        seen = []
        await wait_for(lambda: all(u in link.tiles and link.tiles[u].online
                                   for u in (UID, OTHER)), what="both tiles online")
        state = link.tiles[UID]
        # Gestures and log lines faster than any hand: the excess is dropped.
        for i in range(200):
            flood.gesture(i % 7, wire.TAP)
            flood.send(wire.LOG, wire.log(1, "pad %d touched" % i))
        await wait_for(lambda: state.health["flood_drops"] > 0, what="gestures dropped")
        # Tags that change faster than cards can move: merged, the latest state wins.
        for i in range(100):
            flood.tag(0, ["04000000000001" if i % 2 else "04000000000002"])
        flood.tag(0, ["04000000000003"])
        calm.tag(3, ["04000000000c03"])
        ev = await wait_event(link, lambda e: e.kind == "tags" and e.tile == OTHER, seen=seen)
        assert ev.slot == 3
        await wait_for(lambda: state.slots.get(0) == final and not state.untold,
                       what="the flood's last tags told")
        seen += await drain(link)
        problems = [e for e in seen if e.kind == "problem"]
        assert [(e.code, e.tile) for e in problems] == [("flooding", UID)]
        assert "dropped" in problems[0].detail
        last_tags = [e.tags for e in seen if e.kind == "tags" and e.tile == UID and e.slot == 0]
        assert last_tags[-1] == final
        assert state.health["flood_drops"] > 0 and state.health["coalesced"] > 0
        assert link.tiles[OTHER].health["flood_drops"] == 0
        assert state.online and link.tiles[OTHER].online

    run_link([flood.port, calm.port], scenario, link_class=Strict, close=[flood, calm])


# ---------------------------------------------------------------- beyond the HELLO

def test_events_beyond_what_the_hello_announced_are_dropped(caplog):
    fake = FakeTile(UID, cells=2, readers=2, buttons=2, dice_pockets=0)

    async def scenario(link):
        await wait_event(link, online(UID))
        bad = [fake.tag(5, ["04000000000005"]), fake.gesture(3),
               fake.send(wire.DICE, wire.dice(0, (bytes.fromhex("04000000000d01"), None)))]
        good = fake.tag(1, ["04000000000001"])
        ev = await wait_event(link, lambda e: e.kind in ("tags", "gesture", "dice"))
        assert (ev.kind, ev.slot) == ("tags", 1)
        await wait_for(lambda: all(s in fake.acks for s in bad + [good]), what="acks")
        assert [fake.acks[s] for s in bad] == ["bad_payload"] * 3
        assert fake.acks[good] == "ok"
        assert link.tiles[UID].health["protocol_errors"] == 3
        assert [e for e in await drain(link) if e.kind in ("tags", "gesture", "dice")] == []

    run_link([fake.port], scenario, close=[fake])
    assert "slot 5, but its HELLO announced 2 readers" in caplog.text
    assert "pocket 0, but its HELLO announced 0 dice pockets" in caplog.text


# ---------------------------------------------------------------- ack rules

def test_the_host_acks_unknown_types_and_bad_payloads_and_drops_bad_unacked_frames():
    fake = FakeTile(UID)

    async def scenario(link):
        await wait_event(link, online(UID))
        unknown = fake.send(0x3E, b"\x01\x02")               # a newer tile's message
        bad_tag = fake.send(wire.TAG, b"\x01\x09")          # acked type, broken payload
        bad_health = fake.send(wire.HEALTH, b"\x00\x01")    # unacked type, broken payload
        echo = fake.send(wire.LED_SCENE, wire.led_scene([]))  # ours, looped back
        fake.tag(2, ["04000000000002"])
        await wait_event(link, lambda e: e.kind == "tags" and e.slot == 2)
        await wait_for(lambda: unknown in fake.acks and bad_tag in fake.acks, what="acks")
        assert fake.acks[unknown] == "unknown_type"
        assert fake.acks[bad_tag] == "bad_payload"
        assert bad_health not in fake.acks and echo not in fake.acks
        assert link.tiles[UID].health["protocol_errors"] == 4

    run_link([fake.port], scenario, close=[fake])


# ---------------------------------------------------------------- LED scene order

def test_a_resent_scene_never_brings_back_an_older_scene_for_a_cell():
    fake = FakeTile(UID)
    scene_a, scene_b = red_scene(), green_scene()

    async def scenario(link):
        await wait_event(link, online(UID))
        fake.lose_scenes = 1                      # the line eats the first scene frame
        link.set_scene(UID, [(0, scene_a), (1, scene_a)])
        link.set_scene(UID, [(0, scene_b)])       # the table changed cell 0 only
        await wait_for(lambda: not link.pending_commands(UID), what="scenes acked")
        assert fake.scene == {0: scene_b, 1: scene_a} == link.tiles[UID].scene
        assert all(cells.get(0) != scene_a for _seq, cells in fake.scene_log)

    run_link([fake.port], scenario, close=[fake])


# ---------------------------------------------------------------- host errors, counters

def test_a_host_error_on_one_frame_loses_that_frame_only_and_is_counted():
    fake = FakeTile(UID)

    async def scenario(link):
        await wait_event(link, online(UID))
        real = link._tile_gesture

        def gesture_with_a_bug(tile, slot, gesture):
            if slot == 0:
                raise KeyError("a bug in the host")
            real(tile, slot, gesture)

        link._tile_gesture = gesture_with_a_bug
        # Both frames in one write: most likely one read for the host.
        fake.send_raw(wire.encode_frame(wire.GESTURE, 900, wire.gesture(0, wire.TAP)) +
                      wire.encode_frame(wire.GESTURE, 901, wire.gesture(1, wire.HOLD)))
        ev = await wait_event(link, lambda e: e.kind == "gesture")
        assert (ev.slot, ev.gesture) == (1, "hold")
        assert link.tiles[UID].health["host_errors"] == 1

    run_link([fake.port], scenario, close=[fake])


def test_crc_errors_add_up_over_the_ports_a_tile_used():
    first = FakeTile(UID)
    body = bytes((wire.PROTOCOL_VERSION, wire.HEARTBEAT, 0, 7)) + wire.heartbeat(1)
    crc = (binascii.crc32(body) ^ 0x00010000).to_bytes(4, "big")
    damaged = wire.cobs_encode(body + crc) + b"\x00"      # whole, but its CRC is wrong

    async def scenario(link):
        await wait_event(link, online(UID))
        state = link.tiles[UID]
        first.send_raw(damaged + damaged)
        await wait_for(lambda: state.health["crc_errors"] == 2, what="two CRC errors")
        first.close()
        await wait_event(link, lambda e: e.kind == "offline")
        second.answer = True            # the same board, re-plugged: another port
        link.add_port(second.port)
        await wait_event(link, online(UID))
        assert state.port == second.port != first.port
        second.send_raw(damaged)
        await wait_for(lambda: state.health["crc_errors"] == 3, what="a third CRC error")

    second = FakeTile(UID, answer=False)
    run_link([first.port], scenario, close=[first, second])


# ---------------------------------------------------------------- back without a reboot

class Away(Quick):
    offline_s = 1.5             # a silent fake goes offline soon (it beats every second);
                                # the port stays open


def test_a_tile_back_without_a_reboot_gets_what_was_set_while_it_was_away():
    # Same boot id, same port: a tile that fell silent (a loose cable) and came back.
    fake = FakeTile(UID, cells=2, flags=wire.CAP_FIELD_NEIGHBOURS)

    async def scenario(link):
        await wait_event(link, online(UID))
        link.set_scene(UID, [(0, red_scene())])
        await wait_for(lambda: fake.scene.get(0) == red_scene(), what="cell 0 red")
        fake.answer = False
        await wait_event(link, lambda e: e.kind == "offline" and e.tile == UID)
        assert link.set_scene(UID, [(1, green_scene())]) is None
        assert link.set_field_neighbours(UID, [0b10, 0b01]) is None
        fake.answer = True
        ev = await wait_event(link, online(UID))
        assert ev.detail == "reconnect"
        await wait_for(lambda: fake.scene.get(1) == green_scene(), what="cell 1 green")
        await wait_for(lambda: [m["masks"] for m in list(fake.received)
                                if m["type"] == "field_neighbours"] == [[0b10, 0b01]],
                       what="the neighbours told")
        assert fake.scene == {0: red_scene(), 1: green_scene()}

    run_link([fake.port], scenario, timings=Away(), close=[fake])


# ---------------------------------------------------------------- resent duplicates

def gestures_on(seen, slot):
    return [e for e in seen if e.kind == "gesture" and e.slot == slot]


def test_a_seq_seen_before_a_reconnect_is_a_new_event_after_it():
    # The tile's seq moved on while it was away and came round to one the host remembers.
    fake = FakeTile(UID)

    async def scenario(link):
        seen = []
        await wait_event(link, online(UID), seen=seen)
        fake.gesture(1, seq=100)
        await wait_event(link, lambda e: e.kind == "gesture", seen=seen)
        fake.answer = False
        await wait_event(link, lambda e: e.kind == "offline", seen=seen)
        fake.answer = True
        ev = await wait_event(link, online(UID), seen=seen)
        assert ev.detail == "reconnect"
        fake.gesture(2, wire.HOLD, seq=100)
        ev = await wait_event(link, lambda e: e.kind == "gesture", seen=seen)
        assert (ev.slot, ev.gesture) == (2, "hold")
        # A resend of it (its ack lost) is still a resend: acked, not acted on twice.
        fake.gesture(2, wire.HOLD, seq=100)
        fake.gesture(3, seq=101)
        await wait_event(link, lambda e: e.kind == "gesture" and e.slot == 3, seen=seen)
        assert len(gestures_on(seen, 2)) == 1
        await wait_for(lambda: fake.acks.get(101) == "ok", what="acked")

    run_link([fake.port], scenario, timings=Away(), close=[fake])


def test_a_seq_far_behind_the_newest_is_a_new_event_not_a_resend():
    # Hours of heartbeats and few events: the tile's seq wraps past the seqs the host
    # remembers, without any reconnect.
    fake = FakeTile(UID)

    async def scenario(link):
        seen = []
        await wait_event(link, online(UID), seen=seen)
        fake.gesture(1, seq=100)
        await wait_event(link, lambda e: e.kind == "gesture", seen=seen)
        for seq in (20000, 40000, 60000, 90):
            fake.send(wire.HEARTBEAT, wire.heartbeat(1000), seq=seq)
        fake.gesture(2, wire.HOLD, seq=100)
        ev = await wait_event(link, lambda e: e.kind == "gesture", seen=seen)
        assert (ev.slot, ev.gesture) == (2, "hold")
        assert link.tiles[UID].online

    run_link([fake.port], scenario, close=[fake])


def test_a_report_older_than_one_acted_on_never_puts_a_slot_back():
    # A frame mended late from damaged copies of an earlier report (host/link/mending.py)
    # comes after the newer report of its slot: it is acked and dropped, for a TAG, a
    # DICE and a snapshot's slots alike; another slot's report of the same age is news.
    fake = FakeTile(UID, cells=3, readers=3, dice_pockets=0)
    A, B, C = "04000000000a01", "04000000000b01", "04000000000c01"

    def slot(link, i):
        return [u for u, _identity in link.tiles[UID].slots.get(i, ())]

    async def scenario(link):
        seen = []
        await wait_event(link, online(UID), seen=seen)
        await wait_for(lambda: not link.tiles[UID].session.snapshot_wanted, what="snapshot")
        fake.tag(1, [A], seq=50)
        fake.tag(1, [B], seq=52)
        await wait_for(lambda: slot(link, 1) == [B], what="slot 1 holds B")
        late = fake.tag(1, [C], seq=51)
        fake.tag(2, [C], seq=49)        # older than slot 1's report, but slot 2's news
        await wait_for(lambda: slot(link, 2) == [C], what="slot 2 holds C")
        await wait_for(lambda: fake.acks.get(late) == "ok", what="the late report acked")
        assert slot(link, 1) == [B]
        assert link.tiles[UID].health["stale"] == 1
        # A snapshot older than slot 1's report sets the other slots only.
        fake.send(wire.SNAPSHOT, wire.snapshot(1000, [
            (0, [(bytes.fromhex(A), None)]), (1, [(bytes.fromhex(A), None)])], []), seq=51)
        await wait_for(lambda: slot(link, 0) == [A], what="slot 0 from the snapshot")
        assert slot(link, 1) == [B]
        assert link.tiles[UID].health["stale"] == 2
        # The tile's seq comes round after 65,536 frames: a new report is news again.
        for seq in (20000, 40000, 60000, 10):
            fake.send(wire.HEARTBEAT, wire.heartbeat(1000), seq=seq)
        fake.tag(1, [C], seq=20)
        await wait_for(lambda: slot(link, 1) == [C], what="slot 1 holds C after the wrap")
        assert link.tiles[UID].health["stale"] == 2

    run_link([fake.port], scenario, close=[fake])


class Resync(LinkTimings):
    resync_s = 0.5


def test_a_slot_state_lost_on_the_way_is_corrected_by_the_periodic_snapshot():
    # Whatever lost a report (a bug, a frame the tile stopped resending), the host asks
    # every tile for its snapshot now and then, and counts what that corrects.
    fake = FakeTile(UID, cells=3, readers=3)
    A, B = "04000000000a01", "04000000000b01"

    async def scenario(link):
        await wait_event(link, online(UID))
        fake.tag(1, [A])
        await wait_for(lambda: link.tiles[UID].slots.get(1) == ((A, None),), what="A")
        asked = fake.count("snapshot_request")
        await wait_for(lambda: fake.count("snapshot_request") > asked, what="asked again")
        assert link.tiles[UID].health["resync_changes"] == 0   # nothing to correct
        fake.snapshot = ([(1, [(bytes.fromhex(B), None)])], [])   # B's report was lost
        await wait_for(lambda: link.tiles[UID].slots.get(1) == ((B, None),), what="B")
        assert link.tiles[UID].health["resync_changes"] == 1

    run_link([fake.port], scenario, timings=Resync(), close=[fake])


def test_a_tiles_error_lines_are_counted_in_its_health_even_while_it_floods():
    fake = FakeTile(UID)

    async def scenario(link):
        await wait_for(lambda: UID in link.tiles and link.tiles[UID].online, what="online")
        state = link.tiles[UID]
        fake.send(wire.LOG, wire.log(2, "reader 3 slow"))
        fake.send(wire.LOG, wire.log(3, "readers: MemoryError('allocating 128 bytes')"))
        await wait_for(lambda: state.health["errors_logged"] == 1, what="one error counted")
        for i in range(100):        # beyond the log budget: dropped, still counted
            fake.send(wire.LOG, wire.log(3, "readers: failure %d" % i))
        await wait_for(lambda: state.health["errors_logged"] == 101, what="all errors counted")
        assert state.health["flood_drops"] > 0

    run_link([fake.port], scenario, close=[fake])
