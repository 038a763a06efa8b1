"""Whole games played by a person's clicks in the browser against bots on the virtual table:
every move goes from a click through the WebSocket, the virtual hands and the real tile
firmware to the session, as a real hand's would. The "person" here is a simple policy that
reads only what the page shows that seat (window.fairytable.view) and clicks controls."""

import json
import time

import pytest

from test_web_browser import live, shot
from web_helpers import Host

GAME_S = 900   # a whole game through the tiles, bots at no pace


def view(page):
    return page.evaluate("window.fairytable.view")


def progress(v):
    """What a click moves on: the game's actions, or a step of a move in several (a Fight Club
    trade: lift from the Market, then put down) that changes what the seat is offered."""
    you = v.get("you") or {}
    return (v["actions"], v["status"], [c["label"] for c in you.get("choices", [])],
            [c["id"] for c in you.get("hand", [])])


def wait_change(page, before, timeout_s=12):
    """Wait until the game moved past `before` (progress); False if it did not."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        v = view(page)
        if progress(v) != before or v["status"] != "ongoing":
            return True
        time.sleep(0.15)
    return False


def click_cell(page, cell):
    page.locator("[data-cell='%d,%d']" % tuple(cell)).click()


def my_turn(v, seat):
    """The seat may act: its turn, the table as the game has it (or the page offers the next
    step of a move under way, which is what puts it right), no cards going down (or the next
    step of a move whose cards are going down: a Fight Club trade's next card)."""
    steps = [c for c in v.get("you", {}).get("choices", [])
             if c["enabled"] and c["control"]["op"] in ("lift", "place")]
    return (v["status"] == "ongoing" and v["actors"] == [seat] and
            (not v["mismatches"] or steps) and
            (not v["busy"] or any(c.get("step") for c in steps)))


def tool(page, name):
    """A gesture of the hands on the table (folded away under "Hands on the table")."""
    if not page.locator("#you button[data-tool=%s]" % name).is_visible():
        page.locator("#you details.gestures summary").click()
    page.locator("#you button[data-tool=%s]" % name).click()


HELD = set()     # the pages that held a card of the other side once (play_storybook_move)


def play_storybook_move(page, v):
    you = v["you"]
    legal = you["legal"]
    known = v["knowledge"]
    if known["phase"] == "choose_plot_twist":
        page.locator("#you .choices button[data-choice]").first.click()
        return
    theirs = [c["cell"] for c in v["cells"] if any(
        it.get("shape") == "★" and it["kind"] == "card" for it in c["items"])]
    # (the Hero's cards lying face up)
    if known["phase"] == "play" and theirs and id(page) not in HELD:
        # Once a game: a hold on the Hero's card, which the table takes and the rules
        # refuse (not the Villain's to spin): the rule's words beside that cell, as for a
        # refusal of the page's own, not only in the log. Nothing changes.
        HELD.add(id(page))
        where = "[data-cell='%d,%d']" % tuple(theirs[0])
        tool(page, "hold")
        page.locator(where).click()
        page.wait_for_selector("#refusal:not([hidden])", timeout=15000)
        said = page.inner_text("#refusal")
        assert "refused" in page.get_attribute(where, "class"), said
        assert said.endswith(".") and said in " ".join(view(page)["log"]), said
        assert view(page)["actions"] == v["actions"], said
        tool(page, "tap")
        return
    placeable = [c for c in you["hand"] if c["targets"]]
    if placeable and ("play" in legal or "hide" in legal):
        card = placeable[0]
        page.locator("#you .hand button[data-card='%s']" % card["id"]).click()
        click_cell(page, card["targets"][0])
        return
    if "draw" in legal and known["deck_sizes"][you["seat"]] > 0 and known["ap"] >= 1:
        # A double click, as a visitor makes on a button: one card is drawn, not two.
        deck = known["deck_sizes"][you["seat"]]
        page.locator("#you button[data-button=draw]").dblclick()
        page.wait_for_function("([seat, deck]) => window.fairytable.view.knowledge"
                               ".deck_sizes[seat] < deck", arg=[you["seat"], deck],
                               timeout=15000)
        page.wait_for_timeout(1000)
        now = view(page)["knowledge"]["deck_sizes"][you["seat"]]
        assert now == deck - 1, "a double click drew %d cards" % (deck - now)
        return
    page.locator("#you button[data-button=end_turn]").click()


def play_royale_move(page, v):
    you = v["you"]
    legal = you["legal"]
    me = [p for p in v["knowledge"]["players"] if p["id"] == you["seat"]][0]
    if v["knowledge"]["phase"] == "order":
        # One button rolls for the turn order: the table's dice, thrown into the pockets
        # (the engine's roll, its stand-in, is not offered beside it).
        assert page.locator("#you button[data-button=roll]").count() == 0
        page.locator("#you button[data-op=throw]").click()
        return
    pawn = [c for c in you["hand"] if c["id"] == "pawn"]
    if "place" in legal and pawn and pawn[0]["targets"]:
        page.locator("#you .hand button[data-card=pawn]").click()
        click_cell(page, pawn[0]["targets"][0])
        return
    here = me["cell"]
    if "attack_card" in legal:
        tool(page, "tap")
        click_cell(page, here)
        page.wait_for_function("() => { const v = window.fairytable.view; return v.progress"
                               " && v.tray.some(p => p.wanted); }", timeout=10000)
        # A lit pocket clicked throws the dice, as the button does (the legend says a lit
        # pocket waits for a die).
        page.wait_for_selector("#tray .pocket.wanted", timeout=10000)
        page.locator("#tray .pocket.wanted").first.click()
        return
    if "attack_player" in legal and "end_turn" not in legal:
        # Other living players stand with red on the last card: the turn cannot end before
        # red duels one of them. Hold the cell (the first hold names a target), then throw
        # each round's dice until the duel is decided and becomes an action.
        start = v["actions"]
        tool(page, "hold")
        click_cell(page, here)
        for _ in range(12):
            page.wait_for_function(
                "(start) => { const v = window.fairytable.view; return v.actions > start ||"
                " (v.progress && v.tray.some(p => p.wanted)); }", arg=start, timeout=10000)
            if view(page)["actions"] > start:
                return
            tray = view(page)["tray"]
            page.locator("#you button[data-op=throw]").click()
            # The new dice lie in the pockets (read: the hands wait for that) before the next
            # round's throw; dice showing the faces of the last throw leave the tray as it was,
            # and the next throw comes after the wait.
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                now = view(page)
                if now["actions"] > start:
                    return
                if now["tray"] != tray and all(p["die"] for p in now["tray"] if p["wanted"]):
                    break
                time.sleep(0.1)
        return
    if "resurrect" in legal:
        tool(page, "double")
        click_cell(page, here)
        return
    moves = you["moves"].get("%d,%d" % tuple(here), []) if here else []
    if "move" in legal and moves:
        with_card = [c for c in moves if any(i["kind"] in ("card", "card_back")
                                             for x in v["cells"] if x["cell"] == c
                                             for i in x["items"])]
        tool(page, "move")
        click_cell(page, here)
        click_cell(page, (with_card or moves)[0])
        return
    if "end_turn" in legal:
        page.locator("#you button[data-button=end_turn]").click()
    # else nothing this page can do yet (a roll of the bots' in the tray, say): the caller
    # waits for a change and, past eight, fails with the view.


def play_fightclub_move(page, v):
    """The first choice the page offers, deliveries and loads first as the page lists them;
    never an extra action for gold (a thrifty player), the end of the actions last."""
    buttons = page.locator("#you .choices button:not([disabled])")
    labels = buttons.all_inner_texts()
    if v["busy"]:
        # Cards are going down: only the next step of the move under way (a new move now
        # would join the group going down).
        steps = [c["label"] for c in v["you"]["choices"] if c["enabled"] and c.get("step")]
        if steps and steps[0] in labels:
            buttons.nth(labels.index(steps[0])).click()
        return
    picks = [i for i, t in enumerate(labels) if not t.startswith(("Buy one more action",
                                                                   "End your actions"))]
    if picks:
        buttons.nth(picks[0]).click()
    elif labels:
        buttons.nth(labels.index("End your actions") if "End your actions" in labels else 0
                    ).click()


def play_whole_game(page, seat, move, name):
    started = time.monotonic()
    shots = 0
    stuck = 0
    made = 0
    while time.monotonic() - started < GAME_S:
        v = view(page)
        if v["status"] != "ongoing":
            return v, made
        if "you" not in v or not my_turn(v, seat):
            # (a seat's page shows the spectator's view until its token is taken)
            time.sleep(0.2)
            continue
        before = progress(v)
        move(page, v)
        if shots < 1 and v["actions"] > 6:
            shot(page, name + "-playing")
            shots += 1
        if wait_change(page, before):
            stuck = 0
            made += 1
        else:
            stuck += 1
            assert stuck < 8, "the game does not move on: %s" % json.dumps(view(page))[:3000]
            # What was clicked did not become an action: end the turn instead.
            if "end_turn" in view(page)["you"]["legal"]:
                page.locator("#you button[data-button=end_turn]").click()
                wait_change(page, before)
    raise AssertionError("the game did not end in %d s" % GAME_S)


@pytest.mark.parametrize("game", ["storybook", "royale", "fightclub"])
def test_a_person_plays_a_whole_game_by_clicks(tmp_path, browser, game):
    if game == "storybook":
        host = Host(tmp_path, "--bots", "1", "--seed", "21", "--new", "--pace", "0")
        seat, move = "villain", play_storybook_move
    elif game == "fightclub":
        # Fight Club's solo game (the book's 16 rounds), alone at the virtual table: the
        # virtual players lay out what the game deals (new contracts), nothing else.
        host = Host(tmp_path, "--game", "fightclub", "--players", "1", "--seed", "4", "--new",
                    "--pace", "0")
        seat, move = "p1", play_fightclub_move
    else:
        host = Host(tmp_path, "--game", "royale", "--players", "3", "--bots", "2", "--seed",
                    "21", "--new", "--pace", "0")
        seat, move = "red", play_royale_move
    host.start()
    try:
        # Storybook and Fight Club on a phone (390 x 844): the whole game by a thumb;
        # Battle Royale on a desktop.
        size = {"width": 390, "height": 844} if game in ("storybook", "fightclub") else \
            {"width": 1280, "height": 860}
        page = browser.new_page(viewport=size)
        page.goto(host.links[seat])
        live(page)
        final, made = play_whole_game(page, seat, move, game)
        assert final["status"] == "finished"
        assert made >= 5, "the person made only %d moves" % made
        page.wait_for_selector("#turn:has-text('Game over')", timeout=30000)
        # The table is still read after the last action: what the game left lying where it
        # should not (a card captured by the last move) is tidied by the virtual players,
        # and the page stops asking for it.
        page.wait_for_function("() => window.fairytable.view.mismatches.length === 0",
                               timeout=30000)
        shot(page, game + "-game-over")
        assert final["actions"] > 10
    finally:
        host.stop()
    log = host.log()
    assert "Traceback" not in log, log[-3000:]


def test_a_person_duels_on_the_last_card_by_clicks_to_the_end(tmp_path, browser):
    """The end of a Battle Royale game: one card left on the map, red and blue (a bot) on it.
    A turn cannot end while the player may duel there, so red must hold the cell to duel blue
    and throw each round's dice; whoever opens the card and wins it ends the game."""
    setup = tmp_path / "last-card.json"
    setup.write_text(json.dumps({
        "map": [{"cell": [0, 0], "card": "C10"}],
        "players": [{"id": "red", "cell": [0, 0], "active": ["H9", "S9", "D9"]},
                    {"id": "blue", "cell": [0, 0], "active": ["H8", "S8", "D8"]}],
        "turn": "red"}))
    host = Host(tmp_path, "--game", "royale", "--players", "2", "--bots", "1", "--setup",
                str(setup), "--seed", "3", "--new", "--pace", "0")
    host.start()
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        page.goto(host.links["red"])
        live(page)
        page.wait_for_function("() => window.fairytable.view.actors.includes('red')",
                               timeout=30000)
        legal = view(page)["you"]["legal"]
        assert "attack_player" in legal and "end_turn" not in legal, legal
        final, made = play_whole_game(page, "red", play_royale_move, "royale-last-card")
        assert final["status"] == "finished", final["banner"]
        assert made >= 1
        page.wait_for_selector("#turn:has-text('Game over')", timeout=30000)
        shot(page, "royale-last-card-over")
        text = page.locator("body").inner_text()
        assert "duel" in text.lower(), text[-2000:]
    finally:
        host.stop()
    log = host.log()
    assert "Traceback" not in log, log[-3000:]
