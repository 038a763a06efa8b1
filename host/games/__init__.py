"""The games the table plays: one line each, a game's name and its host package.

A game's package (`host/games/<name>/`) holds everything the host knows of that game: its
adapter (`Game`, a host/table/contract.py TableGame), its interpreter, scenes, terminal
view, virtual hands, web view, tagged items and built-in layout (`layout.toml`). Nothing
else in the host names a game: the session, the layouts, the tag registry, `fairytable run`,
the web table and the staff page ask this registry and the game's adapter.

Deleting a game's package and its line here leaves every other game working.
"""

import importlib
import os

# name -> the package whose `Game` is the game's TableGame adapter. The first is the table's
# default game (`fairytable run` with no --game).
_PACKAGES = {
    "storybook": "host.games.storybook",
    "royale": "host.games.royale",
    "heroes": "host.games.heroes",
    "fightclub": "host.games.fightclub",
    "fairytale": "host.games.fairytale",
}

_adapters = {}


def names():
    """The games the table plays, the default first."""
    return list(_PACKAGES)


def default():
    """The game `fairytable run` plays when no --game is given."""
    return names()[0]


def table_game(name):
    """The TableGame adapter of a game (one instance per game); ValueError when the table
    cannot play it."""
    if name not in _PACKAGES:
        raise ValueError("the table has no game %r (%s)" % (name, ", ".join(names())))
    if name not in _adapters:
        try:
            module = importlib.import_module(_PACKAGES[name])
        except ImportError as e:
            raise ValueError("the table cannot play %s yet (%s)" % (name, e)) from None
        _adapters[name] = module.Game()
    return _adapters[name]


def layout_path(name):
    """The built-in layout of a game (package data: `host/games/<name>/layout.toml`)."""
    if name not in _PACKAGES:
        raise ValueError("the table has no game %r (%s)" % (name, ", ".join(names())))
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, name, "layout.toml")
