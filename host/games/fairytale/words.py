"""Fairytale Games in words: the seats' names and colours, a move asked of the table, a line
of the log, the day and the ending. Never a hidden card: a card is named once the rules have
shown it (the engine's own sentences, its events' "text", say what the table may know).

`FairytaleWords` is the game's face until its web face (web.py) takes over: the session's
log, the terminal and the bots' requests read it.
"""

from host.games.fairytale import places
from host.games.fairytale.interpreter import choice_words, play_words
from host.web.face import WebFace, and_list
from shared_rules.fairytale import world

# A colour for each of ten seats, told apart on the LEDs and on a page.
SEAT_COLOURS = ((255, 0, 0), (0, 60, 255), (0, 200, 30), (255, 180, 0), (150, 0, 255),
                (255, 80, 0), (0, 200, 200), (255, 60, 160), (200, 200, 200), (120, 70, 20))

ACTION_WORDS = {
    "choose": "choose a character", "flip_event": "flip the day's event",
    "step": "step", "search": "search", "end_turn": "end the turn", "equip": "equip an item",
    "unequip": "unequip an item", "switch": "switch the leader", "burn": "burn reputation",
    "open_quest": "open a quest", "start_quest": "begin a quest", "fulfil": "fulfil a quest",
    "challenge": "challenge a boss", "battle": "start a battle", "separate": "separate",
    "reunite": "reunite", "join": "join a battle", "assist": "assist a battle",
    "interact": "meet an NPC", "use": "use a card or ability", "give": "give an item",
    "sacrifice": "sacrifice an ally", "distraction": "make a distraction",
    "offer_alliance": "offer an Ally Party", "accept_alliance": "accept an Ally Party",
    "decline_alliance": "decline an Ally Party", "dissolve": "leave the Ally Party",
    "recruit": "recruit", "ignore": "ignore", "ambush": "ambush", "keep": "keep the card",
    "rummage": "rummage", "keep_on_top": "keep it on top", "to_bottom": "put it at the bottom",
    "take_victory": "take a victory card", "continue": "continue as another character",
    "attack": "attack", "signature": "use a signature move", "super": "use the super move",
    "play": "play a battle card", "flee": "flee", "end_attack": "end the attack",
    "truce": "call a truce", "defend": "defend", "enemy_turn": "roll for the enemy",
    "counter_bid": "bid", "pay_escape": "pay the escape", "stay": "stay",
    "reroll": "roll again", "accept_roll": "keep the roll", "mind_shift": "mind shift",
    "hostage": "take a hostage", "ransom": "pay a ransom", "propose_split": "propose a split",
    "accept_split": "accept the split", "cause_conflict": "cause a Conflict",
    "face_conflict": "face the Conflict", "ignore_conflict": "ignore the Conflict",
}


class FairytaleWords(WebFace):
    """The words of Fairytale Games for the log, the terminal and the bots' requests."""

    def seat_name(self, state, seat):
        return places.player_words(state, seat)

    def book_colour(self, state, seat):
        return SEAT_COLOURS[list(state.seats).index(seat) % len(SEAT_COLOURS)]

    def action_words(self, kind):
        return ACTION_WORDS.get(kind, kind.replace("_", " "))

    def request_words(self, state, action):
        """A move asked of the table, in words: the cards of a hand are not named (the
        player knows them; the room does not)."""
        kind = action["type"]
        if kind == "step":
            who = ""
            if action.get("character"):
                who = " with %s" % places.name(state, action["character"])
            return "step%s to %s" % (who, places.xy(action["to"]))
        if kind in places.READER_PLAYS and places.is_table_action(action):
            n = places.seat_number(state, action["seat"]) if action.get("seat") in \
                state.players else None
            where = " on %s" % places.reader_words(state, n) if n else ""
            return "%s%s" % (self.action_words(kind), where)
        if kind in ("flip_event", "open_quest"):
            return self.action_words(kind)
        return choice_words(state, action)

    def describe(self, state, action, events):
        """The log line of an action: the rules' own sentences, else who did what."""
        said = [ev["text"] for ev in events if isinstance(ev.get("text"), str)]
        who = self.seat_name(state, action["seat"]) if action.get("seat") in state.players \
            else "The table"
        if not said:
            # Cards laid on a reader were played face up: the table may know them now.
            if action["type"] in places.READER_PLAYS and places.is_table_action(action):
                return "%s: %s." % (who, play_words(state, action))
            return "%s: %s." % (who, self.request_words(state, action))
        return " ".join(said)

    def ending(self, state):
        winners = list(state.winners)
        if state.epilogue == 2 or not winners:
            return "Game over: everyone loses (%s)" % world.EPILOGUES.get(
                state.epilogue, "no winner").rstrip(".")
        return "Game over: %s win%s (%s)" % (and_list(self.seat_name(state, q)
                                                      for q in winners),
                                             "s" if len(winners) == 1 else "",
                                             world.EPILOGUES.get(state.epilogue, "").rstrip("."))

    def facts(self, match):
        s = match.state
        out = ["Day %d" % s.day] if s.day else []
        if s.event is not None:
            out.append("Event: %s" % places.name(s, s.event))
        for q in s.seats:
            k = s.players[q]["kills"]
            if k["players"] or k["characters"]:
                out.append("%s %d kills" % (self.seat_name(s, q),
                                            k["players"] + k["characters"]))
        return out
