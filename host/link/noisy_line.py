"""A noisy serial line for reliability tests: a relay that corrupts and drops bytes.

A NoisyLine sits between a tile's port (the pty of a virtual tile) and the
host: the host opens ``line.port``, a new pseudo-terminal whose other end a
thread relays to and from the tile's port. In each direction the thread
drops a fraction ``drop`` of the bytes and replaces a fraction ``corrupt``
of the rest with another byte, chosen by a generator seeded with ``seed``
(the same seed gives the same faults for the same bytes). The rates may be
changed while it runs (``set_rates``): a line clean at the start and noisy
later. ``counts`` says how many bytes went through, were dropped and were
corrupted, per direction.

Used by ``fairytable run --line-faults`` (the virtual table only),
tools/line_faults.py and the link's fault tests.
"""

import os
import random
import select
import threading
import tty

_TO_HOST, _TO_TILE = "to_host", "to_tile"


def parse_rates(text):
    """``"CORRUPT,DROP[,SEED]"`` in percent (``"10,1"``, ``"5,0.5,7"``) -> (corrupt, drop,
    seed) as fractions; ValueError with a sentence for anything else."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) not in (2, 3):
        raise ValueError("--line-faults wants CORRUPT,DROP[,SEED] in percent (e.g. 10,1), "
                         "not %r" % text)
    try:
        corrupt, drop = float(parts[0]), float(parts[1])
        seed = int(parts[2]) if len(parts) == 3 else 0
    except ValueError:
        raise ValueError("--line-faults wants numbers: CORRUPT,DROP[,SEED] in percent "
                         "(e.g. 10,1), not %r" % text) from None
    for name, value in (("CORRUPT", corrupt), ("DROP", drop)):
        if not 0 <= value <= 100:
            raise ValueError("--line-faults: %s is a percentage from 0 to 100, not %r"
                             % (name, value))
    return corrupt / 100.0, drop / 100.0, seed


class NoisyLine:
    """A relay on pseudo-terminals between ``tile_port`` and ``self.port`` that damages
    bytes at the given rates (fractions, 0.1 = 10 %)."""

    def __init__(self, tile_port, corrupt=0.0, drop=0.0, seed=0):
        self.tile_fd = os.open(tile_port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.tile_fd)
        self.master, slave = os.openpty()
        tty.setraw(self.master)
        tty.setraw(slave)
        os.set_blocking(self.master, False)
        # Kept open: the relay never reads EIO before the host opens the port by path.
        self.slave = slave
        self.port = os.ttyname(slave)
        self.lock = threading.Lock()
        self.corrupt = corrupt
        self.drop = drop
        # One generator per direction: what one side sends does not change the other's faults.
        self.rng = {_TO_HOST: random.Random("%s/host" % seed),
                    _TO_TILE: random.Random("%s/tile" % seed)}
        self.counts = {d: {"bytes": 0, "dropped": 0, "corrupted": 0}
                       for d in (_TO_HOST, _TO_TILE)}
        self.pending = {_TO_HOST: bytearray(), _TO_TILE: bytearray()}
        self.stopping = False
        self.thread = threading.Thread(target=self._run, daemon=True,
                                       name="noisy line %s" % tile_port)
        self.thread.start()

    def set_rates(self, corrupt, drop):
        with self.lock:
            self.corrupt = corrupt
            self.drop = drop

    def _damage(self, data, direction):
        with self.lock:
            corrupt, drop = self.corrupt, self.drop
        counts = self.counts[direction]
        counts["bytes"] += len(data)
        if not corrupt and not drop:
            return data
        rng = self.rng[direction]
        out = bytearray()
        for b in data:
            r = rng.random()
            if r < drop:
                counts["dropped"] += 1
                continue
            if r < drop + corrupt:
                b ^= rng.randrange(1, 256)     # another byte, never the same one
                counts["corrupted"] += 1
            out.append(b)
        return bytes(out)

    def _run(self):
        fds = {self.tile_fd: (_TO_HOST, self.master), self.master: (_TO_TILE, self.tile_fd)}
        while not self.stopping:
            want_write = [out for direction, out in fds.values() if self.pending[direction]]
            try:
                readable, writable, _ = select.select(list(fds), want_write, [], 0.05)
            except (OSError, ValueError):
                return
            for fd in readable:
                direction, _out = fds[fd]
                try:
                    data = os.read(fd, 4096)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""      # the host has not opened its end (EIO): nothing to relay
                if data:
                    self.pending[direction] += self._damage(data, direction)
            for fd in writable:
                direction = _TO_HOST if fd == self.master else _TO_TILE
                buf = self.pending[direction]
                try:
                    n = os.write(fd, buf)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    n = len(buf)    # nobody reads that end: the bytes are lost, as on a wire
                del buf[:n]
                if len(buf) > 65536:    # a side that never reads: a wire does not queue
                    del buf[:]

    def close(self):
        self.stopping = True
        self.thread.join(5)
        for fd in (self.master, self.slave, self.tile_fd):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
