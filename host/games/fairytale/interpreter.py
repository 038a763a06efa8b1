"""Fairytale Games on the table: sensor changes in, game actions (or mismatches) out.

What the table shows (host/games/fairytale/places.py names the places and pieces):

    a token lifted and put on a neighbouring cell     step (its player's Quest Mode turn; a
                                                      separated character's token: its step)
    the top location card laid face up on the cell    the discovery: the step onto that
    stepped onto (before or after the token)          unexplored cell, with the card read
    the day's event card laid on the event reader     the Sundial's flip_event (the old one
                                                      lifted off)
    a quest card laid on its pile's reader            open_quest (at the Dragon Inn)
    cards laid on a seat's card reader                that seat's play: an attack card and
                                                      its modifiers, a signature move's cards
                                                      together, a heal, cure, tactic or escape
                                                      card, a defence card, an action card or
                                                      a disposable item used, an item
                                                      equipped, a quest initiated, a victory
                                                      card taken, a character chosen (at the
                                                      start, or to continue after a death)
    the dice in the tray                              the dice of the play or throw waiting
                                                      for them (lit pockets)
    seat button "roll" / "flee" (or the reader's      the enemy's turn, a flight: then throw
    tap on that choice)                               the dice

A play is read when its cards lie still for `hide_window_ms`, at once when its seat taps its
reader, and at once when it is the move a bot asked for. When the cards make several plays
(an attack at one of two enemies), the first is read unless the seat holds its reader to
move to the next (each hold names it) and taps to play it. With nothing laid on its reader, a
seat's hold walks through the choices it has now (those no card shows: end the attack, end the
turn, search, recruit or ignore, ...) and a tap makes the one named; the seat's phone makes
the same choices with buttons (the web table, through `TableGame.is_button_action`).

Several seats act at once (two battles and a map turn): each seat's reader is read for that
seat alone, a card is that seat's only if its hand holds it, and the tray serves one throw at a
time, the seat that started it. Every disagreement is a Mismatch naming its cells in words:
another game's piece, a card on another seat's reader, a location card laid where nobody
steps, a token put down two cells away, what the engine changed on the map by itself (an NPC
walked, a hunter appeared, a token went to the Dragon Inn) until the table shows it. Nothing is
applied while one remains.

This module is the interpreter (host/table/contract.py, TableInterpreter); it is pure: the
session feeds it observations, gestures, dice and the time.
"""

from host.games.fairytale import places
from host.games.fairytale.chance import more_dice, without_chance
from host.games.fairytale.places import (BONUS, CARD, DECK_CELLS, EVENTS, MAP, PILE_CELL,
                                         PROP_ITEMS, SEAT, TOKEN, card_id, item_words,
                                         place_words, xy)
from host.table.dice_tray import DiceTrayInterpreter
from host.table.mismatch import Mismatch, foreign
from host.web.face import and_list
from shared_rules import fairytale as ft
from shared_rules.fairytale import core, world

# What a seat's choices are called, in words (the terminal, the taps, the log).
CHOICE_WORDS = {
    "end_turn": "end the turn", "end_attack": "end the attack", "search": "search here",
    "truce": "call a truce", "super": "unleash the super move", "flee": "flee the battle",
    "enemy_turn": "roll for the enemy's turn", "defend": "take the hit without a defence",
    "recruit": "recruit the character", "ignore": "ignore the character",
    "ambush": "ambush the character", "keep": "keep the bonus card",
    "rummage": "rummage for another", "keep_on_top": "keep it on top",
    "to_bottom": "put it at the bottom", "accept_alliance": "accept the Ally Party",
    "decline_alliance": "decline the Ally Party", "dissolve": "leave the Ally Party",
    "pay_escape": "pay the escape", "stay": "stay in the battle", "reroll": "roll again",
    "accept_roll": "keep the roll", "accept_split": "accept the split",
    "cause_conflict": "cause a Conflict", "face_conflict": "face the Conflict",
    "ignore_conflict": "ignore the Conflict", "ransom": "pay the ransom",
    "battle": "start a battle", "join": "join the battle", "assist": "assist the battle",
    "interact": "meet the NPC", "offer_alliance": "offer an Ally Party",
    "switch": "switch the leading character", "burn": "burn reputation",
    "unequip": "unequip an item", "fulfil": "fulfil a quest", "challenge": "challenge a boss",
    "use": "use an ability", "separate": "separate a character",
    "reunite": "reunite with a character", "give": "give an item",
    "sacrifice": "sacrifice an ally", "distraction": "make a distraction",
    "mind_shift": "mind shift", "hostage": "take a hostage", "counter_bid": "bid",
    "propose_split": "propose a split",
}
# The order a seat's choices are offered in (a tap makes the first): going on first.
CHOICE_ORDER = ("enemy_turn", "defend", "end_attack", "end_turn", "recruit", "ignore",
                "ambush", "keep", "rummage", "keep_on_top", "to_bottom", "accept_alliance",
                "decline_alliance", "accept_split", "propose_split", "face_conflict",
                "ignore_conflict", "pay_escape", "stay", "accept_roll", "reroll", "search",
                "flee", "truce", "super")


def play_words(state, action):
    """A play of cards laid on a reader (or a throw) in words, naming its cards (laid face
    up, they are the table's to see): "attack Player 2 with Heavy Attack and Venom"."""
    s = state
    kind = action["type"]
    names = places.names_of(s, places.reader_cards(s, action) or [])
    if kind == "attack":
        words = "attack with %s" % names
    elif kind == "signature":
        b, f = places.fighter(s, action["seat"])
        sg = core.char(s, f["character"])["signatures"] if f is not None and "character" in f \
            else []
        k = action.get("move")
        words = "use %s" % (sg[k]["name"] if core.is_int(k) and 0 <= k < len(sg) else
                            "a signature move")
    elif kind == "play":
        words = "play %s" % names
    elif kind == "defend":
        words = "defend with %s" % names if names else CHOICE_WORDS["defend"]
    elif kind == "use":
        words = "use %s" % names
    elif kind == "equip":
        words = "equip %s" % names
    elif kind == "start_quest":
        words = "begin the quest %s" % names
    elif kind == "choose":
        words = "choose %s" % names
    elif kind == "continue":
        words = "continue as %s" % names
    elif kind == "take_victory":
        words = "take the %s card %s" % (action.get("deck"), names) if names else \
            "take a card of the %s stack" % action.get("deck")
    else:
        return CHOICE_WORDS.get(kind, kind.replace("_", " "))
    target = action.get("target")
    if isinstance(target, str) and kind != "use":
        who = places.player_words(s, target) if target in s.players else \
            _enemy_words(s, action["seat"], target)
        words += " at %s" % who
    return words


def choice_words(state, action):
    """A choice in words: "end the attack", "start a battle with Player 2"."""
    s = state
    if action["type"] in places.READER_PLAYS and places.is_table_action(action):
        return play_words(s, action)
    words = CHOICE_WORDS.get(action["type"], action["type"].replace("_", " "))
    for key, how in (("target", "with"), ("to", "with"), ("npc", "with"), ("trait", "of"),
                     ("character", "for"), ("item", "of"), ("quest", "of"), ("card", "with"),
                     ("battle", "at")):
        v = action.get(key)
        if isinstance(v, str):
            who = places.player_words(s, v) if v in s.players else places.name(s, v)
            if key == "target" and v.startswith("e"):
                who = _enemy_words(s, action["seat"], v)
            words += " %s %s" % (how, who)
        elif key == "battle" and isinstance(v, int):
            for b in s.battles:
                if b["id"] == v:
                    words += " on %s" % xy(places.cell_of(b["cell"]))
    return words


def _enemy_words(state, seat, fid):
    b, _f = places.fighter(state, seat)
    if b is None or fid not in b["fighters"]:
        return "the enemy"
    f = b["fighters"][fid]
    return places.name(state, f["enemy"]) if "enemy" in f else places.player_words(state, fid)


class Throw:
    """The dice a seat's action waits for, read pocket by pocket."""

    def __init__(self, seat, action, since):
        self.seat = seat
        self.action = action        # without its dice
        self.values = []
        self.since = since


class FairytaleTable(DiceTrayInterpreter):
    """The Fairytale Games interpreter: `observed` and `seat_observed` hold registry item
    names ("fairytale:heavy_3", "fairytale-token:captain_hook")."""

    hide_window_ms = 2500      # a play's cards lie still this long before they are read

    def __init__(self, match, hide_window_ms=None):
        super().__init__(match, hide_window_ms)     # the tray's pockets, used, throw
        self.spent = {}            # place -> items played there, ignored until lifted
        self.catching_up = False   # the engine changed the map: read nothing until it shows
        self.in_hand = None        # a token of the mover lifted for a step
        self.waiting = None        # (cells, sentence): half a step made (the card or token)
        self.laid = {}             # seat number -> (frozenset of cards, ms since still)
        self.tapped = set()        # seat numbers whose tap said "play it now"
        self.cursor = {}           # seat number -> index of the choice a hold moved to
        self.held = set()          # seat numbers held: their play waits for a tap
        self.ready = None          # the last action reconcile found (for progress)
        self._legal = (None, None, [])
        self._expected = None

    # ------------------------------------------------------------ inputs

    def observe_items(self, cell, items, problems=()):
        keep, problems = [], list(problems)
        for item in items:
            if item.startswith(CARD) or item.startswith(TOKEN):
                keep.append(item)
            elif item.startswith("die:"):
                problems.append("A die lies on %s: throw the dice in the tray." %
                                place_words(self.state, cell))
            else:
                problems.append("%s is not a piece of Fairytale Games: take it off %s." % (
                    foreign(item), place_words(self.state, cell)))
        self.observe(cell, keep, problems)

    def observe_seat_items(self, seat, items, problems=()):
        keep, problems = [], list(problems)
        here = place_words(self.state, (SEAT, seat))
        for item in items:
            if item.startswith(CARD) or item in PROP_ITEMS:
                keep.append(item)
            elif item.startswith(TOKEN):
                problems.append("%s stands on the map, not on a card reader: take it off %s."
                                % (item_words(self.state, item), here))
            elif item.startswith("die:"):
                problems.append("A die lies on %s: throw the dice in the tray." % here)
            else:
                problems.append("%s is not a card of Fairytale Games: take it off %s." % (
                    foreign(item), here))
        self.observe_seat(seat, keep, problems)

    def after(self, events):
        """An action was applied: its cards are spent (lift them off), its dice used, and
        what the engine changed on the map by itself must reach the table before anything
        there is read again."""
        s = self.state
        action = self.match.actions[-1] if self.match.actions else None
        if action is not None:
            seat = action.get("seat")
            n = places.seat_number(s, seat) if seat in s.players else None
            if action["type"] in places.READER_PLAYS and n is not None:
                lying = set(self.seat_observed.get(n, ()))
                self.spent[(SEAT, n)] = self.spent.get((SEAT, n), set()) | lying
                self.laid.pop(n, None)
                self.tapped.discard(n)
            if action["type"] == "open_quest":
                for cell in set(PILE_CELL.values()):
                    self.spent[cell] = self.spent.get(cell, set()) | set(
                        self.observed.get(cell, ()))
            if n is not None:
                self.cursor.pop(n, None)
            if self.throw is not None and self.throw.seat == seat:
                self.throw = None
        self.used.update(p for p in self.pockets if self.pockets.get(p))
        old = self._expected
        new = places.expected(s)
        if old is not None:
            changed = set(p for p in set(old) | set(new) if old.get(p) != new.get(p))
            if any(self._seen_at(p) != new.get(p, []) for p in changed):
                self.catching_up = True
        self._expected = new
        self.in_hand = None
        self.waiting = None

    def cancel_throw(self):
        """Forget the throw under way (a bot's move given up: it is asked again)."""
        self.throw = None
        self.used.update(p for p in self.pockets if self.pockets.get(p))

    def expect_bot_move(self, action, now):
        """The bot's move the table lights now; a move given up leaves its cards spent (the
        hands lift them off before the move is asked again)."""
        old = self.bot_move
        if action is None and old is not None and old.get("seat") in self.state.players:
            n = places.seat_number(self.state, old["seat"])
            if self.laid.get(n) is not None:
                self.spent[(SEAT, n)] = self.spent.get((SEAT, n), set()) | set(
                    self.seat_observed.get(n, ()))
                self.laid.pop(n, None)
        self.bot_move = action

    def busy(self):
        """A token in hand, half a step made, or dice awaited: the bots wait."""
        return self.in_hand is not None or self.waiting is not None or self.throw is not None

    def tick(self, now):
        return self.reconcile(now)

    # ------------------------------------------------------------ what should lie where

    def expected(self):
        """What the map and the deck readers should show (the virtual hands tidy to it);
        cards spent on the quest readers are lifted."""
        return places.expected(self.state)

    def _seen_at(self, place):
        return [i for i in self.observed.get(place, ()) if i not in PROP_ITEMS]

    def pockets_wanted(self):
        t = self.throw
        if t is None:
            return []
        n = more_dice(self.state, t.action, t.values)
        # The empty pockets first; then those whose die was read already (take it out and
        # throw it again), so a throw never waits with no pocket lit.
        free = [p for p in range(places.POCKETS) if p not in self.used]
        again = [p for p in range(places.POCKETS) if p in self.used]
        return (free + again)[:max(0, min(places.POCKETS, n))]

    # ------------------------------------------------------------ the table vs the game

    def legal_now(self):
        """The engine's legal actions for this state (cached until the state changes)."""
        key = (len(self.match.actions), id(self.match.state))
        if self._legal[0] != key:
            self._legal = (key, None, places.legal(self.state))
        return self._legal[2]

    def reconcile(self, now):
        """Compare the table with the game: the one action it shows, or None; `mismatches`
        says what disagrees."""
        s = self.state
        self.mismatches = []
        self.in_hand = None
        self.waiting = None
        self.ready = None
        if self._expected is None:
            self._expected = places.expected(s)
        self.mismatches = self.tag_mismatches()
        self._check_tray()
        for place in list(self.spent):
            seen = set(self.seat_observed.get(place[1], ())) if place[0] == SEAT else \
                set(self.observed.get(place, ()))
            self.spent[place] &= seen
            if not self.spent[place]:
                del self.spent[place]
        candidates = []
        self._read_map(s, now, candidates)
        plays = self._read_readers(s, now) if s.status == "ongoing" else []
        if self.mismatches:
            return None
        if candidates:
            self.ready = candidates[0]
            return candidates[0]
        for action in plays:
            self.ready = action
            return action
        if self.throw is not None and s.status == "ongoing":
            return self._throw_done(s)
        return None

    # ------------------------------------------------------------ the map and the decks

    def _read_map(self, s, now, candidates):
        want = places.expected(s)
        diff = []
        for place in sorted(set(self.observed) | set(want)):
            if place not in MAP and place not in DECK_CELLS:
                continue
            seen = self._seen_at(place)
            wanted = want.get(place, [])
            spent = self.spent.get(place, set())
            seen = [i for i in seen if i not in spent]
            if seen != wanted:
                diff.append((place, seen, wanted))
        if not diff:
            self.catching_up = False
            return
        if self.catching_up or s.status != "ongoing" or self.mismatches:
            self._say_all(s, diff)
            return
        action = self._read_moves(s, want, diff)
        if action is not None:
            candidates.append(action)

    def _say_all(self, s, diff):
        """Every difference on the map and the deck readers as a mismatch: what to put
        where, what to lift."""
        seen_where = {}
        for place, seen, _wanted in diff:
            for item in seen:
                seen_where.setdefault(item, []).append(place)
        wanted_where = {}
        for place, _seen, wanted in diff:
            for item in wanted:
                wanted_where[item] = place
        for place, seen, wanted in diff:
            for item in wanted:
                if item in seen:
                    continue
                others = [p for p in seen_where.get(item, []) if p != place]
                if others:
                    self.mismatches.append(Mismatch("moved", [others[0], place], "%s belongs "
                                                    "on %s, not %s: move it there." % (
                                                        _cap(item_words(s, item)),
                                                        place_words(s, place),
                                                        place_words(s, others[0]))))
                else:
                    self.mismatches.append(Mismatch("missing", [place], "Put %s on %s." % (
                        item_words(s, item), place_words(s, place))))
            for item in seen:
                elsewhere = wanted_where.get(item)
                if item in wanted or (elsewhere is not None and elsewhere != place):
                    continue
                self.mismatches.append(Mismatch("extra", [place], "%s: lift it off %s." % (
                    _why_off(s, item, place), place_words(s, place))))

    def _read_moves(self, s, want, diff):
        """The step, discovery, event flip or quest opened the differences show, or None
        (mismatches or a half-made move said)."""
        mover = world.current_seat(s)
        mine = places.movable(s, mover) if mover is not None else {}
        home = dict((item, places.tokens(s)[item]["cell"]) for item in mine)
        seen_at = {}
        for place in sorted(self.observed):
            if place in MAP:
                for item in self._seen_at(place):
                    seen_at.setdefault(item, []).append(place)
        moved = {}        # token -> its new cell, or None (in hand)
        twice = []
        for item in sorted(mine):
            cells = seen_at.get(item, [])
            if cells == [home[item]]:
                continue
            if len(cells) > 1:
                twice.append(item)
            elif home[item] not in cells:
                moved[item] = cells[0] if cells else None
        new_cards = []    # (cell, location id) laid on unexplored cells
        flip = open_quest = None
        rest = []
        for place, seen, wanted in diff:
            if place == EVENTS:
                fresh = [i for i in seen if i not in wanted]
                gone = [i for i in wanted if i not in seen]
                if s.clock == "flip" and not [g for g in gone if g != CARD + (s.event or "")]:
                    if len(fresh) == 1:
                        flip = card_id(fresh[0])
                        continue
                    if not fresh:
                        continue    # the old event lifted: the new one comes next
                rest.append((place, seen, wanted))
                continue
            if place in PILE_CELL.values():
                fresh = [i for i in seen if i not in wanted]
                if len(fresh) == 1 and not wanted and open_quest is None:
                    open_quest = (place, card_id(fresh[0]))
                    continue
                rest.append((place, seen, wanted))
                continue
            if place not in MAP:
                rest.append((place, seen, wanted))
                continue
            extra = [i for i in seen if i not in wanted]
            missing = [i for i in wanted if i not in seen]
            left_extra, left_missing = [], []
            for item in missing:
                if item not in moved:
                    left_missing.append(item)
            for item in extra:
                cid = card_id(item)
                if item in moved:
                    continue
                if cid is not None and s.cells[core.index(list(place))] is None and \
                        cid in s.cat.decks["locations"]:
                    new_cards.append((place, cid))
                else:
                    left_extra.append(item)
            if left_extra or left_missing:
                rest.append((place, [i for i in seen if i in left_extra or i in wanted],
                             [i for i in wanted if i in left_missing or i in seen]))
        if rest or twice or len(moved) > 1 or len(new_cards) > 1 or \
                sum(1 for x in (moved or new_cards, flip, open_quest) if x) > 1:
            self._say_all(s, diff)
            return None
        if flip is not None:
            if flip not in s.decks["events"]:
                self.mismatches.append(Mismatch("not_in_deck", [EVENTS], "%s is not in the "
                                                "event deck (it was dealt out of this game, or "
                                                "flipped before): lift it off the event deck's "
                                                "reader." % places.name(s, flip)))
                return None
            return self._checked(s, [EVENTS], {"type": "flip_event", "seat": s.sundial,
                                               "cards": [flip]},
                                 "Lift it off the event deck's reader.")
        if open_quest is not None:
            return self._open_quest(s, mover, open_quest)
        token = to = None
        if moved:
            (token, to), = moved.items()
        card_cell, card = new_cards[0] if new_cards else (None, None)
        if token is None:
            return self._card_first(s, mover, mine, home, card_cell, card)
        words = item_words(s, token)
        back = "Put %s back on %s." % (words, place_words(s, home[token]))
        if to is None:
            self.in_hand = token
            if card_cell is not None:
                return self._card_first(s, mover, mine, home, card_cell, card)
            return None
        action = {"type": "step", "seat": mover, "to": list(to)}
        if mine[token] is not None:
            action["character"] = mine[token]
        explored = s.cells[core.index(list(to))] is not None
        if card_cell is not None and card_cell != to:
            self.mismatches.append(Mismatch("card_elsewhere", [card_cell, to], "%s was laid "
                                            "on %s, but %s stepped onto %s: the card is laid "
                                            "on the cell stepped onto." % (
                                                places.name(s, card), xy(card_cell), words,
                                                xy(to))))
            return None
        if card is not None:
            action["cards"] = [card]
        elif not explored:
            problem = ft.validate(s, action)
            if problem is not None:
                self.mismatches.append(Mismatch(problem.code, [home[token], to], "%s %s" % (
                    problem.message, back)))
                return None
            self.waiting = ([to], "Lay the top location card face up on %s: %s discovers "
                            "it." % (xy(to), words))
            return None
        return self._checked(s, [home[token], to], action, back)

    def _card_first(self, s, mover, mine, home, cell, card):
        """A location card laid on an unexplored cell before any token moved onto it."""
        if cell is None:
            return None
        name = places.name(s, card)
        for token in sorted(mine):
            action = {"type": "step", "seat": mover, "to": list(cell), "cards": [card]}
            if mine[token] is not None:
                action["character"] = mine[token]
            if cell in _next_to(home[token]) and ft.validate(s, action) is None:
                self.waiting = ([cell], "Now put %s on %s, the location it discovers." % (
                    item_words(s, token), xy(cell)))
                return None
        if mine:
            token = sorted(mine)[0]
            where = "which is not next to %s on %s" % (item_words(s, token),
                                                       xy(home[token]))
            if cell in _next_to(home[token]):
                problem = ft.validate(s, {"type": "step", "seat": mover, "to": list(cell),
                                          "cards": [card]})
                where = "but %s cannot step there: %s" % (
                    item_words(s, token), problem.message if problem else "")
        else:
            where = "and nobody is moving now"
        self.mismatches.append(Mismatch("lone_card", [cell], "A location is discovered by "
                                        "stepping onto it: %s was laid on %s, %s. Lift it "
                                        "off." % (name, xy(cell), where)))
        return None

    def _open_quest(self, s, mover, laid):
        place, quest = laid
        name = places.name(s, quest)
        pile = places.quest_pile(quest)
        # A quest taken from a pile goes into its player's hand: it is not named aloud.
        if pile is None:
            self.mismatches.append(Mismatch("not_a_quest", [place], "%s is not a quest card: "
                                            "lift it off %s." % (name, place_words(s, place))))
            return None
        if PILE_CELL[pile] != place:
            self.mismatches.append(Mismatch("wrong_pile", [place], "That quest card is of the "
                                            "%s pile: lay it on %s." % (
                                                pile, place_words(s, PILE_CELL[pile]))))
            return None
        if mover is None:
            self.mismatches.append(Mismatch("not_now", [place], "A quest is opened at the "
                                            "Dragon Inn on its player's turn: lift the quest "
                                            "card off %s." % place_words(s, place)))
            return None
        return self._checked(s, [place], {"type": "open_quest", "seat": mover, "quest": quest},
                             "Lift the quest card off %s." % place_words(s, place))

    def _checked(self, s, cells, action, undo):
        problem = ft.validate(s, action)
        if problem is None:
            return action
        self.mismatches.append(Mismatch(problem.code, cells, "%s %s" % (problem.message, undo)))
        return None

    # ------------------------------------------------------------ the seats' card readers

    def _read_readers(self, s, now):
        """The plays the seats' readers show, ready to apply (in seat order)."""
        out = []
        for n in range(1, len(s.seats) + 1):
            seat = s.seats[n - 1]
            spent = self.spent.get((SEAT, n), set())
            laid = frozenset(card_id(i) for i in self.seat_observed.get(n, ())
                             if i.startswith(CARD) and i not in spent)
            t = self.throw
            if t is not None and t.seat == seat and t.action["type"] in places.READER_PLAYS \
                    and not t.values and (not laid or self.laid.get(n, (None,))[0] != laid):
                self.throw = None      # the play's cards were taken back or changed
            if not laid:
                self.laid.pop(n, None)
                self.tapped.discard(n)
                self.held.discard(n)
                continue
            before = self.laid.get(n)
            if before is None or before[0] != laid:
                self.laid[n] = (laid, now)
                self.progress_at = now
                self.cursor.pop(n, None)
                self.held.discard(n)
            action = self._play(s, n, seat, laid, now)
            if action is not None:
                out.append(action)
        return out

    def _plays_of(self, s, seat, laid):
        """The seat's legal plays whose cards are exactly `laid`."""
        out = []
        for a in self.legal_now():
            if a.get("seat") != seat or a["type"] not in places.READER_PLAYS:
                continue
            if a["type"] == "take_victory":
                (card,) = laid if len(laid) == 1 else (None,)
                if card is not None and places.victory_deck(card) == a["deck"] and \
                        card in s.decks[a["deck"]]:
                    out.append(dict(a, cards=[card]))
                continue
            cards = places.reader_cards(s, a)
            if cards is not None and frozenset(cards) == laid and len(cards) == len(laid):
                out.extend(places.paid_forms(s, seat, a))
        return out

    def _play(self, s, n, seat, laid, now):
        """The play the cards on seat `n`'s reader make now, or None (waiting, or a
        mismatch said)."""
        here = place_words(s, (SEAT, n))
        plays = self._plays_of(s, seat, laid)
        bot = self.bot_move
        if bot is not None and bot.get("seat") == seat:
            # The bot's hands are laying its cards: read when they make its move (its
            # patience decides when they do not).
            same = [a for a in plays if without_chance(a) == without_chance(bot)]
            return self._with_dice(s, seat, same[0], now) if same else None
        still = now - self.laid[n][1] >= self.hide_window_ms or n in self.tapped
        if not plays:
            if not still:
                return None     # cards still going down
            self.mismatches.append(Mismatch("not_playable", [(SEAT, n)], "%s Lift %s off %s."
                                            % (self._why_not(s, seat, laid),
                                               "it" if len(laid) == 1 else "them", here)))
            return None
        if not still or n in self.held and n not in self.tapped:
            return None     # still going down, or held: the player chooses, then taps
        pick = self.cursor.get(n, 0) % len(plays)
        return self._with_dice(s, seat, plays[pick], now)

    def _why_not(self, s, seat, laid):
        """Why the cards on a seat's reader are no play of that seat now, in words."""
        who = places.player_words(s, seat)
        for card in sorted(laid):
            owner = places.holder(s, card)
            if owner is not None and owner != seat:
                return "%s is in %s's hand, not %s's: it is played from %s." % (
                    places.name(s, card), places.player_words(s, owner), who,
                    place_words(s, (SEAT, places.seat_number(s, owner))))
            deck = places.victory_deck(card)
            if deck is not None and card not in s.decks[deck]:
                return "%s was taken before: a victory card is the top card of the %s stack." \
                    % (places.name(s, card), deck)
            kind = places.kind_words(card)
            if kind is not None:
                return "%s is %s, not on a seat's card reader." % (places.name(s, card), kind)
        guess = _guess(s, seat, laid)
        problem = ft.validate(s, guess) if guess is not None else None
        if problem is not None:
            return "%s cannot be played now: %s" % (places.names_of(s, sorted(laid)),
                                                   problem.message)
        return "%s make no play of %s's now." % (places.names_of(s, sorted(laid)), who)

    def _with_dice(self, s, seat, action, now):
        """`action` ready to apply, or None while the dice it takes are awaited."""
        if more_dice(s, action, ()) == 0:
            return action
        t = self.throw
        if t is None:
            self.throw = Throw(seat, action, now)
            self.used.update(p for p in self.pockets if self.pockets.get(p))
            self.note("%s: throw %s for %s." % (places.player_words(s, seat), _dice_words(
                more_dice(s, action, ())), choice_words(s, action)))
            return None
        if t.seat == seat and without_chance(t.action) != without_chance(action):
            self.throw = Throw(seat, action, now)   # the play changed: a new throw
        return None

    # ------------------------------------------------------------ the dice tray

    def _check_tray(self):
        self.mismatches.extend(self.tray_mismatches(
            lambda item: any(item.startswith(d) for d in places.DIE_ITEMS),
            "one of the game's two dice"))

    def _read(self, now):
        """The dice settled in the tray for the throw under way: the action once all are
        read."""
        t = self.throw
        s = self.state
        fresh = sorted(p for p in self.pockets if self.pockets[p] and p not in self.used)
        wanted = min(places.POCKETS, more_dice(s, t.action, t.values))
        if wanted <= 0:
            for pocket in fresh:
                self.used.add(pocket)
                self.note("The die in pocket %d is not wanted now: take it out." % (pocket + 1))
            return self._throw_done(s)
        if len(fresh) < wanted:
            return None     # a throw of two dice is read once both have settled
        # Read in pocket order (the pockets report one by one, in any order).
        for pocket in fresh[:wanted]:
            self.used.add(pocket)
            t.values.append(int(self.pockets[pocket].split(":")[2]))
        self.progress_at = now
        return self._throw_done(s)

    def _throw_done(self, s):
        t = self.throw
        left = more_dice(s, t.action, t.values)
        if left > 0:
            return None
        action = dict(t.action)
        if t.values:
            action["dice"] = list(t.values)
        problem = ft.validate(s, action)
        if problem is not None:
            self.throw = None
            return self.refuse([], "%s: %s" % (_cap(choice_words(s, t.action)),
                                               problem.message))
        return action

    # ------------------------------------------------------------ choices: buttons and taps

    def choices(self, seat):
        """The choices `seat` has now that no card shows, in the order a tap offers them:
        [(words, action)] (an enemy's turn and a flight are thrown in the tray)."""
        s = self.state
        out = []
        for a in self.legal_now():
            if a.get("seat") != seat or places.is_table_action(a) and \
                    a["type"] not in places.THROWS.values():
                continue
            out.append(a)
        order = dict((k, i) for i, k in enumerate(CHOICE_ORDER))
        out.sort(key=lambda a: (order.get(a["type"], len(order)), _sort_key(a)))
        return [(choice_words(s, a), a) for a in out]

    def choose(self, seat, action):
        """A choice made (a tap, a button): a throw starts for one that takes dice."""
        s = self.state
        if action["type"] in places.THROWS.values():
            if self.throw is not None and self.throw.seat != seat:
                return self.refuse([], "The tray is busy with %s's dice: wait for them." %
                                   places.player_words(s, self.throw.seat))
            self.throw = Throw(seat, action, self.progress_at)
            self.used.update(p for p in self.pockets if self.pockets.get(p))
            n = more_dice(s, action, ())
            if n:
                self.note("%s: throw %s to %s." % (places.player_words(s, seat),
                                                    _dice_words(n), choice_words(s, action)))
            return self._throw_done(s) if n == 0 else None
        problem = ft.validate(s, action)
        if problem is not None:
            return self.refuse([], problem.message)
        return action

    def button(self, seat, name):
        """A seat button: "roll" (the enemy's turn), "flee", "end_turn", "end_attack",
        "no_defence", "search"."""
        s = self.state
        if s.status != "ongoing" or seat not in s.players:
            return None
        kinds = {"roll": "enemy_turn", "flee": "flee", "end_turn": "end_turn",
                 "end_attack": "end_attack", "search": "search", "no_defence": "defend"}
        kind = kinds.get(name)
        if kind is None:
            return None
        if self.mismatches and kind not in places.THROWS.values():
            return None
        for _words, a in self.choices(seat):
            if a["type"] == kind and (kind != "defend" or "card" not in a):
                return self.choose(seat, a)
        if seat not in ft.actors(s):
            return self.refuse([], "It is not %s's move now." % places.player_words(s, seat))
        return self.refuse([], "%s cannot %s now." % (places.player_words(s, seat),
                                                       CHOICE_WORDS.get(kind, kind)))

    def seat_gesture(self, n, kind, now):
        """A tap or hold on seat `n`'s card reader: with cards laid, a hold moves to the next
        play they make and a tap plays it now; with none, a hold names the next choice and a
        tap makes it."""
        s = self.state
        seat = places.seat_of_number(s, n)
        if seat is None or s.status != "ongoing":
            return self.refuse([(SEAT, n)], "Nobody plays at this card reader now.")
        if kind == "double":
            kind = "tap"
        laid = self.laid.get(n)
        if laid is not None:
            plays = self._plays_of(s, seat, laid[0])
            if kind == "hold" and len(plays) > 1:
                # A hold: the player chooses (the next play, another way to pay); the play
                # waits for their tap.
                self.held.add(n)
                self.cursor[n] = (self.cursor.get(n, 0) + 1) % len(plays)
                self.note("%s's reader: %s (tap to play it)." % (
                    places.player_words(s, seat), self._play_words(s, seat,
                                                                   plays[self.cursor[n]])))
                return None
            self.tapped.add(n)
            return self.reconcile(now)
        options = self.choices(seat)
        if not options:
            return self.refuse([(SEAT, n)], "%s has no choice to make now." %
                               places.player_words(s, seat))
        if kind == "hold":
            self.cursor[n] = (self.cursor.get(n, 0) + 1) % len(options)
            self.note("%s's reader: %s (tap to choose it)." % (
                places.player_words(s, seat), options[self.cursor[n]][0]))
            return None
        words, action = options[self.cursor.get(n, 0) % len(options)]
        self.cursor.pop(n, None)
        return self.choose(seat, action)

    # ------------------------------------------------------------ what it says

    def progress(self):
        s = self.state
        if self.in_hand is not None:
            return {"text": "%s is in hand: put it on a lit cell." % _cap(
                item_words(s, self.in_hand)), "cells": []}
        if self.waiting is not None:
            return {"text": self.waiting[1], "cells": [list(c) for c in self.waiting[0]]}
        t = self.throw
        if t is not None:
            n = more_dice(s, t.action, t.values)
            if n > 0:
                return {"text": "%s: throw %s into the tray to %s." % (
                    places.player_words(s, t.seat), _dice_words(n),
                    choice_words(s, t.action)), "cells": []}
        for n in sorted(self.laid):
            seat = places.seat_of_number(s, n)
            if seat is None:
                continue
            plays = self._plays_of(s, seat, self.laid[n][0])
            if plays:
                pick = plays[self.cursor.get(n, 0) % len(plays)]
                more = " (hold it for the next of %d)" % len(plays) if len(plays) > 1 else ""
                when = "once they tap it" if n in self.held else \
                    "once the cards lie still or when they tap it"
                return {"text": "%s's reader: %s, read %s%s." % (
                    places.player_words(s, seat), self._play_words(s, seat, pick), when, more),
                        "cells": [[SEAT, n]]}
        return None

    def _play_words(self, s, seat, play):
        """A play on a reader in words, with what it pays when it costs traits."""
        pay = places.payment_of(s, seat, play)
        words = choice_words(s, play)
        if not pay:
            return words
        return "%s, paying %s" % (words, and_list(["%d %s" % (pay[t], t.capitalize())
                                                    for t in core.TRAITS if pay.get(t)]))

    def signature(self):
        return (super().signature(), repr(sorted(self.pockets.items())),
                repr(self.cursor), repr(sorted(self.held)),
                repr(sorted((p, sorted(v)) for p, v in self.spent.items())))


def _next_to(cell):
    x, y = cell
    return [(x + dx, y + dy) for dx, dy in ((0, 1), (0, -1), (1, 0), (-1, 0))]


def _cap(text):
    return text[:1].upper() + text[1:]


def _why_off(s, item, place):
    cid = card_id(item)
    words = _cap(item_words(s, item))
    if cid is not None and cid in s.cat.decks["locations"]:
        if place in MAP and s.cells[core.index(list(place))] is None:
            return "%s lies on an unexplored cell" % words
        return "%s does not belong on %s" % (words, place_words(s, place))
    if item.startswith(TOKEN):
        return "%s is not on the map now" % words
    if place == EVENTS:
        return "%s is not the event in force" % words
    if place == BONUS:
        return "%s waits for nobody's decision" % words
    return "%s does not belong there" % words


def _guess(s, seat, laid):
    """The play a person most likely meant with these cards (for the refusal's words)."""
    ids = sorted(laid)
    first = ids[0]
    base = s.cat.battle_instances.get(first)
    if base is not None:
        kind = s.cat.decks["battle"][base]["type"]
        if kind == "attack":
            return {"type": "attack", "seat": seat, "card": first, "with": ids[1:]}
        if kind == "defense":
            return {"type": "defend", "seat": seat, "card": first}
        return {"type": "play", "seat": seat, "card": first}
    if first in s.cat.decks["quests"]:
        return {"type": "start_quest", "seat": seat, "quest": first}
    if first in s.cat.decks["characters"]:
        return {"type": "choose" if s.phase == "choose" else "continue", "seat": seat,
                "character": first}
    card = s.cat.decks["bonus"].get(first)
    if card is not None:
        if card["kind"] in places.FROM_HAND:
            return {"type": "use", "seat": seat, "card": first}
        return {"type": "equip", "seat": seat, "item": first}
    return None


def _dice_words(n):
    return "a die" if n == 1 else "%d dice" % n


def _sort_key(action):
    return repr(sorted(action.items()))
