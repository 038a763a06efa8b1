"""`fairytable run`: the main job. Plays a game on the table, or on the virtual table.

    fairytable run [--game GAME] [--mode MODE]
                   [--seed N] [--players N] [--bots N] [--level [N=]LEVEL ...]
                   [--journal PATH] [--headless] [--json]
                   [--port /dev/ttyACM0 ...] [--layout FILE] [--offline-grace SECONDS]
                   [--key FILE] [--registry FILE] [--mqtt URL [--hall NAME] [--table-id NAME]]
                   [--attract-after MINUTES] [--lit-patience SECONDS]

With no --port, no table is configured: the virtual table starts (real tile
firmware under MicroPython, one pseudo-terminal per tile) and says so. A
journal with an unfinished game of the same kind resumes it (after a crash
or a pulled plug) and re-lights the table. --players N sets how many play
(default: the game's usual count, or the setup's); --bots N puts bots in the
last N seats, at most one a player; --level sets their level, easy, normal (the
default) or hard, for every bot (--level hard) or seat by seat (--level 2=hard).
--headless puts a bot in every seat (so there --bots N alone says N players)
and plays the whole game through tags, taps and dice on the virtual table;
--json prints one summary object. A game that resumes keeps its players, mode,
seed, setup and its bots' levels; --bots chooses who plays each of its seats
and --level a bot's level; an option it cannot take is refused, naming --new.
A tile offline longer than --offline-grace stops the game until it is back: a
mismatch names it and its cells (with --json, a {"waiting_for": ...} line on
stderr, and the summary's "waiting_for" lists the tiles still awaited).
No bot moves before every tile has acknowledged the game's first lights (after a restart:
the table as it stood), unless a tile acknowledges none of them for --lit-patience seconds.
--attract-after MINUTES: once nobody has played that long (a game left, or over), the game
is closed in the journal and the table plays a demo game by itself (host/attract.py) until
someone taps the table, or presses "Play a game" on a seat's page, or staff start one.
The journal, the installation key and the tag registry live in the data
folder (host/installation.py) unless given; each is checked before any is
made or written, and a bad option or file stops the command with exit
status 2 and a sentence, having changed nothing.
"""

import argparse
import asyncio
import binascii
import functools
import json
import os
import signal
import stat
import sys
import time

from host import bot_levels, games, installation
from host import journal as journals
from host.journal import Journal, JournalError
from host.link import noisy_line
from host.session import SessionLog, TableSession
from host.table import layout as layouts
from host.table import tags
from host.virtual.table import ControlError
from shared_rules import canon
from shared_rules.engine import Match
from shared_rules.errors import ScenarioError

# A seed is journalled and replayed on the tiles' interpreter too: a 32-bit number.
MAX_SEED = 0xFFFFFFFF
# A setup is a position of a few dozen cards: anything this big is not a setup file.
MAX_SETUP_BYTES = 1 << 20


# The one rule of seats, for every game (said in --help and the README).
SEATS_RULE = ("--players N sets how many play (default: the game's usual count, or the "
              "setup's); --bots N puts bots in the last N seats, at most one a player; "
              "--level sets their level (easy, normal or hard), for every bot or seat by seat "
              "(N=LEVEL). With --headless every seat is a bot's, so --bots N alone says N "
              "players. A game that resumes keeps its players and its bots' levels: --bots "
              "chooses who plays each of its seats, --level changes a bot's level.")


class Timings:
    """--timings: where a start's time goes, as JSON lines on stderr for staff and
    tools/bench_restart.py: {"timing": MARK, "ms": ms since the host process started,
    "cpu_ms": the CPU time the host process had used (a busy machine's share aside)}, for
    the marks "imports" (the interpreter and the modules), "journal" (checked: its unfinished
    game replayed), "replay" (the resumed game ready to go on, the tag registry read),
    "tiles" (every tile said hello: they boot while the journal is checked), "set_out" (the
    virtual hands put the journal's cards on the table), "lit" (every tile acknowledged the
    scenes of the game's state; "unlit" instead when a tile acknowledged none of them for
    `Session.lit_patience_ms`) and "first_action" (the first action accepted after)."""

    def __init__(self, on):
        self.on = on
        self.started = _process_start()
        self.marked = set()

    def mark(self, name, **more):
        if not self.on or name in self.marked:
            return
        self.marked.add(name)
        line = {"timing": name, "ms": round((time.monotonic() - self.started) * 1000, 1),
                "cpu_ms": round(time.process_time() * 1000, 1)}
        line.update(more)
        print(json.dumps(line, sort_keys=True), file=sys.stderr, flush=True)


def _process_start():
    """When this process started, on time.monotonic()'s clock (Linux: from /proc, to the
    kernel's tick; elsewhere: now, which leaves out the interpreter's own start)."""
    try:
        with open("/proc/self/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        since_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
        return time.monotonic() - (since_boot - ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return time.monotonic()


def parse_args(argv):
    p = argparse.ArgumentParser(prog="fairytable run", description=__doc__.split("\n\n")[0],
                                epilog="Seats: " + SEATS_RULE)
    p.add_argument("--game", default=games.default(), choices=games.names(),
                   help="the game: %s (default %s)" % ("; ".join(
                       "%s %s" % (g, _info(g)["title"]) for g in games.names()),
                       games.default()))
    p.add_argument("--mode", default=None, choices=sorted(set(
        m for g in games.names() for m in _modes(g))), help="the game's mode, for games "
        "that have modes: %s" % "; ".join("%s: %s (default %s)" % (
            g, ", ".join("%s %s" % (m, _mode_title(g, m)) for m in _modes(g)), _modes(g)[0])
            for g in games.names() if _modes(g)))
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help="another of the game's options for a new game: %s" % "; ".join(
                       "%s: %s" % (g, ", ".join("%s=%s" % (k, "|".join(
                           _value_words(v) for v in vs)) for k, vs in _switches(g)))
                       for g in games.names() if _switches(g)))
    p.add_argument("--seed", type=int, default=None,
                   help="seed of a new game, 0 to %d (default: random)" % MAX_SEED)
    p.add_argument("--bots", type=int, default=0,
                   help="bots in the last N seats, N at most the players (with --headless, "
                   "every seat: N players)")
    p.add_argument("--level", action="append", default=[], metavar="[N=]LEVEL",
                   help="the bots' level: %s. --level LEVEL for every bot, --level N=LEVEL "
                   "for the bot in seat N (counted from 1, as --bots counts seats; repeat it "
                   "for more seats; a seat's own level wins). Default %s; a game that resumes "
                   "keeps its bots' levels unless --level gives one" % (
                       bot_levels.explained(), bot_levels.DEFAULT))
    p.add_argument("--bot-kind", default=None, choices=sorted(bot_levels.OLD_NAMES),
                   help="the older spelling of --level for every bot: greedy is normal; "
                   "random plays any legal move at random (for tests)")
    p.add_argument("--journal", default=None,
                   help="the journal (default: journal.db in the data folder, "
                        "$FAIRYTABLE_HOME or ~/.local/share/fairytable)")
    p.add_argument("--key", default=None, help="installation key file (tag MACs; default: "
                   "$FAIRYTABLE_KEY, else installation.key in the data folder)")
    p.add_argument("--registry", default=None,
                   help="the registry of tags enrolled by UID (default: tags.db in the data "
                        "folder)")
    p.add_argument("--layout", default=None,
                   help="table layout TOML (default: the game's, host/games/GAME/layout.toml)")
    p.add_argument("--port", action="append", default=[], help="a tile's serial port")
    p.add_argument("--headless", action="store_true")
    p.add_argument("--json", action="store_true")
    p.add_argument("--max-actions", type=int, default=None)
    p.add_argument("--interpreter", default=None, choices=["auto", "micropython", "cpython"],
                   help="what runs the virtual tiles (default: auto)")
    p.add_argument("--new", action="store_true", help="start a new game, even if one can resume")
    p.add_argument("--players", type=int, default=None,
                   help="players of a new game (default: the game's usual count, %s); %s" % (
                       ", ".join("%s %d" % (g, _info(g)["default_players"])
                                 for g in games.names()),
                       "; ".join("%s takes %s" % (g, _player_counts(g)) for g in games.names())))
    p.add_argument("--setup", default=None,
                   help="a new game's setup (JSON file in the game's setup form)")
    p.add_argument("--offline-grace", type=float, default=5.0, metavar="SECONDS",
                   help="a tile offline this long stops the game until it is back, "
                   "said as a mismatch (default 5)")
    p.add_argument("--lit-patience", type=float, default=3.0, metavar="SECONDS",
                   help="at a game's start (a restart: the table as it stood) no bot moves "
                   "until every tile has acknowledged its lights, or until one has "
                   "acknowledged none of them for this long (default 3)")
    p.add_argument("--attract-after", type=float, default=None, metavar="MINUTES",
                   help="nobody has played for this long (a game left, or over): the table "
                   "plays a demo game by itself until someone taps it or staff start a game "
                   "(for a demo table at a convention; default: never)")
    p.add_argument("--line-faults", default=None, metavar="CORRUPT,DROP[,SEED]",
                   type=_line_faults,
                   help="virtual table only, for reliability tests: corrupt and drop these "
                        "percentages of the bytes on every tile's line (host/link/noisy_line.py)")
    p.add_argument("--reveal", action="store_true",
                   help="the terminal also prints each action as the engine has it, hidden "
                        "cards included (for a bench engineer, not a screen players see)")
    p.add_argument("--timings", action="store_true",
                   help="say on stderr, as JSON lines, how long the start took: the imports, "
                   "journal check, replay, tiles, first light, first action (for staff and "
                   "tools/bench_restart.py)")
    p.add_argument("--gpio", action="store_true",
                   help="on a Raspberry Pi: seat buttons, staff controls and the status strip")
    from host.web.options import add_arguments as add_web_arguments
    add_web_arguments(p)
    from host.hall.table import add_arguments as add_hall_arguments
    add_hall_arguments(p)
    # The installation's table.toml (host/config.py): its [run] options, the command line's
    # winning. A value the parser refuses is said with the file's name.
    from host import config
    try:
        from_file = config.arguments(p, "run", argv)
    except config.ConfigError as e:
        p.error(str(e))
    if from_file:
        try:
            p.exit_on_error = False
            p.parse_args(from_file)
        except argparse.ArgumentError as e:
            p.error("%s: [run] %s" % (config.path(), e))
        finally:
            p.exit_on_error = True
    args = p.parse_args(from_file + list(argv))
    try:
        check_args(args)
    except ValueError as e:
        p.error(str(e))
    return args


def _line_faults(text):
    try:
        return noisy_line.parse_rates(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def check_args(args):
    """The options' values and combinations, before anything is opened: ValueError in words."""
    if args.attract_after is not None and not 0 < args.attract_after <= 1440:
        raise ValueError("--attract-after is a number of minutes above 0 and at most 1440 (a "
                         "day), not %s" % args.attract_after)
    if args.bots < 0:
        raise ValueError("--bots must be 0 or more, not %d" % args.bots)
    args.levels = levels_given(args.level, args.bot_kind)
    if args.mode is not None and args.mode not in _modes(args.game):
        title = _info(args.game)["title"]
        raise ValueError("--mode %s: %s has %s" % (args.mode, title, (
            "the modes %s" % ", ".join(_modes(args.game))) if _modes(args.game) else "no modes"))
    args.options = game_options(args.game, args.option)
    if args.seed is not None and not 0 <= args.seed <= MAX_SEED:
        raise ValueError("--seed must be 0 to %d, not %d" % (MAX_SEED, args.seed))
    if args.max_actions is not None and args.max_actions < 1:
        raise ValueError("--max-actions must be 1 or more, not %d" % args.max_actions)
    if args.players is not None and not 1 <= args.players <= 99:
        raise ValueError("--players must be a number of players, not %d" % args.players)
    for flag, value in (("--journal", args.journal), ("--key", args.key),
                        ("--registry", args.registry), ("--layout", args.layout),
                        ("--setup", args.setup)):
        if value is not None and not value.strip():
            raise ValueError("%s needs a file name, not an empty one" % flag)
    if len(set(args.port)) != len(args.port):
        raise ValueError("--port %s is given twice" % sorted(
            p for p in args.port if args.port.count(p) > 1)[0])
    for port in args.port:
        if not os.path.exists(port):
            raise ValueError("--port %s: there is no such port (is the tile plugged in? "
                             "`fairytable doctor` lists the tiles it finds)" % port)
        if os.path.isdir(port):
            raise ValueError("--port %s is a folder, not a serial port" % port)
        if not stat.S_ISCHR(os.stat(port).st_mode):
            raise ValueError("--port %s is a file, not a serial port (a tile is a device "
                             "such as /dev/ttyACM0)" % port)
    if args.port and args.headless:
        raise ValueError("--headless plays through the virtual table's hands: leave out "
                         "--port, or leave out --headless to play on the tiles")
    if args.line_faults and args.port:
        raise ValueError("--line-faults puts a noisy line on the virtual table's tiles; it "
                         "cannot be used with --port")
    if args.port and args.interpreter is not None:
        raise ValueError("--interpreter chooses what runs the virtual tiles: leave it out "
                         "with --port")
    if args.interpreter is None:
        args.interpreter = "auto"
    from host.web.options import check_arguments as check_web_arguments
    check_web_arguments(args)
    from host.hall.table import check_arguments as check_hall_arguments
    check_hall_arguments(args)


def levels_given(given, bot_kind=None):
    """--level LEVEL and --level N=LEVEL (each a text), with --bot-kind, the older spelling of
    --level LEVEL, as (the level for every bot or None, {seat number: level}); ValueError in
    words naming the flag and what it may be. Whether seat N is a bot's is `levels_refusal`'s
    to say, once the game's seats are known."""
    every = bot_levels.level_of(bot_kind) if bot_kind is not None else None
    seats = {}
    for text in given:
        number, eq, level = text.rpartition("=")
        level = _level(text, level.strip())
        if not eq:
            if bot_kind is not None:
                raise ValueError("--level %s and --bot-kind %s both give every bot's level: "
                                 "--bot-kind is the older spelling of --level, give one of "
                                 "them" % (text, bot_kind))
            if every is not None and every != level:
                raise ValueError("--level is given twice for every bot (%s and %s): give it "
                                 "once" % (every, level))
            every = level
            continue
        number = number.strip()
        if not number.isdigit() or not 0 < int(number) <= 99:
            raise ValueError("--level %s: N in N=LEVEL is the number of a bot's seat, counted "
                             "from 1 as --bots counts seats (--level 2=hard)" % text)
        n = int(number)
        if n in seats and seats[n] != level:
            raise ValueError("--level is given twice for seat %d (%s and %s): give it once"
                             % (n, seats[n], level))
        seats[n] = level
    return every, seats


def _level(text, level):
    """The LEVEL of `--level text`, checked; ValueError naming the levels there are."""
    if level in bot_levels.LEVELS:
        return level
    if not level:
        raise ValueError("--level %s: give LEVEL for every bot or N=LEVEL for the bot in seat "
                         "N, LEVEL being %s" % (text, bot_levels.listed()))
    older = bot_levels.level_of(level)
    raise ValueError("--level %s: a bot's level is %s%s" % (
        text, bot_levels.listed(), " (%s is --bot-kind %s)" % (level, level) if older else ""))


def levels_refusal(args, seat_list):
    """The sentence refusing a --level N=LEVEL whose seat N is not a bot's in a game of these
    seats (the bots play the last --bots of them), or None."""
    n = len(seat_list)
    bots = [k for k in range(1, n + 1) if k > n - args.bots]
    for number in sorted(args.levels[1]):
        if number in bots:
            continue
        if number > n:
            where = "this game of %s has %d seats" % (_info(args.game)["title"], n)
        else:
            where = "seat %d (%s) is a person's" % (number, seat_list[number - 1])
        return "--level %d=%s: %s; %s" % (number, args.levels[1][number], where, (
            "--bots %d puts bots in %s" % (args.bots, _seat_numbers(bots)) if len(bots) > 1
            else "--bots 1 puts a bot in %s" % _seat_numbers(bots) if bots
            else "no seat is a bot's (--bots 0)"))
    return None


def bots_of(args, seat_list, journalled=None):
    """{seat: level} of the bots in the last --bots seats: the level --level gives the seat,
    else the one it gives every bot (or --bot-kind's), else the level the journal has for the
    seat (a game that resumes: `journalled`, seat -> kind, older names too), else normal."""
    every, numbered = args.levels
    journalled = journalled or {}
    out = {}
    for number, seat in enumerate(seat_list, 1):
        if number <= len(seat_list) - args.bots:
            continue
        out[seat] = (numbered.get(number) or every or
                     bot_levels.level_of(journalled.get(seat)) or bot_levels.DEFAULT)
    return out


def _info(game):
    """A game's static facts (its engine's INFO): read without loading its catalog."""
    from shared_rules import games as engines
    return engines.info(game)


def _modes(game):
    """The values of a game's "mode" option, the default first; [] if it has none."""
    return list(_info(game).get("modes", {}).get("mode", []))


YES_NO = {"true": "true", "yes": "true", "on": "true", "1": "true", "false": "false",
          "no": "false", "off": "false", "0": "false"}


def _switches(game):
    """A game's options besides its mode, [(name, [values, the default first])]."""
    modes = _info(game).get("modes", {})
    return [(k, list(modes[k])) for k in sorted(modes) if k != "mode"]


def _value_words(v):
    return ("true" if v else "false") if v is True or v is False else str(v)


def game_options(game, given):
    """--option NAME=VALUE (each a text) as {name: value} of the game's options, checked:
    ValueError in words naming the option and what it may be."""
    switches = dict(_switches(game))
    title = _info(game)["title"]
    out = {}
    for text in given:
        name, eq, value = text.partition("=")
        name = name.strip()
        if not eq or not name:
            raise ValueError("--option %s: give NAME=VALUE, e.g. %s" % (text, ", ".join(
                "%s=%s" % (k, _value_words(vs[-1])) for k, vs in _switches(game)) or
                "alchemist=true"))
        if name not in switches:
            raise ValueError("--option %s: %s has %s" % (text, title, (
                "the options " + ", ".join(sorted(switches))) if switches else
                "no options besides --players" + (" and --mode" if _modes(game) else "")))
        if name in out:
            raise ValueError("--option %s is given twice" % name)
        words = dict((_value_words(v), v) for v in switches[name])
        key = value.strip()
        if "true" in words:     # a switch: on or off
            key = YES_NO.get(key.lower(), key)
        if key not in words:
            raise ValueError("--option %s: %s is one of %s" % (text, name, ", ".join(words)))
        out[name] = words[key]
    return out


def _mode_title(game, mode):
    """The book's name of a game's mode ("Capture the Flag"), or "the mode ctf"."""
    return _info(game).get("mode_titles", {}).get(mode) or "the mode %s" % mode


def _player_counts(game):
    info = _info(game)
    counts = info.get("player_counts")
    if counts:
        return " or ".join(str(n) for n in counts)
    return "%d to %d" % (info["min_players"], info["max_players"])


def usual_players(name):
    """How many play a game of `name` when nobody says (its adapter's options, no setup)."""
    game = games.table_game(name)
    return len(game.seats(game.options))


def players_asked(args):
    """(count, the options that ask for it, in words) of a new game, or (None, None) for
    the game's usual count (or its setup's): --players N, else with --headless (a bot in
    every seat) and no setup, --bots N."""
    if args.players is not None:
        return args.players, "--players %d" % args.players
    if getattr(args, "headless", False) and args.bots > 0 and args.setup is None:
        return args.bots, "--headless --bots %d" % args.bots
    return None, None


def new_game_setup(args, game):
    """The options and setup of a new game of `game` (its TableGame adapter) from --mode,
    --players (or --headless --bots: see `players_asked`) and --setup.

    A count --headless --bots asks for goes into the options as --players would, but for a
    game that never wrote it at its usual count (the adapter's `players_from_bots` False:
    Storybook): the bots seed their choices from the whole state, options included, so
    writing "players": 2 would make every seed of `--headless --bots 2` another game."""
    options = dict(game.options)
    if getattr(args, "mode", None) is not None:
        options["mode"] = args.mode
    options.update(getattr(args, "options", None) or {})
    count, _ = players_asked(args)
    if args.players is not None:
        options["players"] = count
    elif count is not None and (game.players_from_bots or count != len(game.seats(options))):
        options["players"] = count
    setup = None
    if args.setup is not None:
        setup = read_setup(args.setup)
    return options, setup


def new_game_seats(args, game, options, setup):
    """The seats of the new game the options ask for; ValueError naming the option or file
    the rules refuse."""
    try:
        return game.seats(options, setup)
    except ScenarioError as e:
        raise ValueError(new_game_refused(args, e)) from None
    except (TypeError, KeyError, IndexError, AttributeError) as e:
        if args.setup is None:
            raise
        # The rules check a setup's fields; a value of a shape they never expected (a list
        # where a card id belongs) is still the file's fault, and said so.
        raise ValueError("the setup %s is not in the game's setup form (%s: %s)"
                         % (args.setup, type(e).__name__, e)) from None


def new_game_refused(args, error):
    """The sentence for a new game the rules refuse, naming the option or file at fault."""
    count, asked = players_asked(args)
    if error.field.startswith("options.players") and args.players is not None:
        return "%s: %s" % (asked, error.message)
    if error.field.startswith("options.players") and asked is not None:
        return "%s asks for %d players of %s; the number of players %s" % (
            asked, count, _info(args.game)["title"], error.message)
    if error.field.startswith("setup") and args.setup is not None:
        return "the setup %s: %s" % (args.setup, error)
    return "the new game cannot start: %s" % error


def bots_refusal(args, seat_list):
    """The sentence refusing --bots for a new game of these seats, or None."""
    n = len(seat_list)
    if args.bots > n:
        return ("--bots %d is more bots than players: this game of %s has %d (--players sets "
                "how many play)" % (args.bots, _info(args.game)["title"], n))
    if args.headless and args.bots != n:
        return ("--headless needs a bot in every seat: --bots %d for the %d players of this "
                "game of %s" % (n, n, _info(args.game)["title"]))
    return None


def resume_refusal(args, setup, resumed, seat_list, journal_path):
    """Why the game that would resume cannot take these options, in a sentence that says what
    to do (--new starts another game), or None: it takes them.

    It keeps what it was dealt with: its players, mode, seed and setup; --bots chooses who
    plays each of its seats (people the first, bots the last)."""
    game_id, record = resumed
    n = len(seat_list)
    problem = fix = None
    if args.players is not None and args.players != n:
        problem = "it has %d players, not the %d of --players %d" % (n, args.players,
                                                                     args.players)
        fix = "leave out --players"
    elif args.mode is not None and not _starts_alike(record, {"mode": args.mode}):
        problem = "it is not a game of %s (--mode %s)" % (_mode_title(args.game, args.mode),
                                                           args.mode)
        fix = "leave out --mode"
    elif getattr(args, "options", None) and not _starts_alike(record, args.options):
        problem = "it was not started with %s" % " ".join(
            "--option %s=%s" % (k, _value_words(v)) for k, v in sorted(args.options.items()))
        fix = "leave out --option"
    elif args.seed is not None and args.seed != record.get("seed", 0):
        problem = "it was dealt with seed %d, not --seed %d" % (record.get("seed", 0),
                                                                args.seed)
        fix = "leave out --seed"
    elif setup is not None and canon.dumps(setup) != canon.dumps(record.get("setup")):
        problem = "it did not start from the setup %s" % args.setup
        fix = "leave out --setup"
    elif args.bots > n:
        problem = "it has %d players, too few for --bots %d" % (n, args.bots)
        fix = "give --bots 0 to %d" % n
    elif args.headless and args.bots != n:
        problem = "--headless needs a bot in each of its %d seats" % n
        fix = "give --bots %d" % n
    if problem is None:
        return None
    return ("game %d of %s (%d players), unfinished in %s, would resume, but %s: run with "
            "--new to start a new game, or %s to resume it" % (
                game_id, _info(args.game)["title"], n, journal_path, problem, fix))


def _starts_alike(record, change):
    """True if the journalled game, its options changed so, starts as it did: the change
    asks for nothing it was not already (e.g. --mode royale for a game of the default mode)."""
    options = record.get("options") or {}
    changed = dict(options)
    changed.update(change)
    before = Match(record["game"], options, record.get("seed", 0), record.get("setup"),
                   record.get("cards"))
    try:
        after = Match(record["game"], changed, record.get("seed", 0), record.get("setup"),
                      record.get("cards"))
    except ScenarioError:
        return False
    engine = before.engine
    return canon.dumps(engine.to_dict(before.state)) == canon.dumps(engine.to_dict(after.state))


def who_plays(seat_list, bot_seats):
    """Who plays each seat, in words: "a person plays seat 1, bots seats 2 and 3". The bots'
    levels ({seat: level}) are said unless every bot is normal: "a person plays seat 1, a
    hard bot seat 2"."""
    people = [n for n, seat in enumerate(seat_list, 1) if seat not in bot_seats]
    by_level = {}
    for n, seat in enumerate(seat_list, 1):
        if seat in bot_seats:
            by_level.setdefault(bot_seats[seat], []).append(n)
    said = bot_levels.said(by_level)
    groups = [("a person" if len(people) == 1 else "people", people)] if people else []
    groups += [(bot_levels.bot_words(level if said else None, len(numbers)), numbers)
               for level, numbers in sorted(by_level.items(), key=lambda kv: kv[1])]
    if len(groups) == 1:
        who, numbers = groups[0]
        return "%s %s" % (who, "plays" if len(numbers) == 1 else "play every seat")
    (who, numbers), rest = groups[0], groups[1:]
    return ", ".join(["%s %s %s" % (who, "plays" if len(numbers) == 1 else "play",
                                    _seat_numbers(numbers))] +
                     ["%s %s" % (w, _seat_numbers(ns)) for w, ns in rest])


def _seat_numbers(numbers):
    """"seat 2", "seats 2 and 3", "seats 1, 2 and 3"."""
    listed = ", ".join(str(n) for n in numbers[:-1])
    return "seat%s %s%s" % ("s" if len(numbers) > 1 else "", listed + " and " if listed else "",
                           numbers[-1])


def read_setup(path):
    """The --setup file's JSON object; ValueError naming the file and what is wrong."""
    if os.path.isdir(path):
        raise ValueError("the setup %s is a folder, not a JSON file" % path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SETUP_BYTES + 1)
    except OSError as e:
        raise ValueError("cannot read the setup %s (%s)" % (path, e.strerror)) from None
    if len(data) > MAX_SETUP_BYTES:
        raise ValueError("the setup %s is more than %d kB: not a setup" % (
            path, MAX_SETUP_BYTES // 1024))
    try:
        setup = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ValueError("the setup %s is not UTF-8 text (byte %d)" % (path, e.start)) from None
    except RecursionError:
        raise ValueError("the setup %s is nested too deeply to be a setup" % path) from None
    except ValueError as e:
        raise ValueError("the setup %s is not valid JSON: %s" % (path, e)) from None
    if not isinstance(setup, dict):
        raise ValueError("the setup %s must hold a JSON object (the game's setup form), not %s"
                         % (path, type(setup).__name__))
    try:
        canon.dumps(setup)      # it is journalled as canonical JSON: whole numbers only
    except TypeError as e:
        raise ValueError("the setup %s holds a value a game cannot: %s" % (path, e)) from None
    try:
        # Read again through the gate of every scenario and journal record: a name given
        # twice in one object (json keeps the last silently), or text the journal could
        # not read back.
        setup = canon.loads(data)
    except canon.ReadError as e:
        raise ValueError("the setup %s: %s" % (path, e.message)) from None
    return setup


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    args.timer = Timings(args.timings)
    args.timer.mark("imports")      # (the web table's and the hall's too: parse_args)
    try:
        return asyncio.run(run(args))
    except (layouts.LayoutError, JournalError, ScenarioError, ValueError) as e:
        print("fairytable run: %s" % e, file=sys.stderr)
        return 2
    except ControlError as e:
        # The virtual table could not be started or driven (a tile that will not start);
        # the journal keeps the game: the same command resumes it.
        print("fairytable run: the virtual table failed: %s\nThe game is kept in the "
              "journal: run the same command again to resume it." % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except asyncio.CancelledError:
        # SIGTERM (systemd's stop, a container's): a clean stop, as Ctrl-C is; the hall
        # was told "disconnected", the tiles and the journal were closed.
        print("fairytable run: stopped (SIGTERM). The journal keeps the game: the same "
              "command goes on with it (or starts a new one if it was over).", file=sys.stderr)
        return 0


def stop_on_sigterm():
    """SIGTERM cancels the running game as Ctrl-C does: every `finally` of run() runs (the
    hall hears "disconnected", not its last will "lost"; the virtual tiles end)."""
    task = asyncio.current_task()
    try:
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    except (NotImplementedError, RuntimeError, ValueError):
        pass        # not the main thread (a test's run), or no signals here


def open_game(args, game, layout, options, setup, log, timer):
    """The journal (checked), the tag registry and the game to play: the journal's unfinished
    game of this kind, resumed, or a new one. Returns (journal, registry, match, game_id,
    seed, bot_seats); raises ValueError, JournalError... in words, having changed nothing."""
    # One data folder holds the journal, the key and the tag registry (host/installation.py).
    # All three are checked before any is made or opened for writing: a refusal changes
    # nothing on disk.
    journal_path = installation.journal_path(args.journal)
    key_path = installation.key_path(args.key)
    registry_path = installation.registry_path(args.registry)
    report = journals.check(journal_path, replay_finished=False)
    timer.mark("journal")
    # The journal's unfinished game of this kind resumes, with its own players; the options
    # choose who plays each seat, and an option it cannot take is refused (resume_refusal).
    resumed = None if args.new or report is None else report.resumable_game(args.game)
    if resumed is not None:
        seat_list = game.seats(resumed[1].get("options") or {}, resumed[1].get("setup"))
        refusal = resume_refusal(args, setup, resumed, seat_list, journal_path)
        if refusal is not None:
            raise ValueError(refusal)
    else:
        seat_list = new_game_seats(args, game, options, setup)
    if layout.seat_tiles:
        # Each seat of the game plays its cards on its own reader (seat n: the n-th seat).
        missing = [n for n in range(1, len(seat_list) + 1) if n not in layout.seat_slot]
        if missing:
            raise ValueError("the layout %s has no card reader for seat%s %s (%s): a game of "
                             "%d players needs seats = [%s] on its seat tile" % (
                                 layout.path, "s" if len(missing) > 1 else "",
                                 ", ".join(str(n) for n in missing),
                                 ", ".join(seat_list[n - 1] for n in missing),
                                 len(seat_list), ", ".join(
                                     str(n) for n in range(1, len(seat_list) + 1))))
    if resumed is None:
        refusal = bots_refusal(args, seat_list)
        if refusal is not None:
            raise ValueError(refusal)
    refusal = levels_refusal(args, seat_list)
    if refusal is not None:
        raise ValueError(refusal)
    key = tags.read_key(key_path)
    tags.check_registry(registry_path)
    journal = Journal(journal_path, report)
    try:
        registry = tags.Registry(key if key is not None else tags.make_key(key_path),
                                 registry_path)
    except BaseException:
        journal.close()
        raise
    if resumed is not None:
        game_id = resumed[0]
        match, session_info = journal.resume(game_id, report)
        seed = session_info.get("seed", 0)
        # Its bots keep their levels, unless --level gives one.
        journalled = session_info.get("bots")
        bot_seats = bots_of(args, seat_list, journalled if isinstance(journalled, dict) else {})
        timer.mark("replay", actions=len(match.actions))
        log.say("resuming game %d of %s from %s (%d actions): %s" % (
            game_id, _info(args.game)["title"], journal_path, len(match.actions),
            who_plays(seat_list, bot_seats)), staff=True)
    else:
        seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
        bot_seats = bots_of(args, seat_list)
        match = Match(args.game, options, seed, setup)
        game_id = journal.start_game(match, {"bots": bot_seats, "seed": seed,
                                             "layout": layout.path})
        log.say("A new game of %s (game %d, seed %d)." % (_info(args.game)["title"], game_id,
                                                          seed))

    return journal, registry, match, game_id, seed, bot_seats


async def _stop_virtual_table(starting):
    """Stop a virtual table that was starting when the run was refused."""
    try:
        _ports, vtable = await starting
    except BaseException:
        return      # it did not start: nothing runs
    vtable.stop()


async def run(args):
    stop_on_sigterm()
    timer = getattr(args, "timer", None) or Timings(getattr(args, "timings", False))
    if not 0 <= args.offline_grace <= 86400:   # (a NaN fails both comparisons)
        raise ValueError("--offline-grace is a number of seconds from 0 to 86400, not %s"
                         % args.offline_grace)
    if not 0 <= args.lit_patience <= 3600:
        raise ValueError("--lit-patience is a number of seconds from 0 to 3600, not %s"
                         % args.lit_patience)
    game = games.table_game(args.game)
    layout = layouts.load(args.layout or layouts.builtin_path(args.game))
    if layout.game != args.game:
        raise ValueError("the layout %s is for %s, not %s" % (layout.path, layout.game, args.game))
    options, setup = new_game_setup(args, game)
    log = SessionLog(None if args.json else (lambda line: print(line, flush=True)))

    from host.virtual import NO_TABLE, open_table
    starting = None
    if not args.port:
        # No table configured: the virtual table's tiles boot while the journal is checked
        # and its game replayed, as a table's tiles boot by themselves while the host
        # starts. It is said once the journal is sound (a refused one stops them unsaid).
        starting = asyncio.get_running_loop().run_in_executor(None, functools.partial(
            open_table, [], layout, interpreter=args.interpreter, heapsize=game.virtual_heap,
            tags_per_reader=game.virtual_tags_per_reader, announce=None))
    try:
        journal, registry, match, game_id, seed, bot_seats = open_game(
            args, game, layout, options, setup, log, timer)
    except BaseException:
        if starting is not None:
            await _stop_virtual_table(starting)
        raise
    if starting is None:
        ports, vtable = list(args.port), None
    else:
        try:
            ports, vtable = await starting
        except BaseException:
            journal.close()
            raise
        print(NO_TABLE % (len(vtable.tiles), vtable.interpreter), file=sys.stderr, flush=True)
    lines = []
    if vtable is not None and args.line_faults:
        corrupt, drop, fault_seed = args.line_faults
        lines = [noisy_line.NoisyLine(p, corrupt, drop, fault_seed * 1000 + i)
                 for i, p in enumerate(ports)]
        ports = [line.port for line in lines]
    from host.link import TableLink
    link = TableLink(ports=ports)
    web = None
    hall = None
    try:
        await link.start()
        uids = await wait_for_tiles(link, len(layout.tiles),
                                    [t.uid for t in vtable.tiles] if vtable else None,
                                    timeout_s=VIRTUAL_START_S if vtable else 30.0)
        timer.mark("tiles")
        hands = None
        if vtable is not None:
            hands = game.hands(vtable, layout, registry)
        if args.headless and hands is None:
            raise ValueError("%s has no virtual hands: it cannot play --headless" % args.game)
        session = TableSession(match, layout, link, registry, uids, journal, game_id,
                               bot_seats, seed, hands,
                               log, hide_window_ms=900 if args.headless else None,
                               offline_grace_ms=int(args.offline_grace * 1000),
                               lit_patience_ms=int(args.lit_patience * 1000))
        if args.attract_after is not None:
            session.attract_after_ms = int(args.attract_after * 60000)
        if args.json:
            # No log lines in --json mode: a wait for a tile must still be said.
            session.on_waiting = lambda waiting: print(
                json.dumps({"waiting_for": waiting}, sort_keys=True), file=sys.stderr, flush=True)
        if hands is not None:
            # A fresh virtual table is empty: the players set out the cards the journal holds.
            await hands.tidy(match.state, session.table)
            timer.mark("set_out")
        def new_game():
            fresh_seed = int.from_bytes(os.urandom(4), "big")
            # Like the game the table plays (a resumed one's players): the bots' seats fit it.
            fresh = Match(args.game, session.match.options, fresh_seed)
            return fresh, journal.start_game(fresh, {"bots": bot_seats, "seed": fresh_seed,
                                                     "layout": layout.path})
        session.new_game = new_game
        if not args.headless and not args.json:
            attach_terminal(session, hands, args.reveal)
        if args.gpio:
            attach_pi(session)
        from host.web import options as web_options
        if web_options.serves(args):
            from host.web.server import start_for_run   # (aiohttp: only when it serves)
            web = await start_for_run(args, session, hands, journal)
        else:
            web_options.pace(args, session)
        from host.hall.table import start_for_run as join_hall
        hall = await join_hall(args, session, web)
        if timer.on:
            watch_start(session, timer)
        summary = await session.run(max_actions=args.max_actions)
        if web is not None:
            summary = await web.after_game(args, summary)
    finally:
        if hall is not None:
            await hall.stop()
        if web is not None:
            await web.stop()
        await link.stop()
        for line in lines:
            line.close()
        if vtable is not None:
            vtable.stop()
        journal.close()
    summary["seed"] = seed
    summary["game_id"] = game_id
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print(session.result_words(), flush=True)
    return 0


def watch_start(session, timer):
    """Mark "lit" once every tile has acknowledged the first scenes the session lit (after
    its tiles' first reports: `Session.table_lit`, before which no bot moves), with the
    actions then and a digest of those scenes (`scenes_digest`, for a test to compare with
    the game's), or "unlit" if a tile's patience ran out first, and "first_action" at the
    first action applied."""
    previous = session.on_applied
    light = session.light
    first = {}

    def applied(action, events):
        timer.mark("first_action", actions=len(session.match.actions))
        if previous is not None:
            previous(action, events)

    def first_light():
        light()
        if not first:
            first["scenes"] = dict(session.sent_scenes)
            first["actions"] = len(session.match.actions)

    session.on_applied = applied
    session.light = first_light

    def lit():
        timer.mark("lit", actions=first["actions"], scenes=scenes_digest(first["scenes"]))

    session.on_lit = lit

    async def until_lit():
        # The session sees the acknowledgements when a bot asks (before it moves) or here.
        while session.first_light_at is None or not session.table_lit():
            await asyncio.sleep(0.005)
        if "lit" not in timer.marked:
            # The tiles' patience ran out: the game went on before they were all lit.
            timer.mark("unlit", actions=first["actions"])

    asyncio.ensure_future(until_lit())


def scenes_digest(scenes):
    """A number that changes when any place's scene does ({place: scene}, any order)."""
    return binascii.crc32(repr(sorted((repr(k), repr(v)) for k, v in scenes.items()))
                          .encode())


def attach_pi(session):
    """The Pi's seat buttons and staff controls feed the session; the strip shows the score."""
    from host.pi import SeatButtons, StatusStrip

    def press(seat, name):
        action = session.button(seat, name)
        if action is not None:
            session.apply_from_table(action)

    SeatButtons(press).start(asyncio.get_running_loop())
    strip = StatusStrip()
    previous = session.on_change

    def show():
        if previous is not None:
            previous()
        scores, target, side = session.game.status_strip(session.match)
        strip.show(scores, target, side, bool(session.mismatches))

    session.on_change = show


def attach_terminal(session, hands, reveal=False):
    """Show the table in the terminal after every change; read typed inputs from stdin. The
    view shows what the room may see; `reveal` adds each action as the engine has it."""
    from host import terminal
    colour = sys.stdout.isatty()
    if reveal:
        session.on_applied = lambda action, events: print(
            "  (reveal) %s -> %s" % (json.dumps(action, sort_keys=True),
                                     json.dumps(events, sort_keys=True)), flush=True)

    def show():
        demo = session.demo if session.attract else None
        if demo is not None:
            # The attract mode: the demo game the table plays by itself, move by move.
            print(session.game.render(demo.match.state, session.scenes(), [], colour,
                                      table=demo.table), flush=True)
            print("%s. %s" % (demo.banner(), demo.words or ""), flush=True)
            return
        print(session.game.render(session.match.state, session.scenes(),
                                  session.mismatches, colour, table=session.table), flush=True)

    session.on_change = show
    if sys.stdin is None or sys.stdin.closed or not sys.stdin.isatty():
        return
    loop = asyncio.get_running_loop()
    print("type commands for the virtual table (help lists them)", flush=True)

    def on_line():
        line = sys.stdin.readline()
        if not line:
            loop.remove_reader(sys.stdin.fileno())
            return
        if line.strip() == "help":
            print(terminal.HELP, flush=True)
            return
        try:
            kind, first, rest = terminal.parse_command(line)
        except ValueError as e:
            print(e, flush=True)
            return
        if kind == "button":
            action = session.button(first, rest)
            if action is not None:
                session.apply_from_table(action)
            return
        if hands is None:
            print("the hands work on the virtual table only: use the real cards", flush=True)
            return
        session.hand_touched()
        asyncio.ensure_future(typed_hands(hands, first, rest))

    loop.add_reader(sys.stdin.fileno(), on_line)


async def typed_hands(hands, op, args):
    try:
        if op == "place":
            await hands.place(args[1], hands.item_named(args[0]))
        elif op == "lift":
            await hands.lift(args[0])
        else:
            await hands.gesture(args[0], op)
    except Exception as e:  # a typo must not stop the table
        print("could not %s: %s" % (op, e), flush=True)


# The virtual table's tiles are processes of this machine: on a loaded machine (a Pi doing
# other work, a bench running games side by side) their start, or the restart of one that
# died while starting, can take longer than a real tile's boot (at a load of 30 on two
# cores, five tile processes took 8-10 s just to appear); they are given longer before
# the host gives up.
VIRTUAL_START_S = 120.0


async def wait_for_tiles(link, count, order=None, timeout_s=30.0, noisy_s=300.0):
    """Wait until `count` tiles said hello; their uids in layout order. Past `timeout_s`,
    wait on (up to `noisy_s` in all) while bytes still come from a port with no tile
    online: a noisy line, where a HELLO gets through in the end."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    while sum(1 for t in link.tiles.values() if t.online) < count:
        waited = loop.time() - started
        if waited > timeout_s and (waited > noisy_s or not link.noisy_ports()):
            raise ValueError("only %d of %d tiles answered; run `fairytable doctor`"
                             % (sum(1 for t in link.tiles.values() if t.online), count))
        await asyncio.sleep(0.05)  # events stay queued for the session (snapshots of tags)
    return list(order) if order else sorted(link.tiles)
