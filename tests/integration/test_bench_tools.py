"""`python -m tools.bench latency` on a small virtual table: it runs, loses nothing, says
what it saw.

No figure is asserted (tests never assert on speed); what is checked is the shape of
the result and that its clocks agree: every TAG arrives after its tag was placed, and
after the control request that placed it was sent.
"""

import json
import subprocess
import sys

from mpy import REPO, requires_micropython

KEYS = {"cells", "events", "lost", "tag_to_host_p50_ms", "tag_to_host_p99_ms",
        "scene_to_led_p50_ms", "scene_to_led_p99_ms", "control_to_host_p50_ms",
        "control_to_host_p99_ms"}


@requires_micropython
def test_bench_latency_on_one_tile_prints_one_json_object():
    proc = subprocess.run([sys.executable, "-m", "tools.bench", "latency", "--cells", "7",
                           "--events", "12", "--json", "--slowest", "3",
                           "--resident", "3"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert KEYS <= set(result)
    assert result["cells"] == 7 and result["events"] == 12 and result["lost"] == 0
    assert result["resident"] == 3     # three cards left lying, as in a game
    assert result["tiles"] == 1 and result["interpreter"] == "micropython"
    # Clocks: the tile's placement stamp (wall clock) converted to the link's monotonic one.
    assert 0 < result["tag_to_host_p50_ms"] <= result["tag_to_host_p99_ms"]
    assert result["tag_to_host_p50_ms"] <= result["control_to_host_p50_ms"]
    assert result["tag_to_host_p99_ms"] <= result["control_to_host_p99_ms"]
    assert 0 < result["scene_to_led_p50_ms"] <= result["scene_to_led_p99_ms"]
    assert "slowest tag_to_host (ms):" in proc.stderr


@requires_micropython
def test_bench_rounds_measures_a_tiles_round_with_its_cards_reported():
    proc = subprocess.run([sys.executable, "-m", "tools.bench", "rounds", "--cards", "5,0",
                           "--seconds", "0.5", "--samples", "2", "--json"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["cards"] == [0, 5] and result["cards_reported"] == [0, 5]
    assert len(result["round_ms"]) == 2 and all(r > 0 for r in result["round_ms"])
    assert result["interpreter"] == "micropython"


def test_bench_rounds_says_which_cells_it_cannot_use():
    for bad in ("7", "a,b"):
        proc = subprocess.run([sys.executable, "-m", "tools.bench", "rounds", "--cards", bad],
                              cwd=REPO, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2
        assert "--cards: cell numbers 0 to 6" in proc.stderr and "Traceback" not in proc.stderr


def test_bench_search_plays_its_games_seats_swapped_and_says_its_think_time():
    proc = subprocess.run([sys.executable, "-m", "tools.bench_search", "strength", "--game",
                           "heroes", "--games", "1", "--iterations", "20", "--explore",
                           "300", "--relative", "on", "--expect", "off", "--prior", "10",
                           "--json"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["games"] == 2 and result["iterations"] == 20 and result["players"] == 2
    assert result["explore"] == 300 and result["relative"] is True
    # The tree, with the greedy move's head start, instead of hero teams' own `expect`.
    assert result["prior"] == 10 and result["expect"] is False
    assert result["won"] + result["drawn"] + result["lost"] == 2
    assert result["ci95"][0] <= result["score_pct"] <= result["ci95"][1]
    assert result["moves_thought"] > 0 and result["think_ms_p50"] <= result["think_ms_p99"]
    assert (result["level"], result["against"]) == ("hard", "normal")
    # Any bot against any other: the normal bot wins every hero teams game against random
    # ones (100 of 100 in BENCHMARKS.md; these seeds are fixed, so the games are too).
    proc = subprocess.run([sys.executable, "-m", "tools.bench_search", "strength", "--game",
                           "heroes", "--games", "2", "--level", "normal", "--against",
                           "random", "--holders", "pick.character", "--json"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert (result["level"], result["against"], result["games"]) == ("normal", "random", 4)
    assert result["expect"] is True     # hero teams' own search, as the table plays it
    assert result["won"] == 4
    # Who won by what they picked: two teams of four in each of the 4 games, each game won
    # by one team, so 32 characters picked, 16 of them by a winner.
    held = result["holders"]
    assert sum(games for _, games in held.values()) == 32
    assert sum(won for won, _ in held.values()) == 16
    assert all(0 <= won <= games for won, games in held.values())
    rates = [won / games for won, games in held.values()]
    assert rates == sorted(rates, reverse=True)
    bad = subprocess.run([sys.executable, "-m", "tools.bench_search", "strength", "--game",
                          "heroes", "--holders", "pick"], cwd=REPO, capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "TYPE.FIELD" in bad.stderr and "Traceback" not in bad.stderr
    bad = subprocess.run([sys.executable, "-m", "tools.bench_search", "strength", "--game",
                          "heroes", "--mode", "flag"], cwd=REPO, capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert 'options.mode: must be "royale" or "ctf"' in bad.stderr
    # Capture the Flag searches with settings of its own (the tree, not `expect`).
    proc = subprocess.run([sys.executable, "-m", "tools.bench_search", "strength", "--game",
                           "heroes", "--mode", "ctf", "--games", "1", "--iterations", "20",
                           "--json"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["expect"] is False and result["iterations"] == 20 and result["games"] == 2
    proc = subprocess.run([sys.executable, "-m", "tools.bench_search", "think", "--game",
                           "storybook", "--positions", "3", "--iterations", "20", "--json"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["positions"] == 3 and result["iterations"] == 20
    assert 0 < result["think_ms_p50"] <= result["think_ms_p99"] <= result["think_ms_max"]
    # Thought twice, the least time kept: the same positions, the same moves (the budget is
    # iterations, the bot seeded), so the same digest.
    again = subprocess.run([sys.executable, "-m", "tools.bench_search", "think", "--game",
                            "storybook", "--positions", "3", "--iterations", "20", "--repeat",
                            "2", "--json"], cwd=REPO, capture_output=True, text=True,
                           timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    twice = json.loads(again.stdout)
    assert twice["moves_digest"] == result["moves_digest"] and len(twice["moves_digest"]) == 8
    assert 0 < twice["think_ms_max"] <= twice["think_s_total"] * 1000 + 0.1


def test_bench_search_pace_times_its_loop_against_the_published_pi_figure():
    proc = subprocess.run([sys.executable, "-m", "tools.bench_search", "pace", "--steps",
                           "20000", "--json"], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["steps"] == 20000 and result["here_s_per_million"] > 0
    assert result["pi4_s_per_million"] == round(158.3 / 5, 2)
    # The printed figures are rounded to hundredths: the ratio of the rounded ones agrees
    # to within a percent.
    ratio = result["pi4_s_per_million"] / result["here_s_per_million"]
    assert abs(result["pi4_slower"] - ratio) < 0.01 * ratio


def test_the_pace_loop_conserves_the_bodies_momentum():
    """The n-body loop is physics, not an empty loop: each pair's pull is equal and
    opposite, so the total momentum does not change (to rounding)."""
    from tools import bench_search
    bodies = bench_search.solar_system()

    def momentum():
        return [sum(m * v[k] for _, v, m in bodies) for k in range(3)]

    def positions():
        return [list(p) for p, _, _ in bodies]

    before, where = momentum(), positions()
    assert bench_search._nbody(1000, bodies) >= 0
    assert positions() != where     # the bodies moved
    after = momentum()
    assert all(abs(after[k] - before[k]) < 1e-9 * (1 + abs(before[k])) for k in range(3))


def test_a_game_nobody_won_counts_each_seat_its_share():
    """A game cut short (or a draw, or Fairytale Games' universal loss) is no win for anyone:
    the bot measured gets its seat's share, 1/players (one side's in a team game, below), so a
    fair bot scores its fair share."""
    from tools import bench_search
    score, actions, _, seats, _, sides, _ = bench_search.play("royale", 3, 1, 0, None, 5,
                                                              "normal", "normal")
    assert (actions, seats, sides) == (5, 3, 3) and score == 1 / 3
    score, _, _, seats, _, sides, _ = bench_search.play("heroes", None, 1, -1, None, 5,
                                                        "easy", "normal")
    assert (seats, sides) == (2, 2) and score == 0.5


def test_bench_search_habits_count_each_sides_actions_and_their_events():
    """--habits: every action of both sides counted once, by type, and each type's events:
    in Battle Royale every attack on a card either wins it or fails."""
    proc = subprocess.run([sys.executable, "-m", "tools.bench_search", "strength", "--game",
                           "royale", "--players", "2", "--games", "2", "--first-seed", "101",
                           "--level", "normal", "--against", "easy", "--habits", "--json"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    habits = result["habits"]
    assert sorted(habits) == ["easy", "normal"]
    taken = 0
    for counts in habits.values():
        assert counts["attack_card"] == \
            counts.get("attack_card>card_won", 0) + counts.get("attack_card>attack_failed", 0)
        taken += sum(n for key, n in counts.items() if ">" not in key)
    assert taken == round(result["actions_mean"] * result["games"])
    # Each side's own: the easy bot wanders (any move but ending the turn), the normal bot
    # attacks the card under it (seeds 101-102: 368 moves and 26 attacks against 161 and 159).
    assert habits["easy"]["move"] > habits["normal"]["move"]
    assert habits["easy"]["attack_card"] < habits["normal"]["attack_card"]


def test_bench_search_gives_a_game_nobody_won_one_sides_share():
    # Cut at 20 actions, nobody has won: Storybook's four seats play two sides (a half each),
    # hero teams' four players are four sides (a quarter each).
    from tools import bench_search
    for game, share in (("storybook", 0.5), ("heroes", 0.25)):
        score, actions, think, seats, habits, sides, _ = bench_search.play(
            game, 4, 1, 0, None, 20, level="normal")
        assert (seats, actions) == (4, 20)
        assert (sides, score) == (round(1 / share), share), game
