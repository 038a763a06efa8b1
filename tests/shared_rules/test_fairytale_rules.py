"""Fairytale Games: The Battle Royale: the rules of the rulebook (the publisher's text,
/work/shared/rulebooks/fairytale-games-battle-royale.txt), each test quoting the sentence it
checks, on scenarios with decks and cards of their own; plain test functions, so they run
under MicroPython too (tests/mpy_run_tests.py).

A scenario starts on day 1 with the event "A Quiet Day" face up and the Sundial (p1) in the
first Strategy Phase of its turn, unless it says otherwise."""

import pytest

from shared_rules import canon
from shared_rules import fairytale as ft
from shared_rules.errors import IllegalAction, ScenarioError


def player(character, **kw):
    row = {"character": character}
    row.update(kw)
    return row


def game(*players, **kw):
    options = {"players": len(players)}
    options.update(kw.pop("options", {}))
    seed = kw.pop("seed", 1)
    cards = kw.pop("cards", None)
    setup = kw
    setup["players"] = list(players)
    if "event" not in setup:
        setup["event"] = "quiet_day"
    return ft.new_game(options, seed, setup, cards)


def act(s, kind, seat="p1", **fields):
    a = {"type": kind, "seat": seat}
    a.update(fields)
    return ft.apply(s, a)


def refused(s, kind, code, seat="p1", **fields):
    """Assert the action is refused with `code` and changes nothing; return the message."""
    a = {"type": kind, "seat": seat}
    a.update(fields)
    before = canon.dumps(ft.to_dict(s))
    problem = ft.validate(s, a)
    assert problem is not None, "expected %r to be refused" % (a,)
    assert problem.code == code, (problem.code, problem.message)
    with pytest.raises(IllegalAction):
        ft.apply(s, a)
    assert canon.dumps(ft.to_dict(s)) == before
    return problem.message


def of_type(events, kind):
    return [e for e in events if e["type"] == kind]


def health(s, seat):
    return sum([s.players[seat]["traits"][t] for t in s.players[seat]["traits"]])


def cell(s, seat):
    p = s.players[seat]
    c = s.allies[p["ally"]]["cell"] if p["ally"] else p["cell"]
    return [c % 7, c // 7]


def battle_of(s, seat):
    for b in s.battles:
        if s.players[seat]["battle"] == b["id"]:
            return b
    return None


def hand(s, seat):
    return battle_of(s, seat)["fighters"][seat]["hand"]


HOOK = {"persuasion": 7, "intelligence": 7, "strength": 6}


# ---------------------------------------------------------------- setup

def test_each_player_chooses_a_primary_character_with_dormant_tactics_and_a_bonus_card():
    # "Each player looks at their character's Health and takes an equal amount of Resource
    # Gems. Divide your resource gems and distribute them any way you want in the trait
    # areas"; "each player will draw 1 card from the Bonus Deck and put it into their Quest
    # Hand"; "Each player will also recieve 1 reputation point."
    s = ft.new_game({"players": 2}, 3, {"decks": {"bonus": [
        "captain_hook", "steel_sword", "red", "heal_potion", "robin_hood"]}})
    assert s.phase == "choose" and ft.actors(s) == ["p1", "p2"]
    act(s, "choose", character="captain_hook", traits=HOOK)
    p = s.players["p1"]
    assert p["party"] == ["captain_hook"] and p["traits"]["persuasion"] == 7
    assert p["tactics"] == {"hook_cannon": False, "hook_crew": False, "hook_jolly": False}
    assert p["reputation"] == 1 and p["hand"] == ["steel_sword"] and cell(s, "p1") == [3, 3]
    refused(s, "choose", "not_available", "p2", character="captain_hook")
    msg = refused(s, "choose", "wrong_split", "p2", character="red", traits={"willpower": 5})
    assert "17 health" in msg
    act(s, "choose", "p2", character="red")
    # Without a split, Red's 17 health spreads over the traits on her card.
    assert s.players["p2"]["traits"] == {"intelligence": 6, "strength": 0, "willpower": 6,
                                         "magic": 0, "persuasion": 5}
    assert s.players["p2"]["hand"] == ["heal_potion"]
    assert s.phase == "play" and s.clock == "flip" and ft.actors(s) == ["p1"]


def test_thirty_event_cards_are_dealt_and_the_epic_items_set_aside():
    # "Although there are 50 Event cards in the box, you will only use 30 in a game";
    # "Bonus Card Deck (Remove the Epic Items and put them aside)".
    s = ft.new_game({"players": 3}, 9)
    assert len(s.decks["events"]) == 30 and len(s.decks["events_out"]) == 21
    assert len(s.decks["epic"]) == 8
    assert not [c for c in s.decks["bonus"] if c in s.decks["epic"]]


def test_the_player_count_is_refused_in_the_games_words():
    # "a 1-10 player card game"; "Tournament Play ... up to 30 players"; "You and up to 5
    # players" (adventurer mode).
    for opts in ({"players": 11}, {"players": 0}, {"players": 7, "mode": "adventurer"},
                 {"players": 31, "mode": "tournament"}):
        with pytest.raises(ScenarioError) as e:
            ft.new_game(opts, 1)
        assert e.value.field == "options.players" and "1 to 10 players" in e.value.message
    assert len(ft.new_game({"players": 30, "mode": "tournament"}, 1).seats) == 30


# ---------------------------------------------------------------- the day

def test_the_sundial_flips_an_event_that_touches_each_player_at_the_start_of_their_turn():
    # "Before anyone can move, the Sundial will flip over an Event Card. This Event will have
    # an action that affects each player, at the beginning of his or her turn."
    s = game(player("captain_hook", traits={"strength": 10}),
             player("red", traits={"willpower": 10}), event=None,
             decks={"events": ["harvest_moon", "plague"]})
    assert s.clock == "flip" and ft.legal_actions(s) == [{"type": "flip_event", "seat": "p1"}]
    refused(s, "flip_event", "not_the_sundial", "p2")
    refused(s, "step", "waiting_for_sundial", to=[3, 2])
    act(s, "flip_event", cards=["harvest_moon"])
    assert s.day == 1 and s.event == "harvest_moon" and health(s, "p1") == 12
    assert health(s, "p2") == 10
    act(s, "end_turn")
    assert health(s, "p2") == 12


def test_an_event_does_not_touch_a_player_in_battle():
    # "Event cards do not affect anyone currently in battle."
    s = game(player("captain_hook", traits={"strength": 10}),
             player("red", traits={"willpower": 10}), event=None,
             decks={"events": ["plague", "harvest_moon"], "locations": ["whispering_pines"]})
    act(s, "flip_event", cards=["plague"])
    act(s, "end_turn")
    assert health(s, "p1") == 9 and health(s, "p2") == 9
    act(s, "step", "p2", to=[3, 2], cards=["whispering_pines", "wolf"])
    assert s.clock == "flip"
    act(s, "flip_event", cards=["harvest_moon"])
    # Hook gains at the start of his turn; Red, in battle, takes no turn and gains nothing.
    assert health(s, "p1") == 11 and health(s, "p2") == 9 and s.players["p2"]["battle"]


def test_the_sundial_is_chosen_and_passes_on_when_removed_from_the_game():
    # "Next, assign who will be the Sundial."; "The Sundial will always be the sundial unless
    # they are removed from the game. In that case the next person (clockwise) will be the new
    # Sundial."
    s = game(player("captain_hook", traits={"strength": 10, "persuasion": 10},
                    kills={"players": 2, "characters": 2}),
             player("red", traits={"willpower": 2}), player("snow"), player("alice"),
             player("mowgli"), options={"sundial": "p2"}, turn="p1",
             decks={"battle": _deck(FIVE_A + FIVE_B)})
    assert s.sundial == "p2" and s.order == ["p2", "p3", "p4", "p5", "p1"]
    act(s, "battle", target="p2")
    act(s, "attack", card="heavy_1", target="p2")
    act(s, "defend", "p2")
    assert s.players["p2"]["out"] and s.sundial == "p3"
    refused(s, "flip_event", "not_the_sundial", "p1")


def test_an_event_with_a_duration_holds_back_the_next_flip():
    # "there may be events that have durations on them, giving them extra time in play (the
    # Sundial does not flip over a new Event card if the duration is in effect)"
    s = game(player("captain_hook"), event="tailwind", decks={"events": ["plague"]})
    assert s.event_hold == 1
    act(s, "end_turn")
    assert s.day == 2 and s.event == "tailwind" and s.clock is None
    act(s, "end_turn")
    assert s.clock == "flip"


def test_everyone_loses_when_the_sundial_has_no_event_to_flip():
    # "If the Sundial does not have any more Event cards to draw and there is no winner,
    # everyone loses (You will go to Epilogue 2 in this book)."
    s = game(player("captain_hook"), player("red"), decks={"events": []})
    act(s, "end_turn")
    events = act(s, "end_turn", "p2")
    assert s.status == "finished" and s.winner is None and s.end_reason == "no_events"
    assert s.epilogue == 2 and "Everyone loses" in of_type(events, "game_over")[0]["text"]


def test_npcs_walk_toward_the_next_landmark_in_the_npc_phase():
    # "all NPCs in play will move that value of spaces towards the next landmark location.
    # Once they reach the landmark, they will continue moving towards the next one."
    s = game(player("captain_hook"), event=None, decks={"events": ["quiet_night"]},
             map=[{"cell": [4, 3], "location": "rolling_meadow"},
                  {"cell": [5, 3], "location": "poppy_field"},
                  {"cell": [6, 3], "location": "emerald_city"}],
             npcs=[{"id": "the_gingerbread_man", "cell": [3, 3]}])
    act(s, "flip_event")
    assert s.npcs[0]["cell"] == 6 + 3 * 7 and s.npcs[0]["last"] == 6 + 3 * 7


# ---------------------------------------------------------------- traits

def test_spending_traits_lowers_health_but_never_the_last_point():
    # "Traits not only act as a resource to spend ... but are also the same as your health."
    s = game(player("captain_hook", traits={"strength": 2}),
             map=[{"cell": [3, 2], "location": "rolling_meadow", "searched": 1}])
    act(s, "step", to=[3, 2])
    msg = refused(s, "search", "not_enough_traits")
    assert "last point of health" in msg


def test_reputation_is_burned_for_a_trait_of_any_kind_but_never_the_last_one():
    # "you may not burn a reputation if there is only 1 left (You must always have at
    # least 1)."
    s = game(player("captain_hook", traits={"strength": 10}, reputation=2))
    act(s, "burn", trait="magic")
    assert s.players["p1"]["reputation"] == 1 and s.players["p1"]["traits"]["magic"] == 1
    refused(s, "burn", "last_reputation", trait="magic")
    full = game(player("captain_hook", reputation=3))
    refused(full, "burn", "health_full", trait="magic")


def test_traits_never_rise_above_the_starting_health():
    # "You may not have more traits (or health points) than your character's starting amount
    # unless otherwise noted."
    s = game(player("captain_hook", traits={"strength": 19}), event=None,
             decks={"events": ["feast"]})
    act(s, "flip_event")
    assert health(s, "p1") == 20


# ---------------------------------------------------------------- the map

def test_a_step_onto_an_unexplored_location_discovers_the_next_location_card():
    # "When you move, you will draw a card from the Location deck and place it face up in the
    # direction you'd like to move. This is called discovering a location."
    s = game(player("captain_hook"), decks={"locations": ["rolling_meadow", "poppy_field"]})
    events = act(s, "step", to=[3, 2])
    assert s.cells[3 + 2 * 7] == "rolling_meadow" and of_type(events, "discovered")
    act(s, "step", to=[3, 3])   # back onto the Dragon Inn: explored, no card drawn
    assert s.decks["locations"] == ["poppy_field"]
    refused(s, "step", "not_adjacent", to=[5, 5])


def test_movement_goes_up_to_the_characters_mvm():
    # "you can move up to your movement space (noted on your character card). You do not
    # have to move exactly that amount" (Hook: MVM 3)
    s = game(player("captain_hook"), decks={"locations": ["rolling_meadow", "poppy_field",
                                                          "kite_hill"]})
    for to in ([3, 2], [3, 1], [3, 0]):
        act(s, "step", to=to)
    refused(s, "step", "no_movement_left", to=[2, 0])


def test_the_map_is_the_tables_seven_by_seven_grid():
    # 49 location cards on 7 x 7 cells: a step off the grid is refused.
    s = game(player("captain_hook", cell=[0, 3]),
             map=[{"cell": [0, 3], "location": "rolling_meadow"}])
    msg = refused(s, "step", "off_the_map", to=[-1, 3])
    assert "7 x 7" in msg


def test_with_the_location_deck_empty_only_explored_locations_are_entered():
    # "Even after the Location Deck has been depleted, you can move around the revealed
    # locations"
    s = game(player("captain_hook"), decks={"locations": []},
             map=[{"cell": [3, 2], "location": "rolling_meadow"}])
    refused(s, "step", "no_locations", to=[2, 3])
    act(s, "step", to=[3, 2])


def test_searching_ends_the_movement_and_exhausts_the_location():
    # "If you want the bonus, you must end your movement on that location and "search" it. By
    # doing so, you will flip over the location, depleting that location of its bonus"
    s = game(player("captain_hook", traits={"strength": 10}),
             map=[{"cell": [3, 2], "location": "bears_thicket"}])
    act(s, "step", to=[3, 2])
    act(s, "search")
    assert s.players["p1"]["traits"]["strength"] == 12 and s.flipped[3 + 2 * 7]
    assert s.turn["phase"] == "action"
    refused(s, "step", "phase_over", to=[3, 1])


def test_a_re_searchable_location_costs_two_then_three_traits():
    # "After the first time, it will cost 2 traits to search the location a second time. If
    # the box has a third box, it would take 3 traits to search it the third time"
    # (The Mushroom Glade has 2 green boxes: 3 searches, each gaining 3 traits.)
    s = game(player("captain_hook", traits={"strength": 5, "magic": 5}),
             map=[{"cell": [3, 2], "location": "mushroom_glade"}],
             decks={"events": ["quiet_night", "calm_before_the_storm"]})
    act(s, "step", to=[3, 2])
    act(s, "search")
    assert health(s, "p1") == 13 and s.searched[17] == 1 and not s.flipped[17]
    act(s, "end_turn")
    act(s, "flip_event")
    act(s, "search", pay={"magic": 2})
    assert s.players["p1"]["traits"]["magic"] == 3 and health(s, "p1") == 14
    assert not s.flipped[17]
    act(s, "end_turn")
    act(s, "flip_event")
    act(s, "search")
    assert health(s, "p1") == 14 and s.flipped[17]
    act(s, "end_turn")
    refused(s, "search", "nothing_to_search")


def test_an_ambush_ends_the_movement_and_a_minion_of_the_players_reputation_attacks():
    # "If the enemy is a random one, randomly select from the Minions that match your
    # reputation point value or below. Once battle has concluded, flip over the location."
    s = game(player("captain_hook", reputation=1), player("red"),
             decks={"locations": ["whispering_pines"]})
    refused(s, "step", "wrong_minion", to=[3, 2], cards=["whispering_pines", "troll"])
    events = act(s, "step", to=[3, 2], cards=["whispering_pines", "wolf"])
    b = battle_of(s, "p1")
    assert b["fighters"]["e1"]["enemy"] == "wolf" and b["order"][0]["f"] == "e1"
    assert of_type(events, "ambushed") and s.turn["seat"] == "p2"
    assert not s.flipped[17]
    refused(s, "flee", "not_your_attack_turn", dice=[6, 1])   # the wolf goes first


def test_a_landmark_gives_a_bonus_card_the_first_time_a_player_enters_it():
    # "For the most part, anyone who enters a Landmark Location the first time gets to draw a
    # bonus card."
    s = game(player("captain_hook"), decks={"locations": ["emerald_city"],
                                            "bonus": ["steel_sword", "lantern"]})
    act(s, "step", to=[3, 2])
    act(s, "step", to=[3, 3])
    act(s, "step", to=[3, 2])
    assert s.players["p1"]["hand"] == ["steel_sword"]


# ---------------------------------------------------------------- quests

def test_locations_are_destroyed_changed_and_brought_back_by_cards():
    # "During the game, some locations can be destroyed, changed, or even brought back to its
    # original state." The Earthquake destroys, Stormy Seas change, Restoration brings back.
    s = game(player("captain_hook", cell=[3, 2], hand=["restoration"]),
             player("red", cell=[3, 4]), event=None,
             map=[{"cell": [3, 2], "location": "rolling_meadow"},
                  {"cell": [3, 4], "location": "whispering_pines"}],
             decks={"events": ["earthquake"]})
    events = act(s, "flip_event")
    assert s.flipped[17] == "destroyed" and of_type(events, "destroyed")
    assert [x["flipped"] for x in ft.view(s, "p2")["map"] if x["cell"] == [3, 2]] == [
        "destroyed"]
    refused(s, "search", "nothing_to_search")
    act(s, "use", card="restoration")
    assert s.flipped[17] is False and s.searched[17] == 0
    act(s, "search")
    # Red's turn: the Earthquake destroys the ambush under her; it springs no more.
    act(s, "end_turn")
    assert s.flipped[31] == "destroyed"
    act(s, "step", "p2", to=[3, 3])
    act(s, "step", "p2", to=[3, 4])
    assert s.players["p2"]["battle"] is None
    # The Dragon Inn and the landmarks stand.
    s = game(player("captain_hook"), event=None, decks={"events": ["earthquake"]})
    act(s, "flip_event")
    assert s.flipped[24] is False
    s = game(player("captain_hook", cell=[3, 2]), event=None,
             map=[{"cell": [3, 2], "location": "rolling_meadow"}],
             decks={"events": ["stormy_seas"], "locations": ["pearl_beach", "thornwood"]})
    events = act(s, "flip_event")
    assert s.cells[17] == "pearl_beach" and s.decks["locations"] == ["thornwood",
                                                                     "rolling_meadow"]
    assert of_type(events, "changed")[0]["to"] == "pearl_beach"


def test_quests_are_opened_at_the_dragon_inn_from_the_piles_the_reputation_allows():
    # "Easy Quests require a reputation of 1-2 / Medium Quests require a reputation of 3-4 /
    # Boss Quests require a reputation of 5+"; "you may search the Quest Deck your are opening
    # from and choose which quest you'd like"
    s = game(player("captain_hook", reputation=3))
    refused(s, "open_quest", "low_reputation", quest="fee_fi_fo_fum")
    act(s, "open_quest", quest="spider_nest")
    assert "spider_nest" in s.players["p1"]["hand"] and "spider_nest" not in s.decks["medium"]
    refused(s, "open_quest", "opened", quest="lost_lamb")
    # The component list's thresholds ("Medium Quests (Requires reputation of 4-6)"):
    c = game(player("captain_hook", reputation=3),
             options={"quest_thresholds": "components"})
    refused(c, "open_quest", "low_reputation", quest="spider_nest")
    away = game(player("captain_hook", cell=[3, 2]),
                map=[{"cell": [3, 2], "location": "rolling_meadow"}])
    refused(away, "open_quest", "not_at_the_inn", quest="lost_lamb")


def test_one_boss_quest_and_two_easy_or_medium_at_a_time_replaced_by_discarding():
    # "You can play a total of 1 Boss Quest and a mix of 2 Easy or Medium Quests at one time.
    # If you have a new quest you'd like to put in play, you will have to replace an
    # initiated quest by discarding the old one in the Quest Discard pile."
    s = game(player("captain_hook", cell=[3, 2], hand=["old_ruins", "fee_fi_fo_fum"],
                    quests=["lost_lamb", "wolf_at_the_door", "tick_tock"]),
             map=[{"cell": [3, 2], "location": "rolling_meadow"}])
    refused(s, "start_quest", "quests_full", quest="old_ruins")
    act(s, "start_quest", quest="old_ruins", replace="lost_lamb")
    assert s.players["p1"]["quests"] == ["wolf_at_the_door", "tick_tock", "old_ruins"]
    assert s.decks["quest_discard"] == ["lost_lamb"]
    refused(s, "start_quest", "quests_full", quest="fee_fi_fo_fum", replace="old_ruins")


def test_completing_a_quest_gives_its_rewards():
    # "Basic Quests: ... Completing them will reward you with a small bonus and/or reputation
    # points." (The Lost Lamb: reach the Emerald City; 1 reputation and 2 traits.)
    s = game(player("captain_hook", traits={"strength": 10}, hand=["lost_lamb"]),
             map=[{"cell": [3, 2], "location": "emerald_city"}])
    act(s, "start_quest", quest="lost_lamb")
    events = act(s, "end_turn")
    act(s, "flip_event")
    events = act(s, "step", to=[3, 2])
    assert of_type(events, "quest_completed") and s.players["p1"]["reputation"] == 2
    assert s.players["p1"]["quests"] == []


def test_a_quest_with_a_duration_is_discarded_when_time_runs_out():
    # "If initiated, some quests have durations in which they need to be completed"
    # (Sweet Tooth: 8 days.)
    s = game(player("captain_hook", hand=["sweet_tooth"]), day=3,
             decks={"events": ["quiet_night"] * 0 + ["harvest_moon", "plague", "festival",
                                                       "quiet_night", "fog", "feast",
                                                       "gossip", "rainbow", "eclipse",
                                                       "meditation"]})
    act(s, "start_quest", quest="sweet_tooth")
    assert s.players["p1"]["progress"]["sweet_tooth"]["until"] == 11
    for _ in range(8):
        act(s, "end_turn")
        if s.clock == "flip":
            act(s, "flip_event")
    assert s.day == 11 and s.players["p1"]["quests"] == ["sweet_tooth"]
    act(s, "end_turn")
    act(s, "flip_event")
    assert s.players["p1"]["quests"] == [] and "sweet_tooth" in s.decks["quest_discard"]


def test_a_character_quest_brings_the_legendary_item_even_from_another_player():
    # "If you complete a quest and receive the said Legendary Item, if it is in play and even
    # equipped by another player, it will be removed and placed into your Quest Hand
    # automatically." (The Archery Contest: Robin Hood in blue.)
    s = game(player("captain_hook", party=["robin_hood"], hand=["arrow_contest"],
                    reputation=3),
             player("red", equipped={"red": ["sherwood_longbow"]}),
             map=[{"cell": [3, 2], "location": "sherwood_forest"}])
    act(s, "start_quest", quest="arrow_contest")
    events = act(s, "end_turn")
    events = act(s, "end_turn", "p2")
    act(s, "flip_event")
    events = act(s, "step", to=[3, 2])
    assert of_type(events, "legendary_vanishes") and of_type(events, "legendary_claimed")
    assert "sherwood_longbow" in s.players["p1"]["hand"]
    assert s.players["p2"]["equipped"]["red"] == []


def test_without_the_blue_character_a_character_quest_gives_no_legendary_item():
    s = game(player("captain_hook", quests=["arrow_contest"], reputation=3),
             map=[{"cell": [3, 2], "location": "sherwood_forest"}],
             decks={"bonus": ["steel_sword"]})
    events = act(s, "step", to=[3, 2])
    assert of_type(events, "no_legendary") and of_type(events, "quest_completed")
    assert "sherwood_longbow" not in s.players["p1"]["hand"]


def test_a_boss_quest_ends_in_a_boss_battle_at_its_location():
    # "Some will start off with you having to do a few things before getting to the Boss, but
    # eventually the Boss Battle will happen." (Fee-Fi-Fo-Fum: the Giant at the Beanstalk.)
    s = game(player("captain_hook", cell=[3, 2], quests=["fee_fi_fo_fum"], reputation=5),
             map=[{"cell": [3, 2], "location": "the_beanstalk"}])
    act(s, "challenge", quest="fee_fi_fo_fum")
    b = battle_of(s, "p1")
    assert b["fighters"]["e1"]["enemy"] == "the_giant" and b["quest"] == "fee_fi_fo_fum"
    assert b["order"][0] == {"f": "p1", "vs": None}
    b["fighters"]["e1"]["health"] = 1
    card = [c for c in hand(s, "p1")]
    s.decks["battle"] = ["heavy_1"] + s.decks["battle"]
    hand(s, "p1")[0] = "heavy_1" if "heavy_1" not in card else card[0]
    events = act(s, "attack", card="heavy_1", target="e1", dice=[1])
    assert of_type(events, "enemy_killed") and of_type(events, "quest_completed")
    assert s.players["p1"]["reputation"] >= 7


# ---------------------------------------------------------------- the bonus deck

def test_recruiting_needs_persuasion_which_is_not_spent_and_the_trait_bonus_comes_once():
    # "you must make sure their Persuasion cost ... is equivalent (you don't spend them) to the
    # minimum number of persuasion traits you have"; "You can only gain these traits one
    # time" (Red: persuasion 4, +2 willpower.)
    s = game(player("captain_hook", traits={"persuasion": 3, "strength": 10}),
             player("snow"), decks={"locations": ["emerald_city"], "bonus": ["red"]})
    act(s, "step", to=[3, 2])
    assert s.pending == [{"seat": "p1", "kind": "character", "card": "red"}]
    refused(s, "recruit", "not_persuasive")
    refused(s, "step", "decide_first", to=[3, 3])
    s.players["p1"]["traits"]["persuasion"] = 4
    events = act(s, "recruit")
    p = s.players["p1"]
    assert p["party"] == ["captain_hook", "red"] and p["traits"]["persuasion"] == 4
    assert p["traits"]["willpower"] == 2 and of_type(events, "recruited")
    assert set(p["tactics"]) == set(["hook_cannon", "hook_crew", "hook_jolly", "red_shortcut",
                                     "red_cake", "red_cloak"])


def test_a_drawn_character_may_be_ignored_or_ambushed():
    # "you may choose to recruit them, ignore them (by shuffling them back into the bonus
    # deck), or Ambush them. If you Ambush them, you are essentially initiating battle"
    s = game(player("captain_hook"), player("snow"),
             decks={"locations": ["emerald_city", "poppy_field"], "bonus": ["red"]})
    act(s, "step", to=[3, 2])
    act(s, "ignore")
    assert "red" in s.decks["bonus"] and not s.pending
    t = game(player("captain_hook"), player("snow"),
             decks={"locations": ["emerald_city"], "bonus": ["red"]})
    act(t, "step", to=[3, 2])
    act(t, "ambush")
    b = battle_of(t, "p1")
    assert b["fighters"]["e1"]["enemy"] == "red" and b["fighters"]["e1"]["health"] == 17
    assert b["order"][0]["f"] == "p1" and t.turn["seat"] == "p2"


def test_a_party_holds_five_characters_at_most():
    # "You may recruit up to 4 other characters in your party for a maximum of 5"
    s = game(player("captain_hook", party=["robin_hood", "sinbad", "the_huntsman",
                                           "long_john_silver"],
                    traits={"persuasion": 20}), player("snow"),
             decks={"locations": ["emerald_city"], "bonus": ["red"]})
    act(s, "step", to=[3, 2])
    refused(s, "recruit", "party_full")


def test_the_leading_character_is_switched_in_the_action_phase_with_the_same_traits():
    # "Quest Mode you may switch characters during your Action Phase but your traits and
    # health points must carry over exactly as is"
    s = game(player("captain_hook", party=["peter_pan"], traits={"strength": 12}))
    act(s, "switch", character="peter_pan")
    assert s.players["p1"]["active"] == "peter_pan" and health(s, "p1") == 12
    assert s.turn["phase"] == "action"
    refused(s, "switch", "switched", character="captain_hook")
    refused(s, "step", "phase_over", to=[3, 2])


def test_a_separated_character_has_its_own_token_health_and_movement():
    # "You can do so at any time during your Planningn Phase by placing a token at your
    # location representing the other character. During your next movement phase, you may
    # move both characters separately, though only 1 character may search locations per
    # turn."; "your non-primary character has their own health points and begins with max
    # health points."
    s = game(player("captain_hook", party=["peter_pan"], traits={"strength": 12}),
             player("red"),
             map=[{"cell": [3, 2], "location": "rolling_meadow"},
                  {"cell": [2, 3], "location": "kite_hill"}],
             decks={"locations": ["sunken_fen", "thornwood", "pearl_beach", "golden_wheat"],
                    "bonus": ["steel_sword"]})
    refused(s, "separate", "not_in_party", character="captain_hook")
    act(s, "separate", character="peter_pan")
    away = s.players["p1"]["away"]["peter_pan"]
    # Peter Pan's 16 health over willpower, persuasion and magic; Hook keeps his 12.
    assert away["traits"] == {"intelligence": 0, "strength": 0, "willpower": 6, "magic": 5,
                              "persuasion": 5} and health(s, "p1") == 12
    assert s.players["p1"]["party"] == ["captain_hook", "peter_pan"]
    assert ft.view(s, "p2")["players"]["p1"]["away"]["peter_pan"]["cell"] == [3, 3]
    # Hook walks his 3, Peter Pan his own 5.
    act(s, "step", to=[3, 2])
    for to in ([2, 3], [1, 3], [0, 3], [0, 2], [0, 1]):
        act(s, "step", to=to, character="peter_pan")
    refused(s, "step", "no_movement_left", to=[0, 0], character="peter_pan")
    assert s.players["p1"]["away"]["peter_pan"]["cell"] == 1 * 7 + 0 and cell(s, "p1") == [3, 2]
    act(s, "search", character="peter_pan")           # the Golden Wheat: a bonus card
    assert s.players["p1"]["hand"] == ["steel_sword"]
    refused(s, "search", "searched")
    # Decision: a search ends the Movement Phase, the player's, for both tokens.
    refused(s, "step", "phase_over", to=[3, 1])
    act(s, "end_turn")
    act(s, "step", "p2", to=[3, 2])
    refused(s, "offer_alliance", "separated", "p2", to="p1")


def test_a_separated_character_reunites_with_the_lower_traits():
    # "If reunited with the party (during the action phase) your primary character's health
    # and traits will retain the traits from the lowest character between both characters."
    s = game(player("captain_hook", party=["peter_pan"], traits={"strength": 12}))
    act(s, "separate", character="peter_pan")
    refused(s, "reunite", "not_separated", character="captain_hook")
    act(s, "reunite", character="peter_pan")
    assert s.players["p1"]["away"] == {} and health(s, "p1") == 12
    assert s.players["p1"]["traits"]["strength"] == 12
    # Hook at his full 20 health, Peter Pan at his 16: Peter Pan's traits are kept.
    s = game(player("captain_hook", party=["peter_pan"], traits={"strength": 20}),
             map=[{"cell": [3, 2], "location": "rolling_meadow"}])
    act(s, "separate", character="peter_pan")
    act(s, "step", to=[3, 2], character="peter_pan")
    refused(s, "reunite", "not_here", character="peter_pan")
    act(s, "step", to=[3, 3], character="peter_pan")
    act(s, "reunite", character="peter_pan")
    assert s.players["p1"]["traits"] == {"intelligence": 0, "strength": 0, "willpower": 6,
                                         "magic": 5, "persuasion": 5}


def test_a_separated_character_is_ambushed_and_killed_as_an_individual_character():
    # "Either character may initiate battle, or be ambushed in battle."; "your characters may
    # be killed as if the were individual characters."
    # The Wolf of this scenario bites for 20.
    wolf = {"deck": "enemies", "id": "wolf", "name": "Wolf", "text": "A minion.",
            "kind": "minion", "creature": "beast", "reputation": 1, "health": 6,
            "defence": [0] * 6, "attack": [{"atk": 20}] * 6,
            "rewards": [{"do": "gain", "n": 2}]}
    s = game(player("captain_hook", party=["peter_pan"], traits={"strength": 12}),
             player("red"), decks={"locations": ["whispering_pines"]}, cards=[wolf])
    act(s, "separate", character="peter_pan")
    act(s, "step", to=[3, 2], character="peter_pan", cards=["whispering_pines", "wolf"])
    b = battle_of(s, "p1")
    assert b["fighters"]["p1"]["character"] == "peter_pan" and health(s, "p1") == 16
    act(s, "enemy_turn", dice=[1])
    events = act(s, "defend")                         # 20 ATK: Peter Pan falls
    assert of_type(events, "killed") and not of_type(events, "eliminated")
    p = s.players["p1"]
    assert p["party"] == ["captain_hook"] and p["away"] == {} and p["stand_in"] is None
    assert p["active"] == "captain_hook" and health(s, "p1") == 12 and cell(s, "p1") == [3, 3]
    assert "peter_pan" in s.decks["bonus_discard"] and "p1" in s.order


def test_items_are_equipped_outside_battle_two_to_a_character():
    # "Each character may equip up to 2 items"; "You may not equip items (unless otherwise
    # noted) during combat."
    s = game(player("captain_hook", hand=["steel_sword", "iron_helm", "lantern"]),
             player("red"))
    act(s, "equip", item="steel_sword")
    act(s, "equip", item="iron_helm")
    refused(s, "equip", "slots_full", item="lantern")
    b = game(player("captain_hook", hand=["steel_sword"]), player("red"))
    act(b, "battle", target="p2")
    refused(b, "equip", "in_battle", item="steel_sword")


def test_a_disposable_item_is_played_from_the_hand_in_quest_mode_but_equipped_in_battle():
    # "Disposable Items: These can be played from your hand in Quest Mode but must be equipped
    # to use in Battle Mode. Disposable items are discarded once used."
    s = game(player("captain_hook", traits={"strength": 10}, hand=["heal_potion"]),
             player("red"))
    act(s, "use", card="heal_potion")
    assert health(s, "p1") == 14 and "heal_potion" in s.decks["bonus_discard"]
    b = game(player("captain_hook", traits={"strength": 10}, hand=["heal_potion_2"],
                    equipped={"captain_hook": ["heal_potion"]}), player("red"))
    act(b, "battle", target="p2")
    refused(b, "use", "not_equipped", card="heal_potion_2")
    act(b, "use", card="heal_potion")
    assert health(b, "p1") == 14


def test_an_npc_drawn_from_the_bonus_deck_is_placed_on_the_players_location():
    # "NPC: ... When they pop up, they are immediately placed on the location you are on."
    s = game(player("captain_hook"), decks={"locations": ["emerald_city"],
                                            "bonus": ["the_white_rabbit", "steel_sword"]})
    act(s, "step", to=[3, 2])
    assert s.npcs == [{"id": "the_white_rabbit", "cell": 17, "last": -1}]
    act(s, "interact", npc="the_white_rabbit")   # a bonus card and 1 reputation
    assert s.npcs == [] and s.players["p1"]["reputation"] == 2
    assert s.players["p1"]["hand"] == ["steel_sword"]


def test_a_legendary_item_gives_its_rightful_owner_more():
    # "if equipped by its rightful owner, stated on the card, they would receive an additional
    # bonus ability or enhancement" (the Boots of Carabas: +2 MVM, +1 more for Puss.)
    s = game(player("puss_in_boots", equipped={"puss_in_boots": ["boots_of_carabas"]}))
    other = game(player("red", equipped={"red": ["boots_of_carabas"]}))
    from shared_rules.fairytale import core
    assert core.movement(s, "p1") == 4 + 2 + 1 and core.movement(other, "p1") == 4 + 2


# ---------------------------------------------------------------- battle against a player

FIVE_A = ["heavy_1", "heavy_2", "weak_1", "venom_1", "spear_1"]
FIVE_B = ["block_1", "block_2", "parry_1", "dodge_1", "heal_1"]


def _deck(top):
    rest = [c for c in ["weak_2", "weak_3", "block_3", "block_4", "weak_4", "heavy_3",
                        "block_5", "weak_5"] if c not in top]
    return top + rest


def duel(a=None, b=None, deck=None, **kw):
    """Hook (p1) starts a battle against Red (p2) on the Dragon Inn; Snow (p3) looks on."""
    s = game(a or player("captain_hook", traits={"strength": 10, "persuasion": 10}),
             b or player("red", traits={"willpower": 10, "intelligence": 7}),
             player("snow"),
             decks={"battle": _deck(deck or FIVE_A + FIVE_B)}, **kw)
    act(s, "battle", target="p2")
    return s


def test_the_initiator_attacks_first_with_a_hand_of_five_from_the_shared_deck():
    # "Each player begins by drawing 5 cards from the battle deck. The player who initiates the
    # battle goes first and is on the offensive."
    s = duel()
    b = battle_of(s, "p1")
    assert hand(s, "p1") == FIVE_A and hand(s, "p2") == FIVE_B
    assert b["order"] == [{"f": "p1", "vs": None}, {"f": "p2", "vs": None}]
    # "In Battle Royale, you do not wait until another player finishes battle."
    assert s.turn["seat"] == "p3" and ft.actors(s) == ["p1", "p3"]


def test_an_attack_costs_traits_and_one_defence_card_answers_it():
    # "if an enemy attacks you with an ATK of 3 and you play a card with a DEF 2, you will only
    # take 1 ATK damage"; "attack cards require you to spend traits"
    s = duel()
    act(s, "attack", card="heavy_1", target="p2", pay={"persuasion": 1})
    assert s.players["p1"]["traits"]["persuasion"] == 9
    assert ft.actors(s) == ["p2", "p3"]
    refused(s, "attack", "not_your_move", card="heavy_2", target="p2")
    refused(s, "end_attack", "answer_first", "p2")
    refused(s, "defend", "not_a_defence", "p2", card="heal_1")
    act(s, "defend", "p2", card="block_1", lose={"intelligence": 1})
    assert health(s, "p2") == 16 and s.players["p2"]["traits"]["intelligence"] == 6
    assert "block_1" in s.decks["battle_discard"]


def test_a_weakness_adds_one_and_the_same_element_takes_one():
    # "Pinocchio ... is weak against fire ... take damage from an opponent equipped with a
    # Flame Sword, he would take the extra +1 ATK damage"; "if you attack someone with a
    # spell/character/item that has the same element as they do, your damage is decreased by 1"
    s = duel(a=player("captain_hook", equipped={"captain_hook": ["flame_sword"]}),
             b=player("pinocchio"))
    act(s, "attack", card="heavy_1", target="p2")
    assert battle_of(s, "p1")["await"]["atk"] == 3 + 1 + 1
    w = duel(a=player("captain_hook", equipped={"captain_hook": ["water_staff"]}),
             b=player("sea_witch"))
    act(w, "attack", card="heavy_1", target="p2")
    assert battle_of(w, "p1")["await"]["atk"] == 3 + 1 - 1


def test_poison_hits_at_the_start_of_each_turn_until_cured_even_in_quest_mode():
    # "If you are hit with poison, receive a poison token. At the beginning of your turn, you
    # will receive 1 unblockable ATK damage until the status has been cured. During Quest
    # Mode, poison hits you during your Strategy Phase, before your Movement."
    s = duel()
    act(s, "attack", card="heavy_1", target="p2", **{"with": ["venom_1"]})
    act(s, "defend", "p2")
    assert s.players["p2"]["poison"] == 1 and health(s, "p2") == 14
    act(s, "end_attack")
    assert health(s, "p2") == 13


def test_stun_takes_the_next_attack_and_dizzy_the_hand():
    # "Stun - You may not attack on your next attack turn."; "Dizzy - You discard your
    # current Battle Hand and draw 1 card."
    s = duel(deck=["weak_1", "stunning", "daze", "heavy_1", "heavy_2"] + FIVE_B)
    act(s, "attack", card="weak_1", target="p2", **{"with": ["stunning"]})
    act(s, "defend", "p2")
    act(s, "attack", card="heavy_1", target="p2", **{"with": ["daze"]})
    act(s, "defend", "p2")
    assert hand(s, "p2") == ["weak_2"]
    act(s, "end_attack")
    refused(s, "attack", "stunned", "p2", card="weak_2", target="p1")


def test_break_discards_an_equipped_item_and_pierce_ignores_an_armour():
    # "Break - One of your equipped items is discarded."; "Pierce - The move ignores 1
    # equipped armor"
    s = duel(b=player("red", equipped={"red": ["knights_shield", "steel_sword"]}),
             deck=["heavy_1", "crush", "spear_1", "heavy_2", "weak_1"] + FIVE_B)
    act(s, "attack", card="heavy_1", target="p2", **{"with": ["spear_1"]})
    act(s, "defend", "p2")
    assert health(s, "p2") == 17 - 3        # the shield's DEF 2 ignored
    act(s, "attack", card="heavy_2", target="p2", **{"with": ["crush"]})
    act(s, "defend", "p2", **{"break": "steel_sword"})
    assert health(s, "p2") == 14 - 1 and s.players["p2"]["equipped"]["red"] == ["knights_shield"]


def test_bleed_adds_the_attackers_die():
    # "Bleed - Enemy rolls a die and adds that value to the move they just attacked with."
    s = duel(deck=["heavy_1", "serrated", "weak_1", "heavy_2", "weak_2"] + FIVE_B)
    act(s, "attack", card="heavy_1", target="p2", **{"with": ["serrated"]})
    act(s, "defend", "p2", dice=[4])
    assert health(s, "p2") == 17 - 3 - 4


def test_the_steel_chestplate_absorbs_damage_into_its_green_boxes():
    # "a Steel Chestplate has +3 Defense and 3 green boxes. If you're attacked by a 2 ATK move
    # ... you can have it absorb all 2 ATK damage ... if you were attacked by a 5 ATK move
    # and decide to let the Steel Chestplate absorb the attack, you would destroy the armor
    # and 2 ATK damage would carry over to you."
    s = duel(b=player("red", equipped={"red": ["steel_chestplate"]}),
             deck=["weak_1", "weak_2", "spell_1", "heavy_1", "weak_3"] + FIVE_B,
             a=player("captain_hook", traits={"strength": 10, "magic": 10}))
    act(s, "attack", card="weak_1", target="p2", pay={"strength": 1})
    act(s, "defend", "p2", absorb={})                      # take it: 1 damage
    assert health(s, "p2") == 16 and s.players["p2"]["boxes"]["steel_chestplate"] == 0
    act(s, "attack", card="weak_2", target="p2")
    act(s, "defend", "p2")                                  # absorbed (the default)
    assert health(s, "p2") == 16 and s.players["p2"]["boxes"]["steel_chestplate"] == 1
    act(s, "attack", card="spell_1", target="p2")          # 4 ATK: 2 boxes left, 2 carry over
    act(s, "defend", "p2")
    assert health(s, "p2") == 14 and s.players["p2"]["equipped"]["red"] == []
    assert "steel_chestplate" in s.decks["bonus_discard"]


def test_a_signature_move_needs_its_cards_and_spends_no_traits():
    # "Signature moves are ... effective combat elements that may cause damage or have added
    # effects without the cost of trait points." (Hook Slash: Heavy + Heavy, 7 ATK, bleed.)
    s = duel()
    before = health(s, "p1")
    act(s, "signature", move=1, target="p2")
    assert health(s, "p1") == before and battle_of(s, "p1")["await"]["atk"] == 7
    assert "heavy_1" in s.decks["battle_discard"] and "heavy_2" in s.decks["battle_discard"]
    act(s, "defend", "p2", dice=[2])
    refused(s, "signature", "no_combo", move=1, target="p2")


def test_a_super_move_needs_five_or_less_health():
    # "To initiate it, you must have 5 or less health (unless otherwise stated)." (Good Form:
    # spend 2 traits, 9 ATK unblockable.)
    s = duel()
    refused(s, "super", "too_healthy", target="p2")
    t = duel(a=player("captain_hook", traits={"strength": 5}))
    act(t, "super", target="p2")
    a = battle_of(t, "p1")["await"]
    assert health(t, "p1") == 3 and a["atk"] == 9 and a["unblockable"]
    refused(t, "defend", "unblockable", "p2", card="block_1")


def test_a_super_move_is_used_once_in_a_battle():
    # "Think of these as desperation moves"; "Doing these moves are like a "last ditch" effort
    # to win or end combat" ... "make it count!". Decision: once in a battle. (It's Alive!:
    # spend 2 traits, gain 10; once a turn, two such supers traded blows forever.)
    s = duel(a=player("frankensteins_monster", traits={"strength": 5}),
             b=player("red", traits={"willpower": 10, "intelligence": 7}))
    act(s, "super")
    assert health(s, "p1") == 5 - 2 + 10
    act(s, "end_attack")
    act(s, "end_attack", "p2")
    traits = s.players["p1"]["traits"]                   # wounded to 5 or less again
    for k in traits:
        traits[k] = 0
    traits["strength"] = 4
    msg = refused(s, "super", "supered")
    assert msg == "You have used your Super Move in this battle."
    assert not [a for a in ft.legal_actions(s) if a["type"] == "super"]


def test_fleeing_is_a_roll_of_one_die_each():
    # "To Flee, you and your enemy will roll one D6 die each. If you roll higher, you may Flee
    # Battle. If you roll less, you do not flee and instead, end your attack phase and your
    # enemy's first attack will be unblockable."; "Upon a successful flee, your enemy may not
    # initiate battle with you while sharing the same location as you for 2 turns"
    s = duel()
    act(s, "flee", dice=[2, 5])
    assert battle_of(s, "p1")["fighters"]["p1"]["exposed"]
    assert battle_of(s, "p1")["order"][battle_of(s, "p1")["at"]]["f"] == "p2"
    t = duel()
    act(t, "flee", dice=[5, 2])
    assert t.players["p1"]["battle"] is None and t.players["p2"]["battle"] is None
    assert t.order == ["p3", "p1", "p2"] or t.order[:1] == ["p3"]
    assert {"from": "p2", "turns": 2, "cell": 24} in t.players["p1"]["protect"]


def test_a_tie_does_not_flee():
    s = duel()
    act(s, "flee", dice=[4, 4])
    assert s.players["p1"]["battle"] is not None


def test_an_escape_card_is_a_gamble_of_who_spends_the_most_traits():
    # "Escape Card - ... it will be a gamble of who wants to spend the most traits."
    s = duel(deck=["escape_1", "weak_1", "weak_2", "weak_3", "heavy_1"] + FIVE_B)
    act(s, "play", card="escape_1", bid=3)
    assert ft.actors(s) == ["p2", "p3"]
    act(s, "counter_bid", "p2", bid=2)
    assert s.players["p1"]["battle"] is None and health(s, "p1") == 17
    assert health(s, "p2") == 15


def test_tag_out_and_knock_back_change_the_fighting_character():
    # "Tag Out your current character with a different character of your choice in your party"
    # ; "Knock Back an enemy, forcing them to use a different character in your party of your
    # choice" (a Rabid played by a player knocks back).
    s = duel(a=player("captain_hook", party=["robin_hood"]),
             b=player("red", party=["pinocchio"]),
             deck=["tag_out", "rabid_1", "weak_1", "weak_2", "weak_3"] + FIVE_B)
    act(s, "play", card="tag_out", character="robin_hood")
    assert s.players["p1"]["active"] == "robin_hood"
    act(s, "attack", card="rabid_1", target="p2", knock_back="pinocchio")
    act(s, "defend", "p2")
    assert s.players["p2"]["active"] == "pinocchio"
    assert battle_of(s, "p1")["fighters"]["p2"]["character"] == "pinocchio"


def test_hands_are_drawn_back_to_five_and_the_discards_reshuffled():
    # "both players may keep any cards in their hand and draw up to 5 cards from the Battle
    # Deck If there are no more cards to draw, reshuffle the discarded battle cards"
    s = duel(deck=FIVE_A + FIVE_B)
    s.decks["battle"] = []
    act(s, "attack", card="heavy_1", target="p2")
    act(s, "defend", "p2", card="block_1")
    act(s, "end_attack")
    assert len(hand(s, "p1")) == 5 and sorted(hand(s, "p1"))[:1] in (["block_1"], ["heavy_1"])
    assert len(hand(s, "p2")) == 5


# ---------------------------------------------------------------- automated enemies

def versus_hook(red_cards, extra=None):
    """Red (p1) meets Captain Hook on the Emerald City and ambushes him; Snow (p2)."""
    deck = red_cards + [c for c in (extra or []) if c not in red_cards]
    deck += [c for c in ["weak_4", "weak_5", "block_5", "block_6", "parry_3", "dodge_2",
                         "weak_3", "heavy_5", "heavy_6"] if c not in deck]
    s = game(player("red", traits={"willpower": 10, "intelligence": 7}), player("snow"),
             decks={"locations": ["emerald_city"], "bonus": ["captain_hook"], "battle": deck})
    act(s, "step", to=[3, 2])
    act(s, "ambush")
    return s


def test_an_automated_character_defends_by_flipping_a_card_per_trait_type():
    # "he has 3 different types of traits ... he will flip over 3 cards ... If any defense
    # cards are revealed by the third card, add up all the defense values"; "Hook begins at
    # full health; Per his character board, he has 20 health points."
    s = versus_hook(["heavy_1", "weak_1", "block_1", "block_2", "parry_1"],
                    ["weak_2", "block_3", "heavy_2"])
    b = battle_of(s, "p1")
    assert b["fighters"]["e1"]["health"] == 20
    events = act(s, "attack", card="heavy_1", target="e1")
    assert of_type(events, "flipped")[0]["cards"] == ["weak_2", "block_3", "heavy_2"]
    assert b["fighters"]["e1"]["health"] == 19


def test_an_automated_characters_attacks_add_up_to_one_attack_that_costs_it_traits():
    # "if he had drawn 2 Heavy cards and 1 Weak his one attack move will be equal to 7 ATK
    # damage ... Hook will lose 3 traits (bringing him to 17 health)"; "Red can only use 1
    # defense card against that attack since it is considered a single attack."
    s = versus_hook(["weak_1", "block_1", "block_2", "parry_1", "dodge_1"],
                    ["heavy_1", "heavy_2", "weak_2"])
    act(s, "end_attack")
    act(s, "enemy_turn", cards=["heavy_1", "heavy_2", "weak_2"])
    b = battle_of(s, "p1")
    assert b["fighters"]["e1"]["health"] == 17 and b["await"]["atk"] == 7
    act(s, "defend", card="parry_1")
    assert health(s, "p1") == 17 - 4


def test_a_rabid_flipped_by_an_automated_character_adds_poison():
    # "If Hook instead, drew 2 Heavy and 1 Rabid, he will ignore the Knockback ability and
    # instead automatically add Poison to his now 6 ATK damage attack"
    s = versus_hook(["weak_1", "block_1", "block_2", "parry_1", "dodge_1"],
                    ["heavy_1", "heavy_2", "rabid_1"])
    act(s, "end_attack")
    act(s, "enemy_turn", cards=["heavy_1", "heavy_2", "rabid_1"])
    a = battle_of(s, "p1")["await"]
    assert a["atk"] == 6 and a["statuses"] == ["poison"]
    act(s, "defend")
    assert s.players["p1"]["poison"] == 1


def test_an_automated_characters_heal_cure_tactic_and_escape():
    # "Heal: ... roll a die to determine how many traits they gain"; "Cure: ... remove them
    # and give the enemy +1 health"; "Tactic: They get another attack turn"; "Escape: Roll
    # against the enemy. If they succeed, reshuffle their character back into the Bonus Deck"
    s = versus_hook(["heavy_1", "weak_1", "block_1", "block_2", "parry_1"],
                    ["weak_2", "weak_3", "weak_4", "block_3", "heal_1", "cure_1", "tactic_1",
                     "escape_1", "weak_5", "heavy_2"])
    act(s, "attack", card="heavy_1", target="e1")   # no defence: 20 - 3
    act(s, "end_attack")
    act(s, "enemy_turn", cards=["heal_1", "cure_1", "tactic_1"], dice=[1])
    b = battle_of(s, "p1")
    assert b["fighters"]["e1"]["health"] == 19 and b["order"][b["at"]]["f"] == "e1"
    act(s, "enemy_turn", cards=["escape_1", "weak_5", "heavy_2"], dice=[6, 2])
    assert s.players["p1"]["battle"] is None and "captain_hook" in s.decks["bonus"]


def test_a_minion_defends_and_attacks_by_its_die():
    # "roll a die to see if the enemy defends ... Some enemies have 0 value for defense, such
    # as the Wolf."; "On your enemy's attack turn, you will roll a die and match the
    # corresponding symbol"
    s = game(player("red", traits={"willpower": 10, "intelligence": 7}), player("snow"),
             decks={"locations": ["whispering_pines"],
                    "battle": ["heavy_1", "weak_1", "block_1", "block_2", "parry_1"]})
    act(s, "step", to=[3, 2], cards=["whispering_pines", "wolf"])
    act(s, "enemy_turn", dice=[6])          # the Wolf's 6: 3 ATK and bleed
    a = battle_of(s, "p1")["await"]
    assert a["atk"] == 3 and a["statuses"] == ["bleed"]
    act(s, "defend", card="parry_1")
    act(s, "attack", card="heavy_1", target="e1", dice=[5])
    assert battle_of(s, "p1")["fighters"]["e1"]["health"] == 3


def test_escaping_an_automated_enemy_costs_the_die_plus_one():
    # "you will roll a die for the enemy. Whatever the value is will be what you would need to
    # spend in traits +1 in order to successfully leave battle with the Escape Card. There is
    # no penalty for a failed Escape Card attempt."
    s = versus_hook(["escape_1", "escape_2", "weak_1", "block_1", "block_2"])
    act(s, "play", card="escape_1", dice=[3])
    assert battle_of(s, "p1")["await"] == {"kind": "escape_pay", "seat": "p1", "cost": 4}
    act(s, "stay")
    assert health(s, "p1") == 17 and s.players["p1"]["battle"] is not None
    act(s, "play", card="escape_2", dice=[2])
    act(s, "pay_escape", pay={"willpower": 3})
    assert s.players["p1"]["battle"] is None and health(s, "p1") == 14
    # Hook is shuffled back into the bonus deck (he is not defeated).
    assert "captain_hook" in s.decks["bonus"]


HORROR = ["headless_horseman", "frankensteins_monster", "count_dracula", "mr_hyde",
          "the_phantom"]


def test_die_again_rolls_a_players_dice_again():
    # "DIE AGAIN (All Five Characters in your party) Whenever you would roll a die, you may
    # ignore it and roll again." Offered on an automated enemy's attack die, an escape's price
    # and a failed flight.
    s = game(player("headless_horseman", party=HORROR[1:], traits={"strength": 20}),
             player("red"), decks={"locations": ["whispering_pines"],
                                   "battle": _deck(["escape_1"] + FIVE_B[1:])})
    act(s, "step", to=[3, 2], cards=["whispering_pines", "wolf"])
    act(s, "enemy_turn", dice=[6])
    assert battle_of(s, "p1")["await"]["kind"] == "reroll"
    refused(s, "defend", "nothing_to_defend")
    act(s, "reroll", dice=[1])                          # the Wolf's 1 ATK instead of 3 (bleed)
    assert battle_of(s, "p1")["await"]["atk"] == 1
    act(s, "defend")
    assert health(s, "p1") == 19
    act(s, "play", card="escape_1", dice=[5])
    assert battle_of(s, "p1")["await"] == {"kind": "escape_pay", "seat": "p1", "cost": 6,
                                           "again": True}
    act(s, "reroll", dice=[2])
    assert battle_of(s, "p1")["await"] == {"kind": "escape_pay", "seat": "p1", "cost": 3}
    refused(s, "reroll", "no_reroll")                   # once for each die
    act(s, "pay_escape")
    assert s.players["p1"]["battle"] is None and health(s, "p1") == 16
    # Without the five, the enemy's die stands.
    s = game(player("headless_horseman", traits={"strength": 20}), player("red"),
             decks={"locations": ["whispering_pines"]})
    act(s, "step", to=[3, 2], cards=["whispering_pines", "wolf"])
    act(s, "enemy_turn", dice=[6])
    assert battle_of(s, "p1")["await"]["kind"] == "defend"
    refused(s, "reroll", "no_reroll")


def test_die_again_after_a_failed_flight():
    s = duel(a=player("headless_horseman", party=HORROR[1:], traits={"strength": 20}))
    act(s, "flee", dice=[2, 4])
    assert battle_of(s, "p1")["await"]["kind"] == "reroll"
    act(s, "reroll", dice=[5])
    assert s.players["p1"]["battle"] is None


def test_die_again_inside_your_own_plays():
    # "DIE AGAIN (All Five Characters in your party) Whenever you would roll a die, you may
    # ignore it and roll again." Inside your own plays too: your attack ("Once played, roll a
    # die to see if the enemy defends"), its Bleed ("Enemy rolls a die and adds that value to
    # the move they just attacked with") and your Heal card (it rolls "a die to determine how
    # many traits they gain").
    s = game(player("headless_horseman", party=HORROR[1:], traits={"strength": 20}),
             player("red"), decks={"locations": ["whispering_pines"], "battle": _deck(
                 ["heavy_1", "serrated", "heal_1", "block_1", "block_2"])})
    act(s, "step", to=[3, 2], cards=["whispering_pines", "goblin"])
    act(s, "enemy_turn", dice=[1])
    act(s, "accept_roll")
    act(s, "defend", card="block_1")
    assert health(s, "p1") == 20
    # The Goblin's defence die shows 6 (DEF 2): the battle waits for the Horseman.
    act(s, "attack", card="heavy_1", target="e1", dice=[6], **{"with": ["serrated"]})
    assert battle_of(s, "p1")["await"] == {
        "kind": "reroll", "seat": "p1", "what": "enemy_defence", "fighter": "e1", "atk": 3,
        "statuses": ["bleed"], "die": 6}
    refused(s, "attack", "answer_first", card="block_2", target="e1")
    # Rolled again: 1 (DEF 0), so 3 ATK land; then Bleed's die (4) waits in its turn.
    events = act(s, "reroll", dice=[1, 4])
    assert of_type(events, "defended")[0]["damage"] == 3
    assert battle_of(s, "p1")["await"]["what"] == "bleed"
    assert battle_of(s, "p1")["fighters"]["e1"]["health"] == 6
    act(s, "reroll", dice=[2])
    refused(s, "reroll", "no_reroll")                   # once for each die
    assert battle_of(s, "p1")["fighters"]["e1"]["health"] == 6 - 3 - 2
    assert health(s, "p1") == 19                        # the Heavy Attack cost 1
    act(s, "play", card="heal_1", dice=[3])
    assert battle_of(s, "p1")["await"]["what"] == "heal"
    act(s, "accept_roll")
    assert health(s, "p1") == 22 and battle_of(s, "p1")["await"] is None
    # Without the five, the Goblin's defence die stands at once.
    s = game(player("headless_horseman", traits={"strength": 20}), player("red"),
             decks={"locations": ["whispering_pines"], "battle": _deck(
                 ["heavy_1", "serrated", "heal_1", "block_1", "block_2"])})
    act(s, "step", to=[3, 2], cards=["whispering_pines", "goblin"])
    act(s, "enemy_turn", dice=[1])
    act(s, "defend", card="block_1")
    events = act(s, "attack", card="heavy_1", target="e1", dice=[6, 4], **{"with": [
        "serrated"]})
    assert of_type(events, "defended")[0]["damage"] == 1 and of_type(events, "bleeds")
    assert battle_of(s, "p1")["await"] is None


def test_die_again_on_the_bleed_of_an_attack_on_a_player():
    # Bleed: "Enemy rolls a die and adds that value to the move they just attacked with": the
    # attacker's die, so the attacker's Die Again, after the defender's answer.
    s = duel(a=player("headless_horseman", party=HORROR[1:], traits={"strength": 20}),
             deck=["heavy_1", "serrated", "weak_1", "heavy_2", "weak_2"] + FIVE_B)
    act(s, "attack", card="heavy_1", target="p2", **{"with": ["serrated"]})
    act(s, "defend", "p2", dice=[6])
    assert battle_of(s, "p1")["await"]["what"] == "bleed" and "p2" not in ft.actors(s)
    assert health(s, "p2") == 17
    refused(s, "accept_roll", "no_reroll", "p2")
    act(s, "reroll", dice=[1])
    assert health(s, "p2") == 17 - 3 - 1
    assert battle_of(s, "p1")["await"] is None
    act(s, "attack", card="weak_1", target="p2")      # the Horseman's attack turn goes on


def test_defeating_a_minion_gives_its_rewards():
    # "Once battle has ended, if you are victorious, you will receive any rewards from killing
    # the enemy." (The Wolf: 2 traits.)
    s = game(player("red", traits={"willpower": 10, "intelligence": 5}), player("snow"),
             decks={"locations": ["whispering_pines"],
                    "battle": ["heavy_1", "heavy_2", "weak_1", "block_2", "parry_1"]})
    act(s, "step", to=[3, 2], cards=["whispering_pines", "wolf"])
    act(s, "enemy_turn", dice=[1])
    act(s, "defend", card="parry_1")
    act(s, "attack", card="heavy_1", target="e1", dice=[1])
    events = act(s, "attack", card="heavy_2", target="e1", dice=[1])
    assert of_type(events, "enemy_killed") and of_type(events, "battle_ends")
    assert health(s, "p1") == 15 - 2 + 2 and s.flipped[17]


# ---------------------------------------------------------------- the Sundial's order

def test_a_battling_player_rejoins_the_order_after_the_current_player():
    # "for the person in battle, once they have concluded battle, they will pick up their turn
    # after the current player's turn. This will be the new player turn order."
    s = game(player("captain_hook"), player("red"), player("snow"), player("alice"))
    act(s, "battle", target="p2")
    assert s.order == ["p3", "p4"] and s.turn["seat"] == "p3"
    act(s, "flee", dice=[6, 1])
    # Red's battle ends as Hook leaves it: "whoever escaped battle first would enter Quest
    # Mode first in turn order".
    assert s.order == ["p3", "p1", "p2", "p4"] and s.turn["seat"] == "p3"
    act(s, "end_turn", "p3")
    assert s.turn["seat"] == "p1"


def test_several_battles_run_at_once_and_each_waits_for_its_own_players():
    s = game(player("captain_hook"), player("red"), player("snow"), player("alice"))
    act(s, "battle", target="p2")
    act(s, "battle", "p3", target="p4")
    assert len(s.battles) == 2 and ft.actors(s) == ["p1", "p3"]
    assert s.turn is None and s.cur is None


# ---------------------------------------------------------------- kills

def test_a_kill_earns_a_victory_card_of_the_chosen_stack_whose_reward_recurs():
    # "Whenever you successfully kill an enemy ... you will draw from one of the two Victory
    # Stacks, Betrayal or Alliance."; "Victory Cards stay face-up and active, meaning you can
    # keep reaping the rewards whenever you complete its task."
    s = game(player("captain_hook", traits={"strength": 10, "persuasion": 10}),
             player("red", traits={"willpower": 2}, party=["pinocchio"]), player("snow"),
             decks={"battle": _deck(FIVE_A + FIVE_B), "betrayal": ["headhunter", "highwayman"]})
    act(s, "battle", target="p2")
    events = act(s, "attack", card="heavy_1", target="p2")
    events = act(s, "defend", "p2")
    assert of_type(events, "killed") and s.players["p1"]["kills"] == {"players": 1,
                                                                       "characters": 1}
    assert ft.actors(s) == ["p1", "p3"]
    act(s, "take_victory", deck="betrayal")
    assert s.players["p1"]["victory"] == ["headhunter"]
    # "you will continue as the next character in your party": Pinocchio, at full health.
    p2 = s.players["p2"]
    assert p2["party"] == ["pinocchio"] and p2["character"] == "pinocchio" and \
        health(s, "p2") == 17 and cell(s, "p2") == [3, 3]
    assert "red" in s.decks["bonus_discard"]


def test_a_kill_with_the_victory_stacks_spent_counts_without_a_card():
    # "These cards represent 1 kill point"; the book has 37 of them and does not say what a
    # kill brings once they are all taken. Decision: the kill counts, with no card. Hook kills
    # Red and then Snow (an Ally Party) with one Betrayal card left: one card for the first.
    s = game(player("captain_hook", traits={"strength": 10, "persuasion": 10}),
             player("red", traits={"willpower": 2}), player("snow", traits={"willpower": 2}),
             player("alice"), decks={"battle": _deck(FIVE_A + FIVE_B),
                                     "betrayal": ["headhunter"], "alliance": []})
    from shared_rules.fairytale import world
    world.form_alliance(s, ["p2", "p3"], [])
    act(s, "battle", target="ally1")
    act(s, "attack", card="heavy_1", target="p2")
    act(s, "defend", "p2")
    act(s, "attack", card="heavy_2", target="p3")
    act(s, "defend", "p3")
    assert s.players["p1"]["kills"] == {"players": 2, "characters": 2}
    assert [d["kind"] for d in s.pending if d["seat"] == "p1"] == ["victory"]
    act(s, "take_victory", deck="betrayal")
    assert s.players["p1"]["victory"] == ["headhunter"]
    assert not [d for d in s.pending if d["kind"] == "victory"]


def test_with_no_party_left_a_character_is_searched_from_the_bonus_deck():
    # "if you have no characters, you would search the Bonus Deck for any remaining
    # characters and use that one, shuffling the bonus deck before replacing it"
    s = game(player("captain_hook", traits={"strength": 10, "persuasion": 10}),
             player("red", traits={"willpower": 2}), player("snow"),
             decks={"battle": _deck(FIVE_A + FIVE_B), "bonus": ["alice", "steel_sword"]})
    act(s, "battle", target="p2")
    act(s, "attack", card="heavy_1", target="p2")
    act(s, "defend", "p2")
    assert [d["kind"] for d in s.pending] == ["victory", "continue"]
    refused(s, "continue", "not_in_deck", "p2", character="snow")
    # Red has just died (she lies in the discards): she is not one of the remaining.
    assert "red" in s.decks["bonus_discard"]
    assert [a["character"] for a in ft.legal_actions(s) if a["type"] == "continue"] == ["alice"]
    assert "Red has just died" in refused(s, "continue", "just_died", "p2", character="red")
    act(s, "continue", "p2", character="alice")
    assert s.players["p2"]["character"] == "alice" and health(s, "p2") == 18
    assert "p2" in s.order


# ---------------------------------------------------------------- assist and join

def test_joining_a_battle_against_an_automated_enemy_the_enemy_attacks_every_player():
    # "the turn order would be Hook attacks, the Troll attacks Hook, Goldilocks attacks, the
    # Troll attacks Goldilocks"; "you will not receive any reward from the kill unless you
    # were in an Ally Party with Hook."
    s = game(player("captain_hook", traits={"strength": 10}, reputation=3),
             player("goldilocks"), decks={"locations": ["whispering_pines"]},
             map=[{"cell": [3, 4], "location": "rolling_meadow"}])
    act(s, "step", to=[3, 2], cards=["whispering_pines", "troll"])
    act(s, "enemy_turn", dice=[1])
    act(s, "defend")
    b = battle_of(s, "p1")
    assert b["order"][b["at"]]["f"] == "p1"
    act(s, "step", "p2", to=[3, 2])
    act(s, "join", "p2", battle=b["id"])
    assert [e["f"] + ":" + str(e["vs"]) for e in b["order"]] == [
        "e1:p1", "p1:None", "p2:None", "e1:p2"]
    assert len(hand(s, "p2")) == 5


def test_a_joiner_who_kills_an_automated_enemy_gets_no_reward_outside_an_ally_party():
    # "If you join a battle against an automated enemy and you win, you will not receive any
    # reward from the kill unless you were in an Ally Party with Hook."
    # Goldilocks (p1) joins Hook's (p2) battle.
    s = game(player("goldilocks"), player("captain_hook", traits={"strength": 10}),
             turn="p2", decks={"locations": ["whispering_pines"],
                               "events": ["quiet_night", "calm_before_the_storm"],
                               "battle": _deck(FIVE_A + ["heavy_3", "heavy_4", "block_1",
                                                         "block_2", "parry_1"])})
    act(s, "step", "p2", to=[3, 2], cards=["whispering_pines", "wolf"])
    act(s, "enemy_turn", "p2", dice=[1])                 # the Wolf bites for 1
    act(s, "defend", "p2")
    act(s, "flip_event")
    act(s, "step", to=[3, 2])
    act(s, "join", battle=battle_of(s, "p2")["id"])
    act(s, "end_attack", "p2")
    act(s, "attack", card="heavy_3", target="e1", dice=[1])
    act(s, "attack", card="heavy_4", target="e1", dice=[1])
    # Goldilocks spent 2 traits and gained nothing; Hook, whose battle it was, takes the
    # Wolf's reward (gain 2 traits): 10 - 1 + 2.
    assert health(s, "p1") == 17 - 2 and health(s, "p2") == 11
    # The two players are left in the battle: "Goldilocks and Big Bad Wolf may call 'a truce
    # and end the battle."
    act(s, "truce")
    act(s, "truce", "p2")
    # "Big Bad Wolf will enter Quest Mode first, then Goldilocks": the fighter first, then
    # the joiner.
    assert s.battles == [] and s.order[-2:] == ["p2", "p1"]


def test_an_assistant_uses_items_on_anyone_in_the_battle():
    # "you are able to interact with any player in battle (even a Minion or Boss), but are
    # limited to: Using Disposable Items (Heal, Cure, Poison, etc) on anyone in battle"
    s = game(player("captain_hook", traits={"strength": 10}, reputation=3),
             player("goldilocks", hand=["fire_bomb", "heal_potion"]),
             decks={"locations": ["whispering_pines"]})
    act(s, "step", to=[3, 2], cards=["whispering_pines", "troll"])
    act(s, "enemy_turn", dice=[1])
    act(s, "defend")
    act(s, "step", "p2", to=[3, 2])
    b = battle_of(s, "p1")
    refused(s, "use", "bad_target", "p2", card="fire_bomb", target="e1")
    act(s, "end_turn", "p2")
    act(s, "flip_event")
    act(s, "assist", "p2", battle=b["id"])
    act(s, "use", "p2", card="fire_bomb", target="e1", dice=[1])
    # 3 fire ATK, +1 on the Troll's weakness to fire, less the 1 DEF its die gives.
    assert battle_of(s, "p1")["fighters"]["e1"]["health"] == 11 - (3 + 1 - 1)
    act(s, "use", "p2", card="heal_potion", target="p1")
    assert health(s, "p1") == 10 - 2 + 4 and health(s, "p2") == 17


def test_an_assistant_states_whom_it_assists_once_a_turn():
    # "you may choose to Assist by stating your intention during your Planning Phase".
    # Decision: one statement a turn (a bot once hopped between two battles without end).
    s = game(player("captain_hook", traits={"strength": 10}, reputation=3),
             player("goldilocks"), player("snow"), player("alice"),
             decks={"locations": ["whispering_pines"]})
    act(s, "step", to=[3, 2], cards=["whispering_pines", "troll"])
    act(s, "enemy_turn", dice=[1])
    act(s, "defend")
    act(s, "step", "p2", to=[3, 2])
    act(s, "end_turn", "p2")
    act(s, "step", "p3", to=[3, 2])
    act(s, "battle", "p3", target="p2")
    act(s, "step", "p4", to=[3, 2])
    act(s, "end_turn", "p4")
    act(s, "flip_event")
    first, second = [b["id"] for b in s.battles]
    assert s.turn["seat"] == "p4" and s.turn["phase"] == "strategy1"
    act(s, "assist", "p4", battle=first)
    msg = refused(s, "assist", "assisted", "p4", battle=second)
    assert msg == "You have stated whom you assist this turn."
    assert not [a for a in ft.legal_actions(s) if a["type"] == "assist"]
    assert s.players["p4"]["assist"] == first


# ---------------------------------------------------------------- ally parties

def test_an_ally_party_shares_one_token_on_the_dragon_inn_and_a_grouped_turn():
    # "To form an Ally Party, all players evolved agree and remove their character token form
    # the board. They will now use one character among all of them to represent the Ally
    # Party. Place that character on the Dragon Inn. The token's movement is equivalent to the
    # character with the highest movement ... The Ally Party is now a grouped turn that
    # happens after the last active player's turn"
    s = game(player("captain_hook", cell=[3, 2]), player("peter_pan", cell=[3, 2]),
             player("snow"), map=[{"cell": [3, 2], "location": "rolling_meadow"}],
             decks={"locations": ["sunken_fen", "thornwood", "pearl_beach", "shepherds_hill",
                                  "forgotten_crypt"]})
    act(s, "offer_alliance", to="p2")
    assert ft.actors(s) == ["p1", "p2"]
    act(s, "accept_alliance", "p2")
    a = s.allies["ally1"]
    assert a["members"] == ["p1", "p2"] and a["cell"] == 24
    assert s.order == ["p3", "ally1"] and s.turn["seat"] == "p3"
    act(s, "end_turn", "p3")
    assert s.turn["seat"] == "p1"
    from shared_rules.fairytale import world
    assert world.movement_allowed(s, "p1") == 5            # Peter Pan's MVM
    for to in ([3, 2], [3, 1]):
        act(s, "step", to=to)
    act(s, "end_turn")
    assert s.turn["seat"] == "p2" and cell(s, "p2") == [3, 1]
    for to in ([3, 0], [2, 0], [1, 0]):
        act(s, "step", "p2", to=to)
    refused(s, "step", "no_movement_left", "p2", to=[0, 0])


def test_a_battle_against_an_ally_party_follows_the_books_order():
    # "Non-Ally Party Player attacks / Ally Party Player 1 attacks / Non-Ally Party Player
    # attacks / Ally Party Player 2 attacks / Non-Ally Party Player attacks"
    s = game(player("captain_hook"), player("peter_pan"), player("snow"))
    from shared_rules.fairytale import world
    world.form_alliance(s, ["p2", "p3"], [])
    act(s, "battle", target="ally1")
    assert [e["f"] for e in battle_of(s, "p1")["order"]] == ["p1", "p2", "p1", "p3"]


# A giant of the scenario's own: 2 health, no defence, 1 ATK, three rewards.
WEAK_GIANT = {"deck": "enemies", "id": "the_giant", "name": "The Giant", "text": "A boss.",
              "kind": "boss", "creature": "giant", "reputation": 5, "health": 2,
              "defence": [0, 0, 0, 0, 0, 0], "attack": [{"atk": 1}] * 6,
              "rewards": [{"do": "reputation", "n": 2}, {"do": "gain", "n": 4},
                          {"do": "draw", "deck": "bonus", "n": 1}]}


def boss_slain(*more, **kw):
    """Hook (p1) and Peter Pan (p2) are an Ally Party (with `more` players in it) and slay The
    Giant at The Beanstalk (Hook's Heavy Attack spends 1 strength); Snow (the last seat) is
    outside the party."""
    n = 2 + len(more)
    rows = [player("captain_hook", quests=["fee_fi_fo_fum"], reputation=5,
                   traits={"strength": kw.pop("strength", 10)}), player("peter_pan")]
    rows += [player(c) for c in more] + [player("snow")]
    s = game(*rows, cards=[WEAK_GIANT],
             map=[{"cell": [3, 2], "location": "the_beanstalk"}],
             decks={"bonus": ["steel_sword", "lantern", "iron_helm", "heal_potion",
                              "fire_bomb"], "battle": _deck(FIVE_A + FIVE_B)}, **kw)
    act(s, "offer_alliance", to="p2")
    act(s, "accept_alliance", "p2")
    for i in range(3, n + 1):
        act(s, "offer_alliance", "p%d" % i, to="p1")
        act(s, "accept_alliance", "p1")
    act(s, "end_turn", "p%d" % (n + 1))
    act(s, "step", to=[3, 2])
    act(s, "challenge", quest="fee_fi_fo_fum")
    b = battle_of(s, "p1")
    assert sorted(b["fighters"]) == ["e1"] + ["p%d" % i for i in range(1, n + 1)]
    act(s, "attack", card="heavy_1", target="e1", dice=[1])
    return s


def test_the_survivors_of_a_boss_battle_share_its_rewards_by_negotiation():
    # "After a Boss Quest has been won, survivors will divvy up the rewards through
    # negotiation."
    s = boss_slain()
    d = [x for x in s.pending if x["kind"] == "negotiate"][0]
    assert d["seats"] == ["p1", "p2"] and d["rewards"] == [0, 1, 2]
    assert ft.actors(s) == ["p1", "p2"]
    refused(s, "propose_split", "bad_split", split=["p1", "p3", "p1"])
    act(s, "propose_split", split=["p1", "p2", "p2"])
    refused(s, "accept_split", "accepted")
    rep = s.players["p1"]["reputation"]
    # On The Beanstalk each member drew a landmark bonus card (p1 the sword, p2 the lantern).
    assert s.players["p2"]["hand"] == ["lantern"]
    act(s, "accept_split", "p2")
    assert s.players["p1"]["reputation"] == rep + 2 and s.pending == []
    assert s.players["p2"]["hand"] == ["lantern", "iron_helm"]


def test_a_negotiation_ends_each_seat_proposing_at_most_twice():
    # "survivors will divvy up the rewards through negotiation. If a player does not feel
    # comfortable with the decision, they may initiate battle with another player to try to
    # claim the rewards for themself": the book gives the negotiation no end. Decision: a seat
    # may not propose again while its own split stands, and proposes at most twice; then it
    # accepts a split or causes Conflict.
    s = boss_slain()
    act(s, "propose_split", split=["p1", "p1", "p1"])
    msg = refused(s, "propose_split", "own_proposal", split=["p2", "p2", "p2"])
    assert msg == "Your split stands: wait for the others to accept it or propose another."
    act(s, "propose_split", "p2", split=["p2", "p2", "p2"])
    act(s, "propose_split", split=["p1", "p1", "p2"])
    act(s, "propose_split", "p2", split=["p2", "p2", "p1"])
    msg = refused(s, "propose_split", "proposed_enough", split=["p1", "p2", "p1"])
    assert msg == "You have proposed 2 splits: accept one, or cause Conflict."
    assert {"type": "propose_split", "seat": "p1", "split": ["p1", "p2", "p1"]} not in \
        ft.legal_actions(s)
    rep = s.players["p2"]["reputation"]
    act(s, "accept_split")
    assert s.pending == [] and s.players["p2"]["reputation"] == rep + 2


def test_a_victor_whose_split_stands_waits_for_the_others():
    # "Those who did not battle may not have any objections": the victors of a Conflict may
    # not cause another, so a victor whose own split stands has no move until the other
    # victor answers, and is not among the seats the game waits for.
    s = boss_slain("alice")
    act(s, "propose_split", split=["p1", "p1", "p1"])
    act(s, "cause_conflict", "p2")
    act(s, "face_conflict", "p3")
    act(s, "face_conflict")
    act(s, "flee", "p2", dice=[6, 1])                  # the causer flees: the party wins
    d = [x for x in s.pending if x["kind"] == "negotiate"][0]
    assert d["victors"] == ["p1", "p3"]
    act(s, "propose_split", split=["p3", "p1", "p1"])
    assert s.clock == "flip" and s.sundial == "p1"     # p1 still turns the day's event
    assert [a for a in ft.legal_actions(s) if a["seat"] == "p1"] == [
        {"type": "flip_event", "seat": "p1"}]
    from shared_rules.fairytale import battle
    assert battle.negotiators(s, d) == ["p3"]
    act(s, "accept_split", "p3")
    assert s.pending == [] and s.players["p3"]["reputation"] == 1 + 2


def test_a_conflict_over_a_bosss_rewards_is_a_battle_the_causer_wins_to_take_all():
    # "you may cause Conflict by dissolving from your Ally Party before rewards are
    # distributed, and immediately initiate battle with the Ally Party"; "If the player who
    # caused Conflict wins, they take all of the rewards."
    s = boss_slain(strength=2)
    act(s, "propose_split", split=["p1", "p1", "p1"])
    act(s, "cause_conflict", "p2")
    assert s.players["p2"]["ally"] is None and ft.actors(s) == ["p1"]
    act(s, "face_conflict")
    b = battle_of(s, "p2")
    assert b["stakes"]["causer"] == "p2" and b["stakes"]["fought"] == ["p1"]
    assert [e["f"] for e in b["order"]] == ["p2", "p1"]
    rep = s.players["p2"]["reputation"]
    assert hand(s, "p2") == ["weak_2", "weak_3", "block_3", "block_4", "weak_4"]
    act(s, "attack", "p2", card="weak_2", target="p1")
    act(s, "defend")                                   # Hook had 1 health left: killed
    assert s.players["p1"]["battle"] is None and s.battles == []
    assert s.players["p2"]["reputation"] == rep + 2
    assert s.players["p2"]["hand"] == ["lantern", "iron_helm"]


def test_the_ally_party_that_wins_a_conflict_shares_and_the_ignorers_may_not_object():
    # "Before Battle Initiates, any player who does not want tc get involved may Ignore
    # Conflict. Those who ignore conflict will not participate in battle. If the Ally Party
    # player is victorious, they will decide how to distribute the rewards (they may not take
    # all of it themselves) within their party. Those who did not battle may not have any
    # objections."
    s = boss_slain("alice")
    act(s, "propose_split", split=["p1", "p1", "p1"])
    act(s, "cause_conflict", "p2")
    assert ft.actors(s) == ["p1", "p3"]
    act(s, "ignore_conflict", "p3")
    refused(s, "ignore_conflict", "no_decision", "p3")
    act(s, "face_conflict")
    b = battle_of(s, "p2")
    assert sorted(b["fighters"]) == ["p1", "p2"] and s.players["p3"]["battle"] is None
    act(s, "flee", "p2", dice=[6, 1])                  # the causer flees: the party wins
    d = [x for x in s.pending if x["kind"] == "negotiate"][0]
    assert d["seats"] == ["p1"] and d["among"] == ["p1", "p3"]
    refused(s, "propose_split", "bad_split", split=["p1", "p1", "p1"])
    refused(s, "cause_conflict", "no_negotiation", "p3")
    act(s, "propose_split", split=["p3", "p1", "p1"])
    assert s.pending == [] and s.players["p3"]["reputation"] == 1 + 2


def test_two_conflicts_waiting_are_answered_in_the_order_they_began():
    # Two Conflicts over rewards can wait on one player at once (a 4-player adventurer bot
    # game, seed 147): the answer goes to the first, the one legal_actions offers.
    s = boss_slain("alice")
    act(s, "propose_split", split=["p1", "p1", "p1"])
    act(s, "cause_conflict", "p2")
    first = [d for d in s.pending if d["kind"] == "conflict"][0]
    later = dict(first, seats=["p1"], faced=["p1"], ignored=[], rewards=[0])
    s.pending.append(later)                     # a later Conflict p1 has already faced
    assert {"type": "face_conflict", "seat": "p1"} in ft.legal_actions(s)
    act(s, "face_conflict")
    assert first["faced"] == ["p1"]


def test_a_conflict_nobody_faces_gives_the_causer_everything():
    # Decision: when every member ignores the Conflict, nobody contests the claim.
    s = boss_slain()
    act(s, "propose_split", split=["p1", "p1", "p1"])
    rep = s.players["p2"]["reputation"]
    act(s, "cause_conflict", "p2")
    act(s, "ignore_conflict")
    assert s.battles == [] and s.players["p2"]["reputation"] == rep + 2


def test_dissolving_puts_the_leavers_turn_after_the_last_active_player():
    # "If player wants, they may Dissolve their alliance at any time. By dissolving, your turn
    # order now begins after the last active person's turn."
    s = game(player("captain_hook"), player("peter_pan"), player("snow"), player("alice"))
    from shared_rules.fairytale import world
    world.form_alliance(s, ["p2", "p3"], [])
    act(s, "dissolve", "p2")
    assert s.allies == {} and s.order == ["p1", "p4", "p3", "p2"]


# ---------------------------------------------------------------- factions

WILD = ["big_bad_wolf", "goldilocks", "mowgli", "cheshire_cat", "puss_in_boots"]


def test_a_team_bonus_counts_like_characters_up_to_four_and_the_faction_bonus_needs_five():
    # "STEADY PACE (Two to Four Characters in your party) +1 MVM for each like faction
    # character in party (up to 4)."; "SCATTER (All Five Characters in your party) When in
    # Battle, playing an Escape card ALWAYS succeeds."
    from shared_rules.fairytale import core
    one = game(player("goldilocks"))
    two = game(player("goldilocks", party=["mowgli"]))
    five = game(player("goldilocks", party=["mowgli", "big_bad_wolf", "cheshire_cat",
                                            "puss_in_boots"]), player("red"),
                decks={"battle": ["escape_1", "weak_1", "weak_2", "weak_3", "heavy_1"] +
                       FIVE_B})
    assert core.movement(one, "p1") == 4 and core.movement(two, "p1") == 4 + 2
    assert core.movement(five, "p1") == 4 + 4
    act(five, "battle", target="p2")
    act(five, "play", card="escape_1")
    assert five.players["p1"]["battle"] is None


def test_faction_bonuses_count_across_an_ally_party_and_never_beyond_five():
    # "faction bonuses count for the entire party if, for example they control 3 of the 5
    # Faction characters and you the remaining 2."
    from shared_rules.fairytale import core, world
    s = game(player("goldilocks", party=["mowgli", "big_bad_wolf"]),
             player("cheshire_cat", party=["puss_in_boots"]))
    assert not core.faction_bonus(s, "p1", "wild_ones")
    world.form_alliance(s, ["p1", "p2"], [])
    assert core.faction_bonus(s, "p1", "wild_ones") and core.team_bonus(s, "p2",
                                                                        "wild_ones") == 4


def test_sharpening_the_blades_adds_to_equipped_weapons():
    # "Equipped Weapons give +1 ATK Bonus in Battle per each like faction character in your
    # party (up to 4)."
    s = duel(a=player("headless_horseman", party=["count_dracula"],
                      equipped={"headless_horseman": ["steel_sword"]}))
    act(s, "attack", card="heavy_1", target="p2")
    assert battle_of(s, "p1")["await"]["atk"] == 3 + 1 + 2


def test_blood_pact_sacrifices_an_ally_for_health():
    # "BLOOD PACT (Two to Four Characters in your party) You can sacrifice your ally to gain +2
    # Health per each like faction character in your party (up to 4)."
    s = game(player("rumplestiltskin", party=["bastinda", "morgan_la_fey"],
                    traits={"magic": 5}))
    act(s, "sacrifice", character="bastinda")
    assert s.players["p1"]["party"] == ["rumplestiltskin", "morgan_la_fey"]
    assert health(s, "p1") == 5 + 6


def test_hunting_starts_a_battle_from_further_away():
    # "HUNTING (Two to Four Characters in your party) Can Initiate Player battle up to +1
    # space away for each like Faction Ally in your party."
    s = game(player("captain_hook", party=["robin_hood"]), player("red", cell=[3, 1]),
             map=[{"cell": [3, 2], "location": "rolling_meadow"},
                  {"cell": [3, 1], "location": "poppy_field"}])
    act(s, "battle", target="p2")
    lone = game(player("captain_hook"), player("red", cell=[3, 2]),
                map=[{"cell": [3, 2], "location": "rolling_meadow"}])
    refused(lone, "battle", "not_here", target="p2")


def test_apprenticeship_lowers_the_magic_of_offerings():
    # "APPRENTICESHIP ... Quests or items that require magic traits, require 1 less per each
    # faction character in party (up to 4)." (An Offering of Magic: 3 magic.)
    s = game(player("merlin", party=["alice"], cell=[3, 2], traits={"magic": 5, "willpower": 5},
                    quests=["offering_of_magic"], reputation=3),
             map=[{"cell": [3, 2], "location": "sea_witchs_grotto"}])
    act(s, "fulfil", quest="offering_of_magic")
    assert s.players["p1"]["traits"]["magic"] == 5 - 1


def test_rummage_lets_a_fugitive_party_draw_again():
    # "RUMMAGE ... When you draw a bonus card, you can reshuffle it into the Bonus Stack and
    # re-draw again (before you put it into your hand)."
    s = game(player("red", party=["snow"]), player("alice"),
             decks={"locations": ["emerald_city"], "bonus": ["steel_sword"]})
    act(s, "step", to=[3, 2])
    assert s.pending[0]["kind"] == "rummage" and s.players["p1"]["hand"] == []
    act(s, "keep")
    assert s.players["p1"]["hand"] == ["steel_sword"]


def test_mind_shift_rearranges_the_enemys_traits_before_the_first_attack():
    # "MIND SHIFT (All Five Characters in your party) At the beginning of Battle, rearrange
    # your enemy's trait points on their character board in any order"
    s = duel(a=player("rumplestiltskin", party=["bastinda", "morgan_la_fey", "sea_witch",
                                                "mother_goose"]))
    act(s, "mind_shift", target="p2", traits={"persuasion": 17})
    assert s.players["p2"]["traits"]["persuasion"] == 17 and health(s, "p2") == 17
    act(s, "attack", card="heavy_1", target="p2")
    refused(s, "mind_shift", "not_now", target="p2", traits={"magic": 17})


MERCS = ["captain_hook", "robin_hood", "the_huntsman", "long_john_silver", "sinbad"]


def test_unlikely_hostage_holds_an_enemys_ally_until_ransomed():
    # "UNLIKELY HOSTAGE (All Five Characters in your party) At the beginning of battle, you can
    # take one of your enemy's ally. They cannot use that Ally or its ability unless they lose
    # 10 traits to regain control of their Ally. If they do not pay the trait cost by the end
    # of battle, their ally is reshuffled into the Bonus Deck."
    s = duel(a=player("captain_hook", party=MERCS[1:], traits={"strength": 10}),
             b=player("red", party=["pinocchio"], traits={"willpower": 17}))
    refused(s, "hostage", "bad_character", target="p2", character="red")
    act(s, "hostage", target="p2", character="pinocchio")
    act(s, "end_attack")
    refused(s, "use", "held", "p2", card="pinocchio")
    act(s, "truce", "p2")
    act(s, "truce")
    assert s.players["p2"]["party"] == ["red"] and "pinocchio" in s.decks["bonus"]
    s = duel(a=player("captain_hook", party=MERCS[1:], traits={"strength": 10}),
             b=player("red", party=["pinocchio"], traits={"willpower": 17}))
    act(s, "hostage", target="p2", character="pinocchio")
    act(s, "end_attack")
    act(s, "ransom", "p2")
    assert health(s, "p2") == 17 - 10
    act(s, "truce", "p2")
    act(s, "truce")
    assert s.players["p2"]["party"] == ["red", "pinocchio"]


MAGIC = ["merlin", "alice", "fairy_godmother", "the_wizard_of_oz", "aladdin"]


def test_spellcaster_plays_an_action_card_from_the_bonus_discard():
    # "SPELLCASTER (All Five Characters in your party) You may play an action card from the
    # Bonus Discard pile as if it were in your hand."
    s = game(player("merlin", party=MAGIC[1:], traits={"magic": 5}),
             decks={"bonus_discard": ["healing_rain"]})
    act(s, "use", card="healing_rain")
    assert health(s, "p1") == 5 + 3 and s.decks["bonus_discard"] == ["healing_rain"]
    lone = game(player("merlin", party=MAGIC[1:4], traits={"magic": 5}),
                decks={"bonus_discard": ["healing_rain"]})
    refused(lone, "use", "not_in_hand", card="healing_rain")


FUGITIVES = ["red", "snow", "pinocchio", "peter_pan", "rapunzel"]


def test_distraction_spends_three_traits_to_enable_a_tactic():
    # "DISTRACTION (All Five Characters in your party) You may spend 3 Traits to enable a
    # tactic card of your choice."
    s = game(player("red", party=FUGITIVES[1:], traits={"willpower": 10}))
    tactic = sorted(s.players["p1"]["tactics"])[0]
    act(s, "distraction", tactic=tactic)
    assert s.players["p1"]["tactics"][tactic] is True and health(s, "p1") == 7
    lone = game(player("red", party=FUGITIVES[1:4], traits={"willpower": 10}))
    refused(lone, "distraction", "no_distraction", tactic=tactic)


# ---------------------------------------------------------------- winning and losing

def test_single_player_hunters_come_at_the_second_landmark_and_close_in():
    # "When 2 landmark locations have been revealed on the map, flip over the first character
    # card and put its corresponding token on the Dragon Inn. This character will have a move
    # of 3 and will always try to move towards you in the closest path."
    s = game(player("captain_hook", cell=[3, 0]),
             map=[{"cell": [3, 2], "location": "rolling_meadow"},
                  {"cell": [3, 1], "location": "poppy_field"},
                  {"cell": [3, 0], "location": "kite_hill"}],
             hunters=[{"id": "red"}, {"id": "snow"}, {"id": "alice"}],
             decks={"locations": ["emerald_city", "neverland", "golden_wheat"],
                    "events": ["quiet_night"], "bonus": ["steel_sword", "lantern"]})
    for to in ([2, 0], [1, 0]):
        act(s, "step", to=to)
    assert s.hunters[0]["state"] == "hunting" and s.hunters[0]["cell"] == 24
    assert s.hunters[1]["state"] == "hidden"
    assert "snow" not in canon.dumps(ft.view(s, "p1"))
    act(s, "end_turn")
    act(s, "flip_event")
    # Three steps from the Dragon Inn toward [1, 0]: it reaches [3, 0] by the explored cells.
    assert s.hunters[0]["cell"] == 3


def test_killing_the_three_hunters_wins_the_single_player_game():
    # "Remaining are 3 characters, which you must kill within 30 days"
    s = game(player("captain_hook", traits={"strength": 10}),
             hunters=[{"id": "red", "cell": [3, 3], "health": 1},
                      {"id": "snow", "cell": [0, 0], "health": 5},
                      {"id": "alice", "cell": [6, 6], "health": 5}],
             map=[{"cell": [0, 0], "location": "rolling_meadow"},
                  {"cell": [6, 6], "location": "poppy_field"}],
             decks={"battle": ["heavy_1", "weak_1", "block_1", "block_2", "parry_1",
                               "weak_2", "weak_3", "weak_4", "weak_5"]})
    s.hunters[1]["state"] = "dead"
    s.hunters[2]["state"] = "dead"
    act(s, "battle", target="red")
    events = act(s, "attack", card="heavy_1", target="e1")
    assert s.status == "finished" and s.winner == "p1" and s.end_reason == "hunters_killed"
    assert s.epilogue == 1 and of_type(events, "game_over")


def test_two_to_four_players_win_by_three_player_kills_and_five_in_all():
    # "2-4 Players: Your goal is to kill 3 players and 2 characters (they may be a player as
    # well)."
    s = duel(a=player("captain_hook", kills={"players": 2, "characters": 4}),
             b=player("red", traits={"willpower": 2}))
    act(s, "attack", card="heavy_1", target="p2")
    act(s, "defend", "p2")
    assert s.status == "finished" and s.winner == "p1" and s.end_reason == "kills"


def test_five_to_ten_players_deaths_become_final_after_two_kills():
    # "after the first person kills 2 characters, all deaths are final and if your character
    # dies, you will not be able to choose another character and continue playing."
    # The death that makes the second kill comes before "after": Red's party goes on.
    def five(kills):
        s = game(player("captain_hook", traits={"strength": 10, "persuasion": 10},
                        kills=kills),
                 player("red", traits={"willpower": 2}, party=["pinocchio"]),
                 player("snow"), player("alice"), player("mowgli"),
                 decks={"battle": _deck(FIVE_A + FIVE_B)})
        act(s, "battle", target="p2")
        act(s, "attack", card="heavy_1", target="p2")
        return s, act(s, "defend", "p2")
    s, events = five({"players": 1, "characters": 1})
    assert s.final_deaths and of_type(events, "deaths_final")
    assert not s.players["p2"]["out"] and s.players["p2"]["character"] == "pinocchio"
    s, events = five({"players": 2, "characters": 2})
    assert s.players["p2"]["out"] and of_type(events, "eliminated")
    assert s.players["p2"]["party"] == [] and "pinocchio" in s.decks["bonus_discard"]
    assert "p2" not in s.order
    assert s.status == "ongoing"


def test_an_end_game_quest_wins_for_its_ally_party():
    # "In this edition, you may defeat the Trinity or Summon the Dark Dragon."
    s = game(player("thorne", cell=[3, 2], traits={"magic": 10, "willpower": 5},
                    hand=["excalibur", "obsidian_orb"], reputation=5),
             player("red"), map=[{"cell": [3, 2], "location": "marble_ruins"}],
             decks={"end": ["finding_safe_haven"]})
    s.players["p1"]["quests"] = ["to_summon_darkness"]
    s.players["p1"]["progress"]["to_summon_darkness"] = {"stage": 0, "count": 0, "until": 0}
    act(s, "fulfil", quest="to_summon_darkness")
    events = act(s, "fulfil", quest="to_summon_darkness")
    assert s.status == "finished" and s.winner == "p1" and s.epilogue == 4
    assert "Epilogue 4" in of_type(events, "game_over")[0]["text"]


# ---------------------------------------------------------------- modes

def test_adventurers_are_one_party_drawing_two_bonus_cards_a_turn_and_never_recruit():
    # "You and up to 5 players will each draw 2 bonus cards at the beginning of your turn. You
    # are all considered a Party and may not recruit new members to your party."
    s = game(player("captain_hook"), player("red"), options={"mode": "adventurer"},
             decks={"bonus": ["steel_sword", "lantern", "iron_helm", "heal_potion"]})
    assert s.allies["ally1"]["members"] == ["p1", "p2"]
    assert s.players["p1"]["hand"] == ["steel_sword", "lantern"]
    refused(s, "battle", "no_player_battles", target="p2")
    refused(s, "dissolve", "adventurers")


def test_adventurers_fight_a_drawn_character_together_in_alternating_turns():
    # "When facing other characters (drawn from the Bonus Deck) your party must fight them.
    # The turn order will start with whomever initiates the attack, then alternate between
    # player and enemy."; "Rewards from defeated enemies are split amongst the party."
    s = game(player("captain_hook"), player("goldilocks"), player("merlin"),
             options={"mode": "adventurer"}, decks={"bonus": ["alice", "lantern"]})
    b = battle_of(s, "p1")
    assert [e["f"] + ":" + str(e["vs"]) for e in b["order"]] == [
        "p1:None", "e1:p1", "p2:None", "e1:p2", "p3:None", "e1:p3"]
    assert b["fighters"]["e1"]["enemy"] == "alice" and s.pending == []
    assert s.players["p1"]["hand"] == ["lantern"]


def test_adventurers_reshuffle_the_events_and_win_only_by_an_end_game_quest():
    # "after there are no more Event cards to draw, the game does not end. Instead, you will
    # reshuffle the Event deck and begin drawing from it again. To win Adventurer Mode you
    # must defeat the Trinity or Summon the Dark Dragon"
    s = game(player("captain_hook"), player("red"), options={"mode": "adventurer"},
             decks={"events": [], "event_discard": ["quiet_night"], "bonus": [
                 "steel_sword", "lantern", "iron_helm", "heal_potion", "fire_bomb", "haste"]})
    act(s, "end_turn")
    events = act(s, "end_turn", "p2")
    assert of_type(events, "events_reshuffled") and s.clock == "flip"
    act(s, "flip_event")
    # Day 1's event went into the new deck too.
    assert s.status == "ongoing" and s.day == 2 and s.decks["event_discard"] == []
    assert sorted([s.event] + s.decks["events"]) == ["quiet_day", "quiet_night"]
    # "max_days" (90 by default) ends an adventure nobody won: everyone loses.
    s = game(player("captain_hook"), options={"mode": "adventurer", "max_days": 1},
             decks={"bonus": ["steel_sword", "lantern"]})
    events = act(s, "end_turn")
    assert s.status == "finished" and s.winner is None and s.epilogue == 2


def test_alchemists_keep_heal_and_cure_potions_as_tokens():
    # "Gain a token and reshuffle this card into the Bonus Deck. The token may be discarded
    # to...."
    s = game(player("captain_hook", traits={"strength": 10}), player("red"),
             options={"alchemist": True},
             decks={"locations": ["emerald_city"], "bonus": ["heal_potion"]})
    act(s, "step", to=[3, 2])
    assert s.players["p1"]["tokens"]["heal"] == 1 and s.decks["bonus"] == ["heal_potion"]
    act(s, "use", card="heal_token")
    assert health(s, "p1") == 14 and s.players["p1"]["tokens"]["heal"] == 0


def test_tournament_waves_enter_once_the_last_wave_has_left_the_dragon_inn():
    # "10 people will enter Battle Royale at a time and they must move off of the Dragon Inn.
    # Once all 10 players move, the next 10 players enter Battle Royale with a handicap of +5
    # Traits."
    s = ft.new_game({"players": 12, "mode": "tournament"}, 4)
    for i in range(12):
        q = "p%d" % (i + 1)
        act(s, "choose", q, character=ft.legal_actions(s)[0]["character"])
    assert [q for q in s.seats if s.players[q]["entered"]] == s.seats[:10]
    assert s.order == s.seats[:10]
    p11 = s.players["p11"]
    assert p11["max_bonus"] == 0
    # Every one of the ten steps off the Dragon Inn: the next wave enters with +5 traits.
    chars = ["captain_hook", "red", "snow", "alice", "mowgli", "merlin", "sinbad", "bastinda",
             "mr_hyde", "goldilocks", "pinocchio", "aladdin"]
    s = game(*[player(c) for c in chars], options={"mode": "tournament"},
             map=[{"cell": [3, 2], "location": "rolling_meadow"}],
             decks={"events": ["quiet_night", "calm_before_the_storm"]})
    assert s.order == s.seats[:10]
    for i in range(10):
        q = "p%d" % (i + 1)
        events = act(s, "step", q, to=[3, 2])
        if i < 9:
            act(s, "end_turn", q)
    assert of_type(events, "wave_enters")[0]["seats"] == ["p11", "p12"]
    assert s.players["p11"]["max_bonus"] == 5 and health(s, "p11") == 17 + 5
    assert s.order == s.seats and health(s, "p12") == 17 + 5


# ---------------------------------------------------------------- hidden information and chance

def test_a_seat_sees_its_own_hands_and_never_anothers_or_a_face_down_deck():
    s = duel(a=player("captain_hook", hand=["fireball"]), b=player("red", hand=["lantern"]))
    v1 = canon.dumps(ft.view(s, "p1"))
    v2 = canon.dumps(ft.view(s, "p2"))
    spec = canon.dumps(ft.view(s, None))
    assert '"fireball"' in v1 and '"fireball"' not in v2 and '"fireball"' not in spec
    assert '"heavy_1"' in v1 and '"heavy_1"' not in v2
    assert '"block_1"' in v2 and '"block_1"' not in v1
    for card in s.decks["locations"] + s.decks["bonus"]:
        assert '"%s"' % card not in spec


def test_the_table_supplies_the_cards_and_dice_it_reads():
    # Chance is explicit: a card read must be in the deck drawn from; left over, it is refused.
    s = game(player("captain_hook"), player("red"),
             decks={"locations": ["rolling_meadow", "poppy_field"]})
    refused(s, "step", "not_in_deck", to=[3, 2], cards=["emerald_city"])
    refused(s, "step", "unused_chance", to=[3, 2], cards=["poppy_field", "rolling_meadow"])
    refused(s, "step", "unused_chance", to=[3, 2], dice=[3])
    act(s, "step", to=[3, 2], cards=["poppy_field"])
    assert s.cells[17] == "poppy_field"


def test_a_battle_stops_where_the_game_ends_and_nobody_is_hurt_after():
    # "The last player standing wins" ends the game inside a battle turn: poison bites the
    # last opponent at the start of their attack turn. Nothing happens after the game is over
    # (the winner's own poison does not bite on), and the engine does not go round the
    # battle's order for ever (tournament seed 334 once did, both fighters dead).
    s = game(player("captain_hook", traits={"strength": 10, "persuasion": 10}, poison=1),
             player("red", traits={"willpower": 1}, poison=1),
             decks={"battle": _deck(FIVE_A + FIVE_B), "bonus": ["steel_sword"]})
    act(s, "battle", target="p2")
    before = health(s, "p1")
    events = act(s, "end_attack")
    assert s.status == "finished" and s.winner == "p1"
    kinds = [e["type"] for e in events]
    assert [k for k in kinds[kinds.index("game_over") + 1:] if k != "chance_taken"] == []
    assert health(s, "p1") == before
