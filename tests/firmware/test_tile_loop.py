"""The tile's loop (firmware/main.py) on emulated readers and a virtual clock.

What a tile must do on its own: a hung reader is not taken for an empty cell
and is revived at once (also one that hung during an identity write); a pulse of
the shared RST line leaves no reader with its reset defaults; a reader that stays
dead, or fails every poll, is not reset every few seconds forever nor logged each
time; a revival never blocks the loop; an exception in a poll stalls no reader; a
card whose identity read failed is read again, before it is reported and while it
stays; a stack of five or six cards is reported whole; a full cell never reports more
than wire.MAX_TAGS; a task that keeps failing stops
feeding the watchdog; the host's commands are checked before they change anything,
and one whose handling failed is handled when the host resends it; the loop runs on
when the ticks wrap.
"""

import asyncio

import pytest
from tile_harness import Board, GaveUp, Rebooted, make_tile, tags_sent

from firmware import config
from firmware.drivers import mfrc522 as driver
from firmware.sim.mfrc522_emu import NtagCard
from shared_rules import wire
from shared_rules.tag_identity import record as identity_record

CARD = bytes.fromhex("04112233445566")
PAWN = bytes.fromhex("04A1B2C3D4E5F6")


def run(board, tile, tasks, until=None, most_ms=60000):
    asyncio.run(board.run(tile, tasks, until, most_ms))


def polls_of(tile, slot, more):
    want = tile.polls[slot] + more
    return lambda: tile.polls[slot] >= want


# -- a hung reader ---------------------------------------------------------------------------

@pytest.mark.parametrize("value", [0x00, 0xFF])
def test_a_hung_reader_never_reports_its_card_lifted_and_is_revived_at_once(value):
    tile, board = make_tile(4)          # health period 60 s: only the at-once check revives
    board.emus[1].place(NtagCard(CARD, identity_record(b"knight")))
    run(board, tile, ("readers", "health"), polls_of(tile, 1, 2))
    assert tags_sent(board, 1) == [[(CARD, b"knight")]]
    board.emus[1].hang(value)
    run(board, tile, ("readers", "health"), polls_of(tile, 1, 20))
    assert tags_sent(board, 1) == [[(CARD, b"knight")]], "the hung reader lost its card"
    assert tile.readers[1].reinits == 1 and all(tile.reader_ok)
    # It reads again: the card lifted is reported gone.
    board.emus[1].lift(CARD)
    run(board, tile, ("readers", "health"), polls_of(tile, 1, 5))
    assert tags_sent(board, 1)[-1] == []


def test_a_reset_of_the_shared_rst_line_configures_every_reader_again():
    tile, board = make_tile(4)
    for slot in (1, 3):
        board.emus[slot].place(NtagCard(bytes((4, slot, 2, 3, 4, 5, 6))))
    run(board, tile, ("readers", "health"), polls_of(tile, 3, 2))
    errors = [r.errors for r in tile.readers]
    board.emus[2].hang(0x00, soft_reset_cures=False)     # only the RST line helps
    run(board, tile, ("readers", "health"), lambda: tile.readers[2].reinits >= 1
        and all(tile.reader_ok))
    run(board, tile, ("readers", "health"), polls_of(tile, 3, 10))
    assert board.rst_pulses == 2        # at start-up, and for reader 2
    assert all(tile.reader_ok)
    assert [r.reinits for r in tile.readers] == [0, 0, 1, 0]     # only the one that hung
    # None of the others polled with its reset defaults (each poll would have failed).
    assert [r.errors for i, r in enumerate(tile.readers) if i != 2] == \
        [e for i, e in enumerate(errors) if i != 2]
    assert all(emu.regs[0x2A] == 0x80 for emu in board.emus)     # TAuto everywhere
    for slot in (1, 3):
        assert len(tags_sent(board, slot)) == 1, "a card went missing during the reset"


def test_a_dead_reader_is_tried_ever_less_often_and_the_rst_line_is_spared():
    tile, board = make_tile(4, versions={2: 0x00})      # reader 2 is not there
    assert tile.reader_ok == [True, True, False, True]
    tile.timings["health_period_ms"] = 5000
    run(board, tile, ("readers", "health"), most_ms=3 * 60000)
    # Every 5 s for 3 minutes would be 36 revivals, each pulsing RST: resets of every
    # reader on the tile, every card losing power.
    assert tile.readers[2].reinits <= 6
    assert board.rst_pulses == 1        # the one at start-up
    assert [tile.readers[i].reinits for i in (0, 1, 3)] == [0, 0, 0]


def test_reviving_readers_never_blocks_the_loop(monkeypatch):
    blocking = []
    monkeypatch.setattr(driver, "sleep_ms", blocking.append)
    tile, board = make_tile(4, versions={3: 0x00})
    tile.timings["health_period_ms"] = 1000
    board.emus[1].hang(0x00, soft_reset_cures=False)
    board.emus[0].place(NtagCard(CARD))
    run(board, tile, ("readers", "health", "render"), most_ms=20000)
    assert tile.readers[1].reinits >= 1 and tile.reader_ok[1]
    assert tile.readers[3].reinits >= 2
    assert blocking == [], "a reset was waited out with a blocking sleep"
    assert board.frames > 20 * 1000 // 33 // 2     # the LEDs kept their frame rate


# -- identities that could not be read --------------------------------------------------------

def test_a_card_whose_identity_read_failed_is_reported_with_it_once_read():
    tile, board = make_tile(4)
    board.emus[0].place(NtagCard(CARD, identity_record(b"knight")))
    board.emus[0].misread(2, command=0x30)      # two READs fail their CRC_A
    run(board, tile, ("readers", "health"), polls_of(tile, 0, 6))
    assert tags_sent(board, 0) == [[(CARD, b"knight")]]


def test_a_card_that_cannot_be_read_is_reported_without_identity_after_three_polls():
    tile, board = make_tile(4)
    board.emus[0].place(NtagCard(CARD, identity_record(b"knight")))
    board.emus[0].misread(1000, command=0x30)
    run(board, tile, ("readers", "health"), polls_of(tile, 0, 2))
    assert tags_sent(board, 0) == []
    run(board, tile, ("readers", "health"), polls_of(tile, 0, 4))
    assert tags_sent(board, 0) == [[(CARD, None)]]


def test_an_unenrolled_card_is_reported_at_once():
    tile, board = make_tile(4)
    board.emus[0].place(NtagCard(CARD))
    run(board, tile, ("readers", "health"), polls_of(tile, 0, 1))
    assert tags_sent(board, 0) == [[(CARD, None)]]


def test_a_report_dropped_from_a_full_resend_queue_is_sent_again():
    # The link keeps 12 unacked frames; a slot's report dropped for a 13th must not be
    # lost, or the host never learns the slot's state (the slot does not change again).
    tile, board = make_tile(4)
    board.emus[0].place(NtagCard(CARD))
    run(board, tile, ("readers", "health"), polls_of(tile, 0, 1))
    assert tags_sent(board, 0) == [[(CARD, None)]]
    assert [e[2] for e in tile.link.pending.values()] == [0]    # unacked: no host here
    for _ in range(12):
        board.now_us += 1000            # each gesture younger than the report
        tile.link.send(wire.GESTURE, wire.gesture(1, wire.TAP))
    assert 0 not in [e[2] for e in tile.link.pending.values()]
    assert tile.link.lost == 1
    run(board, tile, ("readers", "health"), polls_of(tile, 0, 1))
    assert 0 in [e[2] for e in tile.link.pending.values()], "slot 0's report was lost"
    assert tile.link.lost == 0


# -- tasks that keep failing -------------------------------------------------------------------

def test_a_task_that_keeps_failing_stops_feeding_the_watchdog_and_the_board_gives_up():
    # (A fake reader with the wrong signature once made a test spin for 20 minutes.)
    tile, board = make_tile(1)

    async def broken():
        raise TypeError("inventory() takes 2 positional arguments but 4 were given")

    tile.readers_task = broken
    tasks = ("readers", "pads", "render", "link", "health", "watchdog")
    for name in tasks:
        tile.beat(name, board.ticks_ms())
    start = board.ticks_ms()
    with pytest.raises(GaveUp):
        run(board, tile, tasks)
    assert board.gave_up == ["readers"]
    # Given up once the task had failed for the watchdog's time (2 s) without a beat: a
    # bounded number of restarts, 10 ms apart.
    assert 2000 < board.ticks_ms() - start < 2200
    assert 100 < len(board.failures) <= 2000 // 10 + 5
    # The watchdog was fed for the first second only (the last beat is then too old).
    assert 5 <= board.feeds <= 11


def test_the_watchdog_is_fed_only_while_every_task_completes_iterations():
    tile, board = make_tile(1)
    failing = [False]
    real = tile.pads_task

    async def pads():
        if failing[0]:
            await board.sleep_ms(50)
            raise ValueError("pad")
        await real()

    tile.pads_task = pads
    tasks = ("readers", "pads", "render", "link", "health", "watchdog")
    for name in tasks:
        tile.beat(name, board.ticks_ms())
    run(board, tile, tasks, most_ms=3000)
    assert board.feeds > 20
    failing[0] = True
    board.feeds = 0
    with pytest.raises(GaveUp):
        run(board, tile, tasks, most_ms=5000)
    assert board.gave_up == ["pads"]
    assert board.feeds <= 11                # fed for at most a second after the last beat


def test_a_task_that_fails_now_and_then_is_never_given_up():
    tile, board = make_tile(1)
    starts = [0]

    async def flaky():
        starts[0] += 1
        if starts[0] % 2:
            raise ValueError("fails at once")
        tile.beat("pads", board.ticks_ms())     # an iteration completed
        await board.sleep_ms(10)
        raise ValueError("then fails")

    tile.pads_task = flaky
    run(board, tile, ("pads",), most_ms=10000)
    assert board.gave_up == [] and len(board.failures) >= 100


# -- the host's commands ------------------------------------------------------------------------

def host_frame(msg_type, seq, payload=b""):
    return wire.encode_frame(msg_type, seq, payload)


def acks(board):
    return {m["ack"]: m["status"] for m in board.heard() if m["type"] == "ack"}


def test_a_silent_host_gets_heartbeats_only_as_long_as_the_usb_buffer_holds_them():
    tile, board = make_tile(1)
    link = tile.link
    board.port.inbox += host_frame(wire.HEARTBEAT, 1, wire.heartbeat(0))
    link.receive()
    board.port.out.clear()
    for _ in range(600):                # ten minutes of silence
        board.now_us += 1000000
        link.service(board.ticks_ms())
        link.send(wire.LOG, wire.log(1, "x"))
    assert 0 < len(board.port.out) <= 256


def test_set_config_sets_the_led_budget_and_refuses_zero():
    tile, board = make_tile(2)
    tile.link.host_heard = True
    tile.link.last_rx = board.ticks_ms()
    for msg in ({"type": "set_config", "seq": 5, "key": "led_budget_ma", "value": 300},
                {"type": "set_config", "seq": 6, "key": "led_budget_ma", "value": 0},
                {"type": "set_config", "seq": 7, "key": "gone_polls", "value": 0}):
        tile.handle(msg)
    assert tile.effects.budget_ma == 300
    assert tile.timings["gone_polls"] == 3
    assert acks(board) == {5: "ok", 6: "unsupported", 7: "unsupported"}


def test_the_led_budget_key_goes_over_the_wire():
    tile, board = make_tile(2)
    board.port.inbox += host_frame(wire.SET_CONFIG, 9,
                                   wire.set_config(wire.CONFIG_LED_BUDGET_MA, 300))
    for msg in tile.link.receive():
        tile.handle(msg)
    assert tile.effects.budget_ma == 300 and acks(board) == {9: "ok"}


@pytest.mark.parametrize("mode", [0, 1, 2])
def test_reboot_is_acked_before_the_board_reboots_in_the_mode_asked(mode):
    tile, board = make_tile(1)
    board.port.inbox += host_frame(wire.REBOOT, 3, wire.reboot(mode))
    with pytest.raises(Rebooted):
        run(board, tile, ("link",))
    assert board.rebooted == [mode]
    assert acks(board) == {3: "ok"}


def test_a_reboot_of_an_unknown_mode_is_refused_and_nothing_happens():
    tile, board = make_tile(1)
    board.port.inbox += host_frame(wire.REBOOT, 3, b"\x07")
    run(board, tile, ("link",), most_ms=200)
    assert board.rebooted == [] and acks(board) == {3: "bad_payload"}


def test_frames_that_do_not_parse_are_answered_by_their_type():
    tile, board = make_tile(1)
    board.port.inbox += host_frame(0x7E, 11, b"")                  # a type it does not know
    board.port.inbox += host_frame(wire.LED_SCENE, 12, b"\x01\x00\x01")   # acked, malformed
    board.port.inbox += host_frame(wire.HEARTBEAT, 13, b"\x01")    # not acked, malformed
    board.port.inbox += host_frame(wire.SNAPSHOT_REQUEST, 14, b"\x01")
    assert tile.link.receive() == []
    assert acks(board) == {11: "unknown_type", 12: "bad_payload"}
    assert tile.link.rejected == 2
    # The tile's own ACKs carry seq 0 (hardware/protocol.md).
    assert all(m["seq"] == 0 for m in board.sent if m["type"] == "ack")


def test_a_host_that_stops_reading_gets_no_more_than_the_usb_buffer_holds():
    tile, board = make_tile(1)
    link = tile.link
    board.port.inbox += host_frame(wire.HEARTBEAT, 1, wire.heartbeat(0))
    link.receive()
    for _ in range(20):                 # events the host never acks
        link.send(wire.GESTURE, wire.gesture(0, 1))
    before = len(board.port.out)
    now = board.ticks_ms()
    for step in range(1, 30):           # resends every 100 ms for 2.9 s
        link.service(now + step * 100)
    assert len(board.port.out) - before <= 256
    assert link.tx_failed > 0
    # Silent beyond the host timeout: the budget is spent, heartbeats stay unwritten.
    written = len(board.port.out)
    for step in range(1, 60):
        link.service(now + 3000 + step * 1000)
    assert len(board.port.out) == written
    # The host speaks again: the tile writes again.
    board.port.inbox += host_frame(wire.HEARTBEAT, 2, wire.heartbeat(0))
    link.receive()
    link.send(wire.GESTURE, wire.gesture(0, 2))
    assert board.heard()[-1]["type"] == "gesture"


def test_a_sim_tile_whose_task_keeps_failing_ends_with_a_message(capsys):
    # No hardware watchdog ends a crash loop on the unix port: the process must end, so a
    # broken test fails instead of spinning for ever.
    from firmware.boards.sim import SimBoard
    with pytest.raises(SystemExit) as end:
        SimBoard.give_up(None, "readers", TypeError("wrong signature"))
    assert end.value.code == 4
    assert "readers keeps failing" in capsys.readouterr().err


# -- debounce, as the host configures it -------------------------------------------------------

def test_arrive_and_gone_polls_set_by_the_host_are_the_polls_a_tag_needs():
    tile, board = make_tile(4)
    for key, value in (("arrive_polls", 3), ("gone_polls", 2)):
        tile.handle({"type": "set_config", "seq": 1, "key": key, "value": value})
    board.emus[1].place(NtagCard(CARD))
    run(board, tile, ("readers", "health"), polls_of(tile, 1, 2))
    assert tags_sent(board, 1) == []                    # seen twice: not arrived yet
    run(board, tile, ("readers", "health"), polls_of(tile, 1, 1))
    assert tags_sent(board, 1) == [[(CARD, None)]]      # the third consistent poll
    board.emus[1].lift(CARD)
    run(board, tile, ("readers", "health"), polls_of(tile, 1, 1))
    assert tags_sent(board, 1) == [[(CARD, None)]]      # missed once: still there
    run(board, tile, ("readers", "health"), polls_of(tile, 1, 1))
    assert tags_sent(board, 1) == [[(CARD, None)], []]  # gone after the second


def test_a_tile_keeps_its_timings_to_itself():
    # The host configures each tile; a tile's SET_CONFIG changes no other tile's timings
    # (several sim tiles could share a process) and not the defaults.
    from firmware.main import Tile
    first = Tile(Board(), config.variant("cell", 2), {"gone_polls": 4})
    second = Tile(Board(), config.variant("cell", 2))
    first.handle({"type": "set_config", "seq": 1, "key": "arrive_polls", "value": 2})
    assert (first.timings["arrive_polls"], first.timings["gone_polls"]) == (2, 4)
    assert (second.timings["arrive_polls"], second.timings["gone_polls"]) == (1, 3)
    assert config.timings() == second.timings
    assert first.link.timings is first.timings      # the link resends at the tile's pace


# -- a reader that fails in other ways ------------------------------------------------------

def logs(board):
    return [m["text"] for m in board.heard() if m["type"] == "log"]


def test_a_reader_that_hangs_during_an_identity_write_keeps_its_card_and_is_revived():
    tile, board = make_tile(4)
    board.emus[1].place(NtagCard(CARD, identity_record(b"knight")))
    run(board, tile, ("readers", "health"), polls_of(tile, 1, 2))
    assert tags_sent(board, 1) == [[(CARD, b"knight")]]
    board.emus[1].hang(0x00)
    tile.write_identity({"type": "write_identity", "seq": 5, "slot": 1, "uid": CARD,
                         "record": identity_record(b"queen")})
    result = [m for m in board.heard() if m["type"] == "write_result"]
    assert [(m["ok"], m["reason"]) for m in result] == [(False, "reader failed")]
    run(board, tile, ("readers", "health"), polls_of(tile, 1, 10))
    assert tags_sent(board, 1) == [[(CARD, b"knight")]], "the hung reader lost its card"
    assert tile.readers[1].reinits == 1 and all(tile.reader_ok)
    board.emus[1].lift(CARD)
    run(board, tile, ("readers", "health"), polls_of(tile, 1, 5))
    assert tags_sent(board, 1)[-1] == []


def test_a_reader_that_fails_every_poll_but_configures_fine_backs_off_quietly():
    # A reader that browns out whenever its field goes on: each revival works, each poll
    # fails. Revived at once the first time, then ever less often; one LOG line, not one
    # per revival; HEALTH says it is not ok; its slot keeps its card (no lift invented).
    tile, board = make_tile(4)
    tile.timings["health_period_ms"] = 5000
    tile.link.host_silent = lambda now: False
    board.emus[2].place(NtagCard(CARD))
    run(board, tile, ("readers", "health"), polls_of(tile, 2, 2))
    assert tags_sent(board, 2) == [[(CARD, None)]]
    r = tile.readers[2]
    real = r.inventory

    def browns_out(*args):
        r.errors += 1
        raise OSError("MFRC522 hung")

    r.inventory = browns_out
    run(board, tile, ("readers", "health"), most_ms=6000)
    assert r.reinits <= 2
    assert logs(board) == ["reader 2 failed"]
    health = [m for m in board.heard() if m["type"] == "health"]
    assert health and not health[-1]["readers"][2]["ok"]
    assert health[-1]["readers"][0]["ok"]
    run(board, tile, ("readers", "health"), most_ms=3 * 60000)
    assert r.reinits <= 6, "revived %d times in 3 minutes" % r.reinits
    assert logs(board) == ["reader 2 failed"]
    assert tags_sent(board, 2) == [[(CARD, None)]]
    # Cured: the next revival brings it back, and then a lift is seen again.
    r.inventory = real
    run(board, tile, ("readers", "health"), lambda: tile.fails[2] == 0, most_ms=2 * 60000)
    assert logs(board) == ["reader 2 failed", "reader 2 back"]
    health = wire.parse(wire.Frame(1, wire.HEALTH, 1, tile.health()))
    assert health["readers"][2]["ok"]
    board.emus[2].lift(CARD)
    run(board, tile, ("readers", "health"), polls_of(tile, 2, 5))
    assert tags_sent(board, 2)[-1] == []


def test_an_exception_in_a_poll_leaves_no_field_on_and_the_readers_go_on():
    # A MemoryError in the middle of a poll (a fragmented heap): the reader's field goes
    # off, and its neighbours, which wait for it, are polled all the same.
    tile, board = make_tile(4)
    run(board, tile, ("readers",), most_ms=200)
    r = tile.readers[0]
    real = r.inventory
    calls = []

    def inventory(*args):
        calls.append(1)
        if len(calls) == 1:
            raise MemoryError("memory allocation failed")
        return real(*args)

    r.inventory = inventory
    run(board, tile, ("readers",), lambda: board.failures)
    assert [type(e) for _, e in board.failures] == [MemoryError]
    assert not board.emus[0].antenna_on and tile.on_at[0] is None
    before = list(tile.polls)
    run(board, tile, ("readers",), most_ms=2000)
    assert all(tile.polls[i] > before[i] + 20 for i in range(4)), (before, tile.polls)


def test_a_readers_task_that_starts_over_begins_a_round_with_every_field_off():
    # A round cut short (the task failed) can leave a field on whose reader no longer
    # waits its turn: its neighbours could never go on. The task starts afresh instead.
    tile, board = make_tile(4)          # phases [0, 2], [1, 3]
    assert tile.phases == [[0, 2], [1, 3]]
    tile.readers[1].antenna(True)
    tile.on_at[1] = board.ticks_us()    # the next phase's field, left on
    before = list(tile.polls)
    run(board, tile, ("readers",), most_ms=2000)
    assert all(tile.polls[i] > before[i] + 20 for i in range(4)), (before, tile.polls)


# -- the slots' tags ------------------------------------------------------------------------

def test_a_card_swapped_on_a_full_cell_waits_until_the_one_lifted_is_gone():
    # A full cell (wire.MAX_TAGS tags: a wagon's five creatures and one too many); one
    # lifted and a new one put down at once: the cell never reports one more than a TAG
    # carries, nothing fails, and the newcomer arrives when the lifted one is gone.
    full = wire.MAX_TAGS
    tile, board = make_tile(4)
    uids = [bytes((4, 1, k, 3, 4, 5, 6)) for k in range(full + 1)]
    for u in uids[:full]:
        board.emus[0].place(NtagCard(u))
    run(board, tile, ("readers", "health"), polls_of(tile, 0, 3))
    board.emus[0].lift(uids[0])
    board.emus[0].place(NtagCard(uids[full]))
    run(board, tile, ("readers", "health", "link"), polls_of(tile, 0, 8))
    assert board.failures == []
    sent = tags_sent(board, 0)
    assert [sorted(u for u, _ in tags) for tags in sent] == [uids[:full], uids[1:]]
    tile.snapshot()
    assert board.failures == [] and tags_sent(board, 0)[-1] == [(u, None) for u in uids[1:]]


def test_a_tag_report_of_a_full_stack_fits_the_tiles_transmit_buffer():
    # Six tags of the longest UIDs with full identities (a Fight Club wagon and one too
    # many): the TAG is built in the buffer the link made at start-up, never in a new
    # block of the fragmented heap.
    from firmware import link
    six = [(bytes((4, k)) + bytes(8), bytes(12)) for k in range(6)]
    assert len(wire.tag(7, six)) <= link._TX_PAYLOAD


def test_a_crowded_cells_twelve_tags_go_in_one_tag_written_in_pieces():
    # The Dragon Inn's tile: one cell, four readers. Twelve tags of the longest UIDs with
    # full identities (wire.MAX_TAGS; 290 bytes, more than the link's buffer) spread over
    # the readers, one across two of them: one TAG of all twelve, each once, written from
    # short pieces (never built whole), and not kept: unacked, it is reported anew.
    tile, board = make_tile(1, crowded={0: 4})
    assert len(tile.readers) == 4
    twelve = [(bytes((4, k)) + bytes(8), bytes((k,)) * 12) for k in range(wire.MAX_TAGS)]
    assert len(wire.tag(0, twelve)) == 290
    for k, (uid, identity) in enumerate(twelve):
        board.emus[k % 4].place(NtagCard(uid, identity_record(identity)))
    board.emus[2].place(NtagCard(twelve[0][0], identity_record(twelve[0][1])))
    board.port.inbox += host_frame(wire.HEARTBEAT, 1, wire.heartbeat(0))
    run(board, tile, ("readers", "health", "link"), polls_of(tile, 3, 3))
    assert board.failures == []
    assert tags_sent(board, 0)[-1] == sorted(twelve)
    assert [f for f, _, key in tile.link.pending.values() if key == 0] == [None]
    # No host acks it here: after its resend time the slot is reported again.
    board.port.inbox += host_frame(wire.HEARTBEAT, 2, wire.heartbeat(0))
    run(board, tile, ("readers", "health", "link"), most_ms=300)
    assert len(tags_sent(board, 0)) >= 1
    # HELLO says one slot: the four readers are the tile's own business.
    hello = wire.parse(wire.Frame(1, wire.HELLO, 1, tile.hello()))
    assert hello["cells"] == hello["readers"] == 1
    # A token lifted off one reader is gone; one on two readers stays while either sees it.
    board.emus[1].lift(twelve[5][0])
    board.emus[0].lift(twelve[0][0])
    run(board, tile, ("readers", "health"), polls_of(tile, 3, 4))
    assert tags_sent(board, 0)[-1] == sorted(twelve[:5] + twelve[6:])
    board.emus[2].lift(twelve[0][0])
    run(board, tile, ("readers", "health"), polls_of(tile, 3, 4))
    assert tags_sent(board, 0)[-1] == sorted(twelve[1:5] + twelve[6:])


@pytest.mark.parametrize("stack", [5, 6])
def test_a_stack_of_creature_cards_on_a_wagon_cell_is_reported_whole(stack):
    # A Fight Club wagon: up to five creature cards on one reader, and a sixth to refuse.
    # Put down as a group: the slot's report carries the whole stack with every identity,
    # the neighbour's card is untouched, and lifting the stack is one empty report.
    tile, board = make_tile(4)
    board.emus[1].place(NtagCard(CARD, identity_record(b"contract")))
    uids = [bytes((4, 0x5A, 0x31, 0x92, 0xC4, 0x7E, 0x80 + k)) for k in range(stack)]
    for k, u in enumerate(uids):
        board.emus[0].place(NtagCard(u, identity_record(("fc:c%02d" % (k + 1)).encode())))
    run(board, tile, ("readers", "health", "link"), polls_of(tile, 0, 6))
    assert board.failures == []
    sent = tags_sent(board, 0)
    assert sorted(sent[-1]) == sorted((u, ("fc:c%02d" % (k + 1)).encode())
                                      for k, u in enumerate(uids))
    assert tags_sent(board, 1) == [[(CARD, b"contract")]]
    reports = len(sent)
    for u in uids:
        board.emus[0].lift(u)
    run(board, tile, ("readers", "health", "link"), polls_of(tile, 0, 6))
    assert tags_sent(board, 0)[reports:] == [[]]


def test_a_card_reported_without_its_identity_is_read_again_while_it_stays():
    tile, board = make_tile(4)
    board.emus[0].place(NtagCard(CARD, identity_record(b"knight")))
    board.emus[0].misread(1000, command=0x30)
    run(board, tile, ("readers", "health"), polls_of(tile, 0, 4))
    assert tags_sent(board, 0) == [[(CARD, None)]]
    board.emus[0].misread(0)            # the reads succeed again
    run(board, tile, ("readers", "health"), polls_of(tile, 0, 9))
    assert tags_sent(board, 0) == [[(CARD, None)], [(CARD, b"knight")]]
    run(board, tile, ("readers", "health"), polls_of(tile, 0, 20))
    assert len(tags_sent(board, 0)) == 2


def test_identity_pages_read_in_a_poll_that_failed_are_not_kept():
    # The poll reads a new card's pages, then the chip fails. The card is re-enrolled
    # before the reader is back: what it reports is what the card holds then.
    tile, board = make_tile(4)
    card = board.emus[0].place(NtagCard(CARD, identity_record(b"knight")))
    r = tile.readers[0]
    real = r.inventory

    def fails_after_reading(*args):
        real(*args)
        r.inventory = real
        raise OSError("MFRC522 hung")

    r.inventory = fails_after_reading
    run(board, tile, ("readers", "health"), lambda: r.inventory is real)
    card.mem[16:32] = identity_record(b"queen")
    run(board, tile, ("readers", "health"), polls_of(tile, 0, 10))
    assert tags_sent(board, 0) == [[(CARD, b"queen")]]


# -- the host's commands, once more -----------------------------------------------------------

def scene_frame(seq, cell, level):
    from shared_rules.led_scene import SOLID, uniform_scene
    return host_frame(wire.LED_SCENE, seq, wire.led_scene([(cell, uniform_scene(
        SOLID, (level, 0, 0)))]))


def test_a_command_whose_handling_fails_is_handled_when_the_host_resends_it():
    tile, board = make_tile(4)
    calls = []
    real = tile.set_scene

    def set_scene(cells):
        calls.append(cells[0]["cell"])
        if len(calls) == 1:
            raise MemoryError("memory allocation failed")
        return real(cells)

    tile.set_scene = set_scene
    # Two commands in one read: the first fails, the second is handled all the same.
    board.port.inbox += b"\x00" + scene_frame(40, 0, 10) + scene_frame(41, 1, 10)
    run(board, tile, ("link",), most_ms=50)
    assert calls == [0, 1] and acks(board) == {41: "ok"}
    assert tile.failures == 1 and [type(e) for _, e in board.failures] == [MemoryError]
    board.port.inbox += scene_frame(40, 0, 10)          # the host's resend
    run(board, tile, ("link",), most_ms=50)
    assert calls == [0, 1, 0] and acks(board) == {40: "ok", 41: "ok"}
    board.port.inbox += scene_frame(40, 0, 10) + scene_frame(41, 1, 10)   # late resends
    run(board, tile, ("link",), most_ms=50)
    assert calls == [0, 1, 0]
    assert [m["ack"] for m in board.heard() if m["type"] == "ack"] == [41, 40, 40, 41]


def test_a_snapshot_that_finds_no_block_in_the_heap_waits_for_the_next_round_of_polls(
        monkeypatch):
    # Old tile logs of noisy Battle Royale games: "link: MemoryError ... allocating 122
    # bytes" in wire.snapshot. Not a failure of the link task: the snapshot waits, as a
    # slot's report waits, and goes after the next round of polls.
    tile, board = make_tile(4)
    board.emus[1].place(NtagCard(CARD, identity_record(b"queen")))
    run(board, tile, ("readers", "health"), polls_of(tile, 1, 3))
    real = wire.snapshot
    tries = []

    def no_block(*args):
        tries.append(1)
        if len(tries) == 1:
            raise MemoryError("memory allocation failed, allocating 122 bytes")
        return real(*args)

    monkeypatch.setattr(wire, "snapshot", no_block)
    board.port.inbox += b"\x00" + host_frame(wire.SNAPSHOT_REQUEST, 5)
    run(board, tile, ("link",), most_ms=50)
    assert tries == [1] and tile.snapshot_wanted
    assert not [m for m in board.heard() if m["type"] == "snapshot"]
    run(board, tile, ("readers", "health", "link"), polls_of(tile, 0, 2))
    assert board.failures == [] and tile.failures == 0
    snaps = [m for m in board.heard() if m["type"] == "snapshot"]
    assert len(snaps) == 1 and not tile.snapshot_wanted
    assert [(s["slot"], [t["uid"] for t in s["tags"]]) for s in snaps[0]["slots"]
            if s["tags"]] == [(1, [CARD])]


def test_a_command_repeated_within_one_read_is_handled_once():
    tile, board = make_tile(4)
    calls = []
    real = tile.set_scene
    tile.set_scene = lambda cells: calls.append(1) or real(cells)
    board.port.inbox += b"\x00" + scene_frame(7, 0, 10) + scene_frame(7, 0, 10)
    run(board, tile, ("link",), most_ms=50)
    assert calls == [1] and acks(board) == {7: "ok"}


@pytest.mark.parametrize("how", ["silence", "hello_request"])
def test_a_new_host_session_is_not_taken_for_resends_of_the_old_one(how):
    # A host that starts again numbers its commands from 1: after a silence, or after
    # its HELLO_REQUEST, a seq the tile acted on before is a new command.
    tile, board = make_tile(4)
    board.port.inbox += b"\x00" + scene_frame(1, 0, 10)
    run(board, tile, ("link",), most_ms=50)
    first = bytes(tile.effects.scenes)
    if how == "silence":
        run(board, tile, ("link",), most_ms=tile.timings["host_timeout_ms"] + 100)
    else:
        board.port.inbox += host_frame(wire.HELLO_REQUEST, 1000)
    board.port.inbox += scene_frame(1, 0, 200)
    run(board, tile, ("link",), most_ms=50)
    assert bytes(tile.effects.scenes) != first, "the new session's scene was dropped"


def test_a_silent_host_costs_one_heartbeat_a_second_at_most():
    # A host that is not reading: once the USB buffer's worth is written, the heartbeats
    # that are due are not written, and not built pass after pass either.
    tile, board = make_tile(1)
    run(board, tile, ("link",), most_ms=60000)
    assert tile.link.tx_failed > 0
    assert tile.link.seq <= 61, tile.link.seq


def test_a_reboot_for_maintenance_whose_flag_cannot_be_written_is_refused():
    tile, board = make_tile(1)
    board.flag_fails = True
    board.port.inbox += host_frame(wire.REBOOT, 3, wire.reboot(wire.REBOOT_MAINTENANCE))
    run(board, tile, ("link",), most_ms=200)
    assert board.rebooted == [] and acks(board) == {3: "unsupported"}
    board.flag_fails = False
    board.port.inbox += host_frame(wire.REBOOT, 4, wire.reboot(wire.REBOOT_MAINTENANCE))
    with pytest.raises(Rebooted):
        run(board, tile, ("link",))
    assert board.rebooted == [1] and acks(board) == {3: "unsupported", 4: "ok"}


def test_health_says_the_longest_loop_pass_since_the_last_health():
    tile, board = make_tile(1)
    tile.timings["health_period_ms"] = 1000
    tile.loop_max_ms = 75
    run(board, tile, ("health",), most_ms=2100)
    health = [m for m in board.heard() if m["type"] == "health"]
    assert [m["loop_max_ms"] for m in health] == [75, 0]


# -- ticks that wrap ---------------------------------------------------------------------------

PERIOD = 2 ** 20        # MicroPython's ticks wrap at 2**30 on a Pico (12.4 days of ms)


def test_the_loop_runs_on_across_a_wrap_of_the_ticks():
    # ticks_ms wraps 3 s in, ticks_us every 1.05 s.
    start_ms = PERIOD - 3000
    tile, board = make_tile(4, ticks_period=PERIOD, now_us=start_ms * 1000)
    board.emus[1].place(NtagCard(CARD, identity_record(b"knight")))
    tile.timings["health_period_ms"] = 300
    for seq in range(1, 11):            # a host that speaks every second
        board.port.inbox += host_frame(wire.HEARTBEAT, seq, wire.heartbeat(0))
        run(board, tile, ("readers", "render", "link", "health"), most_ms=1000)
    assert board.failures == [] and not tile.idle
    tags = {m["seq"]: m["tags"] for m in board.heard() if m["type"] == "tag"}    # resent
    assert list(tags.values()) == [[{"uid": CARD, "identity": b"knight"}]]
    assert tile.frames > 10 * 1000 // 33 - 10            # the LEDs kept their frame rate
    health = [m for m in board.heard() if m["type"] == "health"]
    assert len(health) >= 20
    ups = [m["uptime_ms"] for m in health]
    assert ups == sorted(ups) and 9000 <= ups[-1] <= 10000, ups


def test_uptime_and_a_silent_host_stay_right_for_longer_than_half_the_ticks_period():
    tile, board = make_tile(1, ticks_period=PERIOD)
    link = tile.link
    board.port.inbox += host_frame(wire.HEARTBEAT, 1, wire.heartbeat(0))
    link.receive()
    assert not link.host_silent(board.ticks_ms())
    up = tile.uptime()
    step_ms = 60000                     # the health task asks far more often
    for step in range(1, 3 * PERIOD // step_ms):
        board.now_us += step_ms * 1000
        now = board.ticks_ms()
        assert link.host_silent(now), "a host silent for %d ms counts as heard" % (
            step * step_ms)
        assert tile.uptime(now) == up + step * step_ms
    board.port.inbox += host_frame(wire.HEARTBEAT, 2, wire.heartbeat(0))
    link.receive()
    assert not link.host_silent(board.ticks_ms())
