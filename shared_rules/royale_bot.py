"""The Battle Royale bot: plays by the book, seeing only what a player at the table sees.

The one-move-lookahead greedy of shared_rules/bots.py cannot play Battle Royale: every
trial attack rolls the state's PRNG, which does not move while the table supplies the
dice, so it sees the same roll against every hidden card (peeking at values no player
knows) and, with scores unchanged by failed trials, ends turn after turn for ever. The
"greedy" (normal) player here resurrects, attacks the card under it, duels a player holding cards,
and otherwise walks toward the nearest card (ties broken by the PRNG seeded as bots.py
seeds it, so it is deterministic for a seed and a state); "easy" picks at random among
every move but ending the turn; "random" and "hard" (the search) are bots.py's.
Pure rules code: runs on CPython and MicroPython.
"""

from shared_rules import bots, prng, royale


def choose(kind, state, seat, seed):
    """The bot's Battle Royale action for `seat` now, or None if it has nothing to do."""
    s = state
    if s.phase == "order":
        return {"type": "roll_order"}
    if kind in ("random", "hard"):
        return bots.choose(kind, royale, s, seat, seed)
    if kind not in bots.KINDS:
        raise ValueError("unknown bot %r (one of %s)" % (kind, ", ".join(bots.KINDS)))
    actions = bots.my_actions(royale, s, seat)
    if not actions:
        return None
    rng = bots.seeded_rng(royale, s, seed)
    if kind == "easy":
        # Random among the sensible moves: anything but ending the turn while it may act.
        sensible = [a for a in actions if a["type"] != "end_turn"] or actions
        rng, i = prng.below(rng, len(sensible))
        return sensible[i]

    def pick(options):
        nonlocal rng
        rng, i = prng.below(rng, len(options))
        return options[i]

    if s.phase == "place":
        return pick(actions)
    by_kind = {}
    for a in actions:
        by_kind.setdefault(a["type"], []).append(a)
    if "resurrect" in by_kind:
        return by_kind["resurrect"][0]
    if "attack_card" in by_kind:
        return by_kind["attack_card"][0]
    duels = [a for a in by_kind.get("attack_player", ()) if s.players[a["target"]].held() > 0
             or royale.last_card(s) is not None]
    if duels:
        return pick(duels)
    me = s.players[seat]
    cards = [i for i in range(len(s.map)) if s.map[i] is not None]
    if "move" in by_kind and cards and s.map[me.cell] is None:
        def distance(a):
            to = royale.INDEX[(a["to"][0], a["to"][1])]
            return min(royale.DIST[to][c] for c in cards)
        best = min(distance(a) for a in by_kind["move"])
        return pick([a for a in by_kind["move"] if distance(a) == best])
    if "end_turn" in by_kind:
        return by_kind["end_turn"][0]
    return pick(actions)
