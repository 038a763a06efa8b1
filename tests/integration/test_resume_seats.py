"""A game that resumes keeps its players; who plays each seat follows the new options.

At a convention people take over a bot's seat and hand it back: `fairytable run --bots 1`
after a game of two bots resumes it with a person in the first seat, and `--headless
--bots 2` after a game with a person plays the person's seat with a bot to the end. An
option the resumed game cannot take (another player count, mode, seed or setup, more bots
than it has seats, --headless without a bot in every seat) is refused with exit status 2
and a sentence naming --new, and nothing changes: the journal, the data folder.
Real journals (SQLite), the real command, and the real virtual table where it plays.
"""

import json
import os
import re
import sqlite3
import subprocess
import sys

import pytest

from mpy import REPO
from test_table_play import engine_only_game
from web_helpers import Host, seat_words

from host.journal import Journal
from shared_rules.engine import Match

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")


def unfinished_game(journal, game, options, seed, bots, actions=3, setup=None):
    """A journal holding one unfinished game, as `fairytable run` leaves it after a pulled
    plug: its record, who played each seat then, and its first few actions."""
    j = Journal(str(journal))
    try:
        match = Match(game, options, seed, setup)
        game_id = j.start_game(match, {"bots": bots, "seed": seed, "layout": "(test)"})
        for seq in range(actions):
            action = match.legal_actions()[0]
            match.apply(action)
            j.append(game_id, seq, action, match)
    finally:
        j.close()
    return game_id


def files(folder):
    """Every file under `folder` with its bytes."""
    out = {}
    for here, _dirs, names in os.walk(str(folder)):
        for name in names:
            with open(os.path.join(here, name), "rb") as f:
                out[os.path.join(here, name)] = f.read()
    return out


def run(argv, home, timeout=120):
    return subprocess.run([FAIRYTABLE, "run", "--no-web"] + argv, capture_output=True,
                          text=True, cwd=REPO, timeout=timeout,
                          env=dict(os.environ, FAIRYTABLE_HOME=str(home)))


# (the journalled game: game, options, seed, setup), the options, the words of the refusal
REFUSED = [
    (("royale", {"players": 3}, 7, None), ["--game", "royale", "--players", "2", "--bots", "2"],
     "game 1 of Battle Royale (3 players), unfinished in {journal}, would resume, but it has "
     "3 players, not the 2 of --players 2: run with --new to start a new game, or leave out "
     "--players to resume it"),
    (("royale", {}, 7, None), ["--game", "royale", "--headless", "--bots", "2"],
     "but --headless needs a bot in each of its 3 seats: run with --new to start a new game, "
     "or give --bots 3 to resume it"),
    (("royale", {"players": 2}, 7, None), ["--game", "royale", "--bots", "3"],
     "but it has 2 players, too few for --bots 3: run with --new"),
    (("storybook", {"mode": "physical"}, 17, None), ["--seed", "999", "--bots", "2"],
     "game 1 of Storybook Battles (2 players), unfinished in {journal}, would resume, but it "
     "was dealt with seed 17, not --seed 999: run with --new"),
    (("heroes", {}, 7, None), ["--game", "heroes", "--mode", "ctf", "--bots", "2"],
     "game 1 of Battle Royale with hero teams (2 players), unfinished in {journal}, would "
     "resume, but it is not a game of Capture the Flag (--mode ctf): run with --new"),
    (("fairytale", {"players": 2}, 7, None), ["--game", "fairytale", "--option",
                                               "alchemist=true"],
     "game 1 of Fairytale Games: The Battle Royale (2 players), unfinished in {journal}, "
     "would resume, but it was not started with --option alchemist=true: run with --new to "
     "start a new game, or leave out --option to resume it"),
    (("royale", {}, 7, {"players": [{"id": "red", "cell": [0, 3]},
                                    {"id": "blue", "cell": [0, -3]}]}),
     ["--game", "royale", "--setup", "{setup}"],
     "but it did not start from the setup {setup}: run with --new"),
]


@pytest.mark.parametrize("journalled,argv,words", REFUSED,
                         ids=[" ".join(a)[:40] for _j, a, _w in REFUSED])
def test_an_option_the_resumed_game_cannot_take_is_refused_naming_new(tmp_path, journalled,
                                                                       argv, words):
    journal = tmp_path / "journal.db"
    game, options, seed, setup = journalled
    unfinished_game(journal, game, options, seed, {}, setup=setup)
    other_setup = tmp_path / "setup.json"
    other_setup.write_text(json.dumps({"players": [{"id": "red", "cell": [3, 0]},
                                                   {"id": "blue", "cell": [-3, 0]}]}))
    home = tmp_path / "home"
    before = files(tmp_path)
    argv = [a.replace("{setup}", str(other_setup)) for a in argv]
    proc = run(argv + ["--journal", str(journal)], home)
    assert proc.returncode == 2, proc.stderr[-3000:]
    sentence = words.replace("{journal}", str(journal)).replace("{setup}", str(other_setup))
    assert proc.stderr.startswith("fairytable run: game 1 of "), proc.stderr
    assert sentence in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    # Nothing changed: the journal's bytes, and no key or tag registry made.
    assert files(tmp_path) == before
    assert not home.exists()


def test_options_the_resumed_game_already_has_are_not_refused(tmp_path):
    """The same count, mode, seed or setup it was dealt with: the game resumes."""
    from host import run as run_command
    from host.journal import check
    from host.games import table_game

    setup = {"players": [{"id": "red", "cell": [0, 3]}, {"id": "blue", "cell": [0, -3]}]}
    journal = tmp_path / "journal.db"
    unfinished_game(journal, "royale", {}, 7, {}, setup=setup)
    unfinished_game(journal, "heroes", {}, 8, {})
    unfinished_game(journal, "fairytale", {"players": 2}, 9, {})
    report = check(str(journal), replay_finished=False)
    for argv, game, setup_given in (
            (["--game", "royale", "--players", "2", "--seed", "7", "--bots", "2"], "royale",
             setup),
            (["--game", "royale", "--headless", "--bots", "2"], "royale", None),
            (["--game", "heroes", "--mode", "royale", "--players", "2", "--seed", "8"],
             "heroes", None),
            (["--game", "heroes", "--bots", "0"], "heroes", None),
            (["--game", "fairytale", "--option", "alchemist=false"], "fairytale", None)):
        args = run_command.parse_args(argv)
        resumed = report.resumable_game(game)
        record = resumed[1]
        seats = table_game(game).seats(record.get("options") or {}, record.get("setup"))
        assert run_command.resume_refusal(args, setup_given, resumed, seats,
                                          str(journal)) is None, argv


def seat_lines(host):
    """seat -> True for a bot, from the seat links the host prints."""
    return {seat: bool(said) for seat, (said, _) in seat_words(host.log()).items()}


def test_a_person_takes_over_a_bots_seat_when_a_game_resumes(tmp_path):
    """`fairytable run --bots 2`, the plug pulled mid-game, `fairytable run --bots 1`: the
    same game goes on, the first seat now a person's."""
    journal = tmp_path / "journal.db"
    first = subprocess.run([FAIRYTABLE, "run", "--headless", "--bots", "2", "--json",
                            "--seed", "12", "--new", "--max-actions", "10", "--journal",
                            str(journal)], capture_output=True, text=True, cwd=REPO,
                           timeout=600)
    assert first.returncode == 0, first.stderr[-3000:]
    summary = json.loads(first.stdout)
    assert summary["status"] == "ongoing"
    host = Host(tmp_path, "--bots", "1", "--pace", "0", journal=str(journal))
    try:
        host.start()
        log = host.log()
        assert ("resuming game 1 of Storybook Battles from %s (%d actions): a person plays "
                "seat 1, a bot seat 2" % (journal, summary["actions"])) in log, log[-3000:]
        assert seat_lines(host) == {"villain": False, "hero": True}
        view = host.table()
        assert [(q["seat"], q["bot"]) for q in view["seats"]] == [("villain", False),
                                                                  ("hero", True)]
    finally:
        host.stop()
    db = sqlite3.connect(str(journal))
    assert db.execute("SELECT COUNT(*), SUM(finished) FROM games").fetchone() == (1, 0)
    db.close()


def test_bots_take_back_a_persons_seat_and_play_the_game_to_its_end(tmp_path):
    """A game a person played (`--bots 1`) resumed with `--headless --bots 2`: both seats are
    bots now, and the game ends as the same bots end it without a table."""
    journal = tmp_path / "journal.db"
    host = Host(tmp_path, "--bots", "1", "--seed", "21", "--new", "--pace", "0",
                journal=str(journal))
    try:
        host.start()
        assert seat_lines(host) == {"villain": False, "hero": True}
    finally:
        host.stop()
    proc = subprocess.run([FAIRYTABLE, "run", "--headless", "--bots", "2", "--json",
                           "--journal", str(journal)], capture_output=True, text=True,
                          cwd=REPO, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout)
    expected = engine_only_game(21)
    assert (summary["game_id"], summary["seed"], summary["status"]) == (1, 21, "finished")
    assert (summary["winner"], summary["scores"], summary["actions"]) == (
        expected.state.winner, expected.state.scores, len(expected.actions))


def test_a_resumed_game_keeps_its_bots_levels_and_an_old_journals_kinds(tmp_path):
    """A journal of before the levels names its bots' kinds "random" and "greedy" (the normal
    bot): the game resumes with them, and keeps them unless --level gives a seat another."""
    journal = tmp_path / "journal.db"
    unfinished_game(journal, "storybook", {"mode": "physical"}, 17,
                    {"villain": "random", "hero": "greedy"})
    for argv, said, words, levels in (
            (["--bots", "2"], "a random bot plays seat 1, a normal bot seat 2",
             {"villain": "random bot", "hero": "normal bot"}, ["random", "normal"]),
            (["--bots", "2", "--level", "1=normal"], "bots play every seat",
             {"villain": "bot", "hero": "bot"}, ["normal", "normal"]),
            (["--bots", "1"], "a person plays seat 1, a bot seat 2",
             {"villain": "", "hero": "bot"}, [None, "normal"])):
        host = Host(tmp_path, *argv, journal=str(journal))
        try:
            host.start()
            log = host.log()
            assert re.search(r"resuming game 1 of Storybook Battles from %s \(\d+ actions\): "
                             "%s\n" % (re.escape(str(journal)), said), log), (argv, log[-3000:])
            assert dict((q, w) for q, (w, _) in seat_words(host.log()).items()) == words, argv
            view = host.table()
            assert [q["level"] for q in view["seats"]] == levels, argv
        finally:
            host.stop()
    db = sqlite3.connect(str(journal))
    assert db.execute("SELECT COUNT(*), SUM(finished) FROM games").fetchone() == (1, 0)
    db.close()
