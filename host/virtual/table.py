"""The virtual table: real tile firmware in processes on pseudo-terminals.

Each tile is a process running the real firmware (firmware/main.py) with
the sim board backend (firmware/boards/sim.py): under ``micropython`` with
a 64 KB heap for the firmware, running the mpy-cross compiled tile image
from a ROMFS mount as a Pico does; the process heap adds the image bytes
and the emulated reader chips on top of the 64 KB (host/virtual/image.py,
``heapsize_for``). Or, where no ``micropython`` is installed (a Raspberry
Pi), under CPython from the sources, which the table says when it starts.

Serial: each tile gets its own pseudo-terminal. The tile process has the
pty's master side as its stdin/stdout; the slave side is the tile's
"serial port" (``tile.port``, e.g. /dev/pts/7), which the host opens with
pyserial exactly as it opens /dev/ttyACM0. (Only the slave side of a pty
has a path, so it is the host's end.) The table keeps both ends open, so a
killed tile looks to the host like a board that went quiet, and a
restarted one like a board that rebooted.

Watchdog: a tile process that ends while the tile has power (a crash, a
``kill -9``, a REBOOT the host asked for, the sim board's software watchdog)
is started again after ``restart_delay_s``, as a Pico's watchdog resets it;
the tags lying on it are put back first, as they never left the table. A
process that lives but has not run for ``hang_s`` (its CPU time, read from
/proc, has not moved: the firmware is blocked, in a write say, where it
cannot see its own software watchdog expire; a Pico's hardware watchdog
resets it all the same) is ended, and so started again. A running tile's
loops poll, render and talk all the time; it is never idle that long.
``kill()`` is different: it cuts the tile's power, and the tile stays off
until ``restart()``. ``VirtualTable(auto_restart=False)`` leaves a dead
process dead too (tests of a tile that stays silent). While a tile is being
restarted, ``place``, ``lift``, ``clear`` and the gestures wait for it.

Control: each tile connects back to a unix socket of the table; JSON lines. On Linux the
socket is in the abstract namespace (``@fairytable-vtable-PID-XXXXXXXX``: no file, so its
address never depends on how deep the temporary folder is; a unix socket's path may be
107 bytes at most) and the table talks only to processes of its own user, as the private
folder's permissions did. Elsewhere it is a file in a private folder of its own under
/tmp, whatever TMPDIR says, for the same reason. ``VirtualTile`` wraps the operations:

    place(slot, uid_hex, identity=None, identity_hex=None, pages=None, read_only=False)
    lift(slot, uid_hex) -> the 16 bytes of pages 4..7 the tag held   clear(slot)
    tap(slot)  double(slot)  hold(slot)   press(slot, down)
    set_die(pocket, uid_hex=None, identity=None, identity_hex=None)
    leds() -> bytes (GRB)  watch_leds(callback(frame_no, grb_bytes, t))
    fault(slot, kind, **args)   garbage(raw_bytes)   deaf(ms)   stats() -> dict
    reported() -> per slot the uids the tile has reported
    crash()  kill()   restart()   unplug()   replug() -> new port path   wait_ready()

Each table works in a temporary folder of its own (the tiles' logs, the image's link),
removed when it stops; the folder names its host's pid, so a folder left by a host killed
with it is removed by a later table once that host is gone and an hour has passed
(``sweep_stale_workdirs``).

The one way the host opens a table (the ports given, or this one) is
``host.virtual.open_table``. ``python -m tools.virtual_table --tiles 7``
starts a table for a developer and prints its ports.
"""

import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import tty

from host.virtual import image

# A tile process that died is started again after this long: the reset a Pico's watchdog
# gives a tile that crashed (a hung one it resets after its timeout, and so does the sim
# board's software watchdog, which ends the process).
RESTART_DELAY_S = 0.5
# The image as the tiles open it, in the table's folder (their working directory): the
# path is source code in the tile's heap, so it is short and the same wherever the cache is.
ROMFS_LINK = "tile.romfs"
# How often the table looks for a tile process that died.
WATCH_INTERVAL_S = 0.05
# A running tile whose process has used no CPU for this long has hung: the table resets
# it. A Pico's watchdog waits 2 s (firmware/config.py); a process on a busy desktop may
# not be scheduled for seconds at a time, and a reset it did not need costs a game
# nothing but the wait, so the table waits much longer.
HANG_S = 30.0
# How often the table reads a running tile's CPU time.
HANG_LOOK_S = 1.0
# Starts a tile gets while the table starts, before the table gives up on it.
START_ATTEMPTS = 3
# Linux's abstract socket namespace: a control socket with no file, hence no path length.
ABSTRACT_SOCKETS = sys.platform.startswith("linux")


def find_micropython():
    return image.venv_tool("micropython")


def _parse_size(text):
    text = str(text).lower()
    if text.endswith("k"):
        return int(text[:-1]) * 1024
    if text.endswith("m"):
        return int(text[:-1]) * 1024 * 1024
    return int(text)


class ControlError(RuntimeError):
    """A control request the tile refused or did not answer."""


class TileDied(ControlError):
    """The tile process ended before it answered a control request."""


def _tag_fields(identity, identity_hex, pages, read_only):
    """The fields of a place request that describe the tag itself (firmware/boards/sim.py)."""
    given = [x for x in (identity, identity_hex, pages) if x is not None]
    if len(given) > 1:
        raise ValueError("give a tag's identity, identity_hex or pages, not several")
    fields = {"identity": identity}
    if identity_hex is not None:
        fields["identity_hex"] = identity_hex
    if pages is not None:
        if len(pages) != 16:
            raise ValueError("a tag's pages 4..7 are 16 bytes, not %d" % len(pages))
        fields["pages"] = bytes(pages).hex()
    if read_only:
        fields["read_only"] = True
    return fields


class VirtualTile:
    """One tile process, its pty and its control connection."""

    def __init__(self, table, index, uid_hex, variant, cells):
        self.table = table
        self.index = index
        self.uid = uid_hex
        self.variant = variant
        self.cells = cells
        self.master, self.slave = os.openpty()
        # Raw line discipline: the slave is a byte pipe, no echo, no CR/LF games.
        tty.setraw(self.slave)
        tty.setraw(self.master)
        self.port = os.ttyname(self.slave)
        self.proc = None
        self.conn = None
        self.lock = threading.Lock()
        # The tile's life (power, process, the cards put back): one owner at a time, the
        # table's watchdog or a caller of kill/restart; place/lift/clear take it too, so a
        # card is never put down twice by a restart and its hand.
        self.life = threading.RLock()
        self.powered = False        # has power: a process that ends is restarted
        self.restarting = False     # the watchdog is restarting it
        self.watchdog_restarts = 0
        self.replies = {}
        self.reply_cv = threading.Condition()
        self.next_id = 0
        self.ready = threading.Event()
        self.ready_info = None
        self.frame = b""
        self.frame_no = 0
        self.frame_at_ns = None
        self.led_callbacks = []
        self.stderr_path = os.path.join(table.workdir, "tile%d.log" % index)
        # What lies on the tile: it stays there while the tile is off, like real cards.
        # (A tag the tile's reader wrote keeps what it was placed with here: lift it and
        # place it again with the pages lift returns to carry the write across a restart.)
        self.cards = {}         # slot -> {uid hex: the place request's tag fields}
        self.starts = 0
        self.cpu = None         # the running firmware's CPU time (clock ticks) ...
        self.ran_at = None      # ... and when it was last seen to grow
        self.hang_resets = 0

    # ------------------------------------------------------------ process

    def start(self):
        with self.life:
            self._start()

    def _start(self):
        self.ready.clear()
        self.conn = None
        self.ran_at = None
        self.starts += 1
        self.powered = True
        crowded = self.table.crowded.get(self.index) or {}
        args = [self.uid, self.table.control_path, self.variant, str(self.cells),
                str(self.index), str(self.table.tags_per_reader),
                ",".join("%d:%d" % (k, crowded[k]) for k in sorted(crowded)) or "-"]
        code = "from firmware.boards import sim\nsim.main()\n"
        env = dict(os.environ)
        # In the environment, not argv: the unix port would make each argument a qstr, in
        # the tile's 64 KB heap (a real tile has no arguments), and spill its qstr pool.
        env["FAIRYTABLE_TILE"] = " ".join(args)
        if self.table.micropython:
            readers = 3 if self.variant == "dice" else self.cells
            readers += sum(crowded.values()) - len(crowded)   # a crowded cell's extra readers
            heap = image.heapsize_for(self.table.romfs, self.table.heap_bytes, readers,
                                      self.table.tags_per_reader)
            cmd = self.table.micropython_argv + ["-X", "heapsize=%d" % heap,
                   "-c", image.launcher(ROMFS_LINK, code)]
            env["MICROPYPATH"] = ".frozen"
        else:
            cmd = [sys.executable, "-c", code]
            roots = []
            for package in ("firmware", "shared_rules"):
                root = image.package_root(package)
                if root not in roots:
                    roots.append(root)
            env["PYTHONPATH"] = os.pathsep.join(roots)
        with open(self.stderr_path, "ab") as err:
            self.proc = subprocess.Popen(cmd, stdin=self.master, stdout=self.master,
                                         stderr=err, cwd=self.table.workdir, env=env,
                                         start_new_session=True)

    def wait_ready(self, timeout=60.0):
        deadline = time.monotonic() + timeout
        while not self.ready.wait(0.05):
            if time.monotonic() > deadline or (self.proc is not None
                                               and self.proc.poll() is not None):
                break
        if not self.ready.is_set():
            raise ControlError("tile %d did not start (%s); its log:\n%s"
                               % (self.index, "exited" if not self.alive() else "timeout",
                                  self.log_tail()))
        return self.ready_info

    def log_tail(self, n=2000):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read()[-n:].decode(errors="replace")
        except OSError:
            return ""

    def _log(self, line):
        with open(self.stderr_path, "a") as f:
            f.write("virtual table: %s\n" % line)

    def kill(self):
        """Cut the tile's power: the process dies, its pty stays, and it stays off (the
        watchdog does not restart it) until ``restart()``."""
        with self.life:
            self.powered = False
            self._end_process()

    def crash(self):
        """The tile's firmware dies while it has power (SIGKILL, as a hard fault stops a
        Pico): the table's watchdog restarts it, unless the table's ``auto_restart`` is
        off."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGKILL)

    def _end_process(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.ran_at = None
        self.conn = None
        self.ready.clear()

    def restart(self, wait=True):
        """Power-cycle the tile; the cards on it are still there when it is back."""
        with self.life:
            self._end_process()
            self._start()
            if wait:
                self.wait_ready()
                self.power_on()

    def power_on(self):
        """Put back the cards lying on the tile, then let its firmware start."""
        with self.life:
            self._replace_cards()
            self.request("start")

    def _replace_cards(self):
        for slot in sorted(self.cards):
            for uid, fields in sorted(self.cards[slot].items()):
                if self.variant == "dice":
                    self.request("die", pocket=slot, uid=uid, **fields)
                else:
                    self.request("place", slot=slot, uid=uid, **fields)

    def _look_for_a_hang(self, now, hang_s):
        """Read the running process's CPU time; end a process that has not run for
        ``hang_s`` (the table's watchdog thread calls this), which is then started
        again."""
        proc = self.proc
        if self.ran_at is None or proc is None or not self.powered or self.restarting:
            return
        cpu = _cpu_ticks(proc.pid)
        if cpu is None:         # no /proc (not Linux), or the process just ended
            return
        if cpu != self.cpu:
            self.cpu, self.ran_at = cpu, now
            return
        if now - self.ran_at <= hang_s:
            return
        with self.life:
            if self.proc is not proc or not self.alive() or self.table.stopping:
                return
            self._log("the firmware has not run for %.0f s (hung): the watchdog resets it"
                      % (now - self.ran_at))
            self.ran_at = None
            self.hang_resets += 1
            self.crash()

    def _watchdog_restart(self):
        """Start the process again if it ended while the tile has power (the table's
        watchdog thread calls this)."""
        with self.life:
            if not self.powered or self.alive() or self.table.stopping:
                return
            self.restarting = True
            try:
                status = self.proc.poll() if self.proc is not None else None
                self._log("the tile process ended (status %s): the watchdog restarts it"
                          % status)
                time.sleep(self.table.restart_delay_s)
                if self.table.stopping or not self.powered:
                    return
                self._start()
                self.wait_ready()
                self.power_on()
                self.watchdog_restarts += 1
            except (ControlError, OSError) as e:
                # Tried again on the watchdog's next look, as a Pico that crashes at boot
                # is reset again and again.
                self._log("the restart failed: %s" % e)
            finally:
                self.restarting = False

    def _wait_while_restarting(self, timeout=60.0):
        """Return once the tile runs, or is off for good (no power, no watchdog); while
        its process is dead and the watchdog will restart it, wait, as a player waits for
        a tile that reboots."""
        deadline = time.monotonic() + timeout
        # A process killed but not yet reaped still looks alive: its control connection,
        # gone with it, says it is down.
        while self.restarting or (self.powered and self.table.watching()
                                  and (not self.alive() or self.conn is None)):
            if time.monotonic() > deadline:
                raise ControlError("tile %d was not back %d s after its process ended; its "
                                   "log:\n%s" % (self.index, timeout, self.log_tail()))
            time.sleep(0.02)

    def unplug(self):
        """Pull the USB cable: the tile loses power and its serial port disappears."""
        self.kill()
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass
        self.master = self.slave = None

    def replug(self, wait=True):
        """Plug it back in: a serial port appears (the name may differ) and the tile boots."""
        if self.master is not None:
            raise ControlError("tile %d is plugged in" % self.index)
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        tty.setraw(self.master)
        self.port = os.ttyname(self.slave)
        self.restart(wait)
        return self.port

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    # ------------------------------------------------------------ control channel

    def _attach(self, conn, hello):
        self.conn = conn
        self.ready_info = hello
        self.cpu, self.ran_at = None, time.monotonic()  # watched from now on
        self.ready.set()

    def _detach(self, conn):
        """The tile's control connection ended (its process ended): requests waiting on it
        fail at once instead of at their timeout."""
        with self.reply_cv:
            if self.conn is conn:
                self.conn = None
            self.reply_cv.notify_all()

    def _on_line(self, obj):
        if "ev" in obj:
            if obj["ev"] == "leds":
                frame = bytes.fromhex(obj["hex"])
                t = time.perf_counter()
                self.frame = frame
                self.frame_no = obj["frame"]
                self.frame_at_ns = obj.get("at_ns")     # when the tile showed it (wall clock)
                for cb in list(self.led_callbacks):
                    cb(obj["frame"], frame, t)
            return
        with self.reply_cv:
            self.replies[obj.get("id")] = obj
            self.reply_cv.notify_all()

    def request(self, op, timeout=30.0, **fields):
        """Send one control request and wait for its reply (a dict).

        A tile whose 64 KB heap is momentarily too fragmented for the request
        answers MemoryError; the request is tried again a few times.
        """
        for attempt in range(5):
            try:
                return self._request(op, timeout, dict(fields))
            except ControlError as e:
                if "MemoryError" not in str(e) or attempt == 4:
                    raise
                time.sleep(0.05)

    def _request(self, op, timeout, fields):
        with self.lock:
            self.next_id += 1
            rid = self.next_id
        fields["op"] = op
        fields["id"] = rid
        conn = self.conn
        if conn is None:
            if self.powered and self.alive():
                # Killed but not yet reaped: its control connection is gone already.
                raise TileDied("tile %d ended before it got %r" % (self.index, op))
            raise ControlError("tile %d is not running" % self.index)
        data = (json.dumps(fields) + "\n").encode()
        try:
            with self.lock:
                conn.sendall(data)
        except OSError:
            raise TileDied("tile %d ended before it got %r" % (self.index, op))
        deadline = time.monotonic() + timeout
        with self.reply_cv:
            while rid not in self.replies:
                if self.conn is not conn:
                    raise TileDied("tile %d ended before it answered %r" % (self.index, op))
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ControlError("tile %d did not answer %r" % (self.index, op))
                self.reply_cv.wait(left)
            reply = self.replies.pop(rid)
        if not reply.get("ok"):
            raise ControlError("tile %d refused %r: %s" % (self.index, op, reply.get("error")))
        return reply

    def send_nowait(self, op, **fields):
        """Send a control request without waiting for the reply (for benchmarks)."""
        fields["op"] = op
        with self.lock:
            self.conn.sendall((json.dumps(fields) + "\n").encode())

    # ------------------------------------------------------------ operations

    def place(self, slot, uid_hex, identity=None, identity_hex=None, pages=None,
              read_only=False):
        """Put a tag on a slot. Its memory (pages 4..7) holds the identity record of
        ``identity`` (text) or ``identity_hex``, or exactly ``pages`` (16 bytes, e.g. what
        ``lift`` returned), or nothing; a ``read_only`` tag refuses every write. On a tile
        that is off the tag lies there until it is back."""
        fields = _tag_fields(identity, identity_hex, pages, read_only)
        return self._put(slot, uid_hex, fields, "place", {"slot": slot})

    def set_die(self, pocket, uid_hex=None, identity=None, identity_hex=None):
        """Put a die in a pocket of the dice tray, ``uid_hex`` facing the reader (None:
        the pocket is empty)."""
        fields = _tag_fields(identity, identity_hex, None, False)
        self._wait_while_restarting()
        with self.life:
            self.cards[pocket] = {uid_hex: fields} if uid_hex else {}
            if self.alive():
                try:
                    return self.request("die", pocket=pocket, uid=uid_hex, **fields)
                except TileDied:
                    pass    # the watchdog's restart puts the die back
        self._wait_while_restarting()
        return None

    def _put(self, slot, uid_hex, fields, op, where):
        self._wait_while_restarting()
        with self.life:
            self.cards.setdefault(slot, {})[uid_hex] = fields
            if self.alive():
                try:
                    return self.request(op, uid=uid_hex, **where, **fields)
                except TileDied:
                    pass    # the watchdog's restart puts it down with the other cards
        self._wait_while_restarting()
        return None

    def lift(self, slot, uid_hex):
        """Take a tag off a slot; returns the 16 bytes of pages 4..7 it held (None if it
        was not there), so it can be put down elsewhere as it is."""
        self._wait_while_restarting()
        with self.life:
            fields = self.cards.get(slot, {}).pop(uid_hex, None)
            if self.alive():
                try:
                    held = self.request("lift", slot=slot, uid=uid_hex).get("pages")
                    return bytes.fromhex(held) if held else None
                except TileDied:
                    pass    # off the tile now: the restart does not put it back
        self._wait_while_restarting()
        if fields is not None and fields.get("pages"):
            return bytes.fromhex(fields["pages"])
        return None

    def clear(self, slot):
        self._wait_while_restarting()
        with self.life:
            self.cards.pop(slot, None)
            if self.alive():
                try:
                    return self.request("clear", slot=slot)
                except TileDied:
                    pass
        self._wait_while_restarting()
        return None

    def tap(self, slot):
        self._wait_while_restarting()
        return self.request("tap", slot=slot)

    def double(self, slot):
        self._wait_while_restarting()
        return self.request("double", slot=slot)

    def hold(self, slot):
        self._wait_while_restarting()
        return self.request("hold", slot=slot)

    def press(self, slot, down):
        self._wait_while_restarting()
        return self.request("press", slot=slot, down=bool(down))

    def leds(self):
        """The tile's LED buffer now (GRB bytes, 3 per LED, cell after cell)."""
        self.request("leds")
        return self.frame

    def watch_leds(self, callback=None, on=True):
        if callback is not None:
            self.led_callbacks.append(callback)
        self.request("watch", on=on)
        return self.frame

    def fault(self, slot, kind, **args):
        return self.request("fault", slot=slot, kind=kind, args=args)

    def garbage(self, data):
        return self.request("garbage", hex=bytes(data).hex())

    def deaf(self, ms):
        """The tile drops everything the host sends for ``ms`` (a noisy line)."""
        return self.request("deaf", ms=ms)

    def stats(self):
        """heap_free, loop_max_ms, render_max_ms, frames, idle, failures of the tile."""
        return self.request("stats")

    def reported(self):
        """What the tile has reported per slot: a list of uid hex lists."""
        return self.request("reported")["reported"]

    def cell_pixels(self, cell, frame=None):
        """The GRB bytes of one cell's LEDs in a frame (default: the latest)."""
        n = self.ready_info["leds_per_cell"] * 3
        frame = self.frame if frame is None else frame
        return frame[cell * n:(cell + 1) * n]


def _cpu_ticks(pid):
    """The CPU time a process has used (user and system, in clock ticks), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])    # utime, stime (fields 14 and 15)
    except (OSError, IndexError, ValueError):
        return None



WORKDIR_PREFIX = "fairytable-vtable-"
OWNER_FILE = "owner.pid"
STALE_S = 3600


def sweep_stale_workdirs(folder=None, now=None):
    """Remove the working folders of tables whose host died without stopping them (a kill -9,
    a crash): each holds its host's pid (`owner.pid`). A folder is removed when that process
    is gone and nothing in it changed for an hour (its tiles' logs stay that long for whoever
    looks into the crash). Returns the folders removed. A table restarted again and again
    leaves no trail in /tmp."""
    folder = folder or tempfile.gettempdir()
    now = time.time() if now is None else now
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        path = os.path.join(folder, name)
        if not name.startswith(WORKDIR_PREFIX):
            continue
        try:
            st = os.stat(path)
            if st.st_uid != os.getuid() or now - st.st_mtime < STALE_S:
                continue
            with open(os.path.join(path, OWNER_FILE)) as f:
                pid = int(f.read().strip())
        except (OSError, ValueError):
            continue        # not ours, not a table's (no owner file), or being made
        if pid_alive(pid):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True         # someone else's process by that number
    return True


class VirtualTable:
    """N virtual tiles; use as a context manager or call start()/stop().

    ``auto_restart``: the table's watchdog starts a tile process that ended while the
    tile has power again after ``restart_delay_s`` (see the module docstring).
    ``crowded``: {tile index: {slot: readers}}, cells read by several readers (one slot for
    the host; the sim spreads a placed tag over them: firmware/sim/control.py);
    ``cells_of``: {tile index: cells} for tiles of another size than ``cells``.
    """

    def __init__(self, tiles=7, cells=7, variant="cell", heapsize="64k", interpreter="auto",
                 uid_base=0xE661410400000000, quiet=False, variants=None, auto_restart=True,
                 restart_delay_s=RESTART_DELAY_S, tags_per_reader=4, hang_s=HANG_S,
                 crowded=None, cells_of=None):
        self.n = tiles
        # {tile index: {slot: readers}}: cells read by several readers, one slot for the
        # host (the Dragon Inn's quadrants: firmware/config.py, hardware/stacks.md).
        self.crowded = dict(crowded or {})
        # Emulated tags made at a tile's start, a reader: they live in the sim tile's heap,
        # beside the firmware's (which keeps its heapsize): a real tile's cards take none.
        self.tags_per_reader = tags_per_reader
        self.cells = cells
        self.variant = variant
        self.heapsize = heapsize
        self.quiet = quiet
        self.auto_restart = auto_restart
        self.restart_delay_s = restart_delay_s
        self.hang_s = hang_s
        sweep_stale_workdirs()
        self.workdir = tempfile.mkdtemp(prefix=WORKDIR_PREFIX)
        with open(os.path.join(self.workdir, OWNER_FILE), "w") as f:
            f.write("%d\n" % os.getpid())
        # The control socket's address as the tiles are given it (firmware/boards/sim.py,
        # ``sock_connect``): "@NAME" is NAME in Linux's abstract namespace.
        self.socket_dir = None
        if ABSTRACT_SOCKETS:
            self.control_path = "@%s-%d" % (os.path.basename(self.workdir), os.getpid())
        else:
            self.socket_dir = tempfile.mkdtemp(prefix="fairytable-", dir="/tmp")
            self.control_path = os.path.join(self.socket_dir, "control.sock")
        if interpreter == "auto":
            self.micropython = find_micropython()
        elif interpreter == "micropython":
            self.micropython = find_micropython()
            if self.micropython is None:
                raise RuntimeError("micropython is not installed")
        else:
            self.micropython = None
        self.micropython_argv = image.micropython_argv(self.micropython, self.workdir) \
            if self.micropython else None
        self.romfs = None
        self.heap_bytes = _parse_size(heapsize)
        # variants: one per tile (a table of cell tiles and a dice tray); else all `variant`.
        if variants is not None and len(variants) != tiles:
            raise ValueError("variants lists %d tiles, not %d" % (len(variants), tiles))
        # cells_of: {tile index: cells} for tiles of another size than ``cells`` (the
        # Dragon Inn's tile of one cell).
        cells_of = cells_of or {}
        self.tiles = [VirtualTile(self, i, "%016x" % (uid_base + i + 1),
                                  variants[i] if variants else variant, cells_of.get(i, cells))
                      for i in range(tiles)]
        self.server = None
        self.threads = []
        self.stopping = False
        self.started = False

    @property
    def interpreter(self):
        return "micropython" if self.micropython else "cpython"

    def watching(self):
        """True while the watchdog restarts tile processes that end."""
        return self.auto_restart and self.started and not self.stopping

    def start(self, wait=True):
        if self.micropython:
            self.romfs = image.build_romfs("sim")
            os.symlink(self.romfs, os.path.join(self.workdir, ROMFS_LINK))
        elif not self.quiet:
            print("virtual table: micropython is not installed; running the tile firmware "
                  "under CPython (%s) with the sim backend" % sys.version.split()[0])
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if self.control_path.startswith("@"):
            self.server.bind("\0" + self.control_path[1:])
        else:
            self.server.bind(self.control_path)
        self.server.listen(64)
        self._thread(self._accept)
        for tile in self.tiles:
            tile.start()
        if wait:
            for tile in self.tiles:
                self._bring_up(tile)
        self.started = True
        if self.auto_restart:
            self._thread(self._watchdog)
        return self

    def _bring_up(self, tile, attempts=START_ATTEMPTS):
        """Wait for a starting tile's firmware, then power it on. A tile whose process
        ended while it started (killed, or a crash at boot) is started again, as a Pico's
        watchdog resets it, up to ``attempts`` starts in all: the table's own watchdog
        only looks after tiles once the table has started."""
        for attempt in range(attempts):
            try:
                tile.wait_ready()
                tile.power_on()
                return
            except (ControlError, OSError) as e:
                if tile.alive() or attempt == attempts - 1:
                    raise
                tile._log("the tile process ended while it started (%s): started again"
                          % str(e).split("\n")[0])
                with tile.life:
                    tile._end_process()
                    tile._start()

    def _thread(self, target):
        t = threading.Thread(target=target, daemon=True)
        t.start()
        self.threads.append(t)

    def _watchdog(self):
        looked = time.monotonic()
        while not self.stopping:
            now = time.monotonic()
            look = now - looked >= HANG_LOOK_S
            if look:
                looked = now
            for tile in self.tiles:
                if tile.powered and not tile.alive() and not self.stopping:
                    tile._watchdog_restart()
                elif look:
                    tile._look_for_a_hang(now, self.hang_s)
            time.sleep(WATCH_INTERVAL_S)

    def _accept(self):
        while not self.stopping:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            if not self._ours(conn):
                conn.close()
                continue
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            t.start()

    def _ours(self, conn):
        """Whether a process of this user connected: anyone may connect to an abstract
        socket, which has no folder whose permissions keep other users out."""
        if not ABSTRACT_SOCKETS:
            return True
        try:
            _pid, uid, _gid = struct.unpack(
                "3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                      struct.calcsize("3i")))
        except OSError:
            return False
        return uid == os.geteuid()

    def _serve(self, conn):
        buf = b""
        tile = None
        try:
            while not self.stopping:
                data = conn.recv(65536)
                if not data:
                    return
                buf += data
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    try:
                        obj = json.loads(line)
                    except ValueError:
                        continue
                    if tile is None:
                        if obj.get("ev") == "ready":
                            tile = self.tiles[obj["index"]]
                            tile._attach(conn, obj)
                        continue
                    tile._on_line(obj)
        except OSError:
            return
        finally:
            if tile is not None:
                tile._detach(conn)
            try:
                conn.close()
            except OSError:
                pass

    def stop(self):
        self.stopping = True
        for tile in self.tiles:
            tile.kill()
        if self.server is not None:
            self.server.close()
        for tile in self.tiles:
            for fd in (tile.master, tile.slave):
                try:
                    if fd is not None:
                        os.close(fd)
                except OSError:
                    pass
        self._keep_logs(os.environ.get("FAIRYTABLE_TILE_LOGS"))
        shutil.rmtree(self.workdir, ignore_errors=True)
        if self.socket_dir is not None:
            shutil.rmtree(self.socket_dir, ignore_errors=True)

    def _keep_logs(self, folder):
        """Copy every tile's log (its stderr: tracebacks of failed tasks, watchdog resets)
        into ``folder`` before the table's working folder goes, when the bench asked for
        them with FAIRYTABLE_TILE_LOGS=FOLDER; one folder per table, named by its own."""
        if not folder:
            return
        target = os.path.join(folder, os.path.basename(self.workdir))
        try:
            os.makedirs(target, exist_ok=True)
            for tile in self.tiles:
                if os.path.exists(tile.stderr_path):    # (a tile that never started has none)
                    shutil.copy(tile.stderr_path, target)
        except OSError as e:
            print("virtual table: tile logs not kept in %s: %s" % (target, e), file=sys.stderr)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def ports(self):
        return [t.port for t in self.tiles]
