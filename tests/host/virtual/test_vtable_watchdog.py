"""The virtual table's watchdog: a tile process that dies is started again, as a Pico's
watchdog resets a tile, with the tags that lay on it; the host resyncs it by snapshot and
a game goes on to the same end.

Real parts: MicroPython tile processes on pseudo-terminals, the host link over pyserial,
`fairytable run` as a user starts it, its journal in SQLite.
"""

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

from mpy import REPO, requires_micropython
from vtable_helpers import WAIT_S, wait_event, wait_for

from host.link import TableLink

pytestmark = requires_micropython

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")
CARD = "04c0ffee000001"
PAWN = "04c0ffee000002"


def on_link(vt, scenario):
    async def main():
        async with TableLink(ports=vt.ports()) as link:
            # Every tile online, in whatever order they answer.
            seen = []
            uids = set(t.uid for t in vt.tiles)
            await wait_event(link, lambda e: uids <= set(
                x.tile for x in seen if x.kind == "online"), seen=seen)
            await scenario(link)
    asyncio.run(main())


def host_sees(link, tile, slot):
    """The uids the host believes lie on a slot of a tile."""
    return sorted(uid for uid, _ in link.tiles[tile.uid].slots.get(slot, ()))


def test_a_crashed_tile_is_restarted_with_its_tags_and_the_host_resyncs_by_snapshot(virtual_table):
    vt = virtual_table(tiles=1, cells=3)
    tile = vt.tiles[0]

    async def scenario(link):
        await asyncio.to_thread(tile.place, 1, CARD, "card:17")
        await wait_for(lambda: host_sees(link, tile, 1) == [CARD], what="the card seen")
        first = tile.proc
        tile.crash()
        ev = await wait_event(link, lambda e: e.kind == "online" and e.detail == "reboot")
        assert ev.tile == tile.uid
        assert tile.proc is not first and tile.alive()
        assert tile.watchdog_restarts == 1 and tile.starts == 2
        # The card never left the table: the new process has it in its field, once, and
        # the host's snapshot after HELLO finds it where it was.
        await asyncio.to_thread(reports, tile, [[], [CARD], []])
        await wait_for(lambda: link.tiles[tile.uid].online
                       and host_sees(link, tile, 1) == [CARD], what="resynced")
        # And the restarted tile reports what changes next.
        await asyncio.to_thread(tile.lift, 1, CARD)
        await wait_for(lambda: host_sees(link, tile, 1) == [], what="the card lifted")
    on_link(vt, scenario)
    assert "the watchdog restarts it" in tile.log_tail(20000)


def test_a_hung_tile_is_reset_as_a_hardware_watchdog_resets_it(virtual_table):
    # A firmware that hangs (here: the process stopped, as one blocked in a write) cannot
    # see its own watchdog expire; a Pico's hardware watchdog resets it all the same, and
    # so does the table: the process lives but has stopped running.
    vt = virtual_table(tiles=1, cells=3, hang_s=3.0)
    tile = vt.tiles[0]

    async def scenario(link):
        await asyncio.to_thread(tile.place, 1, CARD, "card:17")
        await wait_for(lambda: host_sees(link, tile, 1) == [CARD], what="the card seen")
        # While it runs, a few seconds past hang_s: no reset.
        await asyncio.sleep(4.0)
        assert tile.hang_resets == 0 and tile.watchdog_restarts == 0
        first = tile.proc
        os.kill(first.pid, signal.SIGSTOP)
        ev = await wait_event(link, lambda e: e.kind == "online" and e.detail == "reboot",
                              timeout=WAIT_S * 2)
        assert ev.tile == tile.uid
        assert tile.hang_resets == 1 and tile.watchdog_restarts == 1
        assert tile.proc is not first and tile.alive() and first.poll() is not None
        await wait_for(lambda: link.tiles[tile.uid].online
                       and host_sees(link, tile, 1) == [CARD], what="resynced")
    on_link(vt, scenario)
    log = tile.log_tail(20000)
    assert "has not run for" in log and "(hung): the watchdog resets it" in log


def test_place_lift_and_clear_on_a_dead_tile_wait_for_its_restart(virtual_table):
    vt = virtual_table(tiles=1, cells=3)
    tile = vt.tiles[0]
    tile.place(0, CARD)
    tile.crash()
    tile.proc.wait()
    # Asked while the process is dead: each waits for the restart, then is carried out.
    tile.place(2, PAWN)
    assert tile.alive() and tile.watchdog_restarts == 1
    reports(tile, [[CARD], [], [PAWN]])
    tile.crash()
    tile.proc.wait()
    tile.lift(0, CARD)
    assert tile.alive() and tile.watchdog_restarts == 2
    reports(tile, [[], [], [PAWN]])
    tile.crash()
    tile.proc.wait()
    tile.clear(2)
    assert tile.alive() and tile.watchdog_restarts == 3
    reports(tile, [[], [], []])


def reports(tile, want):
    """Wait until the tile reports ``want`` per slot (its readers poll in turn; the wait
    only bounds a hung test)."""
    want = [sorted(uids) for uids in want]
    deadline = time.monotonic() + WAIT_S
    while True:
        got = [sorted(uids) for uids in tile.reported()]
        if got == want:
            return
        if time.monotonic() > deadline:
            raise AssertionError("the tile reports %r, not %r" % (got, want))
        time.sleep(0.05)


def test_a_place_racing_a_crash_puts_the_tag_down_once(virtual_table):
    """The tile dies while a place is in flight: the watchdog's restart puts the tag down with
    the others, and the place does not put it down a second time."""
    vt = virtual_table(tiles=1, cells=2)
    tile = vt.tiles[0]
    uids = ["04c0ffee0000%02x" % k for k in range(3)]
    crashed = threading.Event()

    def crash_soon():
        time.sleep(0.01)
        tile.crash()
        crashed.set()

    threading.Thread(target=crash_soon).start()
    for uid in uids:
        tile.place(0, uid)
    crashed.wait(WAIT_S)
    tile.place(1, CARD)         # waits for the restart if it has not happened yet
    reports(tile, [uids, [CARD]])


def test_kill_cuts_the_power_and_the_tile_stays_off_until_restart(virtual_table):
    vt = virtual_table(tiles=1, cells=2, restart_delay_s=0.05)
    tile = vt.tiles[0]
    tile.kill()
    tile.place(0, CARD)         # lies on the tile that is off; returns at once
    time.sleep(0.5)             # ten times the restart delay: no watchdog restart
    assert not tile.alive() and tile.starts == 1
    tile.restart()
    reports(tile, [[CARD], []])


def test_without_auto_restart_a_crashed_tile_stays_dead(virtual_table):
    vt = virtual_table(tiles=1, cells=2, auto_restart=False)
    tile = vt.tiles[0]
    tile.crash()
    tile.proc.wait()
    tile.place(0, CARD)         # kept for when it is restarted by hand
    time.sleep(1.0)             # twice the default restart delay
    assert not tile.alive() and tile.starts == 1 and tile.watchdog_restarts == 0
    tile.restart()
    reports(tile, [[CARD], []])


# ---------------------------------------------------------------- a whole game


def headless_game(journal, seed, on_actions=None):
    """`fairytable run --headless --bots 2 --json` to the end; ``on_actions(host, n)`` is
    called while the game runs with the number of actions in the journal. Returns the
    summary and the journal's actions."""
    host = subprocess.Popen([FAIRYTABLE, "run", "--headless", "--bots", "2", "--json",
                             "--seed", str(seed), "--journal", str(journal), "--new"],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        if on_actions is not None:
            deadline = time.monotonic() + 300
            while host.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
                if on_actions(host, actions_in(journal)):
                    break
        out, err = host.communicate(timeout=600)
    finally:
        if host.poll() is None:
            os.killpg(host.pid, signal.SIGKILL)
            host.wait()
    assert host.returncode == 0, err.decode()[-3000:]
    db = sqlite3.connect(str(journal))
    actions = [row[0] for row in db.execute("SELECT action FROM actions ORDER BY seq")]
    db.close()
    return json.loads(out), actions


def actions_in(journal):
    if not journal.exists():
        return 0
    try:
        db = sqlite3.connect(str(journal))
        try:
            return db.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
        finally:
            db.close()
    except sqlite3.OperationalError:
        return 0


def tile_processes(host_pid):
    """Pids of the tile processes the host started (its `micropython` children). Read from
    the command line, not the kernel's command name: under a venv whose path is too long for
    a shebang line, pip's `micropython` launcher runs through /bin/sh and the process is
    named python3."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
            with open("/proc/%s/cmdline" % name, "rb") as f:
                args = f.read().split(b"\0")[:3]     # (python3 -IS .../micropython)
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        if ppid == host_pid and any(os.path.basename(a) == b"micropython" for a in args):
            pids.append(int(name))
    return sorted(pids)


def test_a_tile_killed_in_the_middle_of_a_game_comes_back_and_the_game_ends_the_same(tmp_path):
    calm, calm_actions = headless_game(tmp_path / "calm.db", 5)
    killed = []

    def kill_a_tile(host, actions):
        if actions < 12:
            return False
        tiles = tile_processes(host.pid)
        assert len(tiles) == 7, tiles
        os.kill(tiles[3], signal.SIGKILL)       # the middle row tile: cards lie on it
        killed.append(tiles[3])
        return True

    stormy, stormy_actions = headless_game(tmp_path / "stormy.db", 5, kill_a_tile)
    assert killed, "the game ended before a tile could be killed"
    assert calm["status"] == stormy["status"] == "finished"
    for key in ("winner", "scores", "actions", "turns"):
        assert stormy[key] == calm[key], key
    assert stormy_actions == calm_actions
    # The killed tile came back (a reboot the host saw) and every tile is online at the end.
    assert all(t["online"] for t in stormy["tiles"].values())
    assert sum(t["health"]["reboots"] for t in stormy["tiles"].values()) >= 1
    assert sum(t["health"]["reboots"] for t in calm["tiles"].values()) == 0


def test_the_tile_logs_are_kept_when_the_bench_asks_for_them(virtual_table, tmp_path,
                                                             monkeypatch):
    vt = virtual_table(tiles=2, cells=2)
    victim = vt.tiles[1]
    pid = victim.proc.pid
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + WAIT_S
    while victim.proc is None or victim.proc.pid == pid:
        assert time.monotonic() < deadline, "the killed tile was not restarted"
        time.sleep(0.1)
    monkeypatch.setenv("FAIRYTABLE_TILE_LOGS", str(tmp_path / "logs"))
    vt.stop()
    kept = os.listdir(tmp_path / "logs")
    assert len(kept) == 1 and kept[0].startswith("fairytable-vtable-")
    logs = sorted(os.listdir(tmp_path / "logs" / kept[0]))
    assert logs == ["tile0.log", "tile1.log"]
    # The watchdog's own line about the restart is in the restarted tile's log.
    assert "virtual table: " in (tmp_path / "logs" / kept[0] / "tile1.log").read_text()


def test_a_tile_that_dies_while_the_table_starts_is_started_again(monkeypatch):
    from host.virtual.table import VirtualTable, VirtualTile
    real_start = VirtualTile._start
    crashed = []

    def start_then_crash_once(tile):
        real_start(tile)
        if tile.index == 1 and not crashed:     # killed at boot, before it says ready
            crashed.append(tile.proc.pid)
            tile.proc.kill()
            tile.proc.wait()

    monkeypatch.setattr(VirtualTile, "_start", start_then_crash_once)
    vt = VirtualTable(tiles=2, cells=2, quiet=True)
    try:
        vt.start()
        victim = vt.tiles[1]
        assert crashed and victim.alive() and victim.proc.pid != crashed[0]
        assert "ended while it started" in victim.log_tail()
        on_link(vt, lambda link: asyncio.sleep(0))      # both tiles answer the host
    finally:
        vt.stop()
