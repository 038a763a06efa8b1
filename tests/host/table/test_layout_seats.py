"""The seat tile of a layout: the seats' card readers (host/table/layout.py), read and
refused in words naming the file, the line and the field; and a seat tile's tags routed by
the session to the interpreter as a seat's, not a cell's."""

import pytest

from host.session import TableSession
from host.table import layout
from host.table.layout import LayoutError
from shared_rules.engine import Match


def heroes_text(seat_tile='[[tile]]\nvariant = "seat"\nseats = [1, 2, 3, 4]\n'):
    text = open(layout.builtin_path("heroes")).read()
    cut = text.index('[[tile]]\nvariant = "seat"')
    return text[:cut] + seat_tile


def test_the_shipped_heroes_layout_has_a_reader_for_each_of_the_four_seats():
    loaded = layout.load(layout.builtin_path("heroes"))
    seat_tile = loaded.tiles[loaded.seat_tiles[0]]
    assert seat_tile.variant == "seat" and seat_tile.firmware_variant == "cell"
    assert seat_tile.seats == [1, 2, 3, 4] and seat_tile.slots == 4
    assert loaded.seats == [1, 2, 3, 4]
    assert loaded.seat_of == {(loaded.seat_tiles[0], i): i + 1 for i in range(4)}
    assert loaded.seat_slot[3] == (loaded.seat_tiles[0], 2)
    # Its readers are far apart: all their fields may be on together.
    assert seat_tile.field_neighbours() == [0, 0, 0, 0]
    # The seats are not cells of the board.
    assert set(loaded.slot_of) == layout.board_cells("heroes")


def test_a_seat_tile_of_some_seats_in_any_order_is_read_slot_by_slot():
    loaded = layout.parse(heroes_text('[[tile]]\nvariant = "seat"\nseats = [2, 1]\n'), "h.toml")
    assert loaded.seat_of == {(loaded.seat_tiles[0], 0): 2, (loaded.seat_tiles[0], 1): 1}
    assert loaded.seats == [1, 2]


def test_a_table_may_have_several_seat_tiles_each_seat_one_reader():
    """Up to 8 readers a seat tile: a game of more seats has more seat tiles; the readers of
    seats 1 and 2 are on one tile, 3 and 4 on the next, each lit through its own tile."""
    loaded = layout.parse(heroes_text('[[tile]]\nvariant = "seat"\nseats = [1, 2]\n'
                                      '[[tile]]\nvariant = "seat"\nseats = [4, 3]\n'), "h.toml")
    first, second = loaded.seat_tiles
    assert loaded.seat_slot == {1: (first, 0), 2: (first, 1), 3: (second, 1), 4: (second, 0)}
    assert loaded.tile_of(("seat", 3)) == second and loaded.tile_of(("seat", 1)) == first
    assert loaded.seats == [1, 2, 3, 4]


@pytest.mark.parametrize("seat_tile, field, words", [
    ('[[tile]]\nvariant = "seat"\n', "seats", "needs seats = [1, 2, ...]"),
    ('[[tile]]\nvariant = "seat"\nseats = []\n', "seats", "needs seats"),
    ('[[tile]]\nvariant = "seat"\nseats = "1"\n', "seats", "needs seats"),
    ('[[tile]]\nvariant = "seat"\nseats = [1, 5]\n', "seats", "from 1 to 4"),
    ('[[tile]]\nvariant = "seat"\nseats = [0]\n', "seats", "from 1 to 4"),
    ('[[tile]]\nvariant = "seat"\nseats = [true]\n', "seats", "not True"),
    ('[[tile]]\nvariant = "seat"\nseats = [1.0]\n', "seats", "whole number"),
    ('[[tile]]\nvariant = "seat"\nseats = [1, 2, 1]\n', "seats", "seat 1 already has a reader"),
    ('[[tile]]\nvariant = "seat"\nseats = [1, 2, 3, 4, 1, 2, 3, 4, 1]\n', "seats",
     "at most 8 readers"),
    ('[[tile]]\nvariant = "seat"\nseats = [1]\ncells = [[0, 0]]\n', "cells",
     "a seat tile has seats, not cells"),
    ('[[tile]]\nvariant = "seat"\nseats = [1]\npockets = 3\n', "pockets", "not pockets"),
    ('[[tile]]\nvariant = "seat"\nseats = [1, 2]\n[[tile]]\nvariant = "seat"\nseats = [2]\n',
     "seats", "seat 2 already has a reader (tile 9, slot 1)"),
])
def test_a_bad_seat_tile_is_refused_naming_the_line_and_field(seat_tile, field, words):
    text = heroes_text(seat_tile)
    with pytest.raises(LayoutError) as e:
        layout.parse(text, "h.toml")
    message = str(e.value)
    assert message.startswith("h.toml, line ") and (", %s: " % field) in message, message
    assert words in message, message
    # The line named is the field's own line (or its tile's).
    line = text.splitlines()[e.value.line - 1]
    assert line.startswith(field) or line.startswith("[[tile]]"), (line, message)


def test_seats_on_a_cell_tile_are_refused():
    text = heroes_text() + '[[tile]]\ncells = [[0, 0]]\nseats = [1]\n'
    with pytest.raises(LayoutError, match="tile 10, seats: a cell tile has cells, not seats"):
        layout.parse(text, "h.toml")


def test_heroes_needs_a_seat_tile_and_other_games_refuse_one():
    with pytest.raises(LayoutError, match="it needs a seat tile"):
        layout.parse(heroes_text(""), "h.toml")
    royale = open(layout.builtin_path("royale")).read()
    with pytest.raises(LayoutError, match=r"tile 6, variant: Battle Royale plays no cards on "
                                          "seat readers: its table has no seat tile"):
        layout.parse(royale + '[[tile]]\nvariant = "seat"\nseats = [1]\n', "r.toml")


# ---------------------------------------------------------------- the session

class FakeLink:
    tiles = {}

    def set_field_neighbours(self, uid, masks):
        self.masks = getattr(self, "masks", {})
        self.masks[uid] = masks


class Ev:
    def __init__(self, tile, slot, tags=(), kind="tags", gesture=None):
        self.kind, self.tile, self.slot, self.tags, self.gesture = kind, tile, slot, tags, \
            gesture
        self.detail = "unplugged"


class Registry:
    """Tags whose uid hex is the item name's hex (no keys needed for routing)."""

    def resolve(self, uid, identity):
        return uid.decode()


def test_a_seat_readers_tags_go_to_the_interpreter_as_that_seats_not_as_a_cell():
    loaded = layout.load(layout.builtin_path("heroes"))
    chars = [{"id": "tin_woodman", "seat": "red", "cell": [0, 2]},
             {"id": "robin_hood", "seat": "red", "cell": [6, 2]},
             {"id": "big_bad_wolf", "seat": "blue", "cell": [1, 1]},
             {"id": "gretel", "seat": "blue", "cell": [6, 4]}]
    match = Match("heroes", {"mode": "ctf"}, 1, {"characters": chars, "turn": "red"})
    uids = ["%016x" % i for i in range(len(loaded.tiles))]
    link = FakeLink()
    session = TableSession(match, loaded, link, Registry(), uids, clock=lambda: 0)
    seat_uid = uids[loaded.seat_tiles[0]]
    assert link.masks[seat_uid] == [0, 0, 0, 0]
    for cell, items in session.table.expected().items():
        session.table.observe_items(cell, items)
    item = "heroes-card:axe_attack"
    # Slot 1 of the seat tile is seat 2's (blue's) reader.
    assert session.on_event(Ev(seat_uid, 1, [(item.encode().hex(), b"")])) is None
    assert session.table.seat_observed == {2: [item]}
    assert [m.code for m in session.table.mismatches] == ["wrong_reader"]
    assert (loaded.seat_tiles[0], 1) not in loaded.cell_of
    assert loaded.tile_of(("seat", 2)) == loaded.seat_tiles[0]
    session.on_event(Ev(seat_uid, 1, []))
    assert session.table.seat_observed == {} and session.table.mismatches == []
    session.on_event(Ev(seat_uid, 0, [(item.encode().hex(), b"")]))
    assert session.table.card_play["place"] == ("seat", 1)
    # The readers are lit under ("seat", n): the session sends them to the seat tile.
    scenes = session.scenes()
    assert scenes[("seat", 1)][0][0] == "chase" and ("seat", 2) in scenes


class Tile:
    online = True


def heroes_session(clock):
    loaded = layout.load(layout.builtin_path("heroes"))
    match = Match("heroes", {"mode": "ctf"}, 4)
    uids = ["%016x" % i for i in range(len(loaded.tiles))]
    link = FakeLink()
    link.tiles = {uid: Tile() for uid in uids}
    link.sent = []
    link.set_scene = lambda uid, entries: link.sent.append((uid, entries))
    return TableSession(match, loaded, link, Registry(), uids, clock=clock), loaded, uids


def test_the_seat_tiles_readers_are_lit_and_an_offline_seat_tile_is_named_in_words():
    now = [0]
    session, loaded, uids = heroes_session(lambda: now[0])
    session.light()
    seat_uid = uids[loaded.seat_tiles[0]]
    sent = dict((uid, entries) for uid, entries in session.link.sent)
    assert sorted(slot for slot, _ in sent[seat_uid]) == [0, 1, 2, 3]
    assert ("seat", 4) in session.sent_scenes
    session.on_event(Ev(seat_uid, 0, kind="offline"))
    now[0] = session.offline_grace_ms + 1
    session._check_offline()
    assert [m.message for m in session.tile_mismatches] == [
        "The tile of the card readers of seats 1, 2, 3, 4 is offline: the game waits for it."]
