"""The bots' levels as players name them, what each means, and the older names for them.

A level is what the host passes the rules as a bot's kind (an adapter's `bot_action`):
"easy", "normal" or "hard" (shared_rules.bots.LEVELS). Journals and scripts of before the
levels name the kinds "greedy" (the normal bot) and "random" (a move at random: kept for
tests and old journals, never offered to players).
"""

from shared_rules import bots

LEVELS = bots.LEVELS
DEFAULT = "normal"

# What each level does, in words (the --help, the staff page).
WORDS = {
    "easy": "picks a sensible move at random",
    "normal": "picks the move that looks best one move ahead",
    "hard": "weighs what the moves ahead could bring, guessing what it cannot see",
}

# The older names of the kinds: what `--bot-kind` and old journals say.
OLD_NAMES = {"greedy": "normal", "random": "random"}


def level_of(kind):
    """The level of a bot kind as a journal or `--bot-kind` names it ("greedy" is "normal");
    None for a name that is neither a level nor an older name."""
    if kind in LEVELS:
        return kind
    return OLD_NAMES.get(kind)


def listed(levels=LEVELS):
    """The levels in words for a sentence: "easy, normal or hard"."""
    return ", ".join(levels[:-1]) + " or " + levels[-1]


def explained():
    """Every level with what it does: "easy (picks a sensible move at random), normal (...)
    or hard (...)"."""
    return listed(["%s (%s)" % (level, WORDS[level]) for level in LEVELS])


def said(levels):
    """Are the bots' levels worth saying? Yes unless every bot plays at the usual level
    (`levels`: the bots' levels, any iterable): "bots", not "normal bots", in the usual case."""
    return set(levels) - {DEFAULT} != set()


def bot_words(level, count=1):
    """"a bot", "bots", "an easy bot", "hard bots": `count` bots of `level` (None: unsaid)."""
    what = "bot" if level is None else "%s bot" % level
    if count > 1:
        return what + "s"
    return ("an " if what[0] in "aeiou" else "a ") + what
