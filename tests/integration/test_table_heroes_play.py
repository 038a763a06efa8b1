"""Battle Royale with hero teams played whole on the virtual table: real MicroPython tiles on
pseudo-terminals, every action going through figure and flag tags on the board, cards laid
on the seat tile's card readers, pad taps and the dice tray (the virtual hands roll seeded
dice), the journal in SQLite.

Capture the Flag, seed 5, is one of the shortest two-player games (33 actions: the roll-offs,
the picks, moves, attacks, an area attack card, defence cards, and a flag carried home); it
must end as the same bots with the same dice end without a table. Battle Royale plays from a
small setup (two characters a side, already close and weak, seed 17: 17 actions with a move,
an area attack rolling two white dice, defences, no_defence and a Bonus Card roll). Each game
takes about 15 s on the virtual table.
"""

import json
import os
import sqlite3
import subprocess
import sys

from mpy import REPO
from table_helpers import journal_of, pull_plug_after
from host.games.heroes.adapter import HeroesGame
from host.games.heroes.interpreter import table_dice
from shared_rules import bots, canon, heroes
from shared_rules.engine import Match

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")
SMALL_ROYALE = {"characters": [
    {"id": "robin_hood", "seat": "red", "cell": [2, 3], "health": 2},
    {"id": "gretel", "seat": "red", "cell": [3, 2], "health": 2},
    {"id": "big_bad_wolf", "seat": "blue", "cell": [4, 3], "health": 2},
    {"id": "rumpelstiltskin", "seat": "blue", "cell": [3, 4], "health": 2}],
    "turn": "red"}


def engine_only_game(seed, options, setup=None):
    """The same bots and the same dice, without a table: what the table game must end as."""
    match = Match("heroes", options, seed, setup)
    game = HeroesGame()
    while heroes.status(match.state) == "ongoing":
        assert len(match.actions) < 3000, "the bots did not finish seed %d" % seed
        s = match.state
        action = bots.choose("greedy", match.engine, s, game.actors(s)[0], seed)
        match.apply(table_dice(s, action, seed, len(match.actions)))
    return match


def command(journal, seed, extra=()):
    return [FAIRYTABLE, "run", "--game", "heroes", "--headless", "--bots", "2", "--json",
            "--seed", str(seed), "--journal", str(journal)] + list(extra)


def play(tmp_path, seed, extra):
    journal = tmp_path / "journal.db"
    proc = subprocess.run(command(journal, seed, ["--new"] + extra), capture_output=True,
                          cwd=REPO, timeout=600)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    assert b"starting the virtual table (9 tiles" in proc.stderr
    db = sqlite3.connect(str(journal))
    actions = [json.loads(a) for (a,) in db.execute("SELECT action FROM actions ORDER BY seq")]
    return json.loads(proc.stdout), actions


def check_game(summary, actions, expected):
    assert summary["game"] == "heroes" and summary["status"] == "finished"
    assert expected.state.winner is not None
    assert summary["winner"] == expected.state.winner
    assert summary["actions"] == len(expected.actions)
    assert summary["turns"] == expected.state.turn_number
    assert summary["led_scenes_sent"] > summary["actions"]
    assert len(summary["tiles"]) == 9 and all(t["online"] for t in summary["tiles"].values())
    for uid, tile in summary["tiles"].items():
        assert tile["health"]["heap_free"] > 4096, (uid, tile["health"])
    # Every die came from the tray: the journal holds the table's dice, action for action.
    assert canon.dumps(actions) == canon.dumps(expected.actions)
    assert all("dice" in a for a in actions if a["type"] in ("roll_off", "attack"))
    assert all("die" in a for a in actions if a["type"] == "roll_move")


def test_a_headless_capture_the_flag_game_plays_to_the_flag_brought_home(tmp_path):
    summary, actions = play(tmp_path, 5, ["--mode", "ctf"])
    expected = engine_only_game(5, {"mode": "ctf", "players": 2})
    check_game(summary, actions, expected)
    assert expected.state.end_reason == "flag_home"
    kinds = set(a["type"] for a in actions)
    assert {"roll_off", "pick", "roll_move", "move", "attack", "play_card", "defend",
            "end_turn"} <= kinds
    assert any("flag_to" in a for a in actions)


def test_a_headless_battle_royale_game_plays_to_the_last_character_standing(tmp_path):
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps(SMALL_ROYALE))
    summary, actions = play(tmp_path, 17, ["--setup", str(setup)])
    expected = engine_only_game(17, {"mode": "royale", "players": 2}, SMALL_ROYALE)
    check_game(summary, actions, expected)
    assert expected.state.end_reason == "last_standing"
    kinds = set(a["type"] for a in actions)
    assert {"roll_move", "move", "attack", "play_card", "defend", "no_defence", "roll_bonus",
            "end_turn"} <= kinds
    # An area attack read two white dice, one throw each.
    assert any(len(a["dice"]["white"]) == 2 for a in actions if "dice" in a and
               a["type"] == "play_card")


def test_kill_9_then_restart_resumes_the_same_capture_the_flag_game(tmp_path):
    journal = tmp_path / "journal.db"
    pull_plug_after(command(journal, 5, ["--new", "--mode", "ctf"]), journal, 15, REPO)
    before = len(journal_of(journal))
    assert 15 <= before < 33
    # The same command without --new (and without --mode: the game keeps its own) resumes
    # it; another --seed would be refused.
    proc = subprocess.run(command(journal, 5), capture_output=True, cwd=REPO, timeout=600)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    expected = engine_only_game(5, {"mode": "ctf", "players": 2})
    check_game(json.loads(proc.stdout), journal_of(journal), expected)


