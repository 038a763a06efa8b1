"""Home Assistant MQTT discovery (off by default), on a real Mosquitto: a table announces a
device with its sensors (retained), available while the table is ready, and announces
again, after a random delay, when Home Assistant says it is back."""

import asyncio

from hall_helpers import Sub, pub, until
from host.hall import topics
from host.hall.homeassistant import STATUS_TOPIC, Discovery
from host.hall.publisher import HallPublisher

DEVICE = "fairytable-hall-a-table-1"


def test_a_table_appears_as_a_device_with_its_sensors_and_comes_back_with_home_assistant(
        broker):
    async def main():
        discovery = Discovery("hall-a", "table-1")
        discovery.reannounce_max_s = 0.5
        p = HallPublisher(topics.parse_broker(broker.url), "hall-a", "table-1",
                          summary=lambda: {"game": "Storybook Battles"},
                          log=lambda line: None, discovery=discovery)
        p.start()
        await until(lambda: p.state == "ready" and discovery.announced == 1,
                    what="the table announced")
        ha = Sub(broker, "homeassistant/#")
        try:
            await ha.await_(lambda s: len(s.messages) >= 5, what="five sensors' configs")
            configs = {m.topic: m.json() for m in ha.messages}
            assert all(m.retained for m in ha.messages)
            assert sorted(configs) == ["homeassistant/sensor/table-1/%s/config" % k
                                       for k in ("actions", "game", "last_move", "status",
                                                 "tiles_online")]
            status = configs["homeassistant/sensor/table-1/status/config"]
            assert status["state_topic"] == "fairytable/1/hall-a/table-1/summary"
            assert status["value_template"] == "{{ value_json.status_words }}"
            assert status["device"]["identifiers"] == [DEVICE]
            assert status["device"]["name"] == "Fairytable table-1"
            available, = status["availability"]
            assert available["topic"] == "fairytable/1/hall-a/table-1/$state"
            assert "value == 'ready'" in available["value_template"]
            assert len({c["unique_id"] for c in configs.values()}) == 5

            # Home Assistant restarts: the configs again, once, after a short random wait
            # (two "online" in a row make one announcement).
            await asyncio.to_thread(pub, broker, STATUS_TOPIC, "offline")
            await asyncio.to_thread(pub, broker, STATUS_TOPIC, "online")
            await asyncio.to_thread(pub, broker, STATUS_TOPIC, "online")
            await until(lambda: discovery.announced == 2, what="the second announcement")
            await ha.await_(lambda s: len(s.of("config")) >= 10, what="the configs again")
            await asyncio.sleep(discovery.reannounce_max_s * 2)
            assert discovery.announced == 2 and len(ha.of("config")) == 10
        finally:
            await p.stop()
            ha.close()
    asyncio.run(main())


def test_discovery_is_off_unless_asked(broker):
    async def main():
        p = HallPublisher(topics.parse_broker(broker.url), "hall-a", "table-1",
                          log=lambda line: None)
        p.start()
        await until(lambda: p.state == "ready", what="ready")
        await p.stop()
    asyncio.run(main())
    ha = Sub(broker, "homeassistant/#")
    try:
        table = Sub(broker, "fairytable/#")
        try:
            table.wait(lambda s: s.of("$state"), what="the table's retained state")
        finally:
            table.close()
        assert ha.messages == []
    finally:
        ha.close()
