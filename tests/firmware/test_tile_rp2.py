"""The rp2 tile as it is deployed: the tree host/virtual/image.py builds and the board's
main.py it writes, run under the MicroPython unix port with stand-ins for the Pico's
`machine`, `neopixel` and `rp2` modules (tests/rp2_stub/: emulated MFRC522 readers
behind the chip-select pins, a counting watchdog and LED strip).

What this shows without a Pico: the tree imports and the tile starts from it in a
Pico's heap, a lone 0x00 then HELLO go out on stdout, the LEDs render, the watchdog is
fed; a REBOOT for maintenance leaves the flag that the next boot honours, and so does a
pad held at power-up; the deploy command lines are what mpremote needs, and a
deploy stops, saying why, at a port another program holds, a tile that acks the
maintenance reboot but does not reboot, and a tile that refuses it.
"""

import functools
import os
import subprocess

import pytest
from mpy import REPO, micropython_path, requires_micropython

from host.virtual import image
from shared_rules import wire
from tools import tile_image

pytestmark = requires_micropython

PICO_HEAP = "190k"      # what MicroPython leaves a Pico's program (of 264 KB of RAM)
STUBS = os.path.join(REPO, "tests", "rp2_stub")


def boot(tmp_path, cells=2, stdin=b"", held="", feeds=8, variant="cell"):
    """Power up a Pico holding the rp2 tree, with the main.py host/virtual/image.py writes:
    (exit code, stdout bytes, stderr text)."""
    tree = image.build("rp2")
    main_py = tmp_path / "main.py"
    if not main_py.exists():
        main_py.write_text(image.board_main(variant, cells if variant == "cell" else None))
    # A Pico's modules live under short paths ("/lib/..."): every module's __file__ and
    # sys.path entry is a heap string, so the folders are reached by short links here,
    # however deep the cache and the clone are.
    for link, target in (("t", tree), ("s", STUBS), ("m", os.path.join(REPO, "firmware", "sim"))):
        if os.path.islink(tmp_path / link):
            os.remove(tmp_path / link)
        os.symlink(target, tmp_path / link)
    env = dict(os.environ, STUB_HELD=held, STUB_FEEDS=str(feeds),
               MICROPYPATH=os.pathsep.join(["t", "s", "m", ".frozen"]))
    proc = subprocess.run([micropython_path(), "-X", "heapsize=%s" % PICO_HEAP, "main.py"],
                          cwd=str(tmp_path), input=stdin, capture_output=True, timeout=120,
                          env=env)
    return proc.returncode, proc.stdout, proc.stderr.decode(errors="replace")


def messages(out):
    return [wire.parse(f) for f in wire.Decoder().feed(out)]


def test_the_rp2_tree_starts_a_tile_that_says_hello_renders_and_feeds_the_watchdog(tmp_path):
    code, out, err = boot(tmp_path, cells=7)
    assert code == 0, err
    assert out[:1] == b"\x00", "a lone delimiter comes before the HELLO"
    msgs = messages(out)
    hello = msgs[0]
    assert hello["type"] == "hello"
    assert (hello["cells"], hello["readers"], hello["buttons"]) == (7, 7, 7)
    assert hello["variant"] == "cell" and hello["flags"] & wire.CAP_WATCHDOG
    assert hello["uid"] == bytes.fromhex("e661410400000007")
    stub = [line for line in err.splitlines() if line.startswith("stub:")][-1]
    fields = dict(kv.split("=") for kv in stub.split()[3:])
    assert int(fields["feeds"]) >= 8
    assert int(fields["writes"]) >= 1                  # the idle animation, rendered
    # The bytecode is in the heap (no ROMFS on a stock Pico): plenty left all the same.
    assert int(fields["free"]) > 64 * 1024, stub


def test_the_rp2_tile_reads_its_readers(tmp_path):
    # The stub puts a card on reader 0: the tile reports it (the host has not acked yet).
    code, out, err = boot(tmp_path, cells=2, feeds=20)
    assert code == 0, err
    tags = [m for m in messages(out) if m["type"] == "tag"]
    assert tags and tags[0]["slot"] == 0
    assert tags[0]["tags"][0]["uid"] == bytes.fromhex("04010203040506")


def test_a_reboot_for_maintenance_leaves_the_flag_the_next_boot_honours(tmp_path):
    request = b"\x00" + wire.encode_frame(wire.REBOOT, 9, wire.reboot(wire.REBOOT_MAINTENANCE))
    code, out, err = boot(tmp_path, stdin=request, feeds=1000)
    assert code == 5, err                               # machine.reset()
    acks = [m for m in messages(out) if m["type"] == "ack"]
    assert acks == [{"type": "ack", "seq": 0, "ack": 9, "status": "ok"}]
    assert (tmp_path / "maintenance").exists()
    # The next boot: the tile does not start, the REPL would be free; the flag is used up.
    code, out, err = boot(tmp_path)
    assert code == 0, err
    assert b"maintenance boot" in out and b"\x00" not in out
    assert "stub:" not in err                           # no watchdog was ever started
    assert not (tmp_path / "maintenance").exists()
    code, out, err = boot(tmp_path)
    assert messages(out)[0]["type"] == "hello"


@pytest.mark.parametrize("variant,held", [("cell", "2"), ("dice", ""), ("cell", "bootsel")])
def test_a_pad_or_button_held_at_power_up_skips_the_tile(tmp_path, variant, held):
    # Pad 0 of a cell tile is a TTP223 (high when touched); the dice tray's button pulls
    # its pin low (the stub's inputs read 0 unless held: so the dice button reads pressed).
    code, out, err = boot(tmp_path, variant=variant, held=held)
    assert code == 0, err
    assert b"maintenance boot" in out and "stub:" not in err


def test_nothing_held_at_power_up_starts_the_tile(tmp_path):
    code, out, err = boot(tmp_path, variant="dice", held="2")     # the button is released
    assert code == 0, err
    assert messages(out)[0]["type"] == "hello"


def test_a_reboot_to_the_bootloader_calls_machine_bootloader(tmp_path):
    request = wire.encode_frame(wire.REBOOT, 4, wire.reboot(wire.REBOOT_BOOTLOADER))
    code, out, err = boot(tmp_path, stdin=request, feeds=1000)
    assert code == 6, err
    assert not (tmp_path / "maintenance").exists()


# -- deploying ----------------------------------------------------------------------------------

class Done:
    def __init__(self, code=0):
        self.returncode = code


def test_deploy_copies_the_tree_and_main_py_with_mpremote_then_resets():
    def steps(cmd):
        head = tile_image.mpremote() + ["connect", "/dev/ttyACM0"]
        assert cmd[:len(head)] == head
        out = [[]]
        for arg in cmd[len(head):]:
            if arg == "+":
                out.append([])
            else:
                out[-1].append(arg)
        return out

    cp = steps(tile_image.deploy_commands("/dev/ttyACM0", "/t", "/o/main.py"))
    assert cp == [["exec", tile_image._REMOVE_TREE],             # the old tree goes first
                  ["fs", "cp", "-r", "/t/firmware", "/t/shared_rules", ":"],
                  ["fs", "cp", "/o/main.py", ":main.py"], ["reset"]]
    romfs = steps(tile_image.deploy_commands("/dev/ttyACM0", "/t", "/o/main.py", romfs=True))
    assert romfs == [["romfs", "deploy", "/t"], ["fs", "cp", "/o/main.py", ":main.py"],
                     ["reset"]]


def test_the_removal_snippet_runs_under_micropython(tmp_path):
    for rel in ("firmware/boards/x.mpy", "firmware/main.mpy", "shared_rules/wire.mpy",
                "keep.txt"):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    proc = subprocess.run([micropython_path(), "-c", tile_image._REMOVE_TREE + "rm('nothing')"],
                          cwd=str(tmp_path), capture_output=True)
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["keep.txt"]


def test_deploy_reboots_a_running_tile_for_maintenance_first():
    calls = []
    code = tile_image.deploy("/dev/ttyACM0", "/t", "/o/main.py", run=lambda c: calls.append(c)
                             or Done(), enter=lambda p: "rebooting",
                             wait=lambda p, before: "back", say=lambda text: None)
    assert code == 0 and calls == [tile_image.deploy_commands("/dev/ttyACM0", "/t",
                                                              "/o/main.py")]


def test_deploy_explains_bootsel_when_mpremote_cannot_reach_the_repl():
    said = []
    code = tile_image.deploy("/dev/ttyACM0", "/t", "/o/main.py", run=lambda c: Done(1),
                             enter=lambda p: "silent", wait=lambda p, before: "back",
                             say=said.append)
    assert code == 1 and "BOOTSEL" in said[-1]
    # Erasing the board is the last resort: a port another program holds, the boot escape
    # and a fresh MicroPython (which keeps the board's files) come first.
    help_text = said[-1]
    steps = [help_text.index(words) for words in (
        "fairytable run", "boot escape", "copy the MicroPython UF2", "keeps the board's files",
        "last resort", "flash_nuke.uf2")]
    assert steps == sorted(steps)


def test_deploy_does_not_touch_a_tile_that_refuses_maintenance():
    calls = []
    code = tile_image.deploy("/dev/ttyACM0", "/t", "/o/main.py", run=calls.append,
                             enter=lambda p: "refused", wait=lambda p, before: "back",
                             say=lambda t: None)
    assert code == 1 and calls == []


def deploy_to(port, **kw):
    """Deploy to ``port`` with the real maintenance request; mpremote is not run, only
    recorded. (exit code, mpremote command lines, what was said)"""
    calls, said = [], []
    code = tile_image.deploy(port, "/t", "/o/main.py", run=lambda c: calls.append(c) or Done(),
                             say=said.append, **kw)
    return code, calls, "\n".join(said)


def test_deploy_leaves_a_port_the_running_host_holds_alone():
    # `fairytable run` has the tile: the deploy must neither send it anything nor race
    # the host for its bytes with mpremote.
    import asyncio

    from vtable_helpers import FakeTile, wait_event

    from host.link import TableLink

    fake = FakeTile("e661410400000303")

    async def main():
        async with TableLink(ports=[fake.port]) as link:
            await wait_event(link, lambda e: e.kind == "online")
            result = await asyncio.to_thread(deploy_to, fake.port)
            assert link.tiles[fake.uid].online
            return result

    try:
        code, calls, said = asyncio.run(main())
    finally:
        fake.close()
    assert code == 1 and calls == []
    assert fake.count("reboot") == 0
    assert "%s is in use: stop `fairytable run`" % fake.port in said
    assert "flash_nuke" not in said


def test_deploy_stops_when_the_tile_acks_the_reboot_but_its_port_stays():
    # The tile acked REBOOT (maintenance) but did not reset: mpremote would meet a running
    # tile, not a REPL.
    from vtable_helpers import FakeTile

    fake = FakeTile("e661410400000404")
    try:
        code, calls, said = deploy_to(fake.port, wait=functools.partial(
            tile_image.wait_for_reboot, gone_timeout=0.5))
    finally:
        fake.close()
    assert fake.count("reboot") >= 1
    assert code == 1 and calls == []
    assert "its port never went away: it did not reboot, and nothing was copied" in said


def test_deploy_says_when_the_tile_refuses_maintenance():
    from vtable_helpers import FakeTile

    fake = FakeTile("e661410400000505")
    fake.status["reboot"] = wire.ACK_UNSUPPORTED      # it could not write its flag
    try:
        code, calls, said = deploy_to(fake.port)
    finally:
        fake.close()
    assert code == 1 and calls == []
    assert "refused to reboot for maintenance" in said and "boot escape" in said


def test_deploy_to_a_port_that_is_not_there_says_so(tmp_path):
    code, calls, said = deploy_to(str(tmp_path / "ttyACM9"))
    assert code == 1 and calls == []
    assert said.startswith("cannot open %s" % (tmp_path / "ttyACM9"))


def test_waiting_for_the_reboot_follows_the_port_away_and_back(tmp_path):
    import threading

    port = tmp_path / "ttyACM0"
    port.write_text("")
    before = tile_image.port_node(str(port))
    wait = functools.partial(tile_image.wait_for_reboot, str(port), gone_timeout=0.3,
                             back_timeout=30, poll_s=0.005, settle_s=0)
    assert wait(before) == "stayed"               # the tile did not reboot
    # Gone, then back: a board resetting over USB.
    port.unlink()
    back = threading.Timer(0.05, port.write_text, ("",))
    back.start()
    assert wait(before) == "back"
    back.join()
    # Gone and back between two looks: its node is a new one.
    before = tile_image.port_node(str(port))
    new = tmp_path / "new"
    new.write_text("")
    os.replace(new, port)
    assert wait(before) == "back"
    port.unlink()
    assert tile_image.wait_for_reboot(str(port), before, back_timeout=0.1, poll_s=0.005) \
        == "lost"


def test_enter_maintenance_reboots_a_virtual_tile(tmp_path, virtual_table):
    # No watchdog restart: a Pico rebooted for maintenance stays at its REPL, and the sim
    # board's restart would start the tile.
    vt = virtual_table(tiles=1, cells=2, heapsize="64k", quiet=True, auto_restart=False)
    tile = vt.tiles[0]
    assert tile_image.enter_maintenance(tile.port, timeout=20) == "rebooting"
    tile.proc.wait(timeout=20)
    assert os.path.exists(os.path.join(vt.workdir, "maintenance"))


def test_enter_maintenance_of_a_port_where_no_tile_answers(tmp_path):
    import pty
    master, slave = pty.openpty()
    try:
        assert tile_image.enter_maintenance(os.ttyname(slave), timeout=0.5) == "silent"
    finally:
        os.close(master)
        os.close(slave)
