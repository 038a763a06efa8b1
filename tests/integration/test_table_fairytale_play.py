"""Fairytale Games: The Battle Royale played on the virtual table: real MicroPython tiles on
pseudo-terminals (twelve: the map's rows, the Dragon Inn's tile of one cell and four readers,
the deck readers, the dice tray and two seat tiles), every step a token lifted and put down,
every discovery a location card laid, every event flipped onto the event reader, every battle
card laid on its seat's reader and every die read in the tray; the journal in SQLite.

Each game must end exactly as the same bots playing the engine alone, with the cards the
table reads and the dice it throws (tools/fairytale_games.py --table): the same actions, the
same winner, the same kills. A single-player game, seed 1: the three hunters killed in 181
actions (about 40 s on the virtual table). A two-player game's first 90 actions (both seats
choosing at once, steps and discoveries, the Sundial's flips, battles, dice). A tile killed
in the middle (the Dragon Inn's) changes nothing; the host killed three times in the
single-player game is test_restart_lit.py's. The whole games of 2 to 10 players are a tool's
(`python tools/fairytale_games.py table`), with their figures in BENCHMARKS.md.
"""

import json
import os
import signal
import subprocess
import sys

from mpy import REPO
from table_helpers import journal_of, wait_for_journalled
from shared_rules import canon
from tools import fairytale_games

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")
INN_TILE_UID = "e661410400000005"   # the layout's fifth tile: the Dragon Inn's


def command(journal, players, seed, extra=()):
    return [FAIRYTABLE, "run", "--game", "fairytale", "--players", str(players), "--headless",
            "--bots", str(players), "--json", "--seed", str(seed), "--journal",
            str(journal)] + list(extra)


def twin(players, seed, limit=20000):
    """The same bots with the table's cards and dice, without a table."""
    return fairytale_games.play_bots({"players": players}, seed, limit, table=True)


def summary_of(proc):
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


def check_game(summary, actions, expected):
    s = expected.state
    assert summary["game"] == "fairytale" and summary["status"] == s.status
    assert summary["winner"] == s.winner
    assert summary["actions"] == len(expected.actions) == len(actions)
    assert summary["turns"] == s.day
    # The journal holds the table's actions: the cards it read, the dice it threw.
    assert canon.dumps(actions) == canon.dumps(expected.actions)
    assert len(summary["tiles"]) == 12 and all(t["online"] for t in summary["tiles"].values())
    for uid, tile in summary["tiles"].items():
        assert tile["health"]["heap_free"] > 4096, (uid, tile["health"])
        assert tile["health"]["errors_logged"] == 0, (uid, tile["health"])


def test_a_single_player_game_plays_to_the_hunters_killed_as_the_engine_alone(tmp_path):
    journal = tmp_path / "journal.db"
    # Seed 6: the bot kills the three hunters (most seeds end in the universal loss).
    proc = subprocess.run(command(journal, 1, 6, ["--new"]), capture_output=True, cwd=REPO,
                          timeout=900)
    summary = summary_of(proc)
    assert b"starting the virtual table (12 tiles" in proc.stderr
    expected = twin(1, 6)
    assert expected.state.end_reason == "hunters_killed" and expected.state.winner == "p1"
    actions = journal_of(journal)
    check_game(summary, actions, expected)
    kinds = set(a["type"] for a in actions)
    assert {"choose", "flip_event", "step", "attack", "defend", "enemy_turn", "search",
            "take_victory", "end_turn"} <= kinds
    # Discoveries read off the table, the day's events off the event reader, the dice off
    # the tray.
    assert any("cards" in a for a in actions if a["type"] == "step")
    assert all("cards" in a for a in actions if a["type"] == "flip_event")
    assert any("dice" in a for a in actions if a["type"] == "enemy_turn")
    victory = [a for a in actions if a["type"] == "take_victory"]
    assert victory and all(len(a["cards"]) == 1 for a in victory)


def test_a_two_player_game_plays_its_first_actions_as_the_engine_alone(tmp_path):
    journal = tmp_path / "journal.db"
    proc = subprocess.run(command(journal, 2, 1, ["--new", "--max-actions", "90"]),
                          capture_output=True, cwd=REPO, timeout=900)
    summary = summary_of(proc)
    expected = twin(2, 1, limit=90)
    actions = journal_of(journal)
    assert summary["status"] == "ongoing" and summary["actions"] == 90
    assert canon.dumps(actions) == canon.dumps(expected.actions)
    kinds = set(a["type"] for a in actions)
    assert {"choose", "flip_event", "battle", "attack", "defend", "open_quest", "start_quest",
            "equip"} <= kinds
    # Both seats chose at once, each laying a character card on its own reader.
    assert [a["seat"] for a in actions[:2]] == ["p1", "p2"]


def tile_process(host_pid, uid):
    """The pid of the virtual tile `uid` among the host's processes (its environment says
    which tile it is), or None."""
    from tools.kill_games import descendants
    for pid in descendants(host_pid):
        try:
            with open("/proc/%d/environ" % pid, "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        for entry in env:
            if entry.startswith(b"FAIRYTABLE_TILE=") and entry.split(b"=", 1)[1].split()[0] \
                    .decode() == uid:
                return pid
    return None


def test_a_tile_killed_in_the_middle_changes_nothing(tmp_path):
    """kill -9 of the Dragon Inn's tile (its four readers, its tokens) in the middle of a
    game: the virtual table restarts it as a tile's watchdog would, the host reads its
    snapshot again, and the game ends as if nothing had happened."""
    journal = tmp_path / "journal.db"
    host = subprocess.Popen(command(journal, 1, 1, ["--new"]), cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        assert wait_for_journalled(host, journal, 40) >= 40 and host.poll() is None
        pid = tile_process(host.pid, INN_TILE_UID)
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        out, err = host.communicate(timeout=900)
    finally:
        try:
            os.killpg(host.pid, signal.SIGKILL)
        except OSError:
            pass
        host.wait()
    proc = subprocess.CompletedProcess(host.args, host.returncode, out, err)
    summary = summary_of(proc)
    # The Inn's tile is a new process: up for less time than any other tile.
    uptime = dict((uid, t["health"]["uptime_ms"]) for uid, t in summary["tiles"].items())
    inn = uptime.pop(INN_TILE_UID)
    assert inn < min(uptime.values()) - 1000, (inn, uptime)
    assert summary["tiles"][INN_TILE_UID]["online"]
    expected = twin(1, 1)
    actions = journal_of(journal)
    assert canon.dumps(actions) == canon.dumps(expected.actions)
    assert summary["winner"] == expected.state.winner
