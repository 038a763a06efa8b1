"""`fairytable run --setup FILE` refuses a setup the rules cannot take with exit status 2 and a
sentence naming the file and the field (never a Python error's words), before anything is
made on disk: a value of the wrong shape in hero teams' `moved` or `stopped`, a character
listed twice there, and a name given twice in one JSON object (the last one would win
silently)."""

import json

import pytest

from host import run as run_command

CTF_CHARACTERS = [{"id": "the_giant", "seat": "red", "cell": [0, 2]},
                  {"id": "gretel", "seat": "red", "cell": [6, 2]},
                  {"id": "robin_hood", "seat": "blue", "cell": [0, 4]},
                  {"id": "hop_o_my_thumb", "seat": "blue", "cell": [6, 4]}]
CTF_TEXT = json.dumps({"characters": CTF_CHARACTERS})[1:-1]    # the fields, without braces

SETUPS = [
    # (file name, the setup's text, words the sentence holds)
    ("moved_object.json", '{%s, "moved": [{"id": "the_giant"}]}' % CTF_TEXT,
     "setup.moved[0]: must be the id of a character"),
    ("stopped_list.json", '{%s, "stopped": [["the_giant"]]}' % CTF_TEXT,
     "setup.stopped[0]: must be the id of a character"),
    ("moved_twice.json", '{%s, "moved": ["gretel", "gretel"]}' % CTF_TEXT,
     "setup.moved[1]: gretel is listed twice"),
    ("turn_twice.json", '{%s, "turn": "red", "turn": "blue"}' % CTF_TEXT,
     "turn: given twice in one object"),
    ("nested_twice.json", '{"characters": [{"id": "the_giant", "seat": "red", "seat": "blue", '
     '"cell": [0, 2]}]}', "characters[0].seat: given twice in one object"),
]


@pytest.mark.parametrize("name,text,words", SETUPS, ids=[s[0] for s in SETUPS])
def test_a_setup_the_rules_cannot_take_is_refused_naming_file_and_field(
        name, text, words, tmp_path, monkeypatch, capsys):
    path = tmp_path / name
    path.write_text(text)
    home = tmp_path / "home"
    monkeypatch.setenv("FAIRYTABLE_HOME", str(home))
    status = run_command.main(["--game", "heroes", "--mode", "ctf", "--setup", str(path),
                               "--headless", "--bots", "2"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert ("the setup %s: " % path) in err and words in err, err
    assert "unhashable" not in err and "Traceback" not in err
    assert not home.exists()


def test_read_setup_refuses_a_name_given_twice(tmp_path):
    path = tmp_path / "twice.json"
    path.write_text('{"turn": "red", "characters": [], "turn": "blue"}')
    with pytest.raises(ValueError) as e:
        run_command.read_setup(str(path))
    assert str(e.value) == ("the setup %s: turn: given twice in one object (a reader would "
                            "keep only one of them: give each name once)" % path)
