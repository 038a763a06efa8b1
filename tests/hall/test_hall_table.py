"""What a table tells the hall and how it carries out the hall's commands, on a real
session over the virtual table (real firmware under MicroPython): the summary and events in
words, a tile offline and back, pause, resume, attract, a new game, and identify blinking
the tiles' LEDs white before the game's lights come back. The publisher is replaced by a
recorder here (its broker side is tests/hall/test_hall_publisher.py)."""

import asyncio
import json

import pytest

from host.hall.table import TableInHall
from host.hall.topics import CommandRefused
from shared_rules.engine import Match
from table_helpers import TWO_CARDS, storybook_table, until


class Recorder:
    """Stands for the publisher: what the table tells it."""

    def __init__(self):
        self.events = []
        self.changes = 0

    def event(self, kind, words, **extra):
        self.events.append((kind, words))

    def changed(self):
        self.changes += 1

    async def stop(self):
        pass


def command(name):
    return {"id": "c-" + name, "command": name, "params": {}}


def white(pixels):
    leds = [pixels[i:i + 3] for i in range(0, len(pixels), 3)]
    return bool(leds) and all(p[0] == p[1] == p[2] and p[0] > 0 for p in leds)


def lit(pixels):
    return [any(pixels[i:i + 3]) for i in range(0, len(pixels), 3)]


async def frames_of(tile, slot, seconds):
    """The cell's pixels, sampled for `seconds` (the blink turns on and off meanwhile)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    out = []
    while loop.time() < end:
        frame = await asyncio.to_thread(tile.leds)
        out.append(tile.cell_pixels(slot, frame))
        await asyncio.sleep(0.03)
    return out


def test_the_table_tells_the_hall_in_words_and_a_tile_offline_and_back(tmp_path):
    async def main():
        async with storybook_table(tmp_path, TWO_CARDS) as (session, hands, vt):
            hall = TableInHall(session)
            told = Recorder()
            hall.attach(told)
            try:
                summary = hall.summary()
                assert summary["game"] == "Storybook Battles"
                assert sorted(p["name"] for p in summary["players"]) == ["Hero", "Villain"]
                assert summary["status"] == "playing" and summary["tiles"] == {
                    "online": 7, "total": 7, "offline": []}
                # Nothing a player may not see: no hands, no board identities, no actions.
                text = json.dumps(summary)
                assert "hands" not in text and "the_" not in text
                assert told.events == [("status", "Playing.")]

                assert session.button("hero", "draw") == {"type": "draw"}
                session.apply_from_table({"type": "draw"})
                assert told.events[-1] == ("action", "Hero draws a card.")

                index = session.layout.slot_of[(0, 0)][0]
                tile = vt.tiles[index]
                where = session.layout.place_words(session.layout.tiles[index])
                await asyncio.to_thread(tile.kill)
                await until(lambda: not session.link.tiles[tile.uid].online, session, 20)
                hall.look()
                assert told.events[-1] == ("tile_offline", "The tile of %s is offline."
                                           % where)
                assert hall.summary()["tiles"]["offline"] == [where]
                await asyncio.to_thread(tile.restart)
                await until(lambda: session.link.tiles[tile.uid].online, session, 30)
                hall.look()
                assert told.events[-1] == ("tile_online", "The tile of %s is back." % where)
            finally:
                await hall.stop()
    asyncio.run(main())


def test_the_halls_commands_are_the_staff_controls(tmp_path):
    async def main():
        async with storybook_table(tmp_path, TWO_CARDS) as (session, hands, vt):
            hall = TableInHall(session)
            told = Recorder()
            hall.attach(told)
            session.new_game = lambda: (Match("storybook", {"mode": "physical"}, 2), None)
            try:
                assert await hall.on_command(command("pause")) == \
                    "The game is paused by staff."
                assert session.paused and hall.summary()["status_words"] == "Paused by staff"
                assert await hall.on_command(command("pause")) == "The game was already paused."
                assert await hall.on_command(command("resume")) == \
                    "The game is resumed by staff."
                assert not session.paused
                said = await hall.on_command(command("attract"))
                assert said == "Staff ended the game; the table plays a demo until the next one."
                assert session.attract and hall.summary()["status"] == "attract"
                with pytest.raises(CommandRefused, match="no game is running"):
                    await hall.on_command(command("pause"))
                old = session.match
                assert await hall.on_command(command("new_game")) == \
                    "Staff started a new game of Storybook Battles."
                assert not session.attract and session.match is not old
                assert ("status", "Playing.") in told.events[1:]
            finally:
                await hall.stop()
    asyncio.run(main())


def test_identify_blinks_every_cell_white_then_the_games_lights_come_back(tmp_path):
    async def main():
        async with storybook_table(tmp_path, TWO_CARDS) as (session, hands, vt):
            hall = TableInHall(session)
            hall.identify_s = 1.5
            hall.attach(Recorder())
            try:
                cell = (2, 3)                  # the Cheshire Cat lies here, lit by the game
                index, slot = session.layout.slot_of[cell]
                tile = vt.tiles[index]
                await until(lambda: True, session)
                before = await frames_of(tile, slot, 0.5)
                assert not any(white(p) for p in before)
                said = await hall.on_command(command("identify"))
                assert said == "The table's lights blink white for 1.5 seconds."
                during = await frames_of(tile, slot, 1.0)
                assert any(white(p) for p in during)            # on...
                assert any(not any(p) for p in during)          # ...and off: a blink
                await asyncio.sleep(hall.identify_s)
                after = await frames_of(tile, slot, 0.6)
                assert not any(white(p) for p in after)
                # The game's own lights again: the same LEDs lit as before identify.
                assert lit(after[-1]) == lit(before[-1]) and any(lit(before[-1]))
            finally:
                await hall.stop()
    asyncio.run(main())
