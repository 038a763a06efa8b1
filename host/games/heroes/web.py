"""Battle Royale with hero teams (and Capture the Flag) on the web table: its words, the
grid's walls, bases, figures and flags, the cards on the seats' card readers, a seat's
characters and cards, and how its clicks become gestures (host/web/face.py).

A seat is a team's colour ("Red"); a character is named as the catalog names it ("The Tin
Woodman"), with a short label on its figure ("Tin Man") and its health as the figure's
badge. The log is public: a Bonus Card is named once it is played (then it is discarded),
never while it is in a hand or the deck.
"""

from host import lights
from host.web.errors import Refused
from host.web.face import WebFace, and_list, cell_words, css, item
from shared_rules import heroes

from host.games.heroes.interpreter import (CARD, FIGURE, FLAG, SEAT, card_of, cell_of,
                                           name_of, owner_of)

ACTIONS = {"roll_off": "roll the green die for who goes first", "pick": "pick a character",
           "roll_move": "roll the green die for movement", "move": "move a character",
           "attack": "attack", "play_card": "play a card", "defend": "defend with a card",
           "no_defence": "take the attack without a card",
           "roll_bonus": "roll the green die for a Bonus Card", "end_turn": "end the turn"}
# What fits on a figure in a cell of 44 to 76 px (a word of 5 letters or so on a phone;
# a soft hyphen where a longer one may break); the figure's title has the whole name.
SHORT = {"hop_o_my_thumb": "Hop", "the_giant": "Giant", "robin_hood": "Robin",
         "fairy_godmother": "Fairy", "little_red_riding_hood": "Riding Hood",
         "big_bad_wolf": "Wolf", "the_snow_queen": "Snow Queen", "baba_yaga": "Baba Yaga",
         "tin_woodman": "Tin Man", "cowardly_lion": "Lion", "gretel": "Gretel",
         "rumpelstiltskin": "Rum\u00adpel"}
STATE_WORDS = {"down": "defeated: lies on its side until its Respawn Phase",
               "resting": "in its Respawn Phase: stands up at the end of its player's turn"}
FLAG_SHAPE = "⚑"


def short_name(state, cid):
    """A character's name short enough for its figure."""
    if cid in SHORT:
        return SHORT[cid]
    name = name_of(state, cid)
    if name.startswith("The "):
        name = name[4:]
    return name if len(name) <= 10 else name.split(" ")[0][:8]


def or_list(words):
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


class HeroesFace(WebFace):
    """Battle Royale with hero teams: seats named by their team's colour, figures with their
    health, flags, walls and bases on the grid; a seat's hand is its characters' face-up
    cards and its Bonus Cards (laid on its card reader), or the characters left to pick."""

    # The interpreter's gestures (host/games/heroes/interpreter.py), as the page's tools.
    gestures_for = "move, attack or pick a target"
    gestures = (
        ("move", "your character's figure to another cell: moves it (the game finds the "
                 "way; a flag it carries goes beside it)."),
        ("tap", "your character's cell, then the target's: an attack (then throw the "
                "dice); the attacker's cell again calls it off. After a card laid on your "
                "reader that asks for a target: the target's cell."),)

    # ------------------------------------------------------------ seats and words

    def seat_name(self, state, seat):
        return str(seat).capitalize()

    def book_colour(self, state, seat):
        return lights.PAWN_COLOURS.get(seat, lights.BOT_MOVE)

    def action_words(self, kind):
        return ACTIONS.get(kind, kind.replace("_", " "))

    def character(self, state, cid):
        """A character's name, or words for one the catalog does not know."""
        if isinstance(cid, str) and cid in state.cat["characters"]:
            return name_of(state, cid)
        return "a character"

    def card_name(self, state, card_id):
        card = card_of(state, card_id) if isinstance(card_id, str) else None
        return card["name"] if card is not None else "a card"

    def turn_banner(self, match, table, seat, who):
        s = match.state
        q = who[0]
        mine = seat == q
        name = self.seat_name(s, q)
        if s.phase in ("pick_roll", "turn_roll"):
            return "%s roll%s the green die: the highest %s" % (
                and_list(self.seat_name(s, r) for r in s.rollers),
                "s" if len(s.rollers) == 1 else "",
                "picks first" if s.phase == "pick_roll" else "plays first")
        if s.phase == "pick":
            return "%s: choose a character and put its figure on a start cell" % (
                "Your pick" if mine else "%s's pick" % name)
        if s.battle is not None:
            b = s.battle
            defender = b["targets"][b["next"]]
            return "%s %s %s: a card on %s card reader, or no defence" % (
                "You defend" if mine else "%s defends" % name, self.character(s, defender),
                "against %s" % self.character(s, b["attacker"]), "your" if mine else
                "%s's" % name)
        if s.bonus_rolls:
            return "A character fell: %s roll the green die for a Bonus Card" % and_list(
                self.seat_name(s, r) for r in s.bonus_rolls[0])
        kinds = []
        for a in heroes.legal_actions(s):
            words = self.action_words(a["type"])
            if words not in kinds:
                kinds.append(words)
        head = "Your turn" if mine else "%s's turn" % name
        if s.actions_left <= 0:
            return head + ": no actions left, end the turn"
        return head + ": " + or_list(kinds)

    def ending(self, state):
        s = state
        reason = s.end_reason
        if reason == "last_standing" and s.winner is not None:
            return "Game over: %s wins, the last team standing" % self.seat_name(s, s.winner)
        if reason == "flag_home" and s.winner is not None:
            other = [q for q in s.seats if q != s.winner]
            return "Game over: %s wins, bringing %s flag home behind its base" % (
                self.seat_name(s, s.winner), "%s's" % self.seat_name(s, other[0]) if other
                else "the other team's")
        if reason == "all_defeated":
            return "Game over: a draw, the last characters fell together"
        if reason == "turn_limit":
            return "Game over after %d turns, the turn limit: no winner" % s.turn_number
        return WebFace.ending(self, s)

    def facts(self, match):
        s = match.state
        mode = s.options["mode"]
        out = ["%s on %s" % (heroes.INFO["mode_titles"][mode], s.map["name"])]
        team = s.options["team_size"]
        for q in s.seats:
            mine = [c for c in s.roster if s.heroes[c]["seat"] == q]
            if s.phase in ("pick_roll", "pick"):
                out.append("%s %d of %d picked" % (self.seat_name(s, q), len(mine), team))
                continue
            up = len([c for c in mine if s.heroes[c]["state"] == "standing"])
            words = "%s %d of %d standing" % (self.seat_name(s, q), up, len(mine))
            held = len(s.hands[q])
            if held:
                words += ", %d Bonus Card%s" % (held, "" if held == 1 else "s")
            out.append(words)
        if s.status == "ongoing" and s.phase == "play":
            out.append("turn %d" % s.turn_number)
            out.append("%d action%s left" % (s.actions_left, "" if s.actions_left == 1 else "s"))
            out.append("movement die: %d" % s.roll if s.roll is not None
                       else "movement die not rolled yet")
        elif s.status != "ongoing":
            out.append("%d turn%s played" % (s.turn_number, "" if s.turn_number == 1 else "s"))
        for q in sorted(s.flags, key=s.seats.index):
            carrier = s.flags[q]["carrier"]
            if carrier is not None:
                out.append("%s holds %s's flag" % (self.character(s, carrier),
                                                   self.seat_name(s, q)))
        return out

    # ------------------------------------------------------------ the log

    def request_words(self, state, action):
        """A move asked of the table, in words; a Bonus Card is not named (it is hidden in
        its player's hand until it is played)."""
        s = state
        kind = action.get("type")
        ch = lambda key: self.character(s, action.get(key))   # noqa: E731
        if kind == "roll_off":
            return "roll the green die for who %s first" % (
                "picks" if s.phase == "pick_roll" else "plays")
        if kind == "pick":
            return "pick %s and put the figure on %s" % (ch("character"), self._cell(action))
        if kind == "move":
            return "move %s to %s%s" % (ch("character"), self._cell(action, "to"),
                                        self._flag_words(s, action))
        if kind == "attack":
            return "attack %s with %s" % (ch("target"), ch("attacker"))
        if kind in ("play_card", "defend"):
            card = action.get("card")
            named = "a Bonus Card" if isinstance(card, str) and card in s.cat["bonus"] \
                else self.card_name(s, card)
            if kind == "defend":
                words = "defend with %s" % named
                if s.battle is not None:
                    words = "defend %s with %s" % (self.character(
                        s, s.battle["targets"][s.battle["next"]]), named)
            else:
                words = "play %s with %s" % (named, ch("character"))
            if action.get("target") is not None:
                words += " on %s" % ch("target")
            if "to" in action:
                words += " to %s%s" % (self._cell(action, "to"), self._flag_words(s, action))
            return words
        if kind == "no_defence" and s.battle is not None:
            return "let %s take the attack without a card" % self.character(
                s, s.battle["targets"][s.battle["next"]])
        return self.action_words(str(kind))

    def _cell(self, action, key="cell"):
        v = action.get(key)
        if isinstance(v, list) and len(v) == 2:
            return cell_words(v)
        return "a cell"

    def _flag_words(self, s, action):
        if not isinstance(action.get("flag_to"), list):
            return ""
        for team in sorted(s.flags):
            if s.flags[team]["carrier"] == action.get("character"):
                return ", carrying %s's flag to %s" % (self.seat_name(s, team),
                                                       self._cell(action, "flag_to"))
        return ", carrying a flag to %s" % self._cell(action, "flag_to")

    def describe(self, state, action, events):
        turned = set(ev["card"] for ev in events if ev.get("type") == "card_turned_over")
        said = []
        for ev in events:
            said.extend(self._event_words(state, ev, turned))
        if said:
            return " ".join(said)
        who = heroes.actor(state, action)
        return "%s: %s." % (self.seat_name(state, who) if who else "The table",
                            self.request_words(state, action))

    def _rolls(self, state, rolls):
        return ", ".join("%s %d" % (self.seat_name(state, q), rolls[q])
                         for q in state.seats if q in rolls)

    def _event_words(self, state, ev, turned):
        s = state
        kind = ev["type"]
        seat = lambda key="seat": self.seat_name(s, ev[key])   # noqa: E731
        ch = lambda key="character": self.character(s, ev[key])   # noqa: E731
        if kind == "rolled_off":
            return ["Green dice for who %s first: %s." % (
                "picks" if ev["for"] == "pick" else "plays", self._rolls(s, ev["rolls"]))]
        if kind == "roll_off_tied":
            return ["%s tie and roll again." % and_list(self.seat_name(s, q)
                                                        for q in ev["seats"])]
        if kind == "picks_first":
            return ["%s picks first." % seat()]
        if kind == "plays_first":
            return ["%s plays first." % seat()]
        if kind == "picked":
            return ["%s picks %s, on %s." % (seat(), ch(), cell_words(ev["cell"]))]
        if kind == "teams_complete":
            return ["The teams are complete."]
        if kind == "turn_started":
            words = "%s's turn %d begins, %d action%s." % (
                seat(), ev["turn_number"], ev["actions"], "" if ev["actions"] == 1 else "s")
            if ev.get("respawning"):
                words += " %s rest%s this turn (Respawn Phase)." % (
                    and_list(self.character(s, c) for c in ev["respawning"]),
                    "s" if len(ev["respawning"]) == 1 else "")
            return [words]
        if kind == "turn_ended":
            return ["%s ends the turn." % seat()]
        if kind == "respawned":
            return ["%s stands up again on %s with %d health." % (
                ch(), cell_words(ev["cell"]), ev["health"])]
        if kind == "movement_rolled":
            return ["%s rolls %d on the green die: this turn's movement." % (seat(), ev["die"])]
        if kind == "moved":
            return ["%s moves from %s to %s." % (ch(), cell_words(ev["from"]),
                                                 cell_words(ev["to"]))]
        if kind == "flag_moved":
            return ["%s carries %s's flag to %s." % (ch("carrier"), seat("team"),
                                                     cell_words(ev["to"]))]
        if kind == "flag_released":
            return ["%s lets go of %s's flag on %s." % (ch(), seat("team"),
                                                        cell_words(ev["cell"]))]
        if kind == "flag_captured":
            owner = s.heroes[ev["character"]]["seat"] if ev["character"] in s.heroes else None
            return ["%s captures %s's flag on %s and stops until %s next turn." % (
                ch(), seat("team"), cell_words(ev["cell"]),
                "%s's" % self.seat_name(s, owner) if owner else "its player's")]
        if kind == "card_played":
            name = self.card_name(s, ev["card"])
            if ev.get("bonus_card"):
                name = "the Bonus Card " + name
            after = " (now face down)" if ev["card"] in turned else ""
            if ev.get("in_defence"):
                return ["%s defends with %s%s." % (ch(), name, after)]
            return ["%s plays %s%s." % (ch(), name, after)]
        if kind == "battle":
            red, attack = ev["red"], ev["attack"]
            dice = "red die %d" % red if attack == red else "attack %d (red die %d + %d)" % (
                attack, red, attack - red)
            return ["%s attacks %s: %s." % (ch("attacker"), and_list(
                self.character(s, t) for t in ev["targets"]), dice)]
        if kind == "defence_awaited":
            return ["%s may defend %s with a card." % (seat(), ch("defender"))]
        if kind == "damage":
            if ev["dodged"]:
                return ["%s dodges the attack." % ch()]
            if ev["damage"] <= 0:
                return ["%s holds: %d against %d defence." % (ch(), ev["attack"],
                                                            ev["defence"])]
            return ["%s takes %d damage, %d against %d defence: %d health left." % (
                ch(), ev["damage"], ev["attack"], ev["defence"], ev["health"])]
        if kind == "defeated":
            if ev.get("out"):
                return ["%s is defeated and leaves the game." % ch()]
            return ["%s is defeated and lies down on %s, behind the base." % (
                ch(), cell_words(ev["laid_down_at"]))]
        if kind == "bonus_rolled":
            return ["Green dice for a Bonus Card: %s." % self._rolls(s, ev["rolls"])]
        if kind == "bonus_drawn":
            return ["%s draws a Bonus Card." % seat()]
        if kind == "bonus_deck_empty":
            return ["The Bonus Cards are all drawn: nothing for %s." % seat()]
        if kind == "healed":
            if ev["by"] == ev["character"]:
                return ["%s gets %d health back: %d now." % (ch(), ev["amount"], ev["health"])]
            return ["%s heals %s by %d: %d health now." % (ch("by"), ch(), ev["amount"],
                                                           ev["health"])]
        if kind == "game_over":
            return [self.ending(s) + "."]
        return []

    def legend(self, match, layout):
        from host.games.heroes import adapter   # (it imports this module)
        s = match.state
        ctf = s.options["mode"] == "ctf"
        out = [{"colour": css(self.seat_colour(s, q)), "shape": self.seat_shape(s, q),
                "words": "%s's characters%s" % (self.seat_name(s, q), " and flag" if ctf
                                                else "")} for q in s.seats]
        out.append({"colour": css((90, 90, 100)), "shape": "▩",
                    "words": "dark cells: walls%s; nobody stands or moves there" % (
                        " and each team's base, marked with its shape" if ctf else "")})
        if ctf:
            out.append({"colour": css(self.seat_colour(s, s.seats[0])), "shape": "░",
                        "words": "cells glowing in a team's colour: behind its base, where "
                                 "its defeated characters lie down; bring the other team's "
                                 "flag there to win"})
            out.append({"colour": css(adapter.FLAG_LIGHT), "shape": FLAG_SHAPE,
                        "words": "a flag; white lights around it: a character holds it"})
        out.append({"colour": css(adapter.HEALTH), "shape": "♥",
                    "words": "a character's health: the number on its figure and the green "
                             "lights at its sides; a figure on its side is defeated"})
        out.append({"colour": css(lights.TRAY), "shape": "⚅",
                    "words": "the dice tray: the red die attacks, a white die for each "
                             "target; the green die gives movement and settles who goes "
                             "first"})
        readers = [n for n in sorted(layout.seats) if n <= len(s.seats)]
        if readers:
            out.append({"colour": css((120, 120, 140)), "shape": "▭",
                        "words": "%s card reader%s: lay a card on your own to play it" % (
                            and_list("%s's" % self.seat_name(s, s.seats[n - 1])
                                     for n in readers), "" if len(readers) == 1 else "s")})
        out.append({"colour": css(lights.HINT_SLIDE), "shape": "◎",
                    "words": "green cells: where the picked character may go", "seat": True})
        return out

    # ------------------------------------------------------------ the board

    def items(self, match, table, seat, reveal=False):
        s = match.state
        out = {}
        base_of = {}
        for t, zone in enumerate(s.map["teams"] if s.options["mode"] == "ctf" else ()):
            for i in zone["base"]:
                base_of[i] = s.seats[t]
        for i, blocked in enumerate(s.map["blocked"]):
            if not blocked:
                continue
            team = base_of.get(i)
            if team is None:
                out.setdefault(cell_of(i), []).append(item("wall", "", "a wall"))
            else:
                out.setdefault(cell_of(i), []).append(item(
                    "wall", "", "%s's base: it blocks like a wall" % self.seat_name(s, team),
                    shape=self.seat_shape(s, team)))
        expected = table.expected()
        for cid in s.roster:
            h = s.heroes[cid]
            if h["cell"] < 0:
                continue
            cell = cell_of(h["cell"])
            q = h["seat"]
            top = s.cat["characters"][cid]["health"]
            seen = FIGURE + cid in table.observed.get(cell, ())
            title = "%s (%s): %d of %d health" % (name_of(s, cid), self.seat_name(s, q),
                                                  h["health"], top)
            if h["state"] in STATE_WORDS:
                title += "; " + STATE_WORDS[h["state"]]
            if not seen:
                title += "; lifted off the table"
            out.setdefault(cell, []).append(item(
                "figure", short_name(s, cid), title, colour=css(self.seat_colour(s, q)),
                shape=self.seat_shape(s, q), id=cid, owner=q, badge=h["health"],
                down=h["state"] != "standing" or None, unplaced=not seen or None))
        for team in sorted(s.flags, key=s.seats.index):
            f = s.flags[team]
            cell = cell_of(f["cell"])
            title = "%s's flag%s" % (self.seat_name(s, team), ", held by %s" % name_of(
                s, f["carrier"]) if f["carrier"] is not None else "")
            seen = FLAG + team in table.observed.get(cell, ())
            out.setdefault(cell, []).append(item(
                "flag", self.seat_name(s, team), title + ("" if seen else "; lifted off the "
                                                         "table"),
                colour=css(self.seat_colour(s, team)),
                shape=FLAG_SHAPE + self.seat_shape(s, team), unplaced=not seen or None))
        secret = set() if reveal else heroes.secrets(s, seat)
        for cell, seen in sorted(table.observed.items()):
            for name in seen:
                if name in expected.get(cell, ()):
                    continue
                out.setdefault(cell, []).append(self._stray(s, name, secret))
        return out

    def _stray(self, s, name, secret):
        """A piece on a cell where the game has none like it: being moved, or to take off."""
        kind, _, key = name.partition(":")
        if name.startswith(FIGURE) and key in s.cat["characters"]:
            q = s.heroes[key]["seat"] if key in s.heroes else None
            return item("figure", short_name(s, key), "%s, not where the game has it" %
                        name_of(s, key), colour=css(self.seat_colour(s, q)) if q else None,
                        shape=self.seat_shape(s, q) if q else None, id=key, owner=q,
                        unplaced=True)
        if name.startswith(FLAG) and key in s.seats:
            return item("flag", self.seat_name(s, key), "%s's flag, not where the game has "
                        "it" % self.seat_name(s, key), colour=css(self.seat_colour(s, key)),
                        shape=FLAG_SHAPE + self.seat_shape(s, key), unplaced=True)
        if name.startswith(CARD) and card_of(s, key) is not None and key not in secret:
            return item("card", self.card_name(s, key), "%s, laid on the board: cards are "
                        "played on a card reader" % self.card_name(s, key), id=key,
                        unplaced=True)
        return item("card_back", "?", "a piece this game does not have here: take it off",
                    unplaced=True)

    def reader_cards(self, match, table, number):
        s = match.state
        out = []
        for name in table.seat_observed.get(number, ()):
            key = name.partition(":")[2]
            if card_of(s, key) is None:
                out.append(item("card_back", "?", "a card this game does not know"))
                continue
            out.append(item("card", self.card_name(s, key), "%s, laid on the card reader" %
                            self.card_name(s, key), id=key))
        return out

    def secret_names(self, state, seat):
        return sorted(self.card_name(state, cid) for cid in heroes.secrets(state, seat))

    # ------------------------------------------------------------ a seat

    def _cards_held(self, s, seat):
        """(card id, label) for every card `seat` may lay on its reader: its standing
        characters' face-up cards, then its Bonus Cards."""
        out = []
        for cid in s.roster:
            h = s.heroes[cid]
            if h["seat"] != seat or h["state"] != "standing":
                continue
            for card in s.cat["characters"][cid]["cards"]:
                if card not in h["face_down"]:
                    # The figure's short name, as the board shows it: a hand fits a phone.
                    out.append((card, "%s (%s)" % (self.card_name(s, card),
                                                   short_name(s, cid))))
        out += [(c, "%s (Bonus Card)" % self.card_name(s, c)) for c in s.hands[seat]]
        return out

    def _lifted(self, s, table, seat):
        """The seat's figures and the flags it carries that are off the table (lifted)."""
        seen = set(i for items in table.observed.values() for i in items)
        figures = [cid for cid in s.roster if s.heroes[cid]["seat"] == seat and
                   s.heroes[cid]["cell"] >= 0 and FIGURE + cid not in seen]
        flags = []
        for team in sorted(s.flags, key=s.seats.index):
            carrier = s.flags[team]["carrier"]
            mine = carrier is not None and s.heroes[carrier]["seat"] == seat
            if FLAG + team not in seen and (mine or carrier is None):
                flags.append(team)
        return figures, flags

    def moves(self, s, table, seat):
        """"x,y" of a cell -> where the seat's piece on it may go now (the Move tool)."""
        out = {}

        def add(cell, to):
            out.setdefault("%d,%d" % tuple(cell), [])
            if list(to) not in out["%d,%d" % tuple(cell)]:
                out["%d,%d" % tuple(cell)].append(list(to))
        if s.status == "ongoing" and seat in self.game.actors(s):
            play = table.card_play
            for a in heroes.legal_actions(s):
                if "to" not in a:
                    continue
                if a["type"] == "move":
                    cid = a["character"]
                elif play is not None and a.get("card") == play["card"] and \
                        a["type"] in ("play_card", "defend"):
                    cid = play["character"] if a["type"] == "defend" else a["character"]
                else:
                    continue
                if cid is not None and cid in s.heroes:
                    add(cell_of(s.heroes[cid]["cell"]), a["to"])
        # A figure of the seat's standing where the game does not have it goes back.
        for cell, items in sorted(table.observed.items()):
            for name in items:
                cid = name[len(FIGURE):] if name.startswith(FIGURE) else None
                if cid in s.heroes and s.heroes[cid]["seat"] == seat and \
                        s.heroes[cid]["cell"] >= 0 and cell_of(s.heroes[cid]["cell"]) != cell:
                    add(cell, cell_of(s.heroes[cid]["cell"]))
        return out

    def you(self, match, table, seat, held=None):
        s = match.state
        hand, note = [], None
        acting = s.status == "ongoing" and seat in self.game.actors(s)
        moves = self.moves(s, table, seat)
        if s.status == "ongoing" and s.phase == "pick":
            if acting:
                cells = {}
                for a in heroes.legal_actions(s):
                    cells.setdefault(a["character"], []).append(list(a["cell"]))
                hand = [{"id": c, "label": name_of(s, c), "kind": "figure",
                         "targets": cells.get(c, []), "reader": False}
                        for c in s.cat["character_order"] if c not in s.heroes]
                note = "Your pick: choose a character, then one of the lit start cells."
        elif s.phase == "play":
            held = self._cards_held(s, seat)
            if acting and s.battle is not None:
                # A defence: only the cards that may answer this attack.
                defending = set(a["card"] for a in heroes.legal_actions(s)
                                if a["type"] == "defend")
                held = [(c, label) for c, label in held if c in defending]
            hand = [{"id": c, "label": label, "kind": "card", "targets": [], "reader": True}
                    for c, label in held]
        figures, flags = self._lifted(s, table, seat)
        for cid in figures:
            home = cell_of(s.heroes[cid]["cell"])
            hand.append({"id": cid, "label": "%s (lifted from %s)" % (
                name_of(s, cid), cell_words(home)), "kind": "figure",
                "targets": [list(home)] + moves.get("%d,%d" % home, []), "reader": False})
        for team in flags:
            hand.append({"id": "flag:" + team, "label": "%s's flag (lifted)" %
                         self.seat_name(s, team), "kind": "flag",
                         "targets": self._flag_targets(s, table, team), "reader": False})
        if note is None:
            note = self._note(s, table, seat, acting)
        return {"hand": hand, "choices": self._choices(s, seat), "note": note,
                "moves": moves}

    def _flag_targets(self, s, table, team):
        """Where a lifted flag may go: next to its carrier (wherever it stands now), or
        back where it lay."""
        f = s.flags[team]
        out = [list(cell_of(f["cell"]))]
        carrier = f["carrier"]
        if carrier is None:
            return out
        at = None
        for cell, items in table.observed.items():
            if FIGURE + carrier in items:
                at = cell
        if at is None:
            return out
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                c = (at[0] + dx, at[1] + dy)
                if (dx or dy) and 0 <= c[0] < heroes.SIZE and 0 <= c[1] < heroes.SIZE and \
                        not s.map["blocked"][c[1] * heroes.SIZE + c[0]] and \
                        not table.observed.get(c) and list(c) not in out:
                    out.append(list(c))
        return out

    def _choices(self, s, seat):
        legal = heroes.legal_actions(s) if s.status == "ongoing" else []
        acting = s.status == "ongoing" and seat in self.game.actors(s)
        kinds = set(a["type"] for a in legal) if acting else set()
        labels = dict(self.game.buttons)
        out = [{"label": labels.get("end_turn", "End turn"),
                "control": {"op": "button", "name": "end_turn"},
                "enabled": "end_turn" in kinds}]
        if s.battle is not None:
            out.append({"label": "No defence: take the attack",
                        "control": {"op": "button", "name": "no_defence"},
                        "enabled": "no_defence" in kinds})
        return out

    def _note(self, s, table, seat, acting):
        """What the seat does next, in one or two sentences."""
        if s.status != "ongoing":
            return None
        if s.phase in ("pick_roll", "turn_roll") and seat in s.rollers:
            return "Throw the dice: the green die decides who %s first." % (
                "picks" if s.phase == "pick_roll" else "plays")
        if s.bonus_rolls and seat in s.bonus_rolls[0]:
            return "Throw the dice: the higher green die draws a Bonus Card."
        if not acting or s.phase != "play":
            return None
        play = table.card_play
        if play is not None:
            card = self.card_name(s, play["card"])
            kind = (card_of(s, play["card"]) or {}).get("kind")
            if play["character"] is None:
                return "%s: tap the character of yours who plays it." % card
            if kind == "move":
                return "%s: move %s with the Move tool to a lit cell." % (
                    card, name_of(s, play["character"]))
            if table.throw is not None and not table.auto and table.throw.missing():
                return "%s: throw the dice." % card
            return "%s: tap its target (the character's own cell to heal itself)." % card \
                if kind == "heal" else "%s: tap its target." % card
        if s.battle is not None:
            return ("%s is attacked: to defend, pick a card without \"Attack\" in its name and "
                    "click your card reader; or choose No defence." % self.character(
                        s, s.battle["targets"][s.battle["next"]]))
        if table.busy():
            return None
        for team in sorted(s.flags):
            carrier = s.flags[team]["carrier"]
            if carrier is not None and s.heroes[carrier]["seat"] == seat:
                return ("%s holds %s's flag: to carry it, lift the flag (Lift), move %s, then "
                        "put the flag next to it." % (name_of(s, carrier), self.seat_name(
                            s, team), name_of(s, carrier)))
        if s.roll is None and {"type": "roll_move"} in heroes.legal_actions(s):
            return ("Throw the dice first: the green die is this turn's movement. To attack: "
                    "tap your character, then its target, then throw the dice.")
        return ("Move: the Move tool, your character, then a lit cell. Attack: tap your "
                "character, then its target. A card: pick it, then your card reader.")

    # ------------------------------------------------------------ a seat's controls

    def place_steps(self, match, table, seat, card, place, face_down=False, whole=False):
        s = match.state
        name = self.seat_name(s, seat)
        if not isinstance(card, str):
            raise Refused(400, 'say which piece to put down: {"card": ID}.')
        figures, flags = self._lifted(s, table, seat)
        if card.startswith("flag:") and card[5:] in flags:
            team = card[5:]
            self._free(table, place, "the flag")
            return [("place", place, FLAG + team)]
        if card in figures:
            self._free(table, place, name_of(s, card))
            return [("place", place, FIGURE + card)]
        if card in s.cat["characters"] and card not in s.heroes:
            if place[0] == SEAT:
                raise Refused(400, "A figure stands on the board, not on a card reader.")
            if s.status != "ongoing" or s.phase != "pick":
                raise Refused(409, "Characters are picked before the game starts.", [place])
            if heroes.current(s) != seat:
                raise Refused(409, "It is %s's pick." % self.seat_name(s, heroes.current(s)),
                              [place])
            self._free(table, place, name_of(s, card))
            problem = heroes.validate(s, {"type": "pick", "character": card,
                                          "cell": list(place)})
            if problem is not None:
                raise Refused(409, self._pick_problem(s, seat, problem), [place])
            return [("place", place, FIGURE + card)]
        if card not in [c for c, _ in self._cards_held(s, seat)]:
            raise Refused(403, "%s does not hold that card." % name)
        if place[0] != SEAT:
            raise Refused(409, "%s is played on your card reader, not on the board: pick it, "
                          "then click your card reader." % self.card_name(s, card), [place])
        if table.seat_observed.get(place[1]):
            raise Refused(409, "A card already lies on your card reader: lift it off first "
                          "(click the reader).", [place])
        why = self.card_problem(s, seat, card)
        if why is not None:
            raise Refused(409, why, [place])
        return [("place", place, CARD + card)]

    def _pick_problem(self, s, seat, problem):
        """The engine's reason a pick is refused, with the seat and cells in words."""
        if problem.code == "not_a_start_cell":
            cells = sorted(set(tuple(a["cell"]) for a in heroes.legal_actions(s)
                               if a["type"] == "pick"))
            return "%s's characters start on %s: the lit cells." % (
                self.seat_name(s, seat), or_list(cell_words(c) for c in cells))
        return problem.message

    def _free(self, table, place, what):
        if place[0] == SEAT:
            raise Refused(400, "%s goes on the board, not on a card reader." % what)
        if table.observed.get(place):
            raise Refused(409, "Something already stands on %s: put %s on a free cell." % (
                cell_words(place), what), [place])

    def card_problem(self, s, seat, card_id):
        """Why `seat` may not lay `card_id` on its card reader now (a sentence), or None."""
        if s.status != "ongoing" or s.phase != "play":
            return "Cards are played once the game is under way."
        if s.bonus_rolls:
            return "Roll the green die for the Bonus Card first."
        name = self.card_name(s, card_id)
        legal = heroes.legal_actions(s)
        if s.battle is not None:
            defender = s.battle["targets"][s.battle["next"]]
            dseat = s.heroes[defender]["seat"]
            if dseat != seat:
                return "The battle waits for %s to defend %s." % (
                    self.seat_name(s, dseat), name_of(s, defender))
            if any(a["type"] == "defend" and a["card"] == card_id for a in legal):
                return None
            owner = owner_of(s, card_id)
            if owner is not None and owner != defender:
                return "%s defends now, and %s is %s's card." % (
                    name_of(s, defender), name, name_of(s, owner))
            if "attack" in name.lower():
                return "%s has \"Attack\" in its name: it cannot be played in defence." % name
            return "%s cannot be played for %s now." % (name, name_of(s, defender))
        if heroes.current(s) != seat:
            return "It is %s's turn." % self.seat_name(s, heroes.current(s))
        owner = owner_of(s, card_id)
        who = [owner] if owner is not None else [
            c for c in s.roster if s.heroes[c]["seat"] == seat and
            s.heroes[c]["state"] == "standing"]
        if any(a["type"] == "play_card" and a["card"] == card_id and a["character"] in who
               for a in legal):
            return None
        problem = heroes.validate(s, {"type": "play_card", "character": who[0] if who
                                      else None, "card": card_id})
        if problem is not None and problem.code not in ("off_board", "unknown_character"):
            return problem.message
        return "%s has nobody to play it on, or nowhere to go, now." % name

    def liftable(self, match, table, seat, place, card=None):
        s = match.state
        if place[0] == SEAT:
            seen = table.seat_observed.get(place[1], [])
            if not seen:
                raise Refused(409, "Nothing lies on your card reader.", [place])
            return seen[0]
        seen = list(table.observed.get(place, []))
        if not seen:
            raise Refused(409, "Nothing stands on %s." % cell_words(place), [place])
        if isinstance(card, str):
            named = [i for i in seen if i.partition(":")[2] == card or i == card]
            seen = named or seen
        expected = table.expected().get(place, [])
        for name in seen:
            key = name.partition(":")[2]
            if name.startswith(FIGURE) and key in s.heroes and s.heroes[key]["seat"] == seat:
                return name
            if name.startswith(FLAG) and key in s.flags:
                carrier = s.flags[key]["carrier"]
                if carrier is not None and s.heroes[carrier]["seat"] == seat:
                    return name
            if name not in expected:
                return name   # tidying: a piece the game does not have there
        first = seen[0].partition(":")
        if first[0] + ":" == FIGURE and first[2] in s.heroes:
            raise Refused(403, "%s is %s's: you move only your own characters." % (
                name_of(s, first[2]), self.seat_name(s, s.heroes[first[2]]["seat"])), [place])
        if first[0] + ":" == FLAG:
            raise Refused(403, "Only a character that holds a flag carries it.", [place])
        raise Refused(403, "That piece is not yours to lift.", [place])

    def check_move(self, match, table, seat, place, to, item):
        s = match.state
        if table.observed.get(to):
            raise Refused(409, "Something already stands on %s: one piece a cell." %
                          cell_words(to), [to])
        if s.map["blocked"][to[1] * heroes.SIZE + to[0]]:
            raise Refused(409, "%s is a wall: nobody stands there." % cell_words(to), [to])
        key = item.partition(":")[2]
        if item.startswith(CARD):
            raise Refused(409, "Cards are played on a card reader, not moved on the board.",
                          [to])
        if not item.startswith(FIGURE) or key not in s.heroes:
            return
        home = cell_of(s.heroes[key]["cell"]) if s.heroes[key]["cell"] >= 0 else None
        if home is None:
            raise Refused(409, "%s is out of the game: lift the figure off." % name_of(s, key),
                          [place])
        if tuple(place) != home or s.heroes[key]["state"] != "standing":
            if tuple(to) != home:
                raise Refused(409, "%s belongs on %s." % (name_of(s, key), cell_words(home)),
                              [to])
            return
        if list(to) not in self.moves(s, table, seat).get("%d,%d" % home, []):
            action = {"type": "move", "character": key, "to": list(to)}
            problem = heroes.validate(s, action) if seat == heroes.current(s) and \
                s.battle is None else None
            raise Refused(409, problem.message if problem is not None else
                          "%s may not go to %s now." % (name_of(s, key), cell_words(to)), [to])

    async def throw(self, hands, table, rng):
        t = table.throw
        if t is None or not t.missing():
            raise Refused(409, "The tray waits for no dice now. To attack, tap your character, "
                          "then its target; then throw.")
        colours = t.missing()
        values = [rng.randint(1, 6) for _ in colours]
        await hands.throw_dice(table, [(c, None) for c in colours], values)
        return values
