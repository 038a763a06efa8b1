"""The contract of a game on the table: what the session, the lights, the bots, the virtual
hands and the views may ask of a game, and nothing more.

A game on the table is two objects (docs/adding-a-game.md walks through writing them):

- a `TableGame`, the adapter: one per game, stateless. It names the game's options and
  seats, makes the interpreter, lights the table (`scenes`), draws it in the terminal
  (`render`), describes it to a viewer (`table_view`), and says how bots play
  (`bot_action`, `normal_bot_action`, `carries_out`) and how virtual hands carry moves out
  (`hands`);
- a `TableInterpreter`, one per Match: it turns what the tiles sense (items on cells,
  pad gestures, dice in the tray, seat buttons, time passing) into the action the table
  shows, or into mismatches (what disagrees with the game, in words, with its cells).
  It is pure: the session feeds it observations and the time (monotonic ms, from the
  session's clock) and applies the actions it returns; it never reads a clock or a tile.

Every method has a default a simple game can keep; the ones marked "must" have none.
The session calls these methods and nothing else: no probing for optional attributes.
"""

from host.table.mismatch import Mismatch
from shared_rules import bots, games


def _remember(observed, problems, place, items, sentences):
    """What lies on a place (sorted) and its tag problems; an empty place leaves both."""
    if items:
        observed[place] = sorted(items)
    else:
        observed.pop(place, None)
    if sentences:
        problems[place] = list(sentences)
    else:
        problems.pop(place, None)


class TableInterpreter:
    """Sensor changes in, the action the table shows (or mismatches) out, for one Match.

    Public attributes the session, the hands and the views read:
      match         the Match being played (the interpreter reads its state, never applies)
      observed      cell -> sorted list of what is seen there, in the interpreter's naming
      problems      cell -> sentences about bad tags there
      seat_observed seat number -> sorted list of what lies on that seat's card reader
      seat_problems seat number -> sentences about bad tags there
      mismatches    the Mismatch list of the last `reconcile` (empty: the table matches)
      progress_at   ms when the table last moved a change along (a duel read round by
                    round); a bot waiting for its move counts its patience from then
      bot_move      the bot's move the table was asked to show, or None (`expect_bot_move`)
      hide_window_ms  how long a piece just placed waits for a double tap that changes
                    what the placement means; None for a game with no such wait
    """

    hide_window_ms = None

    def __init__(self, match, hide_window_ms=None):
        self.match = match
        self.observed = {}
        self.problems = {}
        self.seat_observed = {}
        self.seat_problems = {}
        self.mismatches = []
        self.progress_at = 0
        self.bot_move = None
        self.notes = []           # sentences for the host's log, drained by take_said()
        self.refusals = []        # (cells, sentence): illegal gestures, drained by take_said()
        if hide_window_ms is not None:
            self.hide_window_ms = hide_window_ms

    @property
    def state(self):
        return self.match.state

    # ------------------------------------------------------------ what the tiles sense

    def observe(self, cell, items, problems=()):
        """What now lies on `cell` (in the interpreter's naming) and tag problems. Default:
        remembered in `observed` (sorted) and `problems`; an empty cell leaves both."""
        _remember(self.observed, self.problems, cell, items, problems)

    def observe_items(self, cell, items, problems=()):
        """Tags on `cell` resolved to registry item names ("royale:S5", "pawn:red", ...).

        The place to refuse items of another game (as a problem sentence) and to turn item
        names into the interpreter's naming. Default: observe them as they are.
        """
        self.observe(cell, items, problems)

    def observe_cards(self, cell, items, problems, prefix, title):
        """For a game played with cards alone: its cards ("<prefix><card id>") observed by
        their ids, any other item a problem ("<item> is not a <title> card: take it off.")."""
        cards, problems = [], list(problems)
        for item in items:
            if item.startswith(prefix):
                cards.append(item[len(prefix):])
            else:
                problems.append("%s is not a %s card: take it off." % (item, title))
        self.observe(cell, cards, problems)

    def take_over(self, old):
        """A new game on the same table (staff start, a tap in the attract mode): what `old`
        (the last game's interpreter) read still lies there, cells and seats' readers alike.
        Extend it for what else a game's interpreter reads (the dice tray)."""
        for cell in sorted(set(old.observed) | set(old.problems)):
            self.observe(cell, old.observed.get(cell, []), old.problems.get(cell, []))
        for seat in sorted(set(old.seat_observed) | set(old.seat_problems)):
            self.observe_seat(seat, old.seat_observed.get(seat, []),
                              old.seat_problems.get(seat, []))

    def observe_seat(self, seat, items, problems=()):
        """What now lies on the card reader of seat number `seat` (1 = the game's first
        seat, host/table/layout.py) and tag problems there. Default: remembered in
        `seat_observed` and `seat_problems` (a game whose table has no seat readers never
        gets any: its layouts refuse a seat tile)."""
        _remember(self.seat_observed, self.seat_problems, seat, items, problems)

    def observe_seat_items(self, seat, items, problems=()):
        """Tags on seat `seat`'s card reader resolved to registry item names: the place to
        refuse what is not a card of the game. Default: observe them as they are."""
        self.observe_seat(seat, items, problems)

    def tag_mismatches(self):
        """The tag problems seen (another game's piece, a forged tag), as "bad_tag"
        mismatches on their cells and on the seats' readers (("seat", n))."""
        out = [Mismatch("bad_tag", [cell], " ".join(self.problems[cell]))
               for cell in sorted(self.problems)]
        out += [Mismatch("bad_tag", [("seat", n)], " ".join(self.seat_problems[n]))
                for n in sorted(self.seat_problems)]
        return out

    def reconcile(self, now):
        """Must: compare the table with the game; returns the action the table shows, or None.

        Sets `mismatches` to what disagrees (nothing is applied while any remains).
        """
        raise NotImplementedError("%s.reconcile" % type(self).__name__)

    def gesture(self, cell, kind, now):
        """A "tap", "double" or "hold" on a cell's pad: an action or None. Default: None."""
        return None

    def button(self, seat, name):
        """A seat button pressed: an action or None. Default: None."""
        return None

    def seat_gesture(self, seat, kind, now):
        """A "tap", "double" or "hold" on the pad of seat number `seat`'s card reader: an
        action or None (a game whose seats make choices without a phone reads them here).
        Default: nothing, said in the log."""
        self.note("A %s on seat %d's card reader does nothing: the seat buttons and the "
                  "cells' pads play." % ({"tap": "tap", "double": "double tap", "hold": "hold"}
                                         .get(kind, kind), seat))
        return None

    def dice(self, pocket, item, problem, now):
        """A die settled in a tray pocket (`item` is its face), or the pocket emptied (None).

        `problem` is a sentence about a bad tag there. Returns an action or None.
        Default: a game without a dice tray ignores it.
        """
        return None

    def tick(self, now):
        """Time passing with no event: an action that waited for time, or None."""
        return None

    def busy(self):
        """True while a change is under way on the table (bots wait). Default: False."""
        return False

    def progress(self):
        """A change under way that is not a mismatch, for the people at the table: None, or
        {"text": what is happening and what to do, in words, "cells": the cells it
        concerns} (a card waiting for its double tap, a pawn in hand, dice awaited).
        Default: None."""
        return None

    def pocket_die(self, pocket):
        """The face of the die the table reads in a dice-tray pocket (0-based), or None.
        Default: None (a game without a dice tray)."""
        return None

    def signature(self):
        """Changes whenever anything the interpreter shows may have changed (cheap: the web
        table asks it every round). Default: what lies where, and the change under way."""
        return (repr(sorted(self.observed.items())), repr(sorted(self.problems.items())),
                repr(sorted(self.seat_observed.items())),
                repr(sorted(self.seat_problems.items())), repr(self.progress()),
                repr(self.bot_move))

    def after(self, events):
        """The session applied an action with these events (what the engine did by itself)."""

    def expected(self):
        """What should lie on each cell now: cell -> sorted list, in `observed`'s naming."""
        return {}

    def pockets_wanted(self):
        """The dice-tray pockets (0-based) the table waits for now, in order. Default: none."""
        return []

    # ------------------------------------------------------------ what the session tells it

    def expect_bot_move(self, action, now):
        """The bot's move the table now lights for a hand to carry out (None: given up).

        A game may read its placements differently while a move is expected (no wait for
        a double tap when the move asked for is known). Default: remember it.
        """
        self.bot_move = action

    # ------------------------------------------------------------ what it has to say

    def note(self, sentence):
        """Something for the host's log (a choice named, a round read)."""
        self.notes.append(sentence)

    def refuse(self, cells, sentence):
        """An illegal gesture: its cells flash and the sentence is said. Returns None."""
        self.refusals.append((list(cells), sentence))
        return None

    def take_said(self):
        """(notes, refusals) since the last call; the session says and flashes them."""
        notes, refusals = self.notes, self.refusals
        self.notes, self.refusals = [], []
        return notes, refusals


class TableGame:
    """The adapter of one game to the table: one instance per game, holding no game state.

    Class attributes a game sets (its table's facts, declared once: the layouts, the tag
    registry, `fairytable run`, the web table and the staff page read them):
      name              the engine's name ("storybook", "royale"); the engine's own facts
                        (title, player counts, modes) are its INFO (`info`)
      options           the options of a game on the table (e.g. physical cards)
      board_words       the board in words, for a layout's errors ("the 7 x 7 grid")
      dice_tray         True if the table needs a dice tray (a layout's "dice" tile)
      seat_readers      the most seats that play cards on a reader of their own (seat
                        tiles, up to 8 readers each); 0: the table has none
      virtual_heap      the tile firmware's heap on the virtual table
      virtual_tags_per_reader  the most tags the game lays on one reader: the virtual
                        table's emulated tags made at a tile's start (they live beside
                        the firmware's heap, as a real tile's cards take none of it)
      players_from_bots True if a game's player count goes into its options even at the
                        game's usual count (`fairytable run`'s new_game_setup): the bots
                        seed from the whole state, options included, so a game whose
                        journalled games never carried it keeps it False
      button_actions    action types a seat button performs (bots apply them directly)
      buttons           the seat buttons, (name, label) in order: the Pi's and the web's
      interpreter       the TableInterpreter subclass
      face_class        its web face (host/web/face.py's WebFace subclass, in the game's
                        package): the words, pieces and choices the web table shows
    """

    name = None
    options = {}
    board_words = "the board"
    dice_tray = False
    seat_readers = 0
    virtual_heap = "64k"
    virtual_tags_per_reader = 4
    players_from_bots = False
    button_actions = ()
    buttons = ()
    interpreter = TableInterpreter
    face_class = None

    # ------------------------------------------------------------ what the game is

    @property
    def face(self):
        """The game's web face (one per adapter): its words, pieces and choices."""
        if self.__dict__.get("_face") is None:
            from host.web.face import WebFace
            self.__dict__["_face"] = (self.face_class or WebFace)(self)
        return self.__dict__["_face"]

    @property
    def engine(self):
        """The rules engine (shared_rules)."""
        return games.get(self.name)

    @property
    def info(self):
        """The engine's static facts: title, min and max players, modes (shared_rules/games.py)."""
        return self.engine.INFO

    @property
    def title(self):
        return self.info["title"]

    def board_cells(self):
        """Must: the cells of the game's board on the table (a frozenset), as the rules
        engine names them; a layout covers exactly these."""
        raise NotImplementedError("%s.board_cells" % type(self).__name__)

    def tagged_items(self):
        """Every item of this game a tag can stand for, by name ("storybook:the_crocodile",
        "pawn:red", "die:1:6"): what `fairytable enroll` offers and the table accepts.
        Default: none."""
        return []

    def new_interpreter(self, match, hide_window_ms=None):
        """The interpreter of `match` (a fresh one per game, and on staff "start")."""
        return self.interpreter(match, hide_window_ms)

    def seats(self, options, setup=None):
        """The seats of a new game with these options and setup, in seat order (bots take
        the last ones)."""
        engine = games.get(self.name)
        return engine.seats(engine.new_game(options, 0, setup))

    # ------------------------------------------------------------ light and views

    def scenes(self, state, table, cells, events=(), bot_request=None):
        """Must: cell -> scene (and ("pocket", i) -> scene for a dice tray, ("seat", n) ->
        scene for seat n's card reader) to light.

        `table` is the interpreter (its mismatches, what it waits for), `cells` the layout's
        cells, `events` those of the last action, `bot_request` the bot move to chase.
        """
        raise NotImplementedError("%s.scenes" % type(self).__name__)

    def render(self, state, scene_map, mismatches, colour=True, table=None):
        """The table as text for the terminal (`table`: the interpreter, for what lies off
        the board, e.g. on the seats' card readers). Default: the result and the
        mismatches."""
        result = games.get(self.name).result(state)
        lines = ["%s: %s" % (self.name, ", ".join("%s %s" % (k, result[k])
                                                  for k in sorted(result)))]
        lines.extend("! " + m.message for m in mismatches)
        return "\n".join(lines)

    def table_view(self, match, table, mismatches, seat=None):
        """What a viewer may see of the table, as JSON-able data (for a web view).

        `seat` None is a spectator; a seat sees what the engine's view shows that seat.
        """
        state = match.state
        return {"game": self.name, "seat": seat,
                "state": match.engine.view(state, seat),
                "actors": self.actors(state),
                "turns": self.turns(match),
                "actions": len(match.actions),
                "mismatches": [m.as_dict() for m in mismatches],
                "pockets_wanted": table.pockets_wanted(),
                "busy": table.busy()}

    def event_view(self, event, seat=None):
        """An event as `seat` may see it (None: a spectator). Default: as it is (a game
        whose events carry hidden cards overrides it, e.g. with its engine's event_view)."""
        return event

    def status_strip(self, match):
        """(scores, target, side whose turn) for the Pi's status strip (host/pi.py), which
        shows two sides' scores toward a target. Default: the result's scores, target 10,
        no side."""
        return match.engine.result(match.state).get("scores") or {}, 10, None

    def action_cells(self, state, action):
        """The cells an action concerns (flashed when it is refused). Default: its "cell"."""
        return [tuple(action["cell"])] if "cell" in action else []

    # ------------------------------------------------------------ turns and seats

    def actors(self, state):
        """The seats the game waits on now, in seat order ([] once it is over): the bots
        among them are asked for moves, the web table's banner names them, the lights
        pulse their readers. Default: the engine's `actors` (shared_rules/games.py)."""
        return self.engine.actors(state)

    def turns(self, match):
        """Turns played, for the summary. Default: None (the game counts no turns)."""
        return None

    def acts_for(self, state, seat, action):
        """True if `seat` may make `action` from its own controls (a web button, a seat
        button). Default: the engine's actor of the action is that seat."""
        return self.engine.actor(state, action) == seat

    def is_button_action(self, action):
        """True for an action a seat button performs (no hand needed: a bot applies it)."""
        return action["type"] in self.button_actions

    # ------------------------------------------------------------ bots

    def bot_action(self, kind, engine, state, seat, seed):
        """A bot's action for `seat` now, or None. Default: shared_rules.bots."""
        return bots.choose(kind, engine, state, seat, seed)

    def normal_bot_action(self, action):
        """A bot's action as the table will show it (what a hand cannot say is dropped)."""
        return action

    def carries_out(self, table_action, request):
        """True if the action the table showed is the bot's move. Default: equal."""
        return table_action == request

    def hands(self, vtable, layout, registry):
        """The virtual hands carrying out moves on the virtual table; None if it has none."""
        return None
