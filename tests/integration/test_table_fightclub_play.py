"""Fairy Tale Fight Club played whole on the virtual table: real MicroPython tiles on
pseudo-terminals, every load, move, exchange, Market card and completed contract going
through creature and contract tags (stacks of them on the wagons), the journal in SQLite.

A short game: the four Level I contracts in play and two left in the contract deck, so
the game ends at its second completed contract (the book's "only four Contract cards left
in play"); seed 4 has the two greedy bots load, move between wagons, exchange with the
Market, buy wagons and complete both, in 33 actions (about 20 s on the virtual table).
"""

import json
import os
import sqlite3
import subprocess
import sys

from mpy import REPO
from shared_rules import canon, fightclub
from tools import fightclub_bots

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")
SHORT = {"contracts": [{"id": "L1-01"}, {"id": "L1-02"}, {"id": "L1-03"}, {"id": "L1-04"}],
         "contract_deck": ["L1-05", "L1-06"]}


def engine_only_game(seed, players, setup):
    """The same bots without a table: what the table game must end as."""
    match = fightclub_bots.play(players, seed, 2000, setup)
    assert fightclub.status(match.state) == "finished", "the bots did not finish seed %d" % seed
    return match


def command(tmp_path, journal, seed, extra=()):
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps(SHORT))
    return [FAIRYTABLE, "run", "--game", "fightclub", "--players", "2", "--setup", str(setup),
            "--headless", "--bots", "2", "--json", "--seed", str(seed), "--journal",
            str(journal)] + list(extra)


def tile_failures(folder):
    """Lines of the kept tile logs (FAIRYTABLE_TILE_LOGS) that say a tile task failed."""
    out = []
    for path in sorted(folder.rglob("tile*.log")):
        for line in path.read_text(errors="replace").splitlines():
            if "Error" in line or "failed" in line or "giving up" in line:
                out.append("%s: %s" % (path.name, line))
    return out


def test_a_short_headless_fightclub_game_ends_as_the_engine_only_game(tmp_path):
    journal = tmp_path / "journal.db"
    logs = tmp_path / "tile-logs"
    env = dict(os.environ, FAIRYTABLE_TILE_LOGS=str(logs))
    proc = subprocess.run(command(tmp_path, journal, 4, ["--new"]), capture_output=True,
                          cwd=REPO, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    # No tile ran out of memory or had a task fail on the way: the host logs a tile's
    # error LOG ("tile UID: readers: MemoryError(...)"), the tile's own log its traceback.
    assert b"MemoryError" not in proc.stderr, proc.stderr.decode()[-3000:]
    assert list(logs.rglob("tile*.log")), "the tile logs were not kept"
    assert tile_failures(logs) == []
    assert b"starting the virtual table (7 tiles" in proc.stderr
    summary = json.loads(proc.stdout)
    expected = engine_only_game(4, 2, SHORT)
    assert summary["game"] == "fightclub" and summary["status"] == "finished"
    assert summary["winner"] == expected.state.winner
    assert summary["scores"] == fightclub.scores(expected.state)
    assert summary["actions"] == len(expected.actions)
    assert summary["led_scenes_sent"] > summary["actions"]
    db = sqlite3.connect(str(journal))
    actions = [json.loads(a) for (a,) in db.execute("SELECT action FROM actions ORDER BY seq")]
    assert canon.dumps(actions) == canon.dumps(expected.actions)
    assert db.execute("SELECT finished FROM games").fetchone()[0] == 1
    kinds = set(a["type"] for a in actions)
    # Each of these went through the tags: cards on wagons, between them, into and out of
    # the Market, and a wagon's stack lifted with its contract.
    assert {"load", "move", "exchange", "to_market", "complete"} <= kinds
    assert sum(1 for a in actions if a["type"] == "complete") == 2
    assert len(summary["tiles"]) == 7 and all(t["online"] for t in summary["tiles"].values())
