"""What every test shares: the helper modules beside this file on the path, a data folder of
the tests' own, the virtual table as a fixture, and the hardware-in-loop switch (those tests
run only with --hil --port PORT).

The tests mirror the source folders: tests/shared_rules/, tests/firmware/, tests/host/
(with link/, table/, virtual/ and web/), and tests/integration/ for whole games and
installs. Helpers the folders share (tests/mpy.py, tile_harness.py, vtable_helpers.py,
table_helpers.py, ...) and data (tests/golden/) stay here at the top.
"""

import os
import shutil
import sys
import tempfile

import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))
# The helpers here, and every test folder: a test module may take a fake or a fixture-free
# helper from another folder's test module by its name (test_session_clock's fake link, the
# MFRC522 driver tests' cards), whatever order the folders are collected in.
for _folder in sorted((root for root, _dirs, files in os.walk(TESTS)
                       if any(f.startswith("test_") and f.endswith(".py") for f in files)),
                      reverse=True) + [TESTS]:
    sys.path.insert(0, _folder)


# Tests never assert on time: Hypothesis's per-example deadline (200 ms) is one, and a loaded
# machine (a CI runner, two test workers) exceeds it at random.
try:
    from hypothesis import settings as _hypothesis_settings
except ImportError:         # pragma: no cover - hypothesis is in the [dev] extra
    pass
else:
    _hypothesis_settings.register_profile("fairytable", deadline=None)
    _hypothesis_settings.load_profile("fairytable")


def pytest_addoption(parser):
    parser.addoption("--hil", action="store_true", default=False,
                     help="run the hardware-in-loop tests against real tiles")
    parser.addoption("--port", action="append", default=[],
                     help="serial port of a real tile (repeatable), with --hil")


def pytest_configure(config):
    # Every command a test runs keeps its installation key, journal and tag registry in a
    # data folder of its own (host/installation.py), never in the user's.
    config._fairytable_home = tempfile.mkdtemp(prefix="fairytable-test-home-")
    os.environ["FAIRYTABLE_HOME"] = config._fairytable_home
    os.environ.pop("FAIRYTABLE_KEY", None)


def pytest_unconfigure(config):
    home = getattr(config, "_fairytable_home", None)
    if home:
        shutil.rmtree(home, ignore_errors=True)


# The files of whole games on the virtual table and in a browser, each test a minute or more:
# run first, so that with `-n 3` no worker is left with one of them at the end while the
# others have nothing to do (the order of the others is kept). Three workers on two cores:
# the suite waits on timers, tiles and browsers about a third of its time (CPU 129 % of 200 %
# with two), so a third worker fills those waits.
LONG_FIRST = ("tests/host/web/test_web_play.py", "tests/integration/",
              "tests/host/web/test_web_fairytale_play.py",
              "tests/host/web/test_web_fairytale_browser.py",
              "tests/host/web/test_web_fightclub_browser.py",
              "tests/host/web/test_web_heroes_browser.py")


def _long(item):
    path = item.nodeid.split("::")[0]
    return any(path.startswith(p) for p in LONG_FIRST)


# The tests that drive a browser run one after another, on one worker (`--dist loadgroup`
# in the README's command), while the other workers take the rest. Each starts a host on a
# virtual table of up to nine tiles, and a tile process polls its readers as a Pico does,
# 8-15 % of a core whether or not anything happens. Three of them at once on two cores
# starve every tile: test_web_browser.py took 172 s on three workers and 62 s on one
# (2026-11-29), and its refusal test failed at random.
BROWSER_GROUP = "browser"


def _browser(item):
    return "browser" in getattr(item, "fixturenames", ())


@pytest.hookimpl(tryfirst=True)     # before xdist's worker reads the groups off the marks
def pytest_collection_modifyitems(config, items):
    for item in items:
        if _browser(item):
            item.add_marker(pytest.mark.xdist_group(BROWSER_GROUP))
    # The browser tests first (the longest chain starts at once), then the other long ones.
    items[:] = [i for i in items if _browser(i)] + \
        [i for i in items if not _browser(i) and _long(i)] + \
        [i for i in items if not _browser(i) and not _long(i)]
    if config.getoption("--hil"):
        return
    skip = pytest.mark.skip(reason="needs real tiles: run with --hil --port /dev/ttyACM0")
    for item in items:
        if "hil" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def hil_ports(request):
    ports = request.config.getoption("--port")
    if not ports:
        pytest.skip("--hil needs at least one --port")
    return ports


def _virtual_tables():
    """A factory of started virtual tables, and a way to stop them all (the fixtures' body)."""
    from host.virtual import VirtualTable
    started = []

    def start(**kwargs):
        """Start a virtual table: the keyword arguments of host.virtual.VirtualTable."""
        vt = VirtualTable(**kwargs)
        started.append(vt)
        vt.start()
        return vt

    def stop_all():
        for vt in reversed(started):
            vt.stop()

    return start, stop_all


@pytest.fixture
def virtual_table():
    """``virtual_table(tiles=1, cells=3, ...)`` starts a virtual table for this test and
    stops it after."""
    start, stop_all = _virtual_tables()
    yield start
    stop_all()


@pytest.fixture(scope="module")
def module_virtual_table():
    """The same, for the tests of a module together: started once, stopped after the last."""
    start, stop_all = _virtual_tables()
    yield start
    stop_all()


@pytest.fixture(scope="module")
def browser():
    """Playwright driving Debian's chromium (tests/web_helpers.py finds it), for a module."""
    from web_helpers import browser_or_skip
    chromium = browser_or_skip()
    from playwright.sync_api import sync_playwright
    # Chromium binds its single-instance socket in TMPDIR: under a deep TMPDIR (a clone in a
    # deep folder) the path outgrows AF_UNIX's 107 bytes and the browser dies at launch. It
    # gets a short temporary folder of its own.
    short = tempfile.mkdtemp(prefix="ftc", dir="/tmp")
    try:
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"],
                                  env=dict(os.environ, TMPDIR=short))
            yield b
            b.close()
    finally:
        shutil.rmtree(short, ignore_errors=True)
