"""The errors a player or an operator sees from the rules: stable codes and plain sentences."""

_MAX_SHOWN = 40


def shown(v):
    """A bad value as it may appear in a sentence: short, and the same on both interpreters.

    repr() differs for dicts (key order) and for non-ASCII text (which characters are
    escaped), so anything but plain ASCII text and numbers is shown as canonical JSON.
    """
    from shared_rules import canon  # canon imports nothing from here; kept local anyway
    if isinstance(v, str) and all(" " <= c <= "~" for c in v):
        text = repr(v) if len(v) <= _MAX_SHOWN else repr(v[:_MAX_SHOWN]) + "..."
        return text
    if v is None or v is True or v is False or isinstance(v, int):
        text = repr(v)
    else:
        try:
            text = canon.dumps(v)
        except TypeError:
            text = "a value of the wrong type"
    return text if len(text) <= _MAX_SHOWN + 2 else text[:_MAX_SHOWN] + "..."


class IllegalAction(ValueError):
    """An action the rules do not allow now. The state is left unchanged.

    `code` is stable (tests, lighting and translations key on it); `message`
    is a sentence a player understands.
    """

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message

    def as_dict(self):
        return {"code": self.code, "message": self.message}


class ScenarioError(ValueError):
    """A malformed scenario, catalog or saved game.

    `field` names where, e.g. setup.board[2].cell.
    """

    def __init__(self, field, message):
        super().__init__("%s: %s" % (field, message))
        self.field = field
        self.message = message

    def as_dict(self):
        return {"code": "malformed", "field": self.field,
                "message": "%s: %s" % (self.field, self.message)}
