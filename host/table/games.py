"""The games the table plays: each has a table adapter (interpreter, scenes, hands, view)."""

_MODULES = {"storybook": "host.table.storybook_table", "royale": "host.table.royale_table"}


def table_game(name):
    """The TableGame adapter of a game; ValueError when the table cannot play it yet."""
    import importlib
    if name not in _MODULES:
        raise ValueError("the table has no game %r (%s)" % (name, ", ".join(sorted(_MODULES))))
    try:
        module = importlib.import_module(_MODULES[name])
    except ImportError as e:
        raise ValueError("the table cannot play %s yet (%s)" % (name, e)) from None
    return module.TableGame
