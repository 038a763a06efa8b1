"""The hall console's page in a browser (Playwright driving Debian's chromium): `fairytable
hall` on a real Mosquitto with two tables publishing from their own event loop; the table
with an alert comes first, words only, and a click pauses a table and shows its answer.
A screenshot lands in tests/artifacts/ (git-ignored)."""

import asyncio
import os
import subprocess
import socket
import threading
import time

from hall_helpers import FAIRYTABLE
from host.hall import topics
from host.hall.publisher import HallPublisher
from mosquitto_broker import free_port
from mpy import REPO

ARTIFACTS = os.path.join(REPO, "tests", "artifacts")


class TablesElsewhere:
    """Publishers running in an event loop of their own thread (the page test is not
    async), each answering commands as a table would."""

    def __init__(self, broker, summaries):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.carried = []
        self.publishers = asyncio.run_coroutine_threadsafe(
            self._start(broker, summaries), self.loop).result(30)

    async def _start(self, broker, summaries):
        async def on_command(command):
            self.carried.append(command["command"])
            return "The game is paused by staff."
        out = []
        for name, summary in sorted(summaries.items()):
            p = HallPublisher(topics.parse_broker(broker.url), "hall-a", name,
                              summary=lambda s=summary: s, on_command=on_command,
                              log=lambda line: None)
            p.start()
            out.append(p)
        while not all(p.state == "ready" for p in out):
            await asyncio.sleep(0.02)
        return out

    def stop(self):
        async def stop_all():
            for p in self.publishers:
                await p.stop()
        asyncio.run_coroutine_threadsafe(stop_all(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def wait_listening(port, proc, timeout_s=60):
    deadline = time.monotonic() + timeout_s
    while True:
        assert proc.poll() is None, proc.stderr.read()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            assert time.monotonic() < deadline, "the console did not listen"
            time.sleep(0.1)


def test_the_console_page_lists_tables_alerts_first_and_pauses_one(broker, browser,
                                                                     tmp_path):
    port = free_port()
    (tmp_path / "hall.pin").write_text("135790\n")
    console = subprocess.Popen([FAIRYTABLE, "hall", "--mqtt", broker.url, "--hall", "hall-a",
                                "--web", "127.0.0.1:%d" % port, "--staff-pin-file",
                                str(tmp_path / "hall.pin")], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    tables = TablesElsewhere(broker, {
        "table-1": {"game": "Storybook Battles", "status_words": "Playing", "turn": 3,
                    "players": [{"name": "Hero", "bot": False, "score": 2},
                                {"name": "Villain", "bot": True, "score": 1}],
                    "tiles": {"online": 7, "total": 7, "offline": []}},
        "table-2": {"game": "Battle Royale", "status_words": "Waiting for a tile that is "
                    "offline", "players": [], "tiles": {"online": 4, "total": 5,
                                                        "offline": ["the dice tray"]}},
    })
    page = browser.new_page(viewport={"width": 1100, "height": 700})
    try:
        wait_listening(port, console)
        page.goto("http://127.0.0.1:%d/" % port)
        page.wait_for_function("() => document.querySelectorAll('.card').length === 2",
                               polling=250, timeout=60000)
        names = page.eval_on_selector_all(".card h2", "els => els.map(e => e.textContent)")
        assert names == ["table-2", "table-1"]           # the alert first
        first = page.inner_text(".card >> nth=0")
        assert "A tile is offline: the tile of the dice tray." in first
        second = page.inner_text(".card >> nth=1")
        assert "Storybook Battles · turn 3" in second and "Villain (bot): 1" in second
        # Without the staff PIN a click sends nothing, and says why.
        page.click(".card >> nth=1 >> text=Pause")
        page.wait_for_function("() => document.getElementById('answer').textContent"
                               ".includes('needs the staff PIN')", polling=250,
                               timeout=30000)
        assert tables.carried == []
        page.fill("#pin", "135790")
        page.click(".card >> nth=1 >> text=Pause")
        # The answer, at once, or in the list of commands sent when it came later.
        page.wait_for_function("() => document.getElementById('sent').textContent"
                               ".includes('Pause the game at table-1: The game is paused by "
                               "staff.')", polling=250, timeout=30000)
        assert tables.carried == ["pause"]
        text = page.inner_text("body")
        assert "console-" not in text and tables.publishers[0].boot not in text
        # Both tables are busy (one playing, one waiting for its tile): none is free.
        assert page.inner_text("#free") == "No table is free now."
        leaders = page.inner_text("#leaders")
        assert "Who leads at Storybook Battles" in leaders
        assert leaders.index("Hero at table-1: 2") < leaders.index("Villain (bot) at "
                                                                    "table-1: 1")
        os.makedirs(ARTIFACTS, exist_ok=True)
        page.screenshot(path=os.path.join(ARTIFACTS, "hall_console.png"))
    finally:
        page.close()
        tables.stop()
        console.terminate()
        console.wait(15)
