"""The web table's options of `fairytable run`, and whether a run serves it: read without
importing the server (aiohttp), which a run that serves no web table never loads."""

import ipaddress


def is_loopback(host):
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_bind(text):
    """"HOST:PORT" (or "[v6]:PORT") as (host, port); ValueError says what is wrong."""
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise ValueError("--web takes HOST:PORT, like 127.0.0.1:8080, not %r" % text)
    host = host.strip("[]")
    try:
        port = int(port)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise ValueError("--web %s: the port must be a number from 0 to 65535" % text)
    return host, port


def add_arguments(p):
    """The web options of `fairytable run`."""
    p.add_argument("--web", default=None, metavar="HOST:PORT",
                   help="serve the web table there (default 127.0.0.1:8080; headless runs "
                        "serve nothing unless --web is given)")
    p.add_argument("--no-web", action="store_true", help="do not serve the web table")
    p.add_argument("--web-token-file", default=None,
                   help="the web token (made there if missing); needed off loopback")
    p.add_argument("--pace", type=int, default=1200, metavar="MS",
                   help="with a person at the table or a browser watching, bots wait this "
                        "long before each move (headless runs nobody watches play at once)")
    p.add_argument("--staff-pin-file", default=None,
                   help="the staff PIN (default: staff.pin in the data folder, made on first "
                        "start and printed once)")


def check_arguments(args):
    """Refuse a bad web option before anything starts (ValueError: a sentence)."""
    if args.pace < 0 or args.pace > 60000:
        raise ValueError("--pace is 0 to 60000 ms, not %d" % args.pace)
    if args.no_web and args.web:
        raise ValueError("--web and --no-web contradict each other: give one")
    if args.web:
        host, _port = parse_bind(args.web)
        if not is_loopback(host) and not args.web_token_file:
            raise ValueError("--web %s listens beyond this machine: add --web-token-file FILE "
                             "(a random token is made there and printed), or bind 127.0.0.1"
                             % args.web)


def serves(args):
    """Whether the run serves the web table: not with --no-web, nor headless or --json
    without --web (nobody watches)."""
    return not (args.no_web or (not args.web and (args.headless or args.json)))


def pace(args, session):
    """The bots' pace and whether people play, which the web options set whether or not
    the web table is served."""
    session.bots.pace_ms = args.pace
    session.bots.people = not args.headless
