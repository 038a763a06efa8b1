"""Fairytale Games' light: the map, the deck readers, the seats' card readers and the dice tray
as scenes (host/lights.py's primitives).

- an explored location glows in its kind's colour (a landmark gold, a basic location green, an
  ambush location red while it may spring); an exhausted or destroyed one is dimmed almost
  dark; one that may still be searched glows on its north edge; unexplored cells are dark;
- the cells the active character may still reach this turn (its movement left, over the map
  and onto unexplored cells while the location deck lasts) pulse softly;
- each token takes an edge in its player's colour (an NPC's or a hunter's white; more than
  four tokens: the fourth edge runs a rainbow, a crowd); a battle pulses red on its cell's free
  edges, and on the token edges in their colours, while it lasts; an ambush just sprung
  flashes orange;
- the event reader pulses white while the Sundial must flip, the bonus reader while a
  character drawn waits there, the quest readers while the player at the Dragon Inn may open
  a quest; each seat's reader glows dimly in its colour and pulses while the game waits on
  that seat, chasing white while a play lies on it;
- the pockets the tray waits for, a bot's move chased in white and the mismatches blinking
  red come from lights.overlay.
"""

from host import lights
from host.games.fairytale import places
from host.games.fairytale.places import (BONUS, EVENTS, INN, MAP, PILE_CELL, SEAT, cell_of,
                                         tokens)
from host.games.fairytale.words import SEAT_COLOURS
from shared_rules import fairytale as ft
from shared_rules.fairytale import core, world

LANDMARK = (90, 60, 0)
BASIC = (0, 40, 10)
AMBUSH = (70, 0, 0)
EXHAUSTED = (4, 4, 4)
SEARCHABLE = (0, 160, 60)
BATTLE = (255, 0, 0)
AMBUSH_FLASH = (255, 110, 0)
NEUTRAL = (160, 160, 160)
DECK = (30, 30, 30)


def colour_of(state, seat):
    return SEAT_COLOURS[state.seats.index(seat) % len(SEAT_COLOURS)]


def dim(rgb, by=8):
    return tuple(v // by for v in rgb)


def reachable(state):
    """The cells the active character may still step to this turn (breadth first over the
    grid, as far as its movement left)."""
    s = state
    seat = world.current_seat(s)
    if seat is None or s.phase != "play" or s.status != "ongoing":
        return []
    steps = [a for a in places.legal(s) if a["type"] == "step" and a["seat"] == seat]
    if not steps:
        return []
    left = world.movement_allowed(s, seat) - world.steps_taken(s, seat)
    starts = [places.tokens(s)[item]["cell"] for item in places.movable(s, seat)]
    seen = set(tuple(a["to"]) for a in steps)
    frontier = list(seen)
    for _ in range(max(0, left - 1)):
        nxt = []
        for x, y in frontier:
            for cell in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if cell in MAP and cell not in seen and cell not in starts:
                    if s.cells[core.index(list(cell))] is None and not s.decks["locations"]:
                        continue
                    seen.add(cell)
                    nxt.append(cell)
        frontier = nxt
    return sorted(seen)


def map_scenes(state, table, events=(), bot_cells=(), playing=()):
    """cell -> scene for the map and the deck readers, ("seat", n) for the seats' readers."""
    s = state
    scenes = {}
    for i in range(core.NCELLS):
        cell = cell_of(i)
        loc = core.location(s, i)
        if loc is None:
            scenes[cell] = lights.DARK_CELL
            continue
        if s.flipped[i] or world.searchable(s, i) is None and loc["search"]:
            base = lights.solid(EXHAUSTED)
        elif loc["kind"] == "landmark":
            base = lights.solid(LANDMARK)
        elif loc["ambush"]:
            base = lights.solid(AMBUSH)
        else:
            base = lights.solid(BASIC)
        segs = [base, base, base, base]
        if world.searchable(s, i) is not None:
            segs[0] = lights.solid(SEARCHABLE)
        scenes[cell] = tuple(segs)
    for cell in reachable(s):
        scenes[cell] = lights.all_edges(lights.pulse(lights.HINT_SLIDE, 1200, 30))
    on = {}
    for _item, t in sorted(tokens(s).items()):
        seat = t["seat"]
        if seat is None and t["unit"] is not None:
            seat = s.allies[t["unit"]]["members"][0]
        on.setdefault(t["cell"], []).append(colour_of(s, seat) if seat else NEUTRAL)
    fights = set(cell_of(b["cell"]) for b in s.battles)
    for cell in sorted(set(on) | fights):
        colours = on.get(cell, [])
        segs = list(scenes.get(cell, lights.DARK_CELL))
        fight = cell in fights
        for edge in range(4):
            if edge < len(colours) and (edge < 3 or len(colours) == 4):
                rgb = colours[edge]
                segs[edge] = lights.pulse(rgb, 900, 20) if fight else lights.solid(rgb)
            elif edge == 3 and len(colours) > 4:
                segs[edge] = lights.rainbow(1500)
            elif fight:
                segs[edge] = lights.pulse(BATTLE, 900, 20)
        scenes[cell] = tuple(segs)
    for ev in events:
        if ev.get("type") == "ambushed" and isinstance(ev.get("cell"), list):
            scenes[tuple(ev["cell"])] = lights.all_edges(lights.blink(AMBUSH_FLASH, 300, 50))
    # The deck readers.
    scenes[EVENTS] = lights.all_edges(lights.pulse(lights.BOT_MOVE, 1500, 20)) \
        if s.clock == "flip" else lights.all_edges(lights.solid(DECK))
    waiting = any(d["kind"] == "character" for d in s.pending)
    scenes[BONUS] = lights.all_edges(lights.pulse(LANDMARK, 1500, 20)) if waiting else \
        lights.all_edges(lights.solid(DECK))
    mover = world.current_seat(s)
    opening = mover is not None and any(a["type"] == "open_quest" and a["seat"] == mover
                                        for a in places.legal(s))
    for cell in set(PILE_CELL.values()):
        scenes[cell] = lights.all_edges(lights.pulse(SEARCHABLE, 1500, 20)) if opening else \
            lights.all_edges(lights.solid(DECK))
    # The seats' card readers.
    acting = set(ft.actors(s)) if s.status == "ongoing" else set()
    for n, seat in enumerate(s.seats, 1):
        key = (SEAT, n)
        rgb = colour_of(s, seat)
        if s.status != "ongoing" or s.players[seat]["out"]:
            scenes[key] = lights.DARK_CELL
        elif n in playing:
            scenes[key] = lights.all_edges(lights.chase(lights.BOT_MOVE, 800))
        elif seat in acting:
            scenes[key] = lights.all_edges(lights.pulse(rgb, 1500, 40))
        else:
            scenes[key] = lights.all_edges(lights.solid(dim(rgb)))
    scenes.setdefault(INN, lights.DARK_CELL)
    return lights.overlay(scenes, table.pockets_wanted(), bot_cells, table.mismatches)


def bot_cells(state, table, action):
    """The places a bot's move concerns, chased in white for a person to carry out."""
    s = state
    kind = action["type"]
    seat = action.get("seat")
    if kind == "step":
        mine = places.movable(s, seat)
        cells = [tuple(action["to"])]
        for item, character in mine.items():
            if character == action.get("character"):
                cells.append(places.tokens(s)[item]["cell"])
        return cells
    if kind == "flip_event":
        return [EVENTS]
    if kind == "open_quest":
        pile = places.quest_pile(action.get("quest"))
        return [PILE_CELL[pile]] if pile else []
    if seat in s.players and (kind in places.READER_PLAYS or kind in places.THROWS.values()):
        return [(SEAT, places.seat_number(s, seat))]
    return []
