"""Where the virtual table's tile image is built: a per-user cache named by the sources'
digest, never the install directory; rebuilt when a source changes; old builds pruned."""

import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from host.virtual import image


@pytest.fixture
def sources(tmp_path, monkeypatch):
    """A copy of the tile's sources that the test may change, as an upgrade would."""
    root = tmp_path / "site-packages"
    for package in ("firmware", "shared_rules"):
        shutil.copytree(os.path.join(image.package_root(package), package), root / package,
                        ignore=shutil.ignore_patterns("__pycache__", "data", "examples"))
    monkeypatch.setattr(image, "package_root", lambda package: str(root))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return root


def test_the_image_is_built_in_the_users_cache_once_and_again_when_a_source_changes(sources,
                                                                                   tmp_path):
    tree = image.build("sim")
    assert os.path.dirname(tree) == str(tmp_path / "cache" / "fairytable")
    main_mpy = os.path.join(tree, "firmware", "main.mpy")
    built_at = os.stat(main_mpy).st_mtime_ns
    assert image.build("sim") == tree                      # the same sources: no new build
    assert os.stat(main_mpy).st_mtime_ns == built_at
    with open(sources / "firmware" / "config.py", "a") as f:
        f.write("\n# an upgrade\n")
    newer = image.build("sim")
    assert newer != tree and os.path.exists(os.path.join(newer, ".complete"))
    # Nothing was written beside the sources (an install directory may be read-only).
    assert not [n for n in os.listdir(sources / "firmware") if n.endswith(".mpy")]


def test_builds_nobody_used_for_a_month_are_removed_when_a_new_one_is_made(sources, tmp_path):
    tree = image.build("sim")
    romfs = tree + ".romfs"
    with open(romfs, "wb") as f:
        f.write(b"image")
    recent = str(tmp_path / "cache" / "fairytable" / "tile-sim-0123456789abcdef")
    os.makedirs(recent)
    month = time.time() - 31 * 24 * 3600
    for path in (tree, romfs):
        os.utime(path, (month, month))
    with open(sources / "firmware" / "config.py", "a") as f:
        f.write("\n# an upgrade\n")
    newer = image.build("sim")
    assert not os.path.exists(tree) and not os.path.exists(romfs)
    assert os.path.exists(recent) and os.path.exists(newer)


def test_with_no_home_the_image_goes_to_the_temporary_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", "")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert image.cache_dir() == str(tmp_path / ("fairytable-%d" % os.getuid()))


def test_an_empty_home_gets_its_cache_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert image.cache_dir() == str(tmp_path / ".cache" / "fairytable")
    assert os.path.isdir(tmp_path / ".cache" / "fairytable")


def test_two_tables_starting_at_once_on_a_fresh_machine_both_get_the_image(tmp_path):
    # Both build the image and measure the emulated readers into the same empty cache; a
    # shared temporary name once made the second fail with FileNotFoundError.
    code = ("from host.virtual import image; "
            "print(image.heapsize_for(image.build_romfs('sim'), readers=7))")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err[-2000:] for _out, err in outs]
    assert outs[0][0] == outs[1][0] and int(outs[0][0]) > 64 * 1024
    left = [n for n in os.listdir(tmp_path / "cache" / "fairytable") if ".tmp" in n]
    assert left == []


def test_a_damaged_measurement_of_the_readers_is_measured_again(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    romfs = image.build_romfs("sim")
    want = image.hardware_bytes(romfs, 2)
    for damage in ('{"2": 1', "[]", ""):
        with open(romfs + ".hardware-v9.json", "w") as f:
            f.write(damage)
        assert image.hardware_bytes(romfs, 2) == want
