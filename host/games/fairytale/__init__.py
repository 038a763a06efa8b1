"""Fairytale Games: The Battle Royale on the table: the host package of the game
(host/games/__init__.py)."""

from host.games.fairytale.adapter import FairytaleGame as Game

__all__ = ["Game"]
