"""The table's side of the hall: its state, summary, events and health on the broker, and
the commands it takes from there (docs/hall.md).

The game never waits for the broker: `event()` and `changed()` only put things in memory
and wake the publisher's task. Events wait in a bounded queue while the broker is away
(the oldest dropped past `queue_max`, counted, and the count told in the next summary);
the task reconnects with jittered exponential backoff and, once connected again, says
`init`, republishes its summary and health, then `ready`, then sends the events that
waited, in order. Each event carries the table's boot id and a sequence number that only
grows, so a console drops a duplicate (QoS 1 may deliver one twice) and sees a gap.

A command carries an id: it is carried out once and answered once on `ack`; the same id
again is answered again with the first answer and not carried out (the last `ids_kept`
ids are remembered). A command that is malformed, or for another table, is refused with
a sentence in the host's log, and answered when it has an id.
"""

import asyncio
import collections
import json
import os
import random
import socket
import time

import aiomqtt

from host.hall import topics


# Small messages go out at once: without it, Nagle's algorithm and delayed ACKs hold a
# command's answer ~40 ms at each end (tools/bench_hall.py; the broker's side is Mosquitto's
# `set_tcp_nodelay true`, in the README's config).
NO_DELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)


async def cancelled(*tasks, within=None):
    """Cancel `tasks` and wait until each has ended. Cancelled again while one runs on:
    Python 3.11's asyncio.wait_for (under aiomqtt's calls) can swallow a cancellation that
    comes as its operation completes, and the task would then wait for ever. With `within`
    (seconds), a stop never waits longer: a task still running then is left behind (the
    process is ending, or its link is dropped anyway)."""
    loop = asyncio.get_running_loop()
    deadline = None if within is None else loop.time() + within
    pending = set(t for t in tasks if t is not None)
    while pending and (deadline is None or loop.time() < deadline):
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=0.5)


def backoff_s(attempt, first_s, cap_s, rng):
    """How long to wait before reconnect attempt `attempt` (0: the first retry): doubling
    from `first_s` up to `cap_s`, a random half to all of it ("equal jitter"), so tables
    that lost one broker together do not all come back in the same instant."""
    ceiling = min(cap_s, first_s * (2 ** min(attempt, 30)))
    return rng.uniform(ceiling / 2, ceiling)


class HallPublisher:
    keepalive_s = 60
    queue_max = 1000          # events kept while the broker is away
    health_every_s = 60.0
    backoff_first_s = 0.5
    backoff_cap_s = 30.0
    call_timeout_s = 10.0     # a publish or subscribe the broker does not answer
    ids_kept = 500            # command ids remembered (a repeat is answered, not redone)
    stop_flush_s = 3.0        # at a clean stop, how long the last events may take

    def __init__(self, broker, hall, table, summary=None, health=None, on_command=None,
                 log=print, rng=None, discovery=None):
        self.broker = broker
        self.hall = topics.check_name("the hall", hall)
        self.table = topics.check_name("the table", table)
        self.summary_source = summary or (lambda: {})
        self.health_source = health or (lambda: {})
        self.on_command = on_command      # async (command) -> sentence; CommandRefused
        self.discovery = discovery        # Home Assistant discovery (homeassistant.py), or None
        self.log = log
        self.rng = rng or random.SystemRandom()
        self.boot = os.urandom(6).hex()   # this run of the table: seq starts again with it
        self.seq = 0                      # the last event's number
        self.events = collections.deque()
        self.dropped = 0
        self.acks = collections.OrderedDict()   # command id -> its answer
        self.connected = False
        self.connections = 0
        self.state = None                 # the $state last published
        self._summary_due = True
        self._health_at = None            # monotonic time the health was last sent
        self._wake = asyncio.Event()
        self._stopping = asyncio.Event()
        self._task = None
        self._said_down = False

    def topic(self, leaf):
        return topics.table_topic(self.hall, self.table, leaf)

    # ------------------------------------------------------------ from the game (no waiting)

    def event(self, kind, words, **extra):
        """Queue one event (`words`: what a person reads); returns its sequence number."""
        self.seq += 1
        ev = {"seq": self.seq, "boot": self.boot, "kind": kind, "words": words,
              "at": int(time.time())}
        ev.update(extra)
        if len(self.events) >= self.queue_max:
            self.events.popleft()
            self.dropped += 1
            self._summary_due = True
        self.events.append(ev)
        self._wake.set()
        return self.seq

    def changed(self):
        """The summary changed: it is sent once the publisher gets to it (the latest only)."""
        self._summary_due = True
        self._wake.set()

    # ------------------------------------------------------------ life

    def start(self):
        self._task = asyncio.ensure_future(self.run())
        return self._task

    async def stop(self, timeout_s=5.0):
        """A clean stop: the last events, then `disconnected` (retained), then goodbye (the
        broker then keeps the will unsent). Never waits longer than `timeout_s`."""
        self._stopping.set()
        self._wake.set()
        if self._task is None:
            return
        await asyncio.wait({self._task}, timeout=timeout_s)
        if not self._task.done():
            await cancelled(self._task, within=timeout_s)

    async def run(self):
        attempt = 0
        while not self._stopping.is_set():
            connections = self.connections
            try:
                await self._connected_session()
            except Exception as e:  # noqa: BLE001 - the broker gone, or a fault of ours:
                # either way the table plays on and the hall is tried again
                self.connected = False
                if not isinstance(e, aiomqtt.MqttError):
                    self.log("The table's link to the hall failed (%s: %s): it starts again."
                             % (type(e).__name__, e))
                elif not self._said_down:
                    self._said_down = True
                    self.log("The hall's broker %r cannot be reached (%s): the game goes on, "
                             "events wait (up to %d) and the table keeps trying."
                             % (self.broker, e, self.queue_max))
            if self._stopping.is_set():
                break
            if self.connections != connections:
                attempt = 0         # it was connected: a new outage backs off from the start
            delay = backoff_s(attempt, self.backoff_first_s, self.backoff_cap_s, self.rng)
            attempt += 1
            try:
                await asyncio.wait_for(self._stopping.wait(), delay)
            except asyncio.TimeoutError:
                pass
        self.connected = False

    def _client(self):
        return aiomqtt.Client(
            self.broker.host, self.broker.port, username=self.broker.username,
            password=self.broker.password,
            identifier="fairytable-%s-%s" % (self.hall, self.table),
            keepalive=self.keepalive_s, timeout=self.call_timeout_s, clean_session=True,
            socket_options=NO_DELAY,
            will=aiomqtt.Will(self.topic("$state"), b"lost", qos=1, retain=True))

    async def _connected_session(self):
        async with self._client() as client:
            await self._announce(client)
            reader = asyncio.ensure_future(self._read_commands(client))
            sender = asyncio.ensure_future(self._send(client))
            try:
                done, _ = await asyncio.wait((reader, sender),
                                             return_when=asyncio.FIRST_COMPLETED)
            finally:
                await cancelled(reader, sender)
                if self.discovery is not None:
                    self.discovery.cancel()
            for task in done:
                if task.exception() is not None:
                    raise task.exception()
            # The sender ends only on a stop: the table says goodbye while still connected.
            await self._set_state(client, "disconnected")

    async def _announce(self, client):
        """On every connection: init, commands subscribed, summary and health, ready."""
        self.connected = True
        self.connections += 1
        await self._set_state(client, "init")
        await client.subscribe(self.topic("cmd"), qos=1)
        await client.subscribe(topics.hall_command_topic(self.hall), qos=1)
        self._summary_due = True
        await self._send_summary(client)
        await self._send_health(client)
        await self._set_state(client, "ready")
        if self.discovery is not None:
            await self.discovery.subscribe(client)
            await self.discovery.announce(client)
        if self._said_down:
            self._said_down = False
            self.log("The hall's broker %r is back: the table's state is published again."
                     % self.broker)

    async def _set_state(self, client, state):
        await client.publish(self.topic("$state"), state.encode(), qos=1, retain=True)
        self.state = state

    async def _send(self, client):
        """Events in order, then the summary when it changed, the health every minute;
        ends when the table stops (the last events sent first, for a while)."""
        while True:
            stopping = self._stopping.is_set()
            if stopping:
                deadline = time.monotonic() + self.stop_flush_s
                while self.events and time.monotonic() < deadline:
                    await self._send_event(client)
                await self._send_summary(client)
                return
            while self.events:
                await self._send_event(client)
                if self._stopping.is_set():
                    break
            if self._summary_due:
                await self._send_summary(client)
            if time.monotonic() - (self._health_at or 0) >= self.health_every_s:
                await self._send_health(client)
            self._wake.clear()
            if self.events or self._summary_due or self._stopping.is_set():
                continue
            wait_s = max(0.05, self.health_every_s - (time.monotonic() - self._health_at))
            try:
                await asyncio.wait_for(self._wake.wait(), wait_s)
            except asyncio.TimeoutError:
                pass

    async def _send_event(self, client):
        ev = self.events[0]
        # QoS 1: taken off the queue only once the broker has it (at least once; the seq
        # lets a console drop a copy).
        await client.publish(self.topic("events"), json.dumps(ev, sort_keys=True).encode(),
                             qos=1)
        if self.events and self.events[0] is ev:
            self.events.popleft()

    def summary(self):
        out = dict(self.summary_source())
        out.update({"boot": self.boot, "seq": self.seq, "dropped_events": self.dropped,
                    "queued_events": len(self.events), "table": self.table,
                    "at": int(time.time())})
        return out

    async def _send_summary(self, client):
        self._summary_due = False
        try:
            body = json.dumps(self.summary(), sort_keys=True).encode()
        except Exception as e:  # noqa: BLE001 - a summary that fails must not stop the hall
            self.log("The table's summary could not be made for the hall: %s" % e)
            return
        await client.publish(self.topic("summary"), body, qos=1, retain=True)

    async def _send_health(self, client):
        self._health_at = time.monotonic()
        try:
            health = dict(self.health_source())
        except Exception as e:  # noqa: BLE001
            self.log("The table's health could not be read for the hall: %s" % e)
            return
        health.update({"boot": self.boot, "at": int(time.time())})
        await client.publish(self.topic("health"), json.dumps(health, sort_keys=True).encode(),
                             qos=1, retain=True)

    # ------------------------------------------------------------ commands

    async def _read_commands(self, client):
        hall_topic = topics.hall_command_topic(self.hall)
        async for message in client.messages:
            topic = str(message.topic)
            if self.discovery is not None and self.discovery.heard(client, topic,
                                                                   message.payload):
                continue
            if topic not in (hall_topic, self.topic("cmd")):
                continue
            await self.take_command(client, message.payload, topic == hall_topic)

    async def take_command(self, client, payload, hall_wide):
        try:
            command = topics.parse_command(payload, self.table, hall_wide)
        except topics.CommandRefused as e:
            self.log("The hall sent a command the table refused: %s." % e.message)
            if e.command_id is not None and e.command_id not in self.acks:
                await self._ack(client, self._remember(e.command_id, False, e.message))
            elif e.command_id is not None:
                await self._ack(client, dict(self.acks[e.command_id], repeat=True))
            return
        known = self.acks.get(command["id"])
        if known is not None:
            self.log("The hall sent the command %s again: answered again, not carried out "
                     "twice." % command["id"])
            await self._ack(client, dict(known, repeat=True))
            return
        # Remembered before it is carried out: a copy arriving meanwhile is not run again.
        ack = self._remember(command["id"], None, "under way")
        try:
            if self.on_command is None:
                raise topics.CommandRefused("this table takes no commands")
            message = await self.on_command(command)
            ack.update(ok=True, message=message)
        except topics.CommandRefused as e:
            ack.update(ok=False, message=e.message)
            self.log("The hall's command %s (%s) was refused: %s." % (
                command["id"], topics.COMMANDS[command["command"]], e.message))
        except Exception as e:  # noqa: BLE001 - a fault of the table's software: said, and
            # the connection to the hall goes on
            ack.update(ok=False, message="the table could not %s: %s" % (
                topics.COMMANDS[command["command"]], e))
            self.log("The hall's command %s failed: %s" % (command["id"], e))
        self._summary_due = True
        self._wake.set()
        await self._ack(client, ack)

    def _remember(self, command_id, ok, message):
        ack = {"id": command_id, "table": self.table, "ok": ok, "message": message,
               "boot": self.boot}
        self.acks[command_id] = ack
        while len(self.acks) > self.ids_kept:
            self.acks.popitem(last=False)
        return ack

    async def _ack(self, client, ack):
        await client.publish(self.topic("ack"), json.dumps(ack, sort_keys=True).encode(),
                             qos=1)
