"""The scenario runner: play a scenario file and print the result as one canonical JSON object.

    python -m shared_rules.replay FILE.json
    micropython -m shared_rules.replay FILE.json     (from the repository root)
    fairytable replay FILE.json

Input: {"game", "seed", "options", "cards", "setup", "actions"} (see each
engine's module docstring for its setup and action forms). Output: the
engine's result plus "events" (every event, each with the index of the
action that caused it). Exit status 0; 2 with "error" on an illegal action
(the output then holds the state from before that action) or a malformed
file (the error names the field).
"""

import gc
import sys

from shared_rules import canon
from shared_rules import games
from shared_rules.errors import IllegalAction, ScenarioError

_SMALL_HEAP = sys.implementation.name == "micropython"
_TOP_FIELDS = ("game", "seed", "options", "cards", "setup", "actions")


def _check_scenario(doc):
    if not isinstance(doc, dict):
        raise ScenarioError("scenario", "must be a JSON object")
    for key in sorted(doc):
        if key not in _TOP_FIELDS and key not in ("description", "schema"):
            raise ScenarioError(key, "unknown field (expected one of %s)" % ", ".join(_TOP_FIELDS))
    if "game" not in doc:
        raise ScenarioError("game", "missing (one of %s)" % ", ".join(games.names()))
    if doc["game"] not in games.names():
        raise ScenarioError("game", "unknown game %r (one of %s)" % (
            doc["game"], ", ".join(games.names())))
    seed = doc.get("seed", 0)
    if not isinstance(seed, int) or seed is True or seed is False:
        raise ScenarioError("seed", "must be an integer")
    for key, kind, name in (("options", dict, "an object"), ("setup", dict, "an object"),
                            ("cards", list, "a list"), ("actions", list, "a list")):
        if key in doc and doc[key] is not None and not isinstance(doc[key], kind):
            raise ScenarioError(key, "must be %s" % name)
    for i, action in enumerate(doc.get("actions") or []):
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise ScenarioError("actions[%d]" % i, 'must be an object with a "type"')


def run(doc):
    """Play a scenario document; returns (exit status, result dict)."""
    try:
        _check_scenario(doc)
        engine = games.get(doc["game"])
        state = engine.new_game(doc.get("options") or {}, doc.get("seed", 0), doc.get("setup"),
                                doc.get("cards"))
    except ScenarioError as e:
        return 2, {"error": e.as_dict()}
    events = []
    for i, action in enumerate(doc.get("actions") or []):
        if i % 64 == 63 and _SMALL_HEAP:
            # MicroPython's GC does not move objects: without a collection now and then the
            # events of a long game spread over the whole heap and the growing list finds no
            # room (a 2,000-action Battle Royale game fails in the default 2 MB heap).
            gc.collect()
        try:
            new_events = engine.apply(state, action)
        except IllegalAction as e:
            result = engine.result(state)
            result["events"] = events
            err = e.as_dict()
            err["action"] = i
            result["error"] = err
            return 2, result
        for event in new_events:
            event = dict(event)
            event["action"] = i
            events.append(event)
    result = engine.result(state)
    result["events"] = events
    return 0, result


def run_text(text):
    try:
        doc = canon.loads(text)
    except ValueError as e:
        return 2, {"error": {"code": "malformed", "field": "file",
                             "message": "file: not valid JSON (%s)" % e}}
    return run(doc)


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print("usage: replay FILE.json   (play a scenario file; prints the result as JSON)")
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    try:
        with open(argv[0]) as f:
            text = f.read()
    except OSError as e:
        status, result = 2, {"error": {"code": "unreadable", "field": "file",
                                       "message": "cannot read %s (%s)" % (argv[0], e)}}
    else:
        status, result = run_text(text)
    canon.dump(result, sys.stdout.write)
    sys.stdout.write("\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
