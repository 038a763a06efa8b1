"""HeroesGame on the table: the host package of the game (host/games/__init__.py)."""

from host.games.heroes.adapter import HeroesGame as Game

__all__ = ["Game"]
