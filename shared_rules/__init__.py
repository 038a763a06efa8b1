"""Game rules and the wire codec, shared by the host (CPython) and the tiles (MicroPython).

Nothing here may use dataclasses, enum, typing at run time, match, stdlib
random, floats, or dict/set iteration order in results.
"""
