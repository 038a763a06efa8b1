"""What a viewer may not read: a hidden card's every form in text, and the redaction that
replaces it with "a hidden card" in every string of a view or a log line.

The web table runs every view through `redact` as a last guard; the session's log seals a
finished game's lines with that game's secrets (host/session_log.py), so the next game's
hidden cards do not blank the names of the last game's open ones."""

import re
import string

__all__ = ["HIDDEN", "redact", "redactor", "secret_words"]

HIDDEN = "a hidden card"
WORD = re.compile(r"[A-Za-z0-9_]+")
WORD_CHARS = frozenset(string.ascii_letters + string.digits + "_")


def redact(obj, words):
    """Replace every secret word in the strings of obj (a JSON-like value), where it stands
    as a word of its own (team_the_dodo_fans is not the_dodo), the longest first."""
    if not words:
        return obj
    return _redact(obj, Secrets(words))


def redactor(words):
    """A line -> the line with `words` hidden: the secrets indexed once for many lines (a
    finished game's whole log, sealed)."""
    if not words:
        return lambda text: text
    return Secrets(words).sub


class Secrets:
    """The secret words indexed by their first word, so a string is read once, word by word
    (a game with hundreds of hidden cards would otherwise compile a pattern of hundreds of
    alternatives for every viewer at every change)."""

    def __init__(self, words):
        self.by_first = {}
        odd = []
        for w in sorted(set(words), key=lambda w: (-len(w), w)):
            first = WORD.match(w)
            if first is None:
                odd.append(w)       # not starting with a letter or digit: a pattern of its own
            else:
                self.by_first.setdefault(first.group(), []).append(w)
        self.firsts = frozenset(self.by_first)
        self.odd = re.compile(r"(?<![A-Za-z0-9_])(?:%s)(?![A-Za-z0-9_])" % "|".join(
            re.escape(w) for w in odd)) if odd else None

    def sub(self, text):
        if self.odd is None and self.firsts.isdisjoint(WORD.findall(text)):
            return text         # most strings: no secret's first word in them
        out, at = [], 0
        for m in WORD.finditer(text):
            if m.start() < at or m.group() not in self.by_first:
                continue
            for w in self.by_first[m.group()]:
                end = m.start() + len(w)
                if text.startswith(w, m.start()) and (end == len(text) or
                                                      text[end] not in WORD_CHARS):
                    out.append(text[at:m.start()])
                    out.append(HIDDEN)
                    at = end
                    break
        if at:
            out.append(text[at:])
            text = "".join(out)
        if self.odd is not None:
            text = self.odd.sub(HIDDEN, text)
        return text


def _redact(obj, secrets):
    if isinstance(obj, str):
        return secrets.sub(obj)
    if isinstance(obj, list):
        return [_redact(x, secrets) for x in obj]
    if isinstance(obj, dict):
        # LED scenes are effect names and numbers: nothing there can name a card.
        return {k: (v if k == "leds" else _redact(v, secrets)) for k, v in obj.items()}
    return obj


def secret_words(state, engine, face, seat=None):
    """The ids and names the viewer may not see (every form a hidden card takes in text),
    less what the seat itself holds."""
    words = set(engine.secrets(state, seat)) | set(face.secret_names(state, seat))
    if seat is not None:
        words -= set(face.own_words(state, seat))
    return sorted(words, key=lambda w: (-len(w), w))
