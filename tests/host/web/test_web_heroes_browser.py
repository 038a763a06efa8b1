"""A heroes game (Capture the Flag) in a browser (Playwright driving Debian's chromium) against
`fairytable run` on the virtual table: a seat on a 390 x 844 phone throws the dice and picks
its characters by clicks, a pick on a wrong cell is refused beside that cell and nothing is
put down; a spectator's page names the game, shows no action code and no tile id, and no
piece spills out of its cell. Screenshots land in tests/artifacts/ (git-ignored)."""

import re
import time

from test_web_browser import shot, wait_view
from web_helpers import Host


def live(page):
    """Connected to the table (polled on a timer: a busy page's animation frames may be
    too far apart for a wait on each frame)."""
    page.wait_for_function("() => window.fairytable && window.fairytable.connected",
                           polling=250, timeout=90000)


def view(page):
    return page.evaluate("window.fairytable.view")


def spills(page):
    """Cells whose pieces do not fit (walls excepted: they paint the whole cell)."""
    return page.evaluate("""() => [...document.querySelectorAll('.cell .items')]
        .filter(e => !e.querySelector('.piece.wall'))
        .filter(e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
        .map(e => e.parentElement.dataset.cell)""")


def test_a_heroes_seat_rolls_and_picks_by_clicks_on_a_phone_and_a_spectator_reads_words(
        tmp_path, browser):
    host = Host(tmp_path, "--game", "heroes", "--mode", "ctf", "--bots", "1", "--seed", "3",
                "--new", "--pace", "300").start()
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(host.links["red"])
        live(page)
        wait_view(page, "v.you && v.you.controls", 90000)
        refused_once = False
        deadline = time.monotonic() + 400
        while view(page)["knowledge"]["phase"] in ("pick_roll", "pick", "turn_roll"):
            assert time.monotonic() < deadline, view(page)["banner"]
            v = view(page)
            phase, hand = v["knowledge"]["phase"], v["you"]["hand"]
            if v["you"]["acting"] and any(p["wanted"] for p in v["tray"]):
                page.click("button[data-op=throw]")     # every roller's green die
            elif phase == "pick" and v["you"]["acting"] and hand:
                first = hand[0]
                page.click("button[data-card=%s]" % first["id"])
                lit = page.locator(".cell.target").count()
                assert lit == len(first["targets"]) > 0
                if not refused_once:
                    # Not a start cell: refused where the person clicked, nothing put down.
                    page.click('[data-cell="0,3"]')
                    page.wait_for_selector("#refusal:not([hidden])", timeout=30000)
                    assert "Red's characters start on" in page.inner_text("#refusal")
                    assert page.locator('[data-cell="0,3"].refused').count() == 1
                    shot(page, "heroes-ctf-seat-phone-refused")
                    assert view(page)["actions"] == v["actions"]
                    refused_once = True
                    page.click("button[data-card=%s]" % first["id"])
                page.click('[data-cell="%d,%d"]' % tuple(first["targets"][0]))
            page.wait_for_timeout(1500)
        assert refused_once
        wait_view(page, "v.knowledge.phase === 'play' && v.actions >= 6", 90000)
        v = view(page)
        assert sum(1 for c in v["cells"] for it in c["items"]
                   if it["kind"] == "figure" and it.get("owner") == "red") == 2
        box = page.locator("#you").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        shot(page, "heroes-ctf-seat-phone", full=True)

        spectator = browser.new_page(viewport={"width": 1280, "height": 800})
        spectator.goto(host.url)
        live(spectator)
        wait_view(spectator, "v.actions >= 6", 60000)
        spectator.wait_for_timeout(500)
        text = spectator.inner_text("body")
        assert "Battle Royale with hero teams" in text and "Capture the Flag" in text
        assert not re.search(r"\b[0-9a-f]{16}\b", text)          # tile ids are staff's
        assert not re.search(r"[A-Za-z]_[A-Za-z]", text), re.findall(r"\S*_\S*", text)
        assert "=" not in text
        assert spills(spectator) == []
        shot(spectator, "heroes-ctf-spectator")
        assert spills(page) == []
    finally:
        host.stop()
