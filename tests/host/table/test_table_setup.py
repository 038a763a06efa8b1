"""Layouts, tags and the journal: the table's configuration and memory."""

import sqlite3

import pytest

from host.journal import Journal, JournalError
from host.table import layout, tags
from shared_rules import bots, canon, storybook
from shared_rules.engine import Match


def test_the_shipped_layouts_cover_their_boards():
    sb = layout.load(layout.builtin_path("storybook"))
    assert sb.game == "storybook" and len(sb.cells) == 49 and len(sb.tiles) == 7
    assert sb.cell_of[(6, 3)] == (3, 6) and sb.slot_of[(3, 6)] == (6, 3)
    br = layout.load(layout.builtin_path("royale"))
    assert len(br.cells) == 25 and br.tiles[br.dice_tile].pockets == 3
    assert br.bind(["a1b2c3d4e5", "b1", "c1", "d1", "e1"])[4] == "e1"


def test_field_neighbours_are_the_cells_that_share_a_side():
    sb = layout.load(layout.builtin_path("storybook"))
    # A row of 7: slot i borders i - 1 and i + 1 only.
    assert sb.tiles[0].field_neighbours() == [0b10, 0b101, 0b1010, 0b10100, 0b101000,
                                              0b1010000, 0b100000]
    br = layout.load(layout.builtin_path("royale"))
    first = br.tiles[0]     # [0, 3], [-1, 2], [0, 2], [1, 2], [-2, 1], [-1, 1], [0, 1]
    masks = first.field_neighbours()
    assert masks[2] == (1 << 0) | (1 << 1) | (1 << 3) | (1 << 6)   # [0, 2]: N, W, E, S
    assert masks[4] == 1 << 5                                      # [-2, 1]: only [-1, 1]
    for i, mask in enumerate(masks):
        assert not mask & (1 << i)
        for j in range(len(masks)):
            assert bool(mask & (1 << j)) == bool(masks[j] & (1 << i))     # symmetric
    assert br.tiles[br.dice_tile].field_neighbours() is None


@pytest.mark.parametrize("text,line,words", [
    ('game = "chess"\n', 1, "game must be one of"),
    ('game = "storybook"\n\n[[tile]]\ncells = [[0, 0], [0, 0]]\n', 4, "already slot 0"),
    ('game = "storybook"\n[[tile]]\nvariant = "cell"\ncells = [[0, 0]]\n[[tile]]\n'
     'variant = "lamp"\n', 6, 'variant must be "cell", "dice" or "seat"'),
    ('game = "storybook"\n[[tile]]\ncells = [[0, 0], [1, 1]]\n', None, "full grid"),
    ('game = "royale"\n[[tile]]\ncells = [[3, 3]]\n', 3, "off the Battle Royale diamond"),
    ('game = "storybook"\n[[tile\n', 2, "not valid TOML"),
    ('game = "storybook"\n[[tile]]\nuid = "zz"\ncells = [[0, 0]]\n', 3, "unique id in hex"),
])
def test_layout_errors_name_the_line(text, line, words):
    with pytest.raises(layout.LayoutError) as err:
        layout.parse(text, "table.toml")
    assert err.value.line == line and words in str(err.value)
    assert str(err.value).startswith("table.toml, line %d: " % line if line else "table.toml: ")


def test_an_enrolled_tag_resolves_and_a_forged_one_is_refused(tmp_path):
    key = tags.load_key(str(tmp_path / "key"))
    assert tags.load_key(str(tmp_path / "key")) == key  # made once, then reused
    reg = tags.Registry(key)
    uid = bytes.fromhex("04a1b2c3d4e5f6")
    ident = reg.identity_for(uid, "storybook:the_crocodile")
    assert reg.resolve(uid, ident) == "storybook:the_crocodile"
    edited = ident[:1] + tags.item_code("storybook:peter_pan") + ident[4:]
    for bad_uid, bad in ((uid, edited), (bytes.fromhex("04000000000001"), ident)):
        with pytest.raises(tags.TagRefused) as err:
            reg.resolve(bad_uid, bad)
        assert err.value.code == "forged"
    other = tags.Registry(b"another installation's key!!!!!!")
    with pytest.raises(tags.TagRefused):
        other.resolve(uid, ident)


def test_read_only_tags_use_the_uid_registry(tmp_path):
    reg = tags.Registry(b"k" * 32, str(tmp_path / "tags.db"))
    uid = bytes.fromhex("08c0ffee")
    with pytest.raises(tags.TagRefused) as err:
        reg.resolve(uid, None)
    assert err.value.code == "not_enrolled" and "fairytable enroll" in err.value.message
    reg.enroll_uid(uid, "pawn:red")
    assert tags.Registry(b"k" * 32, str(tmp_path / "tags.db")).resolve(uid, None) == "pawn:red"


def test_the_journal_resumes_a_game_and_checks_it(tmp_path):
    path = str(tmp_path / "journal.db")
    journal = Journal(path)
    match = Match("storybook", {"max_turns": 50}, 3)
    game_id = journal.start_game(match, {"bots": {"hero": "random"}})
    for seq in range(60):
        action = bots.choose("random", storybook, match.state, match.state.turn, 3)
        match.apply(action)
        journal.append(game_id, seq, action, match)
    journal.close()
    again = Journal(path)
    assert again.latest_unfinished() == game_id
    resumed, session = again.load(game_id)
    assert resumed.save() == match.save() and session == {"bots": {"hero": "random"}}
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.execute("UPDATE snapshots SET state = '{}' WHERE seq = 24")
    db.commit()
    with pytest.raises(JournalError) as err:
        Journal(path).load(game_id)
    assert "action 24" in str(err.value)


def test_bots_are_deterministic_and_greedy_takes_the_capture():
    setup = {"board": [{"card": "the_cheshire_cat", "cell": [2, 3], "owner": "hero"},
                       {"card": "the_crocodile", "cell": [3, 3], "owner": "villain"}],
             "hands": {"hero": ["the_white_rabbit"]}, "turn": "hero"}
    state = storybook.new_game({}, 1, setup)
    first = bots.choose("greedy", storybook, state, "hero", 5)
    assert canon.dumps(first) == canon.dumps(bots.choose("greedy", storybook, state, "hero", 5))
    # North of the Crocodile the White Rabbit's 5 swords best its 3 shields: with the Cheshire
    # Cat that is a team capture (+4), worth the Rabbit being overwhelmed (-2).
    assert first["type"] == "play" and first["cell"] == [3, 4]
    assert bots.choose("random", storybook, state, "villain", 5) is None
