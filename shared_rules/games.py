"""The registry of game engines by name; each engine is a module with the same contract.

The contract every engine module provides (the host, the scenario runner and the
conformance kit call nothing else):
  NAME
  INFO: the game's static facts, declared once and read by every tool (the host's --game
    help, the staff page's new-game form, player-count checks):
      {"title": the book's name, "min_players", "max_players", "default_players",
       "player_counts": the counts allowed when not every count in the range is (optional),
       "modes": {option name: [allowed values, the default first]} (player-facing options),
       "mode_titles": {mode value: the book's name for it} (optional),
       "value_titles": {option name: {value: its words}} (optional: the staff page's),
       "chance": True if dice or shuffles decide, "hidden": True if a seat knows what
       another does not}
    A player count out of range is refused by new_game itself, in the game's words.
  actors(state) -> the seats the game waits on now, in seat order ([] once the game is
    over), each with a legal action of its own; a game where several seats act at once
    (players in a battle while others take their turns) lists them all, and apply takes
    their actions in the order they arrive. A seat may still have an optional move while
    others are waited on (Storybook's hourglass plot twist): `actor` names who takes an
    action
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
    "fairytale": "shared_rules.fairytale",
}


def names():
    return sorted(_MODULES)


def info(name):
    """The static facts (INFO) of a game by name; KeyError names the known games."""
    return get(name).INFO


def get(name):
    """The engine module for a game name; KeyError names the known games."""
    if name not in _MODULES:
        raise KeyError("unknown game %r (known: %s)" % (name, ", ".join(names())))
    path = _MODULES[name]
    module = __import__(path)
    for part in path.split(".")[1:]:
        module = getattr(module, part)
    return module
