"""Fairytale Games Quest Mode: the Sundial's days and turns, the map and its discovery,
searching, the bonus deck, items, quests, NPCs, the single-player hunters, decisions that
wait for a player, and the endings."""

from shared_rules import prng
from shared_rules.errors import shown
from shared_rules.fairytale import cards
from shared_rules.fairytale import core
from shared_rules.fairytale.core import fail, log, name_of, seat_words

DECK_NAMES = ("alliance", "battle", "battle_discard", "betrayal", "boss", "bonus",
              "bonus_discard", "easy", "end", "epic", "event_discard", "events", "events_out",
              "locations", "medium", "quest_discard")
QUEST_PILES = ("easy", "medium", "boss")
# Reputation needed to open a quest from a pile: the QUESTS chapter's numbers ("rules"), or
# the component list's ("components").
THRESHOLDS = {"rules": {"easy": 1, "medium": 3, "boss": 5},
              "components": {"easy": 1, "medium": 4, "boss": 7}}
PHASES = ("strategy1", "move", "action", "strategy2")


# ---------------------------------------------------------------- who acts

def unit_members(s, unit):
    if unit in s.allies:
        return s.allies[unit]["members"]
    return [unit]


def unit_of(s, seat):
    p = s.players[seat]
    return p["ally"] if p["ally"] is not None else seat


def current_seat(s):
    """The seat taking its Quest Mode turn now, or None."""
    if s.turn is None:
        return None
    return s.turn["seat"]


def in_quest_mode(s, seat):
    p = s.players[seat]
    return not p["out"] and p["entered"] and p["battle"] is None and p["character"] is not None


def pending_for(s, seat):
    return [d for d in s.pending if d["seat"] == seat]


# ---------------------------------------------------------------- the day

def start_play(s, events):
    """Everybody has a character: the Sundial's first day begins."""
    s.phase = "play"
    s.order = [q for q in clockwise(s, s.sundial) if s.players[q]["entered"] and
               not s.players[q]["out"]]
    log(events, "play_begins", sundial=s.sundial, order=list(s.order))
    adventurers(s, events)
    begin_day(s, events)


def adventurers(s, events):
    """Adventurer mode: "You are all considered a Party" (one token, one grouped turn)."""
    if s.options["mode"] == "adventurer" and len(s.seats) > 1:
        form_alliance(s, [q for q in s.seats if not s.players[q]["out"]], events)


def clockwise(s, first):
    i = s.seats.index(first)
    return s.seats[i:] + s.seats[:i]


def begin_day(s, events):
    """A new day (a round): the Sundial flips an event unless one holds; then the NPC phase
    and the first turn. With no event left, the game ends (adventurer mode reshuffles)."""
    s.cur = None
    s.turn = None
    s.member = 0
    max_days = s.options["max_days"]
    if max_days is not None and s.day >= max_days:
        finish(s, None, "day_limit", 2, events)
        return
    _expire_quests(s, s.day + 1, events)
    if s.event is not None and s.event_hold > 0:
        s.event_hold -= 1
        s.day += 1
        log(events, "day_begins", day=s.day, event=s.event, held=True)
        _after_flip(s, events)
        return
    if not s.decks["events"]:
        if s.options["mode"] == "adventurer":
            pile = s.decks["event_discard"]
            if s.event is not None:
                pile.append(s.event)
                s.event = None
            s.decks["events"] = pile
            s.decks["event_discard"] = []
            s.rng = prng.shuffle(s.rng, s.decks["events"])
            log(events, "events_reshuffled", cards=len(s.decks["events"]))
        else:
            finish(s, None, "no_events", 2, events)
            return
    s.clock = "flip"
    log(events, "sundial_flips", seat=s.sundial)


def flip_event(s, action, events):
    if s.clock != "flip":
        fail("no_flip", "The Sundial flips an event card only at the start of a day.")
    if action["seat"] != s.sundial:
        fail("not_the_sundial", "Only the Sundial (%s) flips the event card." % seat_words(
            s, s.sundial))
    if s.event is not None:
        s.decks["event_discard"].append(s.event)
    s.event = core.draw(s, "events", "event deck")
    card = s.cat.decks["events"][s.event]
    s.event_hold = card["duration"]
    s.clock = None
    s.day += 1
    log(events, "day_begins", day=s.day, event=s.event, held=False,
        text="Day %d: %s. %s" % (s.day, card["name"], card["text"]))
    _after_flip(s, events)


def _after_flip(s, events):
    npc_phase(s, events)
    if s.status != "ongoing":
        return
    _first_turn(s, events)


def _first_turn(s, events):
    s.cur = None
    s.turn = None
    s.member = 0
    for i in range(len(s.order)):
        if _unit_ready(s, s.order[i]):
            s.cur = i
            s.member = 0
            start_turn(s, events)
            return


def _unit_ready(s, unit):
    return any([in_quest_mode(s, q) for q in unit_members(s, unit)])


def start_turn(s, events):
    """The current unit's acting member begins its turn: the day's event touches it, poison
    hits in the Strategy Phase, adventurers draw two bonus cards."""
    unit = s.order[s.cur]
    members = unit_members(s, unit)
    while s.member < len(members) and not in_quest_mode(s, members[s.member]):
        s.member += 1
    if s.member >= len(members):
        _next_unit(s, events)
        return
    seat = members[s.member]
    if unit in s.allies and not [q for q in members[:s.member] if in_quest_mode(s, q)]:
        s.allies[unit]["steps"] = 0
    s.turn = {"seat": seat, "phase": "strategy1", "steps": 0, "allow": None, "mvm": 0,
              "searched": False, "switched": False, "opened": False, "used": [],
              "offered": [], "unequipped": [], "interacted": [], "rejoined": 0,
              "battled": False}
    p = s.players[seat]
    for c in sorted(p["away"]):
        p["away"][c]["steps"] = 0
    log(events, "turn_begins", seat=seat, day=s.day)
    if s.event is not None:
        card = s.cat.decks["events"][s.event]
        if card["effects"]:
            from shared_rules.fairytale import effects
            effects.run(s, seat, card["effects"], {"mode": "quest", "source": s.event,
                                                   "event": True}, events, {})
    if p["poison"] and in_quest_mode(s, seat):
        lost = core.lose_traits(p["traits"], p["poison"], floor=1)
        log(events, "poisoned", seat=seat, lost=lost)
    if s.options["mode"] == "adventurer" and in_quest_mode(s, seat):
        draw_bonus(s, seat, 2, events)


def end_turn(s, events):
    """The acting seat's turn ends; the next member of its ally party, or the next unit."""
    seat = current_seat(s)
    if seat is not None:
        p = s.players[seat]
        for pr in p["protect"]:
            pr["turns"] -= 1
        p["protect"] = [pr for pr in p["protect"] if pr["turns"] > 0]
        log(events, "turn_ends", seat=seat)
    unit = s.order[s.cur] if s.cur is not None else None
    if unit is not None and unit in s.allies:
        s.member += 1
        if s.member < len(s.allies[unit]["members"]):
            start_turn(s, events)
            return
    _next_unit(s, events)


def _next_unit(s, events):
    s.turn = None
    s.member = 0
    i = (s.cur if s.cur is not None else -1) + 1
    while i < len(s.order):
        if _unit_ready(s, s.order[i]):
            s.cur = i
            start_turn(s, events)
            return
        i += 1
    s.cur = None
    if s.status == "ongoing":
        begin_day(s, events)


def leave_order(s, seat, events):
    """The player enters battle: out of the turn order until it ends ("you do not wait until
    another player finishes battle"). An ally party stays while a member is free."""
    unit = unit_of(s, seat)
    if unit not in s.order:
        return
    if unit in s.allies and _unit_ready(s, unit):
        if current_seat(s) == seat:
            end_turn(s, events)
        return
    _drop_unit(s, unit, events)


def _drop_unit(s, unit, events):
    """`unit` leaves the turn order; if its turn was under way, the next unit's begins."""
    i = s.order.index(unit)
    was_current = s.cur == i
    s.order.pop(i)
    if s.cur is not None and i < s.cur:
        s.cur -= 1
    if was_current:
        s.cur -= 1
        _next_unit(s, events)


def rejoin(s, seat, events):
    """Back from battle: "they will pick up their turn after the current player's turn"; those
    who leave in turn follow each other."""
    p = s.players[seat]
    if p["out"] or not p["entered"]:
        return
    unit = unit_of(s, seat)
    if unit in s.order:
        return
    if s.cur is None:
        if s.clock == "flip" or s.status != "ongoing" or s.phase != "play":
            s.order.append(unit)
            return
        s.order.append(unit)
        s.cur = len(s.order) - 1
        s.member = 0
        log(events, "rejoins", seat=seat)
        start_turn(s, events)
        return
    at = s.cur + 1 + (s.turn["rejoined"] if s.turn is not None else 0)
    at = min(at, len(s.order))
    s.order.insert(at, unit)
    if s.turn is not None:
        s.turn["rejoined"] += 1
    log(events, "rejoins", seat=seat, after=s.order[s.cur])


def battle_round_passed(s, events):
    """A battle finished a round. While nobody is in Quest Mode, the Sundial's day passes with
    each round of battle, so the event deck still runs down (the book does not say)."""
    if s.cur is None and s.clock is None and s.status == "ongoing" and not [
            u for u in s.order if _unit_ready(s, u)]:
        begin_day(s, events)


def sundial_moves_on(s, events):
    """The Sundial is removed from the game: "the next person (clockwise) will be the new
    Sundial"."""
    if not s.players[s.sundial]["out"]:
        return
    for q in clockwise(s, s.sundial)[1:]:
        if not s.players[q]["out"] and s.players[q]["entered"]:
            s.sundial = q
            log(events, "new_sundial", seat=q)
            return


# ---------------------------------------------------------------- NPCs and hunters

def npc_phase(s, events):
    """NPCs with MOVE walk toward the next landmark; single-player hunters close in."""
    for n in s.npcs:
        card = s.cat.decks["npcs"][n["id"]]
        if card["move"]:
            _npc_walk(s, n, card["move"], events)
    for h in s.hunters:
        if h["state"] == "hunting":
            _hunter_walk(s, h, events)
            if s.status != "ongoing":
                return


def _landmark_cells(s):
    return [i for i in range(core.NCELLS) if s.cells[i] is not None and
            s.cat.decks["locations"][s.cells[i]]["kind"] == "landmark"]


def paths_from(s, start, through_unexplored=False):
    """Breadth-first distances and first steps from `start` over explored cells (and
    unexplored ones if the location deck can still fill them): {cell: (dist, previous)}."""
    seen = {start: (0, None)}
    frontier = [start]
    while frontier:
        nxt = []
        for c in frontier:
            for n in core.NEIGHBOURS[c]:
                if n in seen:
                    continue
                if s.cells[n] is None and not through_unexplored:
                    continue
                seen[n] = (seen[c][0] + 1, c)
                nxt.append(n)
        frontier = nxt
    return seen


def _path_to(seen, goal):
    out = []
    c = goal
    while seen[c][1] is not None:
        out.append(c)
        c = seen[c][1]
    out.reverse()
    return out


def _npc_walk(s, n, steps, events):
    seen = paths_from(s, n["cell"])
    goals = [c for c in _landmark_cells(s) if c != n["cell"] and c != n["last"] and c in seen]
    if not goals:
        return
    goals.sort(key=lambda c: (seen[c][0], c))
    path = _path_to(seen, goals[0])[:steps]
    if not path:
        return
    n["cell"] = path[-1]
    if n["cell"] == goals[0]:
        n["last"] = goals[0]
    log(events, "npc_moves", npc=n["id"], to=core.xy(n["cell"]))


def hunter_target(s):
    seat = s.seats[0]
    return core.cell_of(s, seat)


def _hunter_walk(s, h, events):
    if h["battle"]:
        return
    target = hunter_target(s)
    seen = paths_from(s, h["cell"], bool(s.decks["locations"]))
    if target not in seen:
        return
    path = _path_to(seen, target)[:3]
    for c in path:
        if s.cells[c] is None:
            lid = core.draw(s, "locations", "location deck")
            if lid is None:
                break
            place_location(s, c, lid, events, None)
        h["cell"] = c
        log(events, "hunter_moves", hunter=h["id"], to=core.xy(c))
        if c == target:
            _hunter_strikes(s, h, events)
            return


def _hunter_strikes(s, h, events):
    seat = s.seats[0]
    if not in_quest_mode(s, seat) or core.cell_of(s, seat) != h["cell"]:
        return
    from shared_rules.fairytale import battle
    battle.start_auto(s, seat, {"auto": "hunter", "enemy": h["id"], "hunter": h["id"]},
                      False, events)


def reveal_hunters(s, events):
    """"When 2 landmark locations have been revealed ... flip over the first character card":
    the 2nd, 4th and 6th landmarks bring the hunters in, one by one, on the Dragon Inn."""
    due = s.landmarks // 2
    for k in range(min(due, 3)):
        h = s.hunters[k]
        if h["state"] == "hidden":
            h["state"] = "hunting"
            h["cell"] = core.CENTRE
            log(events, "hunter_revealed", hunter=h["id"], cell=core.xy(core.CENTRE),
                text="%s enters the Battle Royale on the Dragon Inn, hunting you." %
                name_of(s, h["id"]))
            _hunter_strikes(s, h, events)


# ---------------------------------------------------------------- the map

def alter_location(s, c, how, events, seat):
    """"some locations can be destroyed, changed, or even brought back to its original state".
    Decision: only basic locations ("Landmarks are unique"); a destroyed location stays on the
    map (no dead ends are made) but is face down for good: nothing to search, no ambush, until
    a `restore` brings it back; a changed location is swapped for the top card of the location
    deck (the old card goes to the bottom), face up and unsearched, and springs nothing on
    those standing there. With the location deck empty nothing changes."""
    loc = core.location(s, c)
    if loc is None or loc["kind"] != "basic" or s.flipped[c] == "destroyed":
        return
    if how == "destroy":
        s.flipped[c] = "destroyed"
        log(events, "destroyed", cell=core.xy(c), location=loc["id"],
            text="%s is destroyed." % loc["name"])
        return
    if not s.decks["locations"]:
        return
    lid = core.draw(s, "locations", "location deck")
    s.decks["locations"].append(loc["id"])
    s.searched[c] = 0
    s.flipped[c] = False
    log(events, "changed", cell=core.xy(c), location=loc["id"], to=lid,
        text="%s changes." % loc["name"])
    place_location(s, c, lid, events, seat)


def place_location(s, c, lid, events, seat):
    """A location card is laid face up on an unexplored cell (discovery)."""
    s.cells[c] = lid
    loc = s.cat.decks["locations"][lid]
    log(events, "discovered", cell=core.xy(c), location=lid, seat=seat,
        text="%s is discovered at %s." % (loc["name"], core.xy(c)))
    if loc["kind"] == "landmark":
        s.landmarks += 1
        if s.hunters:
            reveal_hunters(s, events)


def _turn_phase(s, wanted):
    """Check that the acting seat may still act in phase `wanted` (the turn moves on to it
    when the action succeeds: PHASE_AFTER in the dispatcher; never back)."""
    t = s.turn
    if PHASES.index(wanted) < PHASES.index(t["phase"]):
        fail("phase_over", "Your %s phase is over this turn." % {
            "strategy1": "first strategy", "move": "movement", "action": "action",
            "strategy2": "second strategy"}[wanted])


def phase_after(s, seat, kind):
    """After a successful Quest Mode action, the turn is in the phase the action belongs to:
    a step in the Movement Phase, an action-phase action in the Action Phase; a strategy play
    after movement or actions is in the second Strategy Phase."""
    t = s.turn
    if t is None or t["seat"] != seat:
        return
    want = PHASE_AFTER.get(kind)
    if want == "strategy":
        if t["phase"] in ("move", "action"):
            t["phase"] = "strategy2"
    elif want is not None and PHASES.index(t["phase"]) < PHASES.index(want):
        t["phase"] = want


PHASE_AFTER = {"step": "move", "search": "action", "equip": "action", "unequip": "action",
               "separate": "strategy", "reunite": "action",
               "switch": "action", "open_quest": "action", "start_quest": "action",
               "fulfil": "action", "challenge": "action", "interact": "action",
               "offer_alliance": "action", "battle": "action", "join": "action",
               "use": "strategy", "sacrifice": "strategy", "distraction": "strategy"}


def my_turn(s, action):
    seat = action["seat"]
    if s.phase != "play":
        fail("not_started", "The game has not begun: everybody chooses a character first.")
    if current_seat(s) != seat:
        if s.players[seat]["battle"] is not None:
            fail("in_battle", "You are in battle: Quest Mode waits until it ends.")
        if s.clock == "flip":
            fail("waiting_for_sundial", "The Sundial flips the day's event card first.")
        fail("not_your_turn", "It is not your turn (it is %s's)." % (
            seat_words(s, current_seat(s)) if current_seat(s) else "nobody"))
    if pending_for(s, seat):
        fail("decide_first", "Decide first: %s." % decision_words(s, pending_for(s, seat)[0]))
    return s.players[seat]


def step(s, action, events):
    """One step of the Movement Phase onto a neighbouring cell; an unexplored one is
    discovered by laying the next location card there."""
    my_turn(s, action)
    seat = action["seat"]
    to = action.get("to")
    if not core.is_xy(to):
        fail("off_the_map", "to must be a cell [x, y] of the 7 x 7 map (0 to 6), not %s." %
             shown(to))
    c = core.index(to)
    here = core.cell_of(s, seat)
    if c not in core.NEIGHBOURS[here]:
        fail("not_adjacent", "You move one step at a time, to a location next to yours.")
    t = s.turn
    _turn_phase(s, "move")
    allow = movement_allowed(s, seat)
    if steps_taken(s, seat) >= allow:
        fail("no_movement_left", "You have moved your %d spaces this turn." % allow)
    if s.cells[c] is None and not s.decks["locations"]:
        fail("no_locations", "The location deck is empty: you can only move onto explored "
             "locations.")
    t["allow"] = allow
    t["phase"] = "move"
    t["steps"] += 1
    a = s.players[seat]["ally"]
    if a is not None:
        s.allies[a]["steps"] = s.allies[a].get("steps", 0) + 1
    _move_token(s, seat, c, events)
    if s.cells[c] is None:
        lid = core.draw(s, "locations", "location deck")
        place_location(s, c, lid, events, seat)
    enter(s, seat, c, events)


def movement_allowed(s, seat):
    t = s.turn
    if t["allow"] is not None:
        return t["allow"]
    return max(0, _token_movement(s, seat) + t["mvm"])


def steps_taken(s, seat):
    """Steps taken this turn; an Ally Party's members share their token's steps."""
    a = s.players[seat]["ally"]
    if a is not None:
        return s.allies[a].get("steps", 0)
    return s.turn["steps"]


def _token_movement(s, seat):
    p = s.players[seat]
    if p["ally"] is None:
        return core.movement(s, seat)
    best = 0
    for q in s.allies[p["ally"]]["members"]:
        for c in s.players[q]["party"]:
            best = max(best, core.char(s, c)["movement"])
    return best + core.team_bonus(s, seat, "wild_ones")


def _move_token(s, seat, c, events):
    p = s.players[seat]
    old = core.cell_of(s, seat)
    if p["ally"] is not None:
        s.allies[p["ally"]]["cell"] = c
        for q in s.allies[p["ally"]]["members"]:
            _moved_off(s, q, old)
    else:
        p["cell"] = c
        _moved_off(s, seat, old)
    if old == core.CENTRE:
        for q in ([seat] if p["ally"] is None else s.allies[p["ally"]]["members"]):
            s.players[q]["left_inn"] = True
        tournament_waves(s, events)
    log(events, "moved", seat=seat, to=core.xy(c))


def _moved_off(s, seat, old):
    p = s.players[seat]
    p["protect"] = [pr for pr in p["protect"] if pr["cell"] != old]
    if p["assist"] is not None:
        p["assist"] = None


def enter(s, seat, c, events):
    """What entering a location does: an ambush, a hunter, a landmark's first-visit bonus,
    quests that wanted it."""
    loc = core.location(s, c)
    p = s.players[seat]
    members = [seat] if p["ally"] is None else [
        q for q in s.allies[p["ally"]]["members"] if in_quest_mode(s, q)]
    sprung = [b for b in s.battles if b["flip"] == c]
    if loc["ambush"] and not s.flipped[c] and not sprung:
        from shared_rules.fairytale import battle
        enemy = ambush_minion(s, seat)
        log(events, "ambushed", seat=seat, cell=core.xy(c), enemy=enemy,
            text="Ambush! %s attacks %s." % (name_of(s, enemy), seat_words(s, seat)))
        battle.start_minion(s, members, enemy, False, events, flip=c)
        return
    for h in s.hunters:
        if h["state"] == "hunting" and h["cell"] == c and not h["battle"]:
            _hunter_strikes(s, h, events)
            return
    for q in members:
        pq = s.players[q]
        if loc["kind"] == "landmark" and c not in pq["visited"]:
            pq["visited"].append(c)
            log(events, "landmark_bonus", seat=q, location=loc["id"])
            draw_bonus(s, q, 1, events)
        quest_event(s, q, "visit", loc["id"], events)


def ambush_minion(s, seat):
    """"randomly select from the Minions that match your reputation point value or below" (or
    the minion the table read: the action's cards)."""
    rep = s.players[seat]["reputation"]
    ok = [e for e in s.cat.order["enemies"] if s.cat.decks["enemies"][e]["kind"] == "minion"
          and s.cat.decks["enemies"][e]["reputation"] <= rep]
    if not ok:
        ok = [e for e in s.cat.order["enemies"] if s.cat.decks["enemies"][e]["kind"] ==
              "minion"]
        low = min([s.cat.decks["enemies"][e]["reputation"] for e in ok])
        ok = [e for e in ok if s.cat.decks["enemies"][e]["reputation"] == low]
    if s.supply is not None and s.supply["cards"] and s.supply["cards"][0] in \
            s.cat.decks["enemies"]:
        e = s.supply["cards"].pop(0)
        if e not in ok:
            fail("wrong_minion", "%s cannot ambush a player of reputation %d." % (
                name_of(s, e), rep))
        return e
    return core.pick(s, ok)


def searchable(s, c):
    """The cost in traits of searching cell c now, or None if it cannot be searched."""
    loc = core.location(s, c)
    if loc is None or not loc["search"] or s.flipped[c]:
        return None
    done = s.searched[c]
    if done > loc["boxes"]:
        return None
    return 0 if done == 0 else done + 1


def search(s, action, events, free=False):
    """"You must end your movement on that location and search it": its bonus, then a gem on a
    green box (re-searchable) or the location flips (exhausted)."""
    seat = action["seat"]
    if not free:
        my_turn(s, action)
        if s.turn["searched"]:
            fail("searched", "You have searched once this turn.")
        _turn_phase(s, "move")
    c = core.cell_of(s, seat)
    cost = searchable(s, c)
    if cost is None:
        fail("nothing_to_search", "There is nothing left to search here.")
    p = s.players[seat]
    if cost and not free:
        pay = core.payment(p["traits"], {"any": cost}, action.get("pay"))
        core.spend(p["traits"], pay)
    loc = core.location(s, c)
    s.searched[c] += 1
    if s.searched[c] > loc["boxes"]:
        s.flipped[c] = True
    if not free:
        s.turn["searched"] = True
        s.turn["phase"] = "action"
    log(events, "searched", seat=seat, cell=core.xy(c), location=loc["id"], cost=cost,
        exhausted=s.flipped[c], text="%s searches %s." % (seat_words(s, seat), loc["name"]))
    from shared_rules.fairytale import effects
    effects.run(s, seat, loc["search"], {"mode": "quest", "source": loc["id"]}, events, action)
    quest_event(s, seat, "search", loc, events)


# ---------------------------------------------------------------- the bonus deck

def draw_bonus(s, seat, n, events):
    """Draw n bonus cards: items and action cards into the quest hand, an NPC onto the
    location, a character for the player to recruit, ignore or ambush."""
    for _ in range(n):
        cid = core.draw(s, "bonus", "bonus deck")
        if cid is None:
            if not s.decks["bonus_discard"]:
                log(events, "bonus_deck_empty", seat=seat)
                return
            s.decks["bonus"] = s.decks["bonus_discard"]
            s.decks["bonus_discard"] = []
            s.rng = prng.shuffle(s.rng, s.decks["bonus"])
            log(events, "bonus_reshuffled")
            cid = core.draw(s, "bonus", "bonus deck")
        if core.team_bonus(s, seat, "fugitives"):
            s.pending.append({"seat": seat, "kind": "rummage", "card": cid})
            log(events, "bonus_drawn", seat=seat, hidden=True)
            continue
        take_bonus(s, seat, cid, events)


def take_bonus(s, seat, cid, events):
    if cid in s.cat.decks["npcs"]:
        c = core.cell_of(s, seat)
        s.npcs.append({"id": cid, "cell": c, "last": -1})
        log(events, "npc_appears", npc=cid, cell=core.xy(c),
            text="%s appears at %s." % (name_of(s, cid), core.xy(c)))
        return
    if cid in s.cat.decks["characters"]:
        log(events, "character_drawn", seat=seat, character=cid,
            text="%s meets %s." % (seat_words(s, seat), name_of(s, cid)))
        if s.options["mode"] == "adventurer" and in_quest_mode(s, seat):
            from shared_rules.fairytale import battle
            battle.start_character(s, seat, cid, True, events)
            return
        s.pending.append({"seat": seat, "kind": "character", "card": cid})
        return
    card = core.item(s, cid)
    if s.options["alchemist"] and card["potion"] is not None:
        s.players[seat]["tokens"][card["potion"]] += 1
        core.shuffle_in(s, "bonus", cid)
        log(events, "potion_token", seat=seat, potion=card["potion"])
        return
    s.players[seat]["hand"].append(cid)
    log(events, "bonus_drawn", seat=seat, hidden=True)


def rummage(s, action, events, again):
    d = _decision(s, action, "rummage")
    s.pending.remove(d)
    if again:
        core.shuffle_in(s, "bonus", d["card"])
        log(events, "rummaged", seat=d["seat"])
        cid = core.draw(s, "bonus", "bonus deck")
        take_bonus(s, d["seat"], cid, events)
    else:
        take_bonus(s, d["seat"], d["card"], events)


def _decision(s, action, kind):
    seat = action["seat"]
    # A Conflict the seat caused waits for the others: it holds back its turn, not its answers.
    mine = [x for x in s.pending if x["seat"] == seat and x["kind"] != "conflict"]
    for d in mine:
        if d["kind"] == kind:
            if d is not mine[0]:
                fail("decide_first", "Decide first: %s." % decision_words(s, mine[0]))
            return d
    fail("no_decision", "There is no such decision waiting for you.")


def decision_words(s, d):
    k = d["kind"]
    if k == "character":
        return "recruit, ignore or ambush %s" % name_of(s, d["card"])
    if k == "rummage":
        return "keep the bonus card you drew or rummage for another"
    if k == "victory":
        return "take an Alliance or a Betrayal card for your kill"
    if k == "continue":
        return "choose how to continue after your character's death"
    if k == "alliance":
        return "accept or decline %s's Ally Party" % seat_words(s, d["from"])
    if k == "negotiate":
        return "agree how to share the rewards of %s" % name_of(s, d["enemy"])
    if k == "conflict":
        return "the others face or ignore %s's Conflict over the rewards of %s" % (
            seat_words(s, d["causer"]), name_of(s, d["enemy"]))
    if k == "peek":
        return "keep %s on top of the bonus deck or put it at the bottom" % name_of(
            s, d["card"])
    return k


def recruit(s, action, events):
    """"their Persuasion cost ... is equivalent (you don't spend them) to the minimum number of
    persuasion traits you have": the character joins the party, with its trait bonus once."""
    d = _decision(s, action, "character")
    seat = d["seat"]
    p = s.players[seat]
    c = d["card"]
    card = core.char(s, c)
    if s.options["mode"] in ("adventurer", "tournament"):
        fail("no_recruiting", "In this mode nobody recruits new members to a party.")
    if p["traits"]["persuasion"] < card["persuasion"]:
        fail("not_persuasive", "%s asks %d persuasion and you have %d." % (
            card["name"], card["persuasion"], p["traits"]["persuasion"]))
    if len(p["party"]) >= core.MAX_PARTY:
        fail("party_full", "Your party already has %d characters." % core.MAX_PARTY)
    s.pending.remove(d)
    join_party(s, seat, c, events)


def join_party(s, seat, c, events):
    p = s.players[seat]
    card = core.char(s, c)
    p["party"].append(c)
    p["equipped"][c] = []
    for t in card["tactics"]:
        p["tactics"][t] = False
    got = {}
    if c not in p["bonus_taken"]:
        p["bonus_taken"].append(c)
        for t in core.TRAITS:
            if card["trait_bonus"].get(t):
                got.update(core.gain_traits(p["traits"], card["trait_bonus"][t],
                                            core.max_health(s, p), t))
    log(events, "recruited", seat=seat, character=c, gained=got,
        text="%s joins %s's party." % (card["name"], seat_words(s, seat)))


def ignore(s, action, events):
    d = _decision(s, action, "character")
    s.pending.remove(d)
    core.shuffle_in(s, "bonus", d["card"])
    log(events, "ignored", seat=d["seat"], character=d["card"])


def ambush_character(s, action, events):
    d = _decision(s, action, "character")
    seat = d["seat"]
    if not in_quest_mode(s, seat):
        fail("in_battle", "You are already in battle.")
    s.pending.remove(d)
    from shared_rules.fairytale import battle
    battle.start_character(s, seat, d["card"], True, events)


def peek(s, action, events, bottom):
    d = _decision(s, action, "peek")
    s.pending.remove(d)
    if bottom and s.decks["bonus"] and s.decks["bonus"][0] == d["card"]:
        s.decks["bonus"].append(s.decks["bonus"].pop(0))
    log(events, "peeked", seat=d["seat"], bottom=bottom)


# ---------------------------------------------------------------- items

def _hand_item(s, seat, cid, field="item"):
    p = s.players[seat]
    if not isinstance(cid, str) or cid not in p["hand"] or cid not in s.cat.decks["bonus"]:
        fail("not_in_hand", "%s must be a card in your quest hand, not %s." % (field, shown(cid)))
    return core.item(s, cid)


def slots_free(s, seat, c):
    p = s.players[seat]
    return core.char(s, c)["slots"] - len(p["equipped"].get(c, []))


def equip(s, action, events, in_battle=False):
    """Equip an item from the quest hand on a character of the party ("You may not equip items
    ... during combat")."""
    seat = action["seat"]
    p = s.players[seat]
    if not in_battle:
        my_turn(s, action)
        _turn_phase(s, "action")
    cid = action.get("item")
    card = _hand_item(s, seat, cid)
    if card["kind"] == "action":
        fail("not_an_item", "%s is an action card; it is played, not equipped." % card["name"])
    if cid in s.turn["unequipped"] if s.turn is not None else False:
        fail("unequipped", "You took %s off this turn." % card["name"])
    c = action.get("character", p["active"])
    if c not in core.party_of(s, seat):
        fail("not_in_party", "character must be a character of your party, not %s." % shown(c))
    if slots_free(s, seat, c) <= 0:
        fail("slots_full", "%s has no free item slot." % name_of(s, c))
    p["hand"].remove(cid)
    p["equipped"][c].append(cid)
    if card["boxes"]:
        p["boxes"][cid] = 0
    log(events, "equipped", seat=seat, item=cid, character=c,
        text="%s equips %s on %s." % (seat_words(s, seat), card["name"], name_of(s, c)))


def unequip(s, action, events):
    seat = action["seat"]
    p = my_turn(s, action)
    _turn_phase(s, "action")
    cid = action.get("item")
    owner = equipped_by(p, cid)
    if owner is None:
        fail("not_equipped", "item must be an item you have equipped, not %s." % shown(cid))
    p["equipped"][owner].remove(cid)
    p["hand"].append(cid)
    p["boxes"].pop(cid, None)
    s.turn["unequipped"].append(cid)
    cap_health(s, seat)
    log(events, "unequipped", seat=seat, item=cid)


def equipped_by(p, cid):
    for c in sorted(p["equipped"]):
        if cid in p["equipped"][c]:
            return c
    return None


def discard_item(s, seat, cid, events, why):
    """An item leaves the player: broken, used up or lost; it goes to the bonus discard."""
    p = s.players[seat]
    owner = equipped_by(p, cid)
    if owner is not None:
        p["equipped"][owner].remove(cid)
    elif cid in p["hand"]:
        p["hand"].remove(cid)
    else:
        return
    p["boxes"].pop(cid, None)
    s.decks["bonus_discard"].append(cid)
    log(events, "item_lost", seat=seat, item=cid, why=why,
        text="%s loses %s (%s)." % (seat_words(s, seat), name_of(s, cid), why))
    cap_health(s, seat)


def cap_health(s, seat):
    p = s.players[seat]
    cap = core.max_health(s, p)
    over = core.health(p["traits"]) - cap
    if over > 0:
        core.lose_traits(p["traits"], over)


def switch(s, action, events):
    """Quest Mode: switch the leading character in the Action Phase; traits carry over."""
    seat = action["seat"]
    p = my_turn(s, action)
    _turn_phase(s, "action")
    c = action.get("character")
    if c not in core.party_of(s, seat) or c == p["active"]:
        fail("not_in_party", "character must be another character of your party, not %s." %
             shown(c))
    if s.turn["switched"]:
        fail("switched", "You have switched characters once this turn.")
    s.turn["switched"] = True
    p["active"] = c
    log(events, "switched", seat=seat, character=c,
        text="%s now leads with %s." % ("Player " + seat[1:], name_of(s, c)))


def burn(s, action, events):
    """"Reputation points can also be BURNED ... for a Trait of any kind", never the last one."""
    seat = action["seat"]
    p = s.players[seat]
    t = action.get("trait")
    if t not in core.TRAITS:
        fail("bad_traits", "trait must be one of %s, not %s." % (", ".join(core.TRAITS),
                                                                   shown(t)))
    if p["reputation"] <= 1:
        fail("last_reputation", "You may not burn your last reputation point.")
    if core.health(p["traits"]) >= core.max_health(s, p):
        fail("health_full", "Your health is full: a burned reputation point would be lost.")
    p["reputation"] -= 1
    p["traits"][t] += 1
    log(events, "burned", seat=seat, trait=t)


# ---------------------------------------------------------------- quests

def quest_class(q):
    return "boss" if q["pile"] in ("boss", "end") else "basic"


def open_quest(s, action, events):
    """At the Dragon Inn, search a quest pile the reputation allows and take a quest into the
    quest hand ("you may search the Quest Deck ... and choose")."""
    seat = action["seat"]
    p = my_turn(s, action)
    _turn_phase(s, "action")
    if core.cell_of(s, seat) != core.CENTRE:
        fail("not_at_the_inn", "Quests are opened at the Dragon Inn.")
    if s.turn["opened"]:
        fail("opened", "You have opened a quest this turn.")
    qid = action.get("quest")
    pile = None
    for name in QUEST_PILES + ("end",):
        if qid in s.decks[name]:
            pile = name
    if pile is None:
        fail("no_such_quest", "quest must be a quest in one of the quest piles, not %s." %
             shown(qid))
    need = THRESHOLDS[s.options["quest_thresholds"]]["boss" if pile == "end" else pile]
    if p["reputation"] < need:
        fail("low_reputation", "The %s quests need %d reputation; you have %d." % (
            pile, need, p["reputation"]))
    s.decks[pile].remove(qid)
    p["hand"].append(qid)
    s.turn["opened"] = True
    log(events, "quest_opened", seat=seat, pile=pile, quest=qid if pile == "end" else None)


def start_quest(s, action, events):
    """Initiate a quest from the quest hand: at most 1 boss quest and 2 easy or medium ones,
    replacing an initiated one by discarding it."""
    seat = action["seat"]
    p = my_turn(s, action)
    _turn_phase(s, "action")
    qid = action.get("quest")
    if qid not in p["hand"] or qid not in s.cat.decks["quests"]:
        fail("not_in_hand", "quest must be a quest card in your quest hand, not %s." %
             shown(qid))
    q = s.cat.decks["quests"][qid]
    cls = quest_class(q)
    same = [x for x in p["quests"] if quest_class(s.cat.decks["quests"][x]) == cls]
    old = action.get("replace")
    if len(same) >= core.QUEST_SLOTS[cls]:
        if old not in same:
            fail("quests_full", "You have %d %s quest%s under way: name one to replace." % (
                len(same), "boss" if cls == "boss" else "easy or medium",
                "" if len(same) == 1 else "s"))
    elif old is not None:
        fail("bad_replace", "There is room for this quest: nothing needs replacing.")
    if old is not None:
        p["quests"].remove(old)
        p["progress"].pop(old, None)
        s.decks["quest_discard"].append(old)
        log(events, "quest_discarded", seat=seat, quest=old)
    p["hand"].remove(qid)
    p["quests"].append(qid)
    p["progress"][qid] = {"stage": 0, "count": 0,
                          "until": s.day + q["duration"] if q["duration"] else 0}
    log(events, "quest_started", seat=seat, quest=qid,
        text="%s begins the quest %s: %s" % (seat_words(s, seat), q["name"], q["text"]))
    here = core.location(s, core.cell_of(s, seat))
    quest_event(s, seat, "visit", here["id"], events)


def stage_of(s, seat, qid):
    q = s.cat.decks["quests"][qid]
    g = q["goal"]
    st = s.players[seat]["progress"][qid]["stage"]
    return g["stages"][st] if "stages" in g else g


def quest_event(s, seat, kind, what, events):
    """Something happened that a quest may want: "visit" (a location id), "search" (a location),
    "defeat" (an enemy: (id, kind, creature)), "kill"."""
    p = s.players[seat]
    for qid in list(p["quests"]):
        if qid not in p["quests"]:
            continue
        g = stage_of(s, seat, qid)
        hit = False
        if kind == "visit" and g.get("visit") == what:
            hit = True
        elif kind == "search" and "search" in g and g["search"] in (what["id"], what["terrain"]):
            hit = True
        elif kind == "defeat" and "defeat" in g and g["defeat"] in what:
            hit = _count(s, seat, qid, g.get("count", 1))
        elif kind == "boss" and g.get("boss") == what:
            hit = True
        elif kind == "kill" and "kill" in g:
            hit = _count(s, seat, qid, g["kill"])
        if hit:
            advance_quest(s, seat, qid, events)


def _count(s, seat, qid, n):
    pr = s.players[seat]["progress"][qid]
    pr["count"] += 1
    return pr["count"] >= n


def advance_quest(s, seat, qid, events):
    p = s.players[seat]
    q = s.cat.decks["quests"][qid]
    pr = p["progress"][qid]
    pr["count"] = 0
    if "stages" in q["goal"] and pr["stage"] + 1 < len(q["goal"]["stages"]):
        pr["stage"] += 1
        log(events, "quest_stage", seat=seat, quest=qid, stage=pr["stage"])
        here = core.location(s, core.cell_of(s, seat))
        quest_event(s, seat, "visit", here["id"], events)
        return
    p["quests"].remove(qid)
    p["progress"].pop(qid)
    if q["pile"] != "end":
        s.decks["quest_discard"].append(qid)
    log(events, "quest_completed", seat=seat, quest=qid,
        text="%s completes the quest %s." % (seat_words(s, seat), q["name"]))
    from shared_rules.fairytale import effects
    effects.run(s, seat, q["rewards"], {"mode": "quest", "source": qid, "quest": qid}, events, {})
    trigger(s, seat, "quest_done", events)


def _stage_now(s, action):
    """(the player, the quest, its stage) for an Action Phase action on a quest under way."""
    p = my_turn(s, action)
    _turn_phase(s, "action")
    qid = action.get("quest")
    if qid not in p["quests"]:
        fail("not_active", "quest must be one of your quests under way, not %s." % shown(qid))
    return p, qid, stage_of(s, action["seat"], qid)


def fulfil(s, action, events):
    """Complete an "offer" or "deliver" stage at its location: pay the traits, or hand over the
    items from the quest hand."""
    seat = action["seat"]
    p, qid, g = _stage_now(s, action)
    if "offer" not in g and "deliver" not in g:
        fail("nothing_to_fulfil", "This quest is not fulfilled by an offering.")
    here = core.location(s, core.cell_of(s, seat))
    if here["id"] != g["at"]:
        fail("wrong_place", "This is done at %s." % name_of(s, g["at"]))
    if "offer" in g:
        cost = dict(g["offer"])
        if cost.get("magic"):
            cost["magic"] = max(0, cost["magic"] - core.team_bonus(s, seat, "children_of_magic"))
        pay = core.payment(p["traits"], cost, action.get("pay"))
        core.spend(p["traits"], pay)
        log(events, "offered", seat=seat, quest=qid, paid=pay)
    else:
        want = g["deliver"]
        have = [c for c in p["hand"] if c in s.cat.decks["bonus"] and
                core.item(s, c)["kind"] == want["kind"]]
        if len(have) < want["n"]:
            fail("missing_items", "Bring %d %s item%s in your quest hand." % (
                want["n"], want["kind"], "" if want["n"] == 1 else "s"))
        for c in have[:want["n"]]:
            p["hand"].remove(c)
            s.decks["bonus_discard"].append(c)
        log(events, "delivered", seat=seat, quest=qid, items=have[:want["n"]])
    advance_quest(s, seat, qid, events)


def challenge(s, action, events):
    """Face a quest's boss at its location: a battle the challenger (and the ally party there)
    begins on offence."""
    seat = action["seat"]
    p, qid, g = _stage_now(s, action)
    if "boss" not in g:
        fail("no_boss", "This quest has no boss to face now.")
    here = core.location(s, core.cell_of(s, seat))
    if here["id"] != g["at"]:
        fail("wrong_place", "%s is faced at %s." % (name_of(s, g["boss"]), name_of(s, g["at"])))
    members = [seat]
    if p["ally"] is not None:
        members = [q for q in s.allies[p["ally"]]["members"] if in_quest_mode(s, q)]
    from shared_rules.fairytale import battle
    log(events, "boss_challenged", seat=seat, boss=g["boss"], quest=qid)
    battle.start_minion(s, members, g["boss"], True, events, quest=qid)


def _expire_quests(s, day, events):
    for q in s.seats:
        p = s.players[q]
        for qid in list(p["quests"]):
            until = p["progress"][qid]["until"]
            if until and day > until:
                p["quests"].remove(qid)
                p["progress"].pop(qid)
                s.decks["quest_discard"].append(qid)
                log(events, "quest_expired", seat=q, quest=qid,
                    text="%s ran out of time for %s." % (seat_words(s, q), name_of(s, qid)))


def give_legendary(s, seat, qid, events):
    """A character quest's reward: the blue character's legendary item comes to the completer
    "if it is in play and even equipped by another player" (only with that character in the
    party)."""
    q = s.cat.decks["quests"].get(qid)
    if q is None or q["character"] is None:
        return
    if q["character"] not in s.players[seat]["party"]:
        log(events, "no_legendary", seat=seat, character=q["character"])
        return
    item_id = core.char(s, q["character"])["legendary"]
    if item_id is None:
        return
    for other in s.seats:
        po = s.players[other]
        if equipped_by(po, item_id) is not None or item_id in po["hand"]:
            if other == seat:
                return
            owner = equipped_by(po, item_id)
            if owner is not None:
                po["equipped"][owner].remove(item_id)
            else:
                po["hand"].remove(item_id)
            po["boxes"].pop(item_id, None)
            cap_health(s, other)
            log(events, "legendary_vanishes", seat=other, item=item_id,
                text="%s vanishes from %s's inventory." % (name_of(s, item_id),
                                                             seat_words(s, other)))
    for deck in ("bonus", "bonus_discard"):
        if item_id in s.decks[deck]:
            s.decks[deck].remove(item_id)
    s.players[seat]["hand"].append(item_id)
    log(events, "legendary_claimed", seat=seat, item=item_id,
        text="%s claims %s." % (seat_words(s, seat), name_of(s, item_id)))


# ---------------------------------------------------------------- NPCs

def interact(s, action, events):
    seat = action["seat"]
    p = my_turn(s, action)
    _turn_phase(s, "action")
    nid = action.get("npc")
    here = core.cell_of(s, seat)
    found = [n for n in s.npcs if n["id"] == nid and n["cell"] == here]
    if not found:
        fail("no_npc_here", "npc must be an NPC on your location, not %s." % shown(nid))
    if nid in s.turn["interacted"]:
        fail("interacted", "You have met %s this turn." % name_of(s, nid))
    card = s.cat.decks["npcs"][nid]
    pay = core.payment(p["traits"], card["cost"], action.get("pay"))
    core.spend(p["traits"], pay)
    s.turn["interacted"].append(nid)
    log(events, "npc_met", seat=seat, npc=nid,
        text="%s meets %s." % (seat_words(s, seat), card["name"]))
    if card["once"]:
        s.npcs.remove(found[0])
        s.decks["bonus_discard"].append(nid)
    from shared_rules.fairytale import effects
    effects.run(s, seat, card["effects"], {"mode": "quest", "source": nid}, events, action)


# ---------------------------------------------------------------- victory cards

def trigger(s, seat, name, events):
    """A victory card's requirement was met: its reward, every time ("Victory Cards stay
    face-up and active")."""
    if seat not in s.players or s.players[seat]["out"]:
        return
    from shared_rules.fairytale import effects
    for vid in list(s.players[seat]["victory"]):
        card = s.cat.decks["victory"][vid]
        if card["trigger"] == name:
            log(events, "victory_reward", seat=seat, card=vid,
                text="%s: %s" % (card["name"], card["text"]))
            effects.run(s, seat, card["rewards"], {"mode": "any", "source": vid}, events, {})


def take_victory(s, action, events):
    d = _decision(s, action, "victory")
    deck = action.get("deck")
    if deck not in cards.VICTORY_DECKS:
        fail("bad_deck", "deck must be alliance or betrayal, not %s." % shown(deck))
    if not s.decks[deck]:
        fail("deck_empty", "The %s cards are all taken." % deck)
    s.pending.remove(d)
    vid = core.draw(s, deck, deck + " deck")
    s.players[d["seat"]]["victory"].append(vid)
    log(events, "victory_card", seat=d["seat"], card=vid, deck=deck,
        text="%s takes the %s card %s." % (seat_words(s, d["seat"]), deck, name_of(s, vid)))


# ---------------------------------------------------------------- death and continuing

def character_dies(s, seat, c, events):
    """A player's fighting character is killed: it is discarded with its items; the player
    continues as the next party member, or (no party) as a character searched from the bonus
    deck, unless deaths are final."""
    p = s.players[seat]
    for it in list(p["equipped"].get(c, [])):
        discard_item(s, seat, it, events, "its bearer died")
    p["equipped"].pop(c, None)
    if c in p["party"]:
        p["party"].remove(c)
    for t in core.char(s, c)["tactics"]:
        p["tactics"].pop(t, None)
    s.decks["bonus_discard"].append(c)
    if p["stand_in"] and p["stand_in"]["character"] == c:
        # A separated character "may be killed as if they were individual characters": the
        # main token goes on.
        stand_back(s, seat)
        return
    p["poison"] = 0
    final = s.final_deaths or s.options["mode"] == "tournament"
    if final:
        eliminate(s, seat, events)
        return
    if p["party"]:
        here = [x for x in p["party"] if x not in p["away"]]
        if here:
            _new_primary(s, seat, here[0], None, events)
            return
        # Only separated characters are left: the first of them leads, where its token is.
        nxt = p["party"][0]
        a = p["away"].pop(nxt)
        p["cell"] = a["cell"]
        _new_primary(s, seat, nxt, a["traits"], events)
        return
    left = [x for x in s.decks["bonus"] if x in s.cat.decks["characters"]]
    left += [x for x in s.decks["bonus_discard"] if x in s.cat.decks["characters"] and
             x != c]
    if not left:
        eliminate(s, seat, events)
        return
    p["character"] = None
    p["active"] = None
    s.pending.append({"seat": seat, "kind": "continue", "dead": c})


def _new_primary(s, seat, c, traits, events):
    p = s.players[seat]
    p["character"] = c
    p["active"] = c
    p["max_bonus"] = 0
    total = core.max_health(s, p)
    p["traits"] = traits if traits is not None else core.split_even(
        total, core.char(s, c)["traits"])
    if c not in p["bonus_taken"]:
        p["bonus_taken"].append(c)
    log(events, "continues_as", seat=seat, character=c,
        text="Player %s continues as %s." % (seat[1:], name_of(s, c)))


def continue_as(s, action, events):
    """No party left: "search the Bonus Deck for any remaining characters and use that one,
    shuffling the bonus deck", entering again at the Dragon Inn."""
    d = _decision(s, action, "continue")
    seat = d["seat"]
    p = s.players[seat]
    c = action.get("character")
    where = None
    for deck in ("bonus", "bonus_discard"):
        if c in s.decks[deck] and c in s.cat.decks["characters"]:
            where = deck
    if where is None:
        fail("not_in_deck", "character must be a character card left in the bonus deck, not "
             "%s." % shown(c))
    if c == d.get("dead"):
        fail("just_died", "%s has just died: continue as another character." % name_of(s, c))
    traits = None
    if action.get("traits") is not None:
        traits = _starting_traits(s, c, action["traits"], "traits")
    s.pending.remove(d)
    s.decks[where].remove(c)
    s.rng = prng.shuffle(s.rng, s.decks["bonus"])
    p["party"] = [c]
    p["equipped"] = {c: []}
    p["boxes"] = {}
    p["tactics"] = dict([(t, False) for t in core.char(s, c)["tactics"]])
    _new_primary(s, seat, c, traits, events)
    if p["ally"] is not None and s.options["mode"] != "adventurer":
        leave_ally(s, seat, events, "dissolved")
    p["cell"] = core.CENTRE
    rejoin(s, seat, events)


def _starting_traits(s, c, v, field):
    traits = core.check_traits(v, field)
    full = dict([(t, traits.get(t, 0)) for t in core.TRAITS])
    if core.health(full) != core.char(s, c)["health"]:
        fail("wrong_split", "%s's %d health must be split over the traits in full (%s adds to "
             "%d)." % (name_of(s, c), core.char(s, c)["health"], field, core.health(full)))
    return full


def eliminate(s, seat, events):
    p = s.players[seat]
    if p["out"]:
        return
    p["out"] = True
    p["character"] = None
    p["active"] = None
    for it in list(p["hand"]):
        if it in s.cat.decks["bonus"]:
            s.decks["bonus_discard"].append(it)
    p["hand"] = [x for x in p["hand"] if x not in s.cat.decks["bonus"]]
    for c in list(p["party"]):
        for it in p["equipped"].get(c, []):
            s.decks["bonus_discard"].append(it)
        s.decks["bonus_discard"].append(c)
    p["party"] = []
    p["equipped"] = {}
    p["boxes"] = {}
    p["away"] = {}
    p["stand_in"] = None
    s.pending = [d for d in s.pending if d["seat"] != seat]
    if p["ally"] is not None:
        leave_ally(s, seat, events, "eliminated")
    unit = unit_of(s, seat)
    if unit in s.order:
        _drop_unit(s, unit, events)
    log(events, "eliminated", seat=seat, text="Player %s is out of the Battle Royale." % seat[1:])
    sundial_moves_on(s, events)


# ---------------------------------------------------------------- ally parties

def offer_alliance(s, action, events):
    """"To form an Ally Party, all players involved agree": an offer to a player on your
    location, which they accept or decline."""
    seat = action["seat"]
    p = my_turn(s, action)
    _turn_phase(s, "action")
    if s.options["mode"] == "adventurer":
        fail("already_a_party", "Adventurers are one party already.")
    to = action.get("to")
    if to not in s.players or to == seat or not in_quest_mode(s, to):
        fail("no_such_player", "to must be another player in Quest Mode, not %s." % shown(to))
    if core.cell_of(s, to) != core.cell_of(s, seat):
        fail("not_here", "%s is not on your location." % seat_words(s, to))
    if p["away"] or s.players[to]["away"]:
        fail("separated", "A separated party may not join an Ally Party.")
    if p["ally"] is not None and p["ally"] == s.players[to]["ally"]:
        fail("already_allies", "You are allies already.")
    size = len(_ally_seats(s, seat)) + len(_ally_seats(s, to))
    if size > core.MAX_ALLY:
        fail("ally_full", "An Ally Party has at most %d players." % core.MAX_ALLY)
    if to in s.turn["offered"]:
        fail("offered", "You have made %s an offer this turn." % seat_words(s, to))
    s.turn["offered"].append(to)
    s.pending.append({"seat": to, "kind": "alliance", "from": seat})
    log(events, "alliance_offered", seat=seat, to=to)


def _ally_seats(s, seat):
    a = s.players[seat]["ally"]
    return list(s.allies[a]["members"]) if a is not None else [seat]


def answer_alliance(s, action, events, yes):
    d = _decision(s, action, "alliance")
    seat, other = d["seat"], d["from"]
    if not yes:
        s.pending.remove(d)
        log(events, "alliance_declined", seat=seat, to=other)
        return
    if not (in_quest_mode(s, other) and in_quest_mode(s, seat)) or \
            core.cell_of(s, other) != core.cell_of(s, seat) or \
            len(_ally_seats(s, seat)) + len(_ally_seats(s, other)) > core.MAX_ALLY or \
            (s.players[seat]["ally"] is not None and
             s.players[seat]["ally"] == s.players[other]["ally"]):
        fail("offer_lapsed", "The offer has lapsed: you are no longer together.")
    s.pending.remove(d)
    form_alliance(s, _ally_seats(s, other) + _ally_seats(s, seat), events)


def form_alliance(s, members, events):
    """The players "remove their character token from the board ... Place that character on
    the Dragon Inn"; their grouped turn "happens after the last active player's turn". A
    member whose turn it is ends it (its token has left the board)."""
    units = []
    for q in members:
        u = unit_of(s, q)
        if u not in units:
            units.append(u)
    for u in units:
        if u in s.allies:
            del s.allies[u]
    aid = "ally%d" % s.next_id
    s.next_id += 1
    order = [q for q in s.seats if q in members]
    s.allies[aid] = {"members": order, "cell": core.CENTRE, "steps": 0}
    for q in order:
        pq = s.players[q]
        pq["ally"] = aid
        pq["cell"] = core.CENTRE
        for other in order:
            if other != q and other not in pq["former_allies"]:
                pq["former_allies"].append(other)
    cur_unit = s.order[s.cur] if s.cur is not None else None
    ended = cur_unit in units
    before = 0
    kept = []
    for i in range(len(s.order)):
        u = s.order[i]
        if u in units:
            continue
        if s.cur is not None and i < s.cur:
            before += 1
        kept.append(u)
    s.order = kept + [aid]
    if s.cur is not None:
        s.cur = before - 1 if ended else before
    log(events, "alliance_formed", ally=aid, members=list(order),
        text="%s form an Ally Party on the Dragon Inn." % " and ".join(
            ["Player " + q[1:] for q in order]))
    for q in order:
        trigger(s, q, "formed_alliance", events)
    if ended and s.status == "ongoing":
        s.turn = None
        s.member = 0
        _next_unit(s, events)


def dissolve(s, action, events):
    """"they may Dissolve their alliance at any time": the leaver's turn "now begins after the
    last active person's turn"."""
    seat = action["seat"]
    p = s.players[seat]
    if p["ally"] is None:
        fail("no_ally", "You are not in an Ally Party.")
    if s.options["mode"] == "adventurer":
        fail("adventurers", "Adventurers stay one party to the end.")
    if pending_for(s, seat):
        fail("decide_first", "Decide first: %s." % decision_words(s, pending_for(s, seat)[0]))
    leave_ally(s, seat, events, "dissolved")
    trigger(s, seat, "dissolved", events)


def leave_ally(s, seat, events, why):
    """A member leaves the Ally Party (dissolving, dying, a Conflict): its own token goes down
    where the party stands and its turn comes after the last active person's; a party left
    with one member is no party."""
    p = s.players[seat]
    aid = p["ally"]
    a = s.allies[aid]
    cell = a["cell"]
    acting = current_seat(s) == seat
    a["members"].remove(seat)
    p["ally"] = None
    p["cell"] = cell
    log(events, "alliance_left", seat=seat, ally=aid, why=why)
    if aid in s.order and s.cur is not None and s.order[s.cur] == aid and not acting and \
            s.turn is not None and s.turn["seat"] in a["members"]:
        s.member = a["members"].index(s.turn["seat"])
    if len(a["members"]) <= 1:
        rest = a["members"][0] if a["members"] else None
        for q in a["members"]:
            s.players[q]["ally"] = None
            s.players[q]["cell"] = cell
        del s.allies[aid]
        if aid in s.order:
            i = s.order.index(aid)
            if rest is not None and rest not in s.order:
                s.order[i] = rest
            else:
                s.order.pop(i)
                if s.cur is not None and i < s.cur:
                    s.cur -= 1
                elif s.cur is not None and i == s.cur:
                    s.cur -= 1
        if s.cur is not None and 0 <= s.cur < len(s.order) and s.order[s.cur] == rest:
            s.member = 0
    if not (p["out"] or p["battle"] is not None or p["character"] is None):
        if seat not in s.order:
            s.order.append(seat)
    if acting and s.status == "ongoing":
        # Its turn ends with the party it left; it plays again after the last active player.
        s.turn = None
        if s.cur is not None and s.cur < len(s.order) and s.order[s.cur] in s.allies and \
                s.member < len(s.allies[s.order[s.cur]]["members"]):
            start_turn(s, events)
        else:
            _next_unit(s, events)


# ---------------------------------------------------------------- tournament waves

def tournament_waves(s, events):
    """"10 people will enter ... they must move off of the Dragon Inn. Once all 10 players
    move, the next 10 players enter with a handicap of +5 Traits" (the third: +5 Traits and
    +1 Bonus Card)."""
    if s.options["mode"] != "tournament":
        return
    entered = [q for q in s.seats if s.players[q]["entered"]]
    if [q for q in entered if not s.players[q]["left_inn"] and not s.players[q]["out"]]:
        return
    wave = [q for q in s.seats if not s.players[q]["entered"]][:10]
    if not wave:
        return
    s.wave += 1
    for q in wave:
        p = s.players[q]
        p["entered"] = True
        p["max_bonus"] += 5
        core.gain_traits(p["traits"], 5, core.max_health(s, p))
        s.order.append(q)
        if s.wave >= 3:
            draw_bonus(s, q, 1, events)
    log(events, "wave_enters", wave=s.wave, seats=wave)
    if s.cur is None and s.clock is None:
        _first_turn(s, events)
    sundial_moves_on(s, events)


# ---------------------------------------------------------------- the endings

def check_end(s, events):
    """Whether somebody has won, by the player count's goal (or every player is out)."""
    if s.status != "ongoing" or s.phase != "play":
        return
    tournament_waves(s, events)
    alive = [q for q in s.seats if not s.players[q]["out"]]
    mode = s.options["mode"]
    n = len(s.seats)
    if not alive:
        finish(s, None, "all_out", 2, events)
        return
    if mode == "adventurer":
        return
    if mode == "tournament":
        if len(alive) == 1 and not [q for q in s.seats if not s.players[q]["entered"]]:
            finish(s, alive[0], "last_standing", 1, events)
        return
    if n == 1:
        if s.hunters and all([h["state"] == "dead" for h in s.hunters]):
            finish(s, s.seats[0], "hunters_killed", 1, events)
        return
    if n <= 4:
        for q in s.seats:
            k = s.players[q]["kills"]
            if k["players"] >= 3 and k["characters"] >= 5:
                finish(s, q, "kills", 1, events)
                return
        if len(alive) == 1 and n > 1:
            finish(s, alive[0], "last_standing", 1, events)
        return
    if not s.final_deaths and [q for q in s.seats if s.players[q]["kills"]["characters"] >= 2]:
        s.final_deaths = True
        log(events, "deaths_final", text="A player has killed two characters: from now on "
            "every death is final.")
    if len(alive) == 1 and s.players[alive[0]]["kills"]["characters"] >= 2:
        finish(s, alive[0], "last_standing", 1, events)


EPILOGUES = {1: "Epilogue 1: the Trinity's Champion.", 2: "Epilogue 2: the collars detonate.",
             3: "Epilogue 3: Finding Safe Haven.", 4: "Epilogue 4: To Summon Darkness."}


def finish(s, seat, reason, epilogue, events, winners=None):
    s.phase = "finished"
    s.status = "finished"
    s.winner = seat
    s.winners = winners if winners is not None else ([seat] if seat is not None else [])
    s.end_reason = reason
    s.epilogue = epilogue
    s.clock = None
    s.turn = None
    s.cur = None
    s.pending = []
    who = ", ".join(["Player " + q[1:] for q in s.winners])
    log(events, "game_over", winner=seat, winners=list(s.winners), reason=reason,
        epilogue=epilogue, text=(who + " won. " if who else "Everyone loses. ") +
        EPILOGUES[epilogue])


# ---------------------------------------------------------------- separating the party

def separate(s, action, events):
    """"you may separate your party members ... during your Planningn Phase by placing a token at
    your location representing the other character": the character gets its own token and
    "begins with max health points" of its own (split evenly over its trait types)."""
    seat = action["seat"]
    p = my_turn(s, action)
    if s.turn["phase"] not in ("strategy1", "strategy2"):
        fail("not_now", "You separate your party in a strategy phase.")
    if p["ally"] is not None:
        fail("separated", "An Ally Party's members keep their characters together.")
    c = action.get("character")
    if c not in party_here(s, seat) or c == p["active"]:
        fail("not_in_party", "character must be a character of your party with you, other "
             "than the one you lead, not %s." % shown(c))
    card = core.char(s, c)
    traits = core.split_even(card["health"], card["traits"])
    p["away"][c] = {"cell": p["cell"], "traits": traits, "steps": 0}
    log(events, "separated", seat=seat, character=c, cell=core.xy(p["cell"]),
        text="%s separates %s from the party." % (seat_words(s, seat), card["name"]))


def party_here(s, seat):
    return core.party_of(s, seat)


def reunite(s, action, events):
    """"If reunited with the party (during the action phase) your primary character's health
    and traits will retain the traits from the lowest character between both characters"."""
    seat = action["seat"]
    p = my_turn(s, action)
    _turn_phase(s, "action")
    c = action.get("character")
    if c not in p["away"]:
        fail("not_separated", "character must be a separated character of yours, not %s." %
             shown(c))
    a = p["away"][c]
    if a["cell"] != p["cell"]:
        fail("not_here", "%s's token is not on your location." % name_of(s, c))
    if core.health(a["traits"]) < core.health(p["traits"]):
        p["traits"] = dict(a["traits"])
    del p["away"][c]
    cap_health(s, seat)
    log(events, "reunited", seat=seat, character=c, health=core.health(p["traits"]),
        text="%s reunites with %s." % (seat_words(s, seat), name_of(s, c)))


def stand_in(s, seat, c):
    """The separated character c acts for the player "as if they were individual characters":
    its token, traits and items stand in for the main token's until `stand_back`."""
    p = s.players[seat]
    a = p["away"].pop(c)
    main = {"traits": p["traits"], "cell": p["cell"], "active": p["active"],
            "character": p["character"], "max_bonus": p["max_bonus"], "away": p["away"]}
    p["traits"], p["cell"], p["active"], p["character"] = a["traits"], a["cell"], c, c
    p["max_bonus"] = 0
    p["away"] = dict([(x, {"with": "main"}) for x in p["party"] if x != c])
    p["stand_in"] = {"character": c, "main": main, "steps": a["steps"]}


def stand_back(s, seat):
    """The main token's character leads again; the stand-in's token keeps its state (unless
    it died)."""
    p = s.players[seat]
    si = p.get("stand_in")
    if not si:
        return
    c = si["character"]
    frame = {"cell": p["cell"], "traits": p["traits"], "steps": si["steps"]}
    main = si["main"]
    for key in ("traits", "cell", "active", "character", "max_bonus", "away"):
        p[key] = main[key]
    if c in p["party"]:
        p["away"][c] = frame
    p["stand_in"] = None


def away_action(s, action, handler, events, keep_if_battle=True):
    """Run a Quest Mode handler (step, search, battle) for a separated character."""
    seat = action["seat"]
    p = my_turn(s, action)
    c = action.get("character")
    if c not in p["away"]:
        fail("not_separated", "character must be a separated character of yours, not %s." %
             shown(c))
    stand_in(s, seat, c)
    ok = False
    try:
        handler(s, action, events)
        ok = True
    finally:
        if not (ok and keep_if_battle and p["battle"] is not None):
            stand_back(s, seat)


def away_step(s, action, events):
    """A step of a separated character: its own movement (its MVM, its items, Steady Pace)."""
    seat = action["seat"]
    p = s.players[seat]
    to = action.get("to")
    if not core.is_xy(to):
        fail("off_the_map", "to must be a cell [x, y] of the 7 x 7 map (0 to 6), not %s." %
             shown(to))
    c = core.index(to)
    if c not in core.NEIGHBOURS[p["cell"]]:
        fail("not_adjacent", "You move one step at a time, to a location next to yours.")
    _turn_phase(s, "move")
    allow = core.movement(s, seat) + s.turn["mvm"]
    if p["stand_in"]["steps"] >= allow:
        fail("no_movement_left", "%s has moved %d spaces this turn." % (
            name_of(s, p["active"]), allow))
    if s.cells[c] is None and not s.decks["locations"]:
        fail("no_locations", "The location deck is empty: you can only move onto explored "
             "locations.")
    s.turn["phase"] = "move"
    p["stand_in"]["steps"] += 1
    old = p["cell"]
    p["cell"] = c
    _moved_off(s, seat, old)
    log(events, "moved", seat=seat, to=core.xy(c), character=p["active"])
    if s.cells[c] is None:
        lid = core.draw(s, "locations", "location deck")
        place_location(s, c, lid, events, seat)
    enter(s, seat, c, events)


def away_movement(s, seat, c):
    """A separated character's movement this turn (what away_step allows), and its steps."""
    p = s.players[seat]
    mv = core.char(s, c)["movement"] + core.team_bonus(s, seat, "wild_ones") + s.turn["mvm"]
    for it in p["equipped"].get(c, []):
        card = core.item(s, it)
        mv += card["mvm"] + (card["owner_bonus"]["mvm"] if card["owner"] == c else 0)
    return mv, p["away"][c]["steps"]
