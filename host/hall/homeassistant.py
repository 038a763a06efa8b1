"""Home Assistant MQTT discovery for a table (off by default: `fairytable run --mqtt URL
--ha-discovery`): the table appears in Home Assistant as a device with its sensors.

Each sensor's config is retained under homeassistant/sensor/<table>/<sensor>/config (the
table's name alone at its level, so that a Mosquitto ACL can grant it as %u) and
reads the table's retained summary; the device is available while the table's `$state` is
`ready` (a template maps `init`, `disconnected` and `lost` to unavailable). When Home
Assistant says it is back (homeassistant/status = online), the configs are sent again after
a random delay of up to `reannounce_max_s`, so a hall of tables does not flood it at once.

The table's commands are buttons too (homeassistant/button/<table>/<command>/config). A
button of Home Assistant sends the same payload at every press, and a command's id is how
the table tells a repeat (QoS 1 delivers twice) from a new press; so each button's
`command_template` makes its id when it is pressed, from the moment of the press
(`now().timestamp()`, to the microsecond): a redelivered press keeps its id and is answered,
not done again; the next press is a new command.
"""

import asyncio
import json
import random

from host.hall import topics

PREFIX = "homeassistant"
STATUS_TOPIC = PREFIX + "/status"

# (key, name, value template, unit)
SENSORS = (
    ("status", "Status", "{{ value_json.status_words }}", None),
    ("game", "Game", "{{ value_json.game }}", None),
    ("last_move", "Last move", "{{ value_json.last }}", None),
    ("actions", "Actions played", "{{ value_json.actions }}", None),
    ("tiles_online", "Tiles online", "{{ value_json.tiles.online }}", "tiles"),
)

# (command, button name, icon): every command a table takes (topics.COMMANDS)
BUTTONS = (
    ("pause", "Pause the game", "mdi:pause"),
    ("resume", "Resume the game", "mdi:play"),
    ("new_game", "Start a new game", "mdi:restart"),
    ("attract", "End the game, play the demo", "mdi:television-play"),
    ("identify", "Blink the lights", "mdi:lightbulb-on"),
)


def press_template(command):
    """The button's command template: a command with an id new at each press."""
    return '{"id": "ha-%s-{{ now().timestamp() }}", "command": "%s"}' % (command, command)


class Discovery:
    reannounce_max_s = 10.0

    def __init__(self, hall, table, rng=None):
        self.hall = topics.check_name("the hall", hall)
        self.table = topics.check_name("the table", table)
        self.device = "fairytable-%s-%s" % (self.hall, self.table)
        self.rng = rng or random.SystemRandom()
        self.announced = 0
        self._pending = None

    def config_topic(self, key, component="sensor"):
        return "%s/%s/%s/%s/config" % (PREFIX, component, self.table, key)

    def _entity(self, key, name):
        """What every entity of the table's device says: its names, availability, device."""
        state = topics.table_topic(self.hall, self.table, "$state")
        return {
            "name": name,
            "unique_id": "%s-%s" % (self.device, key),
            "object_id": "%s_%s" % (self.device.replace("-", "_"), key),
            "availability": [{"topic": state, "payload_available": "online",
                              "payload_not_available": "offline",
                              "value_template": "{{ 'online' if value == 'ready' "
                                                "else 'offline' }}"}],
            "device": {"identifiers": [self.device], "name": "Fairytable %s" % self.table,
                       "manufacturer": "Fairytable", "model": "game table",
                       "suggested_area": self.hall},
        }

    def configs(self):
        """{topic: config} of every sensor and button (JSON-ready)."""
        out = {}
        for key, name, template, unit in SENSORS:
            config = self._entity(key, name)
            config.update(state_topic=topics.table_topic(self.hall, self.table, "summary"),
                          value_template=template)
            if unit is not None:
                config["unit_of_measurement"] = unit
            out[self.config_topic(key)] = config
        for command, name, icon in BUTTONS:
            config = self._entity(command, name)
            config.update(command_topic=topics.table_topic(self.hall, self.table, "cmd"),
                          command_template=press_template(command), qos=1, icon=icon)
            if command == "identify":
                config["device_class"] = "identify"
            out[self.config_topic(command, "button")] = config
        return out

    async def announce(self, client):
        """Send every sensor's config (retained)."""
        for topic, config in sorted(self.configs().items()):
            await client.publish(topic, json.dumps(config, sort_keys=True).encode(), qos=1,
                                 retain=True)
        self.announced += 1

    async def subscribe(self, client):
        await client.subscribe(STATUS_TOPIC, qos=1)

    def heard(self, client, topic, payload):
        """A message on a topic of Home Assistant's: its coming back is announced to, later."""
        if topic != STATUS_TOPIC or bytes(payload).strip() != b"online":
            return False
        if self._pending is None or self._pending.done():
            self._pending = asyncio.ensure_future(self._later(client))
        return True

    async def _later(self, client):
        await asyncio.sleep(self.rng.uniform(0, self.reannounce_max_s))
        try:
            await self.announce(client)
        except Exception:  # noqa: BLE001 - the connection went: the next one announces
            pass

    def cancel(self):
        if self._pending is not None:
            self._pending.cancel()
