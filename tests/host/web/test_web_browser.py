"""The web table in a browser (Playwright driving Debian's chromium) against a running host on
the virtual table: what the page draws, mismatches, tiles going offline and back, reconnecting
after the host is killed, the staff page. Screenshots land in tests/artifacts/ (git-ignored)."""

import os
import pty

from mpy import REPO

from web_helpers import Host

ARTIFACTS = os.path.join(REPO, "tests", "artifacts")


def shot(page, name, full=False):
    os.makedirs(ARTIFACTS, exist_ok=True)
    page.wait_for_timeout(300)
    page.screenshot(path=os.path.join(ARTIFACTS, name + ".png"), full_page=full)


def live(page, timeout=60000):
    """Connected to the table. Polled on a timer: on a loaded machine a page's animation
    frames (which a plain wait for a selector or a function rides on) come too seldom."""
    page.wait_for_function("() => { const c = document.querySelector('#conn'); "
                           "return c && c.dataset.state === 'up'; }", polling=250,
                           timeout=timeout)


def wait_view(page, expression, timeout=60000):
    page.wait_for_function("() => { const v = window.fairytable.view; return v && (%s); }"
                           % expression, polling=250, timeout=timeout)


def test_storybook_page_draws_49_cells_and_the_kiosk_fits(tmp_path, browser):
    host = Host(tmp_path, "--bots", "1", "--seed", "3", "--new", "--pace", "0").start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(host.url)
        live(page)
        assert page.locator("[data-cell]").count() == 49
        assert page.locator("[data-cell='0,0']").count() == 1
        assert page.locator("[data-cell='6,6']").count() == 1
        # The cells' numbers along the board, as the sentences name cells ("on [2, 3]"):
        # column 2 below cell [2, 0], row 3 left of cell [0, 3].
        assert page.locator("#board .axis.col").all_inner_texts() == [str(i) for i in range(7)]
        assert page.locator("#board .axis.row").all_inner_texts() == [str(i) for i in range(7)]
        col = page.locator("#board .axis.col").nth(2).bounding_box()
        row = page.locator("#board .axis.row").nth(3).bounding_box()
        below = page.locator("[data-cell='2,0']").bounding_box()
        beside = page.locator("[data-cell='0,3']").bounding_box()
        assert col["y"] >= below["y"] + below["height"] and \
            abs(col["x"] + col["width"] / 2 - (below["x"] + below["width"] / 2)) < 2
        assert row["x"] + row["width"] <= beside["x"] and \
            abs(row["y"] + row["height"] / 2 - (beside["y"] + beside["height"] / 2)) < 2
        wait_view(page, "v.actions >= 1", 90000)
        shot(page, "storybook-spectator")
        # A name too long for its cell breaks where a hyphen shows (soft hyphens), not
        # anywhere: "Cro-co-dile", never "Croco dile"; short words and pairs stay whole.
        shy = page.evaluate("['The Crocodile', 'Cheshire Cat', 'Gentleman Starkey', "
                            "'Mr. Smee', 'Hatter'].map(window.fairytable.shy)")
        assert [w.replace("\u00ad", "-") for w in shy] == [
            "The Cro-co-dile", "Che-shire Cat", "Gentle-man Star-key", "Mr. Smee", "Hatter"]
        # (Read at once: the view and the board it drew, between two of its messages.)
        labels, named = page.evaluate(
            "[[...document.querySelectorAll('#board .piece .label')].map(e => "
            "e.textContent.replaceAll('\u00ad', '')), window.fairytable.view.cells.flatMap("
            "c => c.items.filter(it => it.kind !== 'wall').map(it => it.label))]")
        assert sorted(labels) == sorted(named), (labels, named)
        # A phone's width, then the desktop's again (a window resized, a phone turned): the
        # board grows back to the size a fresh page has.
        wide = page.locator("[data-cell='0,0']").bounding_box()["width"]
        # A wide window: the board as tall as the window lets it be (no longer 76 px cells
        # whatever the screen), its last row on the screen.
        board = page.locator("#board").bounding_box()
        assert wide > 76 and board["y"] + board["height"] <= 800, (wide, board)
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_function("() => document.querySelector(\"[data-cell='0,0']\")"
                               ".getBoundingClientRect().width < %d" % wide)
        page.set_viewport_size({"width": 1280, "height": 800})
        page.wait_for_function("() => document.querySelector(\"[data-cell='0,0']\")"
                               ".getBoundingClientRect().width === %d" % wide, timeout=10000)
        # The villain's link: the seat's controls, in the kiosk layout of the Pi's screen.
        kiosk = browser.new_page(viewport={"width": 1024, "height": 600})
        kiosk.goto(host.links["villain"].replace("/#", "/kiosk#"))
        live(kiosk)
        kiosk.wait_for_selector("#you .choices button")
        for b in kiosk.locator("#you button, #you [data-cell]").all():
            if not b.is_visible():
                continue
            box = b.bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44, box
        for c in kiosk.locator("[data-cell]").all()[:3]:
            box = c.bounding_box()
            assert box["width"] >= 44 and box["height"] >= 44
        board = kiosk.locator("#board").bounding_box()
        assert board["y"] + board["height"] <= 600 and board["x"] + board["width"] <= 1024
        assert kiosk.locator("#board .axis").count() == 0    # the cells keep a finger's size
        shot(kiosk, "storybook-kiosk-seat")
        tv = browser.new_page(viewport={"width": 1920, "height": 1080})
        tv.goto(host.url + "tv")
        live(tv)
        shot(tv, "storybook-tv")
        # Chromium inflates: its pages take the views packed (one compression per change on
        # the table for all of them). A browser that cannot reads them as text, the same.
        assert page.evaluate("window.fairytable.packed") is True
        old = browser.new_page(viewport={"width": 390, "height": 844})
        old.add_init_script("delete window.DecompressionStream")
        old.goto(host.url)
        live(old)
        assert old.evaluate("window.fairytable.packed") is False
        wait_view(old, "v.actions >= 1")
        assert old.locator("[data-cell]").count() == 49
        assert old.evaluate("window.fairytable.view.game_id") == \
            page.evaluate("window.fairytable.view.game_id")
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
        assert page.locator("#you button[data-button=roll]").count() == 0
        # The hint says what the table waits for, not "Click a cell to tap it".
        assert page.locator("#hint").inner_text() == \
            "The table waits for the dice: press Throw the dice, or click a lit pocket."
        # The table's dice, thrown into the pockets, one for each player (tied rollers throw
        # again: the whole game by clicks plays that on).
        page.locator("#you button[data-op=throw]").click()
        wait_view(page, "v.log.some(l => l.startsWith('Rolls for the turn order: '))")
        shot(page, "royale-seat")
    finally:
        host.stop()


def test_a_mismatch_shows_its_sentence_and_cells_and_clears(tmp_path, browser):
    # No bots. The hero lifts its leader off the middle of the board: the page names it and
    # its cell until it is put back (a piece the person's hand moved is theirs: the virtual
    # players leave it for a minute).
    host = Host(tmp_path, "--bots", "0", "--seed", "4", "--new").start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(host.links["hero"])
        live(page)
        wait_view(page, "v.mismatches.length === 0 && v.cells.some(c => c.cell[0] === 3 && "
                  "c.cell[1] === 3 && c.items.length)")
        leader = page.evaluate("window.fairytable.view.cells.find(c => c.cell[0] === 3 && "
                               "c.cell[1] === 3).items[0].id")
        page.locator("#you details.gestures summary").click()
        page.locator("#you button[data-tool=lift]").click()
        page.locator("[data-cell='3,3']").click()
        page.wait_for_selector("#mismatches .mm", timeout=30000)
        text = page.inner_text("#mismatches")
        assert "[3, 3]" in text and "put it back" in text
        assert "mismatch" in page.get_attribute("[data-cell='3,3']", "class")
        shot(page, "storybook-mismatch")
        # The lifted card is in the hand: put it back where it was.
        page.locator("#you .hand button[data-card='%s']" % leader).click()
        page.locator("[data-cell='3,3']").click()
        wait_view(page, "v.mismatches.length === 0")
        assert page.locator("#mismatches .mm").count() == 0
        assert "mismatch" not in page.get_attribute("[data-cell='3,3']", "class")
    finally:
        host.stop()


def test_a_refused_move_is_said_beside_its_cell_and_the_card_stays_in_hand(tmp_path, browser):
    """A card put where the rules do not allow it: the rule in words beside that cell, nothing
    goes down, the card is still in the hand."""
    host = Host(tmp_path, "--bots", "1", "--seed", "4", "--new", "--pace", "0").start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(host.links["villain"])
        live(page)
        # A seat's page draws its own view from the first: never the spectators' view the
        # table sends before it has read the page's hello.
        assert page.evaluate("window.fairytable.first") == "seat"
        # The villain's own turn (the hero bot moves first: on a loaded machine, seconds
        # after the page is live), so the refusal is the rule's, said at the cell.
        wait_view(page, "v.you.hand.length > 0 && v.mismatches.length === 0 && "
                  "v.actors.length === 1 && v.actors[0] === 'villain' && !v.busy", 90000)
        card = page.locator("#you .hand button").first
        cid = card.get_attribute("data-card")
        before = page.evaluate("window.fairytable.view.actions")
        card.click()
        page.locator("[data-cell='0,0']").click()
        # The bubble and the cell's mark last 6 s: read them in the page the moment the
        # bubble shows, in one go (a loaded machine's round trips could outlast them).
        seen = page.wait_for_function("""() => {
            const r = document.querySelector('#refusal');
            if (!r || r.hidden) return null;
            const c = document.querySelector("[data-cell='0,0']");
            const box = e => { const b = e.getBoundingClientRect();
                               return {x: b.x, y: b.y, width: b.width, height: b.height}; };
            return {marked: c.className, bubble: box(r), cell: box(c), words: r.innerText};
        }""", polling=50, timeout=15000).json_value()
        marked, bubble, cell, words = (seen["marked"], seen["bubble"], seen["cell"],
                                       seen["words"])
        assert words.endswith(".") and "_" not in words, words
        assert "refused" in marked, (marked, words)
        assert abs(bubble["y"] - (cell["y"] + cell["height"])) < 40, (bubble, cell)
        shot(page, "storybook-refusal")
        page.wait_for_timeout(1500)
        v = page.evaluate("window.fairytable.view")
        assert v["actions"] == before and not [c for c in v["cells"] if c["cell"] == [0, 0]
                                              and c["items"]]
        assert cid in [c["id"] for c in v["you"]["hand"]]

    finally:
        host.stop()


def refusal_said(page, timeout=30000):
    """The refusal's words the moment its bubble shows, and the cells it marks."""
    return page.wait_for_function("""() => {
        const r = document.querySelector('#refusal');
        if (!r || r.hidden) return null;
        return {words: r.innerText, marked: [...document.querySelectorAll('.cell.refused')]
                .map(c => c.dataset.cell)};
    }""", polling=100, timeout=timeout).json_value()


def test_a_refused_gesture_is_said_on_the_pages_of_the_hand_that_made_it(tmp_path, browser):
    """The rules refuse a gesture the table read (a tap that would turn a hidden card over
    too soon). Made by a hand at the table itself (here typed on the host's terminal: the
    virtual table's hands), every page says why beside the cell, the spectators' (a TV)
    too. Made from a seat's page, that page says why and the spectators' does not. A page
    opened afterwards does not bring an old refusal up."""
    master, slave = pty.openpty()
    host = Host(tmp_path, "--bots", "1", "--seed", "5", "--new", "--pace", "0",
                stdin=slave).start()
    os.close(slave)
    try:
        seat = browser.new_page(viewport={"width": 390, "height": 844})
        seat.goto(host.links["villain"])
        live(seat)
        tv = browser.new_page(viewport={"width": 1280, "height": 800})
        tv.goto(host.url)
        live(tv)
        wait_view(seat, "v.knowledge.phase === 'choose_plot_twist' && "
                  "v.actors[0] === 'villain'", 90000)
        seat.locator("#you .choices button[data-choice]").first.click()
        # The Hero bot hides two cards ([3, 2] and [2, 3]); then the Villain plays two cards
        # before anyone may turn a hidden card over.
        wait_view(seat, "v.knowledge.phase === 'setup_play' && v.actors.length === 1 && "
                  "v.actors[0] === 'villain' && v.mismatches.length === 0 && !v.busy", 90000)
        before = seat.evaluate("window.fairytable.view.actions")
        os.write(master, b"tap 3 2\n")         # a hand at the table taps the hidden card
        for page in (seat, tv):
            got = refusal_said(page)
            assert got["words"] == "Not yet: the Villain plays two cards first.", got
            assert got["marked"] == ["3,2"], got
        assert host.table()["refusal"]["seat"] is None      # nobody's on the web
        for page in (seat, tv):
            page.wait_for_function("() => document.querySelector('#refusal').hidden",
                                   polling=250, timeout=20000)
        late = browser.new_page(viewport={"width": 1280, "height": 800})
        late.goto(host.url)
        live(late)
        late.wait_for_timeout(1500)
        assert late.evaluate("document.querySelector('#refusal').hidden")
        assert late.evaluate("window.fairytable.view.refusal.text").startswith("Not yet")

        # The same tap from the Villain's page: said there, and not on the TV.
        seat.locator("[data-cell='3,2']").click()
        got = refusal_said(seat)
        assert got["words"] == "Not yet: the Villain plays two cards first.", got
        assert host.table("villain")["refusal"]["seat"] == "villain"
        assert host.table()["refusal"] is None
        tv.wait_for_timeout(1500)
        assert tv.evaluate("document.querySelector('#refusal').hidden")
        assert seat.evaluate("window.fairytable.view.actions") == before   # nothing applied
    finally:
        host.stop()
        os.close(master)


def test_a_wrong_seat_link_says_so_and_watches(tmp_path, browser):
    """A seat link whose token is wrong: the page says why in words and shows the table as
    a spectator's, at once (no game moves here to send another view)."""
    host = Host(tmp_path, "--bots", "0", "--seed", "4", "--new").start()
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        link = host.links["villain"]
        page.goto(link[:link.index("token=") + len("token=")] + "1_forged")
        live(page)
        assert page.locator("[data-cell]").count() == 49
        assert page.evaluate("window.fairytable.first") == "watching"
        # Said until the page is left, and no seat is shown as the page's own.
        page.wait_for_selector("#notice:not([hidden])", timeout=15000)
        words = page.inner_text("#notice")
        assert words.startswith("This link does not open Villain's seat") and \
            words.endswith("."), words
        assert " you" not in page.inner_text("#seats"), page.inner_text("#seats")
        shot(page, "wrong-seat-link")
    finally:
        host.stop()


def test_a_tile_switched_off_shows_offline_and_comes_back(tmp_path, browser):
    host = Host(tmp_path, "--bots", "0", "--seed", "4", "--new").start()
    try:
        page = browser.new_page()
        page.goto(host.url)
        live(page)
        page.wait_for_selector("#tiles .tiles[data-online='7']")
        uid = host.staff_state()["tiles"][2]["uid"]
        status, body = host.staff("tile_off", {"tile": uid})
        assert status == 200, body
        page.wait_for_selector("#tiles .tiles[data-online='6']", timeout=30000)
        words = page.inner_text("#tiles")
        assert "6 of 7 tiles online" in words and "cells [0, 2]" in words, words
        assert uid not in page.inner_text("body")      # tile ids are the staff page's
        shot(page, "tile-offline")
        status, body = host.staff("tile_on", {"tile": uid})
        assert status == 200, body
        page.wait_for_selector("#tiles .tiles[data-online='7']", timeout=60000)
    finally:
        host.stop()


def test_the_page_reconnects_after_the_host_is_killed(tmp_path, browser):
    host = Host(tmp_path, "--bots", "0", "--seed", "4", "--new").start()
    try:
        page = browser.new_page()
        page.goto(host.links["hero"])
        live(page)
        page.locator("#you .choices button[data-choice]").first.click()
        wait_view(page, "v.actions >= 1")
        game_id = page.evaluate("window.fairytable.view.game_id")
        host.kill9()
        page.wait_for_selector("#conn[data-state=down]", timeout=30000)
        again = Host(tmp_path, "--bots", "0", port=host.port, journal=host.journal).start()
        try:
            # (the page retries with a growing pause; a loaded machine restarts slowly)
            live(page, 120000)
            wait_view(page, "v.game_id === %d && v.actions >= 1" % game_id, 120000)
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
        # On loopback a phone cannot open the seat links: a sentence says so, no QR codes.
        page.wait_for_selector("#seats .seat a")
        assert page.locator("#seats .seat").count() == 2
        assert page.locator("#seats .seat svg").count() == 0
        reach = page.inner_text("#reach")
        assert "a phone cannot open these links" in reach and "--web 0.0.0.0:" in reach, reach
        # The game by its title, here and in the journal; never its id.
        assert page.inner_text("#game").startswith("Storybook Battles · game ")
        kinds = page.locator("#games td:nth-child(2)").all_inner_texts()
        assert kinds and set(kinds) == {"Storybook Battles"}, kinds
        # No more bots than players.
        players = page.eval_on_selector("#ng-players", "s => s.value")
        page.fill("#ng-bots", "4")
        assert page.eval_on_selector("#ng-bots", "b => [b.max, b.value]") == [players, players]
        assert page.locator("button[data-op=resume]").is_disabled()   # it runs already
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
