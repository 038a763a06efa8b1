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
import random

import pytest

from firmware import config
from firmware.main import Tile
from firmware.readers import field_phases, row_neighbours
from shared_rules import wire


class Clock:
    """Microseconds; the loop's sleeps and the readers' polls move it."""

    def __init__(self, jitter=0):
        self.now = 1000000
        self.jitter = jitter            # a busy machine: sleeps end up to this much late
        self.rng = random.Random(7)

    def ticks_ms(self):
        return self.now // 1000

    def ticks_us(self):
        return self.now

    @staticmethod
    def ticks_diff(a, b):
        return a - b

    @staticmethod
    def ticks_add(a, b):
        return a + b


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
        self.poll_us = 1000             # a poll's chip time: an empty cell, about 1 ms
        self.slow_polls = ()            # these polls (0-based) take 9 ms: a new card read
        self.polls = 0
        self.quick = []                 # per poll: whether the tile allowed a quick check

    reset_ms = 50

    def hard_reset(self, settle=True):
        return False                    # no RST line

    def soft_reset(self):
        pass

    def configure(self):
        if self.fail:
            raise OSError("no chip")

    def antenna(self, on):
        self.on = bool(on)
        self.log.append((self.clock.now, "on" if on else "off", self.i))

    def inventory(self, max_tags, identities, known=None, check=False):
        assert self.on, "polled with its field off"
        self.log.append((self.clock.now, "poll", self.i))
        self.quick.append(bool(check))
        self.clock.now += 9000 if self.polls in self.slow_polls else self.poll_us
        self.polls += 1
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
        self.ticks_us = clock.ticks_us
        self.ticks_diff = clock.ticks_diff
        self.ticks_add = clock.ticks_add
        self.rs = [FakeReader(i, self.log, clock) for i in range(n)]
        for i in failing:
            self.rs[i].fail = True

    async def sleep_ms(self, ms):
        c = self.clock
        c.now += max(0, ms) * 1000 + (c.rng.randrange(c.jitter) if c.jitter else 0)
        await asyncio.sleep(0)

    def readers(self, n):
        return self.rs

    def boot_id(self):
        return 1

    def sleep_us(self, us):
        self.clock.now += us

    def chip_wait(self, slot, start_us):
        pass                            # the fake readers move the clock themselves


def run_schedule(n, polls, failing=(), idle=False, variant="cell", slow=None, once=None,
                 jitter=0, near=None, near_after=0):
    """Run the loop until `polls` polls are logged. slow: {slot: poll time in us};
    once: {slot: polls of it that take 9 ms}; jitter: sleeps end up to this many us late;
    near: the host's FIELD_NEIGHBOURS masks, given after `near_after` polls."""
    clock = Clock(jitter)
    board = FakeBoard(clock, n, failing)
    for i, us in (slow or {}).items():
        board.rs[i].poll_us = us
    for i, which in (once or {}).items():
        board.rs[i].slow_polls = which
    spec = config.variant(variant, n) if variant == "cell" else config.variant("dice")
    tile = Tile(board, spec, {"field_settle_us": 5000})
    tile.start_readers()
    tile.idle = idle

    async def main():
        task = asyncio.ensure_future(tile.readers_task())
        told = near is None
        while sum(1 for e in board.log if e[1] == "poll") < polls:
            if not told and sum(1 for e in board.log if e[1] == "poll") >= near_after:
                assert tile.set_neighbours(near) == wire.ACK_OK
                board.log.append((clock.now, "told", None))
                told = True
            await asyncio.sleep(0)
        tile.running = False
        await task

    asyncio.run(main())
    return tile, board.log


def replay(log, n, near=None):
    """Check the invariants along the log; returns (max fields on, polls per reader).
    near: the neighbour masks (default: a row)."""
    near = near or row_neighbours(n, spacing(n))
    on_since = {}
    most = 0
    polls = [0] * n
    for t, what, i in log:
        if what == "on":
            assert i not in on_since
            on_since[i] = t
            most = max(most, len(on_since))
            for j in on_since:
                assert not near[i] >> j & 1, "neighbours %d and %d on" % (i, j)
        elif what == "off":
            on_since.pop(i, None)
        else:
            assert t - on_since[i] >= 5000, "reader %d polled %d us after its field" % (
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


def test_three_polls_in_four_may_be_quick_and_few_full_ones_share_a_round():
    # The driver may check a card lying alone with one anticollision frame (quick), but
    # every 4th poll of a reader is a full one (a newcomer with the card's first UID bytes
    # does not collide). Staggered by slot, so no round is all full polls.
    tile, _ = run_schedule(7, 7 * 40)
    flags = [r.quick for r in tile.readers]
    for i in range(7):
        assert len(flags[i]) >= 36
        for k in range(len(flags[i]) - 3):
            assert flags[i][k:k + 4].count(False) == 1, (i, flags[i])
    for k in range(36):
        assert sum(1 for i in range(7) if not flags[i][k]) <= 2, k


def test_a_row_of_seven_polls_faster_than_one_field_at_a_time():
    _, log = run_schedule(7, 7 * 30)
    starts = [t for t, what, i in log if what == "poll" and i == 0]
    period = (starts[-1] - starts[5]) / (len(starts) - 6) / 1000
    # One field at a time would be 7 x (settle 5 + poll 1) = 42 ms a round; two waves
    # of fields, 2 x 5 ms of settle and 7 polls of 1 ms.
    assert period < 18, period


def test_the_phases_take_every_other_cell_within_the_power_budget():
    assert field_phases(row_neighbours(7, 2), 4) == [[0, 2, 4, 6], [1, 3, 5]]
    assert field_phases(row_neighbours(8, 2), 4) == [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert field_phases(row_neighbours(8, 2), 3) == [[0, 2, 4], [1, 3, 5], [6], [7]]
    assert field_phases(row_neighbours(3, 3), 1) == [[0], [1], [2]]
    assert field_phases(row_neighbours(1, 2), 4) == [[0]]


# Tile 0 of host/games/royale/layout.toml: cells [0, 3], [-1, 2], [0, 2], [1, 2], [-2, 1],
# [-1, 1], [0, 1], and which of them share a side (host/table/layout.py computes it).
ROYALE_TILE_0 = [0b0000100, 0b0100100, 0b1001011, 0b0000100, 0b0100000, 0b1010010,
                 0b0100100]


def test_the_phases_follow_the_neighbours_the_host_gives():
    phases = field_phases(ROYALE_TILE_0, 4)
    assert sorted(i for p in phases for i in p) == list(range(7))
    for p in phases:
        assert len(p) <= 4
        for i in p:
            assert not any(ROYALE_TILE_0[i] >> j & 1 for j in p)
    # A row's phases would have put [0, 3] and [0, 2] (slots 0 and 2) on together.
    assert field_phases(row_neighbours(7, 2), 4)[0][:2] == [0, 2]


@pytest.mark.parametrize("after", [0, 23])
def test_neighbours_from_the_host_never_share_a_moment(after):
    _, log = run_schedule(7, 7 * 40, near=ROYALE_TILE_0, near_after=after)
    told = [e[1] for e in log].index("told")
    # Every field went off when the host told; from then on the host's neighbours hold.
    most, polls = replay(log[told + 1:], 7, ROYALE_TILE_0)
    assert most <= 4 and min(polls) >= 30


def test_neighbours_that_do_not_fit_the_tile_change_nothing():
    clock = Clock()
    tile = Tile(FakeBoard(clock, 7), config.variant("cell", 7), {"field_settle_us": 5000})
    before = [list(p) for p in tile.phases]
    for masks in (ROYALE_TILE_0[:6],                       # a mask short
                  [0b1] + ROYALE_TILE_0[1:],               # slot 0 its own neighbour
                  [0b10] + [0] * 6,                        # 0 names 1, 1 not 0
                  ROYALE_TILE_0[:6] + [0b10000000]):       # a slot the tile lacks
        assert tile.set_neighbours(masks) == wire.ACK_UNSUPPORTED
        assert tile.phases == before


@pytest.mark.parametrize("slow,once", [
    ({}, {}), ({0: 9000}, {}), ({3: 9000, 4: 9000}, {}), ({6: 25000}, {}),
    ({}, {0: (10,)}), ({}, {2: (7, 15)}), ({}, {0: (10,), 5: (10,)}),
    ({}, {i: (5 + i,) for i in range(7)})])
@pytest.mark.parametrize("jitter", [0, 1500])
def test_no_reader_waits_longer_than_a_round(slow, once, jitter):
    """Between two polls of a reader, every other reader is polled once: a slow poll (a
    new card's identity read, about 9 ms) delays a round but starves nobody."""
    n = 7
    _, log = run_schedule(n, n * 40, slow=slow, once=once, jitter=jitter)
    settle = 5000 + 1000                    # the settle, and the loop's ms sleeps
    polls_us = sum(slow.get(i, 1000) for i in range(n)) + 9000 * len(once)
    # Two phases' settles, every poll, and each sleep of the round late by the jitter
    # (a settle may take two sleeps, and the loop yields after each poll).
    bound = 2 * settle + polls_us + (n + 4) * jitter + 1000
    last = {}
    between = {}
    for t, what, i in log:
        if what != "poll":
            continue
        if i in last:
            assert t - last[i] <= bound, "reader %d waited %d us (bound %d)" % (
                i, t - last[i], bound)
            assert between[i] == set(range(n)) - {i}, (i, between[i])
        last[i] = t
        between[i] = set()
        for j in between:
            if j != i:
                between[j].add(i)


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
        if t_next - t >= config.timings()["idle_poll_gap_ms"] * 1000:
            assert not on, "fields %r on during the idle pause" % sorted(on)
            pauses += 1
    assert pauses >= 3
