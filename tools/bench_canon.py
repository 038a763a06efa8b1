"""Reading JSON through canon.loads, the gate every scenario, catalog, save and journal record
passes: microseconds per document and kilobytes per second.

    python tools/bench_canon.py            # CPython
    micropython tools/bench_canon.py       # MicroPython (from the repository root)

Runs on both interpreters (same file). The documents: the largest golden scenario (a 4-player
Fight Club game of bots, 44 KB), the heroes catalog, and a saved heroes state; each read
`ROUNDS` times after one warm-up read. Prints one JSON object.
"""

import sys

if "" not in sys.path:
    sys.path.insert(0, "")
if sys.implementation.name != "micropython":
    import os
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from shared_rules import canon, catalog, heroes  # noqa: E402
from tools.bench_rules import elapsed_us, now_us  # noqa: E402  (the clock on both interpreters)

ROUNDS = 20


def documents():
    with open("tests/golden/fightclub/bots-4p-seed4.json", "rb") as f:
        scenario = f.read()
    with open(catalog.data_path("heroes_cards.json"), "rb") as f:
        cards = f.read()
    state = heroes.new_game({"mode": "ctf"}, 1, {"characters": [
        {"id": "the_giant", "seat": "red", "cell": [0, 2]},
        {"id": "gretel", "seat": "red", "cell": [6, 2]},
        {"id": "robin_hood", "seat": "blue", "cell": [0, 4]},
        {"id": "hop_o_my_thumb", "seat": "blue", "cell": [6, 4]}]})
    saved = canon.dumps(heroes.to_dict(state)).encode()
    return [("fightclub scenario", scenario), ("heroes catalog", cards),
            ("heroes saved state", saved)]


def bench():
    out = {"interpreter": sys.implementation.name}
    for name, data in documents():
        canon.loads(data)
        t0 = now_us()
        for _ in range(ROUNDS):
            canon.loads(data)
        us = elapsed_us(t0) // ROUNDS
        out[name] = {"bytes": len(data), "us": us, "kb_per_s": len(data) * 1000000 // 1024 // us}
    return out


if __name__ == "__main__":
    print(canon.dumps(bench()))
