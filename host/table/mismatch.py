"""A disagreement between the table and the game: what, where, and what to do, in words."""


class Mismatch:
    """A disagreement between the table and the game: what, where, and what to do."""

    def __init__(self, code, cells, message):
        self.code = code
        self.cells = sorted(cells)
        self.message = message

    def as_dict(self):
        return {"code": self.code, "cells": [list(c) for c in self.cells],
                "message": self.message}

    def __eq__(self, other):
        return isinstance(other, Mismatch) and self.as_dict() == other.as_dict()

    def __repr__(self):
        return "Mismatch(%s, %s, %r)" % (self.code, self.cells, self.message)


def piece_name(item):
    """A piece the game has no name for (another game's), in words: its name without the
    game's code ("storybook:the_crocodile" -> "the crocodile")."""
    return item.split(":")[-1].replace("_", " ")


def foreign(item):
    """Another game's piece at the start of a sentence: "That piece (the crocodile)"."""
    return "That piece (%s)" % piece_name(item)
