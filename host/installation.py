"""Where an installation's files live: one data folder for the key, the journal and the tags.

The data folder is `$FAIRYTABLE_HOME` if set, else `~/.local/share/fairytable`.
In it, unless a command is given another path:

    installation.key   the installation key (tag MACs); --key FILE or $FAIRYTABLE_KEY
    journal.db         the journal of every game (run --journal FILE)
    tags.db            the registry of read-only tags enrolled by UID (--registry FILE)
    table.toml         the table's settings: `fairytable run`'s options (host/config.py)

`fairytable run` and `fairytable enroll` follow the same rule, so the tags a
person enrolls are the tags the table accepts.
"""

import os

KEY_NAME = "installation.key"
JOURNAL_NAME = "journal.db"
REGISTRY_NAME = "tags.db"


def data_folder():
    home = os.environ.get("FAIRYTABLE_HOME")
    if home:
        return os.path.abspath(os.path.expanduser(home))
    return os.path.join(os.path.expanduser("~"), ".local", "share", "fairytable")


def key_path(given=None):
    """--key, else $FAIRYTABLE_KEY, else the data folder's installation.key."""
    return given or os.environ.get("FAIRYTABLE_KEY") or os.path.join(data_folder(), KEY_NAME)


def journal_path(given=None):
    return given or os.path.join(data_folder(), JOURNAL_NAME)


def registry_path(given=None):
    return given or os.path.join(data_folder(), REGISTRY_NAME)
