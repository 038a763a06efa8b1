"""The hall's names: the broker's address, the topic tree, and the commands a table takes.

    fairytable/1/<hall>/<table>/$state     init | ready | disconnected | lost (retained)
    fairytable/1/<hall>/<table>/summary    the table now, JSON (retained)
    fairytable/1/<hall>/<table>/events     what happened, JSON, one a message (not retained)
    fairytable/1/<hall>/<table>/health     the tiles' health, JSON, every minute (retained)
    fairytable/1/<hall>/<table>/cmd        commands for this table (JSON, each with an id)
    fairytable/1/<hall>/<table>/ack        one answer per command id, in words
    fairytable/1/<hall>/$all/cmd           commands for every table of the hall

A hall's and a table's name is 1 to 32 of a-z, 0-9 and "-": nothing an MQTT wildcard
or a topic level separator could hide in. Everything here is pure (no I/O): the
console and the table share it, and its refusals are sentences.
"""

import json
import os
import re
from urllib.parse import unquote, urlsplit

ROOT = "fairytable/1"
ALL = "$all"
NAME = re.compile(r"[a-z0-9-]{1,32}\Z")
LEAVES = ("$state", "summary", "events", "health", "cmd", "ack")
STATES = ("init", "ready", "disconnected", "lost")

# What a command does, in the words the console shows.
COMMANDS = {
    "pause": "pause the game",
    "resume": "resume the game",
    "new_game": "start a new game",
    "attract": "end the game: the table plays a demo game until the next",
    "identify": "blink the table's lights so staff can find it",
}
MAX_COMMAND_BYTES = 4096
MAX_ID = 64


def check_name(what, name):
    """`name` if it is a valid hall or table name; ValueError in words otherwise."""
    if not isinstance(name, str) or not NAME.match(name):
        raise ValueError("%s %r is not a name the hall can use: 1 to 32 lowercase letters, "
                         "digits and dashes (like table-3)" % (what, name))
    return name


def clean_name(text):
    """A usable name made from `text` (a host name): lowercased, anything else a dash."""
    name = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")[:32].strip("-")
    return name or "table"


def table_topic(hall, table, leaf):
    if leaf not in LEAVES:
        raise ValueError("no topic %r for a table (topics: %s)" % (leaf, ", ".join(LEAVES)))
    return "%s/%s/%s/%s" % (ROOT, check_name("the hall", hall),
                            check_name("the table", table), leaf)


def hall_command_topic(hall):
    return "%s/%s/%s/cmd" % (ROOT, check_name("the hall", hall), ALL)


def hall_wildcard(hall, leaf="#"):
    """What the console subscribes to: every table's `leaf` in the hall."""
    return "%s/%s/+/%s" % (ROOT, check_name("the hall", hall), leaf) if leaf != "#" else \
        "%s/%s/#" % (ROOT, check_name("the hall", hall))


def split_topic(topic):
    """(hall, table, leaf) of a topic under the root; None for anything else."""
    parts = topic.split("/")
    if len(parts) != 5 or "/".join(parts[:2]) != ROOT or parts[4] not in LEAVES:
        return None
    hall, table, leaf = parts[2], parts[3], parts[4]
    if not NAME.match(hall) or not (NAME.match(table) or table == ALL):
        return None
    return hall, table, leaf


class Broker:
    """Where the broker is: mqtt://[user:password@]host[:port]."""

    def __init__(self, host, port=1883, username=None, password=None):
        self.host = host
        self.port = port
        self.username = username
        self.password = password

    def __repr__(self):
        # Never the password: this is printed and logged.
        return "mqtt://%s%s:%d" % (self.username + "@" if self.username else "", self.host,
                                   self.port)


PASSWORD_ENV = "FAIRYTABLE_MQTT_PASSWORD"


def parse_broker(url, environ=None):
    """A Broker from --mqtt URL; ValueError in words naming the option. A URL with a user
    and no password takes the password from $FAIRYTABLE_MQTT_PASSWORD (a command line is
    seen by every user of the machine, in `ps`)."""
    if not isinstance(url, str) or "://" not in url:
        raise ValueError("--mqtt takes the broker's address like mqtt://127.0.0.1:1883 "
                         "(mqtt://user:password@host:port with a password), not %r"
                         % _hide_password(url if isinstance(url, str) else repr(url)))
    parts = urlsplit(url)
    if parts.scheme != "mqtt":
        raise ValueError("--mqtt %s: the address starts with mqtt:// (the table speaks plain "
                         "MQTT to the hall's broker)" % _hide_password(url))
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError("--mqtt %s: the address is mqtt://host:port, with nothing after the "
                         "port" % _hide_password(url))
    try:
        port = parts.port
    except ValueError:
        raise ValueError("--mqtt %s: the port must be a number from 1 to 65535"
                         % _hide_password(url))
    if not parts.hostname:
        raise ValueError("--mqtt %s: the address names no host" % _hide_password(url))
    if port == 0:
        raise ValueError("--mqtt %s: the port must be a number from 1 to 65535"
                         % _hide_password(url))
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    if username is not None and password is None:
        password = (os.environ if environ is None else environ).get(PASSWORD_ENV)
    return Broker(parts.hostname, port or 1883, username, password)


def _hide_password(url):
    return re.sub(r"((?:^|//|/)[^:/@]*):[^@/]*@", r"\1:***@", url)


class CommandRefused(ValueError):
    """A command the table will not carry out: `message` says why; `command_id` is its id
    when it had one (then an ack answers it)."""

    def __init__(self, message, command_id=None):
        super().__init__(message)
        self.message = message
        self.command_id = command_id


def parse_command(payload, table, hall_wide=False):
    """The command in an MQTT payload (bytes) for `table`: {"id", "command", "params"}.

    A command is JSON: {"id": "...", "command": "pause"}; it may name its "table" (then it
    must be this one) and carry "params" (an object). Raises CommandRefused in words.
    """
    where = "a hall-wide command" if hall_wide else "a command"
    if not isinstance(payload, (bytes, bytearray)) or len(payload) > MAX_COMMAND_BYTES:
        raise CommandRefused("%s longer than %d bytes was refused" % (where, MAX_COMMAND_BYTES))
    try:
        msg = json.loads(bytes(payload).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise CommandRefused("%s that is not JSON was refused" % where)
    if not isinstance(msg, dict):
        raise CommandRefused("%s must be a JSON object with an id and a command; it was "
                             "refused" % where)
    command_id = msg.get("id")
    if not isinstance(command_id, str) or not 1 <= len(command_id) <= MAX_ID or \
            not command_id.isprintable():
        raise CommandRefused("%s without an id (a text of 1 to %d characters) was refused: "
                             "without one it could be carried out twice" % (where, MAX_ID))
    target = msg.get("table")
    if target is not None and target != table:
        raise CommandRefused("the command %s is for the table %s, not this one (%s): refused"
                             % (command_id, target if isinstance(target, str) else "?", table),
                             command_id)
    name = msg.get("command")
    if name not in COMMANDS:
        raise CommandRefused("the command %s asks for %s, which a table does not do (it does "
                             "%s): refused" % (command_id, _words(name),
                                               ", ".join(sorted(COMMANDS))), command_id)
    params = msg.get("params", {})
    if not isinstance(params, dict):
        raise CommandRefused("the command %s has params that are not a JSON object: refused"
                             % command_id, command_id)
    return {"id": command_id, "command": name, "params": params}


def _words(value):
    if isinstance(value, str) and value.isprintable() and len(value) <= 40:
        return "%r" % value
    return "no command" if value is None else "something unreadable"
