"""A `fairytable run` serving the web table, for the web tests: started, read, stopped."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from mpy import REPO

FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")
CHROMIUM = os.environ.get("FAIRYTABLE_CHROMIUM") or shutil.which("chromium") or \
    shutil.which("chromium-browser")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def seat_words(log):
    """seat -> (what the host's seat link line says of it: "bot", "hard bot" or "" for a
    person's seat, its URL), from the lines `fairytable run` prints ("  Villain (bot):
    http://...#seat=villain&token=..."; the seat is the link's own)."""
    return dict((seat, (said, url)) for said, url, seat in re.findall(
        r"^  .+?(?: \((\w* ?bot)\))?: (http\S*#seat=(\w+)&\S*)$", log, re.M))


class Host:
    """`fairytable run --web 127.0.0.1:PORT ...` in its own process group."""

    def __init__(self, tmp_path, *args, port=None, journal=None, stdin=None):
        self.stdin = stdin      # a terminal (a pty's end) the host reads typed hands from
        self.port = port or free_port()
        self.tmp = tmp_path
        self.journal = journal or str(tmp_path / "journal.db")
        self.pin_file = str(tmp_path / "staff.pin")
        self.args = list(args)
        self.lines = []
        self.proc = None

    def start(self, timeout=90):
        cmd = [FAIRYTABLE, "run", "--web", "127.0.0.1:%d" % self.port, "--journal", self.journal,
               "--staff-pin-file", self.pin_file] + self.args
        self.out = open(str(self.tmp / ("host-%d.log" % time.monotonic_ns())), "w+")
        stdin = self.stdin if self.stdin is not None else subprocess.DEVNULL
        self.proc = subprocess.Popen(cmd, stdout=self.out, stderr=subprocess.STDOUT, cwd=REPO,
                                     stdin=stdin, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log()
            # The seat links and the staff URL follow the page's URL: wait for the last.
            if "web table: http" in text and re.search(r"^\s*staff: http", text, re.M):
                break
            if self.proc.poll() is not None:
                raise AssertionError("the host stopped:\n" + text[-3000:])
            time.sleep(0.2)
        else:
            raise AssertionError("no web table within %d s:\n%s" % (timeout, self.log()[-3000:]))
        self.url = "http://127.0.0.1:%d/" % self.port
        words = seat_words(self.log())
        self.links = dict((seat, url) for seat, (_, url) in words.items())
        self.bots = set(seat for seat, (said, _) in words.items() if said)
        with open(self.pin_file) as f:
            self.pin = f.read().strip()
        return self

    def log(self):
        self.out.flush()
        with open(self.out.name) as f:
            return f.read()

    def is_bot(self, seat):
        return seat in self.bots

    def token(self, seat):
        return re.search(r"token=(\w+)", self.links[seat]).group(1)

    def kill9(self):
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=20)

    def wait(self, timeout=600):
        return self.proc.wait(timeout=timeout)

    # -- HTTP --------------------------------------------------------------------------

    def request(self, method, path, body=None, headers=None, raw=None):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None
                                            else None)
        req = urllib.request.Request(self.url.rstrip("/") + path, data=data, method=method,
                                     headers=dict(headers or {}, **{"Content-Type":
                                                                    "application/json"}))
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                text = r.read().decode()
                if r.headers.get_content_type() != "application/json":
                    return r.status, text
                return r.status, json.loads(text or "null")
        except urllib.error.HTTPError as e:
            text = e.read().decode()
            try:
                return e.code, json.loads(text)
            except ValueError:
                return e.code, text

    def table(self, seat=None):
        path = "/api/table" + ("?seat=" + seat if seat else "")
        headers = {"X-Seat-Token": self.token(seat)} if seat else {}
        status, body = self.request("GET", path, headers=headers)
        assert status == 200, body
        return body

    def staff(self, op, body=None, pin=None):
        return self.request("POST", "/api/staff/" + op, body or {},
                            {"X-Staff-Pin": self.pin if pin is None else pin})

    def staff_state(self):
        status, body = self.request("GET", "/api/staff/state", headers={"X-Staff-Pin": self.pin})
        assert status == 200, body
        return body

    def wait_for(self, predicate, timeout=60, what="the table"):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            v = self.table()
            if predicate(v):
                return v
            time.sleep(0.2)
        raise AssertionError("%s did not come within %d s; last view: %s\nlog:\n%s"
                             % (what, timeout, json.dumps(v)[:2000], self.log()[-3000:]))


def browser_or_skip():
    """Playwright's Chromium (Debian's); skipped only outside CI when none is installed."""
    import pytest
    if CHROMIUM is None or not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            raise AssertionError("CI must run the browser tests: tools/install-test-deps.sh "
                                 "installs chromium")
        pytest.skip("no chromium here: run tools/install-test-deps.sh")
    try:
        from playwright.sync_api import sync_playwright  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("playwright is not installed: pip install -e '.[dev]'")
    return CHROMIUM


def mentions(text, word):
    """Does `word` stand in `text` as a word of its own (team_captain_hook is not captain_hook)?"""
    return re.search(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(word), text) is not None
