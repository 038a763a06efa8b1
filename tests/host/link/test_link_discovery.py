"""Discovery: the host opens Picos running MicroPython, leaves other devices alone, and
stops pestering a port that does not answer as a tile.

Fake tiles on real ptys stand in for the devices (list_ports cannot see ptys, so it is
replaced by a list giving each pty the USB ids of a device).
"""

import asyncio
import time

from vtable_helpers import FakeTile, drain, wait_event

from host.link import LinkTimings, TableLink


class Port:
    """What serial.tools.list_ports says about a device."""

    def __init__(self, device, vid, pid):
        self.device = device
        self.vid = vid
        self.pid = pid


class QuickProbe(LinkTimings):
    probe_window_s = 0.3
    probe_retry_s = 600.0


def test_a_discovered_port_that_does_not_answer_is_said_once_and_asked_rarely(monkeypatch):
    from serial.tools import list_ports
    tile = FakeTile("e661410400000301")
    probe = FakeTile("e661410400000302")         # answers, but it is a debug probe's port
    repl = FakeTile("e661410400000303", answer=False)   # a Pico at a MicroPython REPL
    configured = FakeTile("e661410400000304", answer=False)
    devices = [Port(tile.port, 0x2E8A, 0x0005), Port(probe.port, 0x2E8A, 0x000C),
               Port(repl.port, 0x2E8A, 0x0005), Port("/dev/ttyUSB-ftdi", 0x0403, 0x6001)]
    monkeypatch.setattr(list_ports, "comports", lambda: devices)

    async def main():
        link = TableLink(ports=[configured.port], discover=True, rescan_s=0.1,
                         timings=QuickProbe())
        await link.start()
        try:
            seen = []
            ev = await wait_event(link, lambda e: e.kind == "problem", seen=seen)
            assert (ev.code, ev.tile, ev.port) == ("not_a_tile", None, repl.port)
            assert "does not answer as a tile" in ev.detail and "Flash" in ev.detail
            if tile.uid not in link.tiles:
                await wait_event(link, lambda e: e.kind == "online", seen=seen)
            seen += await drain(link)
            now = time.monotonic()
            assert link.silent_ports == [repl.port]
            assert link.sessions[repl.port].hello_interval(now) == QuickProbe.probe_retry_s
            # A port the operator named is asked as often as ever, and not reported.
            assert link.sessions[configured.port].hello_interval(now) == \
                QuickProbe.hello_retry_s
            assert [e.port for e in seen if e.kind == "problem"] == [repl.port]
            assert sorted(link.sessions) == sorted([tile.port, repl.port, configured.port])
            assert link.tiles[tile.uid].online
            # Nothing the host sent the silent Pico would interrupt or reset its REPL.
            assert repl.count("hello_request") >= 1
            assert 0x03 not in repl.raw and 0x04 not in repl.raw
        finally:
            await link.stop()

    try:
        asyncio.run(main())
    finally:
        for fake in (tile, probe, repl, configured):
            fake.close()
    assert probe.raw == b""     # the debug probe's port was never opened
