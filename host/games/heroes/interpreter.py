"""Battle Royale with hero teams (and Capture the Flag) on the table: sensor changes in,
game actions (or mismatches) out.

The table (host/games/heroes/layout.toml): the 7 x 7 grid of cells [x, y] as the engine
(shared_rules/heroes.py) has them, the dice tray, and a card reader in front of each seat
(the layout's seat tile: seat number n is the game's n-th seat, 1 red, 2 blue, 3 green,
4 yellow). What lies on it:

    a character       a tagged figure "heroes:<character id>" on its cell
    an action card    a tagged card "heroes-card:<card id>" (Bonus Cards too), laid on its
                      player's card reader to play it; never on the board
    a flag            a tagged token "heroes-flag:<team>" (Capture the Flag)
    the dice          "die:red:<face>", "die:white:<face>", "die:green:<face>": any pocket
                      reads any die (the hands put red in pocket 1, white in 2, green in 3)

Walls (and Capture the Flag's bases) are cells of the map: they stay dark. A seat's reader
is the place ("seat", n) in this module (mismatches name it, the lights key it so).

The gestures:

    roll-offs         (who picks first, who plays first, who draws a Bonus Card) each
                      player who rolls throws the green die in turn, in seat order,
                      taking it out between throws; or any seat button "roll" lets the
                      engine roll
    pick              put the figure of a free character on a free start cell of your zone
    movement roll     roll the green die (the turn's one roll, before the first move);
                      or the seat button "roll" lets the engine roll it
    move              lift your figure and put it on another cell (the engine finds the
                      way); a character that controls a flag carries it: lift the flag
                      token too and put it next to where the figure stops (the move is
                      read once both are down; a flag left where it was stays there)
    attack            tap your character's cell, then the target's cell, then roll the
                      red die and one white die for each target (one throw per white
                      die when there are several: take it out and roll again); a tap on
                      the attacker again calls it off
    play a card       lay it on your seat's card reader. An action card is played by the
                      character whose card it is; a Bonus Card by the one of your
                      characters who can play it, or, when several can, by the one whose
                      cell you tap next. Then: an area attack card rolls at once (red,
                      then the whites); a one-target attack or a heal that reaches others
                      waits for a tap on the target (the character's own cell for
                      itself); a heal of the character alone is played at once; a movement
                      card waits for the figure's move. Lift the card off once it is
                      played (until then it is a mismatch: "lift it off red's card
                      reader"); lifting it before calls the play off
    defend            while the battle waits for a defender, lay one of its cards (or a
                      Bonus Card of its player's) on the defending seat's reader (a
                      movement card: then move the figure; a heal that reaches others:
                      then tap the character it heals), or press the seat button
                      "no_defence"
    end turn          seat button "end_turn"

A card on the board, on another seat's reader, not in the catalog, already played (face
down, a Bonus Card discarded, or one lying on the reader since it was played), or laid
when its player may not play it: a Mismatch in words naming the card and where it lies,
and nothing is applied.

A defeated character's figure leaves the table in Battle Royale; in Capture the Flag the
engine picks the cell behind its base where it lies down (lit): move the figure there.
Until the table shows the game every disagreement is a Mismatch in words with its
cells ("Put the Tin Woodman back on [2, 3].") and nothing is applied. Dice already
lying in the tray when a throw starts do not count: take them out and roll.

This module is the interpreter (host/table/contract.py, TableInterpreter, with the tray's
host/table/dice_tray.py), and
`table_dice`, the seeded dice the virtual hands throw (the same dice an engine-only
game uses to know how the table game must end). It is pure: the session feeds it
observations, gestures, dice and the time, and applies the actions it returns. The
adapter is host/games/heroes/adapter.py, the virtual hands host/virtual/hands.py.
"""

import binascii

from host.table.dice_tray import DiceTrayInterpreter
from host.table.mismatch import Mismatch, foreign
from shared_rules import canon, heroes, prng

FIGURE = "heroes:"
CARD = "heroes-card:"
FLAG = "heroes-flag:"
SEAT = "seat"       # a seat's card reader is the place (SEAT, n), n its seat number
DIE_COLOURS = ("red", "white", "green")
POCKET_OF = {"red": 0, "white": 1, "green": 2}   # where the hands put each die, and lit


def cell_of(i):
    return (i % heroes.SIZE, i // heroes.SIZE)


def index_of(cell):
    return cell[1] * heroes.SIZE + cell[0]


def xy(cell):
    return "[%d, %d]" % (cell[0], cell[1])


def name_of(state, cid):
    return state.cat["characters"][cid]["name"]


def _piece_words(state, item):
    """A figure or a flag in words: "The Tin Woodman's figure", "The red flag"."""
    what = item.split(":", 1)[1]
    if item.startswith(FIGURE) and what in state.cat["characters"]:
        return "%s's figure" % name_of(state, what)
    if item.startswith(FLAG):
        return "The %s flag" % what.replace("_", " ")
    return foreign(item)


def card_of(state, card_id):
    return state.cat["cards"].get(card_id) or state.cat["bonus"].get(card_id)


def the(name):
    """A character's name in a sentence: "the Tin Woodman", "Robin Hood"."""
    return name if not name.startswith("The ") else "the " + name[4:]


def seat_name(state, n):
    """The game's seat at seat number `n` of the layout (1 the first), or None."""
    if isinstance(n, int) and 1 <= n <= len(state.seats):
        return state.seats[n - 1]
    return None


def seat_number(state, seat):
    """The layout's number of the game's seat `seat` (its card reader's)."""
    return state.seats.index(seat) + 1


def where(state, place):
    """A board cell "[2, 3]", or a seat's card reader ("red's card reader")."""
    if place[0] == SEAT:
        seat = seat_name(state, place[1])
        return "%s's card reader" % seat if seat else "the card reader of seat %d" % place[1]
    return xy(place)


def owner_of(state, card_id):
    """The character (of the catalog) whose action card `card_id` is; None for a Bonus
    Card (it belongs to the hand of the player who drew it)."""
    if card_id in state.cat["bonus"]:
        return None
    for cid in sorted(state.cat["characters"]):
        if card_id in state.cat["characters"][cid]["cards"]:
            return cid
    return None


def current_seat(state):
    """Who acts now: a roller, a defender, a Bonus Card roller, or the player whose turn it is."""
    return heroes.actor(state, None)


def occupant(state, cell):
    """The character (in the game) whose cell `cell` is, or None."""
    i = index_of(cell)
    for cid in state.roster:
        if state.heroes[cid]["cell"] == i:
            return cid
    return None


def carried_flag(state, cid):
    for team in sorted(state.flags):
        if state.flags[team]["carrier"] == cid:
            return team
    return None


def dice_wanted(state, action):
    """The dice an action takes, as (colour, who) in throw order; [] for one that rolls none.

    roll_off and roll_bonus: a green die per roller; roll_move: one green; an attack (or an
    attack card): the red die, then a white die per target in the engine's order.
    IllegalAction when the attack has no target now.
    """
    kind = action["type"]
    s = state
    if kind == "roll_off":
        return [("green", q) for q in s.rollers]
    if kind == "roll_bonus":
        return [("green", q) for q in s.bonus_rolls[0]] if s.bonus_rolls else []
    if kind == "roll_move":
        return [("green", None)]
    if kind == "attack":
        targets = heroes.attack_targets(s, action.get("attacker"), None, action.get("target"))
    elif kind == "play_card" and card_of(s, action.get("card")) is not None and \
            card_of(s, action["card"])["kind"] == "attack":
        targets = heroes.attack_targets(s, action.get("character"), action["card"],
                                        action.get("target"))
    else:
        return []
    return [("red", None)] + [("white", t) for t in targets]


def with_dice(action, wanted, values):
    """`action` with the dice read (values in the order of `wanted`) in the engine's form."""
    out = dict(action)
    kind = action["type"]
    if kind == "roll_move":
        out["die"] = values[0]
    elif kind in ("roll_off", "roll_bonus"):
        out["dice"] = dict((who, v) for (_, who), v in zip(wanted, values, strict=True))
    else:
        white = dict((who, v) for (colour, who), v in zip(wanted, values, strict=True)
                     if colour == "white")
        out["dice"] = {"red": values[0], "white": white}
    return out


def table_dice(state, action, seed, step):
    """The dice the table rolls for `action` now (virtual hands and engine-only games alike).

    Seeded from the seed, the number of actions applied so far (`step`: a tied roll-off
    leaves the state as it was) and the canonical state, as the bots are, so a resumed game
    rolls what the uninterrupted one rolled. Returns the action with its dice ("dice", or
    "die" for the movement roll); an action that rolls nothing comes back unchanged.
    """
    wanted = dice_wanted(state, action)
    if not wanted:
        return action
    if not isinstance(step, int) or step < 0:
        raise ValueError("step is the number of actions applied so far, not %r" % (step,))
    text = canon.dumps(heroes.to_dict(state))
    rng = prng.seed_state((seed * 2246822519 + step * 40503 + binascii.crc32(text.encode())
                           + 0x4E7035) & 0xFFFFFFFF)
    values = []
    for _ in wanted:
        rng, v = prng.below(rng, 6)
        values.append(v + 1)
    return with_dice(action, wanted, values)


# ---------------------------------------------------------------- the interpreter

class Throw:
    """What the dice tray waits for: the dice of `action` (read into `values`)."""

    def __init__(self, action, wanted, note=None):
        self.action = action      # the action without its dice
        self.wanted = wanted      # [(colour, who)] in throw order
        self.values = [None] * len(wanted)
        self.note = note          # said when it starts

    def missing(self):
        return [self.wanted[i][0] for i in range(len(self.wanted)) if self.values[i] is None]

    def started(self):
        return any(v is not None for v in self.values)


class HeroesTable(DiceTrayInterpreter):
    """The heroes interpreter: `observed` holds item names ("heroes:robin_hood",
    "heroes-card:longbow_attack", "heroes-flag:red")."""

    def __init__(self, match, hide_window_ms=None):
        super().__init__(match, hide_window_ms)
        self.pockets = {}          # pocket -> die item or None
        self.pocket_problems = {}  # pocket -> sentence
        self.used = set()          # pockets whose die was read (or lay there before the throw)
        self.throw = None          # the Throw under way
        self.auto = False          # the throw comes from the state (a roll), not a gesture
        self.attacker = None       # a character tapped to attack, waiting for its target
        # A card laid on a seat's reader, under way: {"place": ("seat", n), "card",
        # "character" (None: a Bonus Card waiting for the tap naming who plays it),
        # "defending"}
        self.card_play = None
        self.in_hand = None        # a character whose figure is lifted for a move
        self.spent = set()         # (place, card) lying there since before the last action

    # ------------------------------------------------------------ inputs

    def after(self, events):
        """An action was applied: gestures start afresh, the dice in the tray and the cards
        lying on the board are spent (a card is lifted off before it counts again), and the
        tray waits for the roll the game now needs, if any."""
        self.used.update(p for p in self.pockets if self.pockets.get(p))
        self.throw = None
        self.auto = False
        self.attacker = None
        self.card_play = None
        self.spent = set((place, item[len(CARD):]) for place, items in self._places()
                         for item in items if item.startswith(CARD))
        if self.state.phase != "finished":
            self._auto_throw()

    def cancel_throw(self):
        """Forget what is under way (a bot's move given up: it is asked again)."""
        self.after(())

    def observe_items(self, cell, items, problems=()):
        keep, problems = [], list(problems)
        for item in items:
            if item.startswith(FIGURE) or item.startswith(CARD) or item.startswith(FLAG):
                keep.append(item)
            elif item.startswith("die:"):
                problems.append("A die lies on the board at %s: roll dice in the tray." %
                                xy(cell))
            else:
                problems.append("%s is not a piece of Battle Royale with hero teams: take it "
                                "off %s." % (foreign(item), xy(cell)))
        self.observe(cell, keep, problems)

    def observe_seat_items(self, seat, items, problems=()):
        keep, problems = [], list(problems)
        here = where(self.state, (SEAT, seat))
        for item in items:
            if item.startswith(CARD):
                keep.append(item)
            elif item.startswith(FIGURE) or item.startswith(FLAG):
                problems.append("%s stands on the board, not on a card reader: take it off "
                                "%s." % (_piece_words(self.state, item), here))
            elif item.startswith("die:"):
                problems.append("A die lies on %s: roll dice in the tray." % here)
            else:
                problems.append("%s is not a piece of Battle Royale with hero teams: take it "
                                "off %s." % (foreign(item), here))
        self.observe_seat(seat, keep, problems)

    def _places(self):
        """(place, items) for every board cell and seat reader where something lies."""
        out = [(cell, self.observed[cell]) for cell in sorted(self.observed)]
        out += [((SEAT, n), self.seat_observed[n]) for n in sorted(self.seat_observed)]
        return out

    def progress(self):
        """A figure in hand, an attacker waiting for its target, a card being played, the
        dice the tray waits for."""
        s = self.state
        if self.in_hand is not None:
            return {"text": "%s is in hand: put it on a lit cell." % name_of(s, self.in_hand),
                    "cells": []}
        if self.attacker is not None:
            return {"text": "%s attacks: tap its target." % name_of(s, self.attacker),
                    "cells": []}
        rolling = self.throw is not None and self.throw.missing()
        if self.card_play is not None and not (rolling and not self.auto):
            card = card_of(s, self.card_play["card"])
            who = self.card_play["character"]
            if who is None:
                step = "tap the character who plays it"
            elif card is not None and card["kind"] == "move":
                step = "move %s's figure" % the(name_of(s, who))
            else:
                step = "tap its target"
            return {"text": "%s is being played%s: %s." % (
                card["name"] if card else "A card", " by %s" % name_of(s, who) if who else "",
                step), "cells": []}
        if rolling:
            return {"text": "Throw %s into the tray." % dice_words(self.throw.missing()),
                    "cells": []}
        return None

    def busy(self):
        """True while a change is under way: a figure in hand, a tap or a card waiting for
        the rest of its move, the dice of an attack being read."""
        return (self.in_hand is not None or self.attacker is not None or
                self.card_play is not None or (self.throw is not None and not self.auto))

    def expected(self):
        """What should lie on each cell now: the figures in the game and the flags."""
        s = self.state
        out = {}
        for cid in s.roster:
            i = s.heroes[cid]["cell"]
            if i >= 0:
                out.setdefault(cell_of(i), []).append(FIGURE + cid)
        for team in sorted(s.flags):
            out.setdefault(cell_of(s.flags[team]["cell"]), []).append(FLAG + team)
        for cell in out:
            out[cell].sort()
        return out

    def pockets_wanted(self):
        """The pockets lit for the dice still wanted (red 1, white 2, green 3)."""
        if self.throw is None:
            return []
        return sorted(set(POCKET_OF[c] for c in self.throw.missing()))

    # ------------------------------------------------------------ the table vs the game

    def reconcile(self, now):
        """Compare the table with the game: the action the table shows, or None; sets
        `mismatches` to what disagrees."""
        s = self.state
        self.mismatches = []
        self.in_hand = None
        for cell in sorted(self.problems):
            self.mismatches.append(Mismatch("bad_tag", [cell], " ".join(self.problems[cell])))
        for n in sorted(self.seat_problems):
            self.mismatches.append(Mismatch("bad_tag", [(SEAT, n)],
                                            " ".join(self.seat_problems[n])))
        self._check_tray()
        figures, flags, cards = {}, {}, {}
        for place, items in self._places():
            for item in items:
                kind, name = item.split(":", 1)
                into = figures if kind == "heroes" else flags if kind == "heroes-flag" \
                    else cards
                into.setdefault(name, []).append(place)
        candidates = []
        if s.phase != "finished":
            self._auto_throw()
        self._check_cards(s, cards, candidates)
        self._check_flags(s, flags, figures)
        self._check_figures(s, figures, flags, candidates)
        if self.mismatches or len(candidates) != 1:
            return None
        return candidates[0]

    def _check_tray(self):
        for pocket in sorted(self.pocket_problems):
            self.mismatches.append(Mismatch("bad_die", [], "Pocket %d: %s" % (
                pocket + 1, self.pocket_problems[pocket])))
        for pocket in sorted(p for p in self.pockets if self.pockets[p]):
            item = self.pockets[pocket]
            if die_colour(item) is None:
                self.mismatches.append(Mismatch(
                    "not_a_die", [], "Pocket %d holds %s, which is not a red, white or green "
                    "die: take it out." % (pocket + 1, item)))

    def _check_cards(self, s, cards, candidates):
        """The cards seen (card id -> places: board cells, or ("seat", n) for seat n's
        card reader): a card laid on a reader starts its play; anything else is said."""
        play = self.card_play
        if play is not None and play["place"] not in cards.get(play["card"], ()):
            self.note("%s was taken back" % card_of(s, play["card"])["name"])
            self._drop_card_play()
        self.spent = set((p, c) for p, c in self.spent if p in cards.get(c, ()))
        for card_id in sorted(cards):
            for place in cards[card_id]:
                play = self.card_play
                if play is not None and play["card"] == card_id and play["place"] == place:
                    continue
                card = card_of(s, card_id)
                here = where(s, place)
                if card is None:
                    self.mismatches.append(Mismatch(
                        "not_in_game", [place], "That card is not in this game's catalog: "
                        "take it off %s." % here))
                    continue
                if place[0] != SEAT:
                    self.mismatches.append(Mismatch(
                        "card_on_board", [place], "%s is played on its player's card reader, "
                        "not on the board: take it off %s." % (card["name"], here)))
                    continue
                if (place, card_id) in self.spent:
                    self.mismatches.append(Mismatch(
                        "card_played", [place], "%s has been played: lift it off %s." % (
                            card["name"], here)))
                    continue
                if play is not None:
                    self.mismatches.append(Mismatch(
                        "one_card", [place], "%s is being played: take %s off %s." % (
                            card_of(s, play["card"])["name"], card["name"], here)))
                    continue
                problem = self._lay_card(s, place, card_id, card, candidates)
                if problem is not None:
                    self.mismatches.append(Mismatch(problem[0], [place], problem[1]))

    def _lay_card(self, s, place, card_id, card, candidates):
        """A card just laid on a seat's card reader (`place` ("seat", n)): start its play
        (or add the action to `candidates` at once). Returns (code, sentence) of a mismatch
        when it cannot be played from there now."""
        seat = seat_name(s, place[1])
        off = "take %s off %s." % (card["name"], where(s, place))
        if seat is None:
            return ("no_such_seat", "Nobody plays at seat %d in this game: %s" % (
                place[1], off))
        if s.phase != "play" or s.status != "ongoing":
            return ("card_not_playable", "Cards are played once the game is under way: " + off)
        owner = owner_of(s, card_id)
        if owner is None and card_id not in s.cat["bonus"]:
            return ("not_in_game", "%s is nobody's card in this game: %s" % (card["name"], off))
        if owner is not None:
            if owner not in s.heroes:
                return ("not_in_game", "%s is %s's card, and %s is not in this game: %s" % (
                    card["name"], the(name_of(s, owner)), the(name_of(s, owner)), off))
            owner_seat = s.heroes[owner]["seat"]
            if owner_seat != seat:
                return ("wrong_reader", "%s is %s's card (%s): it is played from %s's card "
                        "reader, not %s's; %s" % (card["name"], the(name_of(s, owner)),
                                                  owner_seat, owner_seat, seat, off))
        else:
            holders = [q for q in s.seats if card_id in s.hands[q]]
            if seat not in holders:
                if holders:
                    return ("wrong_reader", "%s is a Bonus Card of %s's hand: it is played "
                            "from %s's card reader; %s" % (card["name"], holders[0],
                                                           holders[0], off))
                return ("not_in_hand", "%s is not a Bonus Card in %s's hand (one is played "
                        "once, then discarded): %s" % (card["name"], seat, off))
        if s.bonus_rolls:
            return ("card_not_playable", "Roll for the Bonus Card first: " + off)
        if s.battle is not None:
            return self._lay_defence(s, place, seat, owner, card_id, card, candidates, off)
        if seat != heroes.current(s):
            return ("card_not_playable", "It is %s's turn: %s" % (heroes.current(s), off))
        if owner is not None:
            why = self._begin(s, place, card_id, card, owner, candidates)
            return None if why is None else ("card_not_playable", "%s Then %s" % (why, off))
        # A Bonus Card: played by whichever of the seat's characters may play it.
        who = [c for c in s.roster if s.heroes[c]["seat"] == seat and self._options(
            s, c, card_id)]
        if not who:
            return ("card_not_playable", "None of %s's characters can play %s now: %s" % (
                seat, card["name"], off))
        if len(who) == 1:
            why = self._begin(s, place, card_id, card, who[0], candidates)
            return None if why is None else ("card_not_playable", "%s Then %s" % (why, off))
        self.attacker = None
        self.card_play = {"place": place, "card": card_id, "character": None,
                          "defending": False}
        self.note("%s: tap the cell of the character of %s's who plays it (%s)." % (
            card["name"], seat.capitalize(), " or ".join(the(name_of(s, c)) for c in who)))
        return None

    def _options(self, s, cid, card_id):
        """The legal plays of `card_id` by `cid` now (without dice, paths, moves' ends)."""
        return [a for a in heroes.legal_actions(s) if a["type"] == "play_card"
                and a["character"] == cid and a["card"] == card_id]

    def _lay_defence(self, s, place, seat, owner, card_id, card, candidates, off):
        """A card laid on a reader while the battle waits for a defence."""
        defender = s.battle["targets"][s.battle["next"]]
        dseat = s.heroes[defender]["seat"]
        if seat != dseat:
            return ("card_not_playable", "The battle waits for %s's defence (a card on %s's "
                    "card reader, or no_defence): %s" % (the(name_of(s, defender)), dseat, off))
        if owner is not None and owner != defender:
            return ("card_not_playable", "%s defends now, and %s is %s's card: %s" % (
                name_of(s, defender), card["name"], the(name_of(s, owner)), off))
        cid = defender
        base = {"type": "defend", "card": card_id}
        if card["kind"] == "heal" and card["range"] == 0:
            base["target"] = cid
        if card["kind"] == "defend" or "target" in base:
            problem = heroes.validate(s, base)
            if problem is not None:
                return ("card_not_playable", "%s Then %s" % (problem.message, off))
            candidates.append(base)
            return None
        if not [a for a in heroes.legal_actions(s) if a["type"] == "defend"
                and a["card"] == card_id]:
            problem = heroes.validate(s, base)
            why = problem.message if problem is not None and card["kind"] != "move" else \
                "%s cannot be played for %s now." % (card["name"], the(name_of(s, cid)))
            return ("card_not_playable", "%s Then %s" % (why, off))
        self.card_play = {"place": place, "card": card_id, "character": cid,
                          "defending": True}
        self.note("%s: %s" % (card["name"], "move %s's figure away" % the(name_of(s, cid))
                              if card["kind"] == "move" else "tap the character to heal"))
        return None

    def _begin(self, s, place, card_id, card, cid, candidates):
        """Start the play of `card_id` by `cid` on its turn: an area attack rolls at once,
        a heal of the player alone is the action (added to `candidates`), any other card
        waits for its target's tap or its figure's move. Returns why it cannot, or None."""
        base = {"type": "play_card", "character": cid, "card": card_id}
        if not self._options(s, cid, card_id):
            problem = heroes.validate(s, base)
            return problem.message if problem is not None else \
                "%s has nobody to play it on now." % card["name"]
        self.attacker = None
        if card["kind"] == "attack" and card["area"] != "one":
            self._start_throw(base, "%s: roll the red die and the white ones" % card["name"])
            self.card_play = {"place": place, "card": card_id, "character": cid,
                              "defending": False}
            return None
        if card["kind"] == "heal" and card["range"] == 0:
            candidates.append(dict(base, target=cid))
            return None
        self.card_play = {"place": place, "card": card_id, "character": cid,
                          "defending": False}
        self.note("%s: %s" % (card["name"], "move %s's figure" % the(name_of(s, cid))
                              if card["kind"] == "move" else "tap the target's cell"))
        return None

    def _drop_card_play(self):
        self.card_play = None
        if self.throw is not None and not self.auto and self.throw.action["type"] == \
                "play_card":
            self.throw = None

    def _check_flags(self, s, flags, figures):
        for team in sorted(flags):
            if team not in s.flags:
                for cell in flags[team]:
                    self.mismatches.append(Mismatch(
                        "not_in_game", [cell], "There is no %s flag in this game: take it off "
                        "%s." % (team, xy(cell))))
        for team in sorted(s.flags):
            f = s.flags[team]
            home = cell_of(f["cell"])
            seen = flags.get(team, [])
            if seen == [home]:
                continue
            carrier = f["carrier"]
            if carrier is not None and self._may_move(s, carrier) and len(seen) <= 1 and \
                    figures.get(carrier) != [cell_of(s.heroes[carrier]["cell"])]:
                continue  # carried along with its figure: read with the move
            if len(seen) > 1:
                self.mismatches.append(Mismatch(
                    "two_flags", seen, "The %s flag is seen on %s at once: one is a copy; take "
                    "it off." % (team, " and ".join(xy(c) for c in seen))))
            elif not seen:
                self.mismatches.append(Mismatch(
                    "lifted", [home], "Put the %s flag back on %s." % (team, xy(home))))
            else:
                self.mismatches.append(Mismatch(
                    "flag_moved", [home, seen[0]], "The %s flag belongs on %s, not %s." % (
                        team, xy(home), xy(seen[0]))))

    def _may_move(self, s, cid):
        """May the table see `cid`'s figure move now (its player's move, or a defence)?"""
        if s.phase != "play" or s.status != "ongoing" or s.bonus_rolls:
            return False
        h = s.heroes[cid]
        if h["state"] != "standing":
            return False
        play = self.card_play
        if s.battle is not None:
            return play is not None and play["defending"] and play["character"] == cid
        return h["seat"] == heroes.current(s) and not h["stopped"]

    def _check_figures(self, s, figures, flags, candidates):
        for cid in sorted(figures):
            if len(figures[cid]) > 1:
                self.mismatches.append(Mismatch(
                    "two_figures", figures[cid], "%s is seen on %s at once: one is a copy; "
                    "take it off." % (name_of(s, cid) if cid in s.cat["characters"] else cid,
                                      " and ".join(xy(c) for c in figures[cid]))))
        for cid in sorted(set(figures) | set(s.heroes)):
            cells = figures.get(cid, [])
            if len(cells) > 1:
                continue
            seen = cells[0] if cells else None
            if cid not in s.cat["characters"]:
                self.mismatches.append(Mismatch(
                    "not_in_game", [seen], "That figure is not in this game's catalog: take it "
                    "off %s." % xy(seen)))
                continue
            name = name_of(s, cid)
            if cid not in s.heroes:
                self._new_figure(s, cid, seen, candidates)
                continue
            h = s.heroes[cid]
            home = cell_of(h["cell"]) if h["cell"] >= 0 else None
            if seen == home:
                continue
            if home is None:
                self.mismatches.append(Mismatch(
                    "out_of_game", [seen], "%s is out of the game: take the figure off %s." % (
                        name, xy(seen))))
                continue
            if h["state"] in ("down", "resting"):
                self.mismatches.append(Mismatch(
                    "laid_down", [home] + ([seen] if seen else []), "%s was defeated: lay the "
                    "figure on its side on %s, behind its base." % (name, xy(home))))
                continue
            if not self._may_move(s, cid):
                if seen is None:
                    self.mismatches.append(Mismatch(
                        "lifted", [home], "Put %s back on %s." % (the(name), xy(home))))
                else:
                    self.mismatches.append(Mismatch(
                        "figure_moved", [home, seen], "%s belongs on %s, not %s." % (
                            name, xy(home), xy(seen))))
                continue
            if seen is None:
                self.in_hand = cid
                continue
            self._moved(s, cid, home, seen, flags, candidates)

    def _new_figure(self, s, cid, seen, candidates):
        name = name_of(s, cid)
        code = "not_in_game"
        if s.phase == "pick":
            action = {"type": "pick", "character": cid, "cell": list(seen)}
            problem = heroes.validate(s, action)
            if problem is None:
                candidates.append(action)
                return
            code, why = problem.code, problem.message
        elif s.phase == "pick_roll":
            code, why = "not_yet", "Roll the green die for who picks first."
        else:
            why = "%s is not in this game." % name
        self.mismatches.append(Mismatch(code, [seen], "%s Take %s off %s." % (
            why, the(name), xy(seen))))

    def _moved(self, s, cid, home, seen, flags, candidates):
        """`cid`'s figure now stands on `seen`: the move (or the card's move) it shows."""
        play = self.card_play
        if play is not None and play["character"] == cid and \
                card_of(s, play["card"])["kind"] == "move":
            if play["defending"]:
                action = {"type": "defend", "card": play["card"]}
            else:
                action = {"type": "play_card", "character": cid, "card": play["card"]}
        else:
            action = {"type": "move", "character": cid}
        action["to"] = list(seen)
        back = "Put %s back on %s." % (the(name_of(s, cid)), xy(home))
        team = carried_flag(s, cid)
        if team is not None and action["type"] != "defend":
            f = cell_of(s.flags[team]["cell"])
            flag_seen = flags.get(team, [])
            if not flag_seen:
                self.in_hand = cid   # the flag is in hand: put it down next to the figure
                return
            if flag_seen != [f]:
                action["flag_to"] = list(flag_seen[0])
                back = "Put %s back on %s and the %s flag on %s." % (
                    the(name_of(s, cid)), xy(home), team, xy(f))
        problem = heroes.validate(s, action)
        if problem is not None:
            self.mismatches.append(Mismatch(problem.code, [home, seen], "%s %s" % (
                problem.message, back)))
            return
        candidates.append(action)

    # ------------------------------------------------------------ the dice tray

    def _auto_throw(self):
        """The roll the state waits for (a roll-off, a Bonus Card roll, the movement die),
        when no gesture has started a throw."""
        s = self.state
        if self.throw is not None and not self.auto:
            return
        action = None
        if s.phase in ("pick_roll", "turn_roll"):
            action = {"type": "roll_off"}
        elif s.phase == "play" and s.battle is None:
            if s.bonus_rolls:
                action = {"type": "roll_bonus"}
            elif s.roll is None and {"type": "roll_move"} in heroes.legal_actions(s):
                action = {"type": "roll_move"}
        if action is None:
            self.throw, self.auto = None, False
            return
        if self.throw is not None and self.throw.action == action:
            return
        # The dice lying in the tray when the game came to this roll were spent by after().
        self.throw = Throw(action, dice_wanted(s, action))
        self.auto = True

    def _start_throw(self, action, note=None):
        self.throw = Throw(action, dice_wanted(self.state, action), note)
        self.auto = False
        # Dice lying in the tray before the throw do not count: take them out and roll.
        self.used.update(p for p in self.pockets if self.pockets.get(p))
        if note:
            self.note(note)

    def _read(self, now):
        t = self.throw
        read = []
        for pocket in sorted(p for p in self.pockets if self.pockets[p]):
            if pocket in self.used:
                continue
            colour = die_colour(self.pockets[pocket])
            self.used.add(pocket)
            free = [i for i in range(len(t.wanted)) if t.values[i] is None and
                    t.wanted[i][0] == colour]
            if not free:
                self.note("The %s die in pocket %d is not wanted now: %s." % (
                    colour, pocket + 1, "throw %s" % dice_words(t.missing())
                    if t.missing() else "take it out"))
                continue
            t.values[free[0]] = int(self.pockets[pocket].split(":")[2])
            read.append("%s %d" % (colour, t.values[free[0]]))
            self.progress_at = now
        if t.missing():
            if read:
                # Said once for each die read, not at every look at the tray.
                self.note("The tray reads %s; still to throw: %s." % (
                    " and ".join(read), dice_words(t.missing())))
            return None
        return with_dice(t.action, t.wanted, t.values)

    # ------------------------------------------------------------ pads and buttons

    def gesture(self, cell, kind, now):
        """A tap on a cell's pad: an attacker, then its target (or a card's target)."""
        s = self.state
        if self.mismatches:
            return None
        if kind != "tap":
            return self.refuse([cell], "A tap chooses an attacker and its target; %s does "
                               "nothing in this game." % ("a double tap" if kind == "double"
                                                          else "a hold"))
        if s.phase != "play" or s.status != "ongoing":
            return self.refuse([cell], "The pads start working once the game is under way.")
        cid = occupant(s, cell)
        play = self.card_play
        if play is not None and play["defending"] and s.battle is not None:
            return self._card_target(s, play, cell, cid, now)
        if s.battle is not None or s.bonus_rolls:
            return self.refuse([cell], "Finish the battle first: %s." % (
                "the defender plays a card or chooses No defence" if s.battle is not None
                else "roll the green die for the Bonus Card"))
        if self.throw is not None and not self.auto:
            return self.refuse([cell], "Roll the dice first: %s." % ", ".join(
                self.throw.missing()))
        if play is not None and play["character"] is None:
            return self._card_player(s, play, cell, cid, now)
        if play is not None:
            return self._card_target(s, play, cell, cid, now)
        seat = heroes.current(s)
        if self.attacker is None:
            if cid is None or s.heroes[cid]["seat"] != seat or s.heroes[cid]["state"] != \
                    "standing":
                return self.refuse([cell], "Tap one of %s's standing characters to attack "
                                   "with it." % seat)
            self.attacker = cid
            self.progress_at = now
            self.note("%s attacks: tap the target's cell" % name_of(s, cid))
            return None
        if cid == self.attacker:
            self.note("%s's attack called off" % name_of(s, cid))
            self.attacker = None
            return None
        if cid is not None and s.heroes[cid]["seat"] == seat:
            self.attacker = cid
            self.note("%s attacks instead: tap the target's cell" % name_of(s, cid))
            return None
        if cid is None:
            return self.refuse([cell], "Nobody stands on %s to attack." % xy(cell))
        action = {"type": "attack", "attacker": self.attacker, "target": cid}
        problem = heroes.validate(s, action)
        if problem is not None:
            return self.refuse([cell, cell_of(s.heroes[self.attacker]["cell"])],
                               problem.message)
        self.attacker = None
        self.progress_at = now
        self._start_throw(action, "%s attacks %s: roll the red die and the white" % (
            name_of(s, action["attacker"]), the(name_of(s, cid))))
        return None

    def _card_player(self, s, play, cell, cid, now):
        """A tap naming which of the seat's characters plays the Bonus Card laid."""
        card = card_of(s, play["card"])
        seat = seat_name(s, play["place"][1])
        if cid is None or s.heroes[cid]["seat"] != seat or \
                s.heroes[cid]["state"] != "standing":
            return self.refuse([cell], "Tap the cell of one of %s's characters to play %s "
                               "(or lift the card off %s)." % (seat, card["name"], where(
                                   s, play["place"])))
        candidates = []
        why = self._begin(s, play["place"], play["card"], card, cid, candidates)
        if why is not None:
            return self.refuse([cell], why)
        self.progress_at = now
        return candidates[0] if candidates else None

    def _card_target(self, s, play, cell, cid, now):
        card = card_of(s, play["card"])
        if card["kind"] == "move":
            return self.refuse([cell], "%s moves the figure: lift it and put it down." %
                               card["name"])
        if self.throw is not None and not self.auto:
            return None  # already rolling
        if cid is None:
            return self.refuse([cell], "Nobody stands on %s." % xy(cell))
        if play["defending"]:
            action = {"type": "defend", "card": play["card"], "target": cid}
        else:
            action = {"type": "play_card", "character": play["character"],
                      "card": play["card"], "target": cid}
        problem = heroes.validate(s, action)
        if problem is not None:
            return self.refuse([cell], problem.message)
        self.progress_at = now
        if card["kind"] == "heal":
            return action
        self._start_throw(action, "%s on %s: roll the red die and the white" % (
            card["name"], the(name_of(s, cid))))
        return None

    def button(self, seat, name):
        """A seat button: "roll" (the engine rolls what the tray waits for), "end_turn",
        "no_defence"."""
        s = self.state
        if s.phase == "finished":
            return None
        if name == "roll":
            t = self.throw
            if t is not None and self.auto and not t.started():
                return dict(t.action)   # the engine rolls for everybody who must
            return self.refuse([], "Nothing waits for the engine's roll now.")
        if self.mismatches:
            return None
        if name == "no_defence":
            if s.battle is None or seat != current_seat(s):
                return self.refuse([], "No defence answers an attack on one of your "
                                   "characters.")
            return {"type": "no_defence"}
        if name == "end_turn":
            if s.phase != "play" or s.battle is not None or s.bonus_rolls or \
                    seat != heroes.current(s):
                return self.refuse([], "%s cannot end a turn now." % seat)
            return {"type": "end_turn"}
        return None


def dice_words(colours):
    """Dice by colour in words: "the red die and 2 white dice"."""
    parts = []
    for colour in DIE_COLOURS:
        n = list(colours).count(colour)
        if n == 1:
            parts.append("the %s die" % colour)
        elif n > 1:
            parts.append("%d %s dice" % (n, colour))
    return " and ".join(parts)


def die_colour(item):
    """The colour of a die item "die:<colour>:<face>", or None for anything else."""
    parts = item.split(":")
    if len(parts) == 3 and parts[0] == "die" and parts[1] in DIE_COLOURS:
        return parts[1]
    return None
