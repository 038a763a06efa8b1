"""Battle Royale with hero teams (and Capture the Flag) on the table: sensor changes in,
game actions (or mismatches) out.

The table (host/layouts/heroes.toml): the 7 x 7 grid of cells [x, y] as the engine
(shared_rules/heroes.py) has them, and the dice tray. What lies on it:

    a character       a tagged figure "heroes:<character id>" on its cell
    an action card    a tagged card "heroes-card:<card id>" (Bonus Cards too)
    a flag            a tagged token "heroes-flag:<team>" (Capture the Flag)
    the dice          "die:red:<face>", "die:white:<face>", "die:green:<face>": any pocket
                      reads any die (the hands put red in pocket 1, white in 2, green in 3)

Walls (and Capture the Flag's bases) are cells of the map: they stay dark. The layout
format has no card reader for a seat (every reader of a cell tile is a board cell), so a
card is played by laying it on the cell of the character who plays it: that cell's
reader reads the card under or beside the figure.

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
    play a card       lay it on the cell of the character who plays it: an area attack
                      card rolls at once (red, then the whites); a one-target attack or a
                      heal that reaches others waits for a tap on the target (the
                      character's own cell for itself); a movement card waits for the
                      figure's move; lift the card off once it is played
    defend            while the battle waits for a defender, lay one of its cards on the
                      defender's cell (a movement card: then move the figure; a heal that
                      reaches others: then tap the character it heals), or press the seat
                      button "no_defence"
    end turn          seat button "end_turn"

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
adapter is host/table/heroes_game.py, the virtual hands host/virtual/hands.py.
"""

import binascii

from host.table.dice_tray import DiceTrayInterpreter
from host.table.mismatch import Mismatch
from shared_rules import canon, heroes, prng

FIGURE = "heroes:"
CARD = "heroes-card:"
FLAG = "heroes-flag:"
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


def card_of(state, card_id):
    return state.cat["cards"].get(card_id) or state.cat["bonus"].get(card_id)


def the(name):
    """A character's name in a sentence: "the Tin Woodman", "Robin Hood"."""
    return name if not name.startswith("The ") else "the " + name[4:]


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
        self.card_play = None      # {"cell", "card", "character", "defending"}: a card laid
        self.in_hand = None        # a character whose figure is lifted for a move
        self.spent = set()         # (cell, card) lying there since before the last action

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
        self.spent = set((cell, item[len(CARD):]) for cell in self.observed
                         for item in self.observed[cell] if item.startswith(CARD))
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
                problems.append("A die (%s) lies on the board at %s: roll dice in the tray." % (
                    item, xy(cell)))
            else:
                problems.append("%s is not a piece of Battle Royale with hero teams: take it "
                                "off %s." % (item, xy(cell)))
        self.observe(cell, keep, problems)

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
        self._check_tray()
        figures, flags, cards = {}, {}, {}
        for cell in sorted(self.observed):
            for item in self.observed[cell]:
                kind, name = item.split(":", 1)
                into = figures if kind == "heroes" else flags if kind == "heroes-flag" \
                    else cards
                into.setdefault(name, []).append(cell)
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
        play = self.card_play
        if play is not None and play["cell"] not in cards.get(play["card"], ()):
            self.note("%s was taken back" % card_of(s, play["card"])["name"])
            self._drop_card_play()
        self.spent = set((cell, c) for cell, c in self.spent if cell in cards.get(c, ()))
        for card_id in sorted(cards):
            for cell in cards[card_id]:
                play = self.card_play
                if play is not None and play["card"] == card_id and play["cell"] == cell:
                    continue
                card = card_of(s, card_id)
                if card is None:
                    self.mismatches.append(Mismatch(
                        "not_in_game", [cell], "That card is not in this game's catalog: take "
                        "it off %s." % xy(cell)))
                    continue
                if (cell, card_id) in self.spent:
                    self.mismatches.append(Mismatch(
                        "card_played", [cell], "%s has been played: lift it off %s." % (
                            card["name"], xy(cell))))
                    continue
                if play is not None:
                    self.mismatches.append(Mismatch(
                        "one_card", [cell], "%s is being played: take %s off %s." % (
                            card_of(s, play["card"])["name"], card["name"], xy(cell))))
                    continue
                sentence = self._lay_card(s, cell, card_id, card, candidates)
                if sentence is not None:
                    self.mismatches.append(Mismatch("card_not_playable", [cell], sentence))

    def _lay_card(self, s, cell, card_id, card, candidates):
        """A card just laid on `cell`: start its play (or return the action at once).
        Returns the sentence of a mismatch when it cannot be played there now."""
        cid = occupant(s, cell)
        take_off = "take %s off %s." % (card["name"], xy(cell))
        if s.phase != "play" or s.status != "ongoing":
            return "Cards are played once the game is under way: " + take_off
        if cid is None:
            return "Lay a card on the character who plays it: " + take_off
        if s.bonus_rolls:
            return "Roll for the Bonus Card first: " + take_off
        if s.battle is not None:
            defender = s.battle["targets"][s.battle["next"]]
            if cid != defender:
                return "The battle waits for %s's defence (a card on %s, or no_defence): %s" % (
                    the(name_of(s, defender)), xy(cell_of(s.heroes[defender]["cell"])),
                    take_off)
            base = {"type": "defend", "card": card_id}
            if card["kind"] == "heal" and card["range"] == 0:
                base["target"] = cid
            if card["kind"] == "defend" or "target" in base:
                problem = heroes.validate(s, base)
                if problem is not None:
                    return "%s Then %s" % (problem.message, take_off)
                candidates.append(base)
                return None
            if not [a for a in heroes.legal_actions(s) if a["type"] == "defend"
                    and a["card"] == card_id]:
                problem = heroes.validate(s, base)
                why = problem.message if problem is not None and card["kind"] != "move" else \
                    "%s cannot be played for %s now." % (card["name"], the(name_of(s, cid)))
                return "%s Then %s" % (why, take_off)
            self.card_play = {"cell": cell, "card": card_id, "character": cid,
                              "defending": True}
            self.note("%s: %s" % (card["name"], "move %s's figure away" % the(name_of(s, cid))
                                  if card["kind"] == "move" else "tap the character to heal"))
            return None
        base = {"type": "play_card", "character": cid, "card": card_id}
        options = [a for a in heroes.legal_actions(s) if a["type"] == "play_card"
                   and a["character"] == cid and a["card"] == card_id]
        if not options:
            problem = heroes.validate(s, base)
            why = problem.message if problem is not None else \
                "%s has nobody to play it on now." % card["name"]
            return "%s Then %s" % (why, take_off)
        self.attacker = None
        if card["kind"] == "attack" and card["area"] != "one":
            self._start_throw(base, "%s: roll the red die and the white ones" % card["name"])
            self.card_play = {"cell": cell, "card": card_id, "character": cid,
                              "defending": False}
            return None
        if card["kind"] == "heal" and card["range"] == 0:
            candidates.append(dict(base, target=cid))
            return None
        self.card_play = {"cell": cell, "card": card_id, "character": cid, "defending": False}
        self.note("%s: %s" % (card["name"], "move the figure" if card["kind"] == "move"
                              else "tap the target's cell"))
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
        for pocket in sorted(p for p in self.pockets if self.pockets[p]):
            if pocket in self.used:
                continue
            colour = die_colour(self.pockets[pocket])
            self.used.add(pocket)
            free = [i for i in range(len(t.wanted)) if t.values[i] is None and
                    t.wanted[i][0] == colour]
            if not free:
                self.note("the %s die in pocket %d is not wanted now (%s)" % (
                    colour, pocket + 1, ", ".join(t.missing()) or "nothing"))
                continue
            t.values[free[0]] = int(self.pockets[pocket].split(":")[2])
            self.progress_at = now
        if t.missing():
            if t.started():
                self.note("dice read: %s; still to roll: %s" % (
                    [v for v in t.values if v is not None], ", ".join(t.missing())))
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
                "the defender plays a card or no_defence" if s.battle is not None
                else "roll the green die for the Bonus Card"))
        if self.throw is not None and not self.auto:
            return self.refuse([cell], "Roll the dice first: %s." % ", ".join(
                self.throw.missing()))
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
                return self.refuse([], "no_defence answers an attack on one of your "
                                   "characters.")
            return {"type": "no_defence"}
        if name == "end_turn":
            if s.phase != "play" or s.battle is not None or s.bonus_rolls or \
                    seat != heroes.current(s):
                return self.refuse([], "%s cannot end a turn now." % seat)
            return {"type": "end_turn"}
        return None


def die_colour(item):
    """The colour of a die item "die:<colour>:<face>", or None for anything else."""
    parts = item.split(":")
    if len(parts) == 3 and parts[0] == "die" and parts[1] in DIE_COLOURS:
        return parts[1]
    return None
