"""`fairytable enroll`: give tags their identities (cards, pawns, die faces).

    fairytable enroll --list [PREFIX]           the items of this installation
    fairytable enroll ITEM [ITEM ...] [--reader pi|tile|virtual] [--key FILE] [--registry DB]
        --reader tile: [--port PORT ...] [--tile UID] [--slot N] [--wait S]
        --reader virtual: [--read-only ITEM ...]

For each item, hold a tag on the reader: its identity (item code and a MAC
keyed by the installation key, host/table/tags.py) is written into its user
memory and read back. A tag whose memory cannot be written is enrolled by
its UID in the registry instead, and the command says so. The installation
key file must be copied to every table of the installation.

Readers: `pi`, the Pi's own MFRC522 (the [pi] extra); `tile`, the reader of
any cell or dice pocket of the table's tiles (the ports given with --port,
else every Raspberry Pi Pico found on USB), the one named by --tile/--slot
or else the first one where a new tag appears; `virtual`, a one-tile virtual
table (the real firmware under MicroPython) whose hands put each item's tag
on cell 0, so the whole flow runs without hardware (--read-only ITEM makes
that item's tag a read-only one).
"""

import argparse
import asyncio
import sys
import time

from host import installation
from host.table import tags
from shared_rules import wire
from shared_rules.tag_identity import FIRST_PAGE as IDENTITY_FIRST_PAGE
from shared_rules.tag_identity import record as identity_record

VIRTUAL_SLOT = 0        # where the virtual table's hands hold each tag


class EnrollError(Exception):
    """Enrollment of one tag could not be done; the message says why, in words."""


def enroll_one(reader, registry, item, wait_s=30.0, say=print):
    """Wait for a tag on `reader`, write `item`'s identity; returns (uid, how)."""
    say("hold the tag for %s on the reader" % item)
    deadline = time.monotonic() + wait_s
    uid = None
    while uid is None:
        if time.monotonic() > deadline:
            raise TimeoutError("no tag came to the reader in %d s" % wait_s)
        uid = reader.uid()
        if uid is None:
            time.sleep(0.05)
    record = identity_record(registry.identity_for(uid, item))
    if reader.write_pages(IDENTITY_FIRST_PAGE, record) and \
            reader.read_pages(IDENTITY_FIRST_PAGE) == record:
        registry.resolve(uid, record)  # the table will accept it
        say("tag %s is now %s" % (uid.hex(), item))
        return uid, "written"
    registry.enroll_uid(uid, item)
    say("tag %s cannot be written (read-only?): enrolled by its UID in the registry" % uid.hex())
    return uid, "uid"


def _reported(state):
    """What a tile reports on each reader: slot -> ((uid hex, identity), ...). A dice
    tray's reader is a pocket holding at most one die (its face tag)."""
    out = dict(state.slots)
    for pocket, die in state.pockets.items():
        out[pocket] = (die,) if die is not None else ()
    return out


def _tag_on(tiles, tile, slot, uid_hex):
    """The identity the tile reports for tag ``uid_hex`` on ``slot`` (None: no identity);
    KeyError if the tag is not reported there."""
    return dict(_reported(tiles[tile]).get(slot, ()))[uid_hex]


async def wait_for_tag(link, tile=None, slot=None, done=(), baseline=None, wait_s=30.0,
                       say=None):
    """The first new tag on the chosen reader: (tile uid, slot, tag uid bytes).

    ``tile``/``slot`` None: any tile that can write identities, any slot. A tag
    in ``done`` (enrolled in this run) never counts; one in ``baseline`` (a set,
    lying there when enrollment began) counts only once it has been lifted and
    put back. While several new tags lie on the readers, none is chosen (and
    ``say`` is told once). Raises EnrollError after ``wait_s`` seconds.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(wait_s, 0)
    baseline = baseline if baseline is not None else set()
    crowded = None
    while True:
        while not link.queue.empty():       # the state below is what counts
            link.queue.get_nowait()
        present = set()
        found = []
        for tile_uid in sorted(link.tiles):
            state = link.tiles[tile_uid]
            if tile is not None and tile_uid != tile:
                continue
            if not state.online or not state.hello["flags"] & wire.CAP_WRITE_IDENTITY:
                continue
            reported = _reported(state)
            for s in sorted(reported):
                if slot is not None and s != slot:
                    continue
                for uid_hex, _identity in reported[s]:
                    present.add(uid_hex)
                    if uid_hex not in done and uid_hex not in baseline:
                        found.append((tile_uid, s, uid_hex))
        baseline &= present
        if len(found) == 1:
            tile_uid, s, uid_hex = found[0]
            return tile_uid, s, bytes.fromhex(uid_hex)
        if len(found) > 1:
            was, crowded = crowded, "%d new tags lie on the readers at once (%s)" % (
                len(found), ", ".join("tile %s slot %d" % (t, s) for t, s, _ in found))
            if was is None and say is not None:
                say("%s: leave only one" % crowded)
        else:
            crowded = None
        if loop.time() >= deadline:
            if crowded:
                raise EnrollError("%s: hold one tag at a time" % crowded)
            raise EnrollError("no tag came to %s in %g s" % (_where(tile, slot), wait_s))
        await asyncio.sleep(0.05)


def _where(tile, slot):
    if tile is None and slot is None:
        return "any reader of the table"
    if tile is None:
        return "slot %d of any tile" % slot
    if slot is None:
        return "any reader of tile %s" % tile
    return "tile %s slot %d" % (tile, slot)


async def enroll_on_tile(link, registry, item, tile=None, slot=None, done=(), baseline=None,
                         wait_s=30.0, say=print, prompt=True):
    """Enroll one tag through a tile's reader; returns (uid, "written" or "uid").

    Waits for a new tag (``wait_for_tag``), has the tile write the item's
    identity record into it and read it back, then checks that what the tile
    now reports for the tag is accepted by the registry as ``item``. A
    read-only tag is enrolled by its UID in the registry instead. Raises
    EnrollError (or host.link.LinkError) in words otherwise.
    """
    if prompt:
        say("hold the tag for %s on %s" % (item, _where(tile, slot)))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    while True:
        tile_uid, at, uid = await wait_for_tag(link, tile, slot, done, baseline,
                                               deadline - loop.time(), say)
        record = identity_record(registry.identity_for(uid, item))
        was = _enrolled_as(registry, uid, _tag_on(link.tiles, tile_uid, at, uid.hex()))
        result = await link.write_identity(tile_uid, at, uid, record)
        if result.reason != "tag not in field":
            break
        # Lifted before the write, or the tile's report was a moment old: once the tile
        # reports it gone, the next tag counts; if it is still there, it is tried again.
        if loop.time() >= deadline:
            raise EnrollError("tag %s left tile %s slot %d before it could be written"
                              % (uid.hex(), tile_uid, at))
        await asyncio.sleep(0.3)
    slot = at
    if result.read_only:
        registry.enroll_uid(uid, item)
        say("tag %s is read-only (the tile says: %s): %s enrolled by its UID in the registry "
            "instead" % (uid.hex(), result.reason.split(": ", 1)[-1], item))
        return uid, "uid"
    if not result.ok:
        raise EnrollError("tag %s on tile %s slot %d was not written: %s"
                          % (uid.hex(), tile_uid, slot, result.reason))
    # The tile reports the identity it read back from the tag; the table must accept it.
    deadline = loop.time() + 2.0
    while True:
        try:
            identity = _tag_on(link.tiles, tile_uid, slot, uid.hex())
            if identity is not None and registry.resolve(uid, identity) == item:
                break
        except (KeyError, tags.TagRefused):
            pass
        if loop.time() > deadline:
            raise EnrollError("tag %s was written, but tile %s does not report it as %s: "
                              "lift it and enroll it again" % (uid.hex(), tile_uid, item))
        await asyncio.sleep(0.05)
    say("tag %s is now %s (written on tile %s slot %d, read back and verified)%s"
        % (uid.hex(), item, tile_uid, slot,
           "; it was %s" % was if was is not None and was != item else ""))
    return uid, "written"


def _enrolled_as(registry, uid, identity):
    """The item a tag stood for before this enrollment, or None (blank, forged, unknown)."""
    if identity is None:
        return None
    try:
        return registry.resolve(uid, identity)
    except tags.TagRefused:
        return None


async def enroll_with_tiles(args, registry, say=print):
    """--reader tile and --reader virtual: a TableLink to the tiles, then each item in turn."""
    from host.link import LinkError, TableLink
    vtable = None
    if args.reader == "virtual":
        from host.virtual import open_table

        def announce(vt):
            say("no reader needed: a one-tile virtual table (firmware under %s); its hands "
                "put each item's tag on cell %d" % (vt.interpreter, VIRTUAL_SLOT))
        ports, vtable = await asyncio.to_thread(open_table, (), tiles=1, cells=2,
                                                interpreter=args.interpreter,
                                                announce=announce)
        link = TableLink(ports=ports)
        tile, slot = vtable.tiles[0].uid, VIRTUAL_SLOT
    else:
        link = TableLink(ports=args.port, discover=not args.port)
        tile, slot = args.tile, args.slot
    try:
        await link.start()
        await _wait_for_tiles(link, tile, slot, args)
        baseline = set()
        if vtable is None and tile is None and slot is None:
            # Tags lying on the table before enrollment began are not the ones to enroll.
            for state in link.tiles.values():
                for s in _reported(state).values():
                    baseline.update(uid_hex for uid_hex, _ in s)
        done = set()
        for item in args.items:
            if vtable is not None:
                uid_hex = tags.virtual_uid(item).hex()
                read_only = item in args.read_only
                say("the virtual hands put a blank%s tag for %s on %s"
                    % (" read-only" if read_only else "", item, _where(tile, slot)))
                await asyncio.to_thread(vtable.tiles[0].place, slot, uid_hex,
                                        read_only=read_only)
            try:
                uid, _how = await enroll_on_tile(link, registry, item, tile, slot, done,
                                                 baseline, args.wait, say,
                                                 prompt=vtable is None)
            except (EnrollError, LinkError) as e:
                raise EnrollError("%s: %s" % (item, e)) from None
            done.add(uid.hex())
            if vtable is not None:
                await asyncio.to_thread(vtable.tiles[0].lift, slot, uid.hex())
    finally:
        await link.stop()
        if vtable is not None:
            vtable.stop()


async def _wait_for_tiles(link, tile, slot, args):
    """Wait (up to --wait seconds) for the tiles to say hello; SetupError naming what is
    missing."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + args.wait
    where = ", ".join(args.port) if args.port else "USB (no --port given)"
    while True:
        # Online, and its snapshot in: what lies on its readers is known.
        online = {u: t for u, t in link.tiles.items() if t.online and t.session is not None
                  and not t.session.snapshot_wanted}
        if tile is not None and tile in online or tile is None and online:
            break
        if loop.time() > deadline:
            if tile is not None and online:
                raise SetupError("tile %s did not say hello; the tiles that did: %s"
                                 % (tile, ", ".join(sorted(online))))
            raise SetupError("no tile answered on %s; run `fairytable doctor`" % where)
        await asyncio.sleep(0.05)
    chosen = [online[tile]] if tile is not None else list(online.values())
    able = [t for t in chosen if t.hello["flags"] & wire.CAP_WRITE_IDENTITY]
    if not able:
        raise SetupError("tile %s (firmware %s) cannot write tag identities: update its "
                         "firmware, or enroll with --reader pi"
                         % (chosen[0].uid, chosen[0].health["firmware"]))
    if slot is not None and all(slot >= t.hello["readers"] for t in able):
        raise SetupError("there is no slot %d: %s" % (slot, ", ".join(
            "tile %s has %d readers" % (t.uid, t.hello["readers"]) for t in able)))


class SetupError(Exception):
    """The readers are not there or cannot enroll: nothing was written."""


def main(argv=None):
    p = argparse.ArgumentParser(prog="fairytable enroll", description=__doc__.split("\n\n")[0])
    p.add_argument("items", nargs="*")
    p.add_argument("--list", action="store_true")
    p.add_argument("--reader", default="pi", choices=["pi", "tile", "virtual"],
                   help="pi: the Pi's own MFRC522; tile: a reader of the table's tiles; "
                        "virtual: a one-tile virtual table")
    p.add_argument("--port", action="append", default=[],
                   help="a tile's serial port (--reader tile; default: every Pico on USB)")
    p.add_argument("--tile", default=None, help="the tile to enroll on (its unique id, hex)")
    p.add_argument("--slot", type=int, default=None,
                   help="the reader (cell or dice pocket) to enroll on")
    p.add_argument("--wait", type=float, default=30.0,
                   help="seconds to wait for the tiles, and for each tag")
    p.add_argument("--read-only", action="append", default=[], metavar="ITEM",
                   help="--reader virtual: this item's tag is a read-only one")
    p.add_argument("--interpreter", default="auto", choices=["auto", "micropython", "cpython"],
                   help="what runs the virtual tile")
    p.add_argument("--key", default=None, help="installation key file (default: "
                   "$FAIRYTABLE_KEY, else installation.key in the data folder)")
    p.add_argument("--registry", default=None, help="the registry of tags enrolled by UID "
                   "(default: tags.db in the data folder)")
    args = p.parse_args(argv)
    if args.list:
        prefix = args.items[0] if args.items else ""
        for item in tags.known_items():
            if item.startswith(prefix):
                print(item)
        return 0
    if not args.items:
        p.error("name the items to enroll (fairytable enroll --list shows them)")
    if args.reader != "tile" and (args.port or args.tile or args.slot is not None):
        p.error("--port, --tile and --slot choose a tile's reader: use them with --reader tile")
    if args.reader != "virtual" and args.read_only:
        p.error("--read-only places a read-only tag on the virtual table: use --reader virtual")
    if args.slot is not None and args.slot < 0:
        p.error("--slot must be 0 or more, not %d" % args.slot)
    if not 0 < args.wait <= 24 * 3600:
        p.error("--wait must be a number of seconds above 0 (at most a day), not %g"
                % args.wait)
    known = set(tags.known_items())
    unknown = [i for i in args.items + args.read_only if i not in known]
    if unknown:
        print("fairytable enroll: unknown item %s (fairytable enroll --list)" % ", ".join(unknown),
              file=sys.stderr)
        return 2
    stray = [i for i in args.read_only if i not in args.items]
    if stray:
        print("fairytable enroll: --read-only %s is not one of the items to enroll"
              % ", ".join(stray), file=sys.stderr)
        return 2
    if len(set(args.items)) != len(args.items):
        print("fairytable enroll: an item is named twice; one tag per item", file=sys.stderr)
        return 2
    # The same data folder as `fairytable run` (host/installation.py); both files are checked
    # before either is made, so a refusal changes nothing.
    key_path = installation.key_path(args.key)
    registry_path = installation.registry_path(args.registry)
    try:
        key = tags.read_key(key_path)
        tags.check_registry(registry_path)
        registry = tags.Registry(key if key is not None else tags.make_key(key_path),
                                 registry_path)
    except (tags.KeyFileError, tags.RegistryError) as e:
        print("fairytable enroll: %s" % e, file=sys.stderr)
        return 2
    if args.reader != "pi":
        try:
            asyncio.run(enroll_with_tiles(args, registry, say=lambda s: print(s, flush=True)))
        except SetupError as e:
            print("fairytable enroll: %s" % e, file=sys.stderr)
            return 2
        except EnrollError as e:
            print("fairytable enroll: %s" % e, file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 130
        return 0
    from host.pi import PiReader
    try:
        reader = PiReader()
    except (ImportError, RuntimeError) as e:
        print("fairytable enroll: the Pi's reader is not available here (%s); install the "
              "[pi] extra on the Raspberry Pi, or enroll with --reader tile" % e,
              file=sys.stderr)
        return 2
    for item in args.items:
        try:
            enroll_one(reader, registry, item)
        except TimeoutError as e:
            print("fairytable enroll: %s: %s" % (item, e), file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
