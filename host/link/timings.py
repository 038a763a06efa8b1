"""The host link's timings, in seconds (hardware/protocol.md explains each), and its clock."""

import time

real_clock = time.monotonic     # the link's default clock: monotonic seconds


class LinkTimings:
    """Host-side timings of the link; a subclass or an instance attribute changes one."""

    tick_s = 0.02               # housekeeping period of every port (frames are handled on
                                # arrival)
    hello_retry_s = 0.5         # HELLO_REQUEST resend until a HELLO arrives
    snapshot_retry_s = 0.3      # SNAPSHOT_REQUEST resend until a SNAPSHOT does
    resend_s = 0.1              # resend an unacknowledged command after this long
    heartbeat_s = 1.0           # host -> tile heartbeat period
    offline_s = 3.0             # tile silent this long: offline
    reopen_s = 10.0             # silent this long on an open port: close and reopen it
    backoff_min_s = 0.1         # reopen backoff doubles from here ...
    backoff_max_s = 5.0         # ... up to here
    probe_window_s = 10.0       # a discovered port with no tile answering for this long ...
    probe_retry_s = 10.0        # ... is asked for HELLO only this often
    unusable_retry_s = 10.0     # HELLO_REQUEST period to a tile of another protocol version
                                # or with the unique id of a tile online on another port
    baudrate = 115200           # ignored by USB CDC and ptys, used by a real UART
