"""Fairytale Games on the table: its places, its pieces and what the game says should lie where.

The table (host/games/fairytale/layout.toml):

- the map: the 7 x 7 cells [x, y] as the engine names them (shared_rules/fairytale), the
  Dragon Inn at [3, 3] on a tile of its own, read by four readers (hardware/stacks.md);
- the deck readers, a tile of five cells in column 7 beside the map: the event deck's reader
  [7, 6] (the Sundial lays the day's event card there), the bonus deck's [7, 5] (a character
  drawn waits there for its drawer's decision), the quest piles' [7, 4] easy, [7, 3] medium
  and [7, 2] boss and End Game (a quest opened at the Dragon Inn is laid on its pile's reader);
- a card reader in front of each seat (two seat tiles: seats 1-5 and 6-10);
- the dice tray: the two six-sided dice ("die:1:F", "die:2:F"), in any of its pockets.

Tags: every card is "fairytale:<id>" (location, event, bonus, character, NPC, quest, victory
and battle cards, each battle card by its own instance id); a token is "fairytale-token:<id>"
(a character's or an NPC's), and the book's poison, wolf and potion tokens are props
("fairytale-token:poison-1"): the host keeps poison and potions, so a prop lies anywhere and
means nothing to the game.

A player's token on the map is the token of the character who leads their party; a separated
character has its own token where it stands; an Ally Party is one token, its first member's
leader's; a revealed single-player hunter and every NPC on the map have theirs.
"""

from shared_rules import fairytale as ft
from shared_rules.fairytale import battle, cards, core, world

CARD = "fairytale:"
TOKEN = "fairytale-token:"
DIE_ITEMS = ("die:1:", "die:2:")   # the game's two six-sided dice
POCKETS = 2                          # the tray's pockets the game uses (of its three)
SIZE = core.SIZE
MAP = frozenset((x, y) for x in range(SIZE) for y in range(SIZE))
INN = (3, 3)
EVENTS, BONUS, EASY, MEDIUM, BOSS = (7, 6), (7, 5), (7, 4), (7, 3), (7, 2)
DECK_CELLS = (EVENTS, BONUS, EASY, MEDIUM, BOSS)
PILE_CELL = {"easy": EASY, "medium": MEDIUM, "boss": BOSS, "end": BOSS}
DECK_WORDS = {EVENTS: "the event deck's reader", BONUS: "the bonus deck's reader",
              EASY: "the easy quests' reader", MEDIUM: "the medium quests' reader",
              BOSS: "the boss quests' reader"}
SEAT = "seat"
# The book's tokens that are the players' memory aids, not the game's pieces.
PROPS = (["poison-%d" % n for n in range(1, 11)] + ["wolf-%d" % n for n in range(1, 5)] +
         ["heal-%d" % n for n in range(1, 6)] + ["cure-%d" % n for n in range(1, 6)])
PROP_ITEMS = frozenset(TOKEN + p for p in PROPS)

_catalog = []


def catalog():
    """The shipped catalog (read once)."""
    if not _catalog:
        _catalog.append(cards.load_catalog(None))
    return _catalog[0]


def xy(cell):
    return "[%d, %d]" % (cell[0], cell[1])


def cell_of(i):
    return tuple(core.xy(i))


def seat_number(state, seat):
    return state.seats.index(seat) + 1


def seat_of_number(state, n):
    return state.seats[n - 1] if isinstance(n, int) and 1 <= n <= len(state.seats) else None


def player_words(state, seat):
    """A seat in words: "Player 2"."""
    return "Player %s" % seat[1:]


def reader_words(state, n):
    seat = seat_of_number(state, n)
    return "%s's card reader" % player_words(state, seat) if seat else \
        "the card reader of seat %d" % n


def place_words(state, place):
    """A map cell "[2, 3]", a deck reader, or a seat's card reader."""
    if place[0] == SEAT:
        return reader_words(state, place[1])
    if place in DECK_WORDS:
        return DECK_WORDS[place]
    if place == INN:
        return "the Dragon Inn [3, 3]"
    return xy(place)


def name(state, cid):
    """A card's (or token's) name as printed."""
    return core.name_of(state, cid)


def item_words(state, item):
    """An item of the table in words: "Heavy Attack", "Captain Hook's token"."""
    if item.startswith(TOKEN):
        what = item[len(TOKEN):]
        if item in PROP_ITEMS:
            return "a %s token" % what.split("-")[0]
        words = name(state, what)
        if words.startswith("The "):
            words = "the " + words[4:]      # "the Gingerbread Man's token"
        return "%s's token" % words
    if item.startswith(CARD):
        return name(state, item[len(CARD):])
    if item.startswith("die:"):
        return "a die showing %s" % item.split(":")[-1]
    return item


def card_id(item):
    return item[len(CARD):] if item.startswith(CARD) else None


# ---------------------------------------------------------------- the tokens

def tokens(state):
    """token item -> {"cell", "seat" (who moves it, None: nobody), "character" (a separated
    character's step names it), "unit" (an Ally Party's id), "words"}: every token the map
    should show now."""
    s = state
    out = {}
    if s.phase == "choose":
        return out
    for q in s.seats:
        p = s.players[q]
        if p["out"] or not p["entered"] or p["character"] is None:
            continue
        aways = p["away"]
        main_active, main_cell = p["active"], p["cell"]
        si = p.get("stand_in")
        if si:
            main_active, main_cell = si["main"]["active"], si["main"]["cell"]
            aways = si["main"]["away"]
            out[TOKEN + p["active"]] = {"cell": cell_of(p["cell"]), "seat": q,
                                        "character": p["active"], "unit": None}
        if p["ally"] is None and main_active is not None:
            out[TOKEN + main_active] = {"cell": cell_of(main_cell), "seat": q,
                                        "character": None, "unit": None}
        for c in sorted(aways):
            if "cell" in aways[c]:
                out[TOKEN + c] = {"cell": cell_of(aways[c]["cell"]), "seat": q,
                                  "character": c, "unit": None}
    for a in sorted(s.allies):
        ally = s.allies[a]
        members = [q for q in ally["members"] if not s.players[q]["out"]]
        if not members:
            continue
        lead = s.players[members[0]]["active"]
        if lead is not None:
            out[TOKEN + lead] = {"cell": cell_of(ally["cell"]), "seat": None,
                                 "character": None, "unit": a}
    for n in s.npcs:
        out[TOKEN + n["id"]] = {"cell": cell_of(n["cell"]), "seat": None, "character": None,
                                "unit": None}
    for h in s.hunters:
        if h["state"] == "hunting" and h["cell"] >= 0:
            out[TOKEN + h["id"]] = {"cell": cell_of(h["cell"]), "seat": None,
                                    "character": None, "unit": None}
    for item in out:
        out[item]["words"] = item_words(s, item)
    return out


def movable(state, seat):
    """The tokens `seat` moves on its Quest Mode turn now: item -> the step's "character"
    (None for the main token or its Ally Party's). Empty when it is not its turn."""
    s = state
    if s.status != "ongoing" or s.phase != "play" or world.current_seat(s) != seat:
        return {}
    p = s.players[seat]
    out = {}
    for item, t in tokens(s).items():
        if t["seat"] == seat or (t["unit"] is not None and t["unit"] == p["ally"]):
            out[item] = t["character"]
    return out


def expected(state):
    """place -> sorted items: what the map and the deck readers should show now."""
    s = state
    out = {}
    for i in range(core.NCELLS):
        if s.cells[i] is not None:
            out.setdefault(cell_of(i), []).append(CARD + s.cells[i])
    for item, t in tokens(s).items():
        out.setdefault(t["cell"], []).append(item)
    if s.event is not None:
        out.setdefault(EVENTS, []).append(CARD + s.event)
    for d in s.pending:
        if d["kind"] == "character":
            out.setdefault(BONUS, []).append(CARD + d["card"])
    for place in out:
        out[place].sort()
    return out


# ---------------------------------------------------------------- cards played on a reader

# The kinds of bonus card played from the quest hand (laid on the seat's reader); an
# equipped item's ability, a character's ability and a tactic card are choices (the phone).
FROM_HAND = ("action", "disposable")
# Actions whose cards are laid on the seat's card reader.
READER_PLAYS = ("attack", "signature", "play", "defend", "use", "equip", "start_quest",
                "choose", "continue", "take_victory")
# Actions a seat starts with a button (or a tap on its reader) and the dice then thrown.
THROWS = {"roll": "enemy_turn", "flee": "flee"}


def laid_from_hand(card):
    """True for a `use` card laid on the reader: an action card or a disposable item."""
    c = catalog().decks["bonus"].get(card)
    return c is not None and c["kind"] in FROM_HAND


def fighter(state, seat):
    b = battle.of_seat(state, seat)
    if b is None:
        return None, None
    return b, b["fighters"].get(seat)


def reader_cards(state, action):
    """The cards `action` lays on its seat's card reader (ids, in the order laid), or None
    for an action made otherwise (a step, a choice on the phone, dice). A victory card is
    the card read (its "cards")."""
    s = state
    kind = action["type"]
    if kind == "attack":
        return [action["card"]] + list(action.get("with", ()))
    if kind == "signature":
        b, f = fighter(s, action["seat"])
        if f is None or "hand" not in f:
            return None
        sg = core.char(s, f["character"])["signatures"]
        k = action.get("move")
        if not core.is_int(k) or not 0 <= k < len(sg):
            return None
        return battle.combo_cards(s, f["hand"], sg[k]["combo"])
    if kind in ("play", "defend"):
        return [action["card"]] if "card" in action else None
    if kind == "use":
        return [action["card"]] if laid_from_hand(action.get("card")) else None
    if kind == "equip":
        return [action["item"]]
    if kind == "start_quest":
        return [action["quest"]]
    if kind in ("choose", "continue"):
        return [action["character"]]
    if kind == "take_victory":
        return list(action.get("cards", ())) or None
    return None


def is_table_action(action):
    """True for an action the table shows (a token, a card laid, the dice), False for a choice
    made on the seat's phone (the bots make those at once). Decided from the action alone."""
    kind = action.get("type")
    if kind in ("step", "flip_event", "open_quest", "enemy_turn", "flee"):
        return True
    if kind == "defend":
        return "card" in action
    if kind == "use":
        return laid_from_hand(action.get("card"))
    return kind in READER_PLAYS


def holder(state, card):
    """The seat whose hand (quest hand or battle hand) holds `card`, or None."""
    s = state
    for q in s.seats:
        if card in s.players[q]["hand"]:
            return q
    for b in s.battles:
        for fid in sorted(b["fighters"]):
            f = b["fighters"][fid]
            if "hand" in f and card in f["hand"]:
                return f["seat"]
    return None


def victory_deck(card):
    v = catalog().decks["victory"].get(card)
    return v["deck"] if v is not None else None


def quest_pile(card):
    q = catalog().decks["quests"].get(card)
    return q["pile"] if q is not None else None


def kind_words(card):
    """What sort of card an id is, in words, for a sentence about where it belongs."""
    cat = catalog()
    if card in cat.decks["locations"]:
        return "a location card: it is laid on the map"
    if card in cat.decks["events"]:
        return "an event card: the Sundial lays it on the event deck's reader"
    if card in cat.decks["npcs"]:
        return "an NPC card: its token goes on the map"
    if card in cat.decks["enemies"]:
        return "an enemy"
    return None


def names_of(state, ids):
    out = [name(state, c) for c in ids]
    if len(out) <= 1:
        return "".join(out)
    return ", ".join(out[:-1]) + " and " + out[-1]


def legal(state):
    return ft.legal_actions(state)


def cost_of(s, seat, a):
    """What action `a` costs in traits ({"any": n, trait: n}), or {}."""
    kind = a["type"]
    try:
        if kind == "attack":
            cost = dict(s.cat.battle_card(a["card"])["cost"])
            for m in a.get("with", []):
                for t, n in s.cat.battle_card(m)["cost"].items():
                    cost[t] = cost.get(t, 0) + n
            return cost
        if kind == "search":
            at = core.cell_of(s, seat) if not a.get("character") else \
                s.players[seat]["away"][a["character"]]["cell"]
            n = world.searchable(s, at)
            return {"any": n} if n else {}
        if kind == "use":
            from shared_rules.fairytale import effects
            b = battle.of_seat(s, seat)
            return dict(effects.usable(s, seat, a["card"], b is not None)[3])
        if kind == "super":
            return dict(core.char(s, battle.of_seat(s, seat)["fighters"][seat][
                "character"])["super"]["cost"])
        if kind == "interact":
            return dict(s.cat.decks["npcs"][a["npc"]]["cost"])
        if kind == "pay_escape":
            return {"any": battle.of_seat(s, seat)["await"]["cost"]}
        if kind == "ransom":
            return {"any": 10}
        if kind == "distraction":
            return {"any": 3}
    except Exception:   # noqa: BLE001 (a form the engine will refuse in its own words)
        return {}
    return {}


def payments(s, seat, a):
    """The ways `seat` may pay for action `a`: [pay], the usual way (the engine's, when the
    action says none) first, then paying each trait alone and the two largest halved, up
    to five, each one the rules take; [] when it costs nothing or the rules refuse it."""
    cost = cost_of(s, seat, a)
    if not cost:
        return []
    traits = s.players[seat]["traits"]
    try:
        forms = [core.payment(traits, cost, None)]
    except Exception:   # noqa: BLE001 (the engine refuses it: the plain action says why)
        return []
    n = cost.get("any", 0)
    typed = dict((t, cost[t]) for t in cost if t != "any")
    if n:
        for t in core.TRAITS:
            pay = dict(typed)
            pay[t] = pay.get(t, 0) + n
            if pay[t] <= traits[t] and pay not in forms:
                forms.append(pay)
        if n >= 2:
            top = sorted(core.TRAITS, key=lambda t: (-traits[t], core.TRAITS.index(t)))[:2]
            pay = dict(typed)
            pay[top[0]] = pay.get(top[0], 0) + n - n // 2
            pay[top[1]] = pay.get(top[1], 0) + n // 2
            if all(pay[t] <= traits[t] for t in pay) and pay not in forms:
                forms.append(pay)
    return [pay for pay in forms[:5] if ft.validate(s, dict(a, pay=pay)) is None]


def paid_forms(s, seat, a):
    """Action `a` and, when its cost may be paid in more ways than one, the same action with
    each other way ("pay"): what the seat chooses among (the first pays the usual way)."""
    if a.get("pay") is not None:
        return [a]
    forms = payments(s, seat, a)
    return [a] + [dict(a, pay=pay) for pay in forms[1:]]


def payment_of(s, seat, a):
    """What action `a` pays, as {trait: n} ({} when it costs nothing)."""
    if a.get("pay") is not None:
        return a["pay"]
    forms = payments(s, seat, a)
    return forms[0] if forms else {}
