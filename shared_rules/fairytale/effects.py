"""Fairytale Games effects: what each verb of the catalog does (cards.VERBS), in Quest Mode or
in a battle, and the "use" action that plays abilities, tactics, items and action cards."""

from shared_rules.errors import shown
from shared_rules.fairytale import core
from shared_rules.fairytale import world
from shared_rules.fairytale.core import fail, log, name_of, seat_words


def _n(s, e):
    return core.roll(s) if e.get("n") == "die" else e.get("n", 0)


def _whom(s, seat, e, ctx):
    """The fighters (in a battle) or seats (in Quest Mode) a step touches."""
    who = e["who"]
    if who == "self":
        return [seat]
    if who == "target":
        t = ctx.get("target")
        if t is None:
            return []
        if ctx.get("battle") is None and t in s.players and s.players[t]["ally"] is not None:
            # "any effect that targets the token will affect the entire party"
            return [q for q in s.allies[s.players[t]["ally"]]["members"]
                    if world.in_quest_mode(s, q)]
        return [t]
    here = core.cell_of(s, seat)
    out = []
    for q in s.seats:
        if not world.in_quest_mode(s, q):
            continue
        if who == "all" or (q != seat and core.cell_of(s, q) == here):
            out.append(q)
    return out


def _battle(s, ctx):
    if ctx.get("battle") is None:
        return None
    from shared_rules.fairytale import battle
    return battle.by_id(s, ctx["battle"])


def run(s, seat, effects, ctx, events, action):
    """Apply effect steps for `seat`; ctx: {"mode", "battle" (id), "target" (a fighter id in a
    battle, a seat in Quest Mode), "source" (the card), "quest" (a quest's rewards)}."""
    for e in effects:
        if s.status != "ongoing":
            return
        b = _battle(s, ctx)
        if ctx.get("battle") is not None and b is None:
            return
        for t in _whom(s, seat, e, ctx):
            _step(s, seat, t, e, ctx, b, events, action)


def _fighter(b, t):
    return None if b is None else b["fighters"].get(t)


def _player_of(s, b, t):
    """The seat behind target t (a fighter id or a seat), or None for an automated fighter."""
    if b is not None and t in b["fighters"]:
        f = b["fighters"][t]
        return None if "auto" in f else f["seat"]
    return t if t in s.players else None


def _step(s, seat, t, e, ctx, b, events, action):
    from shared_rules.fairytale import battle
    verb = e["do"]
    f = _fighter(b, t)
    q = _player_of(s, b, t)
    auto = f is not None and "auto" in f
    p = s.players[q] if q is not None else None
    if verb == "gain":
        n = _n(s, e)
        if auto:
            f["health"] = min(f["max"], f["health"] + n)
            log(events, "enemy_heals", battle=b["id"], fighter=t, n=n)
            return
        chosen = core.check_traits(action["traits"], "traits") if q == seat and isinstance(
            action.get("traits"), dict) else None
        got = core.gain_traits(p["traits"], n, core.max_health(s, p), e.get("trait"), chosen)
        log(events, "gained", seat=q, gained=got)
        if q != seat:
            world.trigger(s, seat, "healed_player", events)
    elif verb == "lose":
        n = _n(s, e)
        if b is not None and f is not None:
            battle._lose(s, b, t, n, None, events, seat if seat in b["fighters"] else None)
        elif p is not None:
            lost = core.lose_traits(p["traits"], n, e.get("trait"), None, 1)
            log(events, "lost", seat=q, lost=lost)
    elif verb == "reputation":
        if p is not None:
            p["reputation"] = max(1, p["reputation"] + e["n"])
            log(events, "reputation", seat=q, n=e["n"], reputation=p["reputation"])
    elif verb == "max_health":
        if p is not None:
            p["max_bonus"] += e["n"]
            core.gain_traits(p["traits"], e["n"], core.max_health(s, p))
            log(events, "max_health", seat=q, n=e["n"])
    elif verb == "cure":
        if auto:
            f["poison"] = 0
            f["stun"] = False
        elif p is not None:
            p["poison"] = 0
            if f is not None:
                f["stun"] = False
                f["no_attack"] = False
            log(events, "cured", seat=q)
    elif verb == "status":
        _status(s, seat, t, e["status"], b, f, p, q, events)
    elif verb == "damage":
        n = _n(s, e)
        if b is not None and f is not None:
            statuses = [e["status"]] if e.get("status") else []
            attacker = seat if seat in b["fighters"] else None
            if attacker is not None:
                n += b["fighters"][attacker]["atk_turn"]
            battle.hit(s, b, attacker, t, n, e.get("element"), statuses, e.get("unblockable"),
                       events, action)
        elif p is not None:
            n = _quest_adjust(s, q, n, e.get("element"))
            lost = core.lose_traits(p["traits"], n, None, None, 1)
            log(events, "hurt", seat=q, by=seat, lost=lost,
                text="%s takes %d damage." % (seat_words(s, q), n))
            if e.get("status"):
                _status(s, seat, t, e["status"], None, None, p, q, events)
    elif verb in ("defend", "atk_bonus", "extra_turn", "unblockable", "escape", "tag_out"):
        _battle_self(s, seat, verb, e, b, events, action)
    elif verb == "knock_back":
        if b is not None and f is not None and not auto:
            battle._knock_back(s, b, t, action.get("knock_back"), events)
    elif verb == "draw":
        n = _n(s, e)
        if e["deck"] == "bonus" and p is not None:
            world.draw_bonus(s, q, n, events)
        elif e["deck"] == "battle" and f is not None and not auto:
            for _ in range(n):
                c = battle._draw_battle_card(s)
                if c is not None:
                    f["hand"].append(c)
    elif verb == "movement":
        if s.turn is not None and s.turn["seat"] == q:
            s.turn["mvm"] += e["n"]
            if s.turn["allow"] is not None:
                s.turn["allow"] = max(0, s.turn["allow"] + e["n"])
    elif verb == "search":
        if p is not None and world.in_quest_mode(s, q) and \
                world.searchable(s, core.cell_of(s, q)) is not None:
            world.search(s, {"seat": q}, events, free=True)
    elif verb == "enable_tactic":
        if p is not None:
            for k in range(e["n"]):
                dormant = [x for x in sorted(p["tactics"]) if not p["tactics"][x]]
                if not dormant:
                    break
                want = action.get("tactic") if k == 0 and q == seat else None
                x = want if want in dormant else dormant[0]
                p["tactics"][x] = True
                log(events, "tactic_enabled", seat=q, tactic=x)
    elif verb == "recruit":
        if p is not None and len(p["party"]) < core.MAX_PARTY and \
                s.options["mode"] == "standard":
            chars = [c for c in s.decks["bonus_discard"] if c in s.cat.decks["characters"]]
            if chars:
                c = chars[-1]
                s.decks["bonus_discard"].remove(c)
                world.join_party(s, q, c, events)
    elif verb == "equip":
        if p is not None:
            _equip_now(s, q, action, events)
    elif verb == "break":
        if p is not None:
            items = core.equipped_items(s, q)
            if items:
                world.discard_item(s, q, items[0], events, "broken")
                if q != seat:
                    world.trigger(s, seat, "broke_item", events)
    elif verb == "steal":
        if p is not None and q != seat:
            loot = [c for c in p["hand"] if c in s.cat.decks["bonus"]]
            if loot:
                c = core.pick(s, loot)
                p["hand"].remove(c)
                s.players[seat]["hand"].append(c)
                log(events, "stolen", seat=seat, from_seat=q,
                    text="%s steals a card from %s." % (seat_words(s, seat), seat_words(s, q)))
                world.trigger(s, seat, "stole", events)
    elif verb == "summon":
        _summon(s, seat, e["npc"], events)
    elif verb == "ambush":
        if p is not None and world.in_quest_mode(s, q):
            enemy = e.get("enemy") or world.ambush_minion(s, q)
            log(events, "ambushed", seat=q, enemy=enemy,
                text="%s is ambushed by %s." % (seat_words(s, q), name_of(s, enemy)))
            battle.start_minion(s, [q], enemy, False, events)
    elif verb == "quest":
        if p is not None and s.decks[e["pile"]]:
            p["hand"].append(s.decks[e["pile"]].pop(0))
            log(events, "quest_taken", seat=q, pile=e["pile"])
    elif verb == "epic":
        if p is not None:
            c = core.draw(s, "epic", "epic items")
            if c is not None:
                p["hand"].append(c)
                log(events, "epic_item", seat=q, item=c,
                    text="%s wins %s." % (seat_words(s, q), name_of(s, c)))
    elif verb == "legendary":
        if p is not None:
            world.give_legendary(s, q, ctx.get("quest"), events)
    elif verb == "teleport":
        _teleport(s, q, e["to"], action, events)
    elif verb == "restore":
        if p is not None:
            c = core.cell_of(s, q)
            if s.flipped[c] and s.cells[c] is not None:
                s.flipped[c] = False
                s.searched[c] = 0
                log(events, "restored", cell=core.xy(c))
    elif verb in ("destroy", "change"):
        if p is not None:
            world.alter_location(s, core.cell_of(s, q), verb, events, q)
    elif verb == "protect":
        if p is not None:
            c = core.cell_of(s, q)
            for other in s.seats:
                if other != q:
                    p["protect"].append({"from": other, "turns": e["n"], "cell": c})
    elif verb == "discard":
        if p is not None:
            for _ in range(e["n"]):
                loot = [c for c in p["hand"] if c in s.cat.decks["bonus"]]
                if not loot:
                    break
                c = core.pick(s, loot)
                p["hand"].remove(c)
                s.decks["bonus_discard"].append(c)
                log(events, "discarded", seat=q)
    elif verb == "win":
        winners = [seat]
        if s.players[seat]["ally"] is not None:
            winners = list(s.allies[s.players[seat]["ally"]]["members"])
        world.finish(s, seat, "end_quest", e["epilogue"], events, winners)
    elif verb == "hook":
        _hook(s, seat, e["hook"], action, events)


def _quest_adjust(s, q, n, element):
    p = s.players[q]
    if p["active"] is None or element is None:
        return n
    c = core.char(s, p["active"])
    if element == c["weakness"]:
        n += 1
    if element == c["element"]:
        n -= 1
    return max(0, n)


def _status(s, seat, t, st, b, f, p, q, events):
    if f is not None and "auto" in f:
        if st == "poison":
            f["poison"] += 1
        elif st == "stun":
            f["stun"] = True
        return
    if p is None:
        return
    if st == "poison":
        p["poison"] += 1
    elif st == "stun" and f is not None:
        f["stun"] = True
    elif st == "dizzy" and f is not None:
        from shared_rules.fairytale import battle
        s.decks["battle_discard"].extend(f["hand"])
        f["hand"] = []
        c = battle._draw_battle_card(s)
        if c is not None:
            f["hand"].append(c)
    elif st == "break":
        items = core.equipped_items(s, q)
        if items:
            world.discard_item(s, q, items[0], events, "broken")
    log(events, "status", seat=q, status=st)


def _battle_self(s, seat, verb, e, b, events, action):
    from shared_rules.fairytale import battle
    if b is None or seat not in b["fighters"]:
        return
    f = b["fighters"][seat]
    if f["out"] is not None:
        return
    if verb == "defend":
        f["def_next"] += e["n"]
    elif verb == "atk_bonus":
        f["atk_turn"] += e["n"]
    elif verb == "extra_turn":
        f["extra"] = True
    elif verb == "unblockable":
        f["unblockable"] = True
    elif verb == "escape":
        battle.leave(s, b, seat, "escaped", events)
    elif verb == "tag_out":
        others = [c for c in core.party_of(s, seat) if c != f["character"]]
        if others:
            c = action.get("character") if action.get("character") in others else others[0]
            f["character"] = c
            s.players[seat]["active"] = c
            log(events, "tagged_out", battle=b["id"], seat=seat, character=c)


def _equip_now(s, seat, action, events):
    p = s.players[seat]
    items = [c for c in p["hand"] if c in s.cat.decks["bonus"] and
             core.item(s, c)["kind"] != "action"]
    want = action.get("item")
    it = want if want in items else (items[0] if items else None)
    if it is None:
        return
    for c in core.party_of(s, seat):
        if world.slots_free(s, seat, c) > 0:
            p["hand"].remove(it)
            p["equipped"][c].append(it)
            if core.item(s, it)["boxes"]:
                p["boxes"][it] = 0
            log(events, "equipped", seat=seat, item=it, character=c)
            return


def _summon(s, seat, npc, events):
    c = core.cell_of(s, seat)
    for n in s.npcs:
        if n["id"] == npc:
            n["cell"] = c
            log(events, "npc_appears", npc=npc, cell=core.xy(c))
            return
    for deck in ("bonus", "bonus_discard"):
        if npc in s.decks[deck]:
            s.decks[deck].remove(npc)
    s.npcs.append({"id": npc, "cell": c, "last": -1})
    log(events, "npc_appears", npc=npc, cell=core.xy(c),
        text="%s appears at %s." % (name_of(s, npc), core.xy(c)))


def _teleport(s, q, to, action, events):
    if q is None or not world.in_quest_mode(s, q):
        return
    if to == "dragon_inn":
        cell = core.CENTRE
    else:
        marks = [i for i in range(core.NCELLS) if s.cells[i] is not None and
                 s.cat.decks["locations"][s.cells[i]]["kind"] == "landmark"]
        want = action.get("cell")
        cell = core.index(want) if core.is_xy(want) and core.index(want) in marks else None
        if cell is None:
            others = [i for i in marks if i != core.cell_of(s, q)]
            cell = others[0] if others else core.CENTRE
    _jump(s, q, cell, events)


def _jump(s, q, cell, events):
    if cell == core.cell_of(s, q):
        return
    world._move_token(s, q, cell, events)
    world.enter(s, q, cell, events)


def _hook(s, seat, name, action, events):
    p = s.players[seat]
    if name == "peek_bonus":
        if s.decks["bonus"]:
            s.pending.append({"seat": seat, "kind": "peek", "card": s.decks["bonus"][0]})
    elif name == "swap_traits":
        sw = action.get("swap")
        if isinstance(sw, list) and len(sw) == 2 and sw[0] in core.TRAITS and \
                sw[1] in core.TRAITS and sw[0] != sw[1]:
            a, b = sw[0], sw[1]
        else:
            a, b = core.largest(p["traits"]), core.smallest(p["traits"])
        k = min(3, p["traits"][a])
        if a != b and k:
            p["traits"][a] -= k
            p["traits"][b] += k
            log(events, "traits_swapped", seat=seat, moved=k, out_of=a, into=b)
    elif name == "vanish":
        want = action.get("cell")
        cell = core.index(want) if core.is_xy(want) and s.cells[core.index(want)] is not None \
            else core.CENTRE
        _jump(s, seat, cell, events)


# ---------------------------------------------------------------- "use": the strategy plays

def usable(s, seat, cid, in_battle):
    """(kind, card, effects, cost, mode) for something the player may use now, or fail."""
    p = s.players[seat]
    if cid in ("heal_token", "cure_token"):
        kind = cid[:4]
        if not p["tokens"][kind]:
            fail("no_token", "You have no %s potion token." % kind)
        card = [s.cat.decks["bonus"][c] for c in s.cat.order["bonus"]
                if s.cat.decks["bonus"][c]["potion"] == kind]
        if not card:
            fail("no_token", "There is no %s potion in this catalog." % kind)
        return "token", card[0], card[0]["effects"], {}, "any"
    if cid in p["party"] and cid not in p["away"]:
        c = core.char(s, cid)
        ab = c["ability"]
        if "ability:" + cid in _used(s, seat, in_battle):
            fail("used", "%s's ability is used once a turn." % c["name"])
        if _held(s, seat, cid):
            fail("held", "%s is held hostage." % c["name"])
        return "ability", ab, ab["effects"], ab["cost"], ab["mode"]
    if cid in p["tactics"]:
        tac = s.cat.decks["tactics"][cid]
        if not p["tactics"][cid]:
            fail("dormant", "%s is dormant: enable it first." % tac["name"])
        return "tactic", tac, tac["effects"], tac["cost"], tac["mode"]
    if cid in s.cat.decks["bonus"]:
        card = core.item(s, cid)
        owner = world.equipped_by(p, cid)
        cost = dict(card["cost"])
        if card["kind"] != "action" and cost.get("magic"):
            cost["magic"] = max(0, cost["magic"] - core.team_bonus(s, seat, "children_of_magic"))
        if card["kind"] == "action":
            if cid in p["hand"]:
                return "action", card, card["effects"], cost, card["mode"]
            if cid in s.decks["bonus_discard"] and core.faction_bonus(s, seat,
                                                                      "children_of_magic"):
                return "spellcaster", card, card["effects"], cost, card["mode"]
            fail("not_in_hand", "%s is not in your quest hand." % card["name"])
        if not card["effects"]:
            fail("nothing_to_use", "%s has no ability to use." % card["name"])
        if card["kind"] == "disposable":
            if owner is None and (in_battle or cid not in p["hand"]):
                fail("not_equipped", "A disposable item must be equipped to use it in battle.")
            return "disposable", card, card["effects"], cost, card["mode"]
        if owner is None:
            fail("not_equipped", "%s must be equipped to use it." % card["name"])
        if "item:" + cid in _used(s, seat, in_battle):
            fail("used", "%s's ability is used once a turn." % card["name"])
        return "equipment", card, card["effects"], cost, card["mode"]
    fail("nothing_to_use", "card must be an ability of your party, an enabled tactic, an item "
         "or an action card of yours, not %s." % shown(cid))


def _held(s, seat, c):
    from shared_rules.fairytale import battle
    b = battle.of_seat(s, seat)
    return b is not None and battle._held(b, seat, c)


def _used(s, seat, in_battle):
    if in_battle:
        from shared_rules.fairytale import battle
        return battle.of_seat(s, seat)["fighters"][seat]["used"]
    return s.turn["used"]


def use(s, action, events):
    """Use a character ability, an enabled tactic, an item or an action card: in a strategy
    phase of your turn, or on your attack turn in battle (a battle's cards only there)."""
    from shared_rules.fairytale import battle
    seat = action["seat"]
    p = s.players[seat]
    b = battle.of_seat(s, seat)
    in_battle = b is not None
    if in_battle:
        battle._my_attack_turn(s, seat)
    else:
        world.my_turn(s, action)
    cid = action.get("card")
    kind, card, effs, cost, mode = usable(s, seat, cid, in_battle)
    ctx = {"mode": "battle" if in_battle else "quest", "source": cid}
    target_battle = b
    if not in_battle:
        t = action.get("target")
        assisted = battle.by_id(s, p["assist"]) if p["assist"] is not None else None
        if assisted is not None and t is not None and t in assisted["fighters"] and \
                assisted["fighters"][t]["out"] is None:
            if assisted["await"] is not None:
                fail("battle_waits", "That battle waits for %s." % seat_words(
                    s, assisted["await"]["seat"]))
            ctx = {"mode": "battle", "source": cid, "battle": assisted["id"], "target": t}
            target_battle = assisted
    if ctx["mode"] == "battle" and mode == "quest":
        fail("wrong_mode", "%s is used in Quest Mode only." % card["name"])
    if ctx["mode"] == "quest" and mode == "battle":
        fail("wrong_mode", "%s is used in Battle Mode only." % card["name"])
    if in_battle:
        f = b["fighters"][seat]
        battle._attacks_allowed(s, f, effs)
        ctx["battle"] = b["id"]
        ctx["target"] = battle._effect_target(s, b, seat, effs, action)
    elif "target" not in ctx:
        ctx["target"] = _quest_target(s, seat, effs, action)
    pay = core.payment(p["traits"], cost, action.get("pay"))
    core.spend(p["traits"], pay)
    if kind == "ability":
        _used(s, seat, in_battle).append("ability:" + cid)
    elif kind == "equipment":
        _used(s, seat, in_battle).append("item:" + cid)
    elif kind == "tactic":
        p["tactics"][cid] = False
    elif kind == "token":
        p["tokens"][cid[:4]] -= 1
    elif kind == "spellcaster":
        s.decks["bonus_discard"].remove(cid)
        s.decks["bonus_discard"].append(cid)
    elif kind == "action":
        p["hand"].remove(cid)
        s.decks["bonus_discard"].append(cid)
    elif kind == "disposable":
        world.discard_item(s, seat, cid, events, "used")
    if in_battle:
        b["fighters"][seat]["plays"] += 1
        if [e for e in effs if e["do"] == "damage"]:
            b["started"] = True
    log(events, "used", seat=seat, card=cid, kind=kind, paid=pay,
        text="%s uses %s." % (seat_words(s, seat), card["name"]))
    if target_battle is not None and not in_battle:
        world.trigger(s, seat, "assisted", events)
    run(s, seat, effs, ctx, events, action)


def _quest_target(s, seat, effs, action):
    """A Quest Mode target: a player on your location (yourself for a kind effect)."""
    if not [e for e in effs if e["who"] == "target"]:
        return None
    t = action.get("target", seat)
    harmful = [e for e in effs if e["do"] in ("damage", "status", "break", "steal", "lose",
                                              "ambush", "discard")]
    if t not in s.players or not world.in_quest_mode(s, t) or \
            core.cell_of(s, t) != core.cell_of(s, seat):
        fail("bad_target", "target must be a player on your location, not %s." % shown(t))
    if harmful and t == seat:
        fail("bad_target", "Name another player on your location as the target.")
    return t
