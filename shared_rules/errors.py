"""The errors a player or an operator sees from the rules: stable codes and plain sentences."""

_MAX_SHOWN = 40


def shown(v):
    """A bad value as it may appear in a sentence: short, and the same on both interpreters.

    Like repr() for numbers and plain ASCII text; repr() itself differs between the
    interpreters for dicts (key order) and non-ASCII text (which characters are escaped), so
    dicts are shown with sorted keys and other text as canonical JSON (escaped ASCII).
    """
    text = _show(v, 3)
    return text if len(text) <= _MAX_SHOWN + 2 else text[:_MAX_SHOWN] + "..."


def _show(v, depth):
    from shared_rules import canon  # a local import: canon is loaded by then anyway
    if isinstance(v, str):
        if all(" " <= c <= "~" for c in v):
            return repr(v) if len(v) <= _MAX_SHOWN else repr(v[:_MAX_SHOWN]) + "..."
        return canon.dumps(v[:_MAX_SHOWN])
    if v is None or v is True or v is False or isinstance(v, int):
        return repr(v)
    if isinstance(v, (list, tuple)):
        if depth <= 0:
            return "[...]"
        return "[" + ", ".join([_show(x, depth - 1) for x in v[:10]]) + (
            ", ...]" if len(v) > 10 else "]")
    if isinstance(v, dict):
        if depth <= 0:
            return "{...}"
        keys = sorted([k for k in v if isinstance(k, str)])
        return "{" + ", ".join(["%s: %s" % (_show(k, 0), _show(v[k], depth - 1))
                                for k in keys[:10]]) + (", ...}" if len(keys) > 10 else "}")
    return "a value of the wrong type"


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


def check_action_shape(action, fields, game):
    """The type of `action` once its shape is right: an object whose "type" is a key of
    `fields` (type -> the keys that action takes) and no other keys; else IllegalAction
    (bad_action, unknown_action, bad_field) naming `game` and what it takes."""
    if not isinstance(action, dict):
        raise IllegalAction("bad_action", 'An action must be an object with a "type".')
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in fields:
        raise IllegalAction("unknown_action", "There is no action %s in %s (actions: %s)." % (
            shown(kind), game, ", ".join(sorted(fields))))
    allowed = fields[kind]
    for key in action:
        if key != "type" and key not in allowed:
            # Name the first wrong key in sorted order, whatever the dict's order.
            key = sorted([k for k in action if k != "type" and k not in allowed])[0]
            raise IllegalAction("bad_field", "%s does not take %s (it takes %s)." % (
                kind, shown(key), ", ".join(allowed) or "nothing"))
    return kind


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
