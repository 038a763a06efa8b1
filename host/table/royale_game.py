"""Battle Royale on the table: the adapter (host/table/contract.py, TableGame).

It lights the diamond and the dice tray, draws it in the terminal, asks the Battle Royale
bot (shared_rules/royale_bot.py) for moves and says when the table carried one out; the
interpreter is host/table/royale_table.py, the virtual hands host/virtual/hands.py.
"""

from host import lights, terminal
from host.table.contract import TableGame
from host.table.royale_table import RoyaleTable, cell_of, colour_of, rollers
from host.virtual.hands import RoyaleHands
from shared_rules import royale, royale_bot


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
    virtual_heap = "64k"  # the tile firmware's heap on the virtual table (as for Storybook)
    players_from_bots = True   # `run --headless --bots N` plays N players
    button_actions = ("swap", "end_turn")
    interpreter = RoyaleTable

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
        return lights.royale_scenes(s, table.mismatches, table.pockets_wanted(), chased, moves,
                                    [colour_of(s, pid) for pid in s.seats], falls)

    def render(self, state, scene_map, mismatches, colour=True, table=None):
        return terminal.render_royale(state, scene_map, mismatches, colour)

    def action_cells(self, state, action):
        """The cells an action concerns (flashed when it is refused)."""
        if "cell" in action:
            return [tuple(action["cell"])]
        return bot_cells(state, action)

    def current_seat(self, state):
        """Who acts now; during the order roll, the first player who must roll."""
        if state.phase == "order":
            return rollers(state)[0]
        return royale.current(state)

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
