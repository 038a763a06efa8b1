"""Shared pytest options: the hardware-in-loop suite runs only with --hil --port PORT."""

import os
import shutil
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


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


def pytest_collection_modifyitems(config, items):
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
