"""The hall's tests run against a real Mosquitto (Debian's `mosquitto`, installed by
tools/install-test-deps.sh); without it they are skipped and say why."""

import pytest

from mosquitto_broker import MOSQUITTO, Mosquitto


@pytest.fixture
def broker(tmp_path):
    if MOSQUITTO is None:
        pytest.skip("mosquitto is not installed (sh tools/install-test-deps.sh installs it)")
    b = Mosquitto(tmp_path).start()
    try:
        yield b
    finally:
        b.stop()
