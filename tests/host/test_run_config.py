"""The installation's table.toml (host/config.py): `fairytable run` takes its [run] options,
the command line wins, and a broken file stops the command with a sentence naming the file
and the key (exit status 2), having started nothing."""

import os
import subprocess
import sys

import pytest

from host import run as run_command
from mpy import REPO


def write(home, text):
    os.makedirs(home, exist_ok=True)
    with open(os.path.join(home, "table.toml"), "w") as f:
        f.write(text)
    return os.path.join(home, "table.toml")


def test_the_files_options_are_taken_and_the_command_line_wins(tmp_path, monkeypatch):
    home = str(tmp_path / "data")
    monkeypatch.setenv("FAIRYTABLE_HOME", home)
    args = run_command.parse_args([])
    assert args.mqtt is None and args.attract_after is None      # no file: nothing read
    write(home, '[run]\ngame = "fairytale"\nmqtt = "mqtt://127.0.0.1:1883"\n'
                'table-id = "table-7"\nattract-after = 10\nheadless = false\n'
                'option = ["alchemist=true", "quest_thresholds=components"]\n'
                '[hall]\nweb = "ignored by run"\n')
    args = run_command.parse_args([])
    assert (args.mqtt, args.table_id, args.attract_after, args.headless) == (
        "mqtt://127.0.0.1:1883", "table-7", 10.0, False)
    assert args.option == ["alchemist=true", "quest_thresholds=components"]
    args = run_command.parse_args(["--attract-after", "2.5", "--option", "alchemist=false",
                                   "--table-id=table-9"])
    assert (args.attract_after, args.option, args.table_id) == (2.5, ["alchemist=false"],
                                                               "table-9")


@pytest.mark.parametrize("text,said", [
    ("[run]\nattract_after = 3\n", "[run] attract_after: fairytable run has no option "
                                   "--attract_after"),
    ("[run]\nattract-after = \"soon\"\n", "[run] argument --attract-after: invalid float "
                                          "value: 'soon'"),
    ("[run]\nheadless = \"yes\"\n", "[run] headless: --headless is a switch: true or false"),
    ("[run]\ngame = \"chess\"\n", "[run] argument --game: invalid choice: 'chess'"),
    ("[run]\nseed = [1, 2]\n", "[run] seed: --seed takes one value, not a list"),
    ("[run]\nattract-after = 0\n", "--attract-after is a number of minutes above 0"),
    ("run = 3\n", "[run] must be a table of options"),
    ("[run\nmqtt = 1\n", "is not valid TOML"),
])
def test_a_broken_file_is_refused_in_words_naming_the_file_and_key(tmp_path, text, said):
    home = str(tmp_path / "data")
    path = write(home, text)
    out = subprocess.run([sys.executable, "-m", "host.cli", "run", "--no-web"],
                         capture_output=True, text=True, cwd=REPO, timeout=60,
                         env=dict(os.environ, FAIRYTABLE_HOME=home))
    assert out.returncode == 2, out
    assert said in out.stderr, out.stderr
    if "above 0" not in said:
        assert path in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    assert sorted(os.listdir(home)) == ["table.toml"]           # nothing made or opened
