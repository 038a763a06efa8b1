"""What a game on the table says: the session's log (each game's face words its lines)."""


class SessionLog:
    """Where the session says what happens: a list of lines, and optionally a printer."""

    def __init__(self, printer=None):
        self.lines = []
        self.printer = printer

    def say(self, text):
        self.lines.append(text)
        if self.printer is not None:
            self.printer(text)
