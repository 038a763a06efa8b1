"""`fairytable enroll --reader tile|virtual`: the command, end to end, against tiles running
the real firmware under MicroPython on pseudo-terminals."""

import threading
import time

import pytest
from mpy import requires_micropython

from shared_rules.tag_identity import parse as parse_identity, record as identity_record
from host import enroll
from host.table import tags

pytestmark = requires_micropython

CROCODILE = "storybook:the_crocodile"


@pytest.fixture
def files(tmp_path):
    key = tmp_path / "installation.key"
    db = tmp_path / "tags.db"
    return ["--key", str(key), "--registry", str(db)], key, db


def registry_of(key, db):
    return tags.Registry(tags.load_key(str(key), create=False), str(db))


def test_virtual_table_enrolls_written_tags_and_a_read_only_one_by_uid(files, capsys):
    args, key, db = files
    status = enroll.main([CROCODILE, "pawn:red", "die:1:6", "--reader", "virtual",
                          "--read-only", "die:1:6"] + args)
    out = capsys.readouterr()
    assert status == 0, out.err
    lines = out.out.splitlines()
    croc, pawn, die = (tags.virtual_uid(i).hex() for i in (CROCODILE, "pawn:red", "die:1:6"))
    assert "tag %s is now %s (written on tile" % (croc, CROCODILE) in out.out
    assert "tag %s is now pawn:red (written on tile" % pawn in out.out
    assert any(line.startswith("tag %s is read-only" % die) and
               line.endswith("die:1:6 enrolled by its UID in the registry instead")
               for line in lines), lines
    registry = registry_of(key, db)
    assert registry.resolve(bytes.fromhex(die), None) == "die:1:6"
    # The written tags carry their identity; the registry holds no UID row for them.
    with pytest.raises(tags.TagRefused) as refused:
        registry.resolve(bytes.fromhex(croc), None)
    assert refused.value.code == "not_enrolled"


def wait_reported(tile, slot, uid_hex):
    """Until the tile has reported the tag (it lay there before enrollment began)."""
    deadline = time.monotonic() + 30
    while uid_hex not in tile.reported()[slot]:
        assert time.monotonic() < deadline, "tile never reported %s" % uid_hex
        time.sleep(0.05)


def later(seconds, fn, *args, **kwargs):
    timer = threading.Timer(seconds, fn, args, kwargs)
    timer.start()
    return timer


def test_enrolls_on_the_first_reader_where_a_new_tag_appears(table, tile, files, capsys):
    args, key, db = files
    lying = "04cc0000000001"
    tile.place(0, lying)                  # on the table before enrollment: not the one
    wait_reported(tile, 0, lying)
    blank = "04cc0000000002"
    timer = later(1.5, tile.place, 2, blank)
    try:
        status = enroll.main(["pawn:blue", "--reader", "tile", "--port", tile.port,
                              "--wait", "20"] + args)
    finally:
        timer.join()
    out = capsys.readouterr()
    assert status == 0, out.err
    assert "hold the tag for pawn:blue on any reader of the table" in out.out
    assert "tag %s is now pawn:blue (written on tile %s slot 2" % (blank, tile.uid) in out.out
    record = tile.lift(2, blank)
    assert registry_of(key, db).resolve(bytes.fromhex(blank), parse_identity(record)) == \
        "pawn:blue"
    assert tile.lift(0, lying) == bytes(16)          # untouched


def test_enrolls_on_the_chosen_tile_and_slot(table, tile, files, capsys):
    args, key, db = files
    uid = "04cc0000000003"
    tile.place(3, uid)
    tile.place(1, "04cc0000000004")                  # another reader: not chosen
    status = enroll.main([CROCODILE, "--reader", "tile", "--port", tile.port,
                          "--tile", tile.uid, "--slot", "3", "--wait", "20"] + args)
    out = capsys.readouterr()
    assert status == 0, out.err
    # Enrolled again as another card: the command says what it was.
    status = enroll.main(["pawn:black", "--reader", "tile", "--port", tile.port,
                          "--tile", tile.uid, "--slot", "3", "--wait", "20"] + args)
    out = capsys.readouterr()
    assert status == 0, out.err
    assert out.out.rstrip().endswith("read back and verified); it was %s" % CROCODILE)
    assert enroll.main([CROCODILE, "--reader", "tile", "--port", tile.port,
                        "--tile", tile.uid, "--slot", "3", "--wait", "20"] + args) == 0
    registry = registry_of(key, db)
    assert tile.lift(3, uid) == identity_record(registry.identity_for(bytes.fromhex(uid),
                                                                      CROCODILE))
    assert tile.lift(1, "04cc0000000004") == bytes(16)


def test_a_read_only_tag_on_a_tile_falls_back_to_the_registry(table, tile, files, capsys):
    args, key, db = files
    uid = "04cc0000000005"
    tile.place(1, uid, read_only=True)
    status = enroll.main(["royale:S5", "--reader", "tile", "--port", tile.port, "--slot", "1",
                          "--wait", "20"] + args)
    out = capsys.readouterr()
    assert status == 0, out.err
    assert "tag %s is read-only" % uid in out.out and "by its UID in the registry" in out.out
    assert registry_of(key, db).resolve(bytes.fromhex(uid), None) == "royale:S5"


@pytest.mark.parametrize("extra,status,words", [
    (["--slot", "9"], 2, "there is no slot 9: tile e661410400000001 has 4 readers"),
    (["--tile", "00ff"], 2, "tile 00ff did not say hello; the tiles that did: e661410400000001"),
    (["--slot", "1"], 1, "pawn:green: no tag came to slot 1 of any tile in 2 s"),
])
def test_enrollment_problems_are_sentences_and_a_status(table, tile, files, capsys, extra,
                                                        status, words):
    args, key, db = files
    assert enroll.main(["pawn:green", "--reader", "tile", "--port", tile.port, "--wait", "2"]
                       + extra + args) == status
    assert words in capsys.readouterr().err


def test_two_new_tags_at_once_are_refused_and_neither_is_written(table, tile, files, capsys):
    args, key, db = files
    tile.place(0, "04cc0000000006")
    tile.place(0, "04cc0000000007")
    status = enroll.main(["pawn:white", "--reader", "tile", "--port", tile.port,
                          "--slot", "0", "--tile", tile.uid, "--wait", "3"] + args)
    out = capsys.readouterr()
    assert status == 1
    assert ("2 new tags lie on the readers at once (tile %s slot 0, tile %s slot 0): leave "
            "only one" % (tile.uid, tile.uid)) in out.out
    assert "pawn:white: 2 new tags lie on the readers at once" in out.err
    assert "hold one tag at a time" in out.err
    assert tile.lift(0, "04cc0000000006") == bytes(16)
    assert tile.lift(0, "04cc0000000007") == bytes(16)


def test_a_die_face_is_enrolled_in_a_pocket_of_the_dice_tray(files, capsys, virtual_table):
    args, key, db = files
    face = "04dd0000000024"
    vt = virtual_table(tiles=1, variant="dice")
    tray = vt.tiles[0]
    tray.set_die(1, face)
    status = enroll.main(["die:2:4", "--reader", "tile", "--port", tray.port, "--slot",
                          "1", "--wait", "20"] + args)
    out = capsys.readouterr()
    assert status == 0, out.err
    assert "tag %s is now die:2:4 (written on tile %s slot 1" % (face, tray.uid) in out.out
    held = tray.lift(1, face)
    assert registry_of(key, db).resolve(bytes.fromhex(face), parse_identity(held)) == "die:2:4"


def test_no_tile_on_the_port_is_a_setup_error(tmp_path, files, capsys):
    args, key, db = files
    assert enroll.main(["pawn:red", "--reader", "tile", "--port", str(tmp_path / "ttyNONE"),
                        "--wait", "1"] + args) == 2
    assert "no tile answered on %s" % (tmp_path / "ttyNONE") in capsys.readouterr().err


def test_options_of_one_reader_are_refused_with_another(files, capsys):
    args, key, db = files
    with pytest.raises(SystemExit) as e:
        enroll.main(["pawn:red", "--read-only", "pawn:red"] + args)
    assert e.value.code == 2
    assert "--read-only places a read-only tag on the virtual table" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        enroll.main(["pawn:red", "--reader", "virtual", "--slot", "1"] + args)
    assert "use them with --reader tile" in capsys.readouterr().err
    assert enroll.main(["pawn:red", "--reader", "virtual", "--read-only", "pawn:blue"]
                       + args) == 2
    assert "--read-only pawn:blue is not one of the items" in capsys.readouterr().err
    assert not key.exists() and not db.exists()      # refused before anything was made
