"""FightclubGame on the table: the host package of the game (host/games/__init__.py)."""

from host.games.fightclub.adapter import FightclubGame as Game

__all__ = ["Game"]
