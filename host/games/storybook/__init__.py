"""StorybookGame on the table: the host package of the game (host/games/__init__.py)."""

from host.games.storybook.adapter import StorybookGame as Game

__all__ = ["Game"]
