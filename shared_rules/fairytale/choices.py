"""Fairytale Games: every legal action now, for every seat that may act, in a fixed order.

Choices with many forms are listed compactly: costs paid the default way (typed costs from
their trait, the rest from the largest traits), damage lost the same way, reinforced items
absorbing all they can, one attack per card kind (the instances are alike), a trait split
left to its default. Every listed action validates; the other forms are legal too.
"""

from shared_rules.errors import IllegalAction
from shared_rules.fairytale import battle
from shared_rules.fairytale import cards
from shared_rules.fairytale import core
from shared_rules.fairytale import effects
from shared_rules.fairytale import world


def legal_actions(state):
    s = state
    if s.status != "ongoing":
        return []
    out = []
    if s.phase == "choose":
        free = [c for c in s.cat.order["characters"] if c in s.decks["bonus"]]
        for q in s.seats:
            if s.players[q]["character"] is None:
                out.extend([{"type": "choose", "seat": q, "character": c} for c in free])
        return out
    done = set()
    for d in s.pending:
        seats = d.get("seats") or [d["seat"]]
        for q in seats:
            key = q + ":" + d["kind"]
            if key in done or (d["kind"] != "negotiate" and q in done):
                continue
            done.add(key)
            done.add(q)
            out.extend(_decision(s, q, d))
    if s.clock == "flip":
        out.append({"type": "flip_event", "seat": s.sundial})
    cs = world.current_seat(s)
    if cs is not None and not world.pending_for(s, cs):
        out.extend(_quest_turn(s, cs))
    for b in s.battles:
        q = battle.whose_move(s, b)
        out.extend(_battle_moves(s, b, q))
    return out


# ---------------------------------------------------------------- decisions

def _decision(s, q, d):
    k = d["kind"]
    p = s.players[q]
    if k == "character":
        out = []
        card = core.char(s, d["card"])
        if s.options["mode"] == "standard" and p["traits"]["persuasion"] >= card[
                "persuasion"] and len(p["party"]) < core.MAX_PARTY:
            out.append({"type": "recruit", "seat": q})
        out.append({"type": "ignore", "seat": q})
        if world.in_quest_mode(s, q):
            out.append({"type": "ambush", "seat": q})
        return out
    if k == "rummage":
        return [{"type": "keep", "seat": q}, {"type": "rummage", "seat": q}]
    if k == "peek":
        return [{"type": "keep_on_top", "seat": q}, {"type": "to_bottom", "seat": q}]
    if k == "victory":
        return [{"type": "take_victory", "seat": q, "deck": v} for v in ("alliance", "betrayal")
                if s.decks[v]]
    if k == "continue":
        left = [c for c in s.cat.order["characters"] if c != d.get("dead") and (
            c in s.decks["bonus"] or c in s.decks["bonus_discard"])]
        return [{"type": "continue", "seat": q, "character": c} for c in left]
    if k == "alliance":
        out = [{"type": "decline_alliance", "seat": q}]
        if _valid(s, {"type": "accept_alliance", "seat": q}):
            out.insert(0, {"type": "accept_alliance", "seat": q})
        return out
    if k == "conflict":
        if q in d["faced"] or q in d["ignored"]:
            return []
        return [{"type": "face_conflict", "seat": q}, {"type": "ignore_conflict", "seat": q}]
    if k == "negotiate":
        out = []
        n = len(d["rewards"])
        members = d["among"]
        if d["proposal"] is not None and q not in d["accepted"]:
            out.append({"type": "accept_split", "seat": q})
        for start in range(len(members)):
            split = [members[(start + i) % len(members)] for i in range(n)]
            a = {"type": "propose_split", "seat": q, "split": split}
            if _valid(s, a):
                out.append(a)
        a = {"type": "cause_conflict", "seat": q}
        if _valid(s, a):
            out.append(a)
        return out
    return []


def _valid(s, action):
    from shared_rules import fairytale
    return fairytale.validate(s, action) is None


# ---------------------------------------------------------------- a Quest Mode turn

def _quest_turn(s, q):
    p = s.players[q]
    t = s.turn
    ph = world.PHASES.index(t["phase"])
    here = core.cell_of(s, q)
    out = []
    # Strategy: abilities, tactics, items, action cards (the second strategy phase after an
    # action-phase action), reputation burned, assisting.
    out.extend(_uses(s, q, False))
    if p["reputation"] > 1 and core.health(p["traits"]) < core.max_health(s, p):
        t_low = core.smallest(p["traits"])
        out.append({"type": "burn", "seat": q, "trait": t_low})
    if t["phase"] in ("strategy1", "strategy2") and "assist" not in t["used"]:
        for b in s.battles:
            if b["cell"] == here and p["assist"] != b["id"]:
                out.append({"type": "assist", "seat": q, "battle": b["id"]})
    if core.team_bonus(s, q, "dark_ones"):
        for c in core.party_of(s, q):
            if c != p["character"]:
                out.append({"type": "sacrifice", "seat": q, "character": c})
    if core.faction_bonus(s, q, "fugitives") and core.health(p["traits"]) > 3 and [
            x for x in p["tactics"] if not p["tactics"][x]]:
        out.append({"type": "distraction", "seat": q})
    if t["phase"] in ("strategy1", "strategy2") and p["ally"] is None:
        for c in core.party_of(s, q):
            if c != p["active"]:
                out.append({"type": "separate", "seat": q, "character": c})
    # Movement.
    if ph <= 1:
        if world.steps_taken(s, q) < world.movement_allowed(s, q):
            for n in core.NEIGHBOURS[here]:
                if s.cells[n] is not None or s.decks["locations"]:
                    out.append({"type": "step", "seat": q, "to": core.xy(n)})
        cost = world.searchable(s, here)
        if cost is not None and not t["searched"] and (
                cost == 0 or cost < core.health(p["traits"])):
            out.append({"type": "search", "seat": q})
        for c in sorted(p["away"]):
            out.extend(_away_moves(s, q, c))
    # Action.
    if ph <= 2:
        out.extend(_actions(s, q, here))
    out.append({"type": "end_turn", "seat": q})
    return out


def _away_moves(s, q, c):
    """A separated character's steps and search ("only 1 character may search locations per
    turn")."""
    p = s.players[q]
    at = p["away"][c]["cell"]
    out = []
    allow, steps = world.away_movement(s, q, c)
    if steps < allow:
        for n in core.NEIGHBOURS[at]:
            if s.cells[n] is not None or s.decks["locations"]:
                out.append({"type": "step", "seat": q, "to": core.xy(n), "character": c})
    cost = world.searchable(s, at)
    if cost is not None and not s.turn["searched"] and (
            cost == 0 or cost < core.health(p["away"][c]["traits"])):
        out.append({"type": "search", "seat": q, "character": c})
    return out


def _actions(s, q, here):
    p = s.players[q]
    t = s.turn
    out = []
    party = core.party_of(s, q)
    for it in p["hand"]:
        if it in s.cat.decks["bonus"] and core.item(s, it)["kind"] != "action" and \
                it not in t["unequipped"]:
            for c in party:
                if world.slots_free(s, q, c) > 0:
                    out.append({"type": "equip", "seat": q, "item": it, "character": c})
    for c in party:
        for it in p["equipped"].get(c, []):
            out.append({"type": "unequip", "seat": q, "item": it})
    if not t["switched"]:
        for c in party:
            if c != p["active"]:
                out.append({"type": "switch", "seat": q, "character": c})
    if here == core.CENTRE and not t["opened"]:
        th = world.THRESHOLDS[s.options["quest_thresholds"]]
        for pile in world.QUEST_PILES + ("end",):
            need = th["boss" if pile == "end" else pile]
            if p["reputation"] >= need:
                for x in s.decks[pile]:
                    out.append({"type": "open_quest", "seat": q, "quest": x})
    for x in p["hand"]:
        if x in s.cat.decks["quests"]:
            cls = world.quest_class(s.cat.decks["quests"][x])
            same = [y for y in p["quests"] if world.quest_class(s.cat.decks["quests"][y]) == cls]
            if len(same) < core.QUEST_SLOTS[cls]:
                out.append({"type": "start_quest", "seat": q, "quest": x})
            else:
                for y in same:
                    out.append({"type": "start_quest", "seat": q, "quest": x, "replace": y})
    loc = core.location(s, here)
    for x in p["quests"]:
        g = world.stage_of(s, q, x)
        if g.get("at") == loc["id"]:
            kind = "challenge" if "boss" in g else "fulfil"
            a = {"type": kind, "seat": q, "quest": x}
            if kind == "challenge" or _valid(s, a):
                out.append(a)
    out.extend(_battle_targets(s, q, here))
    if s.options["mode"] != "adventurer":
        for b in s.battles:
            if b["cell"] == here and b["stakes"] is None:
                out.append({"type": "join", "seat": q, "battle": b["id"]})
    for n in s.npcs:
        if n["cell"] == here and n["id"] not in t["interacted"]:
            a = {"type": "interact", "seat": q, "npc": n["id"]}
            if _valid(s, a):
                out.append(a)
    if s.options["mode"] != "adventurer" and not p["away"]:
        for o in s.seats:
            if o != q and world.in_quest_mode(s, o) and core.cell_of(s, o) == here and \
                    not s.players[o]["away"] and o not in t["offered"] and (p["ally"] is None or
                                               p["ally"] != s.players[o]["ally"]):
                if len(world._ally_seats(s, q)) + len(world._ally_seats(s, o)) <= core.MAX_ALLY:
                    out.append({"type": "offer_alliance", "seat": q, "to": o})
    if p["ally"] is not None and s.options["mode"] != "adventurer":
        out.append({"type": "dissolve", "seat": q})
    for c in sorted(p["away"]):
        at = p["away"][c]["cell"]
        if at == here:
            out.append({"type": "reunite", "seat": q, "character": c})
        for o in s.seats:
            if o != q and world.in_quest_mode(s, o) and core.cell_of(s, o) == at:
                a = {"type": "battle", "seat": q, "target": o, "character": c}
                if _valid(s, a):
                    out.append(a)
    return out


def _battle_targets(s, q, here):
    p = s.players[q]
    out = []
    for h in s.hunters:
        if h["state"] == "hunting" and h["cell"] == here and not h["battle"]:
            out.append({"type": "battle", "seat": q, "target": h["id"]})
    if s.options["mode"] == "adventurer":
        return out
    units = []
    for o in s.seats:
        if o == q or not world.in_quest_mode(s, o):
            continue
        po = s.players[o]
        if p["ally"] is not None and po["ally"] == p["ally"]:
            continue
        u = po["ally"] if po["ally"] is not None else o
        if u not in units:
            units.append(u)
    for u in units:
        a = {"type": "battle", "seat": q, "target": u}
        if _valid(s, a):
            out.append(a)
    return out


def _uses(s, q, in_battle):
    """Abilities, tactics, items and action cards the seat may use now, with their targets."""
    p = s.players[q]
    out = []
    things = list(core.party_of(s, q)) + sorted([t for t in p["tactics"] if p["tactics"][t]])
    things += [c for c in p["hand"] if c in s.cat.decks["bonus"]]
    things += core.equipped_items(s, q)
    for kind in ("heal", "cure"):
        if p["tokens"][kind]:
            things.append(kind + "_token")
    if core.faction_bonus(s, q, "children_of_magic"):
        seen = set()
        for c in s.decks["bonus_discard"]:
            if c in s.cat.decks["bonus"] and core.item(s, c)["kind"] == "action" and \
                    c not in seen:
                seen.add(c)
                things.append(c)
    b = battle.of_seat(s, q)
    for cid in things:
        try:
            kind, card, effs, cost, mode = effects.usable(s, q, cid, in_battle)
        except IllegalAction:
            continue
        if not effs:
            continue
        if in_battle and mode == "quest":
            continue
        if not in_battle and mode == "battle" and p["assist"] is None:
            continue
        base = {"type": "use", "seat": q, "card": cid}
        if not [e for e in effs if e["who"] == "target"]:
            if not in_battle and mode == "battle":
                continue
            out.append(base)
            continue
        for tgt in _targets(s, q, b, effs, in_battle, mode):
            out.append(dict(base, target=tgt))
    return [a for a in out if _affordable(s, q, a)]


def _targets(s, q, b, effs, in_battle, mode):
    harmful = [e for e in effs if e["do"] in ("damage", "status", "break", "steal", "lose",
                                              "ambush", "discard", "knock_back")]
    if in_battle:
        return [f for f in battle.fighting(b) if f != q and (
            not harmful or battle.hostile(s, b, q, f))] if harmful else [q]
    here = core.cell_of(s, q)
    out = []
    if mode != "battle":
        if not harmful:
            out.append(q)
        for o in s.seats:
            if o != q and world.in_quest_mode(s, o) and core.cell_of(s, o) == here:
                out.append(o)
    p = s.players[q]
    if p["assist"] is not None and mode != "quest":
        ab = battle.by_id(s, p["assist"])
        if ab is not None and ab["await"] is None:
            out.extend(battle.fighting(ab))
    return out


def _affordable(s, q, a):
    return _valid(s, a)


# ---------------------------------------------------------------- battles

def _battle_moves(s, b, q):
    p = s.players[q]
    a = b["await"]
    f = b["fighters"].get(q)
    if a is not None:
        if a["kind"] == "defend":
            out = [{"type": "defend", "seat": q}]
            if not a["unblockable"]:
                seen = set()
                for c in f["hand"]:
                    k = s.cat.battle_card(c)["kind"]
                    if s.cat.battle_card(c)["type"] == "defense" and k not in seen:
                        seen.add(k)
                        out.append({"type": "defend", "seat": q, "card": c})
            return out
        if a["kind"] == "bid":
            h = core.health(p["traits"])
            bids = sorted(set([0, a["bid"], a["bid"] + 1]))
            return [{"type": "counter_bid", "seat": q, "bid": n} for n in bids if n == 0 or n < h]
        if a["kind"] == "escape_pay":
            out = [{"type": "pay_escape", "seat": q}, {"type": "stay", "seat": q}]
            if a.get("again"):
                out.append({"type": "reroll", "seat": q})
            return out
        if a["kind"] == "reroll":
            return [{"type": "reroll", "seat": q}, {"type": "accept_roll", "seat": q}]
        return []
    e = battle.turn_fighter(b)
    tf = b["fighters"][e["f"]]
    if battle.is_auto(tf):
        return [{"type": "enemy_turn", "seat": q}]
    out = []
    foes = [x for x in battle.fighting(b) if x != q and battle.hostile(s, b, q, x)]
    h = core.health(p["traits"])
    if not f["no_attack"]:
        attacks = []
        mods = []
        seen = set()
        for c in f["hand"]:
            card = s.cat.battle_card(c)
            if card["kind"] in seen:
                continue
            seen.add(card["kind"])
            if card["type"] == "attack":
                attacks.append(c)
            elif card["type"] == "modifier":
                mods.append(c)
        for c in attacks:
            for m in [None] + mods:
                for tgt in foes:
                    a_ = {"type": "attack", "seat": q, "card": c, "target": tgt}
                    if m is not None:
                        a_["with"] = [m]
                    if _can_pay(s, q, c, m):
                        out.append(a_)
    c = core.char(s, f["character"])
    for k in range(3):
        sg = c["signatures"][k]
        if battle.combo_cards(s, f["hand"], sg["combo"]) is None:
            continue
        out.extend(_with_targets(s, b, q, {"type": "signature", "seat": q, "move": k},
                                 sg["effects"], foes, f))
    sp = c["super"]
    if h <= sp["at_most"] and not f["supered"] and cards.cost_total(sp["cost"]) < h:
        out.extend(_with_targets(s, b, q, {"type": "super", "seat": q}, sp["effects"], foes, f))
    seen = set()
    for cid in f["hand"]:
        card = s.cat.battle_card(cid)
        if card["type"] in ("heal", "cure", "tactic", "escape", "tag_out") and \
                card["kind"] not in seen:
            seen.add(card["kind"])
            a_ = {"type": "play", "seat": q, "card": cid}
            if _valid(s, a_):
                out.append(a_)
    out.extend(_uses(s, q, True))
    if f["plays"] == 0:
        out.append({"type": "flee", "seat": q})
    if foes and not [x for x in foes if battle.is_auto(b["fighters"][x])]:
        out.append({"type": "truce", "seat": q})
    if not b["started"]:
        for x in foes:
            if core.faction_bonus(s, q, "dark_ones") and not f["shifted"] and \
                    not battle.is_auto(b["fighters"][x]):
                tot = core.health(s.players[x]["traits"])
                out.append({"type": "mind_shift", "seat": q, "target": x,
                            "traits": {"persuasion": tot}})
            if core.faction_bonus(s, q, "mercenaries") and not b["hostages"] and \
                    not battle.is_auto(b["fighters"][x]):
                for ally in core.party_of(s, x):
                    if ally != b["fighters"][x]["character"]:
                        out.append({"type": "hostage", "seat": q, "target": x,
                                    "character": ally})
    if [hh for hh in b["hostages"] if hh["seat"] == q and not hh["paid"]] and h > 10:
        out.append({"type": "ransom", "seat": q})
    out.append({"type": "end_attack", "seat": q})
    return out


def _can_pay(s, q, c, m):
    cost = dict(s.cat.battle_card(c)["cost"])
    if m is not None:
        for k, v in s.cat.battle_card(m)["cost"].items():
            cost[k] = cost.get(k, 0) + v
    try:
        core.payment(s.players[q]["traits"], cost, None)
    except IllegalAction:
        return False
    return True


def _with_targets(s, b, q, base, effs, foes, f):
    if f["no_attack"] and [e for e in effs if e["do"] == "damage"]:
        return []
    if not [e for e in effs if e["who"] == "target"]:
        return [base]
    harmful = [e for e in effs if e["do"] in ("damage", "status", "break", "steal", "lose",
                                              "knock_back")]
    if harmful:
        return [dict(base, target=x) for x in foes]
    return [dict(base, target=x) for x in battle.fighting(b)]
