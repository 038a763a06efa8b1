"""Home Assistant MQTT discovery (off by default), on a real Mosquitto: a table announces a
device with its sensors and its buttons (retained), available while the table is ready, and
announces again, after a random delay, when Home Assistant says it is back. The templates
are rendered with Jinja2, as Home Assistant renders them."""

import asyncio
import datetime
import json
import time

import jinja2

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
            await ha.await_(lambda s: len(s.messages) >= 10, what="ten configs")
            configs = {m.topic: m.json() for m in ha.messages}
            assert all(m.retained for m in ha.messages)
            assert sorted(configs) == sorted(
                ["homeassistant/sensor/table-1/%s/config" % k
                 for k in ("actions", "game", "last_move", "status", "tiles_online")] +
                ["homeassistant/button/table-1/%s/config" % k
                 for k in ("attract", "identify", "new_game", "pause", "resume")])
            status = configs["homeassistant/sensor/table-1/status/config"]
            assert status["state_topic"] == "fairytable/1/hall-a/table-1/summary"
            assert status["value_template"] == "{{ value_json.status_words }}"
            assert status["device"]["identifiers"] == [DEVICE]
            assert status["device"]["name"] == "Fairytable table-1"
            available, = status["availability"]
            assert available["topic"] == "fairytable/1/hall-a/table-1/$state"
            assert "value == 'ready'" in available["value_template"]
            assert len({c["unique_id"] for c in configs.values()}) == 10
            pause = configs["homeassistant/button/table-1/pause/config"]
            assert pause["command_topic"] == "fairytable/1/hall-a/table-1/cmd"
            assert pause["name"] == "Pause the game" and pause["availability"] == \
                status["availability"] and pause["device"] == status["device"]

            # Home Assistant restarts: the configs again, once, after a short random wait
            # (two "online" in a row make one announcement).
            await asyncio.to_thread(pub, broker, STATUS_TOPIC, "offline")
            await asyncio.to_thread(pub, broker, STATUS_TOPIC, "online")
            await asyncio.to_thread(pub, broker, STATUS_TOPIC, "online")
            await until(lambda: discovery.announced == 2, what="the second announcement")
            await ha.await_(lambda s: len(s.of("config")) >= 20, what="the configs again")
            await asyncio.sleep(discovery.reannounce_max_s * 2)
            assert discovery.announced == 2 and len(ha.of("config")) == 20
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


def render(template, **values):
    """A template rendered as Home Assistant renders it (Jinja2, with its `now()`)."""
    return jinja2.Environment().from_string(template).render(
        now=lambda: datetime.datetime.now(datetime.timezone.utc), **values)


def test_the_sensors_templates_read_the_tables_summary():
    summary = {"status_words": "Playing: round 3", "game": "Storybook Battles",
               "last": "The Gryphon bests The Crocodile", "actions": 12,
               "tiles": {"online": 7, "expected": 7}}
    read = {topic.split("/")[3]: render(c["value_template"], value_json=summary)
            for topic, c in Discovery("hall-a", "table-1").configs().items()
            if "value_template" in c}
    assert read == {"status": "Playing: round 3", "game": "Storybook Battles",
                    "last_move": "The Gryphon bests The Crocodile", "actions": "12",
                    "tiles_online": "7"}
    available = Discovery("hall-a", "table-1").configs()[
        "homeassistant/sensor/table-1/status/config"]["availability"][0]["value_template"]
    assert [render(available, value=v) for v in ("init", "ready", "lost")] == [
        "offline", "online", "offline"]


def test_each_press_of_a_home_assistant_button_is_carried_out_and_a_redelivery_is_not(
        broker):
    """A button sends the same config'd template at every press: each press renders a new
    id, so two presses are two commands; the same rendered press delivered twice (QoS 1)
    is carried out once and answered twice."""
    carried = []

    async def on_command(command):
        carried.append(command["command"])
        return "done"

    async def main():
        discovery = Discovery("hall-a", "table-1")
        p = HallPublisher(topics.parse_broker(broker.url), "hall-a", "table-1",
                          summary=lambda: {}, on_command=on_command,
                          log=lambda line: None, discovery=discovery)
        p.start()
        acks = Sub(broker, "fairytable/1/hall-a/table-1/ack")
        try:
            await until(lambda: p.state == "ready", what="the table ready")
            configs = discovery.configs()
            identify = configs["homeassistant/button/table-1/identify/config"]
            pause = configs["homeassistant/button/table-1/pause/config"]
            presses = [render(identify["command_template"], value="PRESS")]
            time.sleep(0.001)
            presses.append(render(identify["command_template"], value="PRESS"))
            presses.append(render(pause["command_template"], value="PRESS"))
            assert presses[0] != presses[1]
            for payload in presses + presses[2:]:     # the pause delivered twice
                await asyncio.to_thread(pub, broker, identify["command_topic"], payload)
            await acks.await_(lambda s: len(s.messages) >= 4, what="four answers")
            answers = [m.json() for m in acks.messages]
            assert [a["id"] for a in answers] == [json.loads(x)["id"] for x in presses] + [
                json.loads(presses[2])["id"]]
            assert [a.get("repeat", False) for a in answers] == [False, False, False, True]
            assert carried == ["identify", "identify", "pause"]
        finally:
            acks.close()
            await p.stop()
    asyncio.run(main())
