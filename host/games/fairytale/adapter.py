"""Fairytale Games: The Battle Royale on the table: the adapter (host/table/contract.py,
TableGame).

It declares the table (the 7 x 7 map, the deck readers beside it, a card reader for each of up
to ten seats, the dice tray: host/games/fairytale/layout.toml and places.py), the tags the
game's cards and tokens carry, lights the map (scenes.py), draws it in the terminal
(terminal.py), lets the engine's greedy bot (shared_rules/bots.py with fairytale.evaluate and
imagine) fill seats, says which moves are choices made on a seat's phone and which the table
shows (a token, a card, the dice), and gives the virtual hands (hands.py). The interpreter is
interpreter.py; its web face (the words of the log, the bots' requests, the seats' pages)
web.py.

Options on the table: players 1 to 10 (`--players`), the modes of the engine (`--mode
standard | adventurer | tournament`; tournament play on this table seats ten, one card reader
each).
"""

from host.games.fairytale import places
from host.games.fairytale.chance import without_chance
from host.games.fairytale.hands import FairytaleHands
from host.games.fairytale.interpreter import FairytaleTable
from host.games.fairytale.scenes import bot_cells, map_scenes
from host.games.fairytale.terminal import render
from host.games.fairytale.web import FairytaleFace
from host.table.contract import TableGame
from shared_rules.fairytale import cards


class FairytaleGame(TableGame):
    """What the session needs to play Fairytale Games: The Battle Royale on the table."""

    name = "fairytale"
    options = {}
    board_words = ("the Fairytale Games table (the 7 x 7 map [0, 0] to [6, 6] and the deck "
                   "readers [7, 2] to [7, 6] beside it)")
    dice_tray = True
    seat_readers = 10
    virtual_heap = "64k"
    virtual_tags_per_reader = 4
    players_from_bots = True    # `run --headless --bots N` plays N players
    buttons = (("roll", "Roll for the enemy"), ("flee", "Flee the battle"),
               ("end_attack", "End the attack"), ("end_turn", "End the turn"),
               ("no_defence", "No defence"), ("search", "Search here"))
    interpreter = FairytaleTable
    face_class = FairytaleFace

    def board_cells(self):
        return frozenset(places.MAP | set(places.DECK_CELLS))

    def tagged_items(self):
        """Every card of the box by its id (location, event, bonus, character, NPC, quest,
        victory and battle cards, each battle card by its instance), a token for each
        character and NPC, the props (poison, wolf and potion tokens) and the two dice."""
        cat = places.catalog()
        ids = set()
        for deck in ("locations", "events", "bonus", "characters", "npcs", "quests",
                     "victory"):
            ids.update(cat.decks[deck])
        ids.update(cat.battle_instances)
        out = [places.CARD + cid for cid in sorted(ids)]
        out += [places.TOKEN + cid for cid in sorted(set(cat.decks["characters"]) |
                                                      set(cat.decks["npcs"]))]
        out += [places.TOKEN + prop for prop in places.PROPS]
        out += ["%s%d" % (die, face) for die in places.DIE_ITEMS for face in range(1, 7)]
        return out

    # ------------------------------------------------------------ light and views

    def scenes(self, state, table, cells, events=(), bot_request=None):
        chased = bot_cells(state, table, bot_request) if bot_request is not None else ()
        playing = [n for n in table.laid if n not in table.tapped]
        return map_scenes(state, table, events, chased, playing)

    def render(self, state, scene_map, mismatches, colour=True, table=None):
        return render(self.face, state, scene_map, mismatches, colour, table)

    def action_cells(self, state, action):
        return bot_cells(state, None, action)

    def turns(self, match):
        """Days begun."""
        return match.state.day

    def status_strip(self, match):
        """The day on the Pi's strip: days gone, toward the thirty the events last (the
        adventurers' days, in adventurer mode)."""
        s = match.state
        last = s.options.get("max_days") or cards.EVENTS_PER_GAME
        return {"hero": s.day}, last, None

    # ------------------------------------------------------------ turns and bots

    def is_button_action(self, action):
        """A choice made on the seat's phone (or by taps on its reader): everything the
        table does not show with a token, a card or the dice."""
        return not places.is_table_action(action)

    def carries_out(self, table_action, request):
        """The table's action is the bot's move: the same, but for the cards it read and
        the dice it threw."""
        return without_chance(table_action) == without_chance(request)

    def hands(self, vtable, layout, registry):
        return FairytaleHands(vtable, layout, registry)
