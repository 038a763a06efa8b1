"""The host link on a clock advanced by hand, with fake devices in place of serial ports.

Silence, offline, reopen backoff and reconnects are about time: here seconds pass
at once and exactly, so each deadline is checked to the tick. (The same
behaviours on real ptys with the real firmware: test_link_virtual_table.py and
test_link_misbehaving_tiles.py.)
"""

from shared_rules.led_scene import SOLID, uniform_scene
from host.link import LinkTimings, TableLink
from shared_rules import wire

UID = "e661410400000505"
PORT = "/dev/ttyACM-virtual"


class Clock:
    """Monotonic seconds that move only when the test says so."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class Bench:
    """The fake devices behind port paths, and a tile on each (or an unplugged cable)."""

    def __init__(self):
        self.tiles = {}         # path -> BenchTile
        self.plugged = set()
        self.opens = []         # (time, path) of each successful open
        self.refused = []       # (time, path) of each failed open
        self.clock = Clock()

    def open_device(self, path, baudrate, on_data, on_error):
        if path not in self.plugged:
            self.refused.append((self.clock(), path))
            raise OSError(2, "could not open port %s: no such file or directory" % path)
        self.opens.append((self.clock(), path))
        return self.tiles[path].connect(on_data, on_error)


class BenchTile:
    """A tile at the far end of a fake device: answers as firmware/link.py does (HELLO,
    empty snapshot, acks), beats every second while ``answer`` is true."""

    def __init__(self, uid, boot_id=0x1234):
        self.uid = uid
        self.boot_id = boot_id
        self.answer = True
        self.on_data = None
        self.decoder = wire.Decoder()
        self.seq = 0
        self.last_beat = None
        self.last_delivered = None      # when the host last got bytes from it
        self.received = []
        self.scene = {}
        self.outbox = bytearray()

    def connect(self, on_data, on_error):
        self.on_data = on_data
        self.decoder = wire.Decoder()
        return self

    # The device's side (what the host's transport calls).
    def write(self, data):
        for frame in self.decoder.feed(data):
            msg = wire.parse(frame)
            self.received.append(msg)
            if not self.answer:
                continue
            if frame.type == wire.HELLO_REQUEST:
                self.send(wire.HELLO, wire.hello(bytes.fromhex(self.uid), (0, 1, 0),
                                                 self.boot_id, 7, 4, 6, 7, 7, 0,
                                                 wire.CAP_FIELD_NEIGHBOURS, "cell"))
            elif frame.type == wire.SNAPSHOT_REQUEST:
                self.send(wire.SNAPSHOT, wire.snapshot(1000, [], []))
            elif frame.type in wire.ACKED:
                if frame.type == wire.LED_SCENE:
                    self.scene.update({c["cell"]: c["scene"] for c in msg["cells"]})
                self.outbox += wire.encode_frame(wire.ACK, 0, wire.ack(frame.seq))

    def close(self):
        self.on_data = None

    def send(self, msg_type, payload):
        self.seq += 1
        self.outbox += wire.encode_frame(msg_type, self.seq, payload)

    def count(self, name):
        return sum(1 for m in self.received if m["type"] == name)

    def service(self, now):
        """What the tile sends by itself (a heartbeat a second), then deliver its bytes."""
        if self.answer and (self.last_beat is None or now - self.last_beat >= 1.0):
            self.last_beat = now
            self.send(wire.HEARTBEAT, wire.heartbeat(5000))
        if self.on_data is not None and self.outbox:
            data, self.outbox = bytes(self.outbox), bytearray()
            self.last_delivered = now
            self.on_data(data)


def make_link(bench, timings=None):
    link = TableLink(ports=[PORT], clock=bench.clock, open_device=bench.open_device,
                     timings=timings)
    link.open()
    return link


def plugged_in(tile):
    """(bench, tile, link): the tile on PORT, plugged in, and a link to it."""
    bench = Bench()
    bench.tiles[PORT] = tile
    bench.plugged.add(PORT)
    return bench, tile, make_link(bench)


def run_for(bench, link, seconds, step=0.02):
    """Advance the clock by ``seconds`` in ticks, the tile and the link moving each tick."""
    end = bench.clock.now + seconds
    while bench.clock.now < end - 1e-9:
        bench.clock.now += step
        for tile in bench.tiles.values():
            tile.service(bench.clock.now)
        link.poll()


def events(link):
    out = []
    while not link.queue.empty():
        out.append(link.queue.get_nowait())
    return out


def red():
    return uniform_scene(SOLID, (200, 0, 0))


def test_a_silent_tile_goes_offline_after_the_offline_time_and_its_port_is_reopened():
    t = LinkTimings()
    bench, tile, link = plugged_in(BenchTile(UID))
    run_for(bench, link, 0.5)
    assert [(e.kind, e.detail) for e in events(link)] == [("online", "new")]
    tile.answer = False
    last_heard = tile.last_delivered
    run_for(bench, link, last_heard + t.offline_s - 0.05 - bench.clock.now)
    assert link.tiles[UID].online and events(link) == []
    run_for(bench, link, 0.1)
    [ev] = events(link)
    assert (ev.kind, ev.tile) == ("offline", UID) and ev.detail.startswith("silent for 3.")
    assert t.offline_s < ev.at - last_heard <= t.offline_s + 0.05
    # Silent on and on: the port is closed and opened again, as a USB reset may wake it.
    assert len(bench.opens) == 1
    run_for(bench, link, t.reopen_s - t.offline_s + 0.5)
    assert len(bench.opens) == 2
    # Closed once silent for reopen_s, opened again after the shortest backoff (a tick
    # to notice, a tick to close, a tick to reopen: 20 ms each here).
    reopened_after = bench.opens[1][0] - last_heard
    assert t.reopen_s + t.backoff_min_s < reopened_after <= t.reopen_s + t.backoff_min_s + 0.07


def test_a_reconnected_tile_gets_its_scene_and_neighbours_again():
    bench, tile, link = plugged_in(BenchTile(UID))
    run_for(bench, link, 0.5)
    link.set_scene(UID, [(0, red())])
    run_for(bench, link, 0.1)
    assert tile.scene == {0: red()} and link.pending_commands(UID) == []
    tile.answer = False
    run_for(bench, link, 3.5)
    assert [e.kind for e in events(link)] == ["online", "offline"]
    # Set while it is away: it waits for the tile.
    assert link.set_scene(UID, [(1, red())]) is None
    assert link.set_field_neighbours(UID, [0b10, 0b01]) is None
    tile.answer = True
    tile.scene = {}             # to see what comes again
    run_for(bench, link, 1.5)
    assert [(e.kind, e.detail) for e in events(link)] == [("online", "reconnect")]
    assert tile.scene == {0: red(), 1: red()}
    assert [m["masks"] for m in tile.received if m["type"] == "field_neighbours"] == \
        [[0b10, 0b01, 0, 0, 0, 0, 0]]
    health = link.tiles[UID].health
    assert health["reconnects"] == 1 and health["reboots"] == 0


def test_a_port_that_will_not_open_is_tried_again_with_doubling_backoff():
    t = LinkTimings()
    bench = Bench()
    bench.tiles[PORT] = BenchTile(UID)
    link = make_link(bench)               # the cable is out
    run_for(bench, link, 12.0)
    tries = [at for at, _ in bench.refused]
    waits = [b - a for a, b in zip(tries, tries[1:], strict=False)]
    # 0.1, 0.2, 0.4 ... doubling up to backoff_max_s; each wait ends at the link's next
    # poll (every 20 ms here).
    want = [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5.0]
    assert len(waits) >= len(want)
    assert all(w <= got < w + 0.03 for w, got in zip(want, waits[:len(want)], strict=True)), waits
    assert all(got < t.backoff_max_s + 0.03 for got in waits), waits
    bench.plugged.add(PORT)
    run_for(bench, link, t.backoff_max_s + 1.0)
    assert [(e.kind, e.detail) for e in events(link)] == [("online", "new")]
    assert len(bench.opens) == 1


def test_a_rebooted_tile_is_a_reboot_and_old_commands_are_dropped():
    bench, tile, link = plugged_in(BenchTile(UID))
    run_for(bench, link, 0.5)
    tile.answer = False                  # rebooting: nothing acked meanwhile
    link.set_scene(UID, [(2, red())])
    seq = link.pending_commands(UID)
    run_for(bench, link, 3.5)
    assert seq and link.pending_commands(UID) == seq    # kept until the tile is back
    tile.boot_id += 1
    tile.answer = True
    tile.scene = {}
    run_for(bench, link, 1.5)
    assert [(e.kind, e.detail) for e in events(link)] == \
        [("online", "new"), ("offline", "silent for 3.0 s"), ("online", "reboot")]
    assert tile.scene == {2: red()} and link.pending_commands(UID) == []
    assert link.tiles[UID].health["reboots"] == 1


# ---------------------------------------------------------------- a noisy line

class NoisyBenchTile(BenchTile):
    """A bench tile behind a line that corrupts ``corrupt`` and drops ``drop`` of the
    bytes both ways (seeded), as host/link/noisy_line.py does on ptys."""

    def __init__(self, uid, corrupt, drop, seed=1):
        super().__init__(uid)
        import random
        self.rng = random.Random(seed)
        self.corrupt = corrupt
        self.drop = drop

    def damage(self, data):
        out = bytearray()
        for b in data:
            r = self.rng.random()
            if r < self.drop:
                continue
            if r < self.drop + self.corrupt:
                b ^= self.rng.randrange(1, 256)
            out.append(b)
        return bytes(out)

    def write(self, data):
        super().write(self.damage(data))

    def service(self, now):
        if self.answer and (self.last_beat is None or now - self.last_beat >= 1.0):
            self.last_beat = now
            self.send(wire.HEARTBEAT, wire.heartbeat(5000))
        if self.on_data is not None and self.outbox:
            data, self.outbox = self.damage(bytes(self.outbox)), bytearray()
            self.last_delivered = now
            if data:
                self.on_data(data)


def test_on_a_line_losing_a_tenth_of_its_bytes_the_tile_comes_online_and_stays():
    bench, tile, link = plugged_in(NoisyBenchTile(UID, corrupt=0.10, drop=0.01))
    run_for(bench, link, 120.0)
    assert [(e.kind, e.detail) for e in events(link)] == [("online", "new")]
    session = link.sessions[PORT]
    # The line was measured: a byte in nine or ten is damaged, give or take.
    assert 0.05 < session.quality.byte_error < 0.2
    assert session.offline_after() > LinkTimings.offline_s
    assert session.scene_cells_per_frame() == 1
    # Seven cells lit: split into frames short enough to get through, all acked in the end.
    link.set_scene(UID, [(c, red()) for c in range(7)])
    # An ack is a 14-byte frame: at this loss one in five gets through whole, so a
    # frame's last ack may take minutes of virtual time (the seed decides whose).
    for _ in range(10):
        run_for(bench, link, 60.0)
        if not link.pending_commands(UID):
            break
    assert tile.scene == {c: red() for c in range(7)}
    assert link.pending_commands(UID) == []
    assert link.tiles[UID].online and events(link) == []
    # Pulled out: offline in the end, later than on a clean line but not never.
    tile.answer = False
    bench.plugged.discard(PORT)
    tile.on_data = None
    run_for(bench, link, LinkTimings.offline_max_s + 1.0, step=0.05)
    assert [e.kind for e in events(link)] == ["offline"]


def test_on_a_clean_line_the_timings_are_the_clean_ones():
    bench, _tile, link = plugged_in(BenchTile(UID))
    run_for(bench, link, 5.0)
    session = link.sessions[PORT]
    t = LinkTimings()
    assert session.quality.byte_error == 0.0
    assert session.offline_after() == t.offline_s
    assert session.heartbeat_interval() == t.heartbeat_s
    assert session.hello_interval(bench.clock()) == t.hello_retry_s
    assert session.scene_cells_per_frame() == wire.MAX_SCENE_CELLS
    assert link.delivery_s() == 0.0
    # Round trips measured: resends come sooner than the initial 100 ms, never under 30 ms.
    link.set_scene(UID, [(0, red())])
    run_for(bench, link, 0.2)
    assert session.round_trip.srtt is not None
    assert t.resend_min_s <= session.round_trip.timeout <= t.resend_s
