"""The errors a player or an operator sees from the rules: stable codes and plain sentences."""


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
