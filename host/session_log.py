"""What a game on the table says: the session's log (each game's face words its lines)."""


class SessionLog:
    """Where the session says what happens: a list of lines, and optionally a printer.

    A line for staff only (a tile's id, a port the link will not use) goes to the printer
    and `lines` but not to `public_lines`, which every viewer of the web table reads.

    The web table hides the current game's secrets in every line it shows. A game that has
    ended is sealed (`seal`): its lines are kept as every viewer may read them, with that
    game's own secrets hidden, and are no longer read against the next game's secrets (whose
    hidden cards may be the last game's open ones)."""

    def __init__(self, printer=None):
        self.lines = []
        self.printer = printer
        self._staff = set()     # indexes of lines for staff only
        self._sealed = {}       # index: the line as every viewer reads it, once sealed

    def say(self, text, staff=False):
        if staff:
            self._staff.add(len(self.lines))
        self.lines.append(text)
        if self.printer is not None:
            self.printer(text)

    def seal(self, public):
        """Seal every public line said so far, through `public` (a line as every viewer may
        read it, the game that said it being over)."""
        for i in range(len(self.lines)):
            if i not in self._staff and i not in self._sealed:
                self._sealed[i] = public(self.lines[i])

    def public_lines(self, last):
        """The last `last` lines any viewer may read."""
        sealed, open_ = self.public_parts(last)
        return sealed + open_

    def public_parts(self, last):
        """The last `last` lines any viewer may read, as (sealed, open): the sealed lines of
        the games before, then the lines of the game on the table still to be read against
        its secrets."""
        sealed, open_ = [], []
        i = len(self.lines) - 1
        while i >= 0 and len(sealed) + len(open_) < last:
            if i in self._sealed:
                sealed.append(self._sealed[i])
            elif i not in self._staff:
                open_.append(self.lines[i])
            i -= 1
        return sealed[::-1], open_[::-1]
