"""The web table in a browser (Playwright driving Debian's chromium) against a running host on
the virtual table: what the page draws, mismatches, tiles going offline and back, reconnecting
after the host is killed, the staff page. Screenshots land in tests/artifacts/ (git-ignored)."""

import os

from mpy import REPO

from web_helpers import Host

ARTIFACTS = os.path.join(REPO, "tests", "artifacts")


def shot(page, name, full=False):
    os.makedirs(ARTIFACTS, exist_ok=True)
    page.wait_for_timeout(300)
    page.screenshot(path=os.path.join(ARTIFACTS, name + ".png"), full_page=full)


def live(page):
    page.wait_for_selector("#conn[data-state=up]", timeout=30000)


def wait_view(page, expression, timeout=60000):
    page.wait_for_function("() => { const v = window.fairytable.view; return v && (%s); }"
                           % expression, timeout=timeout)


def test_storybook_page_draws_49_cells_and_the_kiosk_fits(tmp_path, browser):
    host = Host(tmp_path, "--bots", "1", "--seed", "3", "--new", "--pace", "0").start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(host.url)
        live(page)
        assert page.locator("[data-cell]").count() == 49
        assert page.locator("[data-cell='0,0']").count() == 1
        assert page.locator("[data-cell='6,6']").count() == 1
        wait_view(page, "v.actions >= 1", 90000)
        shot(page, "storybook-spectator")
        # The villain's link: the seat's controls, in the kiosk layout of the Pi's screen.
        kiosk = browser.new_page(viewport={"width": 1024, "height": 600})
        kiosk.goto(host.links["villain"].replace("/#", "/kiosk#"))
        live(kiosk)
        kiosk.wait_for_selector("#you button[data-button=end_turn]")
        for b in kiosk.locator("#you button, #you [data-cell]").all():
            box = b.bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44, box
        for c in kiosk.locator("[data-cell]").all()[:3]:
            box = c.bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44
        board = kiosk.locator("#board").bounding_box()
        assert board["y"] + board["height"] <= 600 and board["x"] + board["width"] <= 1024
        shot(kiosk, "storybook-kiosk-seat")
        tv = browser.new_page(viewport={"width": 1920, "height": 1080})
        tv.goto(host.url + "tv")
        live(tv)
        shot(tv, "storybook-tv")
    finally:
        host.stop()


def test_royale_page_draws_the_diamond_and_the_tray(tmp_path, browser):
    host = Host(tmp_path, "--game", "royale", "--players", "3", "--bots", "2", "--seed", "5",
                "--pace", "0", "--new").start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        page.goto(host.links["red"])
        live(page)
        assert page.locator("#board [data-cell]").count() == 25
        cells = set(page.eval_on_selector_all("[data-cell]", "els => els.map(e => e.dataset.cell)"))
        assert cells == set("%d,%d" % (x, y) for x in range(-3, 4) for y in range(-3, 4)
                            if abs(x) + abs(y) <= 3)
        assert page.locator("#tray .pocket").count() == 3
        page.locator("#you button[data-button=roll]").click()
        wait_view(page, "v.phase !== 'order'")
        shot(page, "royale-seat")
    finally:
        host.stop()


def test_a_mismatch_shows_its_sentence_and_cells_and_clears(tmp_path, browser):
    # No bots: nobody tidies the table but the person at the page.
    host = Host(tmp_path, "--bots", "0", "--seed", "4", "--new").start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(host.links["hero"])
        live(page)
        wait_view(page, "v.mismatches.length === 0 && v.you.pool && v.you.pool.length > 0")
        card = page.locator("#you .hand button").first
        card.click()
        page.locator("[data-cell='0,0']").click()
        page.wait_for_selector("#mismatches .mm", timeout=30000)
        text = page.inner_text("#mismatches")
        assert "[0, 0]" in text and "Lift" in text
        assert "mismatch" in page.get_attribute("[data-cell='0,0']", "class")
        shot(page, "storybook-mismatch")
        page.locator("#you button[data-tool=lift]").click()
        page.locator("[data-cell='0,0']").click()
        wait_view(page, "v.mismatches.length === 0")
        assert page.locator("#mismatches .mm").count() == 0
        assert "mismatch" not in page.get_attribute("[data-cell='0,0']", "class")
    finally:
        host.stop()


def test_a_tile_switched_off_shows_offline_and_comes_back(tmp_path, browser):
    host = Host(tmp_path, "--bots", "0", "--seed", "4", "--new").start()
    try:
        page = browser.new_page()
        page.goto(host.url)
        live(page)
        page.wait_for_selector("#tiles .tile[data-online='1']")
        uid = page.locator("#tiles .tile").nth(2).get_attribute("data-tile")
        status, body = host.staff("tile_off", {"tile": uid})
        assert status == 200, body
        page.wait_for_selector("#tiles .tile[data-tile='%s'][data-online='0']" % uid,
                               timeout=30000)
        assert "offline" in page.inner_text("#tiles .tile[data-tile='%s']" % uid)
        shot(page, "tile-offline")
        status, body = host.staff("tile_on", {"tile": uid})
        assert status == 200, body
        page.wait_for_selector("#tiles .tile[data-tile='%s'][data-online='1']" % uid,
                               timeout=60000)
    finally:
        host.stop()


def test_the_page_reconnects_after_the_host_is_killed(tmp_path, browser):
    host = Host(tmp_path, "--bots", "0", "--seed", "4", "--new").start()
    try:
        page = browser.new_page()
        page.goto(host.links["hero"])
        live(page)
        page.locator("#you button[data-button=end_turn]").click()
        wait_view(page, "v.actions >= 1")
        game_id = page.evaluate("window.fairytable.view.game_id")
        host.kill9()
        page.wait_for_selector("#conn[data-state=down]", timeout=30000)
        again = Host(tmp_path, "--bots", "0", port=host.port, journal=host.journal).start()
        try:
            live(page)
            wait_view(page, "v.game_id === %d && v.actions >= 1" % game_id)
            assert page.evaluate("window.fairytable.view.you.seat") == "hero"
        finally:
            again.stop()
    finally:
        host.stop()


def test_the_staff_page_asks_for_the_pin(tmp_path, browser):
    host = Host(tmp_path, "--bots", "1", "--seed", "4", "--new").start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(host.url + "staff")
        page.fill("#pin", "not the pin")
        page.click("#login button")
        page.wait_for_selector("#loginerr:has-text('wrong')")
        assert page.locator("#panel").is_hidden()
        page.fill("#pin", host.pin)
        page.click("#login button")
        page.wait_for_selector("#tiles tr[data-tile]")
        assert page.locator("#tiles tr[data-tile]").count() == 7
        page.wait_for_selector("#seats .seat svg")
        assert page.locator("#seats .seat").count() == 2
        page.click("button[data-op=pause]")
        host.wait_for(lambda v: v["paused"])
        page.click("button[data-op=resume]")
        host.wait_for(lambda v: not v["paused"])
        page.locator("button[data-replay]").first.click()
        page.wait_for_selector("#rboard .rcell")
        assert page.locator("#rboard [data-cell]").count() == 49
        shot(page, "staff", full=True)
    finally:
        host.stop()
