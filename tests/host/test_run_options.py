"""`fairytable run` with bad option values or combinations: exit status 2 and a sentence
naming the option or file, never a traceback, and nothing made on disk."""

import json
import os
import subprocess
import sys

import pytest

from host import run as run_command
from mpy import REPO

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")


@pytest.fixture
def setups(tmp_path):
    folder = tmp_path / "setups"
    folder.mkdir()
    (folder / "garbage.json").write_bytes(b"{not json")
    (folder / "nested.json").write_text("[" * 100000 + "]" * 100000)
    (folder / "list.json").write_text("[1, 2]")
    (folder / "latin1.json").write_bytes(b'{"hands": "caf\xe9"}')
    (folder / "huge.json").write_text('{"x": "%s"}' % ("a" * (run_command.MAX_SETUP_BYTES)))
    (folder / "bad_card.json").write_text(json.dumps(
        {"board": [{"card": "no_such_card", "cell": [3, 3], "owner": "hero"}]}))
    (folder / "dir.json").mkdir()
    with open(os.path.join(REPO, "host", "games", "heroes", "layout.toml")) as f:
        (folder / "two_readers.toml").write_text(f.read().replace("seats = [1, 2, 3, 4]",
                                                                  "seats = [1, 2]"))
    (folder / "float.json").write_text('{"board": [], "extra": [1.5]}')
    (folder / "list_id.json").write_text(json.dumps(
        {"board": [{"card": ["x"], "cell": [3, 3], "owner": "villain"}],
         "hands": {"hero": [["the_white_rabbit"]]}, "turn": "hero"}))
    return folder


CASES = [
    (["--bots", "-1"], "--bots must be 0 or more"),
    (["--bots", "5"], "--bots 5 is more bots than players: this game of Storybook Battles has 2 "
                      "(--players sets how many play)"),
    # One rule of seats for every game: --bots fills the last seats, at most one a player.
    (["--game", "royale", "--bots", "4"], "--bots 4 is more bots than players: this game of "
                                          "Battle Royale has 3"),
    (["--game", "royale", "--players", "2", "--bots", "3"], "--bots 3 is more bots than "
                                                            "players: this game of Battle "
                                                            "Royale has 2"),
    (["--game", "heroes", "--bots", "3"], "--bots 3 is more bots than players: this game of "
                                          "Battle Royale with hero teams has 2"),
    (["--game", "fightclub", "--players", "1", "--bots", "2"], "--bots 2 is more bots than "
                                                               "players: this game of Fairy "
                                                               "Tale Fight Club has 1"),
    (["--game", "royale", "--players", "4", "--headless", "--bots", "3"],
     "--headless needs a bot in every seat: --bots 4 for the 4 players"),
    # With --headless and no --players, --bots says the count; the rules may refuse it.
    (["--headless", "--bots", "3"], "--headless --bots 3 asks for 3 players of Storybook "
                                    "Battles; the number of players must be 2 or 4"),
    (["--game", "fightclub", "--headless", "--bots", "5"], "--headless --bots 5 asks for 5 "
                                                           "players of Fairy Tale Fight Club"),
    (["--players", "99"], "--players 99"),
    (["--players", "-3"], "--players must be"),
    (["--game", "royale", "--players", "99", "--headless", "--bots", "2"], "--players 99"),
    (["--seed", "-5"], "--seed must be 0 to 4294967295"),
    (["--seed", "9" * 40], "--seed must be 0 to 4294967295"),
    (["--seed", "many"], "--seed: invalid int value"),
    (["--max-actions", "0"], "--max-actions must be 1 or more"),
    (["--max-actions", "-7"], "--max-actions must be 1 or more"),
    (["--setup", "{setups}/missing.json"], "cannot read the setup {setups}/missing.json"),
    (["--setup", "{setups}/garbage.json"], "the setup {setups}/garbage.json is not valid JSON"),
    (["--setup", "{setups}/nested.json"], "the setup {setups}/nested.json is nested too"),
    (["--setup", "{setups}/list.json"], "the setup {setups}/list.json must hold a JSON object"),
    (["--setup", "{setups}/latin1.json"], "the setup {setups}/latin1.json is not UTF-8"),
    (["--setup", "{setups}/huge.json"], "the setup {setups}/huge.json is more than 1024 kB"),
    (["--setup", "{setups}/dir.json"], "the setup {setups}/dir.json is a folder"),
    (["--setup", "{setups}/bad_card.json"], "the setup {setups}/bad_card.json: setup.board"),
    (["--setup", "{setups}/float.json"], "the setup {setups}/float.json holds a value"),
    # Refused by whichever check meets it first: the rules, or run itself.
    (["--setup", "{setups}/list_id.json"], "the setup {setups}/list_id.json"),
    (["--port", "/dev/no-such-tile"], "--port /dev/no-such-tile: there is no such port"),
    (["--port", "{setups}"], "is a folder, not a serial port"),
    (["--port", "{setups}/list.json"], "is a file, not a serial port"),
    (["--port", "/dev/null", "--port", "/dev/null"], "--port /dev/null is given twice"),
    (["--port", "/dev/null", "--headless", "--bots", "2"], "--headless plays through"),
    (["--port", "/dev/null", "--interpreter", "cpython"], "--interpreter chooses"),
    (["--journal", ""], "--journal needs a file name"),
    (["--journal", "{setups}/list.json/journal.db"], "{setups}/list.json is not a folder"),
    (["--journal", "{setups}"], "the journal {setups} cannot be used: it is a folder"),
    (["--layout", "{setups}/missing.toml"], "{setups}/missing.toml: cannot read the layout"),
    (["--game", "chess"], "--game: invalid choice"),
    (["--game", "royale", "--mode", "ctf"], "--mode ctf: Battle Royale has no modes"),
    (["--game", "heroes", "--mode", "tag"], "--mode: invalid choice"),
    (["--game", "heroes", "--mode", "ctf", "--players", "3"], "--players 3: "),
    (["--game", "fairytale", "--option", "alchemist=maybe"],
     "--option alchemist=maybe: alchemist is one of false, true"),
    (["--game", "fairytale", "--option", "alchemist"], "--option alchemist: give NAME=VALUE"),
    (["--game", "fairytale", "--option", "colour=red"], "Fairytale Games: The Battle Royale "
     "has the options alchemist, quest_thresholds"),
    (["--game", "storybook", "--option", "alchemist=true"], "Storybook Battles has no options"),
    (["--game", "fairytale", "--option", "alchemist=on", "--option", "alchemist=off"],
     "--option alchemist is given twice"),
    (["--game", "heroes", "--players", "3", "--layout", "{setups}/two_readers.toml"],
     "{setups}/two_readers.toml has no card reader for seat 3 (green): a game of 3 players "
     "needs seats = [1, 2, 3]"),
    # The bots' levels: LEVEL for every bot, N=LEVEL for the bot in seat N.
    (["--level", "expert"], "--level expert: a bot's level is easy, normal or hard"),
    (["--level", "2=Hard"], "--level 2=Hard: a bot's level is easy, normal or hard"),
    (["--level", "greedy"], "--level greedy: a bot's level is easy, normal or hard (greedy is "
                            "--bot-kind greedy)"),
    (["--level", "2="], "--level 2=: give LEVEL for every bot or N=LEVEL for the bot in seat N, "
                        "LEVEL being easy, normal or hard"),
    (["--level", ""], "--level : give LEVEL for every bot"),
    (["--level", "two=hard"], "--level two=hard: N in N=LEVEL is the number of a bot's seat, "
                              "counted from 1 as --bots counts seats (--level 2=hard)"),
    (["--level", "0=hard"], "--level 0=hard: N in N=LEVEL is the number of a bot's seat"),
    (["--level=-1=hard"], "--level -1=hard: N in N=LEVEL is the number of a bot's seat"),
    (["--level", "=hard"], "--level =hard: N in N=LEVEL is the number of a bot's seat"),
    (["--level", "hard", "--level", "easy"], "--level is given twice for every bot (hard and "
                                             "easy): give it once"),
    (["--level", "2=hard", "--level", "2=easy"], "--level is given twice for seat 2 (hard and "
                                                 "easy): give it once"),
    (["--bot-kind", "random", "--level", "hard"], "--level hard and --bot-kind random both give "
                                                  "every bot's level: --bot-kind is the older "
                                                  "spelling of --level, give one of them"),
    (["--bot-kind", "clever"], "--bot-kind: invalid choice: 'clever'"),
    (["--bots", "1", "--level", "1=hard"], "--level 1=hard: seat 1 (villain) is a person's; "
                                           "--bots 1 puts a bot in seat 2"),
    (["--bots", "1", "--level", "3=hard"], "--level 3=hard: this game of Storybook Battles has "
                                           "2 seats; --bots 1 puts a bot in seat 2"),
    (["--level", "2=easy"], "--level 2=easy: seat 2 (hero) is a person's; no seat is a bot's "
                            "(--bots 0)"),
    (["--game", "royale", "--bots", "2", "--level", "2=easy", "--level", "1=hard"],
     "--level 1=hard: seat 1 (red) is a person's; --bots 2 puts bots in seats 2 and 3"),
    (["--game", "fightclub", "--players", "4", "--headless", "--bots", "4", "--level",
      "5=hard"], "--level 5=hard: this game of Fairy Tale Fight Club has 4 seats; --bots 4 puts "
                 "bots in seats 1, 2, 3 and 4"),
    # The hall (docs/hall.md): the broker's address and the names on it.
    (["--mqtt", "127.0.0.1:1883"], "--mqtt takes the broker's address like "
                                   "mqtt://127.0.0.1:1883"),
    (["--mqtt", "mqtt://table:secret@broker:99999"], "--mqtt mqtt://table:***@broker:99999: "
                                                     "the port must be a number"),
    (["--hall", "hall-a"], "--hall names this table in a hall: it needs --mqtt URL"),
    (["--ha-discovery"], "--ha-discovery announces this table on the hall's broker: it needs "
                         "--mqtt URL"),
    (["--mqtt", "mqtt://127.0.0.1:1", "--table-id", "Table 1"],
     "--table-id: the table 'Table 1' is not a name the hall can use"),
    (["--mqtt", "mqtt://127.0.0.1:1", "--hall", "a/b"],
     "--hall: the hall 'a/b' is not a name the hall can use"),
]


@pytest.mark.parametrize("argv,words", CASES, ids=[" ".join(a)[:40] for a, _ in CASES])
def test_a_bad_option_is_refused_with_a_sentence(argv, words, setups, tmp_path, monkeypatch,
                                                 capsys):
    home = tmp_path / "home"
    monkeypatch.setenv("FAIRYTABLE_HOME", str(home))
    argv = [a.replace("{setups}", str(setups)) for a in argv]
    try:
        status = run_command.main(argv)
    except SystemExit as e:          # argparse's own refusals: usage and a sentence
        status = e.code
    err = capsys.readouterr().err
    assert status == 2, err
    assert words.replace("{setups}", str(setups)) in err, err
    assert "Traceback" not in err
    assert not home.exists()


def players_of(argv, game="storybook"):
    """The player count of the new game `fairytable run ARGV` asks for (host/run.py)."""
    from host.games import table_game
    args = run_command.parse_args(argv)
    options, setup = run_command.new_game_setup(args, table_game(game))
    return len(table_game(game).seats(options, setup))


def test_players_default_to_the_games_usual_count_and_bots_take_the_last_seats():
    """One rule for every game: --players sets the count (default: the game's usual);
    --bots N fills the last N seats; with --headless (a bot in every seat) --bots N alone
    says N players."""
    usual = {"storybook": 2, "royale": 3, "heroes": 2, "fightclub": 2}
    for game, count in usual.items():
        assert players_of(["--game", game], game) == count
        assert players_of(["--game", game, "--bots", "1"], game) == count
        assert players_of(["--game", game, "--players", "2", "--bots", "1"], game) == 2
    assert players_of(["--headless", "--bots", "4"]) == 4     # Storybook's four-player game
    assert players_of(["--game", "royale", "--headless", "--bots", "2"], "royale") == 2
    assert players_of(["--game", "royale", "--headless", "--bots", "5"], "royale") == 5
    assert players_of(["--game", "heroes", "--headless", "--bots", "3"], "heroes") == 3
    assert players_of(["--game", "fightclub", "--headless", "--bots", "1"], "fightclub") == 1
    assert players_of(["--game", "royale", "--headless", "--players", "4", "--bots", "4"],
                      "royale") == 4


def test_headless_games_keep_the_options_they_were_dealt_with():
    """The bots seed their choices from the whole state, options included: a headless
    command must journal the options it did before the rule was one for every game, or
    each seed of it would play another game (tests/integration/test_table_*_play.py,
    tools/kill_games.py, tools/line_faults.py replay them)."""
    from host.games import table_game
    for argv, game, options in (
            (["--headless", "--bots", "2"], "storybook", {"mode": "physical"}),
            (["--headless", "--bots", "4"], "storybook", {"mode": "physical", "players": 4}),
            (["--players", "2", "--headless", "--bots", "2"], "storybook",
             {"mode": "physical", "players": 2}),
            (["--game", "royale", "--headless", "--bots", "2"], "royale", {"players": 2}),
            (["--game", "royale", "--headless", "--bots", "3"], "royale", {"players": 3}),
            (["--game", "royale", "--bots", "2"], "royale", {}),
            (["--game", "heroes", "--headless", "--bots", "2"], "heroes", {"players": 2}),
            (["--game", "heroes", "--mode", "ctf", "--headless", "--bots", "2"], "heroes",
             {"mode": "ctf", "players": 2}),
            (["--game", "fightclub", "--headless", "--bots", "2"], "fightclub", {"players": 2}),
            (["--game", "fightclub", "--players", "3", "--headless", "--bots", "3"],
             "fightclub", {"players": 3}),
            # The book's alchemist mode: "heal and cure potions as tokens".
            (["--game", "fairytale", "--option", "alchemist=true", "--headless", "--bots",
              "4"], "fairytale", {"alchemist": True, "players": 4}),
            (["--game", "fairytale", "--option", "quest_thresholds=components", "--players",
              "2"], "fairytale", {"players": 2, "quest_thresholds": "components"})):
        args = run_command.parse_args(argv)
        assert run_command.new_game_setup(args, table_game(game)) == (options, None), argv


def test_the_help_states_the_rule_of_seats():
    proc = subprocess.run([FAIRYTABLE, "run", "--help"], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert proc.returncode == 0
    words = " ".join(proc.stdout.split())
    assert "--players N sets how many play (default: the game's usual count" in words
    assert "--bots N puts bots in the last N seats, at most one a player" in words
    assert "With --headless every seat is a bot's, so --bots N alone says N players" in words
    assert "storybook 2, royale 3, heroes 2, fightclub 2" in words


def test_the_command_itself_exits_2_without_a_traceback(tmp_path):
    proc = subprocess.run([FAIRYTABLE, "run", "--bots", "-1"], capture_output=True, cwd=REPO,
                          timeout=120, env=dict(os.environ, FAIRYTABLE_HOME=str(tmp_path)))
    assert proc.returncode == 2 and b"--bots must be 0 or more" in proc.stderr
    assert b"Traceback" not in proc.stderr


def test_a_virtual_table_that_fails_is_a_sentence_not_a_traceback(monkeypatch, capsys):
    from host.virtual.table import ControlError

    async def failing(args):
        raise ControlError("tile 2 did not start (exited); its log:\nboom")

    monkeypatch.setattr(run_command, "run", failing)
    assert run_command.main(["--headless", "--bots", "2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("fairytable run: the virtual table failed: tile 2 did not start")
    assert "run the same command again to resume it" in err and "Traceback" not in err


def test_a_run_that_serves_no_web_table_never_imports_aiohttp():
    """The web table's options are read without its server: a headless or --json run (which
    serves nothing) starts without aiohttp, about a sixth of a second of CPU on this
    machine (BENCHMARKS.md, "Back in play after a crash")."""
    code = ("import sys\nfrom host import run\n"
            "args = run.parse_args(['--headless', '--bots', '2', '--json'])\n"
            "from host.web import options\n"
            "assert not options.serves(args)\n"
            "print('aiohttp' in sys.modules)\n"
            "args = run.parse_args(['--web', '127.0.0.1:0'])\n"
            "assert options.serves(args)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"
