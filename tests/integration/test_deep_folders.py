"""The table in deep folders: a user's temporary folder and home may be any length, and a
unix socket's path may be 107 bytes at most (Linux; 103 on macOS). The virtual table's
control socket must not depend on them (host/virtual/table.py), on either interpreter the
tiles run under."""

import json
import os
import subprocess
import sys
import tempfile

from host.virtual import image
from host.virtual import table as virtual_table

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")
DEEP = 150
GAME_TIMEOUT_S = 300


def deep_folder(tmp_path, letter):
    """A new folder whose path is DEEP characters long (longer, when pytest's temporary
    folder is deeper already)."""
    folder = tmp_path / (letter * max(8, DEEP - len(str(tmp_path)) - 1))
    folder.mkdir()
    assert len(str(folder)) >= DEEP
    return folder


def test_the_main_job_plays_a_whole_game_with_a_deep_temporary_folder_and_home(tmp_path):
    tmp, home = deep_folder(tmp_path, "t"), deep_folder(tmp_path, "h")
    env = {k: v for k, v in os.environ.items()
           if k not in ("FAIRYTABLE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME")}
    env.update(TMPDIR=str(tmp), HOME=str(home))
    game = subprocess.run([FAIRYTABLE, "run", "--headless", "--bots", "2", "--seed", "5",
                           "--json", "--new"], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=GAME_TIMEOUT_S)
    assert game.returncode == 0, game.stderr[-3000:]
    assert "Traceback" not in game.stderr
    summary = json.loads(game.stdout)
    assert summary["status"] == "finished" and summary["winner"] in ("hero", "villain")
    # Everything landed in the deep folders: the journal in the home's data folder, the
    # tile image in its cache.
    assert (home / ".local" / "share" / "fairytable" / "journal.db").exists()
    assert list((home / ".cache" / "fairytable").glob("tile-sim-*.romfs"))
    # The table's working folder went with the table.
    assert not list(tmp.glob("fairytable-vtable-*"))


def test_cpython_tiles_reach_their_table_from_a_deep_temporary_folder(tmp_path, monkeypatch):
    """Where no micropython is installed (a Raspberry Pi) the tiles run under CPython:
    their control channel connects all the same."""
    monkeypatch.setattr(tempfile, "tempdir", str(deep_folder(tmp_path, "t")))
    monkeypatch.setattr(virtual_table, "find_micropython", lambda: None)
    with virtual_table.VirtualTable(tiles=1, cells=3, quiet=True) as vt:
        assert len(vt.workdir) > 107 and vt.interpreter == "cpython"
        tile = vt.tiles[0]
        assert tile.ready_info["interpreter"] == "cpython"
        tile.place(1, "04a1b2c3d4e5f6", "card:17")
        assert tile.lift(1, "04a1b2c3d4e5f6") is not None


def test_the_tile_image_builds_in_a_folder_deeper_than_mpy_cross_takes_a_name(tmp_path):
    """mpy-cross refuses a path longer than 255 bytes ("name too long"): a clone, a venv or
    a home that deep still gets its tile image (the cache is under the home)."""
    dest = deep_folder(tmp_path, "a") / ("b" * 120) / "tile-sim"
    assert len(str(dest / "firmware" / "boards" / "sim.mpy")) > 255
    tree = image.build("sim", dest=str(dest))
    assert tree == str(dest)
    for rel in image.tile_sources("sim"):
        assert (dest / (rel[:-3] + ".mpy")).stat().st_size > 0, rel
        assert not (dest / rel).exists(), rel      # the copies compiled are gone
