"""The web table's face in a browser (Playwright, Debian's chromium), for every game: the game
named, words and no codes on a spectator's page, nothing overflowing its cell, a page that
fits a phone, a kiosk and a desktop (screenshots in tests/artifacts/), and the gestures the
book needs as one control each (a Storybook card put down face down)."""

import re

import pytest

from test_web_browser import live, shot, wait_view
from web_helpers import Host

# Each game with a person in its first seat and bots in the others (bots fill the last seats).
GAMES = {"storybook": ["--bots", "1"],
         "royale": ["--game", "royale", "--players", "3", "--bots", "2"],
         "heroes": ["--game", "heroes", "--bots", "1"],
         "fightclub": ["--game", "fightclub", "--players", "2", "--bots", "1"]}
SIZES = {"desktop": (1280, 800), "phone": (390, 844), "kiosk": (1024, 600)}
TITLES = {"storybook": "Storybook Battles", "royale": "Battle Royale",
          "heroes": "Battle Royale with hero teams", "fightclub": "Fairy Tale Fight Club"}

OVERFLOW = """() => [...document.querySelectorAll('#board .cell .items')].filter(e =>
    e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1)
    .map(e => e.parentElement.dataset.cell + ': ' + e.innerText)"""


def codes_in(text):
    """What a person should never read: action codes, identifiers, tile ids."""
    found = []
    for line in text.splitlines():
        if "=" in line or re.search(r"[A-Za-z]_[A-Za-z]", line) or \
                re.search(r"\b[0-9a-f]{16}\b", line):
            found.append(line)
    return found


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_page_names_its_game_speaks_in_words_and_fits_each_screen(tmp_path, browser,
                                                                         game):
    host = Host(tmp_path, *GAMES[game], "--seed", "3", "--new", "--pace", "200").start()
    try:
        person = [s for s in host.links if not host.is_bot(s)][0]
        # Something happened, or the game waits on the person (a first roll, a first pick).
        started = ("v.actions >= 1 || (v.actors.length && !v.seats.find(s => s.seat === "
                   "v.actors[0]).bot)")
        for size, (w, h) in SIZES.items():
            for who in ("spectator", "seat"):
                page = browser.new_page(viewport={"width": w, "height": h})
                url = host.links[person] if who == "seat" else host.url
                if size == "kiosk":
                    url = url.replace("/#", "/kiosk#") if who == "seat" else url + "kiosk"
                page.goto(url)
                live(page)
                wait_view(page, started, 120000)
                page.wait_for_timeout(400)
                shot(page, "%s-%s-%s" % (game, size, who), full=size == "phone")
                assert page.inner_text("#title") == TITLES[game]
                body = page.inner_text("body")
                if who == "spectator":
                    assert not codes_in(body), codes_in(body)
                assert page.evaluate(OVERFLOW) == [], page.evaluate(OVERFLOW)
                # Every column of the board on the screen, nothing wider than it.
                board = page.locator("#board").bounding_box()
                assert board["x"] >= 0 and board["x"] + board["width"] <= w + 1, board
                assert page.evaluate("document.documentElement.scrollWidth") <= w + 1
                if size == "kiosk":
                    assert board["y"] + board["height"] <= h
                    for part in page.locator("#tray .pocket, #readers .reader").all():
                        box = part.bounding_box()
                        assert box["y"] + box["height"] <= h, ("below the kiosk", box)
                page.close()
    finally:
        host.stop()
    assert "Traceback" not in host.log(), host.log()[-3000:]


def test_a_storybook_card_goes_down_face_down_from_the_browser(tmp_path, browser):
    """ "Hide (3 AP): put a card face down": one control, no race with the double tap's
    timer; the card lies face down for the other seat and the spectators."""
    host = Host(tmp_path, "--bots", "1", "--seed", "5", "--new", "--pace", "0").start()
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(host.links["villain"])
        live(page)
        wait_view(page, "v.knowledge.phase === 'choose_plot_twist' && v.you.acting || "
                  "v.knowledge.phase !== 'choose_plot_twist'", 60000)
        if page.evaluate("window.fairytable.view.knowledge.phase") == "choose_plot_twist":
            page.locator("#you .choices button[data-choice]").first.click()
        # Setup: the villain plays two cards face up where the rules allow.
        for _ in range(2):
            wait_view(page, "v.knowledge.phase === 'setup_play' && v.you.acting && "
                      "v.you.hand.some(c => c.targets.length) && !v.busy", 90000)
            before = page.evaluate("window.fairytable.view.actions")
            card = page.evaluate("window.fairytable.view.you.hand.find(c => c.targets.length)")
            page.locator("#you .hand button[data-card='%s']" % card["id"]).click()
            page.locator("[data-cell='%d,%d']" % tuple(card["targets"][0])).click()
            wait_view(page, "v.actions > %d" % before, 30000)
        wait_view(page, "v.knowledge.phase === 'play' && v.you.acting && !v.busy && "
                  "v.you.hand.some(c => c.targets.length && c.face_down)", 90000)
        before = page.evaluate("window.fairytable.view.actions")
        card = page.evaluate("window.fairytable.view.you.hand.find(c => c.targets.length)")
        cell = card["targets"][0]
        page.locator("#you .hand button[data-card='%s']" % card["id"]).click()
        page.locator("#you button[data-face=down]").click()
        page.locator("[data-cell='%d,%d']" % tuple(cell)).click()
        wait_view(page, "v.actions > %d" % before, 30000)
        v = page.evaluate("window.fairytable.view")
        mine = [c for c in v["cells"] if c["cell"] == cell][0]["items"]
        assert mine[0]["id"] == card["id"] and mine[0].get("down") is True, mine
        assert v["knowledge"]["ap"] == 5 - 3
        spectator = host.table()
        theirs = [c for c in spectator["cells"] if c["cell"] == cell][0]["items"]
        assert theirs[0]["kind"] == "card_back" and "id" not in theirs[0], theirs
        assert "hides a card face down on [%d, %d]" % tuple(cell) in " ".join(spectator["log"])
        shot(page, "storybook-face-down-phone", full=True)
    finally:
        host.stop()
