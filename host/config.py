"""The installation's settings file: `table.toml` in the data folder (host/installation.py).

A table that always runs with the same options (a convention's demo table: its hall's
broker, its name in the hall, its attract minutes, its web address) keeps them here instead
of on a long command line, e.g. in the systemd unit:

    [run]
    mqtt = "mqtt://table-1@broker.local:1883"
    table-id = "table-1"
    attract-after = 10
    web = "0.0.0.0:8080"
    web-token-file = "/etc/fairytable/web.token"

A key of `[run]` is an option of `fairytable run` without its dashes, and its value what the
option takes: a text or a number, true for a switch (false leaves it off), a list for an
option given more than once (`port = ["/dev/ttyACM0", "/dev/ttyACM1"]`). The command line
wins: an option given there makes the file's value of it unheard. A file that cannot be
read, a key that is no option, a value of the wrong kind: the command stops with a sentence
naming the file and the key, having changed nothing. No file: nothing to read.
"""

import os
import tomllib

from host import installation

NAME = "table.toml"


class ConfigError(ValueError):
    pass


def path():
    return os.path.join(installation.data_folder(), NAME)


def load(file_path):
    """The file's tables ({} when there is no file); ConfigError in words."""
    try:
        with open(file_path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise ConfigError("%s cannot be read: %s" % (file_path, e.strerror or e)) from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError("%s is not valid TOML: %s" % (file_path, e)) from None


def _options(parser):
    """{key: the option's default} of the parser's options (key: the option without its
    dashes): a switch's default is False, a repeated option's a list."""
    return {dest.replace("_", "-"): value for dest, value in
            vars(parser.parse_args([])).items()}


def arguments(parser, section, argv, file_path=None):
    """The file's `[section]` as command-line arguments to put before `argv` (which wins).
    ConfigError names the file and the key."""
    file_path = file_path or path()
    settings = load(file_path).get(section, {})
    if not isinstance(settings, dict):
        raise ConfigError("%s: [%s] must be a table of options" % (file_path, section))
    options = _options(parser)
    given = set(a.split("=", 1)[0][2:] for a in argv if a.startswith("--"))
    out = []
    for key in sorted(settings):
        value = settings[key]
        where = "%s: [%s] %s" % (file_path, section, key)
        if key not in options:
            raise ConfigError("%s: fairytable %s has no option --%s (its options: %s)" % (
                where, section, key, ", ".join(sorted(options))))
        if key in given:
            continue
        default = options[key]
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ConfigError("%s: --%s is a switch: true or false, not %r"
                                  % (where, key, value))
            if value:
                out.append("--" + key)
            continue
        values = value if isinstance(value, list) else [value]
        if isinstance(value, list) and not isinstance(default, list):
            raise ConfigError("%s: --%s takes one value, not a list" % (where, key))
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (str, int, float)):
                raise ConfigError("%s: --%s takes a text or a number, not %r"
                                  % (where, key, v))
            out += ["--" + key, str(v)]
    return out
