"""Fairy Tale Fight Club on the table: the adapter (host/table/contract.py, TableGame).

It lights the wagons, the contract area and the Market (a seat's gold on its wagons'
LEDs), draws the table in the terminal, says which moves need no hand on the table, and
gives the web table the gold and events each seat may see; the interpreter is
host/games/fightclub/interpreter.py, the virtual hands host/virtual/hands.py.
"""

from host import lights
from host.games.fightclub import interpreter as ft
from host.table.contract import TableGame
from host.games.fightclub.hands import FightclubHands
from host.games.fightclub.web import FightclubFace, nums
from host.web.face import and_list
from shared_rules import fightclub

SEAT_COLOUR = {"p1": (255, 40, 30), "p2": (40, 110, 255), "p3": (0, 200, 30),
               "p4": (255, 200, 0)}
GOLD = (255, 170, 0)
CONTRACT = (40, 40, 40)
MARKET = (0, 40, 10)
TABLE_MOVES = ("load", "move", "exchange", "to_market", "complete")


def _dim(rgb):
    return tuple(v // 6 for v in rgb)


def bot_cells(state, table, action):
    """The cells a bot's move concerns, chased in white for a human to carry out."""
    kind = action["type"]
    seat = state.turn
    if kind == "load":
        return [ft.WAGON_CELL[(seat, action["wagon"])]]
    if kind == "move":
        return [ft.WAGON_CELL[(seat, action["from"])], ft.WAGON_CELL[(seat, action["to"])]]
    if kind == "discard" and action.get("from") in fightclub.WAGONS:
        return [ft.WAGON_CELL[(seat, action["from"])]]
    if kind == "complete":
        where = table.contract_cells()
        cells = [ft.WAGON_CELL[(seat, action["wagon"])]]
        if action["contract"] in where:
            cells.append(where[action["contract"]])
        return cells
    if kind in ("exchange", "to_market"):
        return list(ft.MARKET_CELLS)
    return []


class FightclubGame(TableGame):
    """What the session needs to play Fairy Tale Fight Club on the table."""

    name = "fightclub"
    options = {}
    board_words = "the Fight Club table (7 x 7 cells, [0, 0] to [6, 6])"
    virtual_heap = "64k"
    virtual_tags_per_reader = 6   # a War Wagon's five creatures and one too many
    players_from_bots = True    # `run --headless --bots N` plays N players
    button_actions = ("buy_wagon", "swap_draw", "buy_action", "reserve", "end_actions",
                      "draw_up", "discard_down", "fight_card", "pass_cards")
    buttons = (("end_turn", "End turn"), ("draw", "Draw"), ("wagon", "Buy a wagon"),
               ("action", "Actions"))
    interpreter = ft.FightclubTable
    face_class = FightclubFace

    def board_cells(self):
        return frozenset(ft.ZONES)

    def tagged_items(self):
        """Every creature card ("fightclub:c07-03") and contract card ("fightclub:L1-05");
        events are drawn by the engine and never lie on the table."""
        cat = fightclub.load_catalog()
        return ["fightclub:" + c for c in cat.creature_ids] + \
            ["fightclub:" + c for c in sorted(cat.contracts)]

    def is_button_action(self, action):
        """What a seat button or the web table makes (cards of the hand only, no table
        move): everything but loads, moves, wagon discards, exchanges, the Market step
        and completions."""
        if action["type"] == "discard":
            return action.get("from") == "hand"
        return action["type"] in self.button_actions

    def turns(self, match):
        """Rounds begun (a round is every seat's turn once; the solo game counts 16)."""
        return match.state.round

    def action_cells(self, state, action):
        if action["type"] in ("load", "move", "discard", "complete", "exchange", "to_market"):
            return [c for c in bot_cells(state, _NoTable(state), action)]
        return []

    def status_strip(self, match):
        """The seats' VP; Fight Club has no target score, so the strip's scale is 40 VP
        (about the best score of a game; the solo book's top band starts at 50)."""
        return fightclub.scores(match.state), 40, None

    # ------------------------------------------------------------ light and views

    def scenes(self, state, table, cells, events=(), bot_request=None):
        """Wagons in their seat's colour (bright: the seat whose turn it is; dim: not
        bought), each with its seat's gold counted on one edge; contracts in play glow,
        in the reserving seat's colour when reserved; the Market dim green; the bot's move
        chased in white; mismatches blink red."""
        s = state
        scenes = {}
        for cell in cells:
            zone = ft.ZONES.get(cell)
            if zone is None:
                scenes[cell] = lights.DARK_CELL
            elif zone[0] == "market":
                scenes[cell] = lights.all_edges(lights.solid(MARKET))
            else:
                scenes[cell] = lights.DARK_CELL
        for x in s.seats:
            p = s.players[x]
            colour = SEAT_COLOUR[x]
            for w in fightclub.WAGONS:
                cell = ft.WAGON_CELL[(x, w)]
                if p.wagons[w] is None:
                    edge = lights.solid(_dim(_dim(colour)))
                elif x == s.turn and s.status == "ongoing":
                    edge = lights.pulse(colour, 1600, 40)
                else:
                    edge = lights.solid(_dim(colour))
                gold = lights.value(GOLD, p.gold) if p.gold else lights.OFF
                scenes[cell] = (edge, edge, gold, edge)
        reserved = {}
        for x in s.seats:
            if s.players[x].reserved is not None:
                reserved[s.players[x].reserved] = x
        for cid, cell in table.contract_cells().items():
            if cid in reserved:
                scenes[cell] = lights.all_edges(lights.solid(SEAT_COLOUR[reserved[cid]]))
            else:
                scenes[cell] = lights.all_edges(lights.solid(CONTRACT))
            gold = s.area_gold.get(cid, 0)
            if gold:
                segs = list(scenes[cell])
                segs[2] = lights.value(GOLD, gold)
                scenes[cell] = tuple(segs)
        chased = bot_cells(s, table, bot_request) if bot_request is not None else ()
        return lights.overlay(scenes, (), chased, table.mismatches)

    def render(self, state, scene_map, mismatches, colour=True, table=None):
        """The table as text: each seat's wagons, gold and contracts, the area, the Market."""
        s = state
        lines = list(self.face.header_lines(state, table))
        for x in s.seats:
            p = s.players[x]
            wagons = []
            for w in fightclub.WAGONS:
                if p.wagons[w] is not None:
                    held = ft.values(p.wagons[w])
                    wagons.append("the %s %s" % (ft.WAGON_WORDS[w], "holding " + nums(held)
                                                 if held else "empty"))
            done = [s.cat.contracts[c]["name"] for c in p.contracts]
            lines.append("%s: %d gold, %d %s in hand, %s; %s" % (
                self.face.seat_name(s, x), p.gold, len(p.hand),
                "card" if len(p.hand) == 1 else "cards", and_list(wagons),
                "delivered " + and_list(done) if done else "no contract delivered yet"))
        offered = []
        for cid in s.area:
            c = s.cat.contracts[cid]
            gold = s.area_gold[cid]
            offered.append("%s wanting %s%s" % (c["name"], nums(c["creatures"]),
                                                " (%d gold on it)" % gold if gold else ""))
        lines.append("Contracts in play: %s." % ("; ".join(offered) or "none"))
        lines.append("The Market: %s." % (nums(s.market) if s.market else "empty"))
        lines.extend("! " + m.message for m in mismatches)
        return "\n".join(lines)

    def table_view(self, match, table, mismatches, seat=None):
        """The engine's view for the seat (its hand only), each seat's gold, the cells of
        the zones, and the last events as the seat may see them."""
        out = TableGame.table_view(self, match, table, mismatches, seat)
        state = match.state
        out["gold"] = dict((x, state.players[x].gold) for x in state.seats)
        out["contract_cells"] = dict((cid, list(cell)) for cid, cell in
                                     table.contract_cells().items())
        out["wagon_cells"] = dict(("%s:%s" % key, list(cell))
                                  for key, cell in sorted(ft.WAGON_CELL.items())
                                  if key[0] in state.seats)
        out["market_cells"] = [list(c) for c in ft.MARKET_CELLS]
        return out

    def event_view(self, event, seat=None):
        """An event as `seat` may see it (cards drawn and passed stay with their seat)."""
        return fightclub.event_view(event, seat)

    # ------------------------------------------------------------ bots

    def carries_out(self, table_action, request):
        return table_action == request

    def hands(self, vtable, layout, registry):
        return FightclubHands(vtable, layout, registry)


class _NoTable:
    """The contract cells of a state without an interpreter: in area order."""

    def __init__(self, state):
        self.state = state

    def contract_cells(self):
        return dict(zip(self.state.area, ft.CONTRACT_CELLS, strict=False))
