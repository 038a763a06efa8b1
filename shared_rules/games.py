"""The registry of game engines by name; each engine is a module with the same contract.

The contract every engine module provides (the host, the scenario runner and the
conformance kit call nothing else):
  NAME
  new_game(options, seed, setup=None, cards=None) -> state   (ScenarioError on bad input)
  legal_actions(state) -> list of actions, in a deterministic order
  validate(state, action) -> IllegalAction or None            (never raises)
  apply(state, action) -> list of events                      (IllegalAction, state unchanged)
  copy(state), to_dict(state), from_dict(data)                (save and load)
  view(state, seat) -> what that seat may know (seat None: a spectator)
  secrets(state, seat) -> strings that must never appear in view(state, seat)
  seats(state), status(state), winner(state), actor(state, action)
  undo_blocker(action, events) -> None, or why the action cannot be undone
  result(state) -> the scenario runner's output (without "events")
"""

# The parts of the contract that are the same for every engine's state object.
def copy(state):
    return state.copy()


def seats(state):
    return list(state.seats)


def status(state):
    return state.status


def winner(state):
    return state.winner


_MODULES = {
    "storybook": "shared_rules.storybook",
    "royale": "shared_rules.royale",
    "fightclub": "shared_rules.fightclub",
    "heroes": "shared_rules.heroes",
}


def names():
    return sorted(_MODULES)


def get(name):
    """The engine module for a game name; KeyError names the known games."""
    if name not in _MODULES:
        raise KeyError("unknown game %r (known: %s)" % (name, ", ".join(names())))
    path = _MODULES[name]
    module = __import__(path)
    for part in path.split(".")[1:]:
        module = getattr(module, part)
    return module
