"""What the games that roll dice in the tray share: a die settling in a pocket."""

from host.table.contract import TableInterpreter


class DiceTrayInterpreter(TableInterpreter):
    """An interpreter with a dice tray. It keeps ``pockets`` (pocket -> die item or None),
    ``pocket_problems`` (pocket -> sentence), ``used`` (pockets whose die was read
    already: it must come out before it counts again) and ``throw`` (the throw awaited, or
    None), and reads a throw with ``_read(now)`` once the table matches."""

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
