"""What the games that roll dice in the tray share: a die settling in a pocket."""

from host.table.contract import TableInterpreter
from host.table.mismatch import Mismatch


class DiceTrayInterpreter(TableInterpreter):
    """An interpreter with a dice tray. It keeps ``pockets`` (pocket -> die item or None),
    ``pocket_problems`` (pocket -> sentence), ``used`` (pockets whose die was read
    already: it must come out before it counts again) and ``throw`` (the throw awaited, or
    None), and reads a throw with ``_read(now)`` once the table matches."""

    def __init__(self, match, hide_window_ms=None):
        super().__init__(match, hide_window_ms)
        self.pockets = {}          # pocket -> die item or None
        self.pocket_problems = {}  # pocket -> sentence
        self.used = set()          # pockets whose die was read (take it out to throw again)
        self.throw = None          # the throw under way

    def take_over(self, old):
        """The cells, the readers and the tray of the last game: its dice still lie in their
        pockets (a die put back showing the same face is no change a tile reports), and
        count as read: the new game's first throw lights them to be taken out and thrown."""
        super().take_over(old)
        self.pockets = dict(getattr(old, "pockets", {}))
        self.pocket_problems = dict(getattr(old, "pocket_problems", {}))
        self.used = set(p for p in self.pockets if self.pockets[p])

    def tray_mismatches(self, is_die, dice_words):
        """What is wrong in the tray, as mismatches: a bad tag in a pocket, or a pocket
        holding something `is_die(item)` says is not one of the game's dice (`dice_words`
        names them: "one of the game's two dice")."""
        out = []
        for pocket in sorted(self.pocket_problems):
            out.append(Mismatch("bad_die", [], "Pocket %d: %s" % (
                pocket + 1, self.pocket_problems[pocket])))
        for pocket in sorted(p for p in self.pockets if self.pockets[p]):
            item = self.pockets[pocket]
            if not is_die(item):
                out.append(Mismatch("not_a_die", [], "Pocket %d holds %s, which is not %s: "
                                    "take it out." % (pocket + 1, item, dice_words)))
        return out

    def pocket_die(self, pocket):
        """The face read in `pocket` ("die:<which>:<face>"), or None."""
        item = self.pockets.get(pocket)
        if not item or not item.startswith("die:"):
            return None
        return int(item.split(":")[2])

    def dice(self, pocket, item, problem, now):
        """A die settled in `pocket` (its face item), or the pocket emptied (None)."""
        if problem:
            self.pocket_problems[pocket] = problem
        else:
            self.pocket_problems.pop(pocket, None)
        self.pockets[pocket] = item
        if item is None and problem is None:
            self.used.discard(pocket)
        action = self.reconcile(now)
        if action is not None or self.mismatches or self.throw is None:
            return action
        return self._read(now)

    def _read(self, now):
        """Must: the action the dice in the tray make now, or None."""
        raise NotImplementedError("%s._read" % type(self).__name__)
