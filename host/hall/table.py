"""A table in the hall: `fairytable run --mqtt URL` binds its game session to the hall's
broker through a HallPublisher (host/hall/publisher.py).

What the hall reads of the table is what its staff page shows, in words: the game's title,
the players by their seats' names, the scores, the status, the tiles online, the
mismatches; never a hidden card (no action is published, only what the log says of it).
The hall's commands go to the same staff controls the staff page uses (host/session.py,
host/web/view.py): pause, resume, a new game, back to the attract mode (a demo game);
identify blinks every cell of the table white for a few seconds, then the game's lights
come back.
"""

import asyncio
import socket
import sys

from host import lights
from host.hall import topics

STATUS_WORDS = {
    "playing": "Playing",
    "paused": "Paused by staff",
    "attract": "No game: the table plays a demo game",
    "finished": "The game is over",
    "waiting": "Waiting for a tile that is offline",
    "mismatch": "The table and the game disagree",
}
IDENTIFY_SCENE = lights.all_edges(lights.blink((255, 255, 255), 300))


def add_arguments(p):
    """The hall's options of `fairytable run`."""
    p.add_argument("--mqtt", default=None, metavar="URL",
                   help="join the hall: publish this table's state and events to the MQTT "
                        "broker at mqtt://[user[:password]@]host[:port] and take its "
                        "commands; a user without a password takes $FAIRYTABLE_MQTT_PASSWORD "
                        "(docs/hall.md)")
    p.add_argument("--hall", default=None, metavar="NAME",
                   help="the hall's name on the broker (default hall; 1 to 32 of a-z, 0-9, -)")
    p.add_argument("--ha-discovery", action="store_true",
                   help="with --mqtt: the table appears in Home Assistant as a device with "
                        "its sensors (MQTT discovery under homeassistant/)")
    p.add_argument("--table-id", default=None, metavar="NAME",
                   help="this table's name in the hall (default: the host name, lowercased "
                        "and cleaned)")


def check_arguments(args):
    """The hall's options checked before anything starts: ValueError in words."""
    if args.mqtt is None:
        if args.ha_discovery:
            raise ValueError("--ha-discovery announces this table on the hall's broker: it "
                             "needs --mqtt URL")
        for flag, value in (("--hall", args.hall), ("--table-id", args.table_id)):
            if value is not None:
                raise ValueError("%s names this table in a hall: it needs --mqtt URL, the "
                                 "hall's broker" % flag)
        args.broker = None
        return
    args.broker = topics.parse_broker(args.mqtt)
    try:
        args.hall = topics.check_name("the hall", args.hall or "hall")
    except ValueError as e:
        raise ValueError("--hall: %s" % e)
    try:
        args.table_id = topics.check_name(
            "the table", args.table_id if args.table_id is not None else
            topics.clean_name(socket.gethostname()))
    except ValueError as e:
        raise ValueError("--table-id: %s" % e)


class TableInHall:
    """The session as the hall sees it: its summary, its health, its events and commands."""

    watch_s = 0.25       # how often the session is looked at for a change
    identify_s = 5.0     # identify blinks the table this long

    def __init__(self, session, web_table=None, say=None):
        self.session = session
        self.web_table = web_table
        self.say = say or (lambda line: session.log.say(line, staff=True))
        self.publisher = None
        self._seen = None            # the last signature published
        self._mismatches = set()     # shown mismatch messages already told
        self._online = {}            # tile uid -> online, as last told
        self._status = None
        self._watch_task = None
        self._identify = None        # the timer that gives the game's lights back

    # ------------------------------------------------------------ what the hall reads

    def _seat_words(self, seat):
        s = self.session
        try:
            return s.game.face.seat_name(s.match.state, seat)
        except Exception:  # noqa: BLE001 - a name a face cannot give: the seat's own
            return str(seat)

    def status(self):
        s = self.session
        if s.attract:
            return "attract"
        if s.match.engine.status(s.match.state) != "ongoing":
            return "finished"
        if s.paused:
            return "paused"
        if s.tile_mismatches:
            return "waiting"
        if s.shown_mismatches():
            return "mismatch"
        return "playing"

    def summary(self):
        s = self.session
        result = s.match.engine.result(s.match.state)   # only its public parts are read
        seats = list(s.match.state.seats)
        scores = result.get("scores") if isinstance(result.get("scores"), dict) else {}
        players = [{"name": self._seat_words(seat), "bot": seat in s.bots.seats,
                    "score": scores.get(seat)} for seat in seats]
        winner = result.get("winner")
        status = self.status()
        tiles = [s.link.tiles[uid] for uid in sorted(s.link.tiles)]
        offline = [s.layout.place_words(s.layout.tiles[s.tile_index[t.uid]])
                   for t in tiles if not t.online and t.uid in s.tile_index]
        return {
            "game": s.game.title,
            "players": players,
            "turn": s.game.turns(s.match),
            "actions": len(s.match.actions),
            "status": status,
            "status_words": STATUS_WORDS[status],
            "winner": None if winner is None or status != "finished" else (
                self._seat_words(winner) if winner in seats else str(winner)),
            "last": s.last_words,
            "mismatches": [m.message for m in s.shown_mismatches()],
            "tiles": {"online": sum(1 for t in tiles if t.online), "total": len(tiles),
                      "offline": offline},
            "firmware": sorted(set(str((t.health or {}).get("firmware")) for t in tiles
                                   if (t.health or {}).get("firmware"))),
        }

    def health(self):
        """Every tile's numbers, as `fairytable doctor` reports them, with its place."""
        from host.doctor import numbers_for
        s = self.session
        out = []
        for uid, tile in sorted(s.link.tiles.items()):
            row = numbers_for(tile)
            row.pop("port", None)
            index = s.tile_index.get(uid)
            row["place"] = s.layout.place_words(s.layout.tiles[index]) \
                if index is not None else "not in this table's layout"
            out.append(row)
        return {"tiles": out}

    def signature(self):
        s = self.session
        return (id(s.match), len(s.match.actions), s.paused, s.attract,
                tuple(m.message for m in s.shown_mismatches()),
                tuple((uid, t.online) for uid, t in sorted(s.link.tiles.items())),
                s.match.engine.status(s.match.state))

    # ------------------------------------------------------------ events

    def _applied(self, action, events):
        s = self.session
        try:
            words = s.game.face.describe(s.match.state, action, events)
        except Exception:  # noqa: BLE001 - the hall must never stop the game
            words = "A move was played."
        self.publisher.event("action", words, action=len(s.match.actions))

    def look(self):
        """Tell the hall what changed since the last look: status, mismatches, tiles."""
        s = self.session
        sig = self.signature()
        if sig == self._seen:
            return
        self._seen = sig
        status = self.status()
        if status != self._status and status not in ("mismatch", "waiting"):
            words = STATUS_WORDS[status] + "."
            if status == "finished":
                winner = self.summary()["winner"]
                words = "The game is over%s." % (": %s wins" % winner if winner else "")
            self.publisher.event("status", words, status=status)
        self._status = status
        shown = set(m.message for m in s.shown_mismatches())
        for message in sorted(shown - self._mismatches):
            self.publisher.event("mismatch", message)
        for message in sorted(self._mismatches - shown):
            self.publisher.event("mismatch_resolved", "Put right: " + message)
        self._mismatches = shown
        for uid, tile in sorted(s.link.tiles.items()):
            if self._online.get(uid, True) != tile.online:
                index = s.tile_index.get(uid)
                where = s.layout.place_words(s.layout.tiles[index]) if index is not None \
                    else "a tile not in the layout"
                self.publisher.event("tile_online" if tile.online else "tile_offline",
                                     "The tile of %s is %s." % (
                                         where, "back" if tile.online else "offline"))
            self._online[uid] = tile.online
        self.publisher.changed()

    async def _watch(self):
        while True:
            try:
                self.look()
            except Exception as e:  # noqa: BLE001 - the hall must never stop the game
                self.say("The hall could not read the table: %s" % e)
            await asyncio.sleep(self.watch_s)

    # ------------------------------------------------------------ commands

    async def on_command(self, command):
        """Carry out one command of the hall; returns what happened in words, or raises
        CommandRefused (in words) having changed nothing."""
        s = self.session
        name = command["command"]
        before = len(s.log.lines)
        if name == "identify":
            return self.identify()
        if name in ("pause", "resume"):
            if s.attract:
                raise topics.CommandRefused("no game is running: the table plays its demo "
                                            "game")
            if s.match.engine.status(s.match.state) != "ongoing":
                raise topics.CommandRefused("the game is over: start a new game")
            if s.paused == (name == "pause"):
                return "The game was already %s." % ("paused" if s.paused else "running")
            s.button("staff", name)
        elif name == "attract":
            if s.attract:
                return "The table already plays its demo game."
            s.button("staff", "reset")
        elif name == "new_game":
            self._new_game()
        said = [line for line in s.log.lines[before:]]
        self.look()
        return " ".join(said) if said else "Done: %s." % topics.COMMANDS[name]

    def _new_game(self):
        s = self.session
        if self.web_table is not None and self.web_table.make_match is not None:
            from host.web.view import Refused
            try:
                self.web_table.staff("start", {})
            except Refused as e:
                raise topics.CommandRefused(e.message.rstrip("."))
            return
        if s.new_game is None:
            raise topics.CommandRefused("this table cannot start a new game by itself")
        if not s.attract:
            s.button("staff", "reset")
        s.button("staff", "start")

    def identify(self):
        """Every cell of every tile online blinks white for `identify_s` seconds; then the
        scenes sent are forgotten, so the game's lights are sent again."""
        s = self.session
        lit = []
        for index, tile in enumerate(s.layout.tiles):
            uid = s.uid_of.get(index)
            state = s.link.tiles.get(uid) if uid else None
            if state is None or not state.online:
                continue
            scene = lights.encode(IDENTIFY_SCENE)
            s.link.set_scene(uid, [(slot, scene) for slot in range(tile.slots)])
            lit.append(index)
        if not lit:
            raise topics.CommandRefused("no tile of this table is online to blink")
        if self._identify is not None:
            self._identify.cancel()

        def give_back():
            self._identify = None
            for index in lit:
                s.forget_scenes(index)
            s.light()
        self._identify = asyncio.get_running_loop().call_later(self.identify_s, give_back)
        s.log.say("The hall asked the table to show itself: its lights blink white for "
                  "%g seconds." % self.identify_s)
        return "The table's lights blink white for %g seconds." % self.identify_s

    # ------------------------------------------------------------ life

    def start(self, broker, hall, table, ha_discovery=False):
        """Join the hall at `broker` as `table` (the publisher connects on its own)."""
        from host.hall.publisher import HallPublisher
        discovery = None
        if ha_discovery:
            from host.hall.homeassistant import Discovery
            discovery = Discovery(hall, table)
        self.attach(HallPublisher(broker, hall, table, summary=self.summary,
                                  health=self.health, on_command=self.on_command,
                                  log=self.say, discovery=discovery))
        self.publisher.start()

    def attach(self, publisher):
        """Tell `publisher` (its event() and changed()) what happens at the table."""
        self.publisher = publisher
        previous = self.session.on_applied

        def applied(action, events):
            if previous is not None:
                previous(action, events)
            try:
                self._applied(action, events)
            except Exception as e:  # noqa: BLE001 - the hall must never stop the game
                self.say("The hall could not be told of a move: %s" % e)
        self.session.on_applied = applied
        self._online = {uid: t.online for uid, t in self.session.link.tiles.items()}
        self.look()
        self._watch_task = asyncio.ensure_future(self._watch())

    async def stop(self):
        if self._watch_task is not None:
            self._watch_task.cancel()
        if self._identify is not None:
            self._identify.cancel()
        try:
            self.look()            # the last change (the game's end) before goodbye
        except Exception:  # noqa: BLE001
            pass
        if self.publisher is not None:
            await self.publisher.stop()


async def start_for_run(args, session, web=None):
    """Join the hall for `fairytable run --mqtt` (None without --mqtt). Never waits for the
    broker: the table plays whether or not it can be reached."""
    if getattr(args, "broker", None) is None:
        return None
    json_mode = getattr(args, "json", False)

    def say(line):
        session.log.say(line, staff=True)
        if json_mode:       # no log is printed with --json: the operator still hears it
            print(line, file=sys.stderr, flush=True)
    hall = TableInHall(session, web.table if web is not None else None, say)
    hall.start(args.broker, args.hall, args.table_id, getattr(args, "ha_discovery", False))
    say("The table joins the hall %s on %r as %s." % (args.hall, args.broker, args.table_id))
    return hall
