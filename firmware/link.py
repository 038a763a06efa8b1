"""The tile's end of the wire: frames in and out, acks, resends, heartbeats.

hardware/protocol.md is the spec. The link owns sequence numbers and the
resend queue; the main loop hands it events to send and gets back the host
commands that arrived (acked, and deduplicated by sequence number).

A host that keeps the port open without reading it fills the Pico's USB CDC
transmit buffer (256 bytes); a write that does not fit then blocks the whole
tile for up to 500 ms (MICROPY_HW_USB_CDC_TX_TIMEOUT) before its bytes are
dropped. So resends, and any frame once the host has been silent for
``host_timeout_ms``, go out only while the bytes written since the host was
last heard fit that buffer (``_QUIET_TX_BYTES``); what does not fit is not
written (an acked event stays queued; the host's HELLO and snapshot request
supersede the queue when it comes back). A TAG longer than the link's buffer is
written in pieces and not kept (``send``): its resend is a report of the slot anew,
made while little (``_QUIET_SMALL``) is unheard.

A host command is remembered as done (``seen``: a resend of it is acked again and not
acted on twice) only once the tile acked it, after acting on it: one whose handling
failed is handled again when the host resends it. The memory is forgotten when the
host asks for HELLO (a new host session starts there, its seqs from 1 again) and when
the host is heard again after being silent.
"""

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):
        return x

from shared_rules import wire

_MAX_PENDING = const(12)  # unacked events kept for resend; oldest dropped beyond this
_SEEN = const(16)         # host seqs acted on lately, to drop resent duplicates
_QUIET_TX_BYTES = const(256)  # the rp2 USB CDC transmit buffer: what a host not reading holds
_QUIET_SMALL = const(64)  # a message sent in pieces is reported anew (send) while
#                           no more than this is unheard: a frame longer than the buffer
_TX_PAYLOAD = const(150)  # the biggest payload the tile encodes in place: a TAG of six tags
#                           (10-byte UIDs) is 146 bytes, a SNAPSHOT 128 (main.py); a longer
#                           LOG is encoded apart, and a longer TAG (up to wire.MAX_TAGS = 12
#                           tags, 290 bytes) is written in pieces through this buffer
#                           (send): a whole buffer for it would cost every tile 130
#                           bytes of its heap
_READS = const(4)         # reads of the port a pass at most (a packet each: 256 bytes)
_NOISY_MS = const(5000)   # a damaged frame from the host makes the line noisy this long ...
_NOISY_RESEND = const(4)  # ... and resends go this many times as often (a lost frame is
                          # random damage, not a crowded line: trying sooner is what helps)


class TileLink:
    """Frames over a byte port (``read() -> bytes``, ``write(bytes) -> bool``)."""

    def __init__(self, port, timings, ticks_ms, ticks_diff):
        self.port = port
        self.timings = timings
        self.ticks_ms = ticks_ms
        self.ticks_diff = ticks_diff
        self.decoder = wire.Decoder()
        # Every frame is encoded here, made at start-up while the heap is whole: a frame
        # built piece by piece needs blocks of its size, which a fragmented heap may lack.
        self.tx = memoryview(bytearray(wire.frame_room(_TX_PAYLOAD)))
        self.seq = 0
        # seq -> [frame bytes, last sent ms, key]; key lets a newer state of the
        # same slot replace the older unacked one (TAG and DICE carry full state).
        self.pending = {}
        # Keys (slot numbers, under 32) whose unacked frame was dropped from a full queue:
        # the slot's owner reports it again (presence.SlotTags), or its state is lost.
        self.lost = 0
        # The host seqs acted on lately: a ring made here, whole, and never grown. A list
        # that grew as acks came would ask the heap for a new block of twice its size on the
        # 17th (256 bytes on a 64-bit build), which a fragmented heap may not have: then
        # every ack fails, no command is ever acked, and the host resends it for ever.
        self.seen = [-1] * _SEEN
        self.seen_next = 0
        now = ticks_ms()
        self.last_rx = now
        self.last_tx = now
        self.host_heard = False     # False again once the host is silent (host_silent)
        self.resends = 0
        self.tx_failed = 0
        self.tx_unheard = 0     # bytes written since the host was last heard
        self.rejected = 0       # host frames that failed to parse and get no ACK
        self.damaged = 0        # damaged host frames the decoder dropped (seen so far)
        self.noisy = False      # a damaged frame came within _NOISY_MS of noisy_at
        self.noisy_at = now

    def host_silent(self, now):
        # Latched: a ticks_diff is only right for half the ticks period (6.2 days of ms on
        # a Pico), after which a silent host would seem to have spoken a moment ago.
        if self.host_heard and \
                self.ticks_diff(now, self.last_rx) > self.timings["host_timeout_ms"]:
            self.host_heard = False
        return not self.host_heard

    def send(self, msg_type, payload, key=None):
        """Send one message; acked types are kept and resent until the host acks them.

        Returns its seq, or None if it was sent once but could not be kept for resends:
        the copy needs a block of the frame's size, which a fragmented heap may lack
        for a while (the caller sends its news again later; see SlotTags.report_slot).
        One message a key: the next send with the key replaces it.

        ``payload`` may be a list of pieces, the payload their join (a slot's TAG, acked,
        its slot the key). One longer than the link's buffer (a TAG of up to twelve tags,
        290 bytes) is never built: a 64 KB tile's heap after some play may have no free
        block that long for a long while (seen: a boss fight's twelve tags never
        reported). It is encoded through the link's buffer as it is written
        (wire.encode_frame_pieces) and not kept: when it is due for a resend, its key is
        marked lost and the slot's owner reports it again, as it is then (service)."""
        self.seq = (self.seq + 1) & 0xFFFF
        now = self.ticks_ms()
        frame = None
        if type(payload) is list:
            n = 0
            for p in payload:
                n += len(p)
            if n <= _TX_PAYLOAD:
                payload = b"".join(payload)
            elif self.host_silent(now) and self.tx_unheard + wire.frame_room(n) > \
                    _QUIET_TX_BYTES:
                self.tx_failed += 1     # not written: the host is not reading (see above)
            else:
                n = wire.encode_frame_pieces(self.port.write, self.tx, msg_type, self.seq,
                                             payload)
                if n:
                    self.last_tx = now
                    self.tx_unheard += n
                else:
                    self.tx_failed += 1
        if type(payload) is not list:
            frame = self._encode(msg_type, self.seq, payload)
            if msg_type in wire.ACKED:
                try:
                    frame = bytes(frame)    # kept for resends
                except MemoryError:
                    self._write(frame, now)
                    return None
        if msg_type in wire.ACKED:
            if key is not None:
                # At most one is queued for a key (each send replaces the one before):
                # found without a copy of the keys, which would churn the heap per report.
                older = None
                for s in self.pending:
                    if self.pending[s][2] == key:
                        older = s
                        break
                if older is not None:
                    del self.pending[older]
            if len(self.pending) >= _MAX_PENDING:
                oldest = None
                for s in self.pending:
                    if oldest is None or self.ticks_diff(self.pending[oldest][1],
                                                         self.pending[s][1]) > 0:
                        oldest = s
                lost_key = self.pending.pop(oldest)[2]
                if lost_key is not None:
                    self.lost |= 1 << lost_key
            self.pending[self.seq] = [frame, now, key]
        if frame is not None:
            self._write(frame, now)
        return self.seq

    def _encode(self, msg_type, seq, payload):
        """The frame, encoded in the link's buffer (valid until the next frame)."""
        if len(payload) > _TX_PAYLOAD:
            return wire.encode_frame(msg_type, seq, payload)
        return self.tx[:wire.encode_frame_into(self.tx, msg_type, seq, payload)]

    def _write(self, frame, now, resend=False):
        if (resend or self.host_silent(now)) \
                and self.tx_unheard + len(frame) > _QUIET_TX_BYTES:
            self.tx_failed += 1     # not written: the host is not reading (see above)
            return
        if self.port.write(frame):
            self.last_tx = now
            self.tx_unheard += len(frame)
        else:
            self.tx_failed += 1

    def receive(self):
        """Read what arrived; return parsed host commands that need handling.

        ACKs and heartbeats are consumed here. A command of an acked type is
        returned once; the caller acks it with ``ack(seq, status)`` after
        acting on it, which remembers it as done. A resent duplicate of a
        command done is acked again here and not returned (nor one repeated
        within this read). A frame that does not parse is answered ACK(unknown_type) if its type
        is unknown, ACK(bad_payload) if its type is acked; one of another type (a
        malformed heartbeat, say) is dropped and counted (``rejected``).
        """
        # A port hands over a USB packet (64 bytes) a read: what the host sent at once (a
        # scene of several cells is 2 to 4 packets) is read in this pass, not one packet a
        # pass with a reader's poll between two (up to 9 ms each).
        frames = None
        for _ in range(_READS):
            data = self.port.read()
            if not data:
                break
            if frames is None:
                frames = self.decoder.feed(data)
            else:
                frames.extend(self.decoder.feed(data))
        if frames is None:
            return ()
        out = []
        d = self.decoder
        damaged = d.crc_errors + d.cobs_errors + d.short_frames + d.oversize + d.decoder_errors
        if damaged != self.damaged:
            self.damaged = damaged
            self.noisy = True
            self.noisy_at = self.ticks_ms()
        for frame in frames:
            now = self.ticks_ms()
            if self.host_silent(now):
                self.forget_seen()  # heard again after a silence: maybe a new host session
            self.last_rx = now
            self.host_heard = True
            self.tx_unheard = 0
            try:
                msg = wire.parse(frame)
            except ValueError:
                if frame.type not in wire.TYPE_NAMES:
                    self.ack(frame.seq, wire.ACK_UNKNOWN_TYPE, False)
                elif frame.type in wire.ACKED:
                    self.ack(frame.seq, wire.ACK_BAD_PAYLOAD, False)
                else:
                    self.rejected += 1
                continue
            t = frame.type
            if t == wire.ACK:
                self.pending.pop(msg["ack"], None)
                continue
            if t == wire.HEARTBEAT:
                continue
            if t == wire.HELLO_REQUEST:
                self.forget_seen()  # a new host session: its seqs start again from 1
            if t in wire.ACKED:
                if frame.seq in self.seen:
                    self.ack(frame.seq, wire.ACK_OK, False)
                    continue
                again = False
                for m in out:
                    if m["seq"] == frame.seq:
                        again = True
                if again:
                    continue
            out.append(msg)
        return out

    def ack(self, seq, status=wire.ACK_OK, done=True):
        """ACK host frame ``seq``; ``done``: a command acted on, remembered as such."""
        if done and seq not in self.seen:
            self.seen[self.seen_next] = seq
            self.seen_next = (self.seen_next + 1) % _SEEN
        # An ACK's own seq is 0 (hardware/protocol.md): it is never acked or deduplicated.
        self._write(self._encode(wire.ACK, 0, wire.ack(seq, status)), self.ticks_ms())

    def forget_seen(self):
        seen = self.seen
        for i in range(_SEEN):
            seen[i] = -1

    def forget_pending(self):
        """The host asked for HELLO: it resyncs by snapshot, old events are moot. Emptied in
        place: a new dict would grow its table again, block by block, as events queue."""
        pending = self.pending
        while pending:
            pending.popitem()
        self.lost = 0

    def service(self, now, tile=None):
        """Resend what is unacked, and send a heartbeat when due (with ``tile.uptime(now)``,
        asked only then: 0 without a tile)."""
        if not self.host_silent(now):
            resend_ms = self.timings["resend_ms"]
            if self.noisy:
                if self.ticks_diff(now, self.noisy_at) < _NOISY_MS:
                    resend_ms //= _NOISY_RESEND
                else:
                    self.noisy = False
            for s in self.pending:
                entry = self.pending[s]
                if self.ticks_diff(now, entry[1]) >= resend_ms:
                    entry[1] = now
                    self.resends += 1
                    if entry[0] is not None:
                        self._write(entry[0], now, True)
                    elif self.tx_unheard <= _QUIET_SMALL:
                        self.lost |= 1 << entry[2]  # sent in pieces: reported anew
                    else:
                        self.tx_failed += 1
        if self.ticks_diff(now, self.last_tx) >= self.timings["heartbeat_ms"]:
            # Due again a period from now even if it is not written (a silent host's
            # buffer is full): not one frame encoded per pass.
            self.last_tx = now
            self.seq = (self.seq + 1) & 0xFFFF
            self._write(self._encode(wire.HEARTBEAT, self.seq, wire.heartbeat(
                tile.uptime(now) if tile else 0)), now)
