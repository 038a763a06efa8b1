"""The hall's tests run against a real Mosquitto (Debian's `mosquitto`, installed by
tools/install-test-deps.sh); without it they are skipped and say why, except in CI, where
they fail."""

import pytest

import hall_helpers
from mosquitto_broker import Mosquitto


@pytest.fixture
def broker(tmp_path):
    hall_helpers.need_mosquitto()
    b = Mosquitto(tmp_path).start()
    try:
        yield b
    finally:
        b.stop()


@pytest.fixture(autouse=True)
def no_watcher_left():
    """A test that failed half way leaves no mosquitto_sub behind (it would retry a broker
    that is gone for ever)."""
    yield
    for sub in list(hall_helpers.OPEN):
        sub.close()
