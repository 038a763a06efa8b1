"""tools/bench_lit.py's core on the virtual table, for a couple of placements: the moves it
times really were applied, journalled and lit.

No figure is asserted (tests never assert on speed): what is checked is that each timed
placement is the bot's Storybook play that fights, found in the journal, that the LED
command it timed carries a new scene for that cell, and that the stamps follow the data
path in order (tag in the field, TAG at the host, applied, LED command, LED frame).
"""

import argparse
import asyncio
import json
import sqlite3

from mpy import requires_micropython
from host.games.storybook.scenes import SWORDS, TEAM_CAPTURE
from host.lights import MISMATCH
from tools import bench_lit


@requires_micropython
def test_two_storybook_plays_that_fight_are_timed_from_tag_to_lit(tmp_path):
    args = argparse.Namespace(game="storybook", moves=2, per_game=2, seed=1, mqtt=False,
                              deadline=240.0, slowest=0, json=True)
    result, placements = asyncio.run(bench_lit.measure(args, str(tmp_path)))
    assert result["lost"] == 0, result["why_lost"]
    assert result["moves"] == len(placements) >= 2
    assert result["interpreter"] == "micropython" and result["tiles"] == 7
    db = sqlite3.connect(str(tmp_path / "journal.db"))
    try:
        journalled = [json.loads(a) for (a,) in db.execute("SELECT action FROM actions")]
    finally:
        db.close()
    position = bench_lit.storybook_position({"mode": "physical"})
    assert len(position["board"]) == 20
    for p in placements:
        assert p.request["type"] == "play" and tuple(p.request["cell"]) == p.cell
        assert p.request in journalled
        assert 15 <= p.lying <= 22                  # about 20 cards lying on the table
        # The LED command timed changed this cell's scene to the card's: a card that fights
        # shows its swords (amber; red or purple when it bested) toward an enemy.
        assert p.scenes_after[p.slot] != p.scenes_before[p.slot]
        scene = p.scenes_after[p.slot]
        colours = [tuple(scene[k + 1:k + 4]) for k in range(0, 24, 6)]
        assert set(colours) & {SWORDS, MISMATCH, TEAM_CAPTURE}, colours
        # ... and a frame of the tile's LED buffer showed it.
        assert p.frames and p.lit_at in [t for t, _ in p.frames]
        assert p.tag_at < p.host_at <= p.applied_at <= p.sent_at < p.lit_at
