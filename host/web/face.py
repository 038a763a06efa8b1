"""A game's face on the web table: what a viewer sees, in words and generic kinds of piece.

Each game's package has a `WebFace` subclass (host/games/<name>/web.py, its adapter's
`face_class`). The web table (host/web/view.py) asks it and nothing else of the game:

- the header: the game's title, whose turn it is and what they may do (`banner`), and the
  game's facts in words (`facts`: scores, points left, the round); panels of words beside
  the board (`panels`: each player's numbers, what is going on);
- the seats: each seat's name, colour and shape (a shape, so no meaning rests on colour
  alone), and a legend of the colours, zones and pieces the board shows;
- every cell's pieces as generic kinds (`items`): "card", "card_back", "pawn", "figure",
  "token", "flag", "stack", "contract", "wall", each with a short `label` and a longer
  `title` in words; the cards on each seat's reader;
- a seat's own part (`you`): its hand (what that seat holds), the choices the rules give it
  now as labelled buttons (greyed when they do not apply), where a picked card may go;
- how a seat's clicks become gestures on the virtual table: how a card of the hand goes
  down (`place_steps`), what a seat may lift off a place (`liftable`), a throw of the dice
  (`throw`).

Nothing here reads another game's state: a face reads the engine's public functions and
its own interpreter.
"""

from host import lights
from host.web.errors import Refused

# Shapes for the seats, in seat order: a seat is told apart by its shape as well as its
# colour (colour-blind players, a grey TV).
SHAPES = ("●", "▲", "■", "◆", "★", "✚", "⬟", "⬢", "▼", "◐")
ITEM_KINDS = ("card", "card_back", "pawn", "figure", "token", "flag", "stack", "contract",
              "wall")


def css(rgb):
    """An LED colour as CSS."""
    return "#%02x%02x%02x" % tuple(max(0, min(255, int(v))) for v in rgb)


def item(kind, label, title=None, **more):
    """One piece on a cell (a dict the page draws): `kind` one of ITEM_KINDS."""
    assert kind in ITEM_KINDS, kind
    out = {"kind": kind, "label": label, "title": title or label}
    out.update((k, v) for k, v in more.items() if v is not None)
    return out


def cell_words(cell):
    return "[%d, %d]" % (cell[0], cell[1])


def and_list(words, last=" and "):
    """"a", "a and b", "a, b and c"."""
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + last + words[-1]


def or_list(words):
    """"a", "a or b", "a, b or c"."""
    return and_list(words, " or ")


class _Position:
    """A state standing for a match where a face reads only its state."""

    def __init__(self, state):
        self.state = state


class WebFace:
    """The web face every game gets by default; a game's `web.py` overrides what its board
    and words need. `game` is the game's TableGame adapter."""

    # Palettes a staff member may choose (the staff page): "book" keeps the book's colours,
    # "contrast" a palette told apart by most colour-blind eyes (Okabe and Ito's).
    CONTRAST = ((0, 114, 178), (230, 159, 0), (0, 158, 115), (204, 121, 167),
                (86, 180, 233), (213, 94, 0), (240, 228, 66), (120, 120, 120),
                (255, 255, 255), (60, 60, 60))

    # What each of the page's gestures ("Hands on the table": tap, double, hold, lift, move)
    # does in this game, in words: ((tool, words), ...), and the summary that names what
    # they are for. A game whose every move has its own button leaves them empty.
    gestures = ()
    gestures_for = ""

    def __init__(self, game):
        self.game = game
        self.palette = "book"

    @property
    def engine(self):
        return self.game.engine

    # ------------------------------------------------------------ seats and words

    def seat_name(self, state, seat):
        """A seat in words ("Hero", "Red", "Player 2")."""
        return str(seat).replace("_", " ").capitalize()

    def book_colour(self, state, seat):
        """A seat's colour as the book gives it (rgb); default: the seat palette in order."""
        colours = list(lights.PAWN_COLOURS.values())
        return colours[list(state.seats).index(seat) % len(colours)]

    def seat_colour(self, state, seat):
        if self.palette == "contrast":
            return self.CONTRAST[list(state.seats).index(seat) % len(self.CONTRAST)]
        return self.book_colour(state, seat)

    def seat_shape(self, state, seat):
        return SHAPES[list(state.seats).index(seat) % len(SHAPES)]

    def seats(self, match, bots):
        """Every seat: its name, colour and shape, whether a bot plays it (`bots`: seat ->
        level) and at what level, and whether the game waits on it now."""
        state = match.state
        acting = set(self.game.actors(state))
        return [{"seat": q, "name": self.seat_name(state, q), "bot": q in bots,
                 "level": bots.get(q),
                 "colour": css(self.seat_colour(state, q)), "shape": self.seat_shape(state, q),
                 "acting": q in acting} for q in state.seats]

    def action_words(self, kind):
        """What an action type lets a player do, in words ("draw a card")."""
        return kind.replace("_", " ")

    def banner(self, match, table, seat):
        """Whose turn it is and what they may do, in one sentence; the ending once over."""
        state = match.state
        if self.engine.status(state) != "ongoing":
            return self.ending(state)
        who = self.game.actors(state)
        if not who:
            return "Waiting for the table"
        return self.turn_banner(match, table, seat, who)

    def turn_banner(self, match, table, seat, who):
        """The banner while the game waits on the seats `who` (the game's actors)."""
        state = match.state
        names = and_list(self.seat_name(state, q) for q in who)
        kinds = []
        for a in self.engine.legal_actions(state):
            if self.engine.actor(state, a) in who:
                words = self.action_words(a["type"])
                if words and words not in kinds:
                    kinds.append(words)
        mine = seat is not None and seat in who
        head = ("Your turn" if mine else "%s's turn" % names) if len(who) == 1 else \
            "%s act now" % names
        # What they may do is a choice: "draw a card, spin a card or end the turn".
        return head + (": %s" % or_list(kinds[:4]) if kinds else "")

    def ending(self, state):
        """The game over, in words: who won and, where a player may not expect it, why."""
        winner = self.engine.winner(state)
        if winner is None:
            return "Game over: a draw"
        return "Game over: %s wins" % self.seat_name(state, winner)

    def facts(self, match):
        """The game's numbers in words (scores, what is left), one short phrase each."""
        scores = self.engine.result(match.state).get("scores") or {}
        state = match.state
        return ["%s %s" % (self.seat_name(state, q), scores[q]) for q in state.seats
                if q in scores]

    def request_words(self, state, action):
        """A move asked of the table, before it is made ("play a card on [3, 3]"): never a
        hidden card."""
        words = self.action_words(action["type"])
        for k in ("cell", "to"):
            if isinstance(action.get(k), list) and len(action[k]) == 2:
                words += " %s %s" % ("on" if k == "cell" else "to", cell_words(action[k]))
        return words

    def describe(self, state, action, events):
        """One line for the log, in the book's words, that anyone at the table may read
        (never a hidden card). `state` is the state after the action."""
        who = self.engine.actor(state, action)
        line = "%s: %s." % (self.seat_name(state, who) if who else "The table",
                            self.request_words(state, action))
        for ev in events:
            if ev.get("type") == "game_over":
                line += " " + self.ending(state) + "."
        return line

    def header_lines(self, state, table=None):
        """The banner and the facts, for a view that holds a state only (the terminal)."""
        here = _Position(state)
        return [self.banner(here, table, None), " · ".join(self.facts(here))]

    def panels(self, match, table, seat):
        """What a viewer reads beside the board, in words, as panels: [{"title", "rows":
        [{"label", "value"?, "note"?, "state"?: "lit" | "dim" | "bad", "shape"?, "colour"?}]}]
        (each player's health and kills, the battles going on, the day's event). Default:
        none. The same form is a seat's own board (`you()["board"]`)."""
        return []

    def legend(self, match, layout):
        """What the board's colours, zones and pieces mean: [{"colour", "shape", "words"}],
        with "seat": True on what only a seat's page shows (a spectator's legend leaves it),
        and "look": "card_back" where the swatch is drawn as the board draws a card's back
        (its stripes, not a colour)."""
        state = match.state
        return [{"colour": css(self.seat_colour(state, q)), "shape": self.seat_shape(state, q),
                 "words": self.seat_name(state, q)} for q in state.seats]

    # ------------------------------------------------------------ the board

    def items(self, match, table, seat, reveal=False):
        """cell -> the pieces on it as `seat` may know them (None: a spectator; `reveal`:
        staff stepping through a finished game, everything). Default: what the table sees,
        by name."""
        out = {}
        for cell, seen in sorted(table.observed.items()):
            out[cell] = [item("card", name.split(":")[-1]) for name in seen]
        return out

    def reader_cards(self, match, table, number):
        """The cards on seat `number`'s card reader (face up: a card laid there is being
        played, or should be lifted off)."""
        return [item("card", name.split(":")[-1])
                for name in table.seat_observed.get(number, ())]

    # ------------------------------------------------------------ a seat

    def you(self, match, table, seat, held=None):
        """A seat's own part: {"hand": [...], "choices": [...], "note": sentence}.

        hand: [{"id", "label", "kind", "targets": [[c, r]...], "reader": bool}] what the
        seat holds (`held`: the cards the virtual hands drew for it); choices: [{"label",
        "control", "enabled", "chosen"?, "cards"?, "group"?, "title"?, "then"?, "step"?}],
        each a control the page sends; "group" heads the choices that follow it, "title" is
        the longer words shown on hover, a choice with "then" (choices, without a control of
        its own) opens them as a second step (a target, a way to pay), and "step" (true)
        marks the next step of a move whose cards are going down. A game may add
        "board": panels (the form of `panels`) of the seat's own board."""
        return {"hand": [], "choices": self.button_choices(match, seat), "note": None}

    def button_choices(self, match, seat):
        """The seat buttons as choices, greyed when the seat has nothing to do with them."""
        state = match.state
        mine = seat in self.game.actors(state)
        return [{"label": label, "control": {"op": "button", "name": name},
                 "enabled": mine} for name, label in self.game.buttons]

    def held(self, match, seat, seed):
        """What a seat's person holds on the virtual table (the virtual hands drew it):
        None when the engine knows the seat's hand."""
        return None

    def own_words(self, state, seat):
        """Secret words the seat itself may read (its own hand's ids and names)."""
        return []

    def secret_names(self, state, seat):
        """The names of the engine's secrets for `seat` (its ids are secret too)."""
        return []

    # ------------------------------------------------------------ a seat's controls

    def place_steps(self, match, table, seat, card, place, face_down=False, whole=False):
        """What the hands do to put a piece of `seat`'s hand on `place` (a cell or ("seat",
        n)): [("place", place, item), ("lift", place, item) or ("gesture", place, kind)],
        in order (a card hidden face down is put down, then double-tapped; a delivery lifts
        a contract and its cards). `whole`: the page's choice put down a group it says is
        complete (a game that reads a group once the table is still may read it at once).
        Refused, with the rule in words and the cell, when it may not go there: nothing is
        put down."""
        raise Refused(400, "this game puts nothing down from a hand.")

    def lift_steps(self, match, table, seat, place, item, whole=False):
        """What the hands do when `seat` lifts `item` (from `liftable`) off `place`: the
        steps of `place_steps`. Default: that one lift. `whole`: the page's choice names a
        whole move that begins with this lift (a Fight Club delivery: the contract, then
        its wagon's cards), done in one go."""
        return [("lift", place, item)]

    def check_move(self, match, table, seat, place, to, item):
        """Refused when `item` may not go from `place` to `to` (before anything moves)."""

    def observed_name(self, item):
        """How the interpreter names a registry item in `observed` (default: as it is)."""
        return item

    def liftable(self, match, table, seat, place, card=None):
        """The item `seat` lifts off `place` (`card`: one named out of a stack)."""
        seen = table.observed.get(place) if place[0] != "seat" else \
            table.seat_observed.get(place[1])
        if not seen:
            raise Refused(409, "nothing lies there.")
        return seen[-1]

    async def throw(self, hands, table, rng):
        """Roll the dice the tray waits for (a person's throw); returns the values."""
        raise Refused(400, "this game has no dice.")
