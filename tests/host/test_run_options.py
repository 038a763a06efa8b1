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
    (["--bots", "5"], "--bots must be 0 to 2"),
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
    (["--game", "heroes", "--players", "3", "--layout", "{setups}/two_readers.toml"],
     "{setups}/two_readers.toml has no card reader for seat 3 (green): a game of 3 players "
     "needs seats = [1, 2, 3]"),
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
