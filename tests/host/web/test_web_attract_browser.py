"""The attract mode seen on a phone (real virtual tiles, real Chromium): nobody plays for
`--attract-after`, the page shows the demo game the table plays by itself with how to play;
"Play a game" on the seat's page starts the next game, and that page keeps its seat in it
(its link becomes the new game's: a reload still opens the seat)."""

import os
import re

from mpy import REPO
from web_helpers import Host

ARTIFACTS = os.path.join(REPO, "tests", "artifacts")


def test_the_demo_on_a_phone_and_play_a_game_keeps_the_seat(tmp_path, browser):
    # 0.05 minutes: the demo comes 3 s after the last move (the hero bot's first).
    host = Host(tmp_path, "--bots", "1", "--seed", "5", "--new", "--pace", "300",
                "--attract-after", "0.05").start()
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(host.links["villain"])
        page.wait_for_function("() => document.querySelector('#turn').textContent"
                               ".startsWith('A demo game')", polling=200, timeout=60000)
        assert page.inner_text("#turn") == "A demo game: the table plays Storybook Battles " \
                                           "by itself"
        assert page.inner_text("#facts").startswith(
            "To play: open a seat's link and press Play a game")
        # The demo moves on the page (its own cards, its last move in words).
        first = page.evaluate("() => window.fairytable.view.last")
        page.wait_for_function("w => window.fairytable.view.last !== w", arg=first,
                               polling=200, timeout=30000)
        assert "Nobody has played for 3 seconds" in page.inner_text("body")
        os.makedirs(ARTIFACTS, exist_ok=True)
        page.screenshot(path=os.path.join(ARTIFACTS, "attract-phone.png"), full_page=True)
        old_token = host.token("villain")

        page.get_by_role("button", name="Play a game").click()
        page.wait_for_function("() => !window.fairytable.view.attract && "
                               "window.fairytable.view.you", polling=200, timeout=30000)
        assert "You play Villain" in page.inner_text("#you")
        assert "in the next game" not in page.inner_text("#you")
        token = re.search(r"token=(\w+)", page.url).group(1)
        assert token != old_token and token.startswith("2_")     # game 2's link
        # A reload opens the same seat of the new game (no "earlier game" notice).
        page.reload()
        page.wait_for_function("() => window.fairytable.view && window.fairytable.view.you",
                               polling=200, timeout=30000)
        assert "earlier game" not in page.inner_text("body")
        assert "Villain pressed Play a game: a new game of Storybook Battles starts." in \
            host.log()
        assert "Staff started" not in host.log()     # a player did, and it was said once
    finally:
        host.stop()
