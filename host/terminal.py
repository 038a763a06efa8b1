"""The terminal view of the table: what every game's view shares, and typed inputs for it.

Each game draws its own board (`render` of its adapter, host/games/<name>/terminal.py):
one line per row, north at the top, each cell with the colour its LEDs show, then the
scores, whose turn and the mismatches in words.

Typed inputs (the virtual table's hands for people at a keyboard; a real
table has cards, pads and buttons instead):

    place CARD C R      lift C R      tap C R      double C R      hold C R
    place CARD seat N   lift seat N   tap seat N   hold seat N   (seat N's card reader,
                        where the table has one, and its pad)
    SEAT draw | SEAT end_turn | SEAT twist        staff undo | pause | resume
"""


HELP = __doc__.split("Typed inputs")[1].split("\n\n", 1)[1].rstrip()


def ansi(rgb, text):
    r, g, b = rgb
    if (r, g, b) == (0, 0, 0):
        return text
    return "\x1b[48;2;%d;%d;%dm%s\x1b[0m" % (min(255, r * 2), min(255, g * 2), min(255, b * 2),
                                              text)


def parse_command(line):
    """A typed line as ("hands", op, args) / ("button", seat, name); ValueError says why not."""
    words = line.split()
    if not words:
        raise ValueError("type a command (help lists them)")
    if words[0] in ("place", "lift", "tap", "double", "hold"):
        want = 4 if words[0] == "place" else 3
        if len(words) != want:
            raise ValueError("usage: %s" % ("place CARD C R" if words[0] == "place"
                                            else words[0] + " C R"))
        try:
            if words[-2] == "seat":
                cell = ("seat", int(words[-1]))     # a seat's card reader (its pad too)
            else:
                cell = (int(words[-2]), int(words[-1]))
        except ValueError:
            raise ValueError("a cell is two whole numbers: column row (or seat N, a seat's "
                             "card reader)") from None
        return ("hands", words[0], (words[1], cell) if words[0] == "place" else (cell,))
    if len(words) == 2:
        return ("button", words[0], words[1])
    raise ValueError("unknown command %r:\n%s" % (line, HELP))
