"""A hall that outgrows one broker bridges brokers (Mosquitto's own bridge, no relay of
ours): a table on one Mosquitto, the console on another, the hall's topics bridged both
ways; the console sees the table and steers it."""

import asyncio

import pytest

from hall_helpers import Sub, need_mosquitto, until
from host.hall import topics
from host.hall.console import Console
from host.hall.publisher import HallPublisher
from mosquitto_broker import Mosquitto


@pytest.fixture
def two_brokers(tmp_path):
    """(the table's broker, the console's): the first bridges fairytable/1/hall-a/# to the
    second, both ways, at QoS 1."""
    need_mosquitto()
    (tmp_path / "hall").mkdir()
    (tmp_path / "table").mkdir()
    hall = Mosquitto(tmp_path / "hall").start()
    table = None
    try:
        table = Mosquitto(tmp_path / "table", extra=(
            "connection to-hall\naddress 127.0.0.1:%d\ntopic fairytable/1/hall-a/# both 1\n"
            "cleansession true\nrestart_timeout 1\n" % hall.port)).start()
        yield table, hall
    finally:
        if table is not None:
            table.stop()
        hall.stop()


def test_a_table_on_one_broker_is_seen_and_steered_from_the_other(two_brokers):
    table_broker, hall_broker = two_brokers
    # The bridge says it is up on the console's broker (Mosquitto's notification).
    bridge = Sub(hall_broker, "$SYS/broker/connection/+/state")
    try:
        bridge.wait(lambda s: [m for m in s.messages if m.payload == "1"], 30,
                    what="the bridge up")
    finally:
        bridge.close()

    async def main():
        console = Console(topics.parse_broker(hall_broker.url), "hall-a", port=0,
                          say=lambda line: None)
        await console.start()
        carried = []

        async def on_command(command):
            carried.append(command["command"])
            return "The game is paused by staff."
        table = HallPublisher(topics.parse_broker(table_broker.url), "hall-a", "table-1",
                              summary=lambda: {"game": "Storybook Battles"},
                              on_command=on_command, log=lambda line: None)
        table.start()
        try:
            seen = lambda: console.hall.tables.get("table-1")  # noqa: E731
            await until(lambda: seen() and seen().state == "ready" and seen().summary,
                        what="the table, across the bridge")
            assert seen().summary["game"] == "Storybook Battles"
            table.event("action", "Hero draws a card.")
            await until(lambda: seen().last_seq == 1, what="an event across the bridge")
            answer = await console.command("table-1", "pause")
            assert answer["acks"] == [{"table": "table-1", "ok": True,
                                       "message": "The game is paused by staff."}]
            answer = await console.command("all", "identify")
            assert [a["table"] for a in answer["acks"]] == ["table-1"]
            assert carried == ["pause", "identify"]
        finally:
            await table.stop()
        await until(lambda: seen().state == "disconnected", what="the goodbye across it")
        await console.stop()
    asyncio.run(main())
