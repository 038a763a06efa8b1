"""The virtual table: tile firmware under MicroPython, and the players' hands on it."""
