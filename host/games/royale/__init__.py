"""RoyaleGame on the table: the host package of the game (host/games/__init__.py)."""

from host.games.royale.adapter import RoyaleGame as Game

__all__ = ["Game"]
