"""Short runs of the reliability suite's long tools (RELIABILITY.md has the long figures):
the soak and the kill tool, run as their commands are, on the real virtual table."""

import json
import os
import subprocess
import sys

from mpy import REPO, requires_micropython


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
                    "--games", "storybook", "--seeds", "3", "--seed", "4")
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-2000:]
    lines = json_lines(proc.stdout)
    totals = lines[-1]["summary"]
    # --trials counts kills: a game that ended before its moment is "missed", drawn again.
    kills = [t for t in lines[:-1] if t["killed"]]
    assert len(kills) == totals["killed"] == 1 and totals["stalled"] == totals["orphans"] == 0
    assert totals["missed"] == len(lines) - 2
    assert kills[0]["same"] is True and totals["same"] == 1 and totals["differed"] == 0
    assert kills[0]["at_action"] >= 0 and kills[0]["at_s"] > 0
