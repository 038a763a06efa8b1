"""No leak: every WebSocket message and API answer a spectator gets during whole games of both
games is checked against the engine's hidden information at that moment of the game.

The host plays headless (bots in every seat, through the real virtual tiles) with the web table
on; a spectator listens on /ws and polls /api/table. Afterwards the journal's actions are
replayed: for each message, the state after its "actions" count gives the engine's secrets
(`secrets(state, None)`: cards in hands, decks, face-down cards, set-aside cards), and none
may appear in the message, by id or by name; every face-down item carries no id.
"""

import asyncio
import json

import aiohttp
import pytest

from host.journal import Journal
from shared_rules.engine import Match
from web_helpers import Host, mentions


async def spectate(host, answers, messages):
    async with aiohttp.ClientSession() as http:
        async def poll():
            while host.proc.poll() is None:
                try:
                    async with http.get(host.url + "api/table") as r:
                        if r.status == 200:
                            answers.append(await r.text())
                except aiohttp.ClientError:
                    pass
                await asyncio.sleep(0.25)
        poller = asyncio.ensure_future(poll())
        try:
            async with http.ws_connect(host.url + "ws") as ws:
                async for msg in ws:
                    if msg.type == aiohttp.WSMsgType.TEXT:
                        messages.append(msg.data)
        except aiohttp.ClientError:
            pass
        await asyncio.to_thread(host.proc.wait, 900)
        poller.cancel()


def check(texts, journal_path, where):
    journal = Journal(journal_path)
    loaded = {}
    checked = 0
    for text in texts:
        view = json.loads(text)
        assert "you" not in view and view["viewer"]["seat"] is None
        game_id = view["game_id"]
        if game_id not in loaded:
            match, _ = journal.load(game_id)
            loaded[game_id] = match
        match = loaded[game_id]
        again = Match(match.game, match.options, match.seed, match.setup, match.cards)
        for action in match.actions[:view["actions"]]:
            again.apply(action)
        state = again.state
        words = set()
        for cid in again.engine.secrets(state, None):
            words.add(cid)
            cat = getattr(state, "cat", None)
            if cat is not None and cid in cat.cards:
                words.add(cat.cards[cid][1])
            if cat is not None and cid in cat.twists and cat.twists[cid].get("name"):
                words.add(cat.twists[cid]["name"])
            cards = getattr(state, "cards", None)     # Battle Royale: the map's and reserves'
            if isinstance(cards, dict) and cid in cards:
                words.add(cards[cid]["name"])
        leaked = sorted(w for w in words if mentions(text, w))
        assert not leaked, "%s message at action %d shows %s: %s" % (
            where, view["actions"], leaked, text[:3000])
        for cell in view["cells"]:
            for item in cell["items"]:
                if item["kind"] == "card_back":
                    assert "id" not in item, (where, item)
        checked += 1
    journal.close()
    return checked


@pytest.mark.parametrize("game,args", [
    ("storybook", ["--bots", "2"]),
    ("royale", ["--game", "royale", "--bots", "3", "--players", "3"]),
])
def test_a_spectator_never_receives_hidden_information(tmp_path, game, args):
    host = Host(tmp_path, "--headless", "--json", "--new", "--seed", "11", "--pace", "0",
                *args).start()
    answers, messages = [], []
    try:
        asyncio.run(spectate(host, answers, messages))
    finally:
        host.stop()
    assert host.proc.returncode == 0, host.log()[-3000:]
    summary = json.loads([line for line in host.log().splitlines() if line.startswith("{")][-1])
    assert summary["status"] == "finished", summary
    n_ws = check(messages, host.journal, "WebSocket")
    n_api = check(answers, host.journal, "API")
    # Whole games: the spectator saw the game through to its end.
    last = json.loads(messages[-1])
    assert last["status"] == "finished" and last["actions"] == summary["actions"]
    assert n_ws > 20 and n_api > 5
