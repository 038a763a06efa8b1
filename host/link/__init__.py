"""The host's link to the tiles: serial ports, tile sessions, events in, LED scenes out.

Usage by the table layer (asyncio)::

    from host.link import TableLink

    link = TableLink(ports=["/dev/ttyACM0"], discover=True)
    await link.start()
    while True:
        ev = await link.next_event()          # or: async for ev in link.events()
        if ev.kind == "tags":                 # the full set of tags now on a slot
            print(ev.tile, ev.slot, ev.tags)  # tags: ((uid hex, identity or None), ...)
        elif ev.kind == "gesture":            # "tap", "double", "hold"
            print(ev.tile, ev.slot, ev.gesture)
        elif ev.kind == "dice":               # die settled in a pocket, or None
            print(ev.tile, ev.pocket, ev.die)
        elif ev.kind in ("online", "offline"):
            print(ev.tile, ev.kind, ev.detail)
        elif ev.kind == "problem":            # a sentence for the operator: what to do
            print(ev.code, ev.port, ev.detail)
    from shared_rules.led_scene import SOLID, uniform_scene
    link.set_scene(tile_uid, [(cell, uniform_scene(SOLID, (255, 0, 0)))])
    # enrollment through a tile's reader (hardware/protocol.md): a WriteResult
    result = await link.write_identity(tile_uid, slot, uid_bytes, tag_identity.record(identity))
    await link.stop()

- Tiles are named by their unique id (hex of ``machine.unique_id()``),
  never by port; ``link.tiles[uid]`` is a ``TileState`` with ``online``,
  ``port``, ``hello`` (capabilities), ``slots``, ``pockets``, ``scene`` and
  ``health`` (firmware, uptime_ms, readers' ok/errors/re-inits, crc_errors,
  resends, reboots, reconnects, protocol_errors, ...: TileState says each).
- Each time a tile comes online (a reboot, or a reconnect it survived
  with its boot id: a tile powered by the table outlives a USB unplug)
  the link sends it the whole scene the host last set for it and its
  readers' neighbours (``set_field_neighbours``), then asks for a
  snapshot and emits ``tags``/``dice`` events only for what changed.
- ``set_scene`` returns at once; while the tile is online the command is
  resent (after the measured round trip) until the tile acknowledges it;
  while it is offline the scene waits for it to come back.
- A noisy line slows the link down, it does not stop it: the link measures
  each line's damaged bytes and resends, beats, asks and splits LED scenes
  to match, and takes a tile for gone only after a silence it could not
  have by chance (hardware/protocol.md, "A noisy line").
- A tile that sends garbage, reboots, or vanishes never raises into the
  caller: the link counts it, logs it, and reconnects with backoff.
- A tile that cannot be used is said once as a "problem" event and asked
  again only rarely: a second port answering with the unique id of a tile
  online elsewhere (``link.conflicts``), a tile of another protocol version
  (``link.incompatible``), a discovered port with no tile (``link.silent_ports``).
  A tile flooding the link with events is limited (see TableLink).

- The link runs on the clock it is given (``TableLink(clock=...)``, monotonic
  seconds; the real clock by default). ``start()`` keeps it moving on the
  running asyncio loop; a test may instead advance a clock by hand and call
  ``link.poll()``, with a fake device (``open_device``) in place of the ports.

Layers, each with one owner (lowest first):

- ``transport`` (PortTransport, SerialDevice): one port's bytes and life: open,
  read, write, close, hang up, reopen with backoff.
- ``protocol`` (PortSession, LineCounters): frames, sequence numbers, acks,
  resends, heartbeats, HELLO and snapshot requests, the line's counters.
- ``tiles`` (TableLink, TileState, TileEvent): tiles by unique id: HELLO
  binding, online/offline, events to the table layer, scenes and field
  neighbours restored on reconnect. It implements the calls a PortSession
  makes (``tile_hello``, ``tile_message``, ``tile_offline``, ...).
- ``timings`` (LinkTimings, the default clock); ``sniff`` (the ``fairytable
  sniff`` command); ``noisy_line`` (a relay that damages bytes, for
  reliability tests: ``fairytable run --line-faults``, tools/line_faults.py).
"""

from .protocol import LineCounters, LinkError, PortSession, describe_frame
from .tiles import PICO_MICROPYTHON_PID, PICO_VID, TableLink, TileEvent, TileState, WriteResult
from .timings import LinkTimings
from .transport import PortTransport, SerialDevice

__all__ = ["LineCounters", "LinkError", "LinkTimings", "PortSession", "PortTransport",
           "PICO_MICROPYTHON_PID", "PICO_VID", "SerialDevice", "TableLink", "TileEvent",
           "TileState", "WriteResult", "describe_frame"]
