"""Fairytale Games Battle Mode: battles between players and against automated enemies
(minions, bosses, characters from the bonus deck, the single-player hunters), several at
once, each with its own turn order, while the other players go on with their turns.

A battle: {"id", "cell", "kind": "players" | "enemy", "owner" (whose rewards), "fighters":
{fid: fighter}, "order": [{"f": fid, "vs": target seat for an automated turn}], "at" (the
turn now), "round", "await" (a player's answer the battle waits for), "quest" (a boss quest),
"flip" (an ambush location flipped when it ends), "started" (an attack was made), "stakes"
(a Conflict over a boss's rewards), "hostages"}. A player fighter's id is its seat; an
automated one's is "e1", "e2", ...
"""

from shared_rules.errors import shown
from shared_rules.fairytale import core
from shared_rules.fairytale import world
from shared_rules.fairytale.core import fail, log, name_of, seat_words


# ---------------------------------------------------------------- finding things

def of_seat(s, seat):
    bid = s.players[seat]["battle"]
    if bid is None:
        return None
    return by_id(s, bid)


def by_id(s, bid):
    for b in s.battles:
        if b["id"] == bid:
            return b
    return None


def fighting(b):
    return [f for f in sorted(b["fighters"]) if b["fighters"][f]["out"] is None]


def is_auto(f):
    return "auto" in f


def hostile(s, b, a, c):
    if a == c:
        return False
    fa, fc = b["fighters"][a], b["fighters"][c]
    if is_auto(fa) and is_auto(fc):
        return False
    if is_auto(fa) or is_auto(fc):
        return True
    pa, pc = s.players[fa["seat"]], s.players[fc["seat"]]
    return pa["ally"] is None or pa["ally"] != pc["ally"]


def turn_fighter(b):
    return b["order"][b["at"]]


def whose_move(s, b):
    """The seat the battle waits for now."""
    if b["await"] is not None:
        return b["await"]["seat"]
    e = turn_fighter(b)
    f = b["fighters"][e["f"]]
    if is_auto(f):
        return e["vs"]
    return f["seat"]


# ---------------------------------------------------------------- starting

def _player_fighter(s, seat):
    p = s.players[seat]
    return {"seat": seat, "character": p["active"], "hand": [], "out": None, "plays": 0,
            "def_next": 0, "atk_turn": 0, "unblockable": False, "extra": False,
            "no_attack": False, "stun": False, "exposed": False, "truce": False, "used": [],
            "supered": False, "shifted": False}


def _auto_fighter(s, spec):
    f = {"auto": spec["auto"], "enemy": spec["enemy"], "out": None, "poison": 0, "stun": False,
         "no_attack": False, "extra": False, "def_next": 0, "exposed": False}
    if spec["auto"] in ("character", "hunter"):
        card = core.char(s, spec["enemy"])
        f["max"] = card["health"]
        f["health"] = card["health"]
        if spec["auto"] == "hunter":
            h = _hunter(s, spec["enemy"])
            f["health"] = h["health"]
            h["battle"] = True
    else:
        card = s.cat.decks["enemies"][spec["enemy"]]
        f["max"] = card["health"]
        f["health"] = card["health"]
    return f


def _hunter(s, cid):
    for h in s.hunters:
        if h["id"] == cid:
            return h
    return None


def _new(s, cell, kind, owner, events):
    b = {"id": s.next_id, "cell": cell, "kind": kind, "owner": owner, "fighters": {},
         "order": [], "at": 0, "round": 1, "await": None, "quest": None, "flip": None,
         "started": False, "stakes": None, "hostages": [], "autos": 0}
    s.next_id += 1
    s.battles.append(b)
    return b


def _enlist(s, b, seats, events):
    """The players enter the battle: each draws 5 battle cards and leaves the turn order
    (all of them are in the battle before anyone's turn moves on)."""
    for seat in seats:
        p = s.players[seat]
        p["battle"] = b["id"]
        p["assist"] = None
        s.pending = [d for d in s.pending if not (d["seat"] == seat and
                                                  d["kind"] == "alliance")]
        b["fighters"][seat] = _player_fighter(s, seat)
        _draw_up(s, b, seat)


def _depart(s, b, seats, events):
    """Once the battle is set, its players leave the Sundial's turn order (a turn in progress
    ends: "ending your Quest Mode turn")."""
    for seat in seats:
        if s.players[seat]["battle"] == b["id"]:
            world.leave_order(s, seat, events)


def _add_auto(s, b, spec):
    b["autos"] += 1
    fid = "e%d" % b["autos"]
    b["fighters"][fid] = _auto_fighter(s, spec)
    return fid


def start_minion(s, seats, enemy, initiated, events, quest=None, flip=None):
    """A minion or boss against the players in `seats` (an ambush when not initiated)."""
    card = s.cat.decks["enemies"][enemy]
    return start_auto(s, seats, {"auto": card["kind"], "enemy": enemy}, initiated, events,
                      quest, flip)


def start_character(s, seat, cid, initiated, events):
    """Ambushing a character drawn from the bonus deck: it fights as an automated character.
    In adventurer mode the whole party fights it."""
    seats = [seat]
    p = s.players[seat]
    if p["ally"] is not None:
        seats = [q for q in s.allies[p["ally"]]["members"] if world.in_quest_mode(s, q)]
    return start_auto(s, seats, {"auto": "character", "enemy": cid}, initiated, events)


def start_auto(s, seats, spec, initiated, events, quest=None, flip=None):
    if isinstance(seats, str):
        seats = [seats]
    cell = core.cell_of(s, seats[0])
    b = _new(s, cell, "enemy", seats[0], events)
    b["quest"] = quest
    b["flip"] = flip
    e = _add_auto(s, b, spec)
    for q in seats:
        pair = [{"f": q, "vs": None}, {"f": e, "vs": q}]
        b["order"].extend(pair if initiated else [pair[1], pair[0]])
    _enlist(s, b, seats, events)
    log(events, "battle_begins", battle=b["id"], seats=list(seats), enemy=spec["enemy"],
        first=seats[0] if initiated else spec["enemy"],
        text="Battle: %s against %s." % (", ".join([seat_words(s, q) for q in seats]),
                                         name_of(s, spec["enemy"])))
    _begin_turn(s, b, events)
    _depart(s, b, seats, events)
    return b


def start_players(s, attacker, defenders, events):
    """A player initiates battle against a player (or an Ally Party's token: "they are trying to
    ambush the entire party")."""
    cell = core.cell_of(s, attacker)
    b = _new(s, cell, "players", attacker, events)
    for q in defenders:
        b["order"].extend([{"f": attacker, "vs": None}, {"f": q, "vs": None}])
    _enlist(s, b, [attacker] + list(defenders), events)
    log(events, "battle_begins", battle=b["id"], seats=[attacker] + list(defenders),
        first=attacker, text="Battle: %s attacks %s." % (
            seat_words(s, attacker), " and ".join([seat_words(s, q) for q in defenders])))
    world.trigger(s, attacker, "ambushed_player", events)
    _begin_turn(s, b, events)
    _depart(s, b, [attacker] + list(defenders), events)
    return b


def initiate(s, action, events):
    """Quest Mode, Action Phase: start a battle with a player on your location (further with
    Hunting), an Ally Party's token, or a single-player hunter."""
    seat = action["seat"]
    p = world.my_turn(s, action)
    world._turn_phase(s, "action")
    target = action.get("target")
    here = core.cell_of(s, seat)
    h = _hunter(s, target) if isinstance(target, str) else None
    if h is not None and h["state"] == "hunting":
        if h["cell"] != here:
            fail("not_here", "%s is not on your location." % name_of(s, target))
        start_auto(s, [seat], {"auto": "hunter", "enemy": target}, True, events)
        return
    if s.options["mode"] == "adventurer":
        fail("no_player_battles", "Adventurers are one party: they do not fight each other.")
    if target in s.allies:
        defenders = [q for q in s.allies[target]["members"] if world.in_quest_mode(s, q)]
        where = s.allies[target]["cell"]
    elif target in s.players and target != seat:
        defenders = [target]
        where = core.cell_of(s, target)
    else:
        fail("no_such_target", "target must be another player, an Ally Party or a hunter, not "
             "%s." % shown(target))
    if not defenders or not all([world.in_quest_mode(s, q) for q in defenders]):
        fail("not_available", "They are not in Quest Mode now.")
    if p["ally"] is not None and p["ally"] in [s.players[q]["ally"] for q in defenders]:
        fail("allies", "You do not battle your own Ally Party; dissolve it first.")
    reach = core.team_bonus(s, seat, "mercenaries")
    if where != here:
        dist = world.paths_from(s, here).get(where)
        if not reach or dist is None or dist[0] > reach:
            fail("not_here", "You may only initiate battle with a player on your location%s." %
                 (" or up to %d spaces away" % reach if reach else ""))
    for q in defenders:
        for pr in s.players[q]["protect"]:
            if pr["from"] == seat and pr["cell"] == where:
                fail("protected", "%s escaped you: not for %d more turns, or until they move." %
                     (seat_words(s, q), pr["turns"]))
    start_players(s, seat, defenders, events)


def join(s, action, events):
    """"While on the same location as a player entering battle, you may choose to join the
    battle": the joiner's turn follows the last offensive character."""
    seat = action["seat"]
    world.my_turn(s, action)
    world._turn_phase(s, "action")
    b = by_id(s, action.get("battle"))
    if b is None or b["cell"] != core.cell_of(s, seat):
        fail("no_battle_here", "battle must be a battle on your location, not %s." % shown(
            action.get("battle")))
    if b["stakes"] is not None:
        fail("conflict", "A Conflict is for its Ally Party alone.")
    at = b["at"] + 1
    autos = [f for f in fighting(b) if is_auto(b["fighters"][f])]
    entries = [{"f": seat, "vs": None}]
    if autos:
        entries.append({"f": autos[0], "vs": seat})
    b["order"][at:at] = entries
    _enlist(s, b, [seat], events)
    b["fighters"][seat]["joined"] = True
    log(events, "joins_battle", seat=seat, battle=b["id"],
        text="%s joins the battle." % seat_words(s, seat))
    world.trigger(s, seat, "joined_battle", events)
    _depart(s, b, [seat], events)


def assist(s, action, events):
    """"While sharing the same location as the player(s) in battle, you may choose to Assist by
    stating your intention during your Planning Phase"."""
    seat = action["seat"]
    p = world.my_turn(s, action)
    if s.turn["phase"] not in ("strategy1", "strategy2"):
        fail("not_now", "You state that you assist in a strategy phase.")
    b = by_id(s, action.get("battle"))
    if b is None or b["cell"] != core.cell_of(s, seat):
        fail("no_battle_here", "battle must be a battle on your location, not %s." % shown(
            action.get("battle")))
    if p["assist"] == b["id"]:
        fail("assisting", "You already assist that battle.")
    # Decision (the __init__ docstring, ASSIST AND JOIN): one statement a turn.
    if "assist" in s.turn["used"]:
        fail("assisted", "You have stated whom you assist this turn.")
    s.turn["used"].append("assist")
    p["assist"] = b["id"]
    log(events, "assists", seat=seat, battle=b["id"],
        text="%s assists the battle." % seat_words(s, seat))


# ---------------------------------------------------------------- turns

def _draw_battle_card(s):
    cid = core.draw(s, "battle", "battle deck")
    if cid is None and s.decks["battle_discard"]:
        s.decks["battle"] = s.decks["battle_discard"]
        s.decks["battle_discard"] = []
        s.rng = core.prng.shuffle(s.rng, s.decks["battle"])
        cid = core.draw(s, "battle", "battle deck")
    return cid


def _draw_up(s, b, seat):
    hand = b["fighters"][seat]["hand"]
    while len(hand) < core.HAND:
        cid = _draw_battle_card(s)
        if cid is None:
            return
        hand.append(cid)


def _begin_turn(s, b, events):
    """A fighter's attack turn begins: hands drawn up to 5, poison bites, a stun holds.
    Nothing more once the game is over (poison can end it here)."""
    while b in s.battles and s.status == "ongoing":
        e = turn_fighter(b)
        f = b["fighters"][e["f"]]
        if f["out"] is not None or (e["vs"] is not None and
                                    b["fighters"][e["vs"]]["out"] is not None):
            if e["vs"] is not None and f["out"] is None:
                e["vs"] = _retarget(s, b)
                if e["vs"] is not None:
                    continue
            _advance(s, b, events)
            continue
        for fid in fighting(b):
            if not is_auto(b["fighters"][fid]):
                _draw_up(s, b, fid)
        f["plays"] = 0
        f["atk_turn"] = 0
        f["unblockable"] = False
        f["used"] = []
        f["no_attack"] = f["stun"]
        f["stun"] = False
        poison = f["poison"] if is_auto(f) else s.players[f["seat"]]["poison"]
        if poison:
            log(events, "poison_bites", battle=b["id"], fighter=e["f"], n=poison)
            _lose(s, b, e["f"], poison, None, events, None)
            if b not in s.battles or f["out"] is not None:
                continue
        if is_auto(f) and f["no_attack"]:
            log(events, "stunned", battle=b["id"], fighter=e["f"])
            _advance(s, b, events)
            continue
        return


def _retarget(s, b):
    for fid in fighting(b):
        if not is_auto(b["fighters"][fid]):
            return fid
    return None


def _advance(s, b, events):
    """The next turn in the battle's order (a new round when it comes round again)."""
    n = len(b["order"])
    b["at"] = (b["at"] + 1) % n
    if b["at"] == 0:
        b["round"] += 1
        if b["id"] == min([x["id"] for x in s.battles]):
            world.battle_round_passed(s, events)


def end_attack(s, action, events):
    seat = action["seat"]
    b, f = _my_attack_turn(s, seat)
    if f["extra"]:
        f["extra"] = False
        log(events, "extra_turn", battle=b["id"], seat=seat)
        _begin_turn_same(s, b, events)
        return
    log(events, "attack_turn_ends", battle=b["id"], seat=seat)
    _advance(s, b, events)
    _begin_turn(s, b, events)


def _begin_turn_same(s, b, events):
    f = b["fighters"][turn_fighter(b)["f"]]
    f["plays"] = 0
    f["used"] = []
    for fid in fighting(b):
        if not is_auto(b["fighters"][fid]):
            _draw_up(s, b, fid)


def _my_attack_turn(s, seat):
    b = of_seat(s, seat)
    if b is None:
        fail("not_in_battle", "You are not in battle.")
    if b["await"] is not None:
        if b["await"]["seat"] == seat:
            fail("answer_first", "Answer first: %s." % await_words(s, b))
        fail("not_your_move", "The battle waits for %s." % seat_words(s, b["await"]["seat"]))
    e = turn_fighter(b)
    if e["f"] != seat:
        fail("not_your_attack_turn", "It is not your attack turn.")
    return b, b["fighters"][seat]


def await_words(s, b):
    a = b["await"]
    if a["kind"] == "defend":
        return "defend against %d ATK from %s" % (a["atk"], _fighter_words(s, b, a["from"]))
    if a["kind"] == "bid":
        return "bid traits against %s's escape" % seat_words(s, a["escaper"])
    if a["kind"] == "escape_pay":
        return "pay %d traits to escape, or stay" % a["cost"]
    if a["kind"] == "reroll":
        return "roll again (Die Again) or accept the roll"
    return a["kind"]


def _fighter_words(s, b, fid):
    f = b["fighters"][fid]
    if is_auto(f):
        return name_of(s, f["enemy"])
    return seat_words(s, f["seat"])


# ---------------------------------------------------------------- attacks and damage

def _fighting_char(s, b, fid):
    f = b["fighters"][fid]
    if is_auto(f):
        return None
    return core.char(s, f["character"])


def _weak_strong(s, b, fid):
    """(weakness, element) of a fighter."""
    f = b["fighters"][fid]
    if is_auto(f):
        if f["auto"] in ("character", "hunter"):
            c = core.char(s, f["enemy"])
        else:
            c = s.cat.decks["enemies"][f["enemy"]]
        return c["weakness"], c["element"]
    c = core.char(s, f["character"])
    return c["weakness"], c["element"]


def adjust(s, b, target, atk, element):
    """"take an additional +1 ATK damage" for a weakness; "decreased by 1" for the same
    element."""
    weak, elem = _weak_strong(s, b, target)
    if element is not None and element == weak:
        atk += 1
    if element is not None and element == elem:
        atk -= 1
    return max(0, atk)


def _weapons(s, seat, fighting_char):
    """ATK and element that equipped weapons add to an attack card (Sharpening the Blades: +1
    per like character, per weapon)."""
    atk = 0
    element = None
    sharp = core.team_bonus(s, seat, "horror_show")
    for it in core.equipped_items(s, seat):
        card = core.item(s, it)
        if card["slot"] != "weapon":
            continue
        atk += card["atk"] + sharp
        if card["owner"] == fighting_char:
            atk += card["owner_bonus"]["atk"]
        if element is None and card["element"] is not None:
            element = card["element"]
    return atk, element


def _target_of(s, b, seat, action, needs_hostile=True):
    t = action.get("target")
    foes = [f for f in fighting(b) if f != seat and hostile(s, b, seat, f)]
    if t is None:
        if len(foes) == 1:
            return foes[0]
        fail("name_target", "target must name whom you attack (%s)." % ", ".join(foes))
    if t not in b["fighters"] or b["fighters"][t]["out"] is not None or t == seat:
        fail("bad_target", "target must be a fighter in your battle, not %s." % shown(t))
    if needs_hostile and t not in foes:
        fail("bad_target", "You do not attack your own allies.")
    return t


def attack(s, action, events):
    """Play an attack card (with modifier cards) against a fighter: "attack cards require you
    to spend traits"."""
    seat = action["seat"]
    b, f = _my_attack_turn(s, seat)
    if f["no_attack"]:
        fail("stunned", "You are stunned: you may not attack this turn.")
    cid = action.get("card")
    if cid not in f["hand"] or s.cat.battle_card(cid)["type"] != "attack":
        fail("not_an_attack", "card must be an attack card in your battle hand, not %s." %
             shown(cid))
    card = s.cat.battle_card(cid)
    mods = action.get("with", [])
    if not isinstance(mods, list) or len(mods) > 3:
        fail("bad_modifiers", "with must be a list of modifier cards in your battle hand.")
    statuses = []
    cost = dict(card["cost"])
    for m in mods:
        if m not in f["hand"] or m == cid or mods.count(m) > 1 or \
                s.cat.battle_card(m)["type"] != "modifier":
            fail("bad_modifiers", "%s is not a modifier card in your battle hand." % shown(m))
        mc = s.cat.battle_card(m)
        statuses.append(mc["status"])
        for k in mc["cost"]:
            cost[k] = cost.get(k, 0) + mc["cost"][k]
    target = _target_of(s, b, seat, action)
    p = s.players[seat]
    pay = core.payment(p["traits"], cost, action.get("pay"))
    core.spend(p["traits"], pay)
    for x in [cid] + mods:
        f["hand"].remove(x)
        s.decks["battle_discard"].append(x)
    atk = card["atk"] + f["atk_turn"]
    w_atk, element = _weapons(s, seat, f["character"])
    atk += w_atk
    if card["kind"] == "spell":
        element = core.char(s, f["character"])["element"]
    if card["status"] is not None:
        statuses.insert(0, card["status"])
    f["plays"] += 1
    f["truce"] = False
    b["started"] = True
    log(events, "attack", battle=b["id"], seat=seat, card=cid, target=target, atk=atk,
        paid=pay, text="%s plays %s at %s." % (seat_words(s, seat), card["name"],
                                                 _fighter_words(s, b, target)))
    hit(s, b, seat, target, atk, element, statuses, f["unblockable"], events, action,
        rolls_again=_dies_again(s, b, seat))
    f["unblockable"] = False


def _dies_again(s, b, fid):
    """Die Again: the player fighting as `fid` has all five of the Horror Show."""
    f = b["fighters"][fid]
    return not is_auto(f) and core.faction_bonus(s, f["seat"], "horror_show")


def hit(s, b, attacker, target, atk, element, statuses, unblockable, events, action,
        knock=None, rolls_again=False):
    """An attack of `atk` lands on `target`: an automated enemy defends by its die or its
    flipped cards at once; a player chooses a defence card (the battle waits). With
    `rolls_again` (an attacking player's Die Again) the battle waits for the attacker to
    roll again or accept the enemy's defence die, and then its Bleed die."""
    tf = b["fighters"][target]
    atk = adjust(s, b, target, atk, element)
    if tf["exposed"]:
        unblockable = True
        tf["exposed"] = False
    if not is_auto(tf):
        b["await"] = {"kind": "defend", "seat": target, "from": attacker, "atk": atk,
                      "element": element, "statuses": list(statuses),
                      "unblockable": unblockable, "knock": knock if knock is not None
                      else (action.get("knock_back") if isinstance(action, dict) else None)}
        return
    defence = None
    if not unblockable:
        if rolls_again and tf["auto"] not in ("character", "hunter"):
            d = core.roll(s)
            log(events, "enemy_defence_die", battle=b["id"], fighter=target, die=d)
            b["await"] = {"kind": "reroll", "seat": attacker, "what": "enemy_defence",
                          "fighter": target, "atk": atk, "statuses": list(statuses), "die": d}
            return
        defence = _auto_defence(s, b, target, events)
    _auto_damage(s, b, attacker, target, atk, defence, statuses, rolls_again, events)


def _auto_damage(s, b, attacker, target, atk, defence, statuses, rolls_again, events):
    """An automated enemy's defence (None: the attack was unblockable) against `atk`."""
    tf = b["fighters"][target]
    if defence is None:
        defence = 0
    else:
        defence += tf["def_next"]
        tf["def_next"] = 0
    dmg = max(0, atk - defence)
    log(events, "defended", battle=b["id"], fighter=target, atk=atk, defence=defence,
        damage=dmg)
    if dmg > 0:
        extra = 0
        if "bleed" in statuses:
            extra = core.roll(s)
            if rolls_again:
                log(events, "bleed_die", battle=b["id"], fighter=target, die=extra)
                b["await"] = {"kind": "reroll", "seat": attacker, "what": "bleed",
                              "fighter": target, "damage": dmg, "statuses": list(statuses),
                              "die": extra}
                return
        _auto_wound(s, b, attacker, target, dmg, extra, statuses, events)


def _auto_wound(s, b, attacker, target, dmg, extra, statuses, events):
    """A landed attack on an automated enemy: Bleed's die added, Poison and Stun taken."""
    tf = b["fighters"][target]
    if "bleed" in statuses:
        log(events, "bleeds", battle=b["id"], fighter=target, extra=extra)
    if "poison" in statuses:
        tf["poison"] += 1
    if "stun" in statuses:
        tf["stun"] = True
    _lose(s, b, target, dmg + extra, None, events, attacker)


def _auto_defence(s, b, fid, events):
    f = b["fighters"][fid]
    if f["auto"] in ("character", "hunter"):
        flips = _flip(s, b, fid, events)
        return sum([s.cat.battle_card(c)["def"] for c in flips])
    return _die_defence(s, b, fid, core.roll(s), events)


def _die_defence(s, b, fid, d, events):
    """A minion's or boss's defence by the die d: "By matching the die value to the
    corresponding die symbol on the Minion card, you can see the results"."""
    f = b["fighters"][fid]
    value = s.cat.decks["enemies"][f["enemy"]]["defence"][d - 1]
    log(events, "enemy_defence_roll", battle=b["id"], fighter=fid, die=d, defence=value)
    return value


def _flip(s, b, fid, events):
    """An automated character flips as many battle cards as it has trait types."""
    f = b["fighters"][fid]
    n = len(core.char(s, f["enemy"])["traits"])
    out = []
    for _ in range(n):
        cid = _draw_battle_card(s)
        if cid is None:
            break
        out.append(cid)
        s.decks["battle_discard"].append(cid)
    log(events, "flipped", battle=b["id"], fighter=fid, cards=list(out))
    return out


def _lose(s, b, fid, n, chosen, events, killer):
    """A fighter loses n health (traits for a player); at 0 it is killed."""
    f = b["fighters"][fid]
    if is_auto(f):
        f["health"] = max(0, f["health"] - n)
        log(events, "damage", battle=b["id"], fighter=fid, n=n, health=f["health"])
        if f["health"] <= 0:
            kill(s, b, fid, killer, events)
        return
    p = s.players[f["seat"]]
    lost = core.lose_traits(p["traits"], n, None, chosen)
    log(events, "damage", battle=b["id"], fighter=fid, n=n, lost=lost,
        health=core.health(p["traits"]))
    if core.health(p["traits"]) <= 0:
        kill(s, b, fid, killer, events)


def defend(s, action, events):
    """Answer an attack: one defence card ("You may only play one defense card in reaction to 1
    attack card"), armour, reinforced items absorbing, then the traits lost."""
    seat = action["seat"]
    b = of_seat(s, seat)
    if b is None or b["await"] is None or b["await"]["kind"] != "defend" or \
            b["await"]["seat"] != seat:
        fail("nothing_to_defend", "No attack waits for your defence.")
    a = b["await"]
    f = b["fighters"][seat]
    p = s.players[seat]
    cid = action.get("card")
    defence = 0
    if cid is not None:
        if a["unblockable"]:
            fail("unblockable", "That attack cannot be defended.")
        if cid not in f["hand"] or s.cat.battle_card(cid)["type"] != "defense":
            fail("not_a_defence", "card must be a defense card in your battle hand, not %s." %
                 shown(cid))
        defence += s.cat.battle_card(cid)["def"]
    armour = [] if a["unblockable"] else _armour(s, seat, f["character"], "pierce" in
                                                  a["statuses"])
    if not a["unblockable"]:
        defence += f["def_next"] + sum([x[1] for x in armour])
    dmg = max(0, a["atk"] - defence)
    absorb = _absorb_plan(s, seat, armour, dmg, action.get("absorb"))
    lose = action.get("lose")
    if lose is not None:
        lose = core.check_traits(lose, "lose")
    # Everything is checked: now the defence happens.
    if cid is not None:
        f["hand"].remove(cid)
        s.decks["battle_discard"].append(cid)
    if not a["unblockable"]:
        f["def_next"] = 0
    b["await"] = None
    absorbed = 0
    for it in sorted(absorb):
        p["boxes"][it] += absorb[it]
        absorbed += absorb[it]
        if p["boxes"][it] >= core.item(s, it)["boxes"]:
            world.discard_item(s, seat, it, events, "its green boxes are full")
    log(events, "defended", battle=b["id"], fighter=seat, atk=a["atk"], defence=defence,
        card=cid, absorbed=absorbed, damage=dmg)
    attacker = a["from"]
    if dmg > 0:
        _statuses(s, b, seat, attacker, a["statuses"], action, events)
        if b not in s.battles:
            return
        if "bleed" in a["statuses"]:
            extra = core.roll(s)
            if attacker in b["fighters"] and _dies_again(s, b, attacker):
                # The attacker's Die Again: the Bleed die is theirs to roll again.
                log(events, "bleed_die", battle=b["id"], fighter=seat, die=extra)
                b["await"] = {"kind": "reroll", "seat": b["fighters"][attacker]["seat"],
                              "what": "bleed", "fighter": seat, "from": attacker,
                              "damage": dmg - absorbed, "lose": lose,
                              "statuses": list(a["statuses"]), "knock": a["knock"],
                              "die": extra}
                return
            _player_wound(s, b, seat, attacker, dmg - absorbed, extra, lose, a["statuses"],
                          a["knock"], events)
            return
        _player_wound(s, b, seat, attacker, dmg - absorbed, None, lose, a["statuses"],
                      a["knock"], events)
        return
    _player_wound(s, b, seat, attacker, None, None, lose, a["statuses"], a["knock"], events)


def _player_wound(s, b, seat, attacker, n, extra, lose, statuses, knock, events):
    """The end of a player's defence: when the attack landed, `n` health lost (what the items
    did not absorb) and Bleed's `extra` if it bled; a Knock Back; then the attacker's turn
    goes on. `n` is None when no damage got through the defence."""
    f = b["fighters"][seat]
    if n is not None:
        if extra is not None:
            log(events, "bleeds", battle=b["id"], fighter=seat, extra=extra)
        else:
            extra = 0
        if f["out"] is None:
            _lose(s, b, seat, n + extra, lose, events, attacker)
    if b in s.battles and f["out"] is None and "knock_back" in statuses:
        # A Knock Back is the card's ability: it needs no damage.
        _knock_back(s, b, seat, knock, events)
    if b in s.battles:
        _after_answer(s, b, attacker, events)


def _after_answer(s, b, attacker, events):
    """After a defence: an automated enemy's turn is over; a player goes on attacking."""
    end_check(s, b, events)
    if b not in s.battles:
        return
    af = b["fighters"].get(attacker)
    e = turn_fighter(b)
    if af is not None and is_auto(af) and e["f"] == attacker:
        if af["extra"] and af["out"] is None:
            af["extra"] = False
            log(events, "extra_turn", battle=b["id"], fighter=attacker)
            if b["fighters"][e["vs"]]["out"] is None:
                return
            e["vs"] = _retarget(s, b)
            if e["vs"] is not None:
                return
        _advance(s, b, events)
        _begin_turn(s, b, events)
    elif b["fighters"][e["f"]]["out"] is not None:
        _advance(s, b, events)
        _begin_turn(s, b, events)
    elif e["vs"] is not None and b["fighters"][e["vs"]]["out"] is not None:
        # The player an automated enemy's turn was for fell (to an assistant's card, say):
        # the enemy turns on another player, or its turn passes.
        _begin_turn(s, b, events)


def _armour(s, seat, fighting_char, pierced):
    """[(item, DEF, boxes left)] of the party's equipped items that defend; Pierce ignores the
    best armour."""
    p = s.players[seat]
    out = []
    for it in core.equipped_items(s, seat):
        card = core.item(s, it)
        d = card["def"]
        if card["owner"] == fighting_char:
            d += card["owner_bonus"]["def"]
        left = card["boxes"] - p["boxes"].get(it, 0) if card["boxes"] else 0
        if d or left:
            out.append((it, d, left, card["slot"]))
    if pierced:
        arm = [x for x in out if x[3] == "armor"]
        if arm:
            best = arm[0]
            for x in arm:
                if x[1] + x[2] > best[1] + best[2]:
                    best = x
            out.remove(best)
    return out


def _absorb_plan(s, seat, armour, dmg, wanted):
    """How much each reinforced item absorbs: the player's choice, else as much as they can in
    the order they were equipped."""
    room = dict([(x[0], x[2]) for x in armour if x[2]])
    if wanted is None:
        plan = {}
        left = dmg
        for it in [x[0] for x in armour if x[2]]:
            k = min(room[it], left)
            if k:
                plan[it] = k
                left -= k
        return plan
    if not isinstance(wanted, dict):
        fail("bad_absorb", "absorb must be an object of item: damage absorbed.")
    plan = {}
    total = 0
    for it in sorted(wanted):
        k = wanted[it]
        if it not in room or not core.is_int(k) or k < 0 or k > room[it]:
            fail("bad_absorb", "%s cannot absorb %s." % (shown(it), shown(k)))
        if k:
            plan[it] = k
            total += k
    if total > dmg:
        fail("bad_absorb", "Your items cannot absorb more than the %d damage." % dmg)
    return plan


def _statuses(s, b, seat, attacker, statuses, action, events):
    """"If a move has one of these status effects and you take any amount of damage"."""
    f = b["fighters"][seat]
    p = s.players[seat]
    for st in statuses:
        if st == "break":
            items = core.equipped_items(s, seat)
            if items:
                want = action.get("break")
                it = want if want in items else items[0]
                world.discard_item(s, seat, it, events, "broken")
                af = b["fighters"].get(attacker)
                if af is not None and not is_auto(af):
                    world.trigger(s, af["seat"], "broke_item", events)
        elif st == "poison":
            p["poison"] += 1
            log(events, "status", battle=b["id"], fighter=seat, status="poison")
        elif st == "stun":
            f["stun"] = True
            log(events, "status", battle=b["id"], fighter=seat, status="stun")
        elif st == "dizzy":
            s.decks["battle_discard"].extend(f["hand"])
            f["hand"] = []
            c = _draw_battle_card(s)
            if c is not None:
                f["hand"].append(c)
            log(events, "status", battle=b["id"], fighter=seat, status="dizzy")


def _knock_back(s, b, seat, wanted, events):
    """"forcing them to use a different character in [their] party of your choice"."""
    f = b["fighters"][seat]
    others = [c for c in core.party_of(s, seat) if c != f["character"] and not _held(b, seat, c)]
    if not others:
        return
    c = wanted if wanted in others else others[0]
    f["character"] = c
    s.players[seat]["active"] = c
    log(events, "knocked_back", battle=b["id"], seat=seat, character=c,
        text="%s is knocked back: %s fights on." % ("Player " + seat[1:], name_of(s, c)))


def _held(b, seat, c):
    return [h for h in b["hostages"] if h["seat"] == seat and h["character"] == c and
            not h["paid"]] != []


# ---------------------------------------------------------------- the automated enemy's turn

def enemy_turn(s, action, events):
    """The automated enemy attacks the player whose turn with it this is: a minion or boss by
    its die ("roll a die and match the corresponding symbol"), a character by flipping as
    many battle cards as it has trait types ("one large attack")."""
    seat = action["seat"]
    b = of_seat(s, seat)
    if b is None or b["await"] is not None:
        fail("not_now", "No automated enemy waits to attack you.")
    e = turn_fighter(b)
    f = b["fighters"][e["f"]]
    if not is_auto(f) or e["vs"] != seat:
        fail("not_now", "No automated enemy waits to attack you.")
    b["started"] = True
    if f["auto"] in ("minion", "boss", "trinity"):
        d = core.roll(s)
        if core.faction_bonus(s, seat, "horror_show"):
            # Die Again: "Whenever you would roll a die, you may ignore it and roll again."
            log(events, "enemy_attack_die", battle=b["id"], fighter=e["f"], die=d)
            b["await"] = {"kind": "reroll", "seat": seat, "what": "enemy_attack",
                          "fighter": e["f"], "die": d}
            return
        _enemy_die_attack(s, b, e, seat, d, events)
        return
    _character_attack(s, b, e, f, seat, events)


def _enemy_die_attack(s, b, e, seat, d, events):
    """A minion's or boss's attack by the die d: the row of its attack table."""
    f = b["fighters"][e["f"]]
    row = s.cat.decks["enemies"][f["enemy"]]["attack"][d - 1]
    log(events, "enemy_attack_roll", battle=b["id"], fighter=e["f"], die=d, atk=row["atk"],
        status=row["status"], text="%s attacks for %d ATK." % (name_of(s, f["enemy"]),
                                                               row["atk"]))
    if row["atk"] <= 0:
        _advance(s, b, events)
        _begin_turn(s, b, events)
        return
    hit(s, b, e["f"], seat, row["atk"], s.cat.decks["enemies"][f["enemy"]]["element"],
        [row["status"]] if row["status"] else [], False, events, {})


def _character_attack(s, b, e, f, seat, events):
    """An automated character's attack turn: it flips a card per trait type."""
    flips = _flip(s, b, e["f"], events)
    atk = 0
    cost = 0
    statuses = []
    element = None
    for cid in flips:
        card = s.cat.battle_card(cid)
        t = card["type"]
        if t == "attack":
            atk += card["atk"]
            cost += sum([card["cost"][k] for k in card["cost"]])
            if card["status"] == "knock_back":
                statuses.append("poison")   # "he will ignore the Knockback ability"
            elif card["status"] is not None:
                statuses.append(card["status"])
            if card["kind"] == "spell":
                element = core.char(s, f["enemy"])["element"]
        elif t == "modifier":
            statuses.append(card["status"])
        elif t == "heal":
            d = core.roll(s)
            f["health"] = min(f["max"], f["health"] + d)
            log(events, "enemy_heals", battle=b["id"], fighter=e["f"], n=d)
        elif t == "cure":
            f["poison"] = 0
            f["stun"] = False
            f["health"] = min(f["max"], f["health"] + 1)
            log(events, "enemy_cured", battle=b["id"], fighter=e["f"])
        elif t == "tactic":
            f["extra"] = True
        elif t == "escape":
            mine, theirs = core.roll(s), core.roll(s)
            log(events, "enemy_escape_roll", battle=b["id"], fighter=e["f"], die=mine,
                against=theirs)
            if mine > theirs:
                _auto_escapes(s, b, e["f"], events)
                return
            _advance(s, b, events)
            _begin_turn(s, b, events)
            return
    if atk <= 0:
        if f["extra"]:
            f["extra"] = False
            return
        _advance(s, b, events)
        _begin_turn(s, b, events)
        return
    cost = min(cost, f["health"] - 1)
    f["health"] -= max(0, cost)
    log(events, "enemy_attack", battle=b["id"], fighter=e["f"], atk=atk, cost=cost,
        text="%s attacks for %d ATK." % (name_of(s, f["enemy"]), atk))
    hit(s, b, e["f"], seat, atk, element, statuses, False, events, {})


def _auto_escapes(s, b, fid, events):
    f = b["fighters"][fid]
    f["out"] = "escaped"
    if f["auto"] == "character":
        core.shuffle_in(s, "bonus", f["enemy"])
    elif f["auto"] == "hunter":
        h = _hunter(s, f["enemy"])
        h["health"] = f["health"]
        h["battle"] = False
    log(events, "enemy_escapes", battle=b["id"], fighter=fid,
        text="%s escapes the battle." % name_of(s, f["enemy"]))
    end_check(s, b, events)


# ---------------------------------------------------------------- other battle plays

def play(s, action, events):
    """Play a heal, cure, tactic, escape or tag-out battle card on your attack turn."""
    seat = action["seat"]
    b, f = _my_attack_turn(s, seat)
    cid = action.get("card")
    if cid not in f["hand"]:
        fail("not_in_hand", "card must be a card in your battle hand, not %s." % shown(cid))
    card = s.cat.battle_card(cid)
    t = card["type"]
    p = s.players[seat]
    if t not in ("heal", "cure", "tactic", "escape", "tag_out"):
        fail("wrong_play", "%s is not played that way (attack and defense cards have their "
             "own actions)." % card["name"])
    if t == "tactic":
        tac = pick_dormant(s, seat, action.get("tactic"))
    if t == "tag_out":
        c = _tag_choice(s, b, seat, action.get("character"))
    if t == "escape":
        _check_escape(s, b, seat, action)
    chosen = _chosen(action.get("traits")) if t == "heal" else None
    f["hand"].remove(cid)
    s.decks["battle_discard"].append(cid)
    f["plays"] += 1
    if t == "heal":
        d = core.roll(s)
        if _dies_again(s, b, seat):
            log(events, "heal_die", battle=b["id"], seat=seat, die=d)
            b["await"] = {"kind": "reroll", "seat": seat, "what": "heal", "die": d,
                          "traits": chosen}
            return
        _heal(s, b, seat, d, chosen, events)
    elif t == "cure":
        p["poison"] = 0
        f["stun"] = False
        f["no_attack"] = False
        log(events, "cured", battle=b["id"], seat=seat)
    elif t == "tactic":
        p["tactics"][tac] = True
        log(events, "tactic_enabled", seat=seat, tactic=tac)
    elif t == "tag_out":
        f["character"] = c
        p["active"] = c
        log(events, "tagged_out", battle=b["id"], seat=seat, character=c,
            text="%s tags out: %s fights on." % ("Player " + seat[1:], name_of(s, c)))
    else:
        _escape(s, b, seat, action, events)


def _heal(s, b, seat, d, chosen, events):
    """A Heal card's die: that many traits gained (of the kinds chosen), never above the
    maximum."""
    p = s.players[seat]
    got = core.gain_traits(p["traits"], d, core.max_health(s, p), None, chosen)
    log(events, "healed", battle=b["id"], seat=seat, die=d, gained=got)


def _chosen(v):
    return core.check_traits(v, "traits") if v is not None else None


def _one_of(options, wanted, empty, bad):
    """`wanted` if it is one of `options`, the first of them when it names none; refused
    with `empty` (code, sentence) when there is none to take, `bad` (code, sentence with
    a %s for the value) when it names another."""
    if wanted is None:
        if not options:
            fail(empty[0], empty[1])
        return options[0]
    if wanted not in options:
        fail(bad[0], bad[1] % shown(wanted))
    return wanted


def pick_dormant(s, seat, wanted):
    p = s.players[seat]
    dormant = [t for t in sorted(p["tactics"]) if not p["tactics"][t] and
               s.cat.tactic_owner[t] in p["party"]]
    return _one_of(dormant, wanted, ("no_dormant_tactic", "You have no dormant tactic card "
                                     "to enable."),
                   ("bad_tactic", "tactic must be a dormant tactic card of your party, not %s."))


def _tag_choice(s, b, seat, wanted):
    f = b["fighters"][seat]
    others = [c for c in core.party_of(s, seat) if c != f["character"] and
              not _held(b, seat, c)]
    if not others:
        fail("no_one_to_tag", "You cannot Tag Out with no other character in your party.")
    return _one_of(others, wanted, None, ("bad_character", "character must be another "
                                          "character of your party, not %s."))


def _check_escape(s, b, seat, action):
    bid = action.get("bid", 1)
    if not core.is_int(bid) or bid < 0:
        fail("bad_bid", "bid must be a whole number of traits, not %s." % shown(bid))
    if bid >= core.health(s.players[seat]["traits"]):
        fail("bad_bid", "You cannot bid your last point of health.")


def _escape(s, b, seat, action, events):
    """"a gamble of who wants to spend the most traits" against players; against an automated
    enemy, a die: that value + 1 in traits to leave."""
    p = s.players[seat]
    if core.faction_bonus(s, seat, "wild_ones"):
        log(events, "scatter", battle=b["id"], seat=seat)
        leave(s, b, seat, "escaped", events)
        return
    foes = [x for x in fighting(b) if hostile(s, b, seat, x)]
    players = [x for x in foes if not is_auto(b["fighters"][x])]
    if [x for x in foes if is_auto(b["fighters"][x])] or not players:
        d = core.roll(s)
        cost = d + 1
        log(events, "escape_roll", battle=b["id"], seat=seat, die=d, cost=cost)
        if cost >= core.health(p["traits"]):
            log(events, "escape_failed", battle=b["id"], seat=seat)
            return
        b["await"] = {"kind": "escape_pay", "seat": seat, "cost": cost}
        if core.faction_bonus(s, seat, "horror_show"):
            b["await"]["again"] = True
        return
    bid = action.get("bid", 1)
    b["await"] = {"kind": "bid", "seat": players[0], "escaper": seat, "bid": bid,
                  "queue": players[1:], "bids": []}
    log(events, "escape_bid", battle=b["id"], seat=seat, bid=bid)


def escape_pay(s, action, events, yes):
    seat = action["seat"]
    b = of_seat(s, seat)
    if b is None or b["await"] is None or b["await"]["kind"] != "escape_pay" or \
            b["await"]["seat"] != seat:
        fail("no_escape", "No escape waits for your payment.")
    a = b["await"]
    p = s.players[seat]
    if yes:
        pay = core.payment(p["traits"], {"any": a["cost"]}, action.get("pay"))
        core.spend(p["traits"], pay)
        b["await"] = None
        leave(s, b, seat, "escaped", events)
    else:
        b["await"] = None
        log(events, "escape_failed", battle=b["id"], seat=seat)


def counter_bid(s, action, events):
    seat = action["seat"]
    b = of_seat(s, seat)
    if b is None or b["await"] is None or b["await"]["kind"] != "bid" or \
            b["await"]["seat"] != seat:
        fail("no_bid", "No escape waits for your bid.")
    a = b["await"]
    bid = action.get("bid", 0)
    p = s.players[seat]
    if not core.is_int(bid) or bid < 0 or (bid and bid >= core.health(p["traits"])):
        fail("bad_bid", "bid must be a whole number of traits you can spend, not %s." %
             shown(bid))
    a["bids"].append([seat, bid])
    if a["queue"]:
        a["seat"] = a["queue"].pop(0)
        return
    escaper = a["escaper"]
    b["await"] = None
    best = max([x[1] for x in a["bids"]])
    pe = s.players[escaper]
    core.lose_traits(pe["traits"], min(a["bid"], core.health(pe["traits"]) - 1))
    for q, n in a["bids"]:
        core.lose_traits(s.players[q]["traits"], min(n, core.health(s.players[q]["traits"]) - 1))
    log(events, "escape_gamble", battle=b["id"], seat=escaper, bid=a["bid"], against=best)
    if a["bid"] > best:
        leave(s, b, escaper, "escaped", events)
    else:
        log(events, "escape_failed", battle=b["id"], seat=escaper)


def flee(s, action, events):
    """"Before the beginning of your attack phase, you may choose to Flee Battle": one die each;
    higher flees, lower ends the attack phase and the enemy's first attack is unblockable."""
    seat = action["seat"]
    b, f = _my_attack_turn(s, seat)
    if f["plays"]:
        fail("too_late", "You flee before your attack phase begins, not after playing cards.")
    mine, theirs = core.roll(s), core.roll(s)
    log(events, "flee_roll", battle=b["id"], seat=seat, die=mine, against=theirs)
    if mine > theirs:
        leave(s, b, seat, "fled", events)
        return
    f["plays"] = 1
    if core.faction_bonus(s, seat, "horror_show"):
        b["await"] = {"kind": "reroll", "seat": seat, "what": "flee", "against": theirs}
        return
    _flee_failed(s, b, seat, events)


def _flee_failed(s, b, seat, events):
    f = b["fighters"][seat]
    f["exposed"] = True
    log(events, "flee_failed", battle=b["id"], seat=seat,
        text="%s fails to flee: the enemy's first attack cannot be blocked." % seat_words(
            s, seat))
    _advance(s, b, events)
    _begin_turn(s, b, events)


def reroll(s, action, events, again):
    """Die Again (all five of the Horror Show): "Whenever you would roll a die, you may ignore
    it and roll again": a failed flight's die, an automated enemy's attack die, the die that
    prices an escape from an automated enemy, and inside plays a minion's or boss's defence
    die against your attack, your Bleed's die (on an automated enemy or a player) and your Heal
    card's die (each once)."""
    seat = action["seat"]
    b = of_seat(s, seat)
    a = b["await"] if b is not None else None
    if a is not None and a["kind"] == "escape_pay" and a["seat"] == seat and a.get("again"):
        if not again:
            fail("no_reroll", "Pay the escape or stay; accept_roll is for a roll waiting.")
        d = core.roll(s)
        cost = d + 1
        log(events, "escape_roll", battle=b["id"], seat=seat, die=d, cost=cost, again=True)
        if cost >= core.health(s.players[seat]["traits"]):
            b["await"] = None
            log(events, "escape_failed", battle=b["id"], seat=seat)
            return
        b["await"] = {"kind": "escape_pay", "seat": seat, "cost": cost}
        return
    if a is None or a["kind"] != "reroll" or a["seat"] != seat:
        fail("no_reroll", "No roll of yours waits for Die Again.")
    b["await"] = None
    if a["what"] in ("enemy_defence", "bleed", "heal"):
        d = core.roll(s) if again else a["die"]
        if again and a["what"] == "heal":
            log(events, "heal_die", battle=b["id"], seat=seat, die=d, again=True)
        elif again:
            log(events, a["what"] + "_die", battle=b["id"], fighter=a["fighter"], die=d,
                again=True)
        if a["what"] == "heal":
            _heal(s, b, seat, d, a["traits"], events)
        elif "from" in a:
            _player_wound(s, b, a["fighter"], a["from"], a["damage"], d, a["lose"],
                          a["statuses"], a["knock"], events)
        elif b["fighters"][a["fighter"]]["out"] is not None:
            return      # the enemy fell or left meanwhile (to an assistant's play, say)
        elif a["what"] == "enemy_defence":
            _auto_damage(s, b, seat, a["fighter"], a["atk"],
                         _die_defence(s, b, a["fighter"], d, events), a["statuses"], True,
                         events)
        else:
            _auto_wound(s, b, seat, a["fighter"], a["damage"], d, a["statuses"], events)
        return
    if a["what"] == "enemy_attack":
        d = core.roll(s) if again else a["die"]
        if again:
            log(events, "enemy_attack_die", battle=b["id"], fighter=a["fighter"], die=d,
                again=True)
        _enemy_die_attack(s, b, turn_fighter(b), seat, d, events)
        return
    if not again:
        _flee_failed(s, b, seat, events)
        return
    mine = core.roll(s)
    log(events, "flee_roll", battle=b["id"], seat=seat, die=mine, against=a["against"],
        again=True)
    if mine > a["against"]:
        leave(s, b, seat, "fled", events)
    else:
        _flee_failed(s, b, seat, events)


def truce(s, action, events):
    """"may call a truce and end the battle": every player still fighting calls it."""
    seat = action["seat"]
    b, f = _my_attack_turn(s, seat)
    if [x for x in fighting(b) if is_auto(b["fighters"][x])]:
        fail("no_truce", "An automated enemy never calls a truce.")
    f["truce"] = True
    log(events, "truce_called", battle=b["id"], seat=seat)
    if all([b["fighters"][x]["truce"] for x in fighting(b)]):
        log(events, "truce", battle=b["id"], text="The battle ends in a truce.")
        end_battle(s, b, events, "truce")
        return
    _advance(s, b, events)
    _begin_turn(s, b, events)


def signature(s, action, events):
    """"you may use a combination of battle cards to create Signature Moves": no traits spent;
    only the fighting character's moves."""
    seat = action["seat"]
    b, f = _my_attack_turn(s, seat)
    c = core.char(s, f["character"])
    k = action.get("move")
    if not core.is_int(k) or k < 0 or k > 2:
        fail("bad_move", "move must be 0, 1 or 2 (the signature move's place on the board).")
    sg = c["signatures"][k]
    use = combo_cards(s, f["hand"], sg["combo"])
    if use is None:
        fail("no_combo", "%s needs %s." % (sg["name"], " + ".join(sg["combo"])))
    _attacks_allowed(s, f, sg["effects"])
    target = _effect_target(s, b, seat, sg["effects"], action)
    for x in use:
        f["hand"].remove(x)
        s.decks["battle_discard"].append(x)
    _move_plays(s, b, f, seat, sg["effects"], target, events, action, "signature",
                sg["name"], "%s uses %s." % (seat_words(s, seat), sg["name"]))


def _move_plays(s, b, f, seat, effs, target, events, action, kind, name, text):
    """A signature or super move, paid for, is played: logged, then its effects."""
    f["plays"] += 1
    b["started"] = True
    log(events, kind, battle=b["id"], seat=seat, move=name, text=text)
    from shared_rules.fairytale import effects
    effects.run(s, seat, effs, {"mode": "battle", "battle": b["id"], "target": target,
                                "source": f["character"]}, events, action)


def combo_cards(s, hand, combo):
    """The battle cards of `hand` that make `combo` (kinds), or None."""
    use = []
    for k in combo:
        found = None
        for cid in hand:
            if cid not in use and s.cat.battle_card(cid)["kind"] == k:
                found = cid
                break
        if found is None:
            return None
        use.append(found)
    return use


def _attacks_allowed(s, f, effs):
    if f["no_attack"] and [e for e in effs if e["do"] == "damage"]:
        fail("stunned", "You are stunned: you may not attack this turn.")


def _effect_target(s, b, seat, effs, action):
    if [e for e in effs if e["who"] == "target"]:
        harmful = [e for e in effs if e["do"] in ("damage", "status", "break", "steal",
                                                  "lose", "knock_back")]
        if not harmful and action.get("target") is None:
            return seat                 # a kind effect without a target: yourself
        return _target_of(s, b, seat, action, bool(harmful))
    return None


def super_move(s, action, events):
    """"To initiate it, you must have 5 or less health": pay its traits, then its effects."""
    seat = action["seat"]
    b, f = _my_attack_turn(s, seat)
    c = core.char(s, f["character"])
    sp = c["super"]
    p = s.players[seat]
    if core.health(p["traits"]) > sp["at_most"]:
        fail("too_healthy", "%s needs %d or less health; you have %d." % (
            sp["name"], sp["at_most"], core.health(p["traits"])))
    if f["supered"]:
        # Decision (the __init__ docstring, SUPER MOVES): once in a battle.
        fail("supered", "You have used your Super Move in this battle.")
    _attacks_allowed(s, f, sp["effects"])
    target = _effect_target(s, b, seat, sp["effects"], action)
    pay = core.payment(p["traits"], sp["cost"], action.get("pay"))
    core.spend(p["traits"], pay)
    f["supered"] = True
    _move_plays(s, b, f, seat, sp["effects"], target, events, action, "super_move",
                sp["name"], "%s unleashes %s!" % (seat_words(s, seat), sp["name"]))


# ---------------------------------------------------------------- faction bonuses at the start

def mind_shift(s, action, events):
    """MIND SHIFT: "At the beginning of Battle, rearrange your enemy's trait points"."""
    seat = action["seat"]
    b = of_seat(s, seat)
    if b is None or b["started"] or not core.faction_bonus(s, seat, "dark_ones"):
        fail("not_now", "Mind Shift is for all five of the Dark Ones, before the first attack.")
    f = b["fighters"][seat]
    if f["shifted"]:
        fail("not_now", "You have used Mind Shift in this battle.")
    t = action.get("target")
    if t not in b["fighters"] or is_auto(b["fighters"][t]) or not hostile(s, b, seat, t):
        fail("bad_target", "target must be an enemy player in your battle, not %s." % shown(t))
    tr = core.check_traits(action.get("traits"), "traits")
    full = dict([(x, tr.get(x, 0)) for x in core.TRAITS])
    pt = s.players[t]["traits"]
    if core.health(full) != core.health(pt):
        fail("wrong_split", "The enemy keeps its %d points; traits adds to %d." % (
            core.health(pt), core.health(full)))
    f["shifted"] = True
    s.players[t]["traits"] = full
    log(events, "mind_shift", battle=b["id"], seat=seat, target=t)


def hostage(s, action, events):
    """UNLIKELY HOSTAGE: "At the beginning of battle, you can take one of your enemy's ally"."""
    seat = action["seat"]
    b = of_seat(s, seat)
    if b is None or b["started"] or not core.faction_bonus(s, seat, "mercenaries"):
        fail("not_now", "Unlikely Hostage is for all five Merceneries, before the first attack.")
    if [h for h in b["hostages"] if h["holder"] == seat]:
        fail("not_now", "You hold a hostage already.")
    t = action.get("target")
    if t not in b["fighters"] or is_auto(b["fighters"][t]) or not hostile(s, b, seat, t):
        fail("bad_target", "target must be an enemy player in your battle, not %s." % shown(t))
    c = action.get("character")
    tf = b["fighters"][t]
    if c not in core.party_of(s, t) or c == tf["character"]:
        fail("bad_character", "character must be an ally in the enemy's party (not the one "
             "fighting), not %s." % shown(c))
    b["hostages"].append({"holder": seat, "seat": t, "character": c, "paid": False})
    log(events, "hostage_taken", battle=b["id"], seat=seat, target=t, character=c,
        text="%s takes %s hostage." % (seat_words(s, seat), name_of(s, c)))


def ransom(s, action, events):
    seat = action["seat"]
    b = of_seat(s, seat)
    held = [h for h in (b["hostages"] if b else []) if h["seat"] == seat and not h["paid"]]
    if not held:
        fail("no_hostage", "None of your allies is held hostage.")
    p = s.players[seat]
    pay = core.payment(p["traits"], {"any": 10}, action.get("pay"))
    core.spend(p["traits"], pay)
    held[0]["paid"] = True
    log(events, "ransom_paid", battle=b["id"], seat=seat, character=held[0]["character"])


# ---------------------------------------------------------------- leaving, dying, ending

def leave(s, b, seat, how, events):
    """A player escapes or flees: out of this battle, back to Quest Mode after the current
    player; the enemy may not battle them for 2 turns on that location."""
    f = b["fighters"][seat]
    f["out"] = how
    s.decks["battle_discard"].extend(f["hand"])
    f["hand"] = []
    p = s.players[seat]
    p["battle"] = None
    world.stand_back(s, seat)
    for x in fighting(b):
        xf = b["fighters"][x]
        if not is_auto(xf) and hostile(s, b, seat, x):
            p["protect"].append({"from": xf["seat"], "turns": 2, "cell": b["cell"]})
    log(events, "left_battle", battle=b["id"], seat=seat, how=how,
        text="%s %s the battle." % (seat_words(s, seat), "escapes" if how == "escaped" else
                                    "flees"))
    world.trigger(s, seat, "escaped", events)
    world.rejoin(s, seat, events)
    _release_hostages(s, b, seat, events)
    end_check(s, b, events)
    if b in s.battles and turn_fighter(b)["f"] == seat and b["await"] is None:
        _advance(s, b, events)
        _begin_turn(s, b, events)


def kill(s, b, fid, killer, events):
    """A fighter's health reaches 0."""
    f = b["fighters"][fid]
    f["out"] = "dead"
    kf = b["fighters"].get(killer) if killer is not None else None
    kseat = kf["seat"] if kf is not None and not is_auto(kf) else None
    if b["await"] is not None and b["await"]["seat"] == (f.get("seat") or fid):
        b["await"] = None
    if is_auto(f):
        log(events, "enemy_killed", battle=b["id"], fighter=fid, enemy=f["enemy"], by=kseat,
            text="%s is defeated%s." % (name_of(s, f["enemy"]), " by " + seat_words(s, kseat)
                                        if kseat else ""))
        _auto_killed(s, b, f, kseat, events)
    else:
        seat = f["seat"]
        c = f["character"]
        s.decks["battle_discard"].extend(f["hand"])
        f["hand"] = []
        log(events, "killed", battle=b["id"], seat=seat, character=c, by=kseat,
            text="%s is killed%s." % (seat_words(s, seat), " by " + seat_words(s, kseat)
                                      if kseat else ""))
        p = s.players[seat]
        p["battle"] = None
        _release_hostages(s, b, seat, events)
        if kseat is not None:
            # A separated character's death is a character's, not a player's.
            _kill_point(s, kseat, not p["stand_in"], events)
            if seat in s.players[kseat]["former_allies"]:
                world.trigger(s, kseat, "killed_former_ally", events)
        world.character_dies(s, seat, c, events)
        if not p["out"] and p["character"] is not None:
            world.rejoin(s, seat, events)
    world.check_end(s, events)
    if s.status == "ongoing":
        end_check(s, b, events)


def _kill_point(s, seat, player, events):
    k = s.players[seat]["kills"]
    k["characters"] += 1
    if player:
        k["players"] += 1
        world.trigger(s, seat, "killed_player", events)
    world.trigger(s, seat, "killed_character", events)
    world.quest_event(s, seat, "kill", None, events)
    # Decision (the __init__ docstring, KILLS): a kill brings a Victory card while the stacks
    # hold one for it, counting the cards the kills still waiting will take.
    waiting = len([d for d in s.pending if d["kind"] == "victory"])
    if len(s.decks["alliance"]) + len(s.decks["betrayal"]) > waiting:
        s.pending.append({"seat": seat, "kind": "victory"})


def _auto_killed(s, b, f, kseat, events):
    kind = f["auto"]
    if kseat is not None:
        s.players[kseat]["defeated"] += f["max"]
    if kind == "hunter":
        h = _hunter(s, f["enemy"])
        h["state"] = "dead"
        h["battle"] = False
        if kseat is not None:
            _kill_point(s, kseat, False, events)
        return
    if kind == "character":
        s.decks["bonus_discard"].append(f["enemy"])
        if kseat is not None:
            _kill_point(s, kseat, False, events)
            world.quest_event(s, kseat, "defeat", ("character",), events)
        return
    card = s.cat.decks["enemies"][f["enemy"]]
    owners = _reward_side(s, b, kseat)
    tags = (card["id"], card["creature"], "boss" if kind in ("boss", "trinity") else "minion")
    for q in owners:
        world.quest_event(s, q, "defeat", tags, events)
        world.quest_event(s, q, "boss", card["id"], events)
        if kind in ("boss", "trinity"):
            world.trigger(s, q, "boss_defeated", events)
            if len(owners) > 1:
                world.trigger(s, q, "ally_boss", events)
    if not owners or s.status != "ongoing":
        return
    if len(owners) == 1:
        from shared_rules.fairytale import effects
        effects.run(s, owners[0], card["rewards"], {"mode": "quest", "source": card["id"]},
                    events, {})
        return
    s.pending.append({"seat": owners[0], "seats": list(owners), "among": list(owners),
                      "kind": "negotiate", "enemy": card["id"],
                      "rewards": list(range(len(card["rewards"]))), "proposal": None,
                      "accepted": []})
    log(events, "rewards_to_share", seats=list(owners), enemy=card["id"])


def _reward_side(s, b, kseat):
    """Who shares an automated enemy's rewards: the battle's owner and the members of their
    Ally Party still in the fight ("you will not receive any reward from the kill unless you
    were in an Ally Party with" them)."""
    owner = b["owner"]
    side = []
    for fid in sorted(b["fighters"]):
        f = b["fighters"][fid]
        if is_auto(f) or f["out"] == "dead":
            continue
        if f["seat"] == owner or (s.players[owner]["ally"] is not None and
                                  s.players[f["seat"]]["ally"] == s.players[owner]["ally"]):
            if f["out"] is None or f["seat"] == owner:
                side.append(f["seat"])
    return [q for q in s.seats if q in side]


def _release_hostages(s, b, seat, events):
    for h in b["hostages"]:
        if h["holder"] == seat:
            h["paid"] = True


def end_check(s, b, events):
    """The battle ends when no two fighters left are enemies."""
    if b not in s.battles:
        return
    left = fighting(b)
    for i in range(len(left)):
        for j in range(i + 1, len(left)):
            if hostile(s, b, left[i], left[j]):
                return
    end_battle(s, b, events, "over")


def end_battle(s, b, events, how):
    s.battles.remove(b)
    if b["flip"] is not None and not s.flipped[b["flip"]]:
        s.flipped[b["flip"]] = True
    for h in b["hostages"]:
        if not h["paid"] and h["character"] in s.players[h["seat"]]["party"]:
            p = s.players[h["seat"]]
            for it in list(p["equipped"].get(h["character"], [])):
                world.discard_item(s, h["seat"], it, events, "its bearer was lost")
            p["party"].remove(h["character"])
            p["equipped"].pop(h["character"], None)
            core.shuffle_in(s, "bonus", h["character"])
            log(events, "hostage_lost", seat=h["seat"], character=h["character"])
    for fid in sorted(b["fighters"]):
        f = b["fighters"][fid]
        if f["out"] is not None:
            continue
        if is_auto(f):
            if f["auto"] == "character":
                core.shuffle_in(s, "bonus", f["enemy"])
            elif f["auto"] == "hunter":
                h = _hunter(s, f["enemy"])
                h["health"] = f["health"]
                h["battle"] = False
            continue
        s.decks["battle_discard"].extend(f["hand"])
        f["hand"] = []
        s.players[f["seat"]]["battle"] = None
        world.stand_back(s, f["seat"])
    log(events, "battle_ends", battle=b["id"], how=how)
    stakes = b["stakes"]
    # "Big Bad Wolf will enter Quest Mode first, then Goldilocks": those who fought it from
    # the start, then those who joined.
    for joined in (False, True):
        for fid in sorted(b["fighters"]):
            f = b["fighters"][fid]
            if not is_auto(f) and f["out"] is None and bool(f.get("joined")) == joined:
                world.rejoin(s, f["seat"], events)
    if stakes is not None:
        _settle_conflict(s, b, stakes, events)
    world.check_end(s, events)


# ---------------------------------------------------------------- sharing rewards

MOST_PROPOSALS = 2    # splits one seat may propose in one negotiation


def propose_split(s, action, events):
    """"survivors will divvy up the rewards through negotiation": a split, each reward to one
    member, that the others accept."""
    d = _negotiation(s, action)
    split = action.get("split")
    among = d["among"]
    if not isinstance(split, list) or len(split) != len(d["rewards"]) or \
            [q for q in split if q not in among]:
        fail("bad_split", "split must give each of the %d rewards to one of %s." % (
            len(d["rewards"]), ", ".join(among)))
    if d.get("victors") and len(among) > 1 and len(split) > 1 and len(set(split)) == 1 and \
            split[0] in d["victors"]:
        fail("bad_split", "The victors of a Conflict may not take all of the rewards "
             "themselves.")
    # Decision (the __init__ docstring, SHARING REWARDS): a negotiation must end, so a seat
    # may not propose again while its own split stands, and proposes at most MOST_PROPOSALS
    # times; then it accepts a split or causes Conflict.
    if d["proposal"] is not None and d["proposal"]["by"] == action["seat"]:
        fail("own_proposal", "Your split stands: wait for the others to accept it or "
             "propose another.")
    made = dict(d.get("proposals", {}))
    if made.get(action["seat"], 0) >= MOST_PROPOSALS:
        fail("proposed_enough", "You have proposed %d splits: accept one, or cause "
             "Conflict." % MOST_PROPOSALS)
    made[action["seat"]] = made.get(action["seat"], 0) + 1
    d["proposals"] = made
    d["proposal"] = {"by": action["seat"], "split": list(split)}
    d["accepted"] = [action["seat"]]
    log(events, "split_proposed", seat=action["seat"], split=list(split))
    _maybe_settle(s, d, events)


def accept_split(s, action, events):
    d = _negotiation(s, action)
    if d["proposal"] is None:
        fail("no_proposal", "Nobody has proposed a split yet.")
    if action["seat"] in d["accepted"]:
        fail("accepted", "You have accepted this split already.")
    d["accepted"].append(action["seat"])
    log(events, "split_accepted", seat=action["seat"])
    _maybe_settle(s, d, events)


def _negotiation(s, action):
    for d in s.pending:
        if d["kind"] == "negotiate" and action["seat"] in d["seats"]:
            return d
    fail("no_negotiation", "No rewards wait to be shared with you.")


def _maybe_settle(s, d, events):
    if sorted(d["accepted"]) != sorted(d["seats"]):
        return
    s.pending.remove(d)
    _distribute(s, d["enemy"], d["rewards"], d["proposal"]["split"], events)


def _distribute(s, enemy, which, split, events):
    from shared_rules.fairytale import effects
    rewards = s.cat.decks["enemies"][enemy]["rewards"]
    for i in range(len(which)):
        q = split[i]
        if s.players[q]["out"]:
            continue
        effects.run(s, q, [rewards[which[i]]], {"mode": "quest", "source": enemy}, events, {})
    log(events, "rewards_shared", enemy=enemy, split=list(split))


def cause_conflict(s, action, events):
    """"you may cause Conflict by dissolving from your Ally Party before rewards are
    distributed, and immediately initiate battle with the Ally Party. Before Battle Initiates,
    any player who does not want to get involved may Ignore Conflict": the causer leaves the
    party, then each member still in Quest Mode faces or ignores the Conflict."""
    d = _negotiation(s, action)
    seat = action["seat"]
    problem = _conflict_problem(s, d, seat)
    if problem is not None:
        fail("no_conflict", problem)
    others = [q for q in d["among"] if q != seat and world.in_quest_mode(s, q)]
    s.pending.remove(d)
    world.leave_ally(s, seat, events, "conflict")
    world.trigger(s, seat, "conflict", events)
    world.trigger(s, seat, "dissolved", events)
    log(events, "conflict", seat=seat, against=list(others),
        text="%s causes a Conflict over the rewards." % seat_words(s, seat))
    s.pending.append({"seat": seat, "causer": seat, "seats": others, "kind": "conflict",
                      "enemy": d["enemy"],
                      "rewards": list(d["rewards"]), "faced": [], "ignored": []})


def _conflict_problem(s, d, seat):
    """Why `seat` may not cause Conflict over negotiation `d` now (a sentence), or None."""
    if not world.in_quest_mode(s, seat) or not [
            q for q in d["among"] if q != seat and world.in_quest_mode(s, q)]:
        return "There is nobody in Quest Mode to fight over the rewards."
    if s.players[seat]["ally"] is None:
        return "A Conflict is caused by leaving your Ally Party."
    if d.get("victors"):
        return "Those who did not battle may not have any objections."
    return None


def negotiators(s, d):
    """The seats of negotiation `d` that have a move now: accept the split that stands,
    propose one (not while their own stands, at most MOST_PROPOSALS), or cause Conflict. A
    seat whose own split stands and who may not fight over it waits for the others."""
    out = []
    made = d.get("proposals", {})
    by = d["proposal"]["by"] if d["proposal"] is not None else None
    for q in d["seats"]:
        if (by is not None and q not in d["accepted"]) or (
                by != q and made.get(q, 0) < MOST_PROPOSALS) or \
                _conflict_problem(s, d, q) is None:
            out.append(q)
    return out


def answer_conflict(s, action, events, face):
    """`face_conflict` or `ignore_conflict`: "Those who ignore conflict will not participate in
    battle." When everyone has answered the battle begins (the causer on offence) against
    those who face it; when nobody does, the causer takes the rewards unopposed."""
    seat = action["seat"]
    d = None
    for x in s.pending:
        # The first Conflict over rewards that names the seat: two may wait at once, and
        # they are answered in the order they began (as legal_actions offers them).
        if x["kind"] == "conflict" and seat in x["seats"]:
            d = x
            break
    if d is None or seat in d["faced"] or seat in d["ignored"]:
        fail("no_decision", "No Conflict waits for your answer.")
    (d["faced"] if face else d["ignored"]).append(seat)
    log(events, "conflict_faced" if face else "conflict_ignored", seat=seat,
        text="%s %s the Conflict." % (seat_words(s, seat), "faces" if face else "ignores"))
    if len(d["faced"]) + len(d["ignored"]) < len(d["seats"]):
        return
    s.pending.remove(d)
    causer = d["causer"]
    if not world.in_quest_mode(s, causer):
        # Decision: a causer drawn into another battle (or out) meanwhile forfeits the claim;
        # the party shares the rewards.
        left = [q for q in d["seats"] if not s.players[q]["out"]]
        log(events, "conflict_lapses", seat=causer)
        if len(left) == 1:
            _distribute(s, d["enemy"], d["rewards"], left * len(d["rewards"]), events)
        elif left:
            s.pending.append({"seat": left[0], "seats": left, "among": left,
                              "kind": "negotiate", "enemy": d["enemy"],
                              "rewards": list(d["rewards"]), "proposal": None,
                              "accepted": []})
        return
    fighters = [q for q in d["seats"] if q in d["faced"] and world.in_quest_mode(s, q)]
    if not fighters:
        _distribute(s, d["enemy"], d["rewards"], [causer] * len(d["rewards"]), events)
        return
    b = start_players(s, causer, fighters, events)
    b["stakes"] = {"enemy": d["enemy"], "rewards": list(d["rewards"]), "causer": causer,
                   "party": list(d["seats"]), "fought": fighters}


def _settle_conflict(s, b, stakes, events):
    """"If the Ally Party player is victorious, they will decide how to distribute the rewards
    (they may not take all of it themselves) within their party. Those who did not battle may
    not have any objections. If the player who caused Conflict wins, they take all of the
    rewards." The causer wins when they stand and none who fought does."""
    causer = stakes["causer"]
    cf = b["fighters"][causer]
    fought = stakes.get("fought", stakes["party"])
    if cf["out"] is None and not [q for q in fought if b["fighters"][q]["out"] is None]:
        _distribute(s, stakes["enemy"], stakes["rewards"], [causer] * len(stakes["rewards"]),
                    events)
        return
    alive = [q for q in stakes["party"] if not s.players[q]["out"] and not (
        q in b["fighters"] and b["fighters"][q]["out"] == "dead")]
    victors = [q for q in fought if q in alive]
    if not victors:
        return
    if len(alive) == 1:
        _distribute(s, stakes["enemy"], stakes["rewards"], alive * len(stakes["rewards"]),
                    events)
        return
    s.pending.append({"seat": victors[0], "seats": victors, "among": alive,
                      "victors": victors, "kind": "negotiate", "enemy": stakes["enemy"],
                      "rewards": list(stakes["rewards"]), "proposal": None, "accepted": []})
    log(events, "rewards_to_share", seats=list(victors), enemy=stakes["enemy"])
