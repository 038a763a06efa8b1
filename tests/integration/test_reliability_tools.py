"""Short runs of the reliability suite's long tools (RELIABILITY.md has the long figures):
the soak, the kill tool and the line-fault tool, run as their commands are, on the real
virtual table. Each takes every game the table plays (the host's registry); the hero teams
and Fight Club runs start from short positions (--setup) so that a game lasts seconds: the
same positions and seeds as tests/integration/test_table_heroes_play.py (seed 17, 17
actions) and test_table_fightclub_play.py (seed 4, 33 actions)."""

import json
import os
import re
import subprocess
import sys

import pytest

from mpy import REPO, requires_micropython

sys.path.insert(0, os.path.join(REPO, "tools"))
import line_faults  # noqa: E402

TOOLS = ["soak.py", "kill_games.py", "line_faults.py"]
# Two characters a side, already close and weak (hero teams, Battle Royale mode).
SMALL_HEROES = {"characters": [
    {"id": "robin_hood", "seat": "red", "cell": [2, 3], "health": 2},
    {"id": "gretel", "seat": "red", "cell": [3, 2], "health": 2},
    {"id": "big_bad_wolf", "seat": "blue", "cell": [4, 3], "health": 2},
    {"id": "rumpelstiltskin", "seat": "blue", "cell": [3, 4], "health": 2}],
    "turn": "red"}
# The four Level I contracts in play and two left: the game ends at the second completed.
SHORT_FIGHTCLUB = {"contracts": [{"id": "L1-01"}, {"id": "L1-02"}, {"id": "L1-03"},
                                 {"id": "L1-04"}], "contract_deck": ["L1-05", "L1-06"]}


def run_tool(*args, timeout=900):
    return subprocess.run([sys.executable] + list(args), capture_output=True, text=True,
                          cwd=REPO, timeout=timeout)


def json_lines(stdout):
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


@requires_micropython
def test_the_soak_plays_two_games_on_one_table_and_reads_every_tiles_heap():
    proc = run_tool(os.path.join("tools", "soak.py"), "--games", "2", "--game", "storybook",
                    "--seed", "5")
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = json_lines(proc.stdout)
    games, summary = lines[:-1], lines[-1]["summary"]["storybook"]
    assert [g["n"] for g in games] == [1, 2]
    assert all(g["status"] == "finished" and g["actions"] > 0 for g in games)
    for g in games:
        for moment in ("start", "end"):
            heaps = g[moment]["tile_heap_free"]
            assert len(heaps) == 7 and all(isinstance(h, int) and h > 0 for h in heaps)
            assert g[moment]["rss_kb"] > 0 and g[moment]["py_blocks"] > 0
        assert g["seconds"] > 0
        assert g["memory_errors"] == 0 and g["tile_restarts"] == 0
    assert summary["games"] == summary["finished"] == 2


@requires_micropython
def test_the_kill_tool_kills_a_tile_mid_game_and_the_game_ends_as_its_twin():
    proc = run_tool(os.path.join("tools", "kill_games.py"), "--what", "tile", "--trials", "1",
                    "--game", "storybook", "--seeds", "3", "--seed", "4")
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-2000:]
    lines = json_lines(proc.stdout)
    totals = lines[-1]["summary"]
    # --trials counts kills: a game that ended before its moment is "missed", drawn again.
    kills = [t for t in lines[:-1] if t["killed"]]
    assert len(kills) == totals["killed"] == 1 and totals["stalled"] == totals["orphans"] == 0
    assert totals["missed"] == len(lines) - 2
    assert kills[0]["same"] is True and totals["same"] == 1 and totals["differed"] == 0
    assert kills[0]["at_action"] >= 0 and kills[0]["at_s"] > 0


def setup_file(tmp_path, name, setup):
    path = tmp_path / name
    path.write_text(json.dumps(setup))
    return str(path)


def test_every_tool_takes_every_game_the_table_plays(tmp_path):
    games = line_faults.table_games()
    assert {"storybook", "royale", "heroes", "fightclub"} <= set(games)
    for tool in TOOLS:
        proc = run_tool(os.path.join("tools", tool), "--help", timeout=120)
        assert proc.returncode == 0, proc.stderr
        choices = re.search(r"--game \{([a-z,]+)\}", proc.stdout).group(1).split(",")
        assert choices == games, (tool, choices)
    # All bots, as many as the game usually has (no --players then: the options, which the
    # bots' choices are seeded from, stay those of the figures); a setup is passed on.
    assert line_faults.run_options("storybook") == ["--game", "storybook", "--bots", "2"]
    assert line_faults.run_options("royale") == ["--game", "royale", "--bots", "3"]
    small = setup_file(tmp_path, "small.json", SMALL_HEROES)
    assert line_faults.run_options("heroes", small) == ["--game", "heroes", "--bots", "2",
                                                        "--setup", small]
    short = setup_file(tmp_path, "short.json", SHORT_FIGHTCLUB)
    assert line_faults.run_options("fightclub", short, 3) == [
        "--game", "fightclub", "--players", "3", "--bots", "3", "--setup", short]


@pytest.mark.parametrize("tool", TOOLS)
def test_a_setup_is_refused_in_a_sentence_before_any_game(tool, tmp_path):
    bad = setup_file(tmp_path, "bad.json", {"characters": 5})
    args = ["--what", "tile"] if tool == "kill_games.py" else []
    for extra, words in ((["--game", "heroes", "--setup", bad],
                          "heroes: setup.characters: must be a list of characters"),
                         (["--game", "heroes", "--game", "royale", "--setup", bad],
                          "--setup FILE is the position of one game: give exactly one --game")):
        proc = run_tool(os.path.join("tools", tool), *(args + extra), timeout=120)
        assert proc.returncode == 2 and words in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr


@requires_micropython
def test_the_soak_plays_a_hero_teams_game_with_its_seat_readers(tmp_path):
    proc = run_tool(os.path.join("tools", "soak.py"), "--games", "1", "--game", "heroes",
                    "--setup", setup_file(tmp_path, "small.json", SMALL_HEROES),
                    "--seed", "17")
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = json_lines(proc.stdout)
    game, summary = lines[0], lines[-1]["summary"]["heroes"]
    assert game["game"] == "heroes" and game["status"] == "finished" and game["actions"] > 0
    # 7 row tiles, the dice tray and the seat tile of card readers.
    assert len(game["start"]["tile_heap_free"]) == 9
    assert all(isinstance(h, int) and h > 0 for h in game["end"]["tile_heap_free"])
    assert game["memory_errors"] == 0 and game["tile_restarts"] == 0
    assert summary["games"] == summary["finished"] == 1


@requires_micropython
def test_the_kill_tool_kills_a_tile_mid_fight_club_game_and_it_ends_as_its_twin(tmp_path):
    proc = run_tool(os.path.join("tools", "kill_games.py"), "--what", "tile", "--trials", "1",
                    "--game", "fightclub", "--setup",
                    setup_file(tmp_path, "short.json", SHORT_FIGHTCLUB), "--seeds", "4",
                    "--seed", "4")
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-2000:]
    lines = json_lines(proc.stdout)
    totals = lines[-1]["summary"]
    kills = [t for t in lines[:-1] if t["killed"]]
    assert [k["game"] for k in kills] == ["fightclub"] and kills[0]["same"] is True
    assert totals["killed"] == totals["same"] == 1
    assert totals["differed"] == totals["stalled"] == totals["orphans"] == 0


@requires_micropython
def test_a_fight_club_game_on_a_noisy_line_ends_as_its_twin(tmp_path):
    proc = run_tool(os.path.join("tools", "line_faults.py"), "--games", "1", "--game",
                    "fightclub", "--setup", setup_file(tmp_path, "short.json", SHORT_FIGHTCLUB),
                    "--seed", "4", "--rates", "5,0.5", "--json")
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-2000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert [(r["game"], r["games"]) for r in report] == [("fightclub", 1)]
    row = report[0]
    assert row["stalled"] == row["mismatched"] == row["tile_errors"] == 0, row["problems"]
