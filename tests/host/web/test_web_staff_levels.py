"""The bots' levels on the staff page's new game (docs/web.md, "Staff API"): the form reports
the levels there are, each bot's level now and the seats' names at each player count; `POST
/api/staff/start` takes `"levels": {"seat number": level}` for the bots' seats and refuses
anything else with a 400 and a sentence naming the field, having changed nothing; on a
running host, staff choose the levels in the page (a phone's screen) and the new game's bots
play at them. Screenshots land in tests/artifacts/ (git-ignored)."""

import pytest

from host.web.errors import Refused
from host.web.view import WebTable
from shared_rules.engine import Match
from test_web_contract import session_of
from test_web_staff_table import open_staff, shot
from web_helpers import Host


def table_of(tmp_path, name, bots):
    """A staff page's table of a game of `name` whose bots play at these levels ({seat:
    level})."""
    _game, session = session_of(tmp_path, name)
    session.bots.seats = dict(bots)
    table = WebTable(session)
    table.make_match = lambda seed, options, bot_seats: (Match(name, options, seed or 1), 2)
    return table


def test_the_form_starts_from_the_bots_levels_now_and_knows_the_seats_names(tmp_path):
    table = table_of(tmp_path, "royale", {"green": "hard", "blue": "easy"})
    form = table.new_game_form()
    assert form["bots"] == 2 and form["levels"] == {"2": "easy", "3": "hard"}
    assert [c["level"] for c in form["level_choices"]] == ["easy", "normal", "hard"]
    assert all(c["words"] for c in form["level_choices"])
    assert form["seat_names"]["3"] == ["Red", "Blue", "Green"]
    assert form["seat_names"]["5"] == ["Red", "Blue", "Green", "Yellow", "Purple"]
    assert sorted(form["seat_names"], key=int) == [str(n) for n in form["players"]]
    story = table_of(tmp_path, "storybook", {"hero": "random"}).new_game_form()
    assert story["levels"] == {"2": "random"}
    assert story["seat_names"] == {"2": ["Villain", "Hero"],
                                   "4": ["Villain A", "Hero 1", "Villain B", "Hero 2"]}


def test_a_new_game_gives_each_bot_its_level(tmp_path):
    table = table_of(tmp_path, "royale", {})
    session = table.session
    table.staff("start", {"players": 4, "bots": 3, "levels": {"2": "hard", "4": "easy"}})
    assert session.bots.seats == {"blue": "hard", "green": "normal", "yellow": "easy"}
    assert table.new_game_form()["levels"] == {"2": "hard", "3": "normal", "4": "easy"}
    # A bot without a level keeps the level its seat's bot had; a new bot's seat is normal.
    table.staff("start", {"players": 4, "bots": 4, "levels": {"3": "easy"}})
    assert session.bots.seats == {"red": "normal", "blue": "hard", "green": "easy",
                                  "yellow": "easy"}
    view = table.view(None)
    assert [(q["seat"], q["level"]) for q in view["seats"]] == [
        ("red", "normal"), ("blue", "hard"), ("green", "easy"), ("yellow", "easy")]
    table.staff("start", {"players": 3, "bots": 1})
    assert session.bots.seats == {"green": "easy"}


REFUSED = [
    ({"levels": {"2": "expert"}}, 'levels[2] must be easy, normal or hard, not "expert".'),
    ({"levels": {"2": "Hard"}}, 'levels[2] must be easy, normal or hard, not "Hard".'),
    ({"levels": {"2": "greedy"}}, 'levels[2] must be easy, normal or hard, not "greedy".'),
    ({"levels": {"2": 3}}, "levels[2] must be easy, normal or hard, not a number."),
    ({"levels": {"2": None}}, "levels[2] must be easy, normal or hard, not null."),
    ({"levels": {"2": ["hard"]}}, "levels[2] must be easy, normal or hard, not a list."),
    ({"levels": {"2": "x" * 500}}, "levels[2] must be easy, normal or hard, not a longer "
                                   "text."),
    ({"levels": {"1": "hard"}}, "levels[1]: seat 1 (Villain) is a person's; the bot plays "
                                "seat 2 (Hero)."),
    ({"levels": {"3": "hard"}}, "levels[3]: a game of 2 players has seats 1 to 2; the bot "
                                "plays seat 2 (Hero)."),
    ({"levels": {"0": "hard"}}, "levels[0]: a game of 2 players has seats 1 to 2"),
    ({"levels": {"hero": "hard"}}, 'levels["hero"]: a seat is given by its number, 1 to 2; '
                                   "the bot plays seat 2 (Hero)."),
    ({"levels": {"-2": "hard"}}, 'levels["-2"]: a seat is given by its number'),
    ({"levels": {"2": "hard"}, "bots": 0}, "levels[2]: seat 2 (Hero) is a person's; no seat "
                                           "is a bot's (bots 0)."),
    ({"levels": {"1": "easy"}, "players": 4, "bots": 2},
     "levels[1]: seat 1 (Villain A) is a person's; the bots play seats 3 (Villain B) and 4 "
     "(Hero 2)."),
    ({"levels": ["hard"]}, 'levels is an object of the bots\' seat numbers and their levels, '
                           'such as {"2": "hard"}.'),
    ({"levels": "hard"}, "levels is an object of the bots' seat numbers"),
]


@pytest.mark.parametrize("params,words", REFUSED, ids=[repr(p)[:40] for p, _ in REFUSED])
def test_a_level_that_is_not_a_bots_level_is_refused_naming_the_field(tmp_path, params,
                                                                      words):
    table = table_of(tmp_path, "storybook", {"hero": "normal"})
    session = table.session
    match, game_id = session.match, session.game_id
    with pytest.raises(Refused) as e:
        table.staff("start", dict({"bots": 1}, **params))
    assert e.value.status == 400
    assert e.value.message.startswith(words), e.value.message
    assert "x" * 30 not in e.value.message
    # Nothing changed: the game goes on, its bot as it was.
    assert session.match is match and session.game_id == game_id and not session.attract
    assert session.bots.seats == {"hero": "normal"}


def levels_shown(page):
    """The page's level selects: [(label, seat number, level chosen)]."""
    return page.eval_on_selector_all(
        "#ng-level-list label", "ls => ls.map(l => [l.firstChild.textContent.trim(), "
        "l.querySelector('select').dataset.levelSeat, l.querySelector('select').value])")


def test_staff_choose_each_bots_level_on_a_phone_and_the_new_game_plays_at_them(tmp_path,
                                                                               browser):
    host = Host(tmp_path, "--game", "royale", "--bots", "1", "--seed", "5", "--new",
                "--pace", "60000").start()
    host.staff_link = host.url + "staff"
    try:
        # Paused first, and the new game stays so: this is who plays at what level, not the
        # bots' moves (rules of before the levels have no hard bot to move).
        assert host.staff("pause")[0] == 200
        page = open_staff(browser, host, 390, 844)
        page.wait_for_selector("#ng-level-list select")
        # The form starts from the bots now: one bot, Green's, at the normal level.
        assert levels_shown(page) == [["Green", "3", "normal"]]
        page.fill("#ng-bots", "3")
        assert levels_shown(page) == [["Red", "1", "normal"], ["Blue", "2", "normal"],
                                      ["Green", "3", "normal"]]
        page.select_option("#ng-level-list select[data-level-seat='1']", "hard")
        page.select_option("#ng-level-list select[data-level-seat='3']", "easy")
        # A level chosen stays with its seat as the bots change.
        page.fill("#ng-bots", "2")
        assert levels_shown(page) == [["Blue", "2", "normal"], ["Green", "3", "easy"]]
        page.fill("#ng-bots", "3")
        assert levels_shown(page) == [["Red", "1", "hard"], ["Blue", "2", "normal"],
                                      ["Green", "3", "easy"]]
        wide = page.evaluate("[document.documentElement.scrollWidth, "
                             "document.documentElement.clientWidth]")
        assert wide[0] <= wide[1], wide           # no sideways scrolling on a phone
        for box in [s.bounding_box() for s in page.locator("#ng-level-list select").all()]:
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        shot(page, "staff-levels-390x844")
        game_id = host.table()["game_id"]
        page.click("#newgame button[type=submit]")
        view = host.wait_for(lambda v: v["game_id"] != game_id and not v["attract"],
                             what="the new game")
        assert view["paused"]
        assert [(q["seat"], q["bot"], q["level"]) for q in view["seats"]] == [
            ("red", True, "hard"), ("blue", True, "normal"), ("green", True, "easy")]
        # The new game's form starts from its bots' levels; the seat links say them.
        page.wait_for_function("() => document.querySelectorAll('#ng-level-list select')"
                               ".length === 3 && document.querySelector("
                               "\"#ng-level-list select[data-level-seat='1']\").value === "
                               "'hard' && document.querySelector('#seats .seat b') && "
                               "document.querySelector('#seats .seat b').textContent"
                               ".includes('hard bot')", polling=250, timeout=30000)
        assert levels_shown(page) == [["Red", "1", "hard"], ["Blue", "2", "normal"],
                                      ["Green", "3", "easy"]]
        assert page.inner_text("#seats").count("bot)") == 3
        assert "Red (hard bot)" in page.inner_text("#seats")
        shot(page, "staff-levels-new-game-390x844")
        desk = open_staff(browser, host, 1280, 800)
        desk.wait_for_selector("#ng-level-list select")
        shot(desk, "staff-levels-1280x800")
        # A level the page would never send is refused in a sentence naming the field.
        status, body = host.staff("start", {"bots": 3, "levels": {"2": "expert"}})
        assert (status, body) == (400, {"error": 'levels[2] must be easy, normal or hard, '
                                                 'not "expert".'})
        assert host.table()["game_id"] == view["game_id"]
    finally:
        host.stop()
