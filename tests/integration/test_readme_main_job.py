"""The README's main job, word for word: `fairytable run --bots 2` with no other option, in
a data folder of its own (FAIRYTABLE_HOME) and an empty home: the virtual table starts, the
web table is served and answers, and the staff PIN and journal land in the data folder."""

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

from mpy import REPO

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")


def test_the_readme_main_job_serves_the_web_table(tmp_path):
    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), FAIRYTABLE_HOME=str(data))
    out = tmp_path / "run.log"
    with open(out, "w") as f:
        host = subprocess.Popen([FAIRYTABLE, "run", "--bots", "2"], stdout=f,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=REPO,
                                env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        url = None
        while url is None and time.monotonic() < deadline and host.poll() is None:
            time.sleep(0.2)
            found = re.search(r"web table: (http://\S+)", out.read_text())
            url = found.group(1) if found else None
        assert url, out.read_text()[-3000:]
        assert "starting the virtual table" in out.read_text()
        deadline = time.monotonic() + 60
        view = None
        while time.monotonic() < deadline:
            with urllib.request.urlopen(url.rstrip("/") + "/api/table", timeout=10) as r:
                view = json.loads(r.read())
            if view["log"]:
                break
            time.sleep(0.5)
        assert view["game"] == "storybook" and len(view["cells"]) == 49
        assert os.path.exists(data / "journal.db") and os.path.exists(data / "staff.pin")
        assert "Traceback" not in out.read_text()
    finally:
        if host.poll() is None:
            os.killpg(host.pid, signal.SIGTERM)
            try:
                host.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(host.pid, signal.SIGKILL)
                host.wait()
