"""Where the virtual table's tile image is built: a per-user cache named by the sources'
digest, never the install directory; rebuilt when a source changes; old builds pruned."""

import os
import shutil
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
