"""What the hall's tests watch the broker with: `mosquitto_sub` in a subprocess (a client
that shares nothing with the table's code), its messages collected by a thread."""

import asyncio
import json
import os
import shutil
import subprocess
import sys
import threading
import time

MOSQUITTO_SUB = shutil.which("mosquitto_sub")
MOSQUITTO_PUB = shutil.which("mosquitto_pub")
FAIRYTABLE = os.path.join(os.path.dirname(sys.executable), "fairytable")


class Message:
    def __init__(self, retained, topic, payload):
        self.retained = retained
        self.topic = topic
        self.payload = payload

    @property
    def leaf(self):
        return self.topic.rsplit("/", 1)[-1]

    def json(self):
        return json.loads(self.payload)

    def __repr__(self):
        return "Message(%r, %r, %r)" % (self.retained, self.topic, self.payload[:200])


OPEN = set()      # the Subs not closed yet: tests/hall/conftest.py closes them after a test


class Sub:
    """`mosquitto_sub -t TOPIC` (QoS 1) until closed; `messages` in arrival order."""

    def __init__(self, broker, topic, login=()):
        # Line-buffered (stdbuf): its debug lines ("Subscribed") are not held in a pipe's buffer.
        self.proc = subprocess.Popen(
            ["stdbuf", "-oL", MOSQUITTO_SUB, "-d", "-h", "127.0.0.1", "-p", str(broker.port),
             "-q", "1", "-t", topic, "-F", "%r\t%t\t%p"] + _login(login), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        OPEN.add(self)
        self.messages = []
        self.said = []            # mosquitto_sub's own lines (its debug output)
        self.subscribed = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        if not self.subscribed.wait(60):
            self.close()
            raise RuntimeError("mosquitto_sub did not subscribe in 60 s: %r" % self.said[-10:])

    def _read(self):
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            if line.startswith("Subscribed (mid"):
                self.subscribed.set()
                continue
            if line.startswith("Client ") or line.startswith("Subscribed"):
                self.said.append(line)
                continue
            parts = line.split("\t", 2)
            if len(parts) == 3 and parts[0] in ("0", "1"):
                self.messages.append(Message(parts[0] == "1", parts[1], parts[2]))
            else:
                self.said.append(line)

    def of(self, leaf):
        return [m for m in list(self.messages) if m.leaf == leaf]

    def wait(self, predicate, timeout_s=20.0, what="a message"):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            found = predicate(self)
            if found:
                return found
            time.sleep(0.02)
        raise AssertionError("no %s came in %d s; got %r" % (what, timeout_s,
                                                             self.messages[-20:]))

    async def await_(self, predicate, timeout_s=20.0, what="a message"):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            found = predicate(self)
            if found:
                return found
            await asyncio.sleep(0.02)
        raise AssertionError("no %s came in %d s; got %r" % (what, timeout_s,
                                                             self.messages[-20:]))

    def close(self):
        # SIGKILL: mosquitto_sub keeps nothing to flush, and after SIGTERM it may go on
        # retrying a broker that is gone instead of ending.
        OPEN.discard(self)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


def need_mosquitto():
    """Skip (saying why) when Mosquitto or its clients are missing; in CI, fail instead:
    CI must run the hall's tests (tools/install-test-deps.sh installs them)."""
    import pytest
    from mosquitto_broker import MOSQUITTO
    passwd = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
    if MOSQUITTO is None or MOSQUITTO_SUB is None or MOSQUITTO_PUB is None or \
            not os.path.exists(passwd):
        if os.environ.get("CI"):
            raise AssertionError("CI must run the hall's tests: tools/install-test-deps.sh "
                                 "installs mosquitto and mosquitto-clients")
        pytest.skip("mosquitto and its clients are not installed (sh "
                    "tools/install-test-deps.sh installs them)")


def _login(login):
    return ["-u", login[0], "-P", login[1]] if login else []


def pub(broker, topic, payload, retain=False, login=()):
    """One message from `mosquitto_pub` (QoS 1)."""
    args = [MOSQUITTO_PUB, "-h", "127.0.0.1", "-p", str(broker.port), "-q", "1", "-t", topic,
            "-m", payload] + _login(login)
    if retain:
        args.append("-r")
    subprocess.run(args, check=True, timeout=20)


async def until(predicate, timeout_s=20.0, what="it"):
    """Wait (in the event loop) until `predicate()` (a function or a coroutine function)
    gives something true; returns it. Bounds a hung test; it is no timing assertion."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        found = await predicate() if asyncio.iscoroutinefunction(predicate) else predicate()
        if found:
            return found
        if loop.time() > deadline:
            raise AssertionError("%s did not happen in %d s" % (what, timeout_s))
        await asyncio.sleep(0.02)


def last_state(sub):
    states = sub.of("$state")
    return states[-1].payload if states else None
