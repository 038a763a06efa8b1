"""The host link's timings, in seconds (hardware/protocol.md explains each), and its clock."""

import time

real_clock = time.monotonic     # the link's default clock: monotonic seconds


class LinkTimings:
    """Host-side timings of the link; a subclass or an instance attribute changes one."""

    tick_s = 0.02               # housekeeping period of every port (frames are handled on
                                # arrival)
    hello_retry_s = 0.5         # HELLO_REQUEST resend until a HELLO arrives
    snapshot_retry_s = 0.3      # SNAPSHOT_REQUEST resend until a SNAPSHOT does
    resync_s = None             # if set, an online tile is asked for its snapshot again
                                # this long after the last. Off: a snapshot costs a tile a
                                # burst of allocations (a TAG for each slot beyond it), so
                                # the session asks for one only when a game has not moved
                                # for a minute (host/session.py, TableLink.resync)
    resend_s = 0.1              # resend an unacknowledged command after this long, until
                                # round trips are measured; then after the measured round
                                # trip (its mean and 4 deviations, RFC 6298) ...
    resend_min_s = 0.03         # ... but never sooner than this (a tile's loop pass) ...
    resend_max_s = 1.0          # ... nor later than this
    heartbeat_s = 1.0           # host -> tile heartbeat period on a clean line; on a noisy
                                # line as much shorter as heartbeats are lost, down to ...
    heartbeat_min_s = 0.05      # ... this: the tile must hear the host to keep resending
    offline_s = 3.0             # tile silent this long on a clean line: offline. On a noisy
                                # line it must be silent for as many of its heartbeat periods
                                # as make losing them all by chance unlikely (below) ...
    offline_chance = 1e-6       # ... this likely for a tile that is still there ...
    offline_max_s = 60.0        # ... and at most this long
    reopen_s = 10.0             # silent this long (and beyond the offline time): close and
                                # reopen the port
    tile_heartbeat_s = 1.0      # the tile's heartbeat period (firmware/config.py)
    backoff_min_s = 0.1         # reopen backoff doubles from here ...
    backoff_max_s = 5.0         # ... up to here
    probe_window_s = 10.0       # a discovered port with no tile answering for this long ...
    probe_retry_s = 10.0        # ... is asked for HELLO only this often
    unusable_retry_s = 10.0     # HELLO_REQUEST period to a tile of another protocol version
                                # or with the unique id of a tile online on another port
    baudrate = 115200           # ignored by USB CDC and ptys, used by a real UART
