"""Crowded cells in a layout (host/table/layout.py, `readers`): a cell read by several readers,
one under each quadrant (the Dragon Inn, hardware/stacks.md), is still one slot of its tile
and one cell for the host; the layout says so, in words when it is wrong; and the virtual
table is built as the layout says, each tile its own size, the crowded cell's readers too."""

import pytest

import host.virtual as virtual
from host.table import layout
from host.table.layout import LayoutError

ROW_3 = "cells = [[0, 3], [1, 3], [2, 3], [3, 3], [4, 3], [5, 3], [6, 3]]\n"


def grid_text(row_3_tiles):
    """The hero teams' 7 x 7 layout with its row 3 tile replaced by `row_3_tiles`."""
    text = open(layout.builtin_path("heroes")).read()
    at = text.index(ROW_3)
    start = text.rindex("[[tile]]", 0, at)
    end = at + len(ROW_3)
    return text[:start] + row_3_tiles + text[end:]


INN = ('[[tile]]\nvariant = "cell"\ncells = [[0, 3], [1, 3], [2, 3], [4, 3], [5, 3], [6, 3]]\n\n'
       '[[tile]]\nvariant = "cell"\ncells = [[3, 3]]\nreaders = {"[3, 3]" = 4}\n')


def test_a_cell_read_by_four_readers_is_one_slot_of_its_own_tile():
    loaded = layout.parse(grid_text(INN), "inn.toml")
    index, slot = loaded.slot_of[(3, 3)]
    inn = loaded.tiles[index]
    assert inn.cells == [(3, 3)] and inn.slots == 1 and slot == 0
    assert inn.readers == {0: 4}
    # The firmware's readers= and the virtual table's crowded= (firmware/config.py).
    assert loaded.crowded() == {index: {0: 4}}
    row = loaded.tiles[index - 1]
    assert row.cells == [(0, 3), (1, 3), (2, 3), (4, 3), (5, 3), (6, 3)] and row.readers == {}
    assert set(loaded.slot_of) == layout.board_cells("heroes")


def test_a_crowded_cell_may_sit_in_a_row_tile_within_the_chip_selects():
    """Two crowded cells of four readers in a row of seven: 13 readers, a chip select each."""
    text = grid_text('[[tile]]\n' + ROW_3 + 'readers = {"[3, 3]" = 4, " [ 0 , 3 ] " = 4}\n')
    loaded = layout.parse(text, "row.toml")
    index = loaded.slot_of[(3, 3)][0]
    assert loaded.tiles[index].readers == {0: 4, 3: 4}


def test_the_layouts_without_crowded_cells_have_none():
    for name in ("storybook", "royale", "heroes", "fightclub"):
        assert layout.load(layout.builtin_path(name)).crowded() == {}


@pytest.mark.parametrize("readers, words", [
    ('readers = 4', 'like readers = {"[3, 3]" = 4}, not 4'),
    ('readers = {}', "names the tile's crowded cells"),
    ('readers = {"3, 3" = 4}', 'each crowded cell is named "[column, row]", not \'3, 3\''),
    ('readers = {"[9, 9]" = 4}', "[9, 9] is not a cell of this tile (its cells: [3, 3])"),
    ('readers = {"[3, 3]" = 1}', "a crowded cell has 2 to 4 readers"),
    ('readers = {"[3, 3]" = 5}', "2 to 4 readers (one under each quadrant), not 5"),
    ('readers = {"[3, 3]" = true}', "not True"),
    ('readers = {"[3, 3]" = "4"}', "not '4'"),
    ('readers = {"[3, 3]" = 4, "[3,3]" = 2}', "[3, 3] is named twice"),
])
def test_a_bad_crowded_cell_is_refused_naming_the_file_line_and_field(readers, words):
    text = grid_text(INN.replace('readers = {"[3, 3]" = 4}', readers))
    with pytest.raises(LayoutError) as e:
        layout.parse(text, "inn.toml")
    message = str(e.value)
    assert message.startswith("inn.toml, line ") and ", readers: " in message, message
    assert words in message, message
    assert text.splitlines()[e.value.line - 1].startswith("readers"), message


def test_more_readers_than_a_tile_has_chip_selects_are_refused():
    text = grid_text('[[tile]]\n' + ROW_3 +
                     'readers = {"[0, 3]" = 4, "[3, 3]" = 4, "[6, 3]" = 4}\n')
    with pytest.raises(LayoutError) as e:
        layout.parse(text, "row.toml")
    assert "tile 4, readers: a tile has at most 13 readers (a chip select each); 7 cells " \
           "with these crowded cells need 16" in str(e.value)


@pytest.mark.parametrize("tile", [
    '[[tile]]\nvariant = "dice"\npockets = 3\nreaders = {"[3, 3]" = 4}\n',
    '[[tile]]\nvariant = "seat"\nseats = [1]\nreaders = {"[3, 3]" = 4}\n',
])
def test_only_a_cell_tile_has_crowded_cells(tile):
    text = grid_text(INN)
    cut = text.index('[[tile]]\nvariant = "dice"')
    text = text[:cut] + tile
    with pytest.raises(LayoutError) as e:
        layout.parse(text, "inn.toml")
    assert "readers: only a cell tile has crowded cells (readers)" in str(e.value)


def test_the_virtual_table_is_built_as_the_layout_says(monkeypatch):
    """Each tile its own number of slots (the Inn's tile one cell, a seat tile its readers),
    the crowded cell's extra readers: open_table reads them off the layout."""
    made = {}

    class Recorder:
        def __init__(self, **kw):
            made.update(kw)
            self.tiles = []

        def start(self):
            pass

        def ports(self):
            return []

    monkeypatch.setattr(virtual, "VirtualTable", Recorder)
    loaded = layout.parse(grid_text(INN), "inn.toml")
    virtual.open_table((), loaded, announce=None)
    inn = loaded.slot_of[(3, 3)][0]
    seat_tile = loaded.seat_tiles[0]
    assert made["crowded"] == {inn: {0: 4}}
    assert made["cells_of"][inn] == 1 and made["cells_of"][inn - 1] == 6
    assert made["cells_of"][seat_tile] == 4
    assert loaded.dice_tile not in made["cells_of"]
    assert made["variants"][loaded.dice_tile] == "dice"
