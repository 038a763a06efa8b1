"""Positions for the Battle Royale rule tests: a few players and cards placed by hand."""

from shared_rules import royale
from shared_rules.errors import IllegalAction

# Cards far from the action, so the map is never empty by accident.
FILLER = [{"cell": [3, 0], "card": "H5"}, {"cell": [-3, 0], "card": "H6"}]


def player(pid, cell, active=(), reserve=(), alive=True):
    return {"id": pid, "cell": list(cell), "alive": alive, "active": list(active),
            "reserve": list(reserve)}


def position(players, cards_on_map=(), filler=True, turn=None, actions_left=None,
             options=None, cards=None, seed=1):
    """A game in the play phase: `cards_on_map` is [(cell, card id) or (cell, id, value)]."""
    rows = []
    for entry in cards_on_map:
        row = {"cell": list(entry[0]), "card": entry[1]}
        if len(entry) > 2:
            row["value"] = entry[2]
        rows.append(row)
    if filler:
        rows.extend([dict(r) for r in FILLER])
    setup = {"players": players, "map": rows}
    if turn is not None:
        setup["turn"] = turn
    if actions_left is not None:
        setup["actions_left"] = actions_left
    return royale.new_game(options or {}, seed, setup, cards)


def refused(state, action, code):
    """Assert the action is illegal with `code` and changed nothing; return the message."""
    before = royale.to_dict(state)
    problem = royale.validate(state, action)
    assert problem is not None, "expected %r to be refused" % (action,)
    assert problem.code == code, (problem.code, problem.message)
    try:
        royale.apply(state, action)
    except IllegalAction as e:
        assert e.code == code
    else:
        raise AssertionError("apply accepted %r" % (action,))
    assert royale.to_dict(state) == before
    return problem.message


def types(events):
    return [e["type"] for e in events]


def of_type(events, kind):
    return [e for e in events if e["type"] == kind]
