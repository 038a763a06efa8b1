"""The hall's tests run against a real Mosquitto (Debian's `mosquitto`, installed by
tools/install-test-deps.sh); without it they are skipped and say why."""

import pytest

import hall_helpers
from hall_helpers import MOSQUITTO_PUB, MOSQUITTO_SUB
from mosquitto_broker import MOSQUITTO, Mosquitto


@pytest.fixture
def broker(tmp_path):
    if MOSQUITTO is None or MOSQUITTO_SUB is None or MOSQUITTO_PUB is None:
        pytest.skip("mosquitto and its clients are not installed (sh tools/install-test-deps.sh "
                    "installs them)")
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
