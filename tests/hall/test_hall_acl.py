"""The README's Mosquitto ACL on a real broker: a table logs in with its name, publishes only
under its own topics, reads only its own and the hall's commands; the console reads the
whole hall and sends commands."""

import asyncio
import json
import os
import pwd
import re
import shutil
import subprocess

import pytest

from hall_helpers import Sub, need_mosquitto, pub
from host.hall import topics
from host.hall.homeassistant import Discovery
from host.hall.publisher import HallPublisher
from mosquitto_broker import Mosquitto
from mpy import REPO

PASSWORDS = {"table-1": "pw-one", "table-2": "pw-two", "console": "pw-console",
             "homeassistant": "pw-ha"}


def readme_acl():
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        text = f.read()
    block = re.search(r"```\n(# fairytable\.acl.*?)```", text, re.S)
    assert block, "the README shows the ACL in a block starting with '# fairytable.acl'"
    return block.group(1)


@pytest.fixture
def locked_broker(tmp_path):
    passwd = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
    need_mosquitto()
    password_file = tmp_path / "fairytable.passwd"
    password_file.write_text("")
    os.chmod(password_file, 0o600)
    for user, password in PASSWORDS.items():
        subprocess.run([passwd, "-b", str(password_file), user, password], check=True)
    acl = tmp_path / "fairytable.acl"
    acl.write_text(readme_acl())
    # Started as root, Mosquitto drops to its own user, who could not read these files.
    me = pwd.getpwuid(os.getuid()).pw_name
    broker = Mosquitto(tmp_path, anonymous=False, extra="password_file %s\nacl_file %s\n"
                       "user %s\n" % (password_file, acl, me)).start()
    try:
        yield broker
    finally:
        broker.stop()


def test_each_table_writes_only_its_own_topics_and_reads_only_its_commands(locked_broker):
    b = locked_broker
    console = ("console", PASSWORDS["console"])
    hall = Sub(b, "fairytable/1/hall/#", console)
    table_2_reads = Sub(b, "fairytable/1/hall/#", ("table-2", PASSWORDS["table-2"]))
    home_assistant = Sub(b, "homeassistant/#", ("homeassistant", PASSWORDS["homeassistant"]))

    async def main():
        carried = []

        async def on_command(command):
            carried.append(command["command"])
            return "The game is paused by staff."
        p = HallPublisher(topics.parse_broker("mqtt://table-1:%s@127.0.0.1:%d" % (
            PASSWORDS["table-1"], b.port)), "hall", "table-1",
            summary=lambda: {"game": "Storybook Battles"}, on_command=on_command,
            log=lambda line: None, discovery=Discovery("hall", "table-1"))
        p.start()
        try:
            await hall.await_(lambda s: [m for m in s.of("$state") if m.payload == "ready"],
                              what="table-1 ready, seen by the console")
            # Table-1 forges table-2's summary and sends itself a command: both dropped.
            table_1 = ("table-1", PASSWORDS["table-1"])
            await asyncio.to_thread(pub, b, "fairytable/1/hall/table-2/summary", "forged",
                                    False, table_1)
            await asyncio.to_thread(pub, b, "fairytable/1/hall/table-1/cmd", json.dumps(
                {"id": "self-1", "command": "pause"}), False, table_1)
            await asyncio.to_thread(pub, b, "homeassistant/sensor/table-2/status/config",
                                    "forged", False, table_1)
            # The console's commands reach it, to it and to the hall.
            await asyncio.to_thread(pub, b, "fairytable/1/hall/table-1/cmd", json.dumps(
                {"id": "c-1", "command": "pause"}), False, console)
            await asyncio.to_thread(pub, b, topics.hall_command_topic("hall"), json.dumps(
                {"id": "c-2", "command": "identify"}), False, console)
            await hall.await_(lambda s: len(s.of("ack")) >= 2, what="two acks")
            assert sorted(m.json()["id"] for m in hall.of("ack")) == ["c-1", "c-2"]
            assert carried == ["pause", "identify"]
            # A wrong password is refused by the broker.
            with pytest.raises(subprocess.CalledProcessError):
                await asyncio.to_thread(pub, b, "fairytable/1/hall/table-1/summary", "x",
                                        False, ("table-1", "wrong"))
            # Its Home Assistant sensors and buttons reach Home Assistant, the forged one
            # does not; Home Assistant's button sends it a command.
            await home_assistant.await_(lambda s: len(s.messages) >= 10,
                                        what="5 sensors and 5 buttons")
            await asyncio.to_thread(pub, b, "fairytable/1/hall/table-1/cmd", json.dumps(
                {"id": "ha-resume-1", "command": "resume"}), False,
                ("homeassistant", PASSWORDS["homeassistant"]))
            await hall.await_(lambda s: len(s.of("ack")) >= 3, what="the button's ack")
            assert carried == ["pause", "identify", "resume"]
        finally:
            await p.stop()

    try:
        asyncio.run(main())
        assert not [m for m in hall.messages if m.payload == "forged"]
        assert sorted(set(m.topic.split("/")[2] for m in home_assistant.messages)) == [
            "table-1"]
        assert not [m for m in home_assistant.messages if m.payload == "forged"]
        # Table-2 reads the hall's commands, never table-1's topics or commands.
        seen = sorted(set(m.topic for m in table_2_reads.messages))
        assert seen == ["fairytable/1/hall/$all/cmd"], seen
    finally:
        hall.close()
        table_2_reads.close()
        home_assistant.close()
