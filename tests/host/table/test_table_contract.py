"""The contract of a game on the table (host/table/contract.py): both games keep it, its
defaults serve a game that does not override them, and what a viewer gets is JSON."""

import json

import pytest

from host.table.contract import TableGame, TableInterpreter
from host.games import table_game
from host.table.mismatch import Mismatch
from shared_rules.engine import Match

GAMES = [("storybook", {"mode": "physical"}), ("royale", {"players": 3}), ("heroes", {}),
         ("heroes", {"mode": "ctf"}), ("fightclub", {"players": 3})]


@pytest.mark.parametrize("name,options", GAMES)
def test_both_games_keep_the_contract(name, options):
    game = table_game(name)
    assert isinstance(game, TableGame) and game.name == name
    match = Match(name, dict(game.options, **options), 3)
    table = game.new_interpreter(match)
    assert isinstance(table, TableInterpreter) and table.match is match
    assert table.reconcile(0) is None or isinstance(table.reconcile(0), dict)
    assert table.take_said() == ([], []) and table.tick(0) is None
    scenes = game.scenes(match.state, table, [], (), None)
    assert isinstance(scenes, dict)
    assert game.seats(dict(game.options, **options)) == match.engine.seats(match.state)
    seat = game.actors(match.state)[0]
    assert seat in match.engine.seats(match.state)
    action = game.bot_action("greedy", match.engine, match.state, seat, 3)
    assert action is not None and game.carries_out(action, action)
    scores, target, _side = game.status_strip(match)
    assert isinstance(scores, dict) and target > 0


@pytest.mark.parametrize("name,options", GAMES)
def test_a_viewer_gets_json_and_a_seat_no_more_than_the_engine_shows_it(name, options):
    game = table_game(name)
    match = Match(name, dict(game.options, **options), 5)
    table = game.new_interpreter(match)
    seat = match.engine.seats(match.state)[0]
    for viewer in (None, seat):
        view = game.table_view(match, table, [Mismatch("lifted", [(1, 2)], "Put it back.")],
                               viewer)
        assert json.loads(json.dumps(view)) == view
        assert view["state"] == match.engine.view(match.state, viewer)
        assert view["mismatches"] == [{"code": "lifted", "cells": [[1, 2]],
                                       "message": "Put it back."}]


class Plain(TableInterpreter):
    """An interpreter with only what it must have: observe and reconcile."""

    def observe(self, cell, items, problems=()):
        self.observed[cell] = sorted(items)

    def reconcile(self, now):
        self.mismatches = []
        return None


def test_the_defaults_serve_a_game_that_overrides_nothing_else():
    match = Match("storybook", {"mode": "physical"}, 1)
    table = Plain(match)
    assert table.hide_window_ms is None and Plain(match, 700).hide_window_ms == 700
    table.observe_items((0, 0), ["b", "a"])
    assert table.observed == {(0, 0): ["a", "b"]}
    assert table.gesture((0, 0), "tap", 0) is None and table.button("hero", "x") is None
    assert table.dice(0, "die:1:6", None, 0) is None and not table.busy()
    assert table.expected() == {} and table.pockets_wanted() == []
    table.expect_bot_move({"type": "draw"}, 0)
    assert table.bot_move == {"type": "draw"}
    table.note("a note")
    assert table.refuse([(1, 1)], "not now") is None
    assert table.take_said() == (["a note"], [([(1, 1)], "not now")])
    assert table.take_said() == ([], [])

    game = TableGame()
    game.name = "storybook"
    assert game.action_cells(match.state, {"type": "x", "cell": [1, 2]}) == [(1, 2)]
    assert game.action_cells(match.state, {"type": "x"}) == []
    assert game.actors(match.state)[0] == match.state.turn and game.turns(match) is None
    assert game.normal_bot_action({"type": "x"}) == {"type": "x"}
    assert game.hands(None, None, None) is None and not game.is_button_action({"type": "x"})
    text = game.render(match.state, {}, [Mismatch("lifted", [], "Put it back.")])
    assert text.startswith("storybook: ") and text.endswith("\n! Put it back.")
    with pytest.raises(NotImplementedError):
        game.scenes(match.state, table, [])
    with pytest.raises(NotImplementedError):
        TableInterpreter(match).reconcile(0)
