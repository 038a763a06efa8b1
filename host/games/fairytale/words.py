"""Fairytale Games in words, shared by its lights (scenes.py) and its web face (web.py): the
seats' colours and each kind of action in a few words."""

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

