"""The search bot ("hard") against the greedy bot ("normal"): how often it wins, how long it thinks.

    python -m tools.bench_search strength --game storybook --games 100 [--first-seed 1]
        [--players N] [--mode MODE] [--iterations N] [--explore N] [--relative on|off]
        [--turn on|off] [--prior N] [--plan K,N,W|off] [--expect on|off] [--jobs 2]
        [--level hard] [--against normal] [--habits] [--json]
    python -m tools.bench_search think --game heroes [--positions 12] [--repeat N]
        [--iterations N] [--json]

strength: for each seed, two games with no table (the engine and the bots only, as
`fairytable run --headless` plays them): the hard bot in the first seat and normal bots in
the others, then the hard bot in the last seat. A game counts 1 for a win, 0 for a loss and,
when nobody won it (a draw, a universal loss, a game cut at --max-actions), the seat's share:
1/2 with two players, 1/4 with four, one side's in a team game (Storybook's four seats play
two sides: 1/2); prints the score, a 95 % Wilson interval, the games' lengths, and the hard
bot's think time (CPU time of the process, so a loaded machine does not inflate it; --jobs N
plays N games at once on N processes). --level and --against
measure any bot against any other the same way (e.g. normal against easy: how much a game
rewards a better move at all). --habits adds what each side did: its actions counted by type,
and how often each type had each event (Battle Royale's "attack_card -> card_won" against
"attack_card -> attack_failed": how often its attacks won a card).

think: CPU time of one hard move at positions along a game between normal bots (the
positions where the seat has more than one move), p50 and p99, their total, and a digest of
the moves (the same digest: the same moves; --repeat N thinks each N times and keeps the
least time, to compare two versions of an engine on a shared machine).

    python -m tools.bench_search pace [--steps 1000000] [--json]

pace: how much slower a Raspberry Pi 4 runs this kind of Python than this machine, from one
figure published for the Pi 4 (the n-body benchmark, five million steps in 158.3 s) and the
same loop timed here: the factor BENCHMARKS.md applies to the think times for a Pi. An
estimate: the published run's program and Python version are not known.
"""

import argparse
import binascii
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from host import games as table_games  # noqa: E402
from shared_rules import bots, canon, games, search  # noqa: E402
from shared_rules.engine import Match  # noqa: E402


def options_of(game, players, mode=None):
    out = {} if players is None else {"players": players}
    if mode is not None:
        out["mode"] = mode
    return out


def _settings_name(engine, mode):
    """Where the game keeps the search's settings for `mode`: SEARCH_<MODE> for a mode that
    searches with settings of its own (hero teams' Capture the Flag), else SEARCH."""
    own = "SEARCH_" + mode.upper() if mode else None
    return own if own and hasattr(engine, own) else "SEARCH"


def _ask(adapter, kind, match, seat, seed, think):
    t0 = time.process_time()
    action = adapter.bot_action(kind, match.engine, match.state, seat, seed)
    if think is not None:
        think.append(time.process_time() - t0)
    return action


def budget(game, iterations, explore=None, relative=None, turn=None, prior=None, plan=None,
           expect=None, mode=None):
    """Set the search's budget, UCB constant, judging (`relative`, "on" or "off"),
    horizon (`turn`, "on": the tree ends with the seat's turn), greedy prior (visits),
    plan ("K,N,W" or "off") and `expect` ("on" or "off") for this process (None: the
    game's own)."""
    engine = games.get(game)
    name = _settings_name(engine, mode)
    tune = dict(getattr(engine, name, None) or {})
    if iterations is not None:
        tune["iterations"] = iterations
    if explore is not None:
        tune["explore"] = explore
    if relative is not None:
        tune["relative"] = relative == "on"
    if turn is not None:
        tune["turn"] = turn == "on"
    if prior is not None:
        tune["prior"] = prior
    if plan is not None:
        tune["plan"] = None if plan == "off" else [int(n) for n in plan.split(",")]
    if expect is not None:
        tune["expect"] = expect == "on"
    setattr(engine, name, tune)
    return tune.get("iterations", search.ITERATIONS)


def play(game, players, seed, hard_seat_index, iterations, max_actions, level="hard",
         against="normal", explore=None, relative=None, turn=None, prior=None, plan=None,
         holders=None, expect=None, mode=None):
    """One game: the bot of `level` (the hard bot) in seat `hard_seat_index` (0 or -1), bots
    of level `against` (normal) elsewhere. Returns (its score: 1 for a win, 0 for a loss,
    1/sides for a game nobody won, actions, its think times, seats, habits: for the bot
    measured and for the others, how many actions of each type they took and which events
    those actions had ("attack_card" 12, "attack_card>card_won" 5), sides: how many sides
    play (the seats, or fewer in a team game)), held: with `holders` ("TYPE.FIELD"), each
    value of FIELD in an action of TYPE (a character picked) with whether the seat that
    took it won: [[value, 1 or 0], ...])."""
    adapter = table_games.table_game(game)
    budget(game, iterations, explore, relative, turn, prior, plan, expect, mode)
    match = Match(game, options_of(game, players, mode), seed)
    engine = match.engine
    seats = engine.seats(match.state)
    hard = seats[hard_seat_index]
    think = []
    habits = ({}, {})    # the bot measured's, the others'
    held = []            # (value, seat) of each `holders` action
    kind, _, field = (holders or "").partition(".")
    while engine.status(match.state) == "ongoing" and len(match.actions) < max_actions:
        movers = engine.actors(match.state)
        if not movers:
            break
        seat = movers[0]
        mine = seat == hard
        action = _ask(adapter, level if mine else against, match, seat, seed,
                      think if mine else None)
        if action is None:
            break
        events = match.apply(action)
        _tally(habits[0 if mine else 1], action, events)
        if holders and action.get("type") == kind and field in action:
            held.append((canon.dumps(action[field]).strip('"'), seat))
    winner = engine.winner(match.state) if engine.status(match.state) != "ongoing" else None
    # A team game (Storybook's four seats play two sides) is won or lost by a side: the
    # seat's share is one side's.
    side_of = getattr(engine, "side_of", None)
    sides = len(set(side_of(s) for s in seats)) if side_of is not None else len(seats)
    if winner is None:
        score = 1 / sides           # nobody won: each side's share
    else:
        score = 1.0 if _is(winner, hard) else 0.0
    held = [[value, 1 if winner is not None and _is(winner, q) else 0] for value, q in held]
    return score, len(match.actions), think, len(seats), habits, sides, held


def _tally(counts, action, events):
    kind = action.get("type", "?")
    counts[kind] = counts.get(kind, 0) + 1
    for name in sorted(set(e.get("type", "?") for e in events or ())):
        key = kind + ">" + name
        counts[key] = counts.get(key, 0) + 1


def _is(winner, seat):
    if isinstance(winner, (list, tuple)):
        return seat in winner
    if winner == seat:
        return True
    # A side's name (Storybook's "hero"/"villain") that the seat plays.
    return isinstance(winner, str) and isinstance(seat, str) and seat.startswith(winner)


def _job(args):
    return play(*args)


def wilson(wins, n):
    """The 95 % Wilson interval of a proportion, as two percentages."""
    if n == 0:
        return 0.0, 100.0
    z = 1.96
    p = wins / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return 100 * (mid - half), 100 * (mid + half)


def pct(values, q):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def strength(a):
    jobs = []
    for seed in range(a.first_seed, a.first_seed + a.games):
        for where in (0, -1):
            jobs.append((a.game, a.players, seed, where, a.iterations, a.max_actions,
                         a.level, a.against, a.explore, a.relative, a.turn, a.prior,
                         a.plan, a.holders, a.expect, a.mode))
    t0 = time.time()
    if a.jobs > 1:
        import multiprocessing
        with multiprocessing.Pool(a.jobs) as pool:
            results = pool.map(_job, jobs, chunksize=1)
    else:
        results = [_job(j) for j in jobs]
    scores = [r[0] for r in results]
    think = [t for r in results for t in r[2]]
    won = sum(1 for s in scores if s == 1.0)
    drawn = sum(1 for s in scores if 0.0 < s < 1.0)
    n = len(scores)
    points = sum(scores)
    lo, hi = wilson(points, n)
    iterations = budget(a.game, a.iterations, a.explore, a.relative, a.turn, a.prior,
                        a.plan, a.expect, a.mode)
    tuned = search.settings(games.get(a.game), Match(
        a.game, options_of(a.game, a.players, a.mode), a.first_seed).state)
    out = {"game": a.game, "players": results[0][3] if results else None,
           "iterations": iterations, "explore": tuned[4], "prior": tuned[3],
           "relative": tuned[5], "turn": tuned[6], "plan": tuned[7],
           "expect": tuned[8],
           "games": n, "won": won, "drawn": drawn, "lost": n - won - drawn,
           "score_pct": round(100 * points / n, 1) if n else 0.0,
           "ci95": [round(lo, 1), round(hi, 1)],
           "fair_share_pct": round(100 / results[0][5], 1) if results else None,
           "actions_mean": round(sum(r[1] for r in results) / n, 1) if n else 0,
           "think_ms_p50": round(1000 * pct(think, 0.5), 1),
           "think_ms_p99": round(1000 * pct(think, 0.99), 1),
           "moves_thought": len(think), "wall_s": round(time.time() - t0, 1),
           "first_seed": a.first_seed, "level": a.level, "against": a.against,
           # Each game's score, seed by seed, the measured bot first then last: two runs
           # on the same seeds compared game for game.
           "scores": scores}
    if a.habits:
        names = (a.level, a.against) if a.level != a.against else \
            (a.level + ", measured", a.against + ", the others")
        out["habits"] = {names[0]: _sum_habits(r[4][0] for r in results),
                         names[1]: _sum_habits(r[4][1] for r in results)}
    if a.holders:
        # Each value's games and the games its holder won, most wins a game first.
        tally = {}
        for r in results:
            for value, won_it in r[6]:
                row = tally.setdefault(value, [0, 0])
                row[0] += won_it
                row[1] += 1
        out["holders"] = dict(sorted(tally.items(), key=lambda kv: (-kv[1][0] / kv[1][1],
                                                                      kv[0])))
    if a.json:
        print(json.dumps(out))
    else:
        print("%s, %d players, %d iterations: the %s bot scored %.1f %% over %d games against "
              "%s bots (%d won, %d drawn, %d lost; 95 %% CI %.1f-%.1f %%; a fair share is "
              "%.1f %%)" % (a.game, out["players"], out["iterations"], a.level,
                            out["score_pct"], n, a.against, won, drawn, out["lost"], lo, hi,
                            out["fair_share_pct"]))
        print("its think time (CPU) p50 %.1f ms, p99 %.1f ms over %d moves; %.1f actions a game; "
              "%.0f s" % (out["think_ms_p50"], out["think_ms_p99"], len(think),
                          out["actions_mean"], out["wall_s"]))
        labels = ("the %s bot" % a.level, "the %s bots" % a.against) \
            if a.level != a.against else ("the %s bot measured" % a.level,
                                          "the other %s bots" % a.against)
        for who, label in zip(out.get("habits", ()), labels, strict=False):
            print(label + ":")
            for key, n in sorted(out["habits"][who].items()):
                print("  %s %d" % (key.replace(">", " -> ") if ">" in key else key, n))
        if a.holders:
            kind, _, field = a.holders.partition(".")
            print("who won, by the %s of their %s actions:" % (field, kind))
            for value, (won_it, games_held) in out["holders"].items():
                print("  %s: its holder won %d of %d games (%.0f %%)" % (
                    value, won_it, games_held, 100 * won_it / games_held))


def _holders(text):
    kind, dot, field = text.partition(".")
    if not (kind and dot and field):
        raise argparse.ArgumentTypeError("give an action's type and one of its fields, "
                                         "as TYPE.FIELD (pick.character), got %r" % text)
    return text


def _sum_habits(tallies):
    out = {}
    for counts in tallies:
        for key, n in counts.items():
            out[key] = out.get(key, 0) + n
    return dict(sorted(out.items()))


def think(a):
    adapter = table_games.table_game(a.game)
    iterations = budget(a.game, a.iterations, a.explore, a.relative, a.turn, a.prior,
                        a.plan, a.expect, a.mode)
    match = Match(a.game, options_of(a.game, a.players, a.mode), a.first_seed)
    engine = match.engine
    positions = []
    while engine.status(match.state) == "ongoing" and len(match.actions) < a.max_actions:
        seat = engine.actors(match.state)[0]
        if len(bots.my_actions(engine, match.state, seat)) > 1:
            positions.append((engine.copy(match.state), seat))
        match.apply(adapter.bot_action("normal", engine, match.state, seat, a.first_seed))
    step = max(1, len(positions) // a.positions)
    times = []
    moves = []
    for state, seat in positions[::step][:a.positions]:
        # --repeat: the same move thought again, its least CPU time kept (another process
        # on the machine only ever adds time); the moves' digest says they were the same.
        least = None
        for _ in range(a.repeat):
            t0 = time.process_time()
            move = adapter.bot_action("hard", engine, state, seat, a.first_seed)
            dt = time.process_time() - t0
            least = dt if least is None or dt < least else least
        moves.append(move)
        times.append(least)
    out = {"game": a.game, "positions": len(times),
           "iterations": iterations, "explore": search.settings(engine, match.state)[4],
           "think_ms_p50": round(1000 * pct(times, 0.5), 1),
           "think_ms_p99": round(1000 * pct(times, 0.99), 1),
           "think_ms_max": round(1000 * max(times), 1) if times else 0.0,
           "think_s_total": round(sum(times), 3),
           "moves_digest": "%08x" % (binascii.crc32(canon.dumps(moves).encode()))}
    if a.json:
        print(json.dumps(out))
    else:
        print("%s: a hard move takes %.1f ms p50, %.1f ms p99, %.1f ms at most (CPU, %d "
              "positions, %d iterations)" % (a.game, out["think_ms_p50"], out["think_ms_p99"],
                                             out["think_ms_max"], len(times),
                                             out["iterations"]))


# A Raspberry Pi 4 (1.5 GHz, performance governor) ran five million steps of the n-body
# benchmark in Python in 158.3 s (chaitanyamehta.github.io, "Performance Analysis of
# Languages on Raspberry Pi"; its program and Python version are not stated).
PI4_NBODY_S_PER_MILLION = 158.3 / 5


def solar_system():
    """The Sun and the four giant planets: ([x, y, z], [vx, vy, vz], mass) each (AU, AU a
    year, the Sun's mass times 4 pi**2)."""
    sun = 4 * 3.141592653589793 ** 2
    planets = [
        ([4.84, -1.16, -0.10], [0.61, 2.81, -0.02], 9.55e-4),
        ([8.34, 4.12, -0.40], [-1.01, 1.83, 0.01], 2.86e-4),
        ([12.89, -15.11, -0.22], [1.08, 0.87, -0.01], 4.37e-5),
        ([15.38, -25.92, 0.18], [0.98, 0.59, -0.03], 5.15e-5),
    ]
    bodies = [([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], sun)]
    for pos, vel, m in planets:
        bodies.append((list(pos), list(vel), m * sun))
    return bodies


def _nbody(steps, bodies):
    """The n-body benchmark's loop (a step of 0.01, each pair's pull once a step) on
    `bodies` (moved in place): CPU seconds for `steps` steps."""
    n = len(bodies)
    pairs = [(bodies[i], bodies[j]) for i in range(n) for j in range(i + 1, n)]
    dt = 0.01
    t0 = time.process_time()
    for _ in range(steps):
        for (p1, v1, m1), (p2, v2, m2) in pairs:
            dx = p1[0] - p2[0]
            dy = p1[1] - p2[1]
            dz = p1[2] - p2[2]
            d2 = dx * dx + dy * dy + dz * dz
            mag = dt / (d2 * d2 ** 0.5)
            k1 = m1 * mag
            k2 = m2 * mag
            v1[0] -= dx * k2
            v1[1] -= dy * k2
            v1[2] -= dz * k2
            v2[0] += dx * k1
            v2[1] += dy * k1
            v2[2] += dz * k1
        for pos, vel, _m in bodies:
            pos[0] += dt * vel[0]
            pos[1] += dt * vel[1]
            pos[2] += dt * vel[2]
    return time.process_time() - t0


def pace(a):
    here = _nbody(a.steps, solar_system()) * 1000000 / a.steps
    out = {"steps": a.steps, "here_s_per_million": round(here, 3),
           "pi4_s_per_million": round(PI4_NBODY_S_PER_MILLION, 2),
           "pi4_slower": round(PI4_NBODY_S_PER_MILLION / here, 2)}
    if a.json:
        print(json.dumps(out))
    else:
        print("n-body: %.2f s of CPU a million steps here, %.2f s on a Raspberry Pi 4 (a "
              "published run): the Pi is %.1f times slower at this kind of Python"
              % (here, out["pi4_s_per_million"], out["pi4_slower"]))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    for name in ("strength", "think"):
        q = sub.add_parser(name)
        q.add_argument("--game", required=True, choices=table_games.names())
        q.add_argument("--players", type=int, default=None)
        q.add_argument("--mode", default=None,
                       help="the game's mode (hero teams: royale or ctf; default: the game's)")
        q.add_argument("--iterations", type=int, default=None,
                       help="the search's budget (default: the game's)")
        q.add_argument("--explore", type=int, default=None,
                       help="the search's UCB constant (default: the game's)")
        q.add_argument("--relative", choices=("on", "off"), default=None,
                       help="judge a two-player move by its gain less the other player's "
                            "(default: the game's)")
        q.add_argument("--turn", choices=("on", "off"), default=None,
                       help="end the search's tree with the seat's own turn (default: the "
                            "game's)")
        q.add_argument("--prior", type=int, default=None,
                       help="visits of a full reward the greedy move starts with (0: none; "
                            "default: the game's)")
        q.add_argument("--plan", default=None,
                       help="K,N,W: with two players, the greedy bot's K best moves played on to "
                            "the turn's end in N deals (none begun past W actions judged); "
                            "off: the tree (default: the game's)")
        q.add_argument("--expect", choices=("on", "off"), default=None,
                       help="on: no tree, each move judged by its mean over every outcome of "
                            "its dice (the engine's outcomes); off: the tree (default: the "
                            "game's)")
        q.add_argument("--first-seed", type=int, default=1)
        q.add_argument("--max-actions", type=int, default=3000)
        q.add_argument("--json", action="store_true")
    sub.choices["strength"].add_argument("--games", type=int, default=20,
                                         help="seeds; each plays twice, seats swapped")
    sub.choices["strength"].add_argument("--jobs", type=int, default=1)
    sub.choices["strength"].add_argument("--level", default="hard", choices=bots.KINDS,
                                         help="the bot measured (default hard)")
    sub.choices["strength"].add_argument("--against", default="normal", choices=bots.KINDS,
                                         help="the other seats' bots (default normal)")
    sub.choices["strength"].add_argument("--habits", action="store_true",
                                         help="count each side's actions by type, with the "
                                              "events they had")
    sub.choices["strength"].add_argument(
        "--holders", type=_holders, metavar="TYPE.FIELD",
        help="for each value of FIELD in the actions of TYPE (pick.character: each "
             "character picked), how often the seat that took it won")
    sub.choices["think"].add_argument("--positions", type=int, default=12)
    sub.choices["think"].add_argument("--repeat", type=int, default=1,
                                      help="think each move N times, keep the least time")
    q = sub.add_parser("pace", help="this machine's Python against a Raspberry Pi 4's")
    q.add_argument("--steps", type=int, default=1000000)
    q.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    if a.what != "pace":
        try:
            Match(a.game, options_of(a.game, a.players, a.mode), 1)
        except ValueError as e:     # the engine's sentence for options it refuses
            p.error("--players/--mode: %s" % e)
    {"strength": strength, "think": think, "pace": pace}[a.what](a)


if __name__ == "__main__":
    main()
