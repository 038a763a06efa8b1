"""Whole games on the virtual table: real MicroPython tiles on pseudo-terminals, every action
going through tags, taps and buttons, the host's journal in SQLite (kill -9s of the host:
test_restart_lit.py)."""

import json
import os
import sqlite3
import subprocess
import sys

from mpy import REPO
from shared_rules import bots, canon, storybook
from shared_rules.engine import Match

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")


def engine_only_game(seed, levels=None):
    """The same bots playing without a table: what the table game must end as (`levels`:
    seat -> level, default normal)."""
    match = Match("storybook", {"mode": "physical"}, seed)
    levels = levels or {}
    while storybook.status(match.state) == "ongoing":
        seat = match.state.turn
        action = bots.choose(levels.get(seat, "greedy"), storybook, match.state, seat, seed)
        if action["type"] in ("play", "hide"):
            action.pop("facing", None)
        match.apply(action)
    return match


def run_table(journal, seed=None, extra=()):
    seeded = [] if seed is None else ["--seed", str(seed)]
    return subprocess.run([FAIRYTABLE, "run", "--headless", "--bots", "2", "--json"] + seeded
                          + ["--journal", str(journal)] + list(extra),
                          capture_output=True, cwd=REPO, timeout=600)


def test_a_headless_game_plays_to_the_end_through_the_tiles(tmp_path):
    journal = tmp_path / "journal.db"
    proc = run_table(journal, 3, ["--new"])
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    assert b"starting the virtual table" in proc.stderr
    summary = json.loads(proc.stdout)
    expected = engine_only_game(3)
    assert summary["status"] == "finished"
    assert summary["winner"] == expected.state.winner
    assert summary["scores"] == expected.state.scores
    assert summary["actions"] == len(expected.actions)
    assert summary["turns"] == expected.state.turn_number
    assert summary["led_scenes_sent"] > summary["actions"]
    assert len(summary["tiles"]) == 7 and all(t["online"] for t in summary["tiles"].values())
    # The journal holds exactly the accepted actions, in order.
    db = sqlite3.connect(str(journal))
    actions = [json.loads(a) for (a,) in db.execute("SELECT action FROM actions ORDER BY seq")]
    assert canon.dumps(actions) == canon.dumps(expected.actions)
    assert db.execute("SELECT finished FROM games").fetchone()[0] == 1


def test_a_hard_bot_plays_through_the_tiles_as_it_plays_alone(tmp_path):
    """A hard bot (the search) in the hero's seat thinks in a worker thread while the table's
    loop runs: its moves are the ones it makes with no table, so the game ends the same."""
    journal = tmp_path / "journal.db"
    proc = run_table(journal, 4, ["--new", "--level", "2=hard"])
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    summary = json.loads(proc.stdout)
    expected = engine_only_game(4, {"hero": "hard"})
    assert canon.dumps(expected.actions) != canon.dumps(engine_only_game(4).actions)
    assert summary["status"] == "finished"
    assert summary["winner"] == expected.state.winner
    db = sqlite3.connect(str(journal))
    actions = [json.loads(a) for (a,) in db.execute("SELECT action FROM actions ORDER BY seq")]
    assert canon.dumps(actions) == canon.dumps(expected.actions)
