"""Fixtures of the enrollment tests (test_enroll_cli.py, test_enroll_tile.py)."""

import pytest


@pytest.fixture(scope="module")
def table(module_virtual_table):
    """One virtual tile of four cells, under MicroPython, for a test module."""
    vt = module_virtual_table(tiles=1, cells=4)
    assert vt.interpreter == "micropython"
    return vt


@pytest.fixture
def tile(table):
    """The table's tile with nothing on its cells."""
    t = table.tiles[0]
    for slot in range(4):
        t.clear(slot)
    return t
