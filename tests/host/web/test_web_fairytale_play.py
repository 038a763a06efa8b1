"""Whole Fairytale Games played by a person's clicks on a phone (390 x 844), on the virtual table
with the real tile firmware: a single player against the three hunters, and two players, one a
bot. The "person" reads only what the seat's page shows it (window.fairytable.view) and clicks
its buttons: the day's event flipped, steps that discover the map, searches, battles (rolls for
the enemy thrown with "Throw the dice"), Victory cards, the end of the turn.

The games are those of the six-day event deck (SIX_DAYS): the whole game from the first choice
to the book's ending in a few dozen actions, as the full 30 days would be in a few hundred."""

import json
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from test_web_browser import live, shot, wait_view
from test_web_face import codes_in
from test_web_fairytale_browser import SIX_DAYS, setup_file
from web_helpers import Host

GAME_S = 600
FIRST = ("Choose your character", "Decide", "The day", "Battle", "Move")
NOT_FIRST = ("Flee", "Call a truce", "Assist")


def pick(you):
    """The person's choice: the day, a decision, the battle and the steps first, in the
    page's order (never a flight or a truce); then a search; then the end of the turn."""
    offered = [c for c in you.get("choices") or [] if c["enabled"]]
    first = [c for c in offered if c.get("group") in FIRST and
             not c["label"].startswith(NOT_FIRST)]
    then = [c for c in offered if c["label"].startswith("Search here")] or \
        [c for c in offered if c["label"].startswith("End your")] or offered
    return (first or then)[0]


def waiting_for_me(page):
    wait_view(page, "v.status !== 'ongoing' || (v.you && v.you.acting && ("
              "(v.tray || []).some(p => p.wanted) || (!v.busy && "
              "(v.you.choices || []).some(c => c.enabled))))", 120000)
    return page.evaluate("window.fairytable.view")


def offered_labels(page):
    v = page.evaluate("window.fairytable.view")
    return [c["label"] for c in ((v or {}).get("you") or {}).get("choices") or []
            if c["enabled"]]


def play(page, seat):
    """Clicks until the game is over; returns (the last view, the labels clicked)."""
    started = time.monotonic()
    clicked = []
    while time.monotonic() - started < GAME_S:
        v = waiting_for_me(page)
        if v["status"] != "ongoing":
            return v, clicked
        n = v["actions"]
        if any(p["wanted"] for p in v.get("tray") or []):
            page.locator("#you button[data-op=throw]").click()
            clicked.append("Throw the dice")
            wait_view(page, "v.actions > %d || !(v.tray || []).some(p => p.wanted)" % n, 60000)
            continue
        choice = pick(v["you"])
        try:
            page.locator("#you .choices button:not([disabled])", has_text=choice["label"]
                         ).first.click(timeout=15000)
        except PlaywrightTimeout:
            # The bot's seat acts too: a choice the page offered can go before the click
            # lands (the buttons redrawn under the pointer). A person looks again; so does
            # this one, unless the choice is still offered and the click still failed.
            if choice["label"] in offered_labels(page):
                raise
            continue
        if choice.get("then"):
            page.locator("#you .choices .then button:not([disabled])").first.click()
        clicked.append(choice["label"])
        try:
            wait_view(page, "v.actions > %d || v.status !== 'ongoing' || "
                      "(v.tray || []).some(p => p.wanted)" % n, 60000)
        except Exception:
            raise AssertionError("%r did not move the game: %s" % (
                choice["label"], json.dumps(page.evaluate("window.fairytable.view"))[:3000]))
    raise AssertionError("the game did not end in %d s; clicked %s" % (GAME_S, clicked))


@pytest.mark.parametrize("players", [1, 2])
def test_a_person_plays_a_whole_fairytale_game_by_clicks_on_a_phone(tmp_path, browser,
                                                                    players):
    bots = ["--bots", "1"] if players == 2 else []
    host = Host(tmp_path, "--game", "fairytale", "--players", str(players), *bots,
                "--setup", setup_file(tmp_path, SIX_DAYS, "six-days"), "--seed", "9", "--new",
                "--pace", "0").start()
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(host.links["p1"])
        live(page)
        final, clicked = play(page, "p1")
        assert final["status"] == "finished"
        # The person chose a character, flipped the days' events, stepped onto the map and
        # ended turns: the whole game went through their clicks.
        assert clicked[0].endswith(")") and "health" in clicked[0], clicked[:3]
        assert len([c for c in clicked if c.startswith("Flip the event")]) >= 3, clicked
        assert [c for c in clicked if c.startswith(("Step to", "Attack with"))], clicked
        page.wait_for_selector("#turn:has-text('Game over')", timeout=30000)
        log = page.inner_text("#log")
        assert "Epilogue" in log, log[-1500:]
        body = page.inner_text("body")
        assert not codes_in(body), codes_in(body)
        shot(page, "fairytale-whole-game-%dp" % players, full=True)
    finally:
        host.stop()
    assert "Traceback" not in host.log(), host.log()[-3000:]
