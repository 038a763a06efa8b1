"""Hostile layouts: hundreds of generated files (hand-made attacks and mutations of the shipped
layouts), each refused with a LayoutError naming the file and the field, using little memory
whatever numbers the file holds; or, for a mutation that is still a layout (a changed comment),
accepted only if it covers exactly the game's board."""

import os
import random
import subprocess
import sys
import tracemalloc

import pytest

from host.table import layout
from mpy import REPO

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")
FIELDS = ("game", "name", "tile", "cells", "variant", "uid", "pockets", "seats", "TOML", "UTF-8",
          "kB", "nested", "digits")
# Far above what a layout of the real boards needs, far below what the old checks allocated
# (hundreds of megabytes for a cell at [2000, 2000]).
MEMORY_BOUND = 8 * 1024 * 1024


def shipped(game):
    with open(layout.builtin_path(game), "rb") as f:
        return f.read()


def storybook_tile(cells):
    return "[[tile]]\ncells = %s\n" % cells


def attacks():
    """Hand-made hostile layouts: name -> bytes."""
    sb = 'game = "storybook"\n'
    br = 'game = "royale"\n'
    out = {
        "one_tile_one_cell": sb + storybook_tile("[[0, 0]]"),
        "billion": sb + storybook_tile("[[1000000000, 1000000000]]"),
        "two_thousand": sb + storybook_tile("[[0, 0], [2000, 2000]]"),
        "negative": sb + storybook_tile("[[-1, 0]]"),
        "huge_negative": br + storybook_tile("[[-9223372036854775808, 0]]"),
        "digits": sb + storybook_tile("[[%s, 0]]" % ("9" * 5000)),
        "nested_arrays": sb + "[[tile]]\ncells = " + "[" * 5000 + "]" * 5000 + "\n",
        "nested_tables": sb + "x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n",
        "bad_utf8": (sb + "name = \"caf\xe9\"\n").encode("latin-1"),
        "binary": bytes(range(256)) * 4,
        "empty": "",
        "huge_file": sb + "# " + "x" * (layout.MAX_LAYOUT_BYTES + 10) + "\n",
        "ten_thousand_tiles": sb + "[[tile]]\ncells = [[0, 0]]\n" * 10000,
        "many_small_tiles": sb + "".join(storybook_tile("[[%d, %d]]" % (c, r))
                                          for c in range(7) for r in range(7))
        + "[[tile]]\nvariant = \"dice\"\n" * 2,
        "tile_not_table": sb + "tile = [1, 2]\n",
        "tile_text": sb + 'tile = "x"\n',
        "tile_list_of_lists": sb + "tile = [[1], [2]]\n",
        "variant_list": sb + "[[tile]]\nvariant = [1]\ncells = [[0, 0]]\n",
        "variant_table": sb + "[[tile]]\nvariant = {a = 1}\n",
        "uid_list": sb + "[[tile]]\nuid = [1]\ncells = [[0, 0]]\n",
        "uid_long": sb + "[[tile]]\nuid = \"%s\"\ncells = [[0, 0]]\n" % ("ab" * 5000),
        "pockets_many": br + "[[tile]]\nvariant = \"dice\"\npockets = 1000000000\n",
        "pockets_bool": br + "[[tile]]\nvariant = \"dice\"\npockets = true\n",
        "pockets_on_cell": sb + "[[tile]]\npockets = 3\ncells = [[0, 0]]\n",
        "float_cell": sb + storybook_tile("[[0.5, 0]]"),
        "bool_cell": sb + storybook_tile("[[true, 0]]"),
        "three_coords": sb + storybook_tile("[[0, 0, 0]]"),
        "cell_table": sb + storybook_tile("[{x = 0}]"),
        "nine_cells": sb + storybook_tile("[[0, 0], [1, 0], [2, 0], [3, 0], [4, 0], [5, 0], "
                                          "[6, 0], [0, 1], [1, 1]]"),
        "empty_cells": sb + storybook_tile("[]"),
        "no_game": storybook_tile("[[0, 0]]"),
        "game_list": 'game = ["storybook"]\n' + storybook_tile("[[0, 0]]"),
        "name_huge": sb + 'name = "%s"\n' % ("n" * 5000),
        "name_number": sb + "name = 5\n",
        "unknown_top": sb + "extra = 1\n",
        "unknown_tile_key": sb + "[[tile]]\nlamp = 1\ncells = [[0, 0]]\n",
        "royale_no_dice": br + "".join(
            storybook_tile("[[%d, %d]]" % (x, y)) for x in range(-3, 4) for y in range(-3, 4)
            if abs(x) + abs(y) <= 3),
        "royale_corner": br + storybook_tile("[[3, 3]]"),
        "storybook_labelled_royale": shipped("storybook").decode().replace(
            'game = "storybook"', 'game = "royale"'),
        "royale_labelled_storybook": shipped("royale").decode().replace(
            'game = "royale"', 'game = "storybook"'),
        "two_dice_trays": shipped("royale").decode() + '[[tile]]\nvariant = "dice"\n',
        "duplicate_cell": shipped("storybook").decode() + storybook_tile("[[3, 3]]"),
        "seats_huge": shipped("heroes").decode().replace("seats = [1, 2, 3, 4]",
                                                         "seats = [%s]" % ("1000000000, " * 5000)),
        "seats_nested": shipped("heroes").decode().replace(
            "seats = [1, 2, 3, 4]", "seats = " + "[" * 3000 + "]" * 3000),
        "seat_billion": shipped("heroes").decode().replace("seats = [1, 2, 3, 4]",
                                                           "seats = [1000000000]"),
        "two_seat_tiles": shipped("heroes").decode() + '[[tile]]\nvariant = "seat"\nseats = [1]\n',
        "seat_tile_in_royale": shipped("royale").decode() + '[[tile]]\nvariant = "seat"\n'
                                                            'seats = [1]\n',
    }
    return {name: text if isinstance(text, bytes) else text.encode() for name, text in
            out.items()}


def mutations(rng):
    """Mutations of the shipped layouts: name -> bytes."""
    out = {}
    numbers = ["-1", "7", "3", "1000000000", "2000", "-2000000000", "9223372036854775807",
               "1.5", "true", '"3"', "[]", "[1, [2]]"]
    for game in ("storybook", "royale"):
        text = shipped(game).decode()
        lines = text.split("\n")
        tiles = [i for i, line in enumerate(lines) if line.startswith("[[tile]]")]
        cell_lines = [i for i, line in enumerate(lines) if line.startswith("cells")]
        for k, start in enumerate(tiles):      # drop one tile, or duplicate it
            end = tiles[k + 1] if k + 1 < len(tiles) else len(lines)
            out["%s_drop_tile_%d" % (game, k)] = "\n".join(lines[:start] + lines[end:])
            out["%s_twice_tile_%d" % (game, k)] = "\n".join(lines + lines[start:end])
        for n in range(60):                    # a coordinate replaced
            i = rng.choice(cell_lines)
            line = lines[i]
            spots = [j for j, ch in enumerate(line) if ch.isdigit()]
            j = rng.choice(spots)
            changed = line[:j] + rng.choice(numbers) + line[j + 1:]
            out["%s_coordinate_%d" % (game, n)] = "\n".join(lines[:i] + [changed]
                                                            + lines[i + 1:])
        for n in range(60):                    # cut short anywhere
            out["%s_cut_%d" % (game, n)] = text[:rng.randrange(len(text))]
        for n in range(60):                    # a byte changed anywhere
            data = bytearray(text.encode())
            data[rng.randrange(len(data))] = rng.randrange(256)
            out["%s_byte_%d" % (game, n)] = bytes(data)
        for n in range(20):                    # a cell of one tile swapped into another
            a, b = rng.sample(cell_lines, 2)
            out["%s_swap_%d" % (game, n)] = "\n".join(
                lines[:a] + [lines[b]] + lines[a + 1:])
    return {name: text if isinstance(text, bytes) else text.encode() for name, text in
            out.items()}


def check_one(path, must_fail):
    """Load one file: a LayoutError naming the file and a field, or (a mutation that is still
    a layout) exactly the game's board. Returns whether it was refused."""
    tracemalloc.reset_peak()
    try:
        loaded = layout.load(path)
    except layout.LayoutError as e:
        message = str(e)
        assert message.startswith(path), message
        after = message[len(path):]
        assert any(field in after for field in FIELDS) or e.line, message
        assert len(message) < 600, message
        refused = True
    else:
        assert not must_fail, "%s was accepted" % path
        board = layout.board_cells(loaded.game)
        assert set(loaded.slot_of) == board and len(loaded.cell_of) == len(board), path
        assert loaded.game != "royale" or loaded.dice_tile is not None
        refused = False
    assert tracemalloc.get_traced_memory()[1] < MEMORY_BOUND, path
    return refused


def test_hostile_layouts_are_refused_naming_the_file_and_field(tmp_path):
    cases = [(name, data, True) for name, data in attacks().items()]
    cases += [(name, data, False) for name, data in mutations(random.Random(7)).items()]
    assert len(cases) > 400
    refused = 0
    tracemalloc.start()
    try:
        for name, data, must_fail in cases:
            path = str(tmp_path / (name + ".toml"))
            with open(path, "wb") as f:
                f.write(data)
            refused += check_one(path, must_fail)
    finally:
        tracemalloc.stop()
    assert refused > len(cases) * 3 // 4, (refused, len(cases))


def test_the_shipped_layouts_still_load():
    for game in ("storybook", "royale"):
        loaded = layout.load(layout.builtin_path(game))
        assert set(loaded.slot_of) == layout.board_cells(game)


@pytest.mark.parametrize("name", ["one_tile_one_cell", "billion", "two_thousand",
                                  "nested_arrays", "bad_utf8", "huge_file"])
def test_fairytable_run_refuses_a_hostile_layout_with_exit_2(tmp_path, name):
    path = str(tmp_path / (name + ".toml"))
    with open(path, "wb") as f:
        f.write(attacks()[name])
    home = tmp_path / "home"
    proc = subprocess.run([FAIRYTABLE, "run", "--headless", "--bots", "2", "--json",
                           "--layout", path], capture_output=True, cwd=REPO, timeout=120,
                          env=dict(os.environ, FAIRYTABLE_HOME=str(home)))
    stderr = proc.stderr.decode()
    assert proc.returncode == 2, stderr
    assert stderr.startswith("fairytable run: " + path) and "Traceback" not in stderr, stderr
    assert not home.exists()      # refused before the journal, key or registry were made
