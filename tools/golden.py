"""Golden playthroughs: write the expected output next to each scenario in tests/golden/.

    python tools/golden.py            # list scenarios whose expected output differs
    python tools/golden.py --update   # rewrite the expected outputs (review the diff!)
    python tools/golden.py --record storybook SEED OPTIONS_JSON NAME
                                      # record a random full game as a new scenario

The tests replay every scenario on CPython and MicroPython and compare bytes.
"""

import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from shared_rules import canon  # noqa: E402
from shared_rules import replay  # noqa: E402
from shared_rules.engine import Match  # noqa: E402
from shared_rules import playout  # noqa: E402


def scenarios():
    return sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "golden", "*", "*.json"))
                  if not p.endswith(".out.json"))


def expected_path(path):
    return path[:-len(".json")] + ".out.json"


def output_of(path):
    with open(path) as f:
        status, result = replay.run_text(f.read())
    return canon.dumps(result) + "\n"


def record(game, seed, options, name):
    match = Match(game, options, seed)
    rng = playout.prng.seed_state(seed ^ 0x5A5A5A5A)
    while match.engine.status(match.state) == "ongoing":
        rng, action = playout.choose(rng, match.legal_actions())
        match.apply(action)
    doc = {"description": "A random full game (seed %d), recorded by tools/golden.py." % seed,
           "game": game, "seed": seed, "options": options, "actions": match.actions}
    path = os.path.join(ROOT, "tests", "golden", game, name + ".json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(json.dumps(doc, indent=None, sort_keys=True) + "\n")
    return path


def main(argv):
    if argv[:1] == ["--record"]:
        print(record(argv[1], int(argv[2]), json.loads(argv[3]), argv[4]))
        return 0
    update = "--update" in argv
    stale = 0
    for path in scenarios():
        out = output_of(path)
        exp = expected_path(path)
        old = open(exp).read() if os.path.exists(exp) else None
        if old != out:
            stale += 1
            print(("updated " if update else "differs ") + os.path.relpath(path, ROOT))
            if update:
                with open(exp, "w") as f:
                    f.write(out)
    return 1 if stale and not update else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
