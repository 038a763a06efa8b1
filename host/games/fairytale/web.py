"""Fairytale Games: The Battle Royale on the web table (host/web/face.py): the map of 49
location cells as the tiles light it, every token on it, the day and its event, the battles
with both sides' health, the log in the book's words; a seat's page is its character board
and the choices the rules give it now, as buttons with words.

Everything here is read from the engine's view for the viewer (`view(state, seat)`): a
spectator sees the table (the map, the boards, equipped items, quests under way, victory
cards, battles and hand sizes), a seat sees its own quest hand, battle hand and decisions
too. The catalog (names, texts, traits) is public; the decks' order and the other hands are
not, and no line here names them: a card drawn into a hand is "a bonus card", a character
met from the bonus deck is "a character" until recruited.

A player is named as the engine names them, "Player 2 (Captain Hook)": the seat and the
character it leads. Cells are [x, y] as the engine and the table name them (x the column,
y the row, the Dragon Inn at [3, 3]); the deck readers stand beside the map in column 7.

A seat's choices are the engine's legal actions in words, grouped ("Battle", "Move",
"Quests"...). A choice no card shows (recruit, end the turn, which traits pay a search) is
sent as it is, as the seat's phone sends it on a real table; a move the table shows is
carried out on the virtual table by the hands as a person's would be (`place_steps`: the
token stepped and the location card laid, the cards of a play laid on the seat's reader and
tapped, the event card laid by the Sundial, the seat's button and then the dice). A cost paid
from several traits offers its ways to pay as a second step, each checked by the rules.

The last guard of the web table hides a hidden card's id and its name (`secret_names`) where
it stands as a word. A name is hidden only while the table has never seen a card bearing it
face up (`seen`: what the spectators' view showed after each action described here) and it
is no part of another card's printed words ("The Sea Witch" in "The Sea Witch's Grotto"):
everyone saw The Cheshire Cat escape into the bonus deck, and a Heavy Attack in a discard
pile tells nothing of the one in a hand.
"""

import json
import re

from host import lights
from host.games.fairytale import places, scenes
from host.games.fairytale.chance import more_dice, table_cards
from host.games.fairytale.words import ACTION_WORDS, SEAT_COLOURS
from host.web.errors import Refused
from host.web.face import WebFace, and_list, cell_words, css, item
from shared_rules import fairytale as ft
from shared_rules.fairytale import battle as fights
from shared_rules.fairytale import cards as catalog
from shared_rules.fairytale import core
from shared_rules.fairytale import world

TRAITS = catalog.TRAITS
TRAIT_WORDS = dict((t, t.capitalize()) for t in TRAITS)
FACTIONS = catalog.FACTION_NAMES
# A faction's two bonuses in the book's words: (team bonus, 2-4 like characters; faction
# bonus, all five).
FACTION_BONUSES = {
    "wild_ones": (("Steady Pace", "+1 MVM for each like character"),
                  ("Scatter", "an Escape card always succeeds")),
    "horror_show": (("Sharpening the Blades", "+1 ATK per equipped weapon for each like "
                     "character"), ("Die Again", "any die may be rolled again")),
    "dark_ones": (("Blood Pact", "sacrifice an ally for +2 health for each like character"),
                  ("Mind Shift", "rearrange an enemy's traits at the start of a battle")),
    "mercenaries": (("Hunting", "start a battle up to 1 more space away for each like "
                     "character"), ("Unlikely Hostage", "take an enemy's ally hostage")),
    "children_of_magic": (("Apprenticeship", "1 less magic for quests and items for each "
                           "like character"), ("Spellcaster", "play action cards from the "
                                               "bonus discard pile")),
    "fugitives": (("Rummage", "a drawn bonus card may be shuffled back for another"),
                  ("Distraction", "spend 3 traits to enable a tactic card")),
}
STATUS_WORDS = {"break": "Break", "bleed": "Bleed", "pierce": "Pierce", "poison": "Poison",
                "stun": "Stun", "dizzy": "Dizzy"}
# What an action lets a player do, in words (the banner's list): the table's words
# (words.py), with the book's where they differ.
ACTIONS = dict(ACTION_WORDS)
ACTIONS.update({
    "step": "move", "unequip": "take an item off", "switch": "change the leader",
    "interact": "meet a character of the map", "distraction": "cause a Distraction",
    "take_victory": "take a Victory card", "continue": "choose a new character",
    "signature": "use a Signature Move", "super": "unleash the Super Move",
    "end_attack": "end the attack turn", "counter_bid": "bid traits",
    "pay_escape": "pay to escape", "mind_shift": "cause a Mind Shift",
    "propose_split": "share the rewards", "accept_split": "agree to the sharing",
    "separate": "separate the party", "reunite": "reunite the party"})
# What the others may know of a decision waiting for a seat (its card is the seat's alone).
DECISIONS = {"character": "decide about a character met in the bonus deck",
             "rummage": "keep a bonus card or rummage for another",
             "victory": "take an Alliance or a Betrayal card for a kill",
             "continue": "choose how to go on after a death",
             "alliance": "answer an offer of an Ally Party",
             "negotiate": "agree how to share the rewards",
             "conflict": "face or ignore a Conflict",
             "peek": "keep the top bonus card there or put it at the bottom"}
ENDINGS = {"no_events": "the events ran out", "day_limit": "the days ran out",
           "all_out": "every player is out", "kills": "the kills are made",
           "last_standing": "the last one standing",
           "hunters_killed": "the three hunters are killed",
           "end_quest": "an End Game quest is completed"}
PILES = {"easy": "the Easy quests", "medium": "the Medium quests", "boss": "the Boss quests",
         "end": "the End Game quests"}
# How a fighter left a battle (the engine's "out"), in words.
OUT_WORDS = {"dead": "killed", "fled": "fled", "escaped": "escaped", "left": "left"}
PLAY = "play:"         # a choice's move on the table: "play:" and the action (JSON)


# ---------------------------------------------------------------- words

def plural(n, word, words=None):
    return "%d %s" % (n, word if n == 1 else (words or word + "s"))


def short(name):
    """A location's name on a small cell: without its article."""
    for lead in ("The ", "A "):
        if name.startswith(lead) and len(name) > len(lead) + 3:
            return name[len(lead):]
    return name


def trait_words(traits):
    """{"strength": 2, "magic": 1} -> "2 Strength and 1 Magic"."""
    parts = ["%d %s" % (traits[t], TRAIT_WORDS[t]) for t in TRAITS if traits.get(t)]
    return and_list(parts) if parts else "nothing"


def pay_words(pay):
    """A payment in words: "Pay 2 with Strength and 1 with Magic"."""
    parts = ["%d with %s" % (pay[t], TRAIT_WORDS[t]) for t in TRAITS if pay.get(t)]
    return "Pay " + and_list(parts) if parts else "Pay nothing"


def element_words(v):
    return v.capitalize() if v else "none"


class FairytaleFace(WebFace):
    """Fairytale Games: players by seat and character, the map's location cards, tokens and
    battles; a seat's page is its character board and its choices."""

    # ------------------------------------------------------------ names

    def seat_name(self, state, seat):
        return "Player %s" % seat[1:]

    def who(self, state, seat):
        """A player in the engine's words: "Player 2 (Captain Hook)"."""
        return core.seat_words(state, seat)

    def name(self, state, cid):
        """A card's name as printed (the catalog's names read once)."""
        if cid is None:
            return core.name_of(state, cid)
        return self._catalog(state)["names"].get(cid) or core.name_of(state, cid)

    def fighter(self, state, b, fid):
        """A fighter of a battle form (the view's) in words."""
        f = b["fighters"][fid]
        if "enemy" in f:
            return self.name(state, f["enemy"])
        return self.who(state, f["seat"])

    def action_words(self, kind):
        return ACTIONS.get(kind, kind.replace("_", " "))

    def book_colour(self, state, seat):
        """The seat's colour, as the table lights its token (scenes.py)."""
        return SEAT_COLOURS[list(state.seats).index(seat) % len(SEAT_COLOURS)]

    # ------------------------------------------------------------ secrets

    def _catalog(self, state):
        """Per catalog, once: name -> the ids bearing it (battle cards: every copy), every
        id, and the names found inside another card's name or words (a character's name in
        a location's, "The Sea Witch" in "The Sea Witch's Grotto")."""
        cat = state.cat
        cache = self.__dict__.setdefault("_catalog_of", {})
        if id(cat) not in cache:
            bearers, words = {}, {}
            for deck in sorted(cat.decks):
                if deck == "battle":
                    continue
                for cid in sorted(cat.decks[deck]):
                    card = cat.decks[deck][cid]
                    bearers.setdefault(card["name"], set()).add(cid)
                    words[cid] = [card["name"], card.get("text") or ""]
            for cid in sorted(cat.battle_instances):
                card = cat.battle_card(cid)
                bearers.setdefault(card["name"], set()).add(cid)
                words[cid] = [card["name"], card.get("text") or ""]
            inside = set()
            for name in bearers:
                pattern = None
                for cid in words:
                    if cid in bearers[name] or not [w for w in words[cid] if name in w]:
                        continue
                    pattern = pattern or re.compile(r"(?<![A-Za-z0-9])%s(?![A-Za-z0-9])" %
                                                    re.escape(name))
                    if [w for w in words[cid] if pattern.search(w)]:
                        inside.add(name)
                        break
            cache.clear()
            cache[id(cat)] = {"bearers": bearers, "ids": set(words), "inside": inside,
                              "names": dict((cid, core.name_of(state, cid)) for cid in words)}
        return cache[id(cat)]

    def _game_key(self, state):
        return (state.seed, tuple(state.seats), repr(sorted(state.options.items())))

    def seen(self, state):
        """The cards this game's table has seen face up so far (what the spectators' view
        showed after an action described here): a card seen and then shuffled back into a
        deck is no secret by name (everyone saw The Cheshire Cat escape into the bonus
        deck), only where it lies now."""
        book = self.__dict__.setdefault("_seen_by", {})
        key = self._game_key(state)
        if key not in book:
            if len(book) > 20:
                book.clear()
            book[key] = set()
        return book[key]

    def _see(self, state):
        ids = self._catalog(state)["ids"]
        seen = self.seen(state)
        todo = [ft.view(state, None)]
        while todo:
            v = todo.pop()
            if isinstance(v, dict):
                todo.extend(v.keys())
                todo.extend(v.values())
            elif isinstance(v, list):
                todo.extend(v)
            elif isinstance(v, str) and v in ids:
                seen.add(v)

    def secret_names(self, state, seat):
        """The names of the cards `seat` may not know, where a name tells which card it is:
        every card bearing the name is hidden and none has been seen face up (a Heavy
        Attack in a discard pile while another waits in a hand: the name says nothing), and
        the name is not part of another card's name or words (a hidden character The Sea
        Witch while The Sea Witch's Grotto lies on the map)."""
        hidden = set(ft.secrets(state, seat))
        info = self._catalog(state)
        seen = self.seen(state)
        out = set()
        for cid in hidden:
            name = self.name(state, cid)
            if name == cid or name in out or name in info["inside"]:
                continue
            bearers = info["bearers"].get(name, set())
            if bearers <= hidden and not (bearers & seen):
                out.add(name)
        return sorted(out)

    def own_words(self, state, seat):
        """What the seat itself may read although others may not: its quest hand, its battle
        hand, its decisions' cards, and the cards the rules let it look through now (the
        characters it may choose from the bonus deck, the quests it may open at the Inn)."""
        p = state.players[seat]
        ids = set(p["hand"])
        b = fights.of_seat(state, seat)
        if b is not None and seat in b["fighters"]:
            ids.update(b["fighters"][seat]["hand"])
        for d in state.pending:
            if d["seat"] == seat and "card" in d:
                ids.add(d["card"])
        s = state
        if s.status == "ongoing":
            # What the rules let it look through: the bonus deck's characters when it chooses
            # one, the quest piles at the Dragon Inn on its turn.
            if (s.phase == "choose" and p["character"] is None) or [
                    d for d in s.pending if d["seat"] == seat and d["kind"] == "continue"]:
                ids.update(c for c in s.cat.order["characters"] if c in s.decks["bonus"] or
                           c in s.decks["bonus_discard"])
            if world.current_seat(s) == seat and core.cell_of(s, seat) == core.CENTRE:
                for pile in world.QUEST_PILES + ("end",):
                    ids.update(s.decks[pile])
        out = set(ids)
        for cid in ids:
            out.add(self.name(state, cid))
        return sorted(out)

    def _hidden(self, state, seat=None):
        return set(ft.secrets(state, seat))

    def _legal(self, match, seat):
        """The seat's legal actions now: the engine's list, computed once per state and action
        count (every viewer's page asks for it; the state changes only by an action applied,
        which counts, or by an undo, which brings another state)."""
        s = match.state
        if ft.status(s) != "ongoing":
            return []
        actions = getattr(match, "actions", None)
        if actions is None:         # a state alone (the terminal's header): no memo
            return [a for a in ft.legal_actions(s) if a.get("seat") == seat]
        memo = self.__dict__.get("_legal_memo")
        if memo is None or memo[0] is not s or memo[1] != len(actions):
            memo = (s, len(actions), ft.legal_actions(s))
            self.__dict__["_legal_memo"] = memo
        return [a for a in memo[2] if a.get("seat") == seat]

    # ------------------------------------------------------------ the header

    def turn_banner(self, match, table, seat, who):
        s = match.state
        if s.phase == "choose":
            if seat in who:
                return "Choose your primary character (%d still choosing)" % len(who)
            if len(who) == 1:
                return "%s chooses a primary character" % self.seat_name(s, who[0])
            return "%s choose their primary characters" % and_list(
                self.seat_name(s, q) for q in who)
        parts = []
        if s.clock == "flip":
            parts.append("%s, the Sundial, %s the event of day %d" % (
                "You" if seat == s.sundial else self.who(s, s.sundial),
                "flip" if seat == s.sundial else "flips", s.day + 1))
        for d in s.pending:
            mine = d["seat"] == seat or seat in (d.get("seats") or [])
            if d["kind"] in ("negotiate", "conflict"):
                deciders = [q for q in d["seats"] if q in who]
                if not deciders:
                    continue
                parts.append("%s %s" % (and_list(
                    "you" if q == seat else self.who(s, q) for q in deciders).capitalize()
                    if seat in deciders else and_list(self.who(s, q) for q in deciders),
                    world.decision_words(s, d) if mine else DECISIONS[d["kind"]]))
                continue
            if mine:
                parts.append("You: %s" % world.decision_words(s, d))
            else:
                parts.append("%s: %s" % (self.who(s, d["seat"]), DECISIONS.get(
                    d["kind"], "decide")))
        cs = world.current_seat(s)
        if cs is not None:
            parts.append(self._turn_words(match, cs, seat))
        for b in s.battles:
            parts.append(self._battle_banner(s, b, seat))
        if not parts:
            return WebFace.turn_banner(self, match, table, seat, who)
        return "; ".join(parts)

    def _turn_words(self, match, cs, seat):
        s = match.state
        allowed = world.movement_allowed(s, cs)
        left = max(0, allowed - world.steps_taken(s, cs))
        kinds = []
        for a in self._legal(match, cs):
            if a["type"] == "step":
                words = "move %s" % plural(left, "step")
            else:
                words = self.action_words(a["type"])
            if words not in kinds and a["type"] != "end_turn":
                kinds.append(words)
        kinds.append("end the turn")
        head = "Your turn, day %d" % s.day if cs == seat else \
            "%s's turn, day %d" % (self.who(s, cs), s.day)
        if len(kinds) > 5:
            kinds = kinds[:4] + ["more"]
        return "%s: %s" % (head, and_list(kinds))

    def _battle_banner(self, s, b, seat):
        place = self._place(s, b["cell"])
        q = fights.whose_move(s, b)
        mine = q == seat
        name = "you" if mine else self.who(s, q)
        a = b["await"]
        if a is not None:
            doing = fights.await_words(s, b)
        else:
            e = fights.turn_fighter(b)
            f = b["fighters"][e["f"]]
            if fights.is_auto(f):
                doing = "roll for %s's attack" % self.name(s, f["enemy"])
            else:
                doing = "attack"
        verb = doing if mine else _third_person(doing)
        return "Battle at %s: %s %s" % (place, name.capitalize() if mine else name, verb)

    def _place(self, s, cell):
        """A map cell in words: "The Emerald City [3, 2]"."""
        i = cell if isinstance(cell, int) else core.index(cell)
        lid = s.cells[i]
        where = cell_words(core.xy(i))
        return "%s %s" % (self.name(s, lid), where) if lid is not None else where

    def ending(self, state):
        s = state
        why = ENDINGS.get(s.end_reason)
        epi = world.EPILOGUES.get(s.epilogue, "").rstrip(".")
        tail = (" (%s)" % epi) if epi else ""
        if s.winners:
            names = and_list(self.who(s, q) for q in s.winners)
            verb = "wins" if len(s.winners) == 1 else "win"
            if s.end_reason == "end_quest":
                return "Game over: %s %s by an End Game quest%s" % (names, verb, tail)
            return "Game over: %s %s the Battle Royale, %s%s" % (names, verb, why, tail)
        return "Game over: everyone loses, %s%s" % (why or "nobody won", tail)

    def facts(self, match):
        s = match.state
        out = []
        if s.phase == "choose":
            return ["choosing characters"]
        out.append("Day %d" % s.day)
        if s.event is not None:
            ev = s.cat.decks["events"][s.event]
            out.append("Event: %s%s" % (ev["name"], " (%s more)" % plural(
                s.event_hold, "day") if s.event_hold else ""))
        if s.status == "ongoing":
            left = len(s.decks["events"])
            if s.options["mode"] == "adventurer":
                out.append("%s in the deck" % plural(left, "event"))
            else:
                out.append("%s left" % plural(left, "event"))
            out.append(self.goal(s))
        return out

    def goal(self, s):
        """The goal of this game, as the book gives it for the player count and mode."""
        mode = s.options["mode"]
        n = len(s.seats)
        if mode == "adventurer":
            return "goal: an End Game quest"
        if mode == "tournament":
            return "goal: the last one standing"
        if n == 1:
            dead = len([h for h in s.hunters if h["state"] == "dead"])
            return "goal: kill the three hunters (%d killed)" % dead
        if n <= 4:
            return "goal: 3 player kills and 5 kills in all"
        if s.final_deaths:
            return "goal: the last one standing (every death is final now)"
        return "goal: 2 kills, then the last one standing"

    def legend(self, match, layout):
        s = match.state
        out = [{"colour": css(self.seat_colour(s, q)), "shape": self.seat_shape(s, q),
                "words": self.who(s, q) + ("" if not s.players[q]["out"] else ", out")}
               for q in s.seats]
        out.append({"colour": css((238, 238, 238)), "shape": "▭",
                    "words": "a location card laid on the map (its name); in italics: "
                             "searched out (exhausted) or destroyed"})
        out.append({"colour": css((255, 255, 255)), "shape": "?", "look": "card_back",
                    "words": "a cell not yet discovered: its location card is drawn when "
                             "someone steps there"})
        out.append({"colour": css((120, 120, 120)), "shape": "◇",
                    "words": "a character of the map (an NPC): meet it on its location"})
        if len(s.seats) == 1:
            out.append({"colour": css((120, 120, 120)), "shape": "☠",
                        "words": "a hunter: it comes for you, 3 steps a day"})
        out.append({"colour": css((200, 40, 40)), "shape": "⚔",
                    "words": "a battle going on there"})
        # The lights round each cell, as the table's tiles show them (scenes.py).
        for rgb, shape, words in (
                (scenes.LANDMARK, "◆", "lights: gold, a landmark; green, a basic location; "
                                       "crimson, an ambush that may still spring"),
                (scenes.SEARCHABLE, "⬆", "lights: a bright green top edge, it may be "
                                         "searched; almost dark, searched out"),
                (lights.HINT_SLIDE, "◎", "lights: every edge pulsing, where the player whose "
                                         "turn it is may step"),
                (scenes.BATTLE, "⚔", "lights: crimson pulsing, a battle; each token an edge in its "
                                     "player's colour (white: a character of the map or a "
                                     "hunter); an orange flash, an ambush"),
                (lights.BOT_MOVE, "☀", "lights: the event deck's reader pulsing, the Sundial "
                                       "flips the next day's event; a seat's reader pulsing in "
                                       "its colour, the game waits on that player")):
            out.append({"colour": css(rgb), "shape": shape, "words": words})
        return out

    # ------------------------------------------------------------ the log

    def request_words(self, state, action):
        """A move asked of the table, before it is made: never a card of a hand."""
        s = state
        kind = action.get("type")
        if kind == "step":
            to = action.get("to")
            cell = core.index(to) if core.is_xy(to) else None
            if cell is not None and s.cells[cell] is not None:
                return "move to %s" % self._place(s, cell)
            return "move to %s and discover it" % cell_words(to) if cell is not None \
                else "move"
        if kind == "battle" and action.get("target") in s.players:
            return "start a battle with %s" % self.who(s, action["target"])
        if kind in ("attack", "signature", "super") and action.get("target"):
            b = fights.of_seat(s, action.get("seat"))
            if b is not None and action["target"] in b["fighters"]:
                return "%s %s" % (self.action_words(kind), self.fighter(
                    s, b, action["target"]))
        if kind in ("choose", "continue"):
            # The character comes out of the bonus deck: named once it is on the table.
            return "choose a character" if kind == "choose" else "continue as another character"
        return self.action_words(kind)

    def describe(self, state, action, events):
        s = state
        hidden = self._hidden(s)
        self._remember(s, events)
        self._see(s)
        found = set(tuple(ev["cell"]) for ev in events if ev["type"] == "discovered")
        said = []
        for ev in events:
            if ev["type"] == "discovered" and ev.get("seat") is not None and [
                    m for m in events if m["type"] == "moved" and tuple(m["to"]) == tuple(
                        ev["cell"])]:
                continue        # said with the step that discovered it
            if ev["type"] == "moved" and tuple(ev["to"]) in found:
                lid = s.cells[core.index(ev["to"])]
                said.append("%s steps to %s and discovers %s." % (
                    self._mover(s, ev), cell_words(ev["to"]), self.name(s, lid)))
                continue
            for line in self._event_words(s, action, ev, hidden):
                if line and line not in said:
                    said.append(line)
        if said:
            return self._once(s, " ".join(said))
        who = ft.actor(s, action)
        return "%s: %s." % (self.who(s, who) if who else "The table",
                            self.request_words(s, action))

    @property
    def _gone(self):
        """(seed, battle, fighter) -> the enemy's name, for the words of a battle that ended
        with the action being described (its fighters are gone from the state)."""
        return self.__dict__.setdefault("_fighters_seen", {})

    def _remember(self, s, events):
        gone = self._gone
        if len(gone) > 400:
            gone.clear()
        for b in s.battles:
            for fid in b["fighters"]:
                if "enemy" in b["fighters"][fid]:
                    gone[(s.seed, b["id"], fid)] = self.name(s, b["fighters"][fid]["enemy"])
        for ev in events:
            if ev.get("enemy") and ev.get("fighter") and "battle" in ev:
                gone[(s.seed, ev["battle"], ev["fighter"])] = self.name(s, ev["enemy"])

    def _mover(self, s, ev):
        """Who moved: the player, or the player's separated character."""
        c = ev.get("character")
        if c and c != s.players[ev["seat"]]["active"]:
            return "%s's %s" % (self.seat_name(s, ev["seat"]), self.name(s, c))
        return self.who(s, ev["seat"])

    def _once(self, s, line):
        """A player named in full once a line, then by seat ("Player 1 (Captain Hook) ...
        Player 1 draws a bonus card")."""
        for q in s.seats:
            full = self.who(s, q)
            at = line.find(full)
            if at < 0 or full == self.seat_name(s, q):
                continue
            head = line[:at + len(full)]
            line = head + line[at + len(full):].replace(full, self.seat_name(s, q))
        return line

    def card_or(self, s, cid, hidden, words):
        """A card's name, or `words` when it is hidden from the table."""
        if cid is None or cid in hidden:
            return words
        return self.name(s, cid)

    def _event_words(self, s, action, ev, hidden):   # noqa: C901 (one case per event)
        k = ev["type"]
        who = lambda q: self.who(s, q)   # noqa: E731
        name = lambda c: self.name(s, c)   # noqa: E731
        b = fights.by_id(s, ev["battle"]) if "battle" in ev else None

        def fighter(fid):
            if b is not None and fid in b["fighters"]:
                return self.fighter(s, b, fid)
            if fid in s.players:
                return who(fid)
            return self._gone.get((s.seed, ev.get("battle"), fid), "the enemy")

        if k == "turn_begins":
            return ["%s's turn begins." % who(ev["seat"])]
        if k in ("chance_taken", "sundial_flips", "play_begins",
                 "enemy_attack_die", "bonus_deck_empty", "rejoins"):
            return []
        if k == "attack_turn_ends":
            return ["%s ends the attack turn." % who(ev["seat"])]
        if k == "chosen":
            return ["%s chooses %s (%s)." % (self.seat_name(s, ev["seat"]),
                                             name(ev["character"]), trait_words(ev["traits"]))]
        if k == "day_begins":
            card = s.cat.decks["events"][ev["event"]]
            if ev.get("held"):
                return ["Day %d: %s holds." % (ev["day"], card["name"])]
            return ["Day %d: %s. %s" % (ev["day"], card["name"], card["text"])]
        if k == "events_reshuffled":
            return ["The events are shuffled into a new deck."]
        if k == "turn_ends":
            return ["%s ends the turn." % who(ev["seat"])]
        if k == "moved":
            return ["%s moves to %s." % (self._mover(s, ev), self._place(s, ev["to"]))]
        if k == "discovered":
            return ["%s is discovered at %s." % (name(ev["location"]), cell_words(ev["cell"]))]
        if k in ("destroyed", "changed", "restored"):
            return ["%s %s." % (self._place(s, ev["cell"]) if k != "changed" else
                                name(ev["location"]),
                                {"destroyed": "is destroyed", "changed": "changes into " +
                                 name(ev.get("to")), "restored": "is restored"}[k])]
        if k == "searched":
            what = "searches %s" % name(ev["location"])
            if ev.get("cost"):
                what += " for %s" % plural(ev["cost"], "trait")
            if ev.get("exhausted"):
                what += ": it is searched out"
            return ["%s %s." % (who(ev["seat"]), what)]
        if k == "landmark_bonus":
            return ["%s enters %s for the first time: a bonus card." % (
                who(ev["seat"]), name(ev["location"]))]
        if k == "bonus_drawn":
            return ["%s draws a bonus card." % who(ev["seat"])]
        if k == "bonus_reshuffled":
            return ["The bonus discard pile is shuffled into a new bonus deck."]
        if k == "character_drawn":
            return ["%s meets %s." % (who(ev["seat"]), self.card_or(
                s, ev["character"], hidden, "a character from the bonus deck"))]
        if k == "recruited":
            got = ev.get("gained") or {}
            return ["%s joins %s's party%s." % (name(ev["character"]), who(ev["seat"]),
                                                " (+%s)" % trait_words(got) if got else "")]
        if k == "ignored":
            return ["%s sends the character back into the bonus deck." % who(ev["seat"])]
        if k == "rummaged":
            return ["%s rummages: the card goes back and another is drawn." % who(ev["seat"])]
        if k == "peeked":
            return ["%s looks at the top bonus card%s." % (
                who(ev["seat"]), " and puts it at the bottom" if ev.get("bottom") else "")]
        if k == "potion_token":
            return ["%s gains a %s potion token." % (who(ev["seat"]), ev["potion"])]
        if k == "npc_appears":
            return ["%s appears at %s." % (name(ev["npc"]), self._place(s, ev["cell"]))]
        if k == "npc_moves":
            return ["%s walks to %s." % (name(ev["npc"]), self._place(s, ev["to"]))]
        if k == "npc_met":
            return ["%s meets %s." % (who(ev["seat"]), name(ev["npc"]))]
        if k == "hunter_revealed":
            return ["%s enters the Battle Royale on the Dragon Inn, hunting you." %
                    name(ev["hunter"])]
        if k == "hunter_moves":
            return ["%s hunts to %s." % (name(ev["hunter"]), self._place(s, ev["to"]))]
        if k == "equipped":
            return ["%s equips %s on %s." % (who(ev["seat"]), name(ev["item"]),
                                             name(ev["character"]))]
        if k == "unequipped":
            return ["%s takes %s off." % (who(ev["seat"]), self.card_or(
                s, ev["item"], hidden, "an item"))]
        if k == "item_lost":
            why = {"used": "used up", "broken": "broken", "break": "broken"}.get(
                ev.get("why"), ev.get("why") or "lost")
            return ["%s loses %s (%s)." % (who(ev["seat"]), self.card_or(
                s, ev["item"], hidden, "an item"), str(why).replace("_", " "))]
        if k == "item_given":
            return ["%s gives %s to %s." % (who(ev["seat"]), self.card_or(
                s, ev["item"], hidden, "an item"), who(ev["to"]))]
        if k == "stolen":
            return ["%s steals a card from %s." % (who(ev["seat"]), who(ev["from_seat"]))]
        if k == "discarded":
            return ["%s discards a card of the quest hand." % who(ev["seat"])]
        if k == "epic_item":
            return ["%s wins %s." % (who(ev["seat"]), self.card_or(
                s, ev["item"], hidden, "an epic item"))]
        if k == "legendary_claimed":
            return ["%s claims %s." % (who(ev["seat"]), self.card_or(
                s, ev["item"], hidden, "a legendary item"))]
        if k == "legendary_vanishes":
            return ["%s vanishes from %s's inventory." % (name(ev["item"]), who(ev["seat"]))]
        if k == "no_legendary":
            return []
        if k == "switched":
            return ["%s now leads with %s." % (self.seat_name(s, ev["seat"]),
                                               name(ev["character"]))]
        if k == "burned":
            return ["%s burns a reputation point for 1 %s." % (who(ev["seat"]),
                                                              TRAIT_WORDS[ev["trait"]])]
        if k == "used":
            what = name(ev["card"])
            if ev.get("kind") == "ability":
                card = s.cat.decks["characters"].get(ev["card"])
                if card is not None:
                    what = "%s's ability, %s" % (card["name"], card["ability"]["name"])
            paid = ev.get("paid") or {}
            return ["%s uses %s%s." % (who(ev["seat"]), what, " (pays %s)" % trait_words(paid)
                                       if paid else "")]
        if k == "gained":
            if not ev.get("gained"):
                return []
            return ["%s gains %s." % (who(ev["seat"]), trait_words(ev["gained"]))]
        if k in ("lost", "poisoned"):
            if not ev.get("lost"):
                return []
            return ["%s loses %s%s." % (who(ev["seat"]), trait_words(ev["lost"]),
                                        " to poison" if k == "poisoned" else "")]
        if k == "hurt":
            return ["%s takes %s." % (who(ev["seat"]), plural(sum(
                (ev.get("lost") or {}).values()), "damage", "damage"))]
        if k == "reputation":
            return ["%s %s %s reputation (now %d)." % (
                who(ev["seat"]), "gains" if ev["n"] > 0 else "loses", abs(ev["n"]),
                ev["reputation"])]
        if k == "max_health":
            return ["%s's maximum health rises by %d." % (who(ev["seat"]), ev["n"])]
        if k == "cured":
            return ["%s is cured." % who(ev["seat"])]
        if k == "status":
            target = ev.get("fighter", ev.get("seat"))
            return ["%s suffers %s." % (fighter(target), STATUS_WORDS.get(
                ev["status"], ev["status"]))]
        if k == "tactic_enabled":
            tac = s.cat.decks["tactics"].get(ev["tactic"])
            return ["%s enables the tactic card %s." % (
                who(ev["seat"]), tac["name"] if tac else "a tactic card")]
        if k == "traits_swapped":
            return ["%s moves %d %s into %s." % (who(ev["seat"]), ev["moved"],
                                                TRAIT_WORDS.get(ev["out_of"], ev["out_of"]),
                                                TRAIT_WORDS.get(ev["into"], ev["into"]))]
        # quests
        if k == "quest_opened":
            return ["%s opens a quest from %s%s." % (
                who(ev["seat"]), PILES.get(ev["pile"], "a pile"),
                ": " + name(ev["quest"]) if ev.get("quest") else "")]
        if k == "quest_taken":
            return ["%s takes a quest from %s." % (who(ev["seat"]), PILES.get(ev["pile"],
                                                                               "a pile"))]
        if k == "quest_started":
            q = s.cat.decks["quests"][ev["quest"]]
            return ["%s begins the quest %s: %s" % (who(ev["seat"]), q["name"], q["text"])]
        if k == "quest_discarded":
            return ["%s gives up the quest %s." % (who(ev["seat"]), name(ev["quest"]))]
        if k == "quest_stage":
            return ["%s completes a stage of %s." % (who(ev["seat"]), name(ev["quest"]))]
        if k == "quest_completed":
            return ["%s completes the quest %s." % (who(ev["seat"]), name(ev["quest"]))]
        if k == "quest_expired":
            return ["%s ran out of time for %s." % (who(ev["seat"]), name(ev["quest"]))]
        if k == "offered":
            return ["%s makes the offering of %s (%s)." % (
                who(ev["seat"]), name(ev["quest"]), trait_words(ev.get("paid") or {}))]
        if k == "delivered":
            items = [name(c) for c in ev.get("items", [])]
            return ["%s delivers %s for %s." % (who(ev["seat"]), and_list(items) or "the items",
                                                name(ev["quest"]))]
        if k == "boss_challenged":
            return ["%s challenges %s (%s)." % (who(ev["seat"]), name(ev["boss"]),
                                                name(ev["quest"]))]
        if k == "victory_card":
            card = s.cat.decks["victory"][ev["card"]]
            return ["%s takes the %s card %s: %s" % (who(ev["seat"]), ev["deck"].capitalize(),
                                                     card["name"], card["text"])]
        if k == "victory_reward":
            return ["%s's %s pays out." % (self.seat_name(s, ev["seat"]), name(ev["card"]))]
        # parties
        if k == "alliance_offered":
            return ["%s offers %s an Ally Party." % (who(ev["seat"]), who(ev["to"]))]
        if k == "alliance_declined":
            return ["%s declines the Ally Party." % who(ev["seat"])]
        if k == "alliance_formed":
            return ["%s form an Ally Party on the Dragon Inn." % and_list(
                who(q) for q in ev["members"])]
        if k == "alliance_left":
            return ["%s leaves the Ally Party." % who(ev["seat"])]
        if k == "separated":
            return ["%s separates %s from the party." % (who(ev["seat"]),
                                                         name(ev["character"]))]
        if k == "reunited":
            return ["%s reunites with %s." % (who(ev["seat"]), name(ev["character"]))]
        if k == "sacrificed":
            return ["%s sacrifices %s in a Blood Pact." % (who(ev["seat"]),
                                                           name(ev["character"]))]
        if k == "continues_as":
            return ["%s continues as %s." % (self.seat_name(s, ev["seat"]),
                                             name(ev["character"]))]
        if k == "eliminated":
            return ["%s is out of the Battle Royale." % self.seat_name(s, ev["seat"])]
        if k == "new_sundial":
            return ["%s is the Sundial now." % who(ev["seat"])]
        if k == "wave_enters":
            return ["Wave %d enters the Battle Royale: %s." % (ev["wave"], and_list(
                self.seat_name(s, q) for q in ev["seats"]))]
        if k == "deaths_final":
            return ["A player has killed two characters: from now on every death is final."]
        # battles
        if k == "ambushed":
            return ["Ambush! %s attacks %s." % (name(ev["enemy"]), who(ev["seat"]))]
        if k == "battle_begins":
            seats = ev["seats"]
            if ev.get("enemy") is not None and ev.get("first") != seats[0]:
                return ["Battle: %s against %s." % (and_list(who(q) for q in seats),
                                                    name(ev["enemy"]))]
            if ev.get("enemy") is not None:
                return ["Battle: %s attacks %s." % (and_list(who(q) for q in seats),
                                                    name(ev["enemy"]))]
            return ["Battle: %s attacks %s." % (who(seats[0]), and_list(
                who(q) for q in seats[1:]))]
        if k == "joins_battle":
            return ["%s joins the battle." % who(ev["seat"])]
        if k == "assists":
            return ["%s assists the battle." % who(ev["seat"])]
        if k == "attack":
            card = self.name(s, ev["card"])
            return ["%s attacks %s with %s: %d ATK." % (who(ev["seat"]), fighter(ev["target"]),
                                                        card, ev["atk"])]
        if k == "signature":
            return ["%s uses the Signature Move %s." % (who(ev["seat"]), ev["move"])]
        if k == "super_move":
            return ["%s unleashes the Super Move %s!" % (who(ev["seat"]), ev["move"])]
        if k == "defended":
            t = fighter(ev["fighter"])
            if ev.get("card"):
                head = "%s defends with %s: %d DEF" % (t, self.name(s, ev["card"]),
                                                       ev["defence"])
            else:
                head = "%s takes the attack (%d DEF)" % (t, ev["defence"]) if ev["defence"] \
                    else "%s takes the attack" % t
            if ev.get("absorbed"):
                head += ", armour absorbs %d" % ev["absorbed"]
            return ["%s; %s." % (head, plural(ev["damage"], "damage", "damage")
                                 if ev["damage"] else "no damage")]
        if k == "damage":
            return ["%s loses %d health (%d left)." % (fighter(ev["fighter"]), ev["n"],
                                                      ev["health"])]
        if k == "bleeds":
            return ["%s bleeds %d more." % (fighter(ev["fighter"]), ev["extra"])]
        if k == "poison_bites":
            return ["Poison bites %s for %d." % (fighter(ev["fighter"]), ev["n"])]
        if k == "stunned":
            return ["%s is stunned and cannot attack." % fighter(ev["fighter"])]
        if k == "extra_turn":
            return ["%s takes another attack turn." % fighter(ev.get("fighter",
                                                                     ev.get("seat")))]
        if k == "knocked_back":
            return ["%s is knocked back: %s fights on." % (self.seat_name(s, ev["seat"]),
                                                          name(ev["character"]))]
        if k == "tagged_out":
            return ["%s tags out: %s fights on." % (self.seat_name(s, ev["seat"]),
                                                   name(ev["character"]))]
        if k == "enemy_attack_roll":
            return ["%s rolls %d and attacks for %d ATK%s." % (
                fighter(ev["fighter"]), ev["die"], ev["atk"],
                " (%s)" % STATUS_WORDS.get(ev["status"], ev["status"]) if ev.get("status")
                else "")]
        if k == "enemy_attack":
            return ["%s attacks for %d ATK." % (fighter(ev["fighter"]), ev["atk"])]
        if k == "enemy_defence_roll":
            return ["%s rolls %d to defend: %d DEF." % (fighter(ev["fighter"]), ev["die"],
                                                        ev["defence"])]
        if k == "flipped":
            return ["%s turns up %s." % (fighter(ev["fighter"]), and_list(
                name(c) for c in ev["cards"]) or "nothing")]
        if k == "enemy_heals":
            return ["%s heals %d." % (fighter(ev["fighter"]), ev["n"])]
        if k == "enemy_cured":
            return ["%s is cured." % fighter(ev["fighter"])]
        if k == "enemy_escape_roll":
            return ["%s tries to escape: %d against %d." % (fighter(ev["fighter"]), ev["die"],
                                                            ev["against"])]
        if k == "enemy_escapes":
            return ["%s escapes the battle." % fighter(ev["fighter"])]
        if k == "enemy_killed":
            return ["%s is defeated%s." % (name(ev["enemy"]), " by " + who(ev["by"])
                                           if ev.get("by") else "")]
        if k == "killed":
            return ["%s is killed%s." % (who(ev["seat"]) if ev["character"] == s.players[
                ev["seat"]]["active"] else "%s's %s" % (self.seat_name(s, ev["seat"]),
                                                        name(ev["character"])),
                " by " + who(ev["by"]) if ev.get("by") else "")]
        if k == "healed":
            return ["%s heals (die %d): +%s." % (who(ev["seat"]), ev["die"],
                                                 trait_words(ev.get("gained") or {}))]
        if k == "flee_roll":
            return ["%s tries to flee: %d against %d." % (who(ev["seat"]), ev["die"],
                                                          ev["against"])]
        if k == "flee_failed":
            return ["%s fails to flee: the enemy's next attack cannot be blocked." %
                    who(ev["seat"])]
        if k == "escape_roll":
            return ["%s rolls %d: escaping costs %s." % (who(ev["seat"]), ev["die"],
                                                          plural(ev["cost"], "trait"))]
        if k == "escape_bid":
            return ["%s bids %s to escape." % (who(ev["seat"]), plural(ev["bid"], "trait"))]
        if k == "escape_gamble":
            return ["%s bid %d against %d." % (who(ev["seat"]), ev["bid"], ev["against"])]
        if k == "escape_failed":
            return ["%s fails to escape." % who(ev["seat"])]
        if k == "scatter":
            return ["Scatter: %s escapes at once." % who(ev["seat"])]
        if k == "left_battle":
            return ["%s %s the battle." % (who(ev["seat"]), "escapes" if ev["how"] == "escaped"
                                           else "flees" if ev["how"] == "fled" else "leaves")]
        if k == "truce_called":
            return ["%s calls a truce." % who(ev["seat"])]
        if k == "truce":
            return ["The battle ends in a truce."]
        if k == "battle_ends":
            return []
        if k == "mind_shift":
            return ["%s shifts %s's traits (Mind Shift)." % (who(ev["seat"]), who(ev["target"]))]
        if k == "hostage_taken":
            return ["%s takes %s hostage." % (who(ev["seat"]), name(ev["character"]))]
        if k == "ransom_paid":
            return ["%s pays the ransom for %s." % (who(ev["seat"]), name(ev["character"]))]
        if k == "hostage_lost":
            return ["%s is lost to the bonus deck: no ransom was paid." % name(
                ev["character"])]
        if k == "rewards_to_share":
            return ["%s share the rewards of %s." % (and_list(who(q) for q in ev["seats"]),
                                                     name(ev["enemy"]))]
        if k == "split_proposed":
            return ["%s proposes a sharing: %s." % (who(ev["seat"]), ", ".join(
                self.seat_name(s, q) for q in ev["split"]))]
        if k == "split_accepted":
            return ["%s agrees to the sharing." % who(ev["seat"])]
        if k == "rewards_shared":
            return ["The rewards of %s are shared." % name(ev["enemy"])]
        if k == "conflict":
            return ["%s causes a Conflict over the rewards." % who(ev["seat"])]
        if k in ("conflict_faced", "conflict_ignored"):
            return ["%s %s the Conflict." % (who(ev["seat"]), "faces" if k == "conflict_faced"
                                             else "ignores")]
        if k == "conflict_lapses":
            return ["Nobody faces the Conflict of %s." % who(ev["seat"])]
        if k == "game_over":
            return [self.ending(s) + "."]
        text = ev.get("text")
        if isinstance(text, str) and "_" not in text:
            return [text]
        return []

    # ------------------------------------------------------------ the map

    def items(self, match, table, seat, reveal=False):
        s = match.state
        known = ft.result(s) if reveal else ft.view(s, seat)
        out = {}
        for i in range(core.NCELLS):
            out[tuple(core.xy(i))] = []
        for entry in known["map"]:
            cell = tuple(entry["cell"])
            loc = s.cat.decks["locations"][entry["location"]]
            state_words = []
            if entry["flipped"]:
                state_words.append("searched out" if loc["kind"] != "basic" or
                                   entry["searched"] else "flipped over")
            elif loc["boxes"] and entry["searched"]:
                state_words.append("searched %s" % plural(entry["searched"], "time"))
            title = "%s (%s%s): %s" % (loc["name"], loc["kind"], (
                ", " + loc["terrain"]) if loc.get("terrain") else "", loc["text"])
            if state_words:
                title += " Now %s." % ", ".join(state_words)
            out[cell].append(item("card", short(loc["name"]), title, id=entry["location"],
                                  down=bool(entry["flipped"]) or None))
        for cell, pieces in out.items():
            if not pieces:
                pieces.append(item("card_back", "?", "%s: not discovered yet" %
                                   cell_words(cell)))
        for b in known["battles"] if s.status == "ongoing" else []:
            cell = tuple(b["cell"])
            sides = [self._fighter_health(s, b, fid) for fid in sorted(b["fighters"])
                     if b["fighters"][fid]["out"] is None]
            out[cell].append(item("token", "Battle", "A battle: %s" % "; ".join(sides),
                                  shape="⚔"))
        for token, where in sorted(places.tokens(s).items()):
            out.setdefault(where["cell"], []).append(self._token(s, known, token, where))
        self._deck_cells(s, seat, reveal, out)
        return out

    def _token(self, s, known, token, where):
        """A token on the map as a piece: a player's (its colour and shape), an Ally Party's,
        a separated character's, an NPC's, a hunter's."""
        cid = token[len(places.TOKEN):]
        if where["unit"] is not None:
            members = [q for q in s.allies[where["unit"]]["members"]
                       if not s.players[q]["out"]]
            lead = members[0]
            return item("pawn", short(self.name(s, cid)), "The Ally Party of %s" % and_list(
                self.who(s, q) for q in members), colour=css(self.seat_colour(s, lead)),
                shape=self.seat_shape(s, lead), owner=lead)
        q = where["seat"]
        if q is not None:
            p = known["players"][q]
            if where["character"] is not None and where["character"] != p["active"]:
                a = p["away"].get(cid, {})
                return item("pawn", short(self.name(s, cid)), "%s's %s (separated)%s" % (
                    self.seat_name(s, q), self.name(s, cid), ", %d health" % a["health"]
                    if "health" in a else ""), colour=css(self.seat_colour(s, q)),
                    shape=self.seat_shape(s, q), owner=q)
            return item("pawn", short(self.name(s, cid)), "%s, %d of %d health%s" % (
                self.who(s, q), p["health"], p["max_health"],
                ", in battle" if p["battle"] is not None else ""),
                colour=css(self.seat_colour(s, q)), shape=self.seat_shape(s, q), owner=q)
        if cid in s.cat.decks["npcs"]:
            card = s.cat.decks["npcs"][cid]
            return item("token", short(card["name"]), "%s: %s" % (card["name"], card["text"]),
                        shape="◇")
        health = [h["health"] for h in known["hunters"] if h["id"] == cid]
        return item("token", short(self.name(s, cid)), "%s, a hunter%s" % (
            self.name(s, cid), ", %d health" % health[0] if health else ""), shape="☠")

    def _deck_cells(self, s, seat, reveal, out):
        """The deck readers beside the map: the day's event face up, the bonus deck (a
        character drawn waits there for its drawer), the quest piles."""
        if s.event is not None:
            ev = s.cat.decks["events"][s.event]
            out[places.EVENTS] = [item("card", short(ev["name"]), "Day %d: %s. %s" % (
                s.day, ev["name"], ev["text"]), id=s.event)]
        else:
            out[places.EVENTS] = [item("card_back", "Events", "The event deck: %s left" %
                                       plural(len(s.decks["events"]), "card"))]
        bonus = [item("card_back", "Bonus", "The bonus deck: %s" % plural(
            len(s.decks["bonus"]), "card"))]
        for d in s.pending:
            if d["kind"] != "character":
                continue
            if reveal or d["seat"] == seat:
                bonus.append(item("card", short(self.name(s, d["card"])), "%s, drawn by %s: "
                                  "recruit, ignore or ambush" % (self.name(s, d["card"]),
                                                                 self.who(s, d["seat"])),
                                  id=d["card"]))
            else:
                bonus.append(item("card_back", "?", "A character drawn by %s, who decides "
                                  "about it" % self.who(s, d["seat"])))
        out[places.BONUS] = bonus
        for cell, piles in ((places.EASY, ("easy",)), (places.MEDIUM, ("medium",)),
                            (places.BOSS, ("boss", "end"))):
            n = sum(len(s.decks[x]) for x in piles)
            label = PILES[piles[0]].split(" ", 1)[1].capitalize()
            out[cell] = [item("card_back", label.replace(" quests", ""), "%s: %s%s" % (
                label, plural(n, "card"), " (and the End Game quests, face up)"
                if "end" in piles else ""))]

    def _fighter_health(self, s, b, fid):
        f = b["fighters"][fid]
        if "enemy" in f:
            return "%s %d of %d health" % (self.name(s, f["enemy"]), f["health"],
                                           f["max_health"])
        p = s.players[f["seat"]]
        return "%s %d of %d health" % (self.who(s, f["seat"]), core.health(p["traits"]),
                                       core.max_health(s, p))

    def reader_cards(self, match, table, number):
        s = match.state
        out = []
        for seen in table.seat_observed.get(number, ()):
            cid = seen.split(":")[-1]
            name = self.name(s, cid)
            if name == cid:
                name = cid.replace("_", " ")
            out.append(item("card", name, name))
        return out

    # ------------------------------------------------------------ panels

    def panels(self, match, table, seat):
        """What everyone may read beside the map: each player's health and kills, the
        battles with both sides' health, the day's event."""
        s = match.state
        if s.phase == "choose" and s.status == "ongoing":
            return [{"title": "Players", "rows": [
                {"label": self.seat_name(s, q), "value": self.name(s, s.players[q]["character"])
                 if s.players[q]["character"] else "choosing",
                 "shape": self.seat_shape(s, q), "colour": css(self.seat_colour(s, q))}
                for q in s.seats]}]
        known = ft.view(s, seat)
        out = [self._players_panel(s, known)]
        if s.status == "ongoing":
            out.extend(self._battle_panel(s, b) for b in known["battles"])
        if s.event is not None:
            ev = s.cat.decks["events"][s.event]
            out.append({"title": "Day %d: %s" % (s.day, ev["name"]), "rows": [
                {"label": ev["text"], "value": "%s more" % plural(s.event_hold, "day")
                 if s.event_hold else ""}]})
        return out

    def _players_panel(self, s, known):
        rows = []
        for q in s.seats:
            p = known["players"][q]
            if p["out"]:
                value = "out"
            elif not p["entered"]:
                value = "waiting to enter"
            else:
                value = "%d/%d health · %s" % (p["health"], p["max_health"], plural(
                    p["kills"]["characters"], "kill"))
                if p["kills"]["players"]:
                    value += " (%d of players)" % p["kills"]["players"]
            where = []
            if p["battle"] is not None and s.status == "ongoing":
                where.append("in battle")
            if p["ally"] is not None:
                mates = [x for x in known["allies"][p["ally"]]["members"] if x != q]
                where.append("Ally Party with %s" % and_list(self.seat_name(s, x)
                                                             for x in mates))
            if p["poison"]:
                where.append("poisoned (%d)" % p["poison"])
            if len(p["party"]) > 1:
                where.append("party of %d" % len(p["party"]))
            where.append("reputation %d" % p["reputation"])
            if q in known["actors"] and not p["out"]:
                where.insert(0, "acting now")
            rows.append({"label": self.who(s, q) if p["character"] else self.seat_name(s, q),
                         "value": value, "note": ", ".join(where),
                         "shape": self.seat_shape(s, q), "colour": css(self.seat_colour(s, q)),
                         "state": "dim" if p["out"] else ("lit" if q in known["actors"]
                                                          else None)})
        return {"title": "Players", "rows": rows}

    def _battle_panel(self, s, b):
        rows = []
        waiting = b["waiting_for"]
        for fid in sorted(b["fighters"]):
            f = b["fighters"][fid]
            if "enemy" in f:
                label = "%s (%s)" % (self.name(s, f["enemy"]), f["kind"])
                value = "%d/%d health" % (f["health"], f["max_health"])
                note = []
                if f["poison"]:
                    note.append("poisoned")
                state = None
            else:
                p = s.players[f["seat"]]
                label = self.who(s, f["seat"])
                value = "%d/%d health · %s" % (core.health(p["traits"]), core.max_health(s, p),
                                               plural(f["hand_size"], "card"))
                note = []
                if f["stunned"]:
                    note.append("stunned")
                if p["poison"]:
                    note.append("poisoned")
                state = "lit" if f["seat"] == waiting else None
                if state:
                    note.insert(0, "to move now")
                label = "%s as %s" % (self.seat_name(s, f["seat"]), self.name(
                    s, f["character"])) if f["character"] != p["active"] else label
            if f["out"] is not None:
                value = OUT_WORDS.get(f["out"], str(f["out"]).replace("_", " "))
                note = []
                state = "dim"
            rows.append({"label": label, "value": value, "note": ", ".join(note),
                         "state": state})
        doing = self._battle_banner(s, fights.by_id(s, b["id"]), None).split(": ", 1)[-1]
        rows.append({"label": "Now", "value": doing[:1].upper() + doing[1:]})
        return {"title": "Battle at %s, round %d" % (self._place(s, b["cell"]), b["round"]),
                "rows": rows}

    # ------------------------------------------------------------ a seat

    def you(self, match, table, seat, held=None):
        s = match.state
        if s.status != "ongoing" and not s.players[seat]["character"]:
            return {"hand": [], "choices": [], "note": None, "board": []}
        legal = self._legal(match, seat)
        known = ft.view(s, seat)
        return {"name": self.who(s, seat), "hand": self._hand(s, seat, known),
                "choices": self.choices(s, seat, legal), "note": self._note(s, seat, legal),
                "board": self.board(s, seat, known, legal), "moves": self._moves(s, seat, legal)}

    def _hand(self, s, seat, known):
        """The cards the seat holds (its battle hand in battle, else its quest hand): a card
        picked goes on the seat's card reader, read once it lies still."""
        out = []
        p = known["players"][seat]
        cards = list(p.get("hand", []))
        for b in known["battles"]:
            f = b["fighters"].get(seat)
            if f is not None and "hand" in f:
                cards = list(f["hand"])
        for cid in cards:
            out.append({"id": cid, "label": self.name(s, cid), "kind": "card", "targets": [],
                        "reader": True, "title": self._card_text(s, cid)})
        return out

    def _card_text(self, s, cid):
        """A card's own words (what it does), for its title."""
        if cid in s.cat.battle_instances:
            card = s.cat.battle_card(cid)
        else:
            card = None
            for deck in ("bonus", "quests", "characters", "tactics", "victory", "events",
                         "locations", "npcs", "enemies"):
                card = s.cat.decks[deck].get(cid)
                if card is not None:
                    break
        if card is None:
            return self.name(s, cid)
        text = card.get("text")
        if not text and "ability" in card:
            text = "%s: %s" % (card["ability"]["name"], card["ability"]["text"])
        return "%s: %s" % (card["name"], text) if text else card["name"]

    def _moves(self, s, seat, legal):
        """Where the seat's token may step now: {"x,y": [[x, y]...]} from where it stands."""
        out = {}
        for a in legal:
            if a["type"] != "step":
                continue
            p = s.players[seat]
            if a.get("character"):
                at = core.xy(p["away"][a["character"]]["cell"])
            else:
                at = core.xy(core.cell_of(s, seat))
            out.setdefault("%d,%d" % (at[0], at[1]), []).append(list(a["to"]))
        return out

    def _note(self, s, seat, legal):
        """What the seat may do now, in one sentence."""
        p = s.players[seat]
        if s.status != "ongoing":
            return None
        if p["out"]:
            return "You are out of the Battle Royale: watch the others."
        if s.phase == "choose":
            if p["character"] is None:
                return ("Choose your primary character: its health is split evenly over the "
                        "traits its board shows, and you begin on the Dragon Inn.")
            return "Wait for the others to choose."
        kinds = set(a["type"] for a in legal)
        sundial = " You are the Sundial: flip the event of the new day." \
            if "flip_event" in kinds else ""
        mine = [d for d in s.pending if d["seat"] == seat or seat in (d.get("seats") or [])]
        if mine and [a for a in legal if a["type"] != "flip_event"]:
            return "Decide: %s." % world.decision_words(s, mine[0])
        b = fights.of_seat(s, seat)
        if b is not None:
            a = b["await"]
            q = fights.whose_move(s, b)
            if a is not None and a["seat"] == seat:
                return "Now: %s.%s" % (fights.await_words(s, b), sundial)
            if q != seat:
                return "Your battle waits for %s.%s" % (self.who(s, q), sundial)
            if "enemy_turn" in kinds:
                return "The enemy's turn: roll its attack die.%s" % sundial
            return ("Your attack turn: play an attack (with a modifier), a Signature Move, a "
                    "battle card or an item; then end the attack turn.%s" % sundial)
        if not legal:
            return "Wait for your turn: the others are playing."
        if "flip_event" in kinds and world.current_seat(s) != seat:
            return sundial.strip()
        if world.current_seat(s) == seat:
            left = world.movement_allowed(s, seat) - world.steps_taken(s, seat)
            if left > 0 and "step" in kinds:
                return ("Your turn: move up to %s (a lit cell), search, act, then end the "
                        "turn." % plural(left, "step"))
            return "Your turn: act (battle, quests, items), then end the turn."
        return None

    # ------------------------------------------------------------ the board

    def board(self, s, seat, known, legal):
        """The character board: the leading character, traits, moves, tactic cards, items,
        the party and its bonuses, the quest hand, quests, victory cards, statuses, the
        battle hand. [{"title", "rows": [{"label", "value", "note", "state"}]}]"""
        p = known["players"][seat]
        if p["character"] is None:
            return []
        lead = p["active"]
        c = core.char(s, lead)
        kinds = {}
        for a in legal:
            kinds.setdefault(a["type"], []).append(a)
        out = []
        allowed = None
        if world.current_seat(s) == seat and s.turn is not None:
            allowed = world.movement_allowed(s, seat) - world.steps_taken(s, seat)
        rows = [{"label": "Health", "value": "%d of %d" % (p["health"], p["max_health"]),
                 "state": "bad" if p["health"] <= 5 else None},
                {"label": "Reputation", "value": str(p["reputation"])},
                {"label": "Movement", "value": "%d" % core.movement(s, seat) + (
                    " (%s left this turn)" % plural(max(0, allowed), "step")
                    if allowed is not None else "")},
                {"label": "Faction", "value": FACTIONS.get(c["faction"], "none")},
                {"label": "Weakness", "value": element_words(c["weakness"])},
                {"label": "Element", "value": element_words(c["element"])},
                {"label": "Kills", "value": "%d (%d of players)" % (
                    p["kills"]["characters"], p["kills"]["players"])}]
        out.append({"title": "%s, your leading character" % c["name"], "rows": rows})
        for b in known["battles"]:
            f = b["fighters"].get(seat)
            if f is not None and "hand" in f:
                out.append({"title": "Battle hand (%d)" % len(f["hand"]), "rows": [
                    {"label": self.name(s, x), "value": self._battle_value(s, x),
                     "note": s.cat.battle_card(x)["text"]} for x in f["hand"]] or [
                    {"label": "empty"}]})
        out.append({"title": "Traits (your health)", "rows": [
            {"label": TRAIT_WORDS[t], "value": str(p["traits"][t]),
             "state": "dim" if not p["traits"][t] else None} for t in TRAITS]})
        out.append(self._moves_panel(s, seat, p, c, kinds))
        tactics = [x for x in sorted(p["tactics"]) if x in s.cat.decks["tactics"]]
        if tactics:
            out.append({"title": "Tactic cards", "rows": [
                {"label": s.cat.decks["tactics"][x]["name"],
                 "value": "enabled" if p["tactics"][x] else "dormant",
                 "note": s.cat.decks["tactics"][x]["text"],
                 "state": "lit" if p["tactics"][x] else "dim"} for x in tactics]})
        out.append(self._items_panel(s, seat, p))
        out.append(self._party_panel(s, seat, p))
        if "hand" in p:
            hand = [x for x in p["hand"]]
            out.append({"title": "Quest hand (%d)" % len(hand), "rows": [
                {"label": self.name(s, x), "value": self._kind_words(s, x),
                 "note": self._card_text(s, x).split(": ", 1)[-1]} for x in hand] or [
                {"label": "empty"}]})
        quests = []
        for x in p["quests"]:
            q = s.cat.decks["quests"][x]
            pr = p["progress"].get(x, {})
            until = pr.get("until") or 0
            stages = len(q["goal"].get("stages", [])) or 1
            value = ("%s left" % plural(until - s.day + 1, "day")) if until else "no time limit"
            if stages > 1:
                value += ", stage %d of %d" % (pr.get("stage", 0) + 1, stages)
            quests.append({"label": q["name"], "value": value, "note": q["text"],
                           "state": "bad" if until and until - s.day < 1 else None})
        out.append({"title": "Quests under way (%d)" % len(quests),
                    "rows": quests or [{"label": "none yet"}]})
        if p["victory"]:
            out.append({"title": "Victory cards", "rows": [
                {"label": s.cat.decks["victory"][v]["name"],
                 "value": s.cat.decks["victory"][v]["deck"].capitalize(),
                 "note": s.cat.decks["victory"][v]["text"]} for v in p["victory"]]})
        status = self._status_rows(s, seat, p)
        if status:
            out.append({"title": "Status", "rows": status})
        return out

    def _moves_panel(self, s, seat, p, c, kinds):
        rows = []
        now = [a.get("card") for a in kinds.get("use", [])]
        for m in p["party"]:
            if m in p["away"]:
                continue
            ab = core.char(s, m)["ability"]
            rows.append({"label": "Ability: %s" % ab["name"], "note": ab["text"] + (
                "" if m == p["active"] else " (%s)" % self.name(s, m)),
                "value": "ready" if m in now else "", "state": "lit" if m in now else None})
        ready = set(a["move"] for a in kinds.get("signature", []))
        for k, sg in enumerate(c["signatures"]):
            rows.append({"label": "Signature: %s" % sg["name"], "note": sg["text"],
                         "value": "ready" if k in ready else "",
                         "state": "lit" if k in ready else "dim"})
        sp = c["super"]
        rows.append({"label": "Super: %s" % sp["name"], "note": sp["text"],
                     "value": "ready" if kinds.get("super") else "",
                     "state": "lit" if kinds.get("super") else "dim"})
        return {"title": "Moves", "rows": rows}

    def _items_panel(self, s, seat, p):
        rows = []
        for m in p["party"]:
            card = core.char(s, m)
            items = p["equipped"].get(m, [])
            free = world.slots_free(s, seat, m)
            rows.append({"label": card["name"], "value": "%d of %d slots free" % (
                free, free + len(items)), "state": "dim" if m in p["away"] else None})
            for it in items:
                rows.append({"label": "· " + self.name(s, it), "value": self._item_value(
                    s, p, it), "note": core.item(s, it)["text"]})
        for kind in ("heal", "cure"):
            if p["tokens"].get(kind):
                rows.append({"label": "%s potion tokens" % kind.capitalize(),
                             "value": str(p["tokens"][kind])})
        return {"title": "Items", "rows": rows}

    def _item_value(self, s, p, it):
        card = core.item(s, it)
        parts = []
        if card.get("slot"):
            parts.append(card["slot"])
        for key, words in (("atk", "ATK"), ("def", "DEF"), ("mvm", "MVM")):
            if card.get(key):
                parts.append("%+d %s" % (card[key], words))
        if card.get("boxes"):
            used = p["boxes"].get(it, 0)
            parts.append("%d of %d boxes left" % (card["boxes"] - used, card["boxes"]))
        return ", ".join(parts)

    def _kind_words(self, s, cid):
        if cid in s.cat.decks["quests"]:
            q = s.cat.decks["quests"][cid]
            return "%s quest" % q["pile"].capitalize()
        if cid in s.cat.decks["bonus"]:
            card = core.item(s, cid)
            kind = {"action": "action card", "disposable": "disposable item",
                    "equipable": "item", "legendary": "legendary item",
                    "epic": "epic item"}.get(card["kind"], card["kind"])
            if card.get("slot"):
                kind += " (%s)" % card["slot"]
            return kind
        return ""

    def _battle_value(self, s, cid):
        card = s.cat.battle_card(cid)
        parts = [card["type"].replace("_", " ")]
        if card.get("atk"):
            parts.append("%d ATK" % card["atk"])
        if card.get("def"):
            parts.append("%d DEF" % card["def"])
        return ", ".join(parts)

    def _party_panel(self, s, seat, p):
        rows = []
        for m in p["party"]:
            card = core.char(s, m)
            what = []
            if m == p["active"]:
                what.append("leading")
            if m in p["away"]:
                a = p["away"][m]
                what.append("separated at %s, %d health" % (cell_words(a["cell"]), a["health"]))
            rows.append({"label": card["name"], "value": FACTIONS.get(card["faction"], ""),
                         "note": ", ".join(what), "state": "lit" if m == p["active"] else None})
        counts = core.faction_counts(s, seat)
        for f in sorted(counts):
            n = counts[f]
            if n < 2 or f not in FACTION_BONUSES:
                continue
            team, whole = FACTION_BONUSES[f]
            rows.append({"label": "Team bonus: %s" % team[0], "value": "%d %s" % (
                min(n, 4), FACTIONS[f]), "note": team[1], "state": "lit"})
            if n >= 5:
                rows.append({"label": "Faction bonus: %s" % whole[0], "value": FACTIONS[f],
                             "note": whole[1], "state": "lit"})
        return {"title": "Party (%d of %d)" % (len(p["party"]), core.MAX_PARTY), "rows": rows}

    def _status_rows(self, s, seat, p):
        rows = []
        if p["poison"]:
            rows.append({"label": "Poison", "value": "%d token%s" % (
                p["poison"], "" if p["poison"] == 1 else "s"),
                "note": "1 damage at the start of each turn until cured", "state": "bad"})
        b = fights.of_seat(s, seat)
        if b is not None and seat in b["fighters"]:
            f = b["fighters"][seat]
            if f["stun"] or f["no_attack"]:
                rows.append({"label": "Stun", "value": "no attack on the next attack turn",
                             "state": "bad"})
            rows.append({"label": "In battle", "value": self._place(s, b["cell"])})
        for pr in p["protect"]:
            rows.append({"label": "Protected", "value": "nobody may start a battle with you",
                         "note": "%s more" % plural(pr.get("turns", 0), "turn")
                         if isinstance(pr, dict) and pr.get("turns") else ""})
        if p["ally"] is not None:
            mates = [x for x in s.allies[p["ally"]]["members"] if x != seat]
            rows.append({"label": "Ally Party", "value": and_list(self.who(s, x)
                                                                   for x in mates)})
        if p["assist"] is not None:
            ab = fights.by_id(s, p["assist"])
            if ab is not None:
                rows.append({"label": "Assisting", "value": "the battle at %s" % self._place(
                    s, ab["cell"])})
        return rows

    # ------------------------------------------------------------ a seat's controls

    def control(self, s, seat, a):
        """How the seat's page makes action `a`: a choice no card shows is sent as it is (the
        phone's button); a move the table shows is carried out by the virtual hands as a
        person's would be (the token stepped, the location card laid, the cards laid on the
        seat's reader, the seat's button pressed and the dice thrown)."""
        if not places.is_table_action(a):
            return {"op": "action", "action": a}
        kind = a["type"]
        for name, thrown in sorted(places.THROWS.items()):
            if thrown == kind:
                return {"op": "button", "name": name}
        play = PLAY + json.dumps(a, sort_keys=True)
        if kind == "step":
            return {"op": "place", "cell": list(a["to"]), "card": play}
        if kind == "flip_event":
            return {"op": "place", "cell": list(places.EVENTS), "card": play}
        if kind == "open_quest":
            cell = places.PILE_CELL.get(places.quest_pile(a.get("quest")), places.EASY)
            return {"op": "place", "cell": list(cell), "card": play}
        return {"op": "place", "reader": places.seat_number(s, seat), "card": play}

    def held_cards(self, s, seat):
        """The cards the seat holds: its quest hand and its battle hand."""
        out = list(s.players[seat]["hand"])
        b = fights.of_seat(s, seat)
        if b is not None and seat in b["fighters"]:
            out.extend(b["fighters"][seat]["hand"])
        return out

    def place_steps(self, match, table, seat, card, place, face_down=False, whole=False):
        """A choice's move ("card": "play:" and the action) as the hands make it, or one card
        of the seat's hand laid on its reader (read once it lies still, as a person's)."""
        s = match.state
        if isinstance(card, str) and card.startswith(PLAY):
            try:
                action = json.loads(card[len(PLAY):])
            except ValueError:
                action = None
            return self._play_steps(match, table, seat, action, place)
        if place[0] != places.SEAT:
            raise Refused(400, "The cards of your hand are played on your card reader.", [place])
        if card not in self.held_cards(s, seat):
            raise Refused(403, "%s does not hold that card." % self.seat_name(s, seat))
        return [("place", place, places.CARD + card)]

    def _play_steps(self, match, table, seat, action, place):
        s = match.state
        at = [place] if place[0] != places.SEAT else None
        if not isinstance(action, dict) or action.get("seat") != seat or \
                not isinstance(action.get("type"), str) or not places.is_table_action(action):
            raise Refused(400, "That is not a move this page offers: reload it.", at)
        problem = ft.validate(s, action)
        if problem is not None:
            raise Refused(409, problem.message, at)
        kind = action["type"]
        if kind == "step":
            mine = [i for i, c in sorted(places.movable(s, seat).items())
                    if c == action.get("character")]
            if not mine:
                raise Refused(409, "No token of yours moves now.", at)
            home = places.tokens(s)[mine[0]]["cell"]
            to = tuple(action["to"])
            steps = [("place", to, places.CARD + c) for c in table_cards(s, action)]
            return steps + [("lift", home, mine[0]), ("place", to, mine[0])]
        if kind == "flip_event":
            top = table_cards(s, action)
            if not top:
                raise Refused(409, "The event deck is empty.")
            return [("lift", places.EVENTS, i) for i in sorted(table.observed.get(
                places.EVENTS, ()))] + [("place", places.EVENTS, places.CARD + top[0])]
        if kind == "open_quest":
            cell = places.PILE_CELL[places.quest_pile(action["quest"])]
            return [("place", cell, places.CARD + action["quest"])]
        n = places.seat_number(s, seat)
        reader = (places.SEAT, n)
        cards = table_cards(s, action) if kind == "take_victory" else \
            places.reader_cards(s, action)
        if not cards:
            raise Refused(409, "Nothing to lay on your card reader for that now.")
        steps = [("lift", reader, i) for i in sorted(table.seat_observed.get(n, ()))]
        steps += [("place", reader, places.CARD + c) for c in cards]
        # The reader reads the first play its cards make; a hold moves to the next (an
        # attack at the second of two enemies, another way to pay), a tap plays it now.
        plays = self._plays(match, seat, cards)
        k = plays.index(action) if action in plays else 0
        return steps + [("gesture", reader, "hold")] * k + [("gesture", reader, "tap")]

    def _plays(self, match, seat, cards):
        """The seat's plays whose cards are `cards`, in the order its reader offers them."""
        s = match.state
        laid = frozenset(cards)
        out = []
        for a in self._legal(match, seat):
            if a["type"] not in places.READER_PLAYS:
                continue
            if a["type"] == "take_victory":
                if len(cards) == 1 and places.victory_deck(cards[0]) == a["deck"]:
                    out.append(a)
                continue
            mine = places.reader_cards(s, a)
            if mine is not None and frozenset(mine) == laid and len(mine) == len(cards):
                out.extend(places.paid_forms(s, seat, a))
        return out

    def liftable(self, match, table, seat, place, card=None):
        s = match.state
        if place[0] == places.SEAT:
            seen = table.seat_observed.get(place[1])
            if not seen:
                raise Refused(409, "Nothing lies on your card reader.")
            return seen[-1]
        for token in sorted(places.movable(s, seat)):
            if token in table.observed.get(place, ()):
                return token
        raise Refused(403, "You move only your own token, on your turn.", [place])

    def check_move(self, match, table, seat, place, to, item):
        s = match.state
        character = places.movable(s, seat).get(item)
        action = {"type": "step", "seat": seat, "to": list(to)}
        if character is not None:
            action["character"] = character
        problem = ft.validate(s, action)
        if problem is not None:
            raise Refused(409, problem.message, [to])
        if s.cells[core.index(list(to))] is None:
            raise Refused(409, "%s is not discovered yet: step there with its button (\"Step "
                          "to %s and discover it\"), and the location card is laid for you."
                          % (cell_words(to), cell_words(to)), [to])

    async def throw(self, hands, table, rng):
        """The dice the tray waits for, thrown for a person (two at a time, as the tray
        reads them)."""
        t = table.throw
        if t is None or not table.pockets_wanted():
            raise Refused(409, "The tray waits for no dice now.")
        values = [rng.randint(1, 6) for _ in range(more_dice(table.state, t.action,
                                                             t.values))]
        await hands.throw(table, values, lambda: False)
        return values

    # ------------------------------------------------------------ a seat's choices

    def choices(self, s, seat, legal):
        """The choices the rules give the seat now, as buttons with words, grouped; the
        standing ones (end the turn, search, flee) greyed when they do not apply."""
        out = []
        by_kind = {}
        for a in legal:
            by_kind.setdefault(a["type"], []).append(a)
        for a in legal:
            kind = a["type"]
            if kind in ("use", "open_quest") or (kind == "attack" and len(by_kind[kind]) > 1):
                continue
            out.append(self._choice(s, seat, a))
        out.extend(self._grouped(s, seat, by_kind))
        out.extend(self._standing(s, seat, by_kind))
        order = dict((g, i) for i, g in enumerate(GROUP_ORDER))
        rank = dict((k, i) for i, k in enumerate(KIND_ORDER))
        out.sort(key=lambda c: (order.get(c.get("group"), len(order)),
                                rank.get(self._kind_of(c), len(rank))))
        return out

    def _kind_of(self, c):
        """The action type a choice makes (its first step's, for a choice of two steps)."""
        control = c.get("control") or (c.get("then") or [{}])[0].get("control") or {}
        if "action" in control:
            return control["action"].get("type")
        if isinstance(control.get("card"), str) and control["card"].startswith(PLAY):
            try:
                return json.loads(control["card"][len(PLAY):]).get("type")
            except ValueError:
                return None
        if control.get("op") == "button":
            return places.THROWS.get(control.get("name"))
        return None

    def _grouped(self, s, seat, by_kind):
        """Uses and quests to open, one button per card, its targets and payments a second
        step; attacks, one button per attack card."""
        out = []
        cards = []
        for a in by_kind.get("use", []):
            if a["card"] not in cards:
                cards.append(a["card"])
        for cid in cards:
            forms = [a for a in by_kind["use"] if a["card"] == cid]
            label = self._use_label(s, seat, cid)
            then = []
            for a in forms:
                then.extend(self._paid(s, seat, a, self._target_words(s, seat, a)))
            out.append(self._step_choice(label, then, "Use", self._card_text(s, cid)))
        attacks = by_kind.get("attack", [])
        if len(attacks) > 1:
            seen = []
            for a in attacks:
                if a["card"] not in seen:
                    seen.append(a["card"])
            for cid in seen:
                then = []
                for a in attacks:
                    if a["card"] == cid:
                        then.extend(self._paid(s, seat, a, self._attack_words(s, seat, a)))
                out.append(self._step_choice("Attack with %s" % self.name(s, cid), then,
                                             "Battle", s.cat.battle_card(cid)["text"]))
        quests = by_kind.get("open_quest", [])
        if quests:
            then = []
            for a in quests:
                q = s.cat.decks["quests"][a["quest"]]
                then.append({"label": "%s (%s): %s" % (q["name"], q["pile"].capitalize(),
                                                       q["text"]),
                             "control": self.control(s, seat, a), "enabled": True})
            out.append(self._step_choice("Open a quest (%d to choose from)" % len(quests), then,
                                         "Quests", "At the Dragon Inn you may look through "
                                         "the piles your reputation allows and take one."))
        return out

    def _step_choice(self, label, then, group, title=None):
        if len(then) == 1:
            one = dict(then[0])
            more = then[0]["label"]
            one["label"] = label if not more else "%s %s" % (label, more) if more[0].islower() \
                else "%s: %s" % (label, more)
            one["group"] = group
            if title:
                one["title"] = title
            return one
        out = {"label": label, "then": then, "enabled": bool(then), "group": group}
        if title:
            out["title"] = title
        return out

    def _standing(self, s, seat, by_kind):
        """Buttons that stay where a player looks for them, greyed when they do not apply."""
        p = s.players[seat]
        if s.status != "ongoing" or p["out"] or p["character"] is None or s.phase == "choose":
            return []
        kinds = ("end_attack", "flee") if fights.of_seat(s, seat) is not None else \
            ("search", "end_turn")
        out = []
        for d in s.pending:
            # A character met: recruiting it is offered, greyed when the rules say no.
            if d["seat"] == seat and d["kind"] == "character" and "recruit" not in by_kind:
                c = core.char(s, d["card"])
                why = "nobody recruits in this mode" if s.options["mode"] != "standard" else \
                    "your party is full" if len(s.players[seat]["party"]) >= core.MAX_PARTY \
                    else "it needs %d persuasion, you have %d" % (
                        c["persuasion"], s.players[seat]["traits"]["persuasion"])
                out.append({"label": "Recruit %s (%s)" % (c["name"], why), "control": {
                    "op": "action", "action": {"type": "recruit", "seat": seat}},
                    "enabled": False, "group": "Decide"})
        for kind in kinds:
            if kind not in by_kind:
                out.append({"label": STANDING[kind], "control": self.control(
                    s, seat, {"type": kind, "seat": seat}), "enabled": False,
                    "group": GROUPS.get(kind, "Turn")})
        return out

    def _choice(self, s, seat, a):
        """One legal action as a button (payments a second step when the cost may be paid
        in several ways)."""
        kind = a["type"]
        group = GROUPS.get(kind, "Turn")
        label = self._label(s, seat, a)
        title = self._title(s, seat, a)
        then = self._paid(s, seat, a, "")
        if len(then) > 1:
            return self._step_choice(label, then, group, title)
        out = {"label": label, "control": then[0]["control"], "enabled": True, "group": group}
        if then[0]["label"]:    # the one way it may be paid
            out["label"] = "%s (%s)" % (label, then[0]["label"][0].lower() + then[0]["label"][1:])
        if title:
            out["title"] = title
        return out

    def _paid(self, s, seat, a, words):
        """The ways of paying for action `a` (the usual way first), each a choice: [{"label":
        "Pay 2 with Strength and 1 with Magic", "control", "enabled"}]; one plain choice
        when it costs nothing or may be paid only one way. A play the table reads (cards
        laid on the seat's reader) is laid, then held to the payment chosen and tapped."""
        pays = [a["pay"]] if a.get("pay") is not None else places.payments(s, seat, a)
        if not pays:
            return [{"label": words, "control": self.control(s, seat, a), "enabled": True}]
        out = []
        for i, pay in enumerate(pays):
            action = a if i == 0 else dict(a, pay=pay)
            label = pay_words(pay)
            out.append({"label": ("%s: %s" % (words, label)) if words else label,
                        "control": self.control(s, seat, action), "enabled": True})
        return out

    def _use_label(self, s, seat, cid):
        p = s.players[seat]
        if cid in p["party"]:
            ab = core.char(s, cid)["ability"]
            return "Use %s's ability, %s" % (self.name(s, cid), ab["name"])
        if cid in p["tactics"]:
            return "Use the tactic card %s" % self.name(s, cid)
        if cid in ("heal_token", "cure_token"):
            return "Use a %s potion token" % cid[:4]
        return "Use %s" % self.name(s, cid)

    def _target_words(self, s, seat, a):
        t = a.get("target")
        if t is None:
            return ""
        if t == seat:
            return "on yourself"
        b = fights.of_seat(s, seat)
        if b is None and s.players[seat]["assist"] is not None:
            b = fights.by_id(s, s.players[seat]["assist"])
        if b is not None and t in b["fighters"]:
            return "on %s" % self.fighter(s, b, t)
        if t in s.players:
            return "on %s" % self.who(s, t)
        return ""

    def _attack_words(self, s, seat, a):
        """"with Venom at Player 2 (Mr. Hyde)": the modifiers and the target of an attack."""
        b = fights.of_seat(s, seat)
        parts = []
        if a.get("with"):
            parts.append("with %s" % and_list(self.name(s, m) for m in a["with"]))
        if b is not None and a.get("target") in b["fighters"]:
            parts.append("at %s" % self.fighter(s, b, a["target"]))
        return " ".join(parts)

    def _label(self, s, seat, a):   # noqa: C901 (one case per action)
        k = a["type"]
        name = lambda c: self.name(s, c)   # noqa: E731
        b = fights.of_seat(s, seat)

        def foe(fid):
            return self.fighter(s, b, fid) if b is not None and fid in b["fighters"] else \
                (self.who(s, fid) if fid in s.players else name(fid))

        if k == "choose":
            c = core.char(s, a["character"])
            return "%s (%d health, %s)" % (c["name"], c["health"], FACTIONS.get(
                c["faction"], "no faction"))
        if k == "flip_event":
            return "Flip the event of day %d" % (s.day + 1)
        if k == "step":
            i = core.index(a["to"])
            who = "" if not a.get("character") else name(a["character"]) + ": "
            if s.cells[i] is None:
                return "%sStep to %s and discover it" % (who, cell_words(a["to"]))
            return "%sMove to %s" % (who, self._place(s, i))
        if k == "search":
            at = core.cell_of(s, seat) if not a.get("character") else \
                s.players[seat]["away"][a["character"]]["cell"]
            n = world.searchable(s, at)
            return "Search %s%s" % (self._place(s, at) if s.cells[at] else "here",
                                    " (free)" if n == 0 else "")
        if k == "end_turn":
            return "End your turn"
        if k == "equip":
            return "Equip %s on %s" % (name(a["item"]), name(a["character"]))
        if k == "unequip":
            return "Take %s off" % name(a["item"])
        if k == "switch":
            return "Lead with %s" % name(a["character"])
        if k == "burn":
            return "Burn 1 reputation for 1 %s" % TRAIT_WORDS[a["trait"]]
        if k == "start_quest":
            if a.get("replace"):
                return "Begin %s in place of %s" % (name(a["quest"]), name(a["replace"]))
            return "Begin the quest %s" % name(a["quest"])
        if k == "fulfil":
            return "Fulfil %s here" % name(a["quest"])
        if k == "challenge":
            return "Challenge the boss of %s" % name(a["quest"])
        if k == "battle":
            t = a["target"]
            if t in s.allies:
                what = "the Ally Party of %s" % and_list(self.seat_name(s, q)
                                                         for q in s.allies[t]["members"])
            elif t in s.players:
                what = self.who(s, t)
            else:
                what = name(t)
            return "%sStart a battle with %s" % (
                name(a["character"]) + ": " if a.get("character") else "", what)
        if k in ("join", "assist"):
            jb = fights.by_id(s, a["battle"])
            return "%s the battle at %s" % ("Join" if k == "join" else "Assist",
                                           self._place(s, jb["cell"]) if jb else "here")
        if k == "interact":
            return "Meet %s" % name(a["npc"])
        if k == "give":
            return "Give %s to %s" % (name(a["item"]), self.who(s, a["to"]))
        if k == "sacrifice":
            return "Sacrifice %s (Blood Pact)" % name(a["character"])
        if k == "distraction":
            return "Distraction: spend 3 traits to enable a tactic card"
        if k == "offer_alliance":
            return "Offer %s an Ally Party" % self.who(s, a["to"])
        if k == "accept_alliance":
            return "Accept the Ally Party"
        if k == "decline_alliance":
            return "Decline the Ally Party"
        if k == "dissolve":
            return "Leave the Ally Party"
        if k == "separate":
            return "Separate %s from the party" % name(a["character"])
        if k == "reunite":
            return "Reunite with %s" % name(a["character"])
        pending = [d for d in s.pending if d["seat"] == seat and "card" in d]
        if k in ("recruit", "ignore", "ambush"):
            card = pending[0]["card"] if pending else None
            c = core.char(s, card) if card in s.cat.decks["characters"] else None
            if k == "recruit":
                return "Recruit %s (needs %d persuasion)" % (c["name"], c["persuasion"]) if c \
                    else "Recruit"
            return "%s %s" % (k.capitalize(), c["name"] if c else "the character")
        if k == "keep":
            return "Keep the bonus card"
        if k == "rummage":
            return "Rummage: shuffle it back and draw another"
        if k == "keep_on_top":
            return "Leave the card on top of the bonus deck"
        if k == "to_bottom":
            return "Put the card at the bottom of the bonus deck"
        if k == "take_victory":
            return "Take %s card" % ("an Alliance" if a["deck"] == "alliance" else "a Betrayal")
        if k == "continue":
            c = core.char(s, a["character"])
            return "Continue as %s (%d health, %s)" % (c["name"], c["health"], FACTIONS.get(
                c["faction"], "no faction"))
        if k == "attack":
            words = self._attack_words(s, seat, a)
            return "Attack with %s%s" % (name(a["card"]), " " + words if words else "")
        if k == "signature":
            c = core.char(s, b["fighters"][seat]["character"])
            sg = c["signatures"][a["move"]]
            return "Signature Move %s%s" % (sg["name"], " at " + foe(a["target"])
                                            if a.get("target") else "")
        if k == "super":
            c = core.char(s, b["fighters"][seat]["character"])
            return "Super Move %s%s" % (c["super"]["name"], " at " + foe(a["target"])
                                        if a.get("target") else "")
        if k == "play":
            card = s.cat.battle_card(a["card"])
            return "Play %s" % card["name"]
        if k == "flee":
            return "Flee (a die each: higher escapes)"
        if k == "end_attack":
            return "End your attack turn"
        if k == "truce":
            return "Call a truce"
        if k == "defend":
            if a.get("card"):
                card = s.cat.battle_card(a["card"])
                return "Defend with %s (%d DEF)" % (card["name"], card["def"])
            return "Take the attack without a defence card"
        if k == "enemy_turn":
            e = fights.turn_fighter(b)
            return "Roll for %s's attack" % foe(e["f"])
        if k == "counter_bid":
            return "Bid %s against the escape" % plural(a["bid"], "trait")
        if k == "pay_escape":
            return "Pay %s to escape" % plural(b["await"]["cost"], "trait")
        if k == "stay":
            return "Stay in the battle"
        if k == "reroll":
            return "Roll again (Die Again)"
        if k == "accept_roll":
            return "Keep the roll"
        if k == "mind_shift":
            return "Mind Shift on %s" % foe(a["target"])
        if k == "hostage":
            return "Take %s hostage" % name(a["character"])
        if k == "ransom":
            return "Pay 10 traits to ransom your ally"
        if k == "propose_split":
            return "Share: %s" % ", ".join("reward %d to %s" % (i + 1, self.seat_name(s, q))
                                          for i, q in enumerate(a["split"]))
        if k == "accept_split":
            return "Agree to the sharing proposed"
        if k == "cause_conflict":
            return "Cause a Conflict over the rewards"
        if k == "face_conflict":
            return "Face the Conflict"
        if k == "ignore_conflict":
            return "Ignore the Conflict"
        return self.action_words(k).capitalize()

    def _title(self, s, seat, a):
        """A choice's longer words (what the card does), where it helps."""
        k = a["type"]
        if k in ("choose", "continue"):
            c = core.char(s, a["character"])
            return "%s (%s): %d health, movement %d, weak to %s; %s: %s" % (
                c["name"], c["tale"], c["health"], c["movement"], element_words(c["weakness"]),
                c["ability"]["name"], c["ability"]["text"])
        if k in ("equip", "give", "unequip"):
            return self._card_text(s, a["item"])
        if k in ("start_quest", "fulfil", "challenge"):
            return self._card_text(s, a["quest"])
        if k in ("attack", "play", "defend") and a.get("card"):
            return s.cat.battle_card(a["card"])["text"]
        if k == "take_victory":
            return "A Victory card is a kill point and a reward each time its task is done."
        return None


GROUPS = {"choose": "Choose your character", "continue": "Decide", "recruit": "Decide",
          "ignore": "Decide", "ambush": "Decide", "keep": "Decide", "rummage": "Decide",
          "keep_on_top": "Decide", "to_bottom": "Decide", "take_victory": "Decide",
          "accept_alliance": "Decide", "decline_alliance": "Decide",
          "propose_split": "Decide", "accept_split": "Decide", "cause_conflict": "Decide",
          "face_conflict": "Decide", "ignore_conflict": "Decide",
          "flip_event": "The day", "step": "Move", "search": "Move",
          "equip": "Items", "unequip": "Items", "give": "Items",
          "start_quest": "Quests", "fulfil": "Quests", "challenge": "Quests",
          "open_quest": "Quests", "battle": "Battle", "join": "Battle", "assist": "Battle",
          "attack": "Battle", "signature": "Battle", "super": "Battle", "play": "Battle",
          "defend": "Battle", "enemy_turn": "Battle", "counter_bid": "Battle",
          "pay_escape": "Battle", "stay": "Battle", "reroll": "Battle",
          "accept_roll": "Battle", "mind_shift": "Battle", "hostage": "Battle",
          "ransom": "Battle", "truce": "Battle", "flee": "Battle", "end_attack": "Battle",
          "switch": "Party", "separate": "Party", "reunite": "Party", "sacrifice": "Party",
          "distraction": "Party", "offer_alliance": "Party", "dissolve": "Party",
          "interact": "Turn", "burn": "Use", "use": "Use", "end_turn": "Turn"}
# No sentence here says "red", "snow" or "fog" in lower case: a card of the box has that id,
# and the web table hides a hidden card's id wherever it stands as a word.
# Within a group: what a player looks for first (an attack before a truce, a step before the
# end of the turn).
KIND_ORDER = ("take_victory", "recruit", "defend", "counter_bid", "pay_escape", "stay",
              "reroll", "accept_roll", "enemy_turn", "attack", "signature", "super", "play",
              "use", "mind_shift", "hostage", "ransom", "step", "search", "battle", "join",
              "assist", "truce", "flee", "end_attack")
GROUP_ORDER = ("Choose your character", "Decide", "The day", "Battle", "Move", "Use", "Quests",
               "Items", "Party", "Turn")


# The buttons that stay in place, greyed when they do not apply.
STANDING = {"end_attack": "End your attack turn", "flee": "Flee (a die each: higher escapes)",
            "search": "Search here", "end_turn": "End your turn"}


def _third_person(doing):
    """"defend against ..." -> "defends against ..."; "roll for" -> "rolls for"."""
    head, _, rest = doing.partition(" ")
    if head.endswith(("s", "sh", "ch")):
        head += "es"
    elif head.endswith("y"):
        head = head[:-1] + "ies"
    else:
        head += "s"
    return head + (" " + rest if rest else "")
