"""Every move the bots make in whole heroes games, shown to the interpreter as a person (or
the virtual hands) shows it, is read back as that very move, dice and all.

Pure and quick: the observations, taps, dice and buttons are fed by hand, following what
host/virtual/hands.py (HeroesHands) does on the virtual table; after each action the table
is tidied to what the interpreter expects (played cards lifted off the seats' readers,
defeated figures moved).
"""

import pytest

from host.games.heroes.adapter import HeroesGame
from host.games.heroes.interpreter import (CARD, FIGURE, FLAG, POCKET_OF, HeroesTable, card_of,
                                     carried_flag, cell_of, dice_wanted, owner_of,
                                     seat_number, table_dice)
from host.games.heroes.hands import dice_value
from shared_rules import bots, heroes
from shared_rules.engine import Match


class PaperHands:
    """The virtual hands' moves as direct observations; `shown` collects the table's actions."""

    def __init__(self, table):
        self.table = table
        self.shown = []

    def _said(self, action):
        if action is not None:
            self.shown.append(action)

    def put(self, cell, items):
        self.table.observe_items(cell, sorted(items))
        self._said(self.table.reconcile(0))

    def place(self, cell, item):
        self.put(cell, self.table.observed.get(cell, []) + [item])

    def lift(self, cell, item):
        self.put(cell, [i for i in self.table.observed.get(cell, []) if i != item])

    def lay(self, seat, item):
        """A card laid on the card reader of seat number `seat`."""
        self.table.observe_seat_items(seat, self.table.seat_observed.get(seat, []) + [item])
        self._said(self.table.reconcile(0))

    def tap(self, cell):
        self._said(self.table.gesture(cell, "tap", 0))
        assert self.table.take_said()[1] == [], "a tap was refused"

    def press(self, seat, name):
        self._said(self.table.button(seat, name))

    def throw(self, wanted, values):
        for (colour, _who), v in zip(wanted, values, strict=True):
            pocket = POCKET_OF[colour]
            if self.table.pockets.get(pocket):
                self._said(self.table.dice(pocket, None, None, 0))
            self._said(self.table.dice(pocket, "die:%s:%d" % (colour, v), None, 0))

    def carry(self, s, cid, here, action, carried):
        self.lift(here, FIGURE + cid)
        if action.get("flag_to") is not None:
            self.lift(cell_of(s.flags[carried]["cell"]), FLAG + carried)
        self.place(tuple(action["to"]), FIGURE + cid)
        if action.get("flag_to") is not None:
            self.place(tuple(action["flag_to"]), FLAG + carried)

    def perform(self, s, action, seat, seed, step):
        kind = action["type"]
        wanted = dice_wanted(s, action)
        rolled = table_dice(s, action, seed, step)
        values = [dice_value(rolled, kind, colour, who) for colour, who in wanted]

        def home(cid):
            return cell_of(s.heroes[cid]["cell"])
        if kind in ("end_turn", "no_defence"):
            self.press(seat, kind)
        elif kind in ("roll_off", "roll_bonus", "roll_move"):
            self.throw(wanted, values)
        elif kind == "pick":
            self.place(tuple(action["cell"]), FIGURE + action["character"])
        elif kind == "move":
            cid = action["character"]
            self.carry(s, cid, home(cid), action, carried_flag(s, cid))
        elif kind == "attack":
            self.tap(home(action["attacker"]))
            self.tap(home(action["target"]))
            self.throw(wanted, values)
        else:
            cid = action["character"] if kind == "play_card" else \
                s.battle["targets"][s.battle["next"]]
            card = card_of(s, action["card"])
            self.lay(seat_number(s, s.heroes[cid]["seat"]), CARD + action["card"])
            play = self.table.card_play
            if kind == "play_card" and owner_of(s, action["card"]) is None and \
                    play is not None and play["character"] is None:
                self.tap(home(cid))     # the Bonus Card's player, when several could be
            if card["kind"] == "move":
                self.carry(s, cid, home(cid), action, carried_flag(s, cid)
                           if kind == "play_card" else None)
            elif card["kind"] == "attack":
                if card["area"] == "one":
                    self.tap(home(action["target"]))
                self.throw(wanted, values)
            elif card["kind"] == "heal" and card["range"] > 0:
                self.tap(home(action["target"]))
        return rolled

    def tidy(self):
        for seat in sorted(self.table.seat_observed):     # played cards lifted off
            self.table.observe_seat_items(seat, [])
        want = self.table.expected()
        for cell in sorted(set(self.table.observed) | set(want)):
            if self.table.observed.get(cell, []) != want.get(cell, []):
                self.table.observe_items(cell, want.get(cell, []))
        self.table.reconcile(0)


def play_through_the_table(options, seed, setup=None, limit=1000):
    match = Match("heroes", options, seed, setup)
    table = HeroesTable(match)
    hands = PaperHands(table)
    hands.tidy()
    game = HeroesGame()
    while heroes.status(match.state) == "ongoing" and len(match.actions) < limit:
        s = match.state
        seat = game.actors(s)[0]
        action = bots.choose("greedy", match.engine, s, seat, seed)
        hands.shown = []
        rolled = hands.perform(s, action, seat, seed, len(match.actions))
        assert table.mismatches == [], (action, table.mismatches)
        assert hands.shown == [rolled], (action, hands.shown)
        assert game.carries_out(hands.shown[0], action)
        table.after(match.apply(rolled))
        hands.tidy()
        assert table.mismatches == [] and not table.busy(), (action, table.mismatches)
    return match


@pytest.mark.parametrize("seed", range(10))
def test_every_bot_move_of_a_capture_the_flag_game_reads_back_as_itself(seed):
    match = play_through_the_table({"mode": "ctf"}, seed)
    assert match.state.status == "finished"


@pytest.mark.parametrize("seed", range(2))
def test_every_bot_move_of_a_battle_royale_game_reads_back_as_itself(seed):
    match = play_through_the_table({"mode": "royale"}, seed)
    assert match.state.status == "finished"
    kinds = set(a["type"] for a in match.actions)
    assert {"roll_off", "pick", "roll_move", "move", "attack", "play_card", "defend",
            "no_defence", "roll_bonus", "end_turn"} <= kinds
    # Bonus Cards drawn after a death are laid on the seat's reader like its own cards.
    assert any(a["type"] in ("play_card", "defend") and a["card"] in match.state.cat["bonus"]
               for a in match.actions)


def test_every_bot_move_of_a_three_player_battle_royale_reads_back_as_itself():
    match = play_through_the_table({"mode": "royale", "players": 3}, 2)
    assert match.state.status == "finished" and match.state.seats == ["red", "blue", "green"]
