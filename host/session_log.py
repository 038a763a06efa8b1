"""What a game on the table says: the session's log, and one line per action for it."""


class SessionLog:
    """Where the session says what happens: a list of lines, and optionally a printer."""

    def __init__(self, printer=None):
        self.lines = []
        self.printer = printer

    def say(self, text):
        self.lines.append(text)
        if self.printer is not None:
            self.printer(text)


# Endings a player may not expect, said with the game over (the others are plain to see).
ENDINGS = {"dead_end": "no contract in play can ever be completed now: the game is scored "
                       "here (fightclub.py's own rule; the book has none for it)"}


def describe(action, events=()):
    """One line for the host's log."""
    parts = [action["type"]]
    for key in ("card", "cell", "dir"):
        if key in action:
            parts.append("%s=%s" % (key, action[key]))
    for ev in events:
        if ev["type"] == "captured":
            parts.append("captured %s (+%d %s)" % (ev["card"], ev["points"], ev["by_side"]))
        elif ev["type"] == "game_over":
            parts.append("game over: %s wins" % (ev["winner"] or "nobody"))
            if ev.get("reason") in ENDINGS:
                parts.append("(%s)" % ENDINGS[ev["reason"]])
    return " ".join(parts)
