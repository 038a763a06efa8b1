"""Every registered game through the one contract (host/table/contract.py, host/web/face.py):
the staff page's journal replay of a finished game, staff "new game" at the game's fewest and
most players, the web view of a spectator and of every seat, the terminal view. No game is
named here: the list comes from the registry, so a new game is checked as it is registered.

(A whole headless game of each on the virtual table is tests/integration/test_table_*_play.py.)
It would have caught the Fight Club journal replay that answered HTTP 500 and the staff new
game of 3 players refused with "Storybook Battles is played by 2 seats."
"""

import json
import re

import pytest

from host import games
from host.clock import ManualClock
from host.journal import Journal
from host.session import TableSession
from host.table import layout as layouts
from host.table import tags
from host.web.face import ITEM_KINDS
from host.web.view import WebTable
from shared_rules.engine import Match
from test_session_clock import ScriptedLink

NAMES = games.names()


def players_range(game):
    info = game.info
    counts = info.get("player_counts") or list(range(info["min_players"],
                                                     info["max_players"] + 1))
    return counts[0], counts[-1]


def session_of(tmp_path, name, options=None, journal=None):
    game = games.table_game(name)
    layout = layouts.load(layouts.builtin_path(name))
    uids = ["e6614104%08x" % (i + 1) for i in range(len(layout.tiles))]
    registry = tags.Registry(tags.load_key(str(tmp_path / "key")))
    match = Match(name, dict(game.options, **(options or {})), 7)
    session = TableSession(match, layout, ScriptedLink(ManualClock()), registry, uids,
                           journal=journal, clock=ManualClock())
    return game, session


def finished_game(game, journal, seed):
    """A whole game of greedy bots, engine only, journalled action by action."""
    match = Match(game.name, dict(game.options), seed)
    game_id = journal.start_game(match, {"bots": {}, "seed": seed})
    n = 0
    while match.engine.status(match.state) == "ongoing" and n < 4000:
        seat = game.actors(match.state)[0]
        action = game.bot_action("greedy", match.engine, match.state, seat, seed)
        match.apply(action)
        journal.append(game_id, n, action, match)
        n += 1
    assert match.engine.status(match.state) == "finished", "the bots did not finish"
    journal.finish(game_id)
    return game_id, n


def words_of(view):
    """Every string a person reads on the page (not ids, LED scenes or the engine's data)."""
    out = [view["banner"], view["title"]] + view["facts"] + view["log"]
    out += [view["last"] or ""] + [m["message"] for m in view["mismatches"]]
    out += [s["name"] for s in view["seats"]] + [x["words"] for x in view["legend"]]
    for cell in view["cells"]:
        for it in cell["items"]:
            out += [it["label"], it["title"]]
    if view.get("you"):
        out += [c["label"] for c in view["you"]["choices"]]
        out += [c["label"] for c in view["you"]["hand"]]
        out.append(view["you"].get("note") or "")
    return out


def assert_words(texts):
    for text in texts:
        assert "=" not in text, text
        assert not re.search(r"[a-z]_[a-z]", text), text
        assert not re.search(r"\b[0-9a-f]{16}\b", text), text


@pytest.mark.parametrize("name", NAMES)
def test_the_staff_page_replays_a_finished_game_of_every_game(tmp_path, name):
    journal = Journal(str(tmp_path / "journal.db"))
    game, session = session_of(tmp_path, name, journal=journal)
    game_id, n = finished_game(game, journal, 3)
    table = WebTable(session, journal=journal)
    board = game.board_cells()
    for step in (0, n // 2, n):
        r = table.replay(game_id, step)
        assert json.loads(json.dumps(r)) == r
        assert r["step"] == step and r["steps"] == n and r["title"] == game.title
        assert set(tuple(c["cell"]) for c in r["cells"]) == set(board)
        assert all(it["kind"] in ITEM_KINDS for c in r["cells"] for it in c["items"])
        assert r["said"] is None if step == 0 else r["said"].endswith(".")
    assert r["status"] == "finished" and r["banner"].startswith("Game over")
    assert sum(len(c["items"]) for c in r["cells"]) > 0 or name == "royale"
    journal.close()


@pytest.mark.parametrize("name", NAMES)
def test_staff_start_a_new_game_at_the_fewest_and_the_most_players(tmp_path, name):
    game, session = session_of(tmp_path, name)
    table = WebTable(session)
    table.make_match = lambda seed, options, bots: (Match(name, options, seed or 1), 2)
    fewest, most = players_range(game)
    for players in (fewest, most):
        if most > len(session.layout.seats) and session.layout.seats and \
                players > len(session.layout.seats):
            continue
        table.staff("start", {"players": players, "bots": players})
        assert len(session.match.state.seats) == players, players
        assert not session.attract and session.bots.seats and len(session.bots.seats) == players
        view = table.view(None)
        assert len(view["seats"]) == players
    # A count the engine does not take is the engine's own refusal, in its words.
    from host.web.errors import Refused
    with pytest.raises(Refused) as e:
        table.staff("start", {"players": most + 1})
    assert e.value.status == 400 and game.title in e.value.message
    # The form the staff page draws: this game's counts and modes.
    form = table.new_game_form()
    assert form["title"] == game.title and form["players"][0] == fewest and \
        form["players"][-1] == most
    # Its other options (a switch "on" or "off"), each started with and refused in words.
    modes = game.info.get("modes", {})
    assert [o["name"] for o in form["switches"]] == sorted(k for k in modes if k != "mode")
    for o in form["switches"]:
        assert o["title"] and o["value"] == o["values"][0]
        # Each value in words on the page (the staff read "an action only", not action_only).
        assert sorted(o["value_titles"]) == sorted(o["values"]), o
        assert not [w for w in o["value_titles"].values() if "_" in w], o
        table.staff("start", {"players": fewest, "bots": fewest, "options": {
            o["name"]: o["values"][-1]}})
        chosen = modes[o["name"]][-1]
        assert session.match.options[o["name"]] == chosen
        assert [x["value"] for x in table.new_game_form()["switches"]
                if x["name"] == o["name"]] == [o["values"][-1]]
    with pytest.raises(Refused) as e:
        table.staff("start", {"players": fewest, "options": {"colour": "red"}})
    assert e.value.status == 400 and "not 'colour'" in e.value.message
    for o in form["switches"]:
        with pytest.raises(Refused) as e:
            table.staff("start", {"players": fewest, "options": {o["name"]: "maybe"}})
        assert e.value.message.startswith("options.%s must be one of " % o["name"])


@pytest.mark.parametrize("name", NAMES)
def test_every_viewer_gets_words_and_generic_pieces_and_the_terminal_draws(tmp_path, name):
    game, session = session_of(tmp_path, name)
    table = WebTable(session)
    match = session.match
    # A few moves in, so the board holds pieces (applied as the table would apply them).
    for _ in range(6):
        if match.engine.status(match.state) != "ongoing":
            break
        seat = game.actors(match.state)[0]
        session.apply(game.bot_action("greedy", match.engine, match.state, seat, 7))
    for viewer in [None] + list(match.state.seats):
        view = table.view(viewer)
        assert json.loads(json.dumps(view)) == view
        assert view["title"] == game.title and view["banner"]
        assert all(it["kind"] in ITEM_KINDS for c in view["cells"] for it in c["items"])
        assert len(view["readers"]) <= len(match.state.seats)
        assert_words(words_of(view))
        if viewer is not None:
            assert view["you"]["seat"] == viewer
    text = game.render(match.state, session.scenes(), session.mismatches, False, session.table)
    assert isinstance(text, str) and text


@pytest.mark.parametrize("name", NAMES)
def test_the_gestures_a_game_explains_are_the_pages_and_said_in_sentences(name):
    """The page's "Hands on the table" (tap, double tap, hold, lift, move) say what each does
    in the game: a face names only those tools, once each, in sentences, and says what they
    are for."""
    face = games.table_game(name).face
    tools = [t for t, _ in face.gestures]
    assert set(tools) <= {"tap", "double", "hold", "lift", "move"}, tools
    assert len(tools) == len(set(tools)), tools
    for tool, words in face.gestures:
        assert words[0].islower() and words.endswith(".") and "_" not in words, (tool, words)
    assert bool(face.gestures_for) == bool(face.gestures), face.gestures_for


@pytest.mark.parametrize("name", NAMES)
def test_a_spectators_legend_leaves_out_what_only_a_seat_sees(tmp_path, name):
    """"Green cells: where the picked card may go" means nothing to a spectator, who picks
    nothing: the legend a seat reads has it, a spectator's does not."""
    _game, session = session_of(tmp_path, name)
    table = WebTable(session)
    seat = table.seats()[0]
    watching = [e["words"] for e in table.view(None)["legend"]]
    playing = [e["words"] for e in table.view(seat)["legend"]]
    only = [w for w in playing if w not in watching]
    assert not [w for w in watching if "picked" in w], watching
    assert [w for w in playing if "picked" in w] == only, (playing, watching)
