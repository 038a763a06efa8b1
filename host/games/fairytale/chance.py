"""What the table supplies of Fairytale Games' chance: the cards it reads and the dice it throws.

On the table the outcome of a draw or a throw comes from the table (shared_rules/fairytale,
CHANCE): the location card laid on the cell a player steps onto, the event card the Sundial
lays on the event deck's reader, the victory card a killer takes from a stack, the dice read in
the tray for an action made on the table. The other draws (battle cards, bonus cards, an
ambushing minion) the host deals from the engine's decks, and the seat's phone says what to
take; a choice made on the phone rolls the engine's dice.

`table_chance` is what the virtual hands draw and throw: the top card of the physical deck
(the engine's own deck order, so a supplied card changes nothing) and dice seeded from the
game's seed, the actions applied so far and the state, as the bots are seeded, so a resumed
game throws what the uninterrupted one threw. A game played by the engine alone with the
same bots applies `table_chance` to each bot's action (tools/fairytale_games.py --table):
the table game must end exactly as it does.
"""

import binascii

from host.games.fairytale import places
from shared_rules import fairytale as ft
from shared_rules import prng
from shared_rules.fairytale import core

MAX_DICE = 8    # the most dice one action has been seen to take is 3 (an enemy's turn)


def dice_wanted(state, action, values=()):
    """How many dice `action` takes now in all, the first ones being `values` (a later die
    may depend on an earlier one): the engine refuses dice it does not use."""
    values = list(values)
    k = len(values)
    while k < MAX_DICE:
        trial = dict(action, dice=values + [1] * (k + 1 - len(values)))
        problem = ft.validate(state, trial)
        if problem is not None:
            return k
        k += 1
    return k


def more_dice(state, action, values):
    """How many more dice `action` needs after `values` (0: complete)."""
    return dice_wanted(state, action, values) - len(values)


def table_cards(state, action):
    """The cards the table reads for `action`, as the virtual hands draw them (the top card
    of the deck), or []."""
    s = state
    kind = action["type"]
    if kind == "step":
        to = action.get("to")
        if core.is_xy(to) and s.cells[core.index(to)] is None and s.decks["locations"]:
            return [s.decks["locations"][0]]
    elif kind == "flip_event":
        if s.decks["events"]:
            return [s.decks["events"][0]]
    elif kind == "take_victory":
        deck = action.get("deck")
        if deck in ("alliance", "betrayal") and s.decks[deck]:
            return [s.decks[deck][0]]
    return []


def dice_rng(state, seed, step):
    text = ft.bot_digest(state)
    return prng.seed_state((seed * 2246822519 + step * 40503 + binascii.crc32(text.encode())
                            + 0xFA17) & 0xFFFFFFFF)


def table_chance(state, action, seed, step):
    """`action` with the cards the table reads and the dice it throws for it ("cards",
    "dice"), as the virtual hands draw and throw them; an action made on the phone, and one
    that draws and rolls nothing on the table, comes back unchanged. `step` is the number
    of actions applied so far."""
    if not places.is_table_action(action):
        return action
    if not isinstance(step, int) or step < 0:
        raise ValueError("step is the number of actions applied so far, not %r" % (step,))
    out = dict(action)
    got = table_cards(state, action)
    if got:
        out["cards"] = got
    rng = dice_rng(state, seed, step)
    values = []
    while more_dice(state, out, values) > 0:
        rng, v = prng.below(rng, 6)
        values.append(v + 1)
    if values:
        out["dice"] = values
    return out


def without_chance(action):
    """The action as a bot asks for it: without the cards read and the dice thrown."""
    return dict((k, v) for k, v in action.items() if k not in ("cards", "dice"))
