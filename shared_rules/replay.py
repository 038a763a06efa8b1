"""The scenario runner: play a scenario file and print the result as one canonical JSON object.

    python -m shared_rules.replay FILE.json
    micropython -m shared_rules.replay FILE.json     (from the repository root)
    fairytable replay FILE.json

Input: {"game", "seed", "options", "cards", "setup", "actions"} (see each
engine's module docstring for its setup and action forms). Output: the
engine's result plus "events" (every event, each with the index of the
action that caused it). Exit status 0; 2 with "error" on an illegal action
(the output then holds the state from before that action) or a malformed
file (the error names the field, as a JSON path such as setup.board[3].card).
With status 2 the same sentence, naming the file, is also written to stderr.

Limits, the same on both interpreters: a scenario file may be at most
MAX_FILE_BYTES (64 KiB: a 2,000-action Battle Royale game is about 54 KB),
checked before the file is read, so MicroPython's default heap always has
room to play it: there the result is written in two passes, the events
streamed and never held (64 KiB of actions can print over 1 MB of events).
The JSON inside is bounded by canon.loads (nesting depth, digits, string
length), which also refuses a name given twice in one object (naming it). A
file that breaks the engine anyway gets status 1 and a sentence, never a
traceback.
"""

import gc
import os
import sys

from shared_rules import canon
from shared_rules import games
from shared_rules.errors import IllegalAction, ScenarioError, shown

_SMALL_HEAP = sys.implementation.name == "micropython"
_TOP_FIELDS = ("game", "seed", "options", "cards", "setup", "actions")
MAX_FILE_BYTES = 64 * 1024


def _check_scenario(doc):
    if not isinstance(doc, dict):
        raise ScenarioError("scenario", "must be a JSON object")
    for key in sorted(doc):
        if key not in _TOP_FIELDS and key not in ("description", "schema"):
            raise ScenarioError(canon.path("", key), "unknown field (expected one of %s)" %
                                ", ".join(_TOP_FIELDS))
    if "game" not in doc:
        raise ScenarioError("game", "missing (one of %s)" % ", ".join(games.names()))
    if not isinstance(doc["game"], str) or doc["game"] not in games.names():
        raise ScenarioError("game", "unknown game %s (one of %s)" % (
            shown(doc["game"]), ", ".join(games.names())))
    if "description" in doc and not isinstance(doc["description"], str):
        raise ScenarioError("description", "must be text")
    if doc.get("schema", canon.SCHEMA_VERSION) != canon.SCHEMA_VERSION or \
            doc.get("schema") is True:
        raise ScenarioError("schema", "must be %d, the version this program reads (got %s)" % (
            canon.SCHEMA_VERSION, shown(doc.get("schema"))))
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


def run(doc, encoded=False, sink=None):
    """Play a scenario document; returns (exit status, result dict).

    encoded: keep each event as its canonical JSON text (canon.Encoded) rather than a dict
    (a fraction of the memory; the printed bytes are the same). sink: a function given
    each event instead, the result's "events" then left empty.
    """
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
            if sink is not None:
                sink(event)
            else:
                events.append(canon.Encoded(canon.dumps(event)) if encoded else event)
        new_events = None
    result = engine.result(state)
    result["events"] = events
    return 0, result


def _file_error(code, field, message):
    return 2, {"error": {"code": code, "field": field, "message": message}}


def _parse(text):
    """(document, None), or (None, (2, error result)) when the text is not a scenario's JSON."""
    try:
        return canon.loads(text), None
    except canon.ReadError as e:
        if e.field:
            return None, _file_error("malformed", e.field, e.message)
        return None, _file_error("malformed", "file", "file: " + e.message)


def run_text(text, encoded=False):
    """Play scenario text (str or UTF-8 bytes); returns (exit status, result dict)."""
    doc, failed = _parse(text)
    return failed or run(doc, encoded)


def _size(path):
    # os.stat is in both interpreters' os module; st_size is field 6 of the tuple on both.
    return os.stat(path)[6]


def replay_file(path, encoded=True):
    """Read and play a scenario file; returns (exit status, result dict). Bad input: 2."""
    doc, failed = read_file(path)
    return failed or run(doc, encoded)


def read_file(path):
    """(scenario document, None), or (None, (2, error result)) when it cannot be one."""
    try:
        size = _size(path)
    except OSError as e:
        return None, _file_error("unreadable", "file", "file: cannot read it (%s)" %
                                 _os_reason(e))
    if size > MAX_FILE_BYTES:
        return None, _file_error("too_large", "file", "file: %d bytes is more than a scenario "
                                 "may hold (%d bytes)" % (size, MAX_FILE_BYTES))
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        return None, _file_error("unreadable", "file", "file: cannot read it (%s)" %
                                 _os_reason(e))
    if len(data) > MAX_FILE_BYTES:  # grew since it was measured, or not a regular file
        return None, _file_error("too_large", "file", "file: more than a scenario may hold "
                                 "(%d bytes)" % MAX_FILE_BYTES)
    return _parse(data)


def _discard(event):
    pass


def _write_two_passes(doc, write):
    """Play the scenario twice and write the result as it goes; returns (status, result
    without its events).

    The output's keys are sorted, and "events" comes before keys of the final state
    ("game", "status", ...) but after others ("board", "error"): the first pass finds the
    final state with no events kept, the second streams the events between them. A 64 KiB
    scenario can print over 1 MB of events, more than MicroPython's default heap holds.
    """
    status, result = run(doc, sink=_discard)
    if "events" not in result:
        canon.dump(result, write)
        return status, result
    write("{")
    first = [True]
    keys = sorted(result)
    for n in range(len(keys)):
        k = keys[n]
        write(("," if n else "") + canon.dumps(k) + ":")
        if k != "events":
            canon.dump(result[k], write, 1)
            continue
        write("[")

        def stream(event):
            write(("" if first[0] else ",") + canon.dumps(event))
            first[0] = False
        run(doc, sink=stream)
        write("]")
    write("}")
    return status, result


def _os_reason(e):
    # The two interpreters word OSError differently; the error number is the same.
    reasons = {2: "no such file", 13: "permission denied", 21: "it is a folder",
               20: "a part of the path is not a folder"}
    code = e.args[0] if e.args and isinstance(e.args[0], int) else None
    return reasons.get(code, "error %s" % code)


def error_sentence(path, result):
    err = result.get("error") or {}
    message = err.get("message", "")
    if "action" in err:
        message = "actions[%d]: %s" % (err["action"], message)
    return "%s: %s" % (path, message)


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print("usage: replay FILE.json   (play a scenario file; prints the result as JSON)")
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    path = argv[0]
    try:
        if _SMALL_HEAP:
            doc, failed = read_file(path)
            if failed is None:
                status, result = _write_two_passes(doc, sys.stdout.write)
                sys.stdout.write("\n")
                if status:
                    sys.stderr.write(error_sentence(path, result) + "\n")
                return status
            status, result = failed
        else:
            status, result = replay_file(path)
    except MemoryError:
        status, result = 1, {"error": {"code": "no_memory", "field": "file", "message":
                                       "file: there is not enough memory to play it"}}
    except Exception as e:  # a bug in the rules: say so in a sentence, not a traceback
        status, result = 1, {"error": {"code": "internal", "field": "file", "message":
                                       "file: the rules engine failed on it (%s); please "
                                       "report this with the file" % type(e).__name__}}
    canon.dump(result, sys.stdout.write)
    sys.stdout.write("\n")
    if status:
        sys.stderr.write(error_sentence(path, result) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
