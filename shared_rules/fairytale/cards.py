"""The Fairytale Games catalog: its format, its effect verbs, and the checker that reads it.

Every deck is a data file in shared_rules/data/ (fairytale_<deck>.json), read once per
process and checked when it is read; an error names the file, the card and the field. A
scenario's "cards" adds cards or replaces them by id (each row names its "deck").

A card's effects are a list of small steps, each an object {"do": VERB, ...} built from the
registry VERBS below (the way Forge's card scripts build cards from a few verbs). Keys every
step may have: "who" (WHO: whom it touches; default "self") and "n" (a whole number, or
"die" for a six-sided die rolled when it happens). A card whose effect no verb says names a
Python hook ({"do": "hook", "hook": NAME}, HOOKS); the shipped catalog has len(HOOKS) of
them. COSTS are {"any": n} and/or {trait: n}: traits spent from the character board.
"""

from shared_rules import canon
from shared_rules import catalog as files
from shared_rules.errors import ScenarioError, shown

TRAITS = ("intelligence", "strength", "willpower", "magic", "persuasion")
WEAKNESSES = ("fire", "ice", "water", "dark", "holy", "lightning")
ELEMENTS = ("fire", "water", "dark", "holy", "lightning")
FACTIONS = ("wild_ones", "horror_show", "dark_ones", "mercenaries", "children_of_magic",
            "fugitives")
FACTION_NAMES = {"wild_ones": "The Wild Ones", "horror_show": "The Horror Show",
                 "dark_ones": "The Dark Ones", "mercenaries": "The Merceneries",
                 "children_of_magic": "Children of Magic", "fugitives": "The Fugitives"}
STATUSES = ("break", "bleed", "pierce", "poison", "stun", "dizzy")
MODES = ("quest", "battle", "any")
BATTLE_TYPES = ("attack", "modifier", "defense", "heal", "cure", "tactic", "escape", "tag_out")
BONUS_KINDS = ("action", "disposable", "equipable", "legendary", "epic")
SLOTS = ("weapon", "armor", "trinket")
ENEMY_KINDS = ("minion", "boss", "trinity")
PILES = ("easy", "medium", "boss", "end")
QUEST_KINDS = ("basic", "character", "boss", "end")
TERRAINS = ("swamp", "forest", "shore", "grassland", "ruins")
VICTORY_DECKS = ("alliance", "betrayal")
WHO = ("self", "target", "all", "others_here")
# What a victory card rewards: the engine announces these as they happen.
TRIGGERS = ("formed_alliance", "assisted", "gave_item", "healed_player", "ally_boss",
            "joined_battle", "quest_done", "killed_player", "killed_former_ally",
            "ambushed_player", "stole", "broke_item", "dissolved", "conflict",
            "killed_character", "boss_defeated", "escaped")

# The book's component list: how many cards of each deck the box holds.
COUNTS = {"characters": 31, "tactics": 93, "events": 51, "locations": 49, "bonus": 124,
          "npcs": 3, "battle": 46, "enemies": 21, "quests": 39, "victory": 37}
EVENTS_PER_GAME = 30
DRAGON_INN = "dragon_inn"

# The verb registry: verb -> (the keys it takes besides "do", "who" and "n"; where it works:
# "quest" mode only, "battle" only, or "any"; whether it needs "n").
VERBS = {
    "gain": (("trait",), "any", True),          # regain n traits (a trait, or the player's
                                               # choice), never above the maximum health
    "lose": (("trait",), "any", True),          # lose n traits, unblockable
    "reputation": ((), "any", True),            # +n (or -n) reputation, never below 1
    "max_health": ((), "any", True),            # the maximum health rises by n (and health)
    "cure": ((), "any", False),                 # poison tokens and stun are removed
    "status": (("status",), "any", False),      # give a status effect
    "damage": (("element", "status", "unblockable"), "any", True),  # deal n ATK
    "defend": ((), "battle", True),             # +n DEF on the next defence this battle
    "atk_bonus": ((), "battle", True),          # +n ATK on every attack this turn
    "draw": (("deck",), "any", True),           # draw n bonus cards or battle cards
    "movement": ((), "quest", True),            # +n MVM this turn
    "search": ((), "quest", False),             # search your location now, at no cost
    "enable_tactic": ((), "any", True),         # enable n dormant tactic cards of choice
    "recruit": ((), "quest", False),            # the top character of the bonus discard joins
    "equip": ((), "any", False),                # equip an item from the quest hand now
    "break": ((), "any", False),                # one equipped item of the target is discarded
    "steal": ((), "any", False),                # take a card from the target's quest hand
    "summon": (("npc",), "quest", False),       # put an NPC on your location
    "ambush": (("enemy",), "quest", False),     # a minion ambushes "who"
    "quest": (("pile",), "quest", False),       # the top quest of a pile into the quest hand
    "epic": ((), "any", False),                 # the next epic item into the quest hand
    "legendary": ((), "any", False),            # the quest's blue character's legendary item
    "escape": ((), "battle", False),            # leave the battle at once
    "extra_turn": ((), "battle", False),        # another attack turn after this one
    "tag_out": ((), "battle", False),           # fight as another character of your party
    "knock_back": ((), "battle", False),        # the enemy fights as another party member
    "unblockable": ((), "battle", False),       # the next attack this turn cannot be defended
    "teleport": (("to",), "quest", False),      # move to the Dragon Inn or a landmark
    "restore": ((), "quest", False),            # the location here back to its original
                                               # state: searchable again, not destroyed
    "destroy": ((), "quest", False),            # the basic location here is destroyed
    "change": ((), "quest", False),             # the basic location here becomes the top
                                               # card of the location deck
    "protect": ((), "quest", True),             # nobody may start a battle with you, n turns
    "discard": ((), "any", True),               # discard n random cards of the quest hand
    "win": (("epilogue",), "any", False),       # an end-game quest's ending
    "hook": (("hook",), "any", False),          # a card no verb says (HOOKS)
}
# The Python hooks, for the few cards no verb says: name -> what it does (effects.py runs them).
HOOKS = {
    "peek_bonus": "look at the top bonus card and put it at the bottom of the deck if you like",
    "swap_traits": "move up to 3 points from one trait to another",
    "vanish": "move to any explored location",
}
DECKS_DRAWN = ("bonus", "battle")
TELEPORTS = ("dragon_inn", "landmark")

ABILITY_FIELDS = ("cost", "effects", "mode", "name", "text")
SIGNATURE_FIELDS = ("combo", "effects", "name", "text")
SUPER_FIELDS = ("at_most", "cost", "effects", "name", "text")
CHARACTER_FIELDS = ("ability", "element", "faction", "health", "id", "legendary", "movement",
                    "name", "persuasion", "signatures", "slots", "super", "tactics", "tale",
                    "trait_bonus", "traits", "weakness")
TACTIC_FIELDS = ("character", "cost", "effects", "id", "mode", "name", "text")
EVENT_FIELDS = ("duration", "effects", "id", "name", "text")
LOCATION_FIELDS = ("ambush", "boxes", "id", "kind", "name", "search", "terrain", "text")
BONUS_FIELDS = ("atk", "boxes", "cost", "def", "effects", "element", "id", "kind", "max_health",
                "mode", "mvm", "name", "owner", "owner_bonus", "potion", "slot", "text")
NPC_FIELDS = ("cost", "effects", "id", "move", "name", "once", "text")
BATTLE_FIELDS = ("atk", "cost", "count", "def", "id", "kind", "name", "status", "text", "type")
ENEMY_FIELDS = ("attack", "creature", "defence", "element", "health", "id", "kind", "name",
                "reputation", "rewards", "text", "weakness")
QUEST_FIELDS = ("character", "duration", "goal", "id", "kind", "name", "pile", "rewards",
                "text")
VICTORY_FIELDS = ("deck", "id", "name", "rewards", "text", "trigger")
GOALS = ("visit", "search", "defeat", "offer", "deliver", "boss", "kill", "stages")

DECK_FILES = (("characters", "fairytale_characters.json"), ("tactics", "fairytale_tactics.json"),
              ("events", "fairytale_events.json"), ("locations", "fairytale_locations.json"),
              ("bonus", "fairytale_bonus.json"), ("npcs", "fairytale_npcs.json"),
              ("battle", "fairytale_battle.json"), ("enemies", "fairytale_enemies.json"),
              ("quests", "fairytale_quests.json"), ("victory", "fairytale_victory.json"))
DECKS = tuple([d for d, _ in DECK_FILES])

is_int = files.is_int


# ---------------------------------------------------------------- field checks

def _fields(d, allowed, where):
    if not isinstance(d, dict):
        raise ScenarioError(where, "must be an object")
    for key in sorted(d):
        if key not in allowed:
            raise ScenarioError(canon.path(where, key), "unknown field (it takes %s)" %
                                ", ".join(allowed))


def _text(d, key, where, required=True):
    v = d.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, str) or not v or len(v) > 400:
        raise ScenarioError(where + "." + key, "must be text (1 to 400 characters)")
    return v


def _int(d, key, where, lo, hi, default=None):
    if key not in d or d[key] is None:
        if default is None:
            raise ScenarioError(where + "." + key, "missing (a whole number from %d to %d)" %
                                (lo, hi))
        return default
    v = d[key]
    if not is_int(v) or v < lo or v > hi:
        raise ScenarioError(where + "." + key, "must be a whole number from %d to %d, not %s"
                            % (lo, hi, shown(v)))
    return v


def _bool(d, key, where, default=False):
    v = d.get(key, default)
    if v is not True and v is not False:
        raise ScenarioError(where + "." + key, "must be true or false")
    return v


def _one_of(d, key, where, allowed, required=True):
    v = d.get(key)
    if v is None and not required:
        return None
    if v not in allowed:
        raise ScenarioError(where + "." + key, "must be one of %s, not %s" % (
            ", ".join(allowed), shown(v)))
    return v


def _ident(d, where):
    v = d.get("id")
    if not isinstance(v, str) or not v or len(v) > 40 or not _plain(v):
        raise ScenarioError(where + ".id", "must be an id (1 to 40 letters, digits or _)")
    return v


def _plain(v):
    for ch in v:
        if not ("a" <= ch <= "z" or "0" <= ch <= "9" or ch == "_"):
            return False
    return True


def check_cost(v, where):
    """A cost {"any": n, trait: n, ...}, normalised (zero entries dropped)."""
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise ScenarioError(where, "must be an object of traits to spend, e.g. {\"any\": 1}")
    out = {}
    for key in sorted(v):
        if key != "any" and key not in TRAITS:
            raise ScenarioError(canon.path(where, key), "is not a trait (any, %s)" %
                                ", ".join(TRAITS))
        n = v[key]
        if not is_int(n) or n < 0 or n > 30:
            raise ScenarioError(canon.path(where, key), "must be a whole number from 0 to 30")
        if n:
            out[key] = n
    return out


def cost_total(cost):
    return sum([cost[k] for k in cost])


def check_effects(v, where, mode):
    """A validated list of effect steps for a card usable in `mode`."""
    if v is None:
        return []
    if not isinstance(v, list) or len(v) > 8:
        raise ScenarioError(where, "must be a list of at most 8 effect steps")
    out = []
    for i, step in enumerate(v):
        w = "%s[%d]" % (where, i)
        if not isinstance(step, dict):
            raise ScenarioError(w, "must be an object with a \"do\"")
        verb = step.get("do")
        if verb not in VERBS:
            raise ScenarioError(w + ".do", "unknown verb %s (verbs: %s)" % (
                shown(verb), ", ".join(sorted(VERBS))))
        keys, where_ok, needs_n = VERBS[verb]
        _fields(step, ("do", "who", "n") + keys, w)
        if where_ok != "any" and mode != "rule" and mode != where_ok:
            raise ScenarioError(w + ".do", "%s works only in %s mode, and this card is played "
                                "in %s mode" % (verb, where_ok, mode))
        e = {"do": verb, "who": _one_of(step, "who", w, WHO, False) or "self"}
        n = step.get("n")
        if needs_n:
            if n == "die":
                e["n"] = "die"
            else:
                e["n"] = _int(step, "n", w, -20, 30)
        elif n is not None:
            raise ScenarioError(w + ".n", "%s takes no number" % verb)
        if verb in ("gain", "lose"):
            e["trait"] = _one_of(step, "trait", w, TRAITS, False)
        elif verb == "status":
            e["status"] = _one_of(step, "status", w, STATUSES)
        elif verb == "damage":
            e["element"] = _one_of(step, "element", w, WEAKNESSES, False)
            e["status"] = _one_of(step, "status", w, STATUSES, False)
            e["unblockable"] = _bool(step, "unblockable", w)
        elif verb == "draw":
            e["deck"] = _one_of(step, "deck", w, DECKS_DRAWN)
            if e["deck"] == "battle" and mode == "quest":
                raise ScenarioError(w + ".deck", "battle cards are drawn in battle, and this "
                                    "card is played in Quest Mode")
        elif verb == "summon":
            e["npc"] = _text(step, "npc", w)
        elif verb == "ambush":
            e["enemy"] = _text(step, "enemy", w, False)
        elif verb == "quest":
            e["pile"] = _one_of(step, "pile", w, ("easy", "medium", "boss"))
        elif verb == "teleport":
            e["to"] = _one_of(step, "to", w, TELEPORTS)
        elif verb == "win":
            e["epilogue"] = _int(step, "epilogue", w, 1, 4)
        elif verb == "hook":
            e["hook"] = _one_of(step, "hook", w, tuple(sorted(HOOKS)))
        out.append(e)
    if len([e for e in out if e["do"] == "damage"]) > 1:
        raise ScenarioError(where, "deals damage twice: one attack per card")
    return out


def _trait_list(v, where):
    if not isinstance(v, list) or not v or len(v) > 5:
        raise ScenarioError(where, "must be a list of 1 to 5 trait types")
    for i, t in enumerate(v):
        if t not in TRAITS:
            raise ScenarioError("%s[%d]" % (where, i), "must be a trait (%s)" % ", ".join(TRAITS))
    if len(set(v)) != len(v):
        raise ScenarioError(where, "names a trait twice")
    return [t for t in TRAITS if t in v]


def _trait_map(v, where, lo, hi):
    if not isinstance(v, dict):
        raise ScenarioError(where, "must be an object of traits")
    out = {}
    for key in sorted(v):
        if key not in TRAITS:
            raise ScenarioError(canon.path(where, key), "is not a trait (%s)" % ", ".join(TRAITS))
        n = v[key]
        if not is_int(n) or n < lo or n > hi:
            raise ScenarioError(canon.path(where, key), "must be a whole number from %d to %d"
                                % (lo, hi))
        if n:
            out[key] = n
    return out


# ---------------------------------------------------------------- one card of each deck

def check_character(d, where):
    _fields(d, CHARACTER_FIELDS + ("deck",), where)
    c = {"id": _ident(d, where), "name": _text(d, "name", where), "tale": _text(d, "tale", where),
         "faction": _one_of(d, "faction", where, FACTIONS, False),
         "health": _int(d, "health", where, 6, 40), "movement": _int(d, "movement", where, 1, 6),
         "traits": _trait_list(d.get("traits"), where + ".traits"),
         "persuasion": _int(d, "persuasion", where, 0, 20),
         "weakness": _one_of(d, "weakness", where, WEAKNESSES, False),
         "element": _one_of(d, "element", where, ELEMENTS, False),
         "slots": _int(d, "slots", where, 0, 4, 2), "legendary": None}
    if d.get("legendary") is not None:
        c["legendary"] = _text(d, "legendary", where)
    c["trait_bonus"] = _trait_map(d.get("trait_bonus", {}), where + ".trait_bonus", 0, 10)
    ab = d.get("ability")
    w = where + ".ability"
    _fields(ab, ABILITY_FIELDS, w)
    mode = _one_of(ab, "mode", w, MODES)
    c["ability"] = {"name": _text(ab, "name", w), "text": _text(ab, "text", w), "mode": mode,
                    "cost": check_cost(ab.get("cost"), w + ".cost"),
                    "effects": check_effects(ab.get("effects"), w + ".effects", mode)}
    sigs = d.get("signatures")
    if not isinstance(sigs, list) or len(sigs) != 3:
        raise ScenarioError(where + ".signatures", "must be a list of 3 signature moves")
    c["signatures"] = []
    for i, sg in enumerate(sigs):
        w = "%s.signatures[%d]" % (where, i)
        _fields(sg, SIGNATURE_FIELDS, w)
        combo = sg.get("combo")
        if not isinstance(combo, list) or not 2 <= len(combo) <= 4:
            raise ScenarioError(w + ".combo", "must be a list of 2 to 4 battle card kinds")
        for j, k in enumerate(combo):
            if not isinstance(k, str) or not _plain(k):
                raise ScenarioError("%s.combo[%d]" % (w, j), "must be a battle card kind")
        c["signatures"].append({"name": _text(sg, "name", w), "text": _text(sg, "text", w),
                                "combo": sorted(combo),
                                "effects": check_effects(sg.get("effects"), w + ".effects",
                                                         "battle")})
    sp = d.get("super")
    w = where + ".super"
    _fields(sp, SUPER_FIELDS, w)
    c["super"] = {"name": _text(sp, "name", w), "text": _text(sp, "text", w),
                  "at_most": _int(sp, "at_most", w, 1, 40),
                  "cost": check_cost(sp.get("cost"), w + ".cost"),
                  "effects": check_effects(sp.get("effects"), w + ".effects", "battle")}
    if "any" in c["super"]["cost"] and len(c["super"]["cost"]) > 1:
        raise ScenarioError(w + ".cost", "must be of one kind")
    tac = d.get("tactics")
    if not isinstance(tac, list) or len(tac) != 3 or not all(
            [isinstance(t, str) for t in tac]) or len(set(tac)) != 3:
        raise ScenarioError(where + ".tactics", "must be a list of 3 different tactic ids")
    c["tactics"] = list(tac)
    return c


def check_tactic(d, where):
    _fields(d, TACTIC_FIELDS + ("deck",), where)
    mode = _one_of(d, "mode", where, MODES)
    return {"id": _ident(d, where), "name": _text(d, "name", where),
            "text": _text(d, "text", where), "character": _text(d, "character", where),
            "mode": mode, "cost": check_cost(d.get("cost"), where + ".cost"),
            "effects": check_effects(d.get("effects"), where + ".effects", mode)}


def check_event(d, where):
    _fields(d, EVENT_FIELDS + ("deck",), where)
    return {"id": _ident(d, where), "name": _text(d, "name", where),
            "text": _text(d, "text", where), "duration": _int(d, "duration", where, 0, 3, 0),
            "effects": check_effects(d.get("effects"), where + ".effects", "quest")}


def check_location(d, where):
    _fields(d, LOCATION_FIELDS + ("deck",), where)
    kind = _one_of(d, "kind", where, ("landmark", "basic"))
    out = {"id": _ident(d, where), "name": _text(d, "name", where),
           "text": _text(d, "text", where), "kind": kind,
           "terrain": _one_of(d, "terrain", where, TERRAINS, kind == "basic"),
           "boxes": _int(d, "boxes", where, 0, 4, 0), "ambush": _bool(d, "ambush", where),
           "search": check_effects(d.get("search"), where + ".search", "quest")}
    if out["boxes"] and not out["search"]:
        raise ScenarioError(where + ".boxes", "a location with nothing to search has no boxes")
    return out


def check_bonus(d, where):
    _fields(d, BONUS_FIELDS + ("deck",), where)
    kind = _one_of(d, "kind", where, BONUS_KINDS)
    mode = _one_of(d, "mode", where, MODES, False) or "any"
    out = {"id": _ident(d, where), "name": _text(d, "name", where),
           "text": _text(d, "text", where), "kind": kind, "mode": mode,
           "cost": check_cost(d.get("cost"), where + ".cost"),
           "effects": check_effects(d.get("effects"), where + ".effects", mode),
           "slot": None, "atk": 0, "def": 0, "element": None, "boxes": 0, "mvm": 0,
           "max_health": 0, "owner": None, "owner_bonus": None, "potion": None}
    if kind == "action":
        if not out["effects"]:
            raise ScenarioError(where + ".effects", "an action card must do something")
        for key in ("slot", "atk", "def", "boxes", "owner"):
            if d.get(key) is not None:
                raise ScenarioError(where + "." + key, "an action card has no %s" % key)
        return out
    out["slot"] = _one_of(d, "slot", where, SLOTS, False) or "trinket"
    out["atk"] = _int(d, "atk", where, 0, 10, 0)
    out["def"] = _int(d, "def", where, 0, 10, 0)
    out["element"] = _one_of(d, "element", where, WEAKNESSES, False)
    out["boxes"] = _int(d, "boxes", where, 0, 10, 0)
    out["mvm"] = _int(d, "mvm", where, -3, 3, 0)
    out["max_health"] = _int(d, "max_health", where, 0, 10, 0)
    out["potion"] = _one_of(d, "potion", where, ("heal", "cure"), False)
    if kind == "disposable" and not out["effects"]:
        raise ScenarioError(where + ".effects", "a disposable item must do something")
    if kind == "legendary":
        out["owner"] = _text(d, "owner", where)
        ob = d.get("owner_bonus")
        w = where + ".owner_bonus"
        _fields(ob, ("atk", "def", "mvm", "text"), w)
        out["owner_bonus"] = {"atk": _int(ob, "atk", w, 0, 5, 0),
                              "def": _int(ob, "def", w, 0, 5, 0),
                              "mvm": _int(ob, "mvm", w, 0, 3, 0), "text": _text(ob, "text", w)}
    elif d.get("owner") is not None or d.get("owner_bonus") is not None:
        raise ScenarioError(where + ".owner", "only a legendary item has a rightful owner")
    return out


def check_npc(d, where):
    _fields(d, NPC_FIELDS + ("deck",), where)
    return {"id": _ident(d, where), "name": _text(d, "name", where),
            "text": _text(d, "text", where), "move": _int(d, "move", where, 0, 4, 0),
            "once": _bool(d, "once", where), "cost": check_cost(d.get("cost"), where + ".cost"),
            "effects": check_effects(d.get("effects"), where + ".effects", "quest")}


def check_battle(d, where):
    _fields(d, BATTLE_FIELDS + ("deck",), where)
    t = _one_of(d, "type", where, BATTLE_TYPES)
    out = {"id": _ident(d, where), "name": _text(d, "name", where),
           "text": _text(d, "text", where), "type": t,
           "count": _int(d, "count", where, 1, 12, 1), "atk": 0, "def": 0, "cost": {},
           "status": None}
    kind = d.get("kind", out["id"])
    if not isinstance(kind, str) or not _plain(kind):
        raise ScenarioError(where + ".kind", "must be a battle card kind (letters and _)")
    out["kind"] = kind
    if t == "attack":
        out["atk"] = _int(d, "atk", where, 0, 10)
        out["cost"] = check_cost(d.get("cost"), where + ".cost")
        out["status"] = _one_of(d, "status", where, STATUSES + ("knock_back",), False)
    elif t == "modifier":
        out["status"] = _one_of(d, "status", where, STATUSES)
        out["cost"] = check_cost(d.get("cost"), where + ".cost")
    elif t == "defense":
        out["def"] = _int(d, "def", where, 1, 10)
    for key in ("atk", "cost", "status"):
        if d.get(key) is not None and t not in ("attack", "modifier"):
            raise ScenarioError(where + "." + key, "only an attack or modifier card has %s" % key)
    if d.get("def") is not None and t != "defense":
        raise ScenarioError(where + ".def", "only a defense card has def")
    return out


def _die_table(v, where, check_one):
    if not isinstance(v, list) or len(v) != 6:
        raise ScenarioError(where, "must be a list of 6 entries, one for each face of the die")
    return [check_one(v[i], "%s[%d]" % (where, i)) for i in range(6)]


def _def_entry(v, where):
    if not is_int(v) or v < 0 or v > 20:
        raise ScenarioError(where, "must be a defence value from 0 to 20")
    return v


def _atk_entry(v, where):
    _fields(v, ("atk", "status"), where)
    return {"atk": _int(v, "atk", where, 0, 20),
            "status": _one_of(v, "status", where, STATUSES, False)}


def check_enemy(d, where):
    _fields(d, ENEMY_FIELDS + ("deck",), where)
    return {"id": _ident(d, where), "name": _text(d, "name", where),
            "text": _text(d, "text", where), "kind": _one_of(d, "kind", where, ENEMY_KINDS),
            "creature": _text(d, "creature", where),
            "reputation": _int(d, "reputation", where, 1, 12),
            "health": _int(d, "health", where, 1, 80),
            "defence": _die_table(d.get("defence"), where + ".defence", _def_entry),
            "attack": _die_table(d.get("attack"), where + ".attack", _atk_entry),
            "element": _one_of(d, "element", where, ELEMENTS, False),
            "weakness": _one_of(d, "weakness", where, WEAKNESSES, False),
            "rewards": check_effects(d.get("rewards"), where + ".rewards", "quest")}


def check_goal(g, where, depth=0):
    if not isinstance(g, dict):
        raise ScenarioError(where, "must be one goal (%s)" % ", ".join(GOALS))
    kinds = [k for k in GOALS if k in g]
    if len(kinds) != 1:
        raise ScenarioError(where, "must name one goal (%s)" % ", ".join(GOALS))
    kind = kinds[0]
    if kind == "stages":
        _fields(g, ("stages",), where)
        st = g["stages"]
        if depth or not isinstance(st, list) or not 2 <= len(st) <= 6:
            raise ScenarioError(where + ".stages", "must be a list of 2 to 6 goals (not stages)")
        return {"stages": [check_goal(x, "%s.stages[%d]" % (where, i), 1)
                           for i, x in enumerate(st)]}
    if kind in ("visit", "boss"):
        _fields(g, (kind, "at") if kind == "boss" else (kind,), where)
        out = {kind: _text(g, kind, where)}
        if kind == "boss":
            out["at"] = _text(g, "at", where)
        return out
    if kind == "search":
        _fields(g, ("search",), where)
        return {"search": _text(g, "search", where)}
    if kind == "defeat":
        _fields(g, ("defeat", "count"), where)
        v = g["defeat"]
        if v not in ("minion", "boss", "character") and not (isinstance(v, str) and _plain(v)):
            raise ScenarioError(where + ".defeat", "must be minion, boss, character, an enemy "
                                "id or a creature type")
        return {"defeat": v, "count": _int(g, "count", where, 1, 9, 1)}
    if kind == "kill":
        _fields(g, ("kill",), where)
        return {"kill": _int(g, "kill", where, 1, 9)}
    if kind == "offer":
        _fields(g, ("offer", "at"), where)
        return {"offer": check_cost(g["offer"], where + ".offer"), "at": _text(g, "at", where)}
    _fields(g, ("deliver", "at"), where)
    v = g["deliver"]
    w = where + ".deliver"
    _fields(v, ("kind", "n"), w)
    return {"deliver": {"kind": _one_of(v, "kind", w, BONUS_KINDS), "n": _int(v, "n", w, 1, 5)},
            "at": _text(g, "at", where)}


def check_quest(d, where):
    _fields(d, QUEST_FIELDS + ("deck",), where)
    kind = _one_of(d, "kind", where, QUEST_KINDS)
    pile = _one_of(d, "pile", where, PILES)
    out = {"id": _ident(d, where), "name": _text(d, "name", where),
           "text": _text(d, "text", where), "kind": kind, "pile": pile,
           "character": None, "duration": _int(d, "duration", where, 0, 30, 0),
           "goal": check_goal(d.get("goal"), where + ".goal"),
           "rewards": check_effects(d.get("rewards"), where + ".rewards", "rule")}
    if (kind == "end") != (pile == "end"):
        raise ScenarioError(where + ".pile", "an end-game quest lies in the end pile, and only "
                            "it")
    if kind == "character":
        out["character"] = _text(d, "character", where)
    elif d.get("character") is not None:
        raise ScenarioError(where + ".character", "only a character quest names a character")
    return out


def check_victory(d, where):
    _fields(d, VICTORY_FIELDS + ("deck",), where)
    return {"id": _ident(d, where), "name": _text(d, "name", where),
            "text": _text(d, "text", where),
            "deck": _one_of(d, "deck", where, VICTORY_DECKS),
            "trigger": _one_of(d, "trigger", where, TRIGGERS),
            "rewards": check_effects(d.get("rewards"), where + ".rewards", "any")}


CHECKS = {"characters": check_character, "tactics": check_tactic, "events": check_event,
          "locations": check_location, "bonus": check_bonus, "npcs": check_npc,
          "battle": check_battle, "enemies": check_enemy, "quests": check_quest,
          "victory": check_victory}


# ---------------------------------------------------------------- the whole catalog

class Catalog:
    """The checked catalog: for each deck, cards by id (`decks[d]`) and their order
    (`order[d]`), plus derived lookups (battle card instances, epic items, ...)."""

    def __init__(self):
        self.decks = {}
        self.order = {}

    def card(self, deck, cid):
        return self.decks[deck][cid]

    def derive(self):
        b = self.decks["battle"]
        self.battle_instances = {}
        self.battle_deck = []
        for cid in self.order["battle"]:
            card = b[cid]
            for i in range(card["count"]):
                inst = cid if card["count"] == 1 else "%s_%d" % (cid, i + 1)
                self.battle_instances[inst] = cid
                self.battle_deck.append(inst)
        self.epics = [c for c in self.order["bonus"] if self.decks["bonus"][c]["kind"] == "epic"]
        self.legendary_of = {}
        for c in self.order["bonus"]:
            card = self.decks["bonus"][c]
            if card["kind"] == "legendary":
                self.legendary_of[card["owner"]] = c
        self.tactic_owner = {}
        for t in self.order["tactics"]:
            self.tactic_owner[t] = self.decks["tactics"][t]["character"]
        self.battle_kinds = set([b[c]["kind"] for c in b])
        return self

    def battle_card(self, inst):
        return self.decks["battle"][self.battle_instances[inst]]

    def kind_of(self, cid):
        """Which deck a card id belongs to ("characters", "bonus", ...), or None."""
        for d in DECKS:
            if cid in self.decks[d]:
                return d
        if cid in self.battle_instances:
            return "battle"
        return None


_base = []


def _read_deck(deck, name):
    # Read without shared_rules.catalog's cache: only the checked cards are kept (MicroPython's
    # heap holds the catalog once, not twice).
    with open(files.data_path(name)) as f:
        data = canon.loads(f.read())
    if not isinstance(data, dict) or not isinstance(data.get(deck), list):
        raise ScenarioError(name, "must be an object with a %s list" % shown(deck))
    return data[deck]


def base_catalog():
    """The shipped catalog, checked once per process (ScenarioError names file, card, field)."""
    if not _base:
        cat = Catalog()
        for deck, name in DECK_FILES:
            rows = _read_deck(deck, name)
            cat.decks[deck] = {}
            cat.order[deck] = []
            for i, row in enumerate(rows):
                where = "%s: %s[%d]" % (name, deck, i)
                card = CHECKS[deck](row, where)
                if card["id"] in cat.decks[deck]:
                    raise ScenarioError(where + ".id", "%s is defined twice" % card["id"])
                cat.decks[deck][card["id"]] = card
                cat.order[deck].append(card["id"])
        check_references(cat, "the catalog")
        _base.append(cat.derive())
    return _base[0]


def load_catalog(extra=None):
    """The catalog with a scenario's "cards" (a list of rows, each with a "deck") added; a row
    with a known id replaces that card."""
    base = base_catalog()
    if extra is None:
        return base
    if not isinstance(extra, list) or len(extra) > 400:
        raise ScenarioError("cards", "must be a list of at most 400 card definitions")
    cat = Catalog()
    for d in DECKS:
        cat.decks[d] = dict(base.decks[d])
        cat.order[d] = list(base.order[d])
    seen = {}
    for i, row in enumerate(extra):
        where = "cards[%d]" % i
        if not isinstance(row, dict):
            raise ScenarioError(where, "must be an object")
        deck = row.get("deck")
        if deck not in CHECKS:
            raise ScenarioError(where + ".deck", "must be one of %s, not %s" % (
                ", ".join(DECKS), shown(deck)))
        card = CHECKS[deck](row, where)
        key = deck + ":" + card["id"]
        if key in seen:
            raise ScenarioError(where + ".id", "%s is defined twice" % card["id"])
        seen[key] = True
        if card["id"] not in cat.decks[deck]:
            cat.order[deck].append(card["id"])
        cat.decks[deck][card["id"]] = card
    check_references(cat, "cards")
    return cat.derive()


def _refs(cat, where):
    """Every reference in the catalog: (where, deck, id)."""
    out = []
    for cid in cat.order["characters"]:
        c = cat.decks["characters"][cid]
        for t in c["tactics"]:
            out.append(("%s: character %s.tactics" % (where, cid), "tactics", t))
        if c["legendary"] is not None:
            out.append(("%s: character %s.legendary" % (where, cid), "bonus", c["legendary"]))
    for t in cat.order["tactics"]:
        out.append(("%s: tactic %s.character" % (where, t), "characters",
                    cat.decks["tactics"][t]["character"]))
    for b in cat.order["bonus"]:
        card = cat.decks["bonus"][b]
        if card["owner"] is not None:
            out.append(("%s: bonus card %s.owner" % (where, b), "characters", card["owner"]))
    for q in cat.order["quests"]:
        quest = cat.decks["quests"][q]
        if quest["character"] is not None:
            out.append(("%s: quest %s.character" % (where, q), "characters", quest["character"]))
        goals = quest["goal"]["stages"] if "stages" in quest["goal"] else [quest["goal"]]
        for g in goals:
            w = "%s: quest %s.goal" % (where, q)
            if "boss" in g:
                out.append((w + ".boss", "enemies", g["boss"]))
            for key in ("visit", "at"):
                if key in g:
                    out.append((w + "." + key, "locations", g[key]))
    for deck in DECKS:
        for cid in cat.order[deck]:
            card = cat.decks[deck][cid]
            for key in ("effects", "rewards", "search"):
                for e in card.get(key) or []:
                    if e["do"] == "summon":
                        out.append(("%s: %s %s.%s" % (where, deck, cid, key), "npcs", e["npc"]))
                    if e["do"] == "ambush" and e["enemy"] is not None:
                        out.append(("%s: %s %s.%s" % (where, deck, cid, key), "enemies",
                                    e["enemy"]))
    return out


def check_references(cat, where):
    """Every id a card names exists; each tactic belongs to the character that lists it; each
    character's super move is within reach; signatures use battle card kinds in the deck."""
    for w, deck, cid in _refs(cat, where):
        if cid not in cat.decks[deck]:
            raise ScenarioError(w, "names %s, which is not in the %s deck" % (shown(cid), deck))
    kinds = set([cat.decks["battle"][c]["kind"] for c in cat.order["battle"]])
    counts = {}
    for c in cat.order["battle"]:
        card = cat.decks["battle"][c]
        counts[card["kind"]] = counts.get(card["kind"], 0) + card["count"]
    for cid in cat.order["characters"]:
        c = cat.decks["characters"][cid]
        for t in c["tactics"]:
            if cat.decks["tactics"][t]["character"] != cid:
                raise ScenarioError("%s: character %s.tactics" % (where, cid),
                                    "%s belongs to %s" % (t, cat.decks["tactics"][t]["character"]))
        sp = c["super"]
        if cost_total(sp["cost"]) >= sp["at_most"] or sp["at_most"] > c["health"]:
            raise ScenarioError("%s: character %s.super" % (where, cid),
                                "cannot be reached: it needs %d or less health and costs %d "
                                "traits (a character has %d)" % (sp["at_most"],
                                                                 cost_total(sp["cost"]),
                                                                 c["health"]))
        for i, sg in enumerate(c["signatures"]):
            need = {}
            for k in sg["combo"]:
                need[k] = need.get(k, 0) + 1
            for k in sorted(need):
                if k not in kinds or counts[k] < need[k]:
                    raise ScenarioError("%s: character %s.signatures[%d].combo" % (where, cid, i),
                                        "needs %d %s card(s) and the battle deck has %d" % (
                                            need[k], k, counts.get(k, 0)))
    for b in cat.order["bonus"]:
        card = cat.decks["bonus"][b]
        if card["kind"] == "legendary":
            owner = cat.decks["characters"][card["owner"]]
            if owner["legendary"] != b:
                raise ScenarioError("%s: bonus card %s.owner" % (where, b),
                                    "%s does not name it as its legendary item" % owner["name"])
    if DRAGON_INN not in cat.decks["locations"]:
        raise ScenarioError(where + ": locations", "the Dragon Inn (dragon_inn) is missing")


def check_counts(cat):
    """The shipped catalog against the book's component list: [] or the sentences that differ."""
    out = []
    for deck in DECKS:
        n = len(cat.order[deck])
        if deck == "battle":
            n = len(cat.battle_deck)
        elif deck == "bonus":
            n += len(cat.order["characters"])   # character cards are bonus cards too
        if n != COUNTS[deck]:
            out.append("%s: %d cards, the book's box holds %d" % (deck, n, COUNTS[deck]))
    return out
