"""No leak in Fairytale Games: every WebSocket message and API answer a spectator gets during whole
2- and 6-player games (greedy bots on the virtual table, four days of events so the games end
in a few dozen actions: battles, kills, quests opened from the hidden piles, a new character
searched from the bonus deck) is checked against the engine's hidden information at that
moment of the game.

The journal's actions are replayed: for each message, the state after its "actions" count gives
the engine's secrets (`secrets(state, None)`: the face-down decks, the hands, the decisions,
the hunters still face down) and the cards the table has seen face up so far (`Witness`,
tests/host/web/test_web_fairytale.py). No message holds a hidden card's id, nor the name of a
hidden card the table has never seen (the LED scenes aside: effect names and numbers); no card
back carries an id.
"""

import asyncio
import json

import pytest

from host.journal import Journal
from shared_rules.engine import Match
from test_web_fairytale import SHORT, Witness
from test_web_no_leak import spectate
from web_helpers import Host


def without_leds(obj):
    """A view without its LED scenes: effect names and numbers (a "rainbow" there is the
    lights' effect, not the event card), as the web table's own redaction leaves them."""
    if isinstance(obj, dict):
        return dict((k, without_leds(v)) for k, v in obj.items() if k != "leds")
    if isinstance(obj, list):
        return [without_leds(x) for x in obj]
    return obj


def check(texts, journal_path):
    journal = Journal(journal_path)
    views = [json.loads(t) for t in texts]
    moments = {}
    for game_id in sorted(set(v["game_id"] for v in views)):
        match, _ = journal.load(game_id)
        again = Match(match.game, match.options, match.seed, match.setup, match.cards)
        witness = Witness(again.state)
        moments[game_id] = [(again.engine.copy(again.state), set(witness.seen))]
        for action in match.actions:
            again.apply(action)
            witness.look(again.state)
            moments[game_id].append((again.engine.copy(again.state), set(witness.seen)))
    journal.close()
    for view in views:
        assert "you" not in view and view["viewer"]["seat"] is None
        state, seen = moments[view["game_id"]][view["actions"]]
        witness.seen = seen
        leaked = witness.leaks(state, json.dumps(without_leds(view)))
        assert not leaked, "message at action %d shows %s" % (view["actions"], leaked)
        for cell in view["cells"]:
            for item in cell["items"]:
                if item["kind"] == "card_back":
                    assert "id" not in item, item
    return len(texts)


@pytest.mark.parametrize("players,seed", [(2, 11), (6, 4)])
def test_a_spectator_never_receives_a_hidden_card(tmp_path, players, seed):
    setup = tmp_path / "four-days.json"
    setup.write_text(json.dumps(SHORT))
    host = Host(tmp_path, "--game", "fairytale", "--players", str(players), "--headless",
                "--bots", str(players), "--json", "--setup", str(setup), "--seed", str(seed),
                "--new", "--pace", "0").start()
    answers, messages = [], []
    try:
        asyncio.run(spectate(host, answers, messages))
    finally:
        host.stop()
    assert host.proc.returncode == 0, host.log()[-3000:]
    summary = json.loads([line for line in host.log().splitlines() if line.startswith("{")][-1])
    assert summary["status"] == "finished", summary
    n_ws = check(messages, host.journal)
    n_api = check(answers, host.journal)
    # Whole games: the spectator saw each through to its end, and what it saw held the
    # hidden piles' and hands' moments (a quest opened, cards in the battle hands).
    last = json.loads(messages[-1])
    assert last["status"] == "finished" and last["actions"] == summary["actions"]
    # (A spectator that cannot keep up skips states, drop-to-latest, and a change is sent
    # once however many pages watch: how many messages come depends on the machine's load.)
    assert n_ws >= 10 and n_api > 3
    assert any("opens a quest from the Easy quests" in line for line in last["log"]) or \
        players == 6
