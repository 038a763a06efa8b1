"""`fairytable run --json` says when the game waits for a tile: a virtual tile's process is
stopped mid-game (its cable pulled: the process is frozen, for seconds, well under the 30 s
after which the virtual table's watchdog takes a frozen tile for hung and resets it) and a
{"waiting_for": ...} line naming the
tile and its cells comes on stderr, though --json prints no log lines; once the tile is
back the game goes on to its end."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from mpy import REPO
from table_helpers import wait_for_journalled

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")


def tile_processes(host_pid):
    """The host's virtual tiles: index -> pid (their FAIRYTABLE_TILE environment holds the
    tile's index fifth: UID CONTROL VARIANT CELLS INDEX SPARES). The host starts them from a
    worker thread while it checks the journal: a child is listed under the thread that
    started it, so every thread's children are read."""
    out = {}
    children = []
    for task in os.listdir("/proc/%d/task" % host_pid):
        try:
            with open("/proc/%d/task/%s/children" % (host_pid, task)) as f:
                children += [int(p) for p in f.read().split()]
        except OSError:
            continue                            # a worker thread that has ended since
    for pid in children:
        try:
            with open("/proc/%d/environ" % pid, "rb") as f:
                env = dict(e.split(b"=", 1) for e in f.read().split(b"\0") if b"=" in e)
        except OSError:
            continue
        if b"FAIRYTABLE_TILE" in env:
            out[int(env[b"FAIRYTABLE_TILE"].split()[4])] = pid
    return out


def test_json_mode_says_which_tile_the_game_waits_for(tmp_path):
    journal = tmp_path / "journal.db"
    host = subprocess.Popen([FAIRYTABLE, "run", "--headless", "--bots", "2", "--json",
                             "--seed", "17", "--journal", str(journal), "--new",
                             "--offline-grace", "0.5"],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(host.stderr), daemon=True)
    reader.start()
    try:
        wait_for_journalled(host, journal, 2, 120)
        deadline = time.monotonic() + 120
        assert host.poll() is None, "the game ended before a tile could be killed"
        tiles = tile_processes(host.pid)
        assert sorted(tiles) == list(range(7)), tiles
        os.kill(tiles[6], signal.SIGSTOP)       # the top row's tile loses its cable
        waiting = None
        while waiting is None and time.monotonic() < deadline and host.poll() is None:
            time.sleep(0.2)
            for line in list(lines):
                if line.startswith(b'{"waiting_for"'):
                    waiting = json.loads(line)["waiting_for"]
        assert waiting is not None, b"".join(lines).decode()[-3000:]
        assert waiting["tile"] == "e661410400000007"
        assert waiting["cells"] == [[c, 6] for c in range(7)]
        assert waiting["message"] == ("The tile of cells %s is offline: the game waits for "
                                      "it." % ", ".join("[%d, 6]" % c for c in range(7)))
        os.kill(tiles[6], signal.SIGCONT)       # plugged back in: the game goes on
        out = host.stdout.read()                # stderr stays the reader thread's
        host.wait(600)
        summary = json.loads(out)
        assert summary["status"] == "finished" and summary["waiting_for"] == []
        assert all(t["online"] for t in summary["tiles"].values())
    finally:
        if host.poll() is None:
            host.send_signal(signal.SIGINT)     # the host stops its virtual table on the way
            try:
                host.wait(30)
            except subprocess.TimeoutExpired:
                host.kill()
                host.wait()


@pytest.mark.parametrize("option, most", [("--offline-grace", 86400), ("--lit-patience", 3600)])
def test_a_bad_number_of_seconds_is_refused_with_a_sentence_and_changes_nothing(tmp_path,
                                                                               option, most):
    journal = tmp_path / "journal" / "journal.db"
    for value in ("-1", "nan", str(most + 1)):
        proc = subprocess.run([FAIRYTABLE, "run", option, value, "--json", "--new",
                               "--journal", str(journal)], capture_output=True, cwd=REPO)
        assert proc.returncode == 2 and proc.stdout == b""
        assert proc.stderr.decode().startswith(
            "fairytable run: %s is a number of seconds from 0 to %d, not " % (option, most))
        assert not journal.parent.exists()
