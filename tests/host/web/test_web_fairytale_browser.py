"""Fairytale Games: The Battle Royale in a browser (Playwright, Debian's chromium) on the virtual
table: the real tile firmware under MicroPython, the host's web table, a person's clicks.

A seat's phone (390 x 844) is its character board, and it plays a battle against a bot by
clicks: a battle started at the Dragon Inn, attacks whose cards the hands lay on the seat's
reader, a defence, the kill and the Victory card taken. A TV watches a short game of bots:
the map drawn on its 49 cells as the locations are discovered (the others card backs), every
token, the day, the players' health and kills, the battles, the log in words. Screenshots go
to tests/artifacts/ (fairytale-phone-*, fairytale-tv)."""

import json
import re
import time

from test_web_browser import live, shot, wait_view
from test_web_face import OVERFLOW, codes_in
from web_helpers import Host

# Day 1, Player 1's turn on the Dragon Inn beside Mr. Hyde (11 health): the battle deck deals
# Captain Hook two Heavy Attacks (his Signature Move Hook Slash), two Blocks and a Weak Attack,
# Hyde three attacks and two modifiers. With seed 5 the bot in Hyde's seat attacks once
# between Hook's two Hook Slashes (the engine alone plays it so).
NEAR_A_BATTLE = {
    "players": [
        {"seat": "p1", "character": "captain_hook",
         "traits": {"intelligence": 7, "strength": 7, "persuasion": 6}},
        {"seat": "p2", "character": "mr_hyde", "traits": {"strength": 6, "intelligence": 5}}],
    "event": "harvest_moon", "turn": "p1", "day": 1,
    "decks": {"events": ["festival", "rainbow", "war_drums"],
              "battle": ["heavy_1", "heavy_2", "block_1", "block_2", "weak_1", "weak_2",
                         "weak_3", "spell_1", "rabid_1", "venom_1"]}}
# Player 1's choices in the battle, the first offered taken, and the log line each makes.
BATTLE_CLICKS = (
    ("Take an Alliance card", "Player 1 (Captain Hook) takes the Alliance card"),
    ("Defend with Block", "Player 1 (Captain Hook) defends with Block"),
    ("Take the attack without a defence card", "Player 1 (Captain Hook) takes the attack"),
    ("Signature Move Hook Slash at Player 2", "Player 1 (Captain Hook) uses the Signature "
                                              "Move Hook Slash"),
    ("Attack with Heavy Attack at Player 2", "Player 1 (Captain Hook) attacks Player 2"),
    ("End your attack turn", "Player 1 (Captain Hook) ends the attack turn"))
# Six days of events: a single player's whole game in a few dozen actions; with seed 9 the
# bot discovers locations around the Dragon Inn, hunters come for it and it fights one from
# about its 18th move to the end (tools/fairytale_games.py plays it so with the table's cards
# and dice).
SIX_DAYS = {"decks": {"events": ["harvest_moon", "festival", "rainbow", "war_drums",
                                 "training_day", "witching_hour"]}}


def setup_file(tmp_path, setup, name):
    path = tmp_path / (name + ".json")
    path.write_text(json.dumps(setup))
    return str(path)


def choices(page):
    return page.evaluate("(window.fairytable.view.you.choices || []).filter(c => c.enabled)"
                         ".map(c => c.label)")


def click_choice(page, start):
    page.locator("#you .choices button:not([disabled])", has_text=start).first.click()


def board_titles(page):
    return page.evaluate("[...document.querySelectorAll('#you .board .panel h4')]"
                         ".map(e => e.innerText)")


def test_a_seat_plays_a_battle_by_clicks_against_a_bot_on_its_phone(tmp_path, browser):
    host = Host(tmp_path, "--game", "fairytale", "--players", "2", "--bots", "1", "--setup",
                setup_file(tmp_path, NEAR_A_BATTLE, "near-a-battle"), "--seed", "5",
                "--new", "--pace", "200").start()
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(host.links["p1"])
        live(page)
        wait_view(page, "v.you && v.you.acting && !v.busy", 60000)
        assert page.inner_text("#title") == "Fairytale Games: The Battle Royale"
        assert page.inner_text("#turn").startswith("Your turn, day 1: ")
        # The character board: the leading character, its traits, moves, tactic cards,
        # items, party, quests; the players' health beside the map.
        titles = board_titles(page)
        assert titles[:3] == ["Captain Hook, your leading character", "Traits (your health)",
                              "Moves"], titles
        assert {"Tactic cards", "Items", "Party (1 of 5)", "Quest hand (0)",
                "Quests under way (0)"} <= set(titles), titles
        board = page.inner_text("#you .board")
        assert re.search(r"Health\s+20 of 20", board), board[:400]
        assert page.evaluate("document.documentElement.scrollWidth") <= 391
        assert page.evaluate(OVERFLOW) == [], page.evaluate(OVERFLOW)
        shot(page, "fairytale-phone-seat", full=True)

        click_choice(page, "Start a battle with Player 2 (Mr. Hyde)")
        wait_view(page, "v.actions >= 1 && v.you.acting", 60000)
        assert "Battle hand (5)" in board_titles(page)
        assert "Battle: Player 1 (Captain Hook) attacks Player 2 (Mr. Hyde)." in \
            page.inner_text("#log")
        clicks = []
        for _ in range(20):
            # Player 1's move in the battle, a decision of its, or the battle over (Player 1
            # is also the Sundial: the day's flip waits for it all along).
            wait_view(page, "!v.busy && (v.status !== 'ongoing' || "
                      "v.knowledge.battles.length === 0 || "
                      "v.knowledge.battles.some(b => b.waiting_for === 'p1') || "
                      "v.knowledge.pending.some(d => d.seat === 'p1'))", 90000)
            offered = choices(page)
            if not page.evaluate("window.fairytable.view.knowledge.battles.length") and \
                    not [c for c in offered if c.startswith("Take an")]:
                break
            for start, said in BATTLE_CLICKS:
                if [c for c in offered if c.startswith(start)]:
                    count = "v.log.filter(l => l.includes(%s)).length" % json.dumps(said)
                    before = page.evaluate("(v => %s)(window.fairytable.view)" % count)
                    click_choice(page, start)
                    clicks.append(start)
                    try:
                        wait_view(page, "%s > %d" % (count, before), 60000)
                    except Exception:
                        raise AssertionError("after the clicks %s: no %r in the log; the "
                                             "page offers %s, says %r; the host's log ends "
                                             "%s" % (clicks, said, choices(page),
                                                     page.inner_text("#log")[-600:],
                                                     host.log()[-3000:])) from None
                    break
            else:
                raise AssertionError("no battle choice among %s" % offered)
        log = page.inner_text("#log")
        assert "Player 1 (Captain Hook) uses the Signature Move Hook Slash." in log
        assert re.search(r"Player 2's Mr\. Hyde is killed by Player 1 \(Captain Hook\)|"
                         r"Player 2 \(Mr\. Hyde\) is killed by Player 1", log), log
        assert "takes the Alliance card" in log
        assert clicks == ["Signature Move Hook Slash at Player 2", "End your attack turn",
                          "Defend with Block", "Signature Move Hook Slash at Player 2",
                          "Take an Alliance card"], clicks
        assert "Player 1 (Captain Hook)" in page.inner_text("#panels")
        wait_view(page, "v.knowledge.players.p1.kills.players === 1", 30000)
        board = page.inner_text("#you .board")
        assert "Victory cards" in board_titles(page), board_titles(page)
        shot(page, "fairytale-phone-after-the-battle", full=True)
        # The same seat on a tablet.
        tablet = browser.new_page(viewport={"width": 820, "height": 1180})
        tablet.goto(host.links["p1"])
        live(tablet)
        wait_view(tablet, "v.you && v.you.board && v.you.board.length > 3")
        assert tablet.evaluate("document.documentElement.scrollWidth") <= 821
        assert tablet.evaluate(OVERFLOW) == [], tablet.evaluate(OVERFLOW)
        shot(tablet, "fairytale-tablet-seat")
        spectator = browser.new_page(viewport={"width": 1280, "height": 800})
        spectator.goto(host.url)
        live(spectator)
        body = spectator.inner_text("body")
        assert not codes_in(body), codes_in(body)
        for cid in ("heavy_1", "block_1", "weak_1"):
            assert cid not in spectator.content()
    finally:
        host.stop()
    assert "Traceback" not in host.log(), host.log()[-3000:]


def test_the_tv_draws_the_map_on_49_cells_as_it_is_discovered(tmp_path, browser):
    host = Host(tmp_path, "--game", "fairytale", "--players", "1", "--bots", "1", "--setup",
                setup_file(tmp_path, SIX_DAYS, "six-days"), "--seed", "9", "--new",
                "--pace", "500").start()
    try:
        # Bots nobody watches play at once: staff hold the game until the TV looks on.
        assert host.staff("pause")[0] == 200
        tv = browser.new_page(viewport={"width": 1920, "height": 1080})
        tv.goto(host.url + "tv")
        live(tv)
        assert tv.evaluate("window.fairytable.view.status") == "ongoing"
        assert host.staff("resume")[0] == 200
        # Much of the way: the map discovered around the Inn, a hunter fought; staff hold the
        # game there while the TV is read. (Watched through the host's own answers: a page on
        # a loaded machine may take the newest state and skip the others.)
        def moment(v):
            k = v["knowledge"]
            return len(k["map"]) >= 6 and len(k["battles"]) >= 1 and v["status"] == "ongoing"

        for _ in range(3):
            deadline = time.monotonic() + 240
            v = host.table()
            while not moment(v):
                assert v["status"] == "ongoing", "the game ended before a battle: %s" % v["log"]
                assert time.monotonic() < deadline, "no battle within 240 s: %s" % v["log"]
                time.sleep(0.1)
                v = host.table()
            assert host.staff("pause")[0] == 200
            wait_view(tv, "v.paused", 120000)
            if moment(tv.evaluate("window.fairytable.view")):
                break
            assert host.staff("resume")[0] == 200
        else:
            raise AssertionError("the game went past the moment three times")
        tv.wait_for_timeout(500)
        map_cells = tv.evaluate("[...document.querySelectorAll('#board .cell')].filter(e => "
                                "+e.dataset.cell.split(',')[0] < 7).length")
        assert map_cells == 49
        v = tv.evaluate("window.fairytable.view")
        known = dict(("%d,%d" % tuple(e["cell"]), e["name"]) for e in v["knowledge"]["map"])
        for cell in v["cells"]:
            c = cell["cell"]
            if c[0] >= 7:
                continue
            kinds = [it["kind"] for it in cell["items"]]
            key = "%d,%d" % tuple(c)
            if key in known:
                titles = [it["title"] for it in cell["items"] if it["kind"] == "card"]
                assert titles and titles[0].startswith(known[key]), (key, cell["items"])
            else:
                assert kinds[0] == "card_back", (key, cell["items"])
                assert "id" not in cell["items"][0]
        # Every token of the map: the player's (its colour and shape) and the hunters' where
        # the engine has them; the battle on its cell.
        for q, p in v["knowledge"]["players"].items():
            here = [cell for cell in v["cells"] if cell["cell"] == p["cell"]][0]
            assert [it for it in here["items"] if it.get("owner") == q and it.get("shape")], here
        for h in v["knowledge"]["hunters"]:
            if h["state"] == "hunting":
                here = [cell for cell in v["cells"] if cell["cell"] == h["cell"]][0]
                assert [it for it in here["items"] if it.get("shape") == "☠" and
                        it["title"].startswith(h["name"])], here
        for b in v["knowledge"]["battles"]:
            here = [cell for cell in v["cells"] if cell["cell"] == b["cell"]][0]
            assert [it for it in here["items"] if it["label"] == "Battle"], here
        text = tv.inner_text("body")
        assert not codes_in(text), codes_in(text)
        assert tv.inner_text("#facts").startswith("Day ")
        assert "Players" in tv.inner_text("#panels")
        if v["knowledge"]["battles"]:
            assert re.search(r"Battle at .* round \d", tv.inner_text("#panels"))
        assert tv.evaluate(OVERFLOW) == [], tv.evaluate(OVERFLOW)
        board = tv.locator("#board").bounding_box()     # a TV is not scrolled
        assert board["y"] + board["height"] <= 1080, board
        legend = tv.inner_text("#legend")
        assert "a cell not yet discovered" in legend and "a battle going on there" in legend
        shot(tv, "fairytale-tv")
        # Nobody scrolls a TV: the page is the screen's height, and the log's newest line is
        # on it, whole.
        assert tv.evaluate("document.scrollingElement.scrollHeight") <= 1080
        last = tv.locator("#log li").last.bounding_box()
        assert last["y"] >= 0 and last["y"] + last["height"] <= 1080, last
        assert tv.inner_text("#log li:last-child") == v["log"][-1]
    finally:
        host.stop()
    assert "Traceback" not in host.log(), host.log()[-3000:]
