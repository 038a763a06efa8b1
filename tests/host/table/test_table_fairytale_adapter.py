"""The Fairytale Games adapter's facts (host/games/fairytale/adapter.py): its layout (the Dragon
Inn's tile of four readers, the deck readers, ten seat readers, the dice tray), the tags of
its box, which moves the table shows and which are a seat's choices, its light and its
terminal view, in words."""

import re

from host import games, lights
from host.games.fairytale import places
from host.games.fairytale.interpreter import FairytaleTable
from host.games.fairytale.places import BONUS, EVENTS, INN, SEAT
from host.games.fairytale.scenes import reachable
from host.table import layout as layouts
from host.table import tags
from shared_rules import bots
from shared_rules import fairytale as ft
from shared_rules.engine import Match
from table_helpers import lay_out

GAME = games.table_game("fairytale")
TACTIC = sorted(places.catalog().decks["tactics"])[0]


def test_the_table_is_the_map_the_inn_of_four_readers_the_decks_the_tray_and_ten_seats():
    layout = layouts.load(layouts.builtin_path("fairytale"))
    index, slot = layout.slot_of[INN]
    assert layout.tiles[index].cells == [INN] and layout.crowded() == {index: {slot: 4}}
    assert set(layout.slot_of) == GAME.board_cells() == places.MAP | set(places.DECK_CELLS)
    assert layout.seats == list(range(1, 11)) and len(layout.seat_tiles) == 2
    assert layout.dice_tile is not None
    # Every tile of cells is its own size (row 3 has six: the Inn is apart).
    sizes = sorted(t.slots for t in layout.tiles if t.variant == "cell")
    assert sizes == [1, 5, 6, 7, 7, 7, 7, 7, 7]


def test_every_card_token_and_die_of_the_box_has_a_tag_and_one_code_each():
    items = GAME.tagged_items()
    cat = places.catalog()
    for deck, n in (("locations", 49), ("events", 51), ("quests", 39), ("victory", 37),
                    ("npcs", 3), ("characters", 31)):
        assert len([i for i in items if i.startswith("fairytale:") and
                    i[len("fairytale:"):] in cat.decks[deck]]) == n, deck
    assert len([i for i in items if i[len("fairytale:"):] in cat.battle_instances]) == 46
    tokens = [i for i in items if i.startswith("fairytale-token:")]
    assert "fairytale-token:captain_hook" in tokens and "fairytale-token:the_white_rabbit" \
        in tokens and "fairytale-token:poison-1" in tokens
    assert ["die:%d:%d" % (d, f) for d in (1, 2) for f in range(1, 7)] == \
        [i for i in items if i.startswith("die:")]
    assert len(items) == len(set(items))
    # The installation's registry takes them all beside every other game's (no code shared).
    registry = tags.Registry(b"k" * 32)
    assert set(items) <= set(registry.by_code.values())


def test_the_table_shows_tokens_cards_and_dice_and_the_phone_makes_the_choices():
    table_moves = [{"type": "step", "seat": "p1", "to": [3, 2]},
                   {"type": "flip_event", "seat": "p1"},
                   {"type": "attack", "seat": "p1", "card": "heavy_1", "target": "e1"},
                   {"type": "defend", "seat": "p1", "card": "block_1"},
                   {"type": "use", "seat": "p1", "card": "fireball", "target": "p2"},
                   {"type": "use", "seat": "p1", "card": "heal_potion_3", "target": "p1"},
                   {"type": "use", "seat": "p1", "card": "magic_beans"},
                   {"type": "take_victory", "seat": "p1", "deck": "alliance"},
                   {"type": "enemy_turn", "seat": "p1"}, {"type": "flee", "seat": "p1"}]
    choices = [{"type": "end_turn", "seat": "p1"}, {"type": "defend", "seat": "p1"},
               {"type": "use", "seat": "p1", "card": "captain_hook"},
               {"type": "use", "seat": "p1", "card": TACTIC},
               {"type": "recruit", "seat": "p1"}, {"type": "search", "seat": "p1"},
               {"type": "battle", "seat": "p1", "target": "p2"}]
    assert not any(GAME.is_button_action(a) for a in table_moves)
    assert all(GAME.is_button_action(a) for a in choices)
    # A bot's move is carried out when the table shows it with the cards read and dice
    # thrown.
    assert GAME.carries_out({"type": "enemy_turn", "seat": "p1", "dice": [4]},
                            {"type": "enemy_turn", "seat": "p1"})
    assert not GAME.carries_out({"type": "step", "seat": "p1", "to": [3, 4]},
                                {"type": "step", "seat": "p1", "to": [3, 2]})


def mid_game(players=4, actions=120, seed=1):
    match = Match("fairytale", {"players": players}, seed)
    while len(match.actions) < actions and ft.status(match.state) == "ongoing":
        s = match.state
        match.apply(bots.choose("greedy", ft, s, ft.actors(s)[0], seed))
    table = FairytaleTable(match)
    lay_out(table)
    table.reconcile(0)
    return match, table


def test_the_light_shows_the_map_the_tokens_the_battles_and_the_readers():
    match = Match("fairytale", {"players": 10}, 1)
    for q in match.state.seats:              # everyone chooses: ten tokens on the Inn
        match.apply([a for a in ft.legal_actions(match.state) if a["seat"] == q][0])
    match.apply({"type": "flip_event", "seat": "p1"})     # the first turn begins
    table = FairytaleTable(match)
    lay_out(table)
    assert table.reconcile(0) is None
    s = match.state
    scenes = GAME.scenes(s, table, [])
    inn = scenes[INN]
    assert inn[3] == lights.rainbow(1500)    # a crowd: more tokens than edges
    assert all(seg[0] in ("solid", "pulse") for seg in inn[:3])
    for n in range(1, 11):
        assert (SEAT, n) in scenes
    assert scenes[EVENTS] != lights.DARK_CELL and scenes[BONUS] != lights.DARK_CELL
    # The cells the active character may reach pulse.
    reach = reachable(s)
    assert reach and all(scenes[cell][0][0] == "pulse" for cell in reach if cell != INN)
    # An ambush just sprung flashes orange on its cell.
    flash = GAME.scenes(s, table, [], [{"type": "ambushed", "cell": [3, 2]}])
    assert flash[(3, 2)][0][0] == "blink"


def test_the_terminal_speaks_words_not_ids():
    for players, actions in ((1, 60), (4, 120), (10, 40)):
        match, table = mid_game(players, actions)
        text = GAME.render(match.state, GAME.scenes(match.state, table, []), table.mismatches,
                           colour=False, table=table)
        for line in text.splitlines():
            assert not re.search(r"[a-z]_[a-z]", line), line
            assert "=" not in line and "{" not in line, line
        assert "Player 1" in text and "Day" in text
        for a in match.actions[-20:]:
            words = GAME.face.request_words(match.state, a)
            assert not re.search(r"[a-z]_[a-z]", words), words


def test_the_status_strip_shows_the_day():
    match, _table = mid_game(2, 60)
    scores, target, side = GAME.status_strip(match)
    assert scores == {"hero": match.state.day} and target == 30 and side is None


def test_a_persons_move_at_another_seat_is_applied_while_a_bots_hands_work():
    """Several seats act at once: a bot's move being carried out at one seat does not turn a
    person's move at another seat into "put it back"; another move of the bot's own seat
    still is."""
    from host.bots_at_table import BotsAtTable
    from host.session_log import SessionLog

    match, table = mid_game(2, 0)

    class Session:
        pass

    session = Session()
    session.match, session.table, session.game = match, table, GAME
    session.log = SessionLog()
    bots_ = BotsAtTable(session, {"p2": "greedy"}, 1, None, lambda: 0)
    bots_.ask({"type": "choose", "seat": "p2", "character": "red"})
    assert bots_.showed({"type": "choose", "seat": "p1", "character": "captain_hook"})
    assert bots_.request is not None
    assert not bots_.showed({"type": "choose", "seat": "p2", "character": "alice"})
    assert "but the bot asked for" in session.log.lines[-1]
