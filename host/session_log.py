"""What a game on the table says: the session's log (each game's face words its lines)."""


class SessionLog:
    """Where the session says what happens: a list of lines, and optionally a printer.

    A line for staff only (a tile's id, a port the link will not use) goes to the printer
    and `lines` but not to `public_lines`, which every viewer of the web table reads."""

    def __init__(self, printer=None):
        self.lines = []
        self.printer = printer
        self._staff = set()     # indexes of lines for staff only

    def say(self, text, staff=False):
        if staff:
            self._staff.add(len(self.lines))
        self.lines.append(text)
        if self.printer is not None:
            self.printer(text)

    def public_lines(self, last):
        """The last `last` lines any viewer may read."""
        out = []
        i = len(self.lines) - 1
        while i >= 0 and len(out) < last:
            if i not in self._staff:
                out.append(self.lines[i])
            i -= 1
        return out[::-1]
