"""`fairytable enroll`: give tags their identities (cards, pawns, die faces).

    fairytable enroll --list [PREFIX]           the items of this installation
    fairytable enroll ITEM [ITEM ...] [--reader pi] [--key FILE] [--registry DB]

For each item, hold a tag on the reader: its identity (item code and a MAC
keyed by the installation key, host/table/tags.py) is written into its user
memory and read back. A tag whose memory cannot be written is enrolled by
its UID in the registry instead, and the command says so. The installation
key file must be copied to every table of the installation.
"""

import argparse
import os
import sys
import time

from firmware.drivers.mfrc522 import IDENTITY_FIRST_PAGE, identity_record
from host.table import tags


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


def main(argv=None):
    p = argparse.ArgumentParser(prog="fairytable enroll", description=__doc__.split("\n\n")[0])
    p.add_argument("items", nargs="*")
    p.add_argument("--list", action="store_true")
    p.add_argument("--reader", default="pi", choices=["pi"],
                   help="the Pi's own MFRC522 (a tile's reader: see hardware/protocol.md)")
    p.add_argument("--key", default=None)
    p.add_argument("--registry", default=None)
    args = p.parse_args(argv)
    if args.list:
        prefix = args.items[0] if args.items else ""
        for item in tags.known_items():
            if item.startswith(prefix):
                print(item)
        return 0
    if not args.items:
        p.error("name the items to enroll (fairytable enroll --list shows them)")
    known = set(tags.known_items())
    unknown = [i for i in args.items if i not in known]
    if unknown:
        print("fairytable enroll: unknown item %s (fairytable enroll --list)" % ", ".join(unknown),
              file=sys.stderr)
        return 2
    key_path = args.key or tags.default_key_path()
    registry_path = args.registry or os.path.join(os.path.dirname(key_path), "tags.db")
    registry = tags.Registry(tags.load_key(key_path), registry_path)
    from host.pi import PiReader
    try:
        reader = PiReader()
    except (ImportError, RuntimeError) as e:
        print("fairytable enroll: the Pi's reader is not available here (%s); install the "
              "[pi] extra on the Raspberry Pi" % e, file=sys.stderr)
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
