"""Catalog data files shipped with shared_rules: where they are and how they are read.

Works on both interpreters (MicroPython has no os.path): paths are built from
this module's __file__.
"""

from shared_rules import canon

_cache = {}


def data_path(name):
    here = __file__.replace("\\", "/")
    base = here.rsplit("/", 1)[0] if "/" in here else "."
    return base + "/data/" + name


def load(name):
    """The parsed JSON data file `name` (cached; callers must not mutate it)."""
    if name not in _cache:
        with open(data_path(name)) as f:
            _cache[name] = canon.loads(f.read())
    return _cache[name]


def is_int(v):
    # bool is not an int here: isinstance(True, int) differs between the interpreters.
    return isinstance(v, int) and v is not True and v is not False


def is_cell(v):
    return isinstance(v, (list, tuple)) and len(v) == 2 and is_int(v[0]) and is_int(v[1])
