"""The hall's names and commands, no broker: the topic tree, names checked, commands parsed
and refused in words."""

import json

import pytest

from host.hall import topics
from host.hall.topics import CommandRefused, parse_command


def test_a_table_publishes_under_its_own_hall_and_name():
    assert topics.table_topic("hall-a", "table-3", "$state") == \
        "fairytable/1/hall-a/table-3/$state"
    assert topics.table_topic("hall-a", "table-3", "ack") == "fairytable/1/hall-a/table-3/ack"
    assert topics.hall_command_topic("hall-a") == "fairytable/1/hall-a/$all/cmd"
    assert topics.split_topic("fairytable/1/hall-a/table-3/summary") == (
        "hall-a", "table-3", "summary")
    assert topics.split_topic("fairytable/1/hall-a/$all/cmd") == ("hall-a", "$all", "cmd")
    for other in ("fairytable/2/hall-a/t/summary", "fairytable/1/hall-a/t/other",
                  "fairytable/1/hall-a/T/summary", "fairytable/1/hall-a/t/summary/x"):
        assert topics.split_topic(other) is None


@pytest.mark.parametrize("name", ["", "Table-1", "table 1", "t/1", "t+", "#", "a" * 33,
                                  "tablé", None, 3])
def test_a_name_a_topic_cannot_hold_is_refused_in_words(name):
    with pytest.raises(ValueError, match="not a name the hall can use: 1 to 32 lowercase"):
        topics.table_topic("hall-a", name, "summary")


def test_a_host_name_becomes_a_usable_table_name():
    assert topics.clean_name("Pi-Table_3.local") == "pi-table-3-local"
    assert topics.clean_name("___") == "table"
    assert topics.NAME.match(topics.clean_name("X" * 80))


def test_the_broker_address_with_a_user_and_password():
    b = topics.parse_broker("mqtt://table%2D1:s%40cret@broker.hall:1884")
    assert (b.host, b.port, b.username, b.password) == ("broker.hall", 1884, "table-1",
                                                        "s@cret")
    assert "s@cret" not in repr(b)
    assert topics.parse_broker("mqtt://10.0.0.2").port == 1883


def test_the_password_may_stay_off_the_command_line():
    b = topics.parse_broker("mqtt://table-1@broker:1883",
                            {"FAIRYTABLE_MQTT_PASSWORD": "from-env"})
    assert (b.username, b.password) == ("table-1", "from-env")
    assert topics.parse_broker("mqtt://table-1:given@broker", {
        "FAIRYTABLE_MQTT_PASSWORD": "from-env"}).password == "given"
    assert topics.parse_broker("mqtt://broker", {
        "FAIRYTABLE_MQTT_PASSWORD": "from-env"}).password is None


def test_the_password_is_never_repeated_in_a_refusal():
    with pytest.raises(ValueError) as e:
        topics.parse_broker("mqtts://u:hunter2@h:1")
    assert "hunter2" not in str(e.value) and "u:***@" in str(e.value)


def command(**fields):
    return json.dumps(fields).encode()


def test_a_command_is_an_id_and_one_of_the_tables_commands():
    assert parse_command(command(id="c1", command="pause"), "t1") == {
        "id": "c1", "command": "pause", "params": {}}
    assert parse_command(command(id="c2", command="identify", table="t1",
                                 params={"seconds": 3}), "t1")["params"] == {"seconds": 3}


@pytest.mark.parametrize("payload,words,has_id", [
    (b"pause", "not JSON", False),
    (b"\xff\xfe", "not JSON", False),
    (b"[1]", "must be a JSON object", False),
    (command(command="pause"), "without an id", False),
    (command(id="", command="pause"), "without an id", False),
    (command(id="x" * 65, command="pause"), "without an id", False),
    (command(id="c1", command="pause", table="t2"), "for the table t2, not this one (t1)",
     True),
    (command(id="c1", command="fly"), "asks for 'fly', which a table does not do", True),
    (command(id="c1"), "asks for no command", True),
    (command(id="c1", command="pause", params=[1]), "params that are not a JSON object",
     True),
    (b"{" * 5000, "longer than 4096 bytes", False),
])
def test_a_malformed_command_is_refused_in_words(payload, words, has_id):
    with pytest.raises(CommandRefused) as e:
        parse_command(payload, "t1")
    assert words in e.value.message
    assert (e.value.command_id == "c1") is has_id
