"""Battle Royale played whole on the virtual table: real MicroPython tiles on pseudo-terminals,
every action going through pawn tags, pads and the dice tray (the virtual hands roll seeded
dice), the journal in SQLite (kill -9s of the host: test_restart_lit.py).

The full 25-card diamond is what `fairytable run --game royale --headless --bots N` plays;
seeds 31 and 39 are among the shortest two-player games on it (94 actions, about a minute
on the virtual table; BENCHMARKS.md). A small map (six face-down cards) plays seed 8,
whose order roll is a tie (that game used to roll the same tie for ever).
"""

import json
import os
import sqlite3
import subprocess
import sys

from mpy import REPO
from host.games.royale.adapter import RoyaleGame
from host.games.royale.dice import table_dice
from shared_rules import royale_bot
from shared_rules import canon, royale
from shared_rules.engine import Match

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")
SMALL_MAP = {"map": [{"cell": c, "card": k} for c, k in [
    ([0, 0], "S5"), ([1, 0], "H3"), ([0, 1], "D8"), ([-1, 0], "C7"), ([0, -1], "S4"),
    ([1, 1], "H9")]]}


def engine_only_game(seed, players, setup=None):
    """The same bots and the same dice, without a table: what the table game must end as."""
    match = Match("royale", {"players": players}, seed, setup)
    while royale.status(match.state) == "ongoing":
        assert len(match.actions) < 3000, "the bots did not finish seed %d" % seed
        s = match.state
        action = royale_bot.choose("greedy", s, RoyaleGame().actors(s)[0], seed)
        match.apply(table_dice(s, action, seed, len(match.actions)))
    return match


def command(journal, seed, tmp_path, extra=(), small=False):
    """`fairytable run` of a headless two-bot game: the full map, or the small one."""
    setup = []
    if small:
        path = tmp_path / "setup.json"
        path.write_text(json.dumps(SMALL_MAP))
        setup = ["--players", "2", "--setup", str(path)]
    return [FAIRYTABLE, "run", "--game", "royale"] + setup + [
        "--headless", "--bots", "2", "--json", "--seed", str(seed), "--journal",
        str(journal)] + list(extra)


def journal_actions(journal):
    db = sqlite3.connect(str(journal))
    return [json.loads(a) for (a,) in db.execute("SELECT action FROM actions ORDER BY seq")]


def check_game(summary, journal, expected):
    assert summary["game"] == "royale" and summary["status"] == "finished"
    assert summary["winner"] == expected.state.winner
    assert summary["scores"] == royale.scores(expected.state)
    assert summary["actions"] == len(expected.actions)
    assert summary["turns"] == RoyaleGame().turns(expected)
    assert summary["led_scenes_sent"] > summary["actions"]
    assert len(summary["tiles"]) == 5 and all(t["online"] for t in summary["tiles"].values())
    # Every roll came from the tray: the journal holds the table's dice, action for action.
    actions = journal_actions(journal)
    assert canon.dumps(actions) == canon.dumps(expected.actions)
    assert all("dice" in a for a in actions if a["type"] in ("roll_order", "attack_card"))
    return actions


def test_a_headless_royale_game_plays_the_full_map_to_the_end_through_the_tiles(tmp_path):
    journal = tmp_path / "journal.db"
    proc = subprocess.run(command(journal, 31, tmp_path, ["--new"]), capture_output=True,
                          cwd=REPO, timeout=600)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    assert b"starting the virtual table (5 tiles" in proc.stderr
    summary = json.loads(proc.stdout)
    expected = engine_only_game(31, 2)
    assert len(expected.state.cards) == 25 == len(expected.state.map)   # the whole diamond
    actions = check_game(summary, journal, expected)
    kinds = set(a["type"] for a in actions)
    assert {"roll_order", "place", "move", "attack_card", "resurrect", "end_turn"} <= kinds
    # No tile ran short of memory with its cards and pawns on it.
    for uid, tile in summary["tiles"].items():
        assert tile["health"]["heap_free"] > 4096, (uid, tile["health"])


def test_a_tied_order_roll_is_rolled_again_through_the_tray_and_the_game_ends(tmp_path):
    journal = tmp_path / "journal.db"
    proc = subprocess.run(command(journal, 8, tmp_path, ["--new"], small=True),
                          capture_output=True, cwd=REPO, timeout=600)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    expected = engine_only_game(8, 2, SMALL_MAP)
    actions = check_game(json.loads(proc.stdout), journal, expected)
    rolls = [a["dice"] for a in actions if a["type"] == "roll_order"]
    assert len(rolls) >= 2 and rolls[0]["red"] == rolls[0]["blue"]
