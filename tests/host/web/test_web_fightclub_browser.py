"""Fight Club in a browser (Playwright, Debian's chromium) on the virtual table: the real tile
firmware under MicroPython, the host's web table, a person's clicks on a phone.

The last round of a solo game is played to its end by clicks on a 390 x 844 screen: a card
put where the rules forbid is refused beside the cell and stays in the hand, a Market of 25
creatures fits its cells, a choice loads
three cards as one move, a swap, the end of the actions, the draw and the Market step, and
the game over says why. A two-player table with a bot: a card of the hand put on a lit wagon
by hand is read as a load, and the bot's turn reads in words for spectators on every screen.
Screenshots go to tests/artifacts/."""

import json
import re

from test_web_browser import live, shot, wait_view
from test_web_face import OVERFLOW, SIZES, codes_in
from web_helpers import Host

RED_BARROW = "1,0"


def solo_last_round(tmp_path):
    """Round 16 of 16 of a solo game: Red holds 1, 1, 5, 7 and 9 and a gold coin; the Market
    has grown to 25 creatures (two or three a cell)."""
    market = ["c%02d-%02d" % (v, n) for v in (2, 3, 4, 6, 8) for n in range(1, 6)]
    setup = {"round": 16, "turn": "p1", "first": "p1", "market": market,
             "contracts": [{"id": c} for c in ("L1-01", "L1-02", "L1-03", "L1-04")],
             "contract_deck": ["L1-05", "L1-06", "L1-07"],
             "players": {"p1": {"hand": ["c01-01", "c01-02", "c05-01", "c07-01", "c09-01"],
                                "gold": 1}}}
    path = tmp_path / "solo-last-round.json"
    path.write_text(json.dumps(setup))
    return path


def click_choice(page, start):
    page.locator("#you .choices button:not([disabled])", has_text=start).first.click()


def test_the_last_round_of_a_solo_game_is_played_to_its_end_by_clicks_on_a_phone(tmp_path,
                                                                                browser):
    host = Host(tmp_path, "--game", "fightclub", "--players", "1", "--setup",
                str(solo_last_round(tmp_path)), "--new", "--pace", "0").start()
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(host.links["p1"])
        live(page)
        wait_view(page, "v.you && v.you.acting && v.actions === 0", 60000)
        assert page.inner_text("#title") == "Fairy Tale Fight Club"
        assert page.inner_text("#turn") == "Your turn: 2 actions left (load wagons, trade, " \
            "deliver contracts)"
        assert "round 16 of 16" in page.inner_text("#facts")
        market = page.evaluate("window.fairytable.view.cells.filter(c => c.cell[1] === 1 || "
                               "c.cell[1] === 2).map(c => c.items.length)")
        assert sum(market) == 25 and max(market) == 3, market
        assert page.evaluate(OVERFLOW) == [], page.evaluate(OVERFLOW)
        # A creature put on a contract is refused beside that cell; it stays in the hand.
        page.locator("#you .hand button[data-card='c09-01']").click()
        page.locator("[data-cell='2,4']").click()
        refusal = page.locator("#refusal")
        refusal.wait_for(state="visible", timeout=30000)
        assert refusal.inner_text() == "That is the contract area: creatures go on your " \
            "wagons or into the Market."
        box, cell = refusal.bounding_box(), page.locator("[data-cell='2,4']").bounding_box()
        assert abs(box["y"] - (cell["y"] + cell["height"])) < 12, (box, cell)
        assert page.evaluate("window.fairytable.view.actions") == 0
        assert page.locator("#you .hand button[data-card='c09-01']").count() == 1
        shot(page, "fightclub-phone-refused")
        # One click: three cards go on the Wheelbarrow and its pad is tapped: one load.
        click_choice(page, "Load 1, 1 and 5 onto your Wheelbarrow")
        wait_view(page, "v.actions === 1", 60000)
        assert page.locator("[data-cell='%s'] .piece .label" % RED_BARROW).first.inner_text() == \
            "1 1 5"
        assert "Red loads 1, 1 and 5 onto the Wheelbarrow." in page.inner_text("#log")
        click_choice(page, "Swap your 9 for a new card")
        wait_view(page, "v.actions === 2", 60000)
        assert "Red swaps a 9 for a new card." in page.inner_text("#log")
        click_choice(page, "End your actions")
        wait_view(page, "v.actions === 3", 60000)
        assert page.inner_text("#turn") == "Your turn: draw up to 5 cards"
        click_choice(page, "Draw up to 5 cards")
        wait_view(page, "v.actions === 4", 60000)
        assert page.inner_text("#turn") == "Your turn: put a creature from the hand into " \
            "the Market"
        shot(page, "fightclub-phone-market-step", full=True)
        click_choice(page, "Put your ")
        wait_view(page, "v.status === 'finished'", 60000)
        page.wait_for_timeout(500)
        banner = page.inner_text("#turn")
        assert banner.startswith("Game over (the 16 rounds are played): Red scores "), banner
        assert not banner.endswith(".."), banner
        assert re.search(r"Red puts (a|an) \d+ into the Market\. Game over",
                         page.inner_text("#log"))
        assert page.evaluate(OVERFLOW) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= 391
        assert page.locator("#you .choices button").count() == 0
        assert page.locator("#you .hand button").count() == 0
        shot(page, "fightclub-phone-game-over", full=True)
        spectator = browser.new_page(viewport={"width": 1280, "height": 800})
        spectator.goto(host.url)
        live(spectator)
        wait_view(spectator, "v.status === 'finished'")
        body = spectator.inner_text("body")
        assert not codes_in(body), codes_in(body)
        assert spectator.inner_text("#turn") == banner
        shot(spectator, "fightclub-desktop-game-over")
    finally:
        host.stop()
    assert "Traceback" not in host.log(), host.log()[-3000:]


def test_a_card_put_on_a_lit_wagon_by_hand_is_a_load_and_the_bots_turn_reads_in_words(
        tmp_path, browser):
    host = Host(tmp_path, "--game", "fightclub", "--players", "2", "--bots", "1", "--seed",
                "3", "--new", "--pace", "200").start()
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(host.links["p1"])
        live(page)
        wait_view(page, "v.you && v.you.acting && v.actions === 0 && !v.busy", 90000)
        card = page.evaluate("window.fairytable.view.you.hand.find(c => c.targets.some("
                             "t => t[0] === 1 && t[1] === 0))")
        page.locator("#you .hand button[data-card='%s']" % card["id"]).click()
        assert page.locator("[data-cell='%s'].target" % RED_BARROW).count() == 1
        page.locator("[data-cell='%s']" % RED_BARROW).click()
        # Read once the table is still (a load may be several cards put down one by one).
        wait_view(page, "v.actions === 1", 60000)
        said = "Red loads %s onto the Wheelbarrow." % (
            ("an %s" if card["label"] == "8" else "a %s") % card["label"])
        assert said in page.inner_text("#log")
        click_choice(page, "End your actions")
        wait_view(page, "v.actions >= 2 && v.you.acting && v.you.choices.some(c => "
                  "c.enabled)", 60000)
        for _ in range(3):       # the draw, then the Market step (no draw: a full hand)
            if page.evaluate("window.fairytable.view.knowledge.phase") == "draw":
                click_choice(page, "Draw up to")
            elif page.evaluate("window.fairytable.view.knowledge.phase") == "market":
                click_choice(page, "Put your ")
                break
            page.wait_for_timeout(1500)
        # Blue's bot plays its whole turn with the virtual hands (an event it draws may ask
        # Red for a fight card or cards to pass: the first choice).
        for _ in range(120):
            v = page.evaluate("window.fairytable.view")
            if v["status"] == "finished" or v["knowledge"]["round"] == 2 and \
                    v["you"]["acting"] and v["knowledge"]["phase"] == "play":
                break
            if v["you"]["acting"] and v["knowledge"]["phase"] in ("fight", "pass"):
                click_choice(page, "Fight with" if v["knowledge"]["phase"] == "fight"
                             else "Pass your")
            page.wait_for_timeout(2000)
        assert v["knowledge"]["round"] == 2 and v["you"]["acting"], v["banner"]
        log = page.inner_text("#log")
        assert "Blue's turn." in log and re.search(r"Round 2: Red's turn\.", log), log
        for size, (w, h) in SIZES.items():
            spectator = browser.new_page(viewport={"width": w, "height": h})
            spectator.goto(host.url + ("kiosk" if size == "kiosk" else ""))
            live(spectator)
            spectator.wait_for_timeout(800)
            body = spectator.inner_text("body")
            assert not codes_in(body), codes_in(body)
            assert spectator.evaluate(OVERFLOW) == [], spectator.evaluate(OVERFLOW)
            assert spectator.evaluate("document.documentElement.scrollWidth") <= w + 1
            shot(spectator, "fightclub-%s-spectator-round-2" % size, full=size == "phone")
            spectator.close()
        shot(page, "fightclub-phone-seat-round-2", full=True)
    finally:
        host.stop()
    assert "Traceback" not in host.log(), host.log()[-3000:]
