"""The games the table plays: name -> the game's TableGame adapter (host/table/contract.py)."""

_ADAPTERS = {"storybook": ("host.table.storybook_game", "StorybookGame"),
             "royale": ("host.table.royale_game", "RoyaleGame"),
             "heroes": ("host.table.heroes_game", "HeroesGame"),
             "fightclub": ("host.table.fightclub_game", "FightclubGame")}


def table_game(name):
    """The TableGame adapter of a game (an instance); ValueError when the table cannot play it."""
    import importlib
    if name not in _ADAPTERS:
        raise ValueError("the table has no game %r (%s)" % (name, ", ".join(sorted(_ADAPTERS))))
    module_name, class_name = _ADAPTERS[name]
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError("the table cannot play %s yet (%s)" % (name, e)) from None
    return getattr(module, class_name)()
