"""The attract mode's demo game (host/attract.py), for every game the table plays: bots in
every seat play it in memory, one move a step, lit with the game's own scenes, told in
words; a finished demo rests, then the next one starts. Nothing is journalled."""

import pytest

from host import lights
from host.attract import Demo
from host.games import names, table_game
from host.table import layout as layouts


class Clock:
    def __init__(self):
        self.now = 0

    def __call__(self):
        return self.now


@pytest.mark.parametrize("name", names())
def test_a_demo_plays_its_game_move_by_move_lit_and_in_words(name):
    game = table_game(name)
    layout = layouts.load(layouts.builtin_path(name))
    clock = Clock()
    demo = Demo(game, name, {}, 7, clock)
    assert demo.tick() is False and demo.moves == 0          # not before its step
    said = set()
    for _ in range(40):
        clock.now += Demo.step_ms
        if demo.finished:
            clock.now += Demo.rest_ms
        assert demo.tick() is True
        scenes = demo.scenes(layout.cells)
        assert set(layout.cells) <= set(scenes)
        for scene in scenes.values():
            lights.encode(scene)                       # every scene is one the tiles take
        if demo.words:
            said.add(demo.words)
    assert demo.moves >= 30
    assert said and all(w[0].isupper() and "_" not in w for w in said), sorted(said)[:3]
    assert "by itself" in demo.banner() and game.title in demo.banner()


def test_the_same_seed_shows_the_same_demo_and_a_finished_one_starts_again():
    game = table_game("storybook")

    def play(seed):
        clock = Clock()
        demo = Demo(game, "storybook", {}, seed, clock)
        while not demo.finished:
            clock.now += Demo.step_ms
            demo.tick()
        return demo, clock
    a, clock = play(3)
    b, _ = play(3)
    assert a.match.actions == b.match.actions and a.games == 1
    first = a.match
    clock.now += Demo.rest_ms - 1
    assert a.tick() is False and a.match is first                 # the end stays on show
    clock.now += 1
    assert a.tick() is True and a.match is not first and a.games == 2
    assert a.match.actions == [] and not a.finished
