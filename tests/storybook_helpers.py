"""Positions for Storybook rule tests: build a board in one call, read results by card name."""

from shared_rules import storybook


def position(board, hands=None, turn="hero", ap=5, scores=None, options=None, twists=None):
    """board: list of (card, (c, r), owner, facing, face_up)."""
    setup = {"board": [{"card": c, "cell": list(cell), "owner": o, "facing": f, "face_up": up}
                       for c, cell, o, f, up in board],
             "hands": hands or {}, "turn": turn, "ap": ap,
             "scores": scores or {"hero": 0, "villain": 0}}
    if twists:
        setup["plot_twists"] = twists
    return storybook.new_game(options or {}, 7, setup)


def events_of(events, kind):
    return [e for e in events if e["type"] == kind]


def card_at(state, cell):
    entry = state.board.get(tuple(cell))
    return entry[0] if entry else None


def code_of(state, action):
    problem = storybook.validate(state, action)
    return problem.code if problem else None
