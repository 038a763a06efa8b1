"""The engines' own random numbers: xorshift32, integer-only, same on every interpreter.

Stdlib `random` gives different numbers on CPython and MicroPython, so the
PRNG state is a plain int that lives in the game state and is saved with it.
"""

_MASK = 0xFFFFFFFF


def seed_state(seed):
    """A non-zero 32-bit state from any int seed (splitmix-style scramble)."""
    x = (int(seed) * 0x9E3779B1 + 0x7F4A7C15) & _MASK
    x ^= x >> 16
    x = (x * 0x85EBCA6B) & _MASK
    x ^= x >> 13
    x = (x * 0xC2B2AE35) & _MASK
    x ^= x >> 16
    return x or 0x6D2B79F5


def next32(state):
    """Advance: returns (new_state, 32-bit output)."""
    x = state
    x ^= (x << 13) & _MASK
    x ^= x >> 17
    x ^= (x << 5) & _MASK
    return x, x


def below(state, n):
    """A uniform int in [0, n) without modulo bias: returns (new_state, value)."""
    if n <= 0:
        raise ValueError("below() needs n > 0")
    limit = (_MASK + 1) - ((_MASK + 1) % n)
    while True:
        state, x = next32(state)
        if x < limit:
            return state, x % n


def shuffle(state, items):
    """Fisher-Yates shuffle of a list in place: returns the new state."""
    i = len(items) - 1
    while i > 0:
        state, j = below(state, i + 1)
        items[i], items[j] = items[j], items[i]
        i -= 1
    return state
