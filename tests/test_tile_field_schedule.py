"""The tile's field schedule (firmware/main.py readers_task) on a virtual clock.

The readers here are stand-ins that log when their field goes on and off and
when they are polled; the clock moves only when the loop sleeps. So the
schedule's rules are checked exactly: every poll comes after a full field
settle, neighbours never have their fields on together, no more than
`max_fields` are on at once, every reader is polled each round, a failed
reader neither stalls nor starves the others, and a silent host slows the
polls down with every field off in between.
"""

import asyncio

import pytest

from firmware import config
from firmware.main import Tile


class Clock:
    def __init__(self):
        self.now = 1000

    def ticks_ms(self):
        return self.now

    @staticmethod
    def ticks_diff(a, b):
        return a - b


class FakeReader:
    def __init__(self, i, log, clock):
        self.i = i
        self.log = log
        self.clock = clock
        self.on = False
        self.errors = 0
        self.reinits = 0
        self.field_settle_us = 0
        self.fail = False

    def init(self):
        if self.fail:
            raise OSError("no chip")

    def antenna(self, on):
        self.on = bool(on)
        self.log.append((self.clock.now, "on" if on else "off", self.i))

    def inventory(self, max_tags, identities):
        assert self.on, "polled with its field off"
        self.log.append((self.clock.now, "poll", self.i))
        self.clock.now += 1             # a poll takes a millisecond of chip time
        self.antenna(False)
        return []


class FakePort:
    def read(self):
        return b""

    def write(self, data):
        return True


class FakeBoard:
    has_watchdog = False

    def __init__(self, clock, n, failing=()):
        self.clock = clock
        self.log = []
        self.port = FakePort()
        self.ticks_ms = clock.ticks_ms
        self.ticks_diff = clock.ticks_diff
        self.rs = [FakeReader(i, self.log, clock) for i in range(n)]
        for i in failing:
            self.rs[i].fail = True

    async def sleep_ms(self, ms):
        self.clock.now += max(0, ms)
        await asyncio.sleep(0)

    def readers(self, n):
        return self.rs

    def boot_id(self):
        return 1

    def poll_pause_ms(self, slot, ms):
        return 0


def run_schedule(n, polls, failing=(), idle=False, variant="cell"):
    clock = Clock()
    board = FakeBoard(clock, n, failing)
    spec = config.variant(variant, n) if variant == "cell" else config.variant("dice")
    tile = Tile(board, spec, {"field_settle_us": 5000})
    tile.start_readers()
    tile.idle = idle

    async def main():
        task = asyncio.ensure_future(tile.readers_task())
        while sum(1 for e in board.log if e[1] == "poll") < polls:
            await asyncio.sleep(0)
        tile.running = False
        await task

    asyncio.run(main())
    return tile, board.log


def replay(log, n):
    """Check the invariants along the log; returns (max fields on, polls per reader)."""
    on_since = {}
    most = 0
    polls = [0] * n
    for t, what, i in log:
        if what == "on":
            assert i not in on_since
            on_since[i] = t
            most = max(most, len(on_since))
            for j in on_since:
                assert j == i or abs(i - j) >= spacing(n), "neighbours %d and %d on" % (i, j)
        elif what == "off":
            on_since.pop(i, None)
        else:
            assert t - on_since[i] >= 5, "reader %d polled %d ms after its field" % (
                i, t - on_since[i])
            polls[i] += 1
    return most, polls


def spacing(n):
    return config.variant("cell", n)["field_spacing"] if n > 3 else n


@pytest.mark.parametrize("n", [1, 2, 7, 8])
def test_each_poll_waits_the_settle_and_neighbours_never_share_a_moment(n):
    tile, log = run_schedule(n, 40 * n)
    most, polls = replay(log, n)
    assert most <= config.variant("cell", n)["max_fields"]
    assert max(polls) - min(polls) <= 2       # every reader gets its turn
    assert tile.rounds >= 38


def test_a_row_of_seven_polls_faster_than_one_field_at_a_time():
    _, log = run_schedule(7, 7 * 30)
    starts = [t for t, what, i in log if what == "poll" and i == 0]
    period = (starts[-1] - starts[5]) / (len(starts) - 6)
    # One field at a time would be 7 x (settle 6 + poll 1) = 49 ms a round.
    assert period < 25, period


def test_the_dice_tray_reads_one_pocket_at_a_time():
    tile, log = run_schedule(3, 30, variant="dice")
    most, polls = replay(log, 3)
    assert most == 1 and min(polls) >= 9


def test_a_failed_reader_neither_stalls_nor_starves_the_others():
    tile, log = run_schedule(7, 7 * 20, failing=(2,))
    most, polls = replay(log, 7)
    assert polls[2] == 0
    assert min(p for i, p in enumerate(polls) if i != 2) >= 20
    assert tile.rounds >= 20


def test_with_the_host_silent_each_round_ends_with_every_field_off_and_a_pause():
    _, log = run_schedule(7, 7 * 4, idle=True)
    on = set()
    pauses = 0
    for (t, what, i), (t_next, _, _) in zip(log, log[1:], strict=False):
        if what == "on":
            on.add(i)
        elif what == "off":
            on.discard(i)
        if t_next - t >= config.TIMINGS["idle_poll_gap_ms"]:
            assert not on, "fields %r on during the idle pause" % sorted(on)
            pauses += 1
    assert pauses >= 3
