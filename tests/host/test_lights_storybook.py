"""What the Storybook table lights: numbers on the edges, the battle, hints, trouble."""

from host import lights
from host.games.storybook import scenes as sb
from host.table.mismatch import Mismatch
from shared_rules import storybook

CAT, RABBIT, CROC = "the_cheshire_cat", "the_white_rabbit", "the_crocodile"


def example():
    return storybook.new_game({}, 1, {"board": [
        {"card": CAT, "cell": [2, 3], "owner": "hero"},
        {"card": CROC, "cell": [3, 3], "owner": "villain"},
        {"card": RABBIT, "cell": [4, 3], "owner": "hero", "facing": "E"}], "turn": "hero"})


def test_edges_show_swords_toward_enemies_and_shields_elsewhere():
    s = example()
    scenes = sb.grid_scenes(s)
    cat = scenes[(2, 3)]
    assert cat[1] == ("value", sb.SWORDS, 5, 8)                 # 5 swords toward the Croc
    assert cat[0] == ("value", sb.SIDE_COLOUR["hero"], 4, 8)    # 4 shields to the north
    assert scenes[(0, 0)] == lights.DARK_CELL


def test_a_face_down_card_shows_no_numbers():
    s = storybook.new_game({}, 1, {"board": [
        {"card": CAT, "cell": [2, 3], "owner": "hero", "face_up": False}], "turn": "hero"})
    assert set(seg[0] for seg in sb.grid_scenes(s)[(2, 3)]) == {"solid"}


def test_the_battle_shows_bests_overwhelms_and_the_team_capture():
    s = example()
    before = s.copy()
    events = storybook.apply(s, {"type": "end_turn"})
    scenes = sb.grid_scenes(before, events)
    assert scenes[(2, 3)][1][0] == "chase" and scenes[(2, 3)][1][1] == sb.TEAM_CAPTURE
    assert scenes[(3, 3)][1] == lights.blink(lights.MISMATCH, 250)  # overwhelms the Rabbit (E)


def test_a_lifted_card_lights_where_it_may_slide():
    s = storybook.new_game({}, 1, {"board": [
        {"card": CAT, "cell": [0, 3], "owner": "hero"},
        {"card": CROC, "cell": [5, 3], "owner": "villain"}], "turn": "hero"})
    scenes = sb.grid_scenes(s, (), [Mismatch("lifted", [(0, 3)], "put it back")])
    assert scenes[(0, 3)][0][0] == "blink"
    assert scenes[(4, 3)][0] == lights.pulse(lights.HINT_SLIDE, 1000, 40)


def test_every_scene_encodes_to_the_tiles_24_bytes():
    s = example()
    for scene in sb.grid_scenes(s, storybook.apply(s.copy(), {"type": "end_turn"})
                                         ).values():
        assert len(lights.encode(scene)) == 24
