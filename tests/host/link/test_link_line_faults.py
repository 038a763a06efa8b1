"""Line faults: the noisy line relay, and a whole game on it against its fault-free twin.

The relay (host/link/noisy_line.py) sits between a tile's pseudo-terminal and the
host and damages bytes both ways; tools/line_faults.py plays many games on it for
the figures. Here: the relay damages what it is told to, and a Storybook game
at 10 % corrupted and 1 % dropped bytes on every tile's line ends as its twin.
"""

import os
import select
import tty

import pytest
from mpy import requires_micropython

from host.link import noisy_line
from tools import line_faults


def read_all(fd, want, timeout=10.0):
    out = bytearray()
    while len(out) < want:
        r, _, _ = select.select([fd], [], [], timeout)
        if not r:
            break
        out += os.read(fd, 65536)
    return bytes(out)


def relay_once(payload, corrupt, drop, seed):
    master, slave = os.openpty()        # the tile's end: it writes to master
    tty.setraw(master)
    tty.setraw(slave)
    line = noisy_line.NoisyLine(os.ttyname(slave), corrupt, drop, seed)
    host = os.open(line.port, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(host)
    try:
        for i in range(0, len(payload), 1000):
            os.write(master, payload[i:i + 1000])
        counts = line.counts["to_host"]
        got = read_all(host, len(payload) - int(len(payload) * drop * 2), timeout=2.0)
        got += read_all(host, 1 << 30, timeout=0.5)
        return got, dict(counts)
    finally:
        line.close()
        for fd in (host, master, slave):
            os.close(fd)


def test_the_noisy_line_drops_and_corrupts_the_fractions_it_is_given_and_no_more():
    payload = bytes(range(256)) * 80        # 20480 bytes
    got, counts = relay_once(payload, 0.10, 0.01, seed=3)
    assert counts["bytes"] == len(payload)
    assert len(got) == len(payload) - counts["dropped"]
    assert 0.007 < counts["dropped"] / len(payload) < 0.013
    assert 0.08 < counts["corrupted"] / len(payload) < 0.12
    # Seeded: the same bytes meet the same faults.
    again, _ = relay_once(payload, 0.10, 0.01, seed=3)
    assert again == got
    clean, counts = relay_once(payload, 0.0, 0.0, seed=3)
    assert clean == payload and counts["dropped"] == counts["corrupted"] == 0


@pytest.mark.parametrize("text, words", [("10", "CORRUPT,DROP"), ("a,b", "numbers"),
                                         ("120,1", "from 0 to 100")])
def test_line_fault_rates_are_checked(text, words):
    with pytest.raises(ValueError, match=words):
        noisy_line.parse_rates(text)


@requires_micropython
def test_a_storybook_game_at_10_percent_corrupted_and_1_percent_dropped_ends_as_its_twin(
        tmp_path):
    seed = 11
    twin = line_faults.play("storybook", seed, str(tmp_path / "twin.db"), deadline=300)
    assert not twin["stalled"], twin["why"]
    # Generous: this bounds a stalled game, it is not a timing assertion.
    noisy = line_faults.play("storybook", seed, str(tmp_path / "noisy.db"), (10, 1),
                             deadline=1500)
    assert not noisy["stalled"], noisy["why"]
    assert line_faults.same_game(noisy, twin) is None
    assert noisy["offline"] == 0
    assert noisy["tile_errors"] == twin["tile_errors"] == 0, noisy["tile_error_lines"]
