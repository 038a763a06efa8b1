"""The staff page and the seat links on a running host (real virtual tiles, real Chromium),
in token mode (`--web-token-file`), Storybook with the hero a bot and the villain played
through its seat's controls (so the game moves only when the test says): the printed staff link
opens the staff page, its buttons stay under the pointer while the game moves, the tiles fit
a 1280 px screen and the 1024 x 600 kiosk, the bots stay idle while paused, a finished game
is listed as finished, and a new game gives new seat links (an old one says so).
Screenshots land in tests/artifacts/ (git-ignored)."""

import json
import os
import re
import time

import pytest

from mpy import REPO
from web_helpers import Host, seat_words

ARTIFACTS = os.path.join(REPO, "tests", "artifacts")


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("webstaff")
    h = Host(tmp, "--web-token-file", str(tmp / "web.token"), "--bots", "1", "--seed", "5",
             "--new", "--pace", "1500").start()
    h.web = open(str(tmp / "web.token")).read().strip()
    h.staff_link = re.search(r"^\s*staff: (http\S+)", h.log(), re.M).group(1)
    yield h
    h.stop()


def view(host):
    status, body = host.request("GET", "/api/table", headers={"X-Web-Token": host.web})
    assert status == 200, body
    return body


def staff(host, op, body=None):
    return host.request("POST", "/api/staff/" + op, body or {},
                        {"X-Staff-Pin": host.pin, "X-Web-Token": host.web})


def wait_for(host, predicate, timeout=90, what="the table"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = view(host)
        if predicate(v):
            return v
        time.sleep(0.2)
    raise AssertionError("%s did not come within %d s; log:\n%s"
                         % (what, timeout, "\n".join(v["log"][-15:])))


def control(host, body, seat="villain"):
    return host.request("POST", "/api/control", dict(body, seat=seat), {
        "X-Web-Token": host.web, "X-Seat-Token": host.token(seat)})


def seat_view(host, seat="villain"):
    status, body = host.request("GET", "/api/table?seat=" + seat, headers={
        "X-Web-Token": host.web, "X-Seat-Token": host.token(seat)})
    assert status == 200, body
    return body


def villains_play_turn(host):
    """Play the villain's part of the setup (its plot twist, its two cards face up) through
    its controls until it is the villain's turn in the play phase; the view then."""
    while True:
        v = wait_for(host, lambda x: x["actors"] == ["villain"] and not x["mismatches"] and
                     x["bot_request"] is None, timeout=120, what="the villain's turn")
        phase = v["knowledge"]["phase"]
        if phase == "play":
            return v
        you = seat_view(host)["you"]
        if phase == "choose_plot_twist":
            status, body = control(host, dict(you["choices"][0]["control"]))
        else:
            card = sorted((c["id"], c["targets"][0]) for c in you["hand"] if c["targets"])[0]
            status, body = control(host, {"op": "place", "cell": card[1], "card": card[0]})
        assert status == 200, body
        before = v["actions"]
        wait_for(host, lambda x, before=before: x["actions"] > before, what="the villain's move")


def shot(page, name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    page.wait_for_timeout(300)
    page.screenshot(path=os.path.join(ARTIFACTS, name + ".png"), full_page=True)


def open_staff(browser, host, width=1280, height=800):
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(host.staff_link)
    page.fill("#pin", host.pin)
    page.click("#login button")
    page.wait_for_selector("#tiles tr[data-tile]", timeout=30000)
    return page


def test_the_bots_and_their_hands_stay_idle_while_paused(host):
    v = villains_play_turn(host)
    status, body = control(host, {"op": "button", "name": "end_turn"})
    assert status == 200, body
    # The hero's bot takes its turn: pause as it acts.
    wait_for(host, lambda x: x["actions"] >= v["actions"] + 2 or x["bot_request"],
             what="the hero's bot at work")
    status, body = staff(host, "pause")
    assert status == 200, body
    paused = wait_for(host, lambda v: v["paused"], what="the pause")
    # A move the hands were carrying out when staff paused is finished; nothing after it.
    time.sleep(2.0)
    settled = view(host)
    time.sleep(7.0)                        # longer than a bot's patience (5 s)
    still = view(host)
    assert still["paused"] and still["actions"] == settled["actions"], (settled["actions"],
                                                                        still["actions"])
    assert still["actions"] <= paused["actions"] + 1
    assert still["mismatches"] == [], still["mismatches"]
    unplaced = [i for c in still["cells"] for i in c["items"] if i.get("unplaced")]
    assert unplaced == []
    since = still["log"][max(i for i, line in enumerate(still["log"])
                             if "paused by staff" in line) + 1:]
    for line in since:
        assert "asks" not in line and "not applied" not in line and "again" not in line, since
    status, body = staff(host, "resume")
    assert status == 200, body
    wait_for(host, lambda v: v["actions"] > still["actions"] or v["status"] != "ongoing",
             what="the bots playing again")


def test_the_printed_staff_link_opens_the_staff_page_with_the_right_pin(host, browser):
    assert "#web=" + host.web in host.staff_link
    page = open_staff(browser, host)
    assert page.locator("#panel").is_visible()
    assert page.locator("#tiles tr[data-tile]").count() == 7
    assert page.inner_text("#loginerr") == ""
    # Without the token (a link copied without its fragment) the page says what is missing.
    bare = browser.new_page()
    bare.goto(host.url + "staff")
    bare.fill("#pin", host.pin)
    bare.click("#login button")
    bare.wait_for_selector("#loginerr:has-text('web token')")
    assert bare.locator("#panel").is_hidden()


def test_the_step_through_buttons_stay_under_the_pointer_while_the_game_changes(host,
                                                                                browser):
    page = open_staff(browser, host)
    page.wait_for_selector("button[data-replay]")
    page.evaluate("document.querySelector('button[data-replay]').kept = true")
    tiles = page.evaluate("Array.from(document.querySelectorAll('[data-led]'))"
                          ".map(b => { b.kept = true; return b.dataset.led; })")
    assert len(tiles) == 7
    # The game moves on (the villain ends its turn, the hero's bot plays); the list follows
    # with the same buttons in place.
    v = villains_play_turn(host)
    status, body = control(host, {"op": "button", "name": "end_turn"})
    assert status == 200, body
    for n in (1, 2):
        # The row of the game on the table (its step-through button's) shows the new count.
        page.wait_for_function("n => parseInt(document.querySelector('button[data-replay]')"
                               ".closest('tr').children[2].textContent) >= n",
                               arg=v["actions"] + n, polling=250, timeout=120000)
        assert page.evaluate("document.querySelector('button[data-replay]').kept === true")
    page.wait_for_timeout(4500)            # two more refreshes of the tiles' numbers
    assert page.evaluate("Array.from(document.querySelectorAll('[data-led]'))"
                         ".every(b => b.kept === true)")
    assert page.evaluate("document.querySelector('button[data-replay]').kept === true")
    # A tile switched off and on again (as a tile first reporting its readers): its row says
    # so in place, and no button of the list is swapped out.
    for op, state in (("tile_off", "OFFLINE"), ("tile_on", "online")):
        status, body = staff(host, op, {"tile": tiles[0]})
        assert status == 200, body
        page.wait_for_function(
            "([uid, s]) => document.querySelector('#tiles tr[data-tile=\"' + uid + '\"] "
            "td.online').textContent === s", arg=[tiles[0], state], polling=250,
            timeout=60000)
    page.wait_for_function("document.querySelector('#tiles tr[data-tile] td.readers')"
                           ".textContent.startsWith('all 7')", polling=250, timeout=60000)
    assert page.evaluate("Array.from(document.querySelectorAll('[data-led]'))"
                         ".every(b => b.kept === true)")


@pytest.mark.parametrize("width,height", [(1280, 800), (1024, 600)])
def test_the_tiles_table_fits_the_screen_with_its_led_test_in_view(host, browser, width,
                                                                    height):
    page = open_staff(browser, host, width, height)
    page.wait_for_timeout(500)
    wide = page.evaluate("[document.documentElement.scrollWidth, "
                         "document.documentElement.clientWidth]")
    assert wide[0] <= wide[1], wide       # no horizontal scrolling
    for button in page.locator("#tiles button").all():
        box = button.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, box
    # Nothing inside scrolls sideways either (the LED test never hides in a scroller).
    assert page.evaluate("Array.from(document.querySelectorAll('#panel *'))"
                         ".every(e => e.scrollWidth <= e.clientWidth + 1 || "
                         "getComputedStyle(e).overflowX === 'visible')")
    shot(page, "staff-%dx%d" % (width, height))


def test_a_finished_game_is_listed_as_finished_and_a_new_game_has_new_seat_links(host,
                                                                                 browser):
    page = open_staff(browser, host)
    old_links = dict(host.links)
    page.wait_for_function("() => document.querySelectorAll('#seats .seat a').length === 2",
                           polling=250, timeout=30000)
    first_seats = page.eval_on_selector_all("#seats .seat a", "as => as.map(a => a.href)")
    assert sorted(first_seats) == sorted(old_links.values())
    status, body = staff(host, "end")
    assert status == 200, body
    game_id = view(host)["game_id"]
    row = "button[data-replay='%d']" % game_id
    page.wait_for_function("sel => document.querySelector(sel).closest('tr').textContent"
                           ".includes('finished')", arg=row, polling=250, timeout=30000)
    assert "playing" not in page.inner_text("#games")
    # A new game from the staff page: new links, printed and on the staff page's QR codes.
    page.fill("#newgame input[name=bots]", "1")
    page.click("#newgame button[type=submit]")
    v = wait_for(host, lambda x: not x["attract"] and x["game_id"] != game_id,
                 what="the new game")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        printed = dict((q, url) for q, (_, url) in seat_words(
            host.log().split("game %d: new seat links" % v["game_id"])[-1]).items())
        if len(printed) == 2:
            break
        time.sleep(0.3)
    assert set(printed) == set(old_links)
    assert not set(printed.values()) & set(old_links.values())
    page.wait_for_function("old => Array.from(document.querySelectorAll('#seats .seat a'))"
                           ".every(a => !old.includes(a.href))", arg=first_seats, timeout=30000)
    new_seats = page.eval_on_selector_all("#seats .seat a", "as => as.map(a => a.href)")
    assert sorted(new_seats) == sorted(printed.values())
    shot(page, "staff-new-game")
    # The old link of the seat a person now plays: the page says so and controls nothing.
    person = [s["seat"] for s in v["seats"] if not s["bot"]][0]
    old = browser.new_page(viewport={"width": 1280, "height": 800})
    old.goto(old_links[person])
    old.wait_for_function("() => !document.querySelector('#notice').hidden", polling=250,
                          timeout=60000)
    text = old.inner_text("#notice")
    assert "earlier game" in text and "staff" in text, text
    old.wait_for_function("() => window.fairytable.view", polling=250, timeout=60000)
    assert old.evaluate("window.fairytable.view.viewer.seat") is None
    assert old.evaluate("window.fairytable.view.you") is None
    assert "Your turn" not in old.inner_text("#turn")
    shot(old, "old-seat-link")
    status, body = host.request("GET", "/api/table?seat=" + person, headers={
        "X-Web-Token": host.web, "X-Seat-Token": re.search(r"token=(\w+)",
                                                           old_links[person]).group(1)})
    assert status == 410 and "earlier game" in body["error"]
    new = browser.new_page(viewport={"width": 1280, "height": 800})
    new.goto(printed[person])
    new.wait_for_function("() => window.fairytable.view && window.fairytable.view.you",
                          polling=250, timeout=60000)
    assert new.evaluate("window.fairytable.view.you.seat") == person
    assert new.locator("#notice").is_hidden()
    assert json.dumps(new.evaluate("window.fairytable.view.viewer")) == \
        json.dumps({"seat": person})
