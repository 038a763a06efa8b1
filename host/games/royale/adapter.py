"""Battle Royale on the table: the adapter (host/table/contract.py, TableGame).

It lights the diamond and the dice tray, draws it in the terminal, asks the Battle Royale
bot (shared_rules/royale_bot.py) for moves and says when the table carried one out; the
interpreter is host/games/royale/interpreter.py, the virtual hands host/virtual/hands.py.
"""

from host.table.contract import TableGame
from host.games.royale.hands import RoyaleHands
from host.games.royale.scenes import diamond_scenes
from host.games.royale.terminal import render
from host.games.royale.web import RoyaleFace
from host.games.royale.interpreter import (PAWN_COLOURS, POCKETS, RoyaleTable, cell_of,
                                          colour_of)
from shared_rules import catalog, royale, royale_bot


def bot_cells(state, action):
    """The cells a bot's move concerns, chased in white for a human to carry out."""
    kind = action["type"]
    if kind == "place":
        return [tuple(action["cell"])]
    pid = royale.current(state)
    if pid is None or state.players[pid].cell < 0:
        return []
    here = cell_of(state.players[pid].cell)
    if kind == "move":
        return [here, tuple(action["to"])]
    if kind in ("attack_card", "attack_player", "resurrect"):
        return [here]
    return []


class RoyaleGame(TableGame):
    """What the session needs to play Battle Royale on the table."""

    name = "royale"
    options = {}
    board_words = "the Battle Royale diamond (|x| + |y| <= 3)"
    dice_tray = True
    virtual_heap = "64k"  # the tile firmware's heap on the virtual table (as for Storybook)
    players_from_bots = True   # `run --headless --bots N` plays N players
    button_actions = ("swap", "end_turn")
    buttons = (("roll", "Roll for the turn order"), ("swap", "Swap cards"),
               ("end_turn", "End turn"))
    interpreter = RoyaleTable
    face_class = RoyaleFace

    def board_cells(self):
        return frozenset(tuple(cell) for cell in royale.CELLS)

    def tagged_items(self):
        """The map's cards, a pawn per colour and the three dice's faces."""
        return (["royale:" + c["id"] for c in catalog.load("royale_cards.json")["cards"]] +
                ["pawn:" + colour for colour in PAWN_COLOURS] +
                ["die:%d:%d" % (d, face) for d in range(1, POCKETS + 1) for face in range(1, 7)])

    def scenes(self, state, table, cells, events=(), bot_request=None):
        """The scene of every cell and dice pocket: the map, the pawns, the pockets the
        tray waits for, the bot's move chased, where a pawn in hand may go, falls."""
        s = state
        chased = bot_cells(s, bot_request) if bot_request is not None else []
        moves = []
        if table.in_hand is not None:
            moves = [tuple(a["to"]) for a in royale.legal_actions(s) if a["type"] == "move"]
        falls = [(pid, cell) for pid, cell in table.falls.items()
                 if any(m.code == "fall" for m in table.mismatches)]
        return diamond_scenes(s, table.mismatches, table.pockets_wanted(), chased, moves,
                                    [colour_of(s, pid) for pid in s.seats], falls)

    def render(self, state, scene_map, mismatches, colour=True, table=None):
        return render(self.face, state, scene_map, mismatches, colour, table)

    def acts_for(self, state, seat, action):
        """One roll for the turn order throws every roller's die: any of them may make it."""
        if action["type"] == "roll_order":
            return seat in royale.rollers(state)
        return TableGame.acts_for(self, state, seat, action)

    def action_cells(self, state, action):
        """The cells an action concerns (flashed when it is refused)."""
        if "cell" in action:
            return [tuple(action["cell"])]
        return bot_cells(state, action)

    def turns(self, match):
        """Turns begun: the first once every pawn is placed, then one per end_turn."""
        if match.state.phase not in ("play", "finished"):
            return 0
        return 1 + sum(1 for a in match.actions if a["type"] == "end_turn")

    def bot_action(self, kind, engine, state, seat, seed):
        return royale_bot.choose(kind, state, seat, seed)

    def carries_out(self, table_action, request):
        """True if what the table did is the bot's move (the dice come from the table)."""
        strip = lambda a: dict((k, v) for k, v in a.items() if k != "dice")  # noqa: E731
        return strip(table_action) == strip(request)

    def hands(self, vtable, layout, registry):
        return RoyaleHands(vtable, layout, registry)
