// The table page: draws the view the host sends on /ws (docs/web.md), animates the LEDs as the
// tiles do, and for a seat's link offers the physical gestures and the game's choices as
// controls. It knows no game: it draws the generic kinds of piece the host's view names
// (card, card_back, pawn, figure, token, flag, stack, contract, wall) and the words it sends.
"use strict";
(function () {
  const frag = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const mode = query.get("layout") || location.pathname.replace(/^\//, "") || "table";
  const tv = mode === "tv";
  const me = {seat: tv ? null : frag.get("seat"), token: frag.get("token"), web: frag.get("web")};
  // Secrets live in the fragment only, which never reaches the server or its logs.
  document.body.classList.add(mode);

  const $ = sel => document.querySelector(sel);
  const board = $("#board"), tray = $("#tray"), readersBox = $("#readers");
  let view = null, ws = null, backoff = 500, nextId = 1, shapeKey = "", cellPx = 0, headPx = 0;
  let tool = "tap", picked = null, faceDown = false, moveFrom = null, refusalKey = null;
  let gesturesOpen = false, youHtml = "", openChoice = null, panelsKey = "";
  // A seat's page draws its own view only: the spectators' view the table sends before it has
  // read the hello is passed over until the welcome (or the hello's refusal) comes.
  let helloId = null, awaitingSeat = false, passedOver = null;
  const cellEls = {}, pocketEls = {}, readerEls = {};
  // For tools and tests: the last view, whether the first one drawn was a seat's or a
  // spectator's, and when each new action count was drawn (wall ms); where a name breaks.
  window.fairytable = {get view() { return view; }, get connected() {
    return ws !== null && ws.readyState === 1; }, get packed() { return PACKED; },
    messages: 0, shown: [], first: null, shy: shy};

  // ------------------------------------------------------------ connection

  function setConn(up, text) {
    const c = $("#conn");
    c.className = "conn " + (up ? "up" : "down");
    c.textContent = text;
    c.dataset.state = up ? "up" : "down";
  }

  // Views come packed (zlib, one compression on the table for every page) where the browser
  // can inflate them; messages are read in the order they came, inflated or not.
  const PACKED = typeof DecompressionStream === "function";

  function inflate(buf) {
    return new Response(new Blob([buf]).stream().pipeThrough(
      new DecompressionStream("deflate"))).text();
  }

  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const sock = ws = new WebSocket(proto + "//" + location.host + "/ws" +
                                    (PACKED ? "?views=deflate" : ""));
    sock.binaryType = "arraybuffer";
    let inbox = Promise.resolve();
    setConn(false, "connecting…");
    ws.onopen = () => {
      backoff = 500;
      helloId = nextId++;
      awaitingSeat = !!me.seat;
      passedOver = null;
      ws.send(JSON.stringify({type: "hello", seat: me.seat, token: me.token,
                              web_token: me.web, id: helloId}));
    };
    ws.onmessage = ev => {
      const data = ev.data;
      inbox = inbox.then(() => typeof data === "string" ? data : inflate(data)).then(
        text => { if (ws === sock) received(JSON.parse(text)); },
        () => { if (ws === sock) sock.close(); })     // not inflated: reconnect, start afresh
        .catch(err => console.error(err));            // (the next message is still read)
    };
    ws.onclose = () => {
      setConn(false, "offline: reconnecting in " + Math.round(backoff / 1000) + " s");
      ws = null;
      setTimeout(connect, backoff + Math.random() * 250);
      backoff = Math.min(backoff * 2, 8000);
    };
  }

  function drawn(v) {
    if (window.fairytable.first === null) window.fairytable.first = v.you ? "seat" : "watching";
    setConn(true, v.paused ? "paused" : "live");     // connected; the game may be held
    render(v);
  }

  function received(msg) {
    window.fairytable.messages++;
    if (msg.type === "table" && awaitingSeat) { passedOver = msg; return; }
    if (msg.type === "welcome") awaitingSeat = false;
    if (msg.type === "error" && (msg.id === helloId || msg.status === 410)) {
      // A link that opens no seat (a wrong one, an earlier game's): the page watches from
      // now on, and says why until it is left.
      notice(msg.message);
      me.seat = null; me.token = null;
      awaitingSeat = false;
      const v = passedOver || view;
      passedOver = null;
      if (v) drawn(v);
      return;
    }
    if (msg.type === "table") drawn(msg);
    else if (msg.type === "error") refuse(msg.message, msg.cells || []);
    else if (msg.type === "ack") {
      if (msg.token && me.seat) {
        // This seat started the next game: its link is the new game's from now on.
        me.token = msg.token;
        const h = new URLSearchParams(location.hash.slice(1));
        h.set("token", msg.token);
        history.replaceState(null, "", "#" + h.toString());
      }
      toast(msg.message, false);
    }
  }

  // What stays said (an earlier game's seat link): until the page is left.
  function notice(text) {
    const n = $("#notice");
    n.textContent = text.charAt(0).toUpperCase() + text.slice(1);
    n.hidden = false;
  }

  let toastTimer = null;
  function toast(text, bad) {
    const t = $("#toast");
    t.textContent = text;
    t.className = bad ? "err" : "";
    t.style.display = "block";
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { t.style.display = "none"; }, bad ? 5000 : 1800);
  }

  // A refusal is shown where the person acted: beside the cell, with the rule in words.
  let refusalTimer = null;
  function refuse(text, cells) {
    const r = $("#refusal");
    r.textContent = text.charAt(0).toUpperCase() + text.slice(1);   // a sentence on its own
    r.hidden = false;
    const e = !cells.length ? null : cells[0][0] === "seat" ? readerEls[cells[0][1]] :
      cellEls[key(cells[0])];
    if (e) {
      const b = e.el.getBoundingClientRect(), w = $("#boardwrap").getBoundingClientRect();
      r.style.top = Math.max(0, b.bottom - w.top + 4) + "px";
      r.style.left = Math.max(0, Math.min(b.left - w.left, w.width - 260)) + "px";
      r.classList.add("at");
      for (const c of cells) if (cellEls[key(c)]) cellEls[key(c)].el.classList.add("refused");
    } else {
      r.classList.remove("at");
    }
    clearTimeout(refusalTimer);
    refusalTimer = setTimeout(() => {
      r.hidden = true;
      for (const k in cellEls) cellEls[k].el.classList.remove("refused");
    }, 6000);
  }

  // A press sends once: the second click of a double click (a visitor's habit on a button,
  // a cell) is not a second press, which would draw a second card or tap the card just
  // laid. Keyboard presses (detail 0) and clicks apart are each a press.
  const single = fn => ev => { if (!ev || ev.detail < 2) fn(ev); };

  function send(control) {
    if (!ws || ws.readyState !== 1) { toast("not connected to the table", true); return; }
    control.type = "control";
    control.id = nextId++;
    control.seat = me.seat;
    ws.send(JSON.stringify(control));
  }

  // ------------------------------------------------------------ drawing

  const key = c => c[0] + "," + c[1];
  const esc = s => String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;",
                                                       '"': "&quot;"}[c]));

  // The board's extent: its first and last column and row.
  function extent(v) {
    const cs = v.cells.map(c => c.cell[0]), rs = v.cells.map(c => c.cell[1]);
    return {minC: Math.min(...cs), maxC: Math.max(...cs), minR: Math.min(...rs),
            maxR: Math.max(...rs)};
  }

  function boardRoom() {
    // The width the board may take: a narrow screen's whole width (the board above the side
    // panel); beside the panel, what the panel's least width leaves. Not the board's own
    // section beside it, which is as wide as the board drawn last: after a phone turned
    // sideways or a window widened, a small board would stay small.
    const main = $("main"), css = getComputedStyle(main);
    if (css.flexDirection !== "row") return $("#boardwrap").clientWidth || window.innerWidth;
    const side = getComputedStyle($("#side"));
    return main.clientWidth - parseFloat(css.paddingLeft) - parseFloat(css.paddingRight) -
      (parseFloat(css.columnGap) || 0) - (parseFloat(side.minWidth) || 0);
  }

  // The side beside the board (a wide window), not under it (a phone).
  const wide = () => getComputedStyle($("main")).flexDirection === "row";

  function fitCell(v, x) {
    // As big as the screen allows: every column visible on a phone, big on a TV.
    const cols = x.maxC - x.minC + 1, rows = x.maxR - x.minR + 1, G = 4;
    const most = tv ? 130 : mode === "kiosk" ? 66 : 110;
    let S = Math.floor((boardRoom() - AXIS) / cols) - G;
    headPx = $("header").offsetHeight;
    if (!tv && mode !== "kiosk" && wide()) {
      // A wide window (the side beside the board): the board as tall as the window under
      // the top bar, no taller (a big monitor's board grows to it; a phone's keeps its width).
      S = Math.min(S, Math.floor((window.innerHeight - headPx - 20 - AXIS - G * rows) / rows));
    }
    if (mode === "kiosk" || tv) {
      // The kiosk, and a TV which nobody scrolls: the board, and below it the dice tray and
      // the card readers, on the screen under the top bar (one line or two, as its words
      // need); a TV's tray and readers are larger, as its type is.
      const below = (v.tray ? (tv ? 84 : 70) : 0) +
        ((v.readers || []).length ? (tv ? 100 : 90) : 0);
      S = Math.min(S, Math.floor((window.innerHeight - headPx - 20 - below - G * rows) / rows));
    }
    return Math.max(40, Math.min(most, S));
  }

  // The cells' numbers along two edges of the board (the columns below it, the rows on its
  // left), as the sentences name a cell: "Put it back on [2, 3]" is column 2, row 3. Not on
  // the kiosk (the table's own screen: its cells keep a finger's size) nor on a TV.
  const AXIS = mode === "kiosk" || tv ? 0 : 14;

  function axis(cls, text, left, top, w, h) {
    const a = make("div", "axis " + cls);
    a.textContent = text;
    a.setAttribute("aria-hidden", "true");
    Object.assign(a.style, {left: left + "px", top: top + "px", width: w + "px",
                            height: h + "px"});
    return a;
  }

  function buildBoard(v) {
    board.innerHTML = "";
    for (const k in cellEls) delete cellEls[k];
    const x = extent(v), S = cellPx = fitCell(v, x), G = 4;
    document.body.style.setProperty("--cell", S + "px");
    board.style.width = ((x.maxC - x.minC + 1) * (S + G)) + "px";
    board.style.height = ((x.maxR - x.minR + 1) * (S + G) + AXIS) + "px";
    board.style.marginLeft = AXIS + "px";
    for (let c = x.minC; AXIS && c <= x.maxC; c++)
      board.append(axis("col", c, (c - x.minC) * (S + G), (x.maxR - x.minR + 1) * (S + G),
                        S, AXIS));
    for (let r = x.minR; AXIS && r <= x.maxR; r++)
      board.append(axis("row", r, -AXIS, (x.maxR - r) * (S + G), AXIS - 2, S));
    for (const c of v.cells) {
      const canvas = make("canvas", "leds", S, S), items = make("div", "items");
      const el = make("div", "cell", 0, 0, items, canvas);
      el.dataset.cell = key(c.cell);
      el.style.left = ((c.cell[0] - x.minC) * (S + G)) + "px";
      el.style.top = ((x.maxR - c.cell[1]) * (S + G)) + "px";
      el.setAttribute("role", "button");
      el.setAttribute("aria-label", "cell " + key(c.cell));
      el.addEventListener("click", single(() => clickCell(c.cell)));
      board.append(el);
      cellEls[key(c.cell)] = {el: el, canvas: canvas, items: items, scene: null, drawn: ""};
    }
    tray.innerHTML = "";
    for (const k in pocketEls) delete pocketEls[k];
    for (const p of v.tray || []) {
      const canvas = make("canvas", "", 64, 64), face = make("span", "");
      const el = make("div", "pocket", 0, 0, canvas, face);
      el.dataset.pocket = p.pocket;
      el.title = "dice pocket " + (p.pocket + 1);
      // A lit pocket waits for a die: a click throws the dice, as the button does.
      el.addEventListener("click", single(() => {
        const you = view && view.you;
        if (!you || !you.controls) return;
        if ((view.tray || []).some(q => q.wanted)) send({op: "throw"});
        else refuse("No die is wanted now: a lit pocket waits for one.", []);
      }));
      tray.append(el);
      pocketEls[p.pocket] = {el: el, canvas: canvas, face: face, scene: null, drawn: ""};
    }
    if (v.tray) tray.dataset.pockets = v.tray.length;
    // The card readers of the game's seats: a card is played by laying it on one's own.
    readersBox.innerHTML = "";
    for (const k in readerEls) delete readerEls[k];
    for (const r of v.readers || []) {
      const canvas = make("canvas", "", 96, 72), who = make("span", "who");
      const cards = make("div", "items");
      who.textContent = r.name + "'s cards";
      const el = make("div", "reader", 0, 0, canvas, who, cards);
      el.dataset.reader = r.reader;
      el.addEventListener("click", single(() => clickReader(r.reader)));
      readersBox.append(el);
      readerEls[r.reader] = {el: el, canvas: canvas, cards: cards, scene: null, drawn: ""};
    }
  }

  // An element of a class holding the given children (a canvas: its width and height).
  function make(tag, cls, w, h, ...children) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (w) { e.width = w; e.height = h; }
    e.append(...children);
    return e;
  }

  // Where a long word of a piece's name may break when its cell is too small for it whole
  // (soft hyphens: the break shows a hyphen, "Cro-codile", never "Croco dile"): before a
  // consonant that a vowel follows, after a vowel or a vowel and a consonant ("Star-key"),
  // not inside "sh", "ch", "th", ... and never leaving fewer than three letters on a line.
  // The browser's own hyphenation is not there on every system.
  const VOWEL = /[aeiouy]/i, PAIRS = ["ch", "sh", "th", "ph", "ck", "gh", "wh", "qu"];
  function shy(text) {
    return String(text).replace(/[A-Za-z]{7,}/g, w => {
      let out = w.slice(0, 3);
      for (let i = 3; i < w.length; i++) {
        const pair = w.slice(i, i + 2).toLowerCase(), before = w.slice(i - 1, i + 1).toLowerCase();
        const cons = !VOWEL.test(w[i]);
        const breaks = i <= w.length - 3 && cons && !PAIRS.includes(before) && (
          (VOWEL.test(w[i + 1] || "") && (VOWEL.test(w[i - 1]) || VOWEL.test(w[i - 2]))) ||
          (PAIRS.includes(pair) && VOWEL.test(w[i - 1]) && VOWEL.test(w[i + 2] || "")));
        out += (breaks ? "\u00ad" : "") + w[i];
      }
      return out;
    });
  }

  function itemHtml(it) {
    const colour = it.colour ? ' style="--own:' + it.colour + '"' : "";
    const title = ' title="' + esc(it.title) + '"';
    const shape = it.shape ? '<span class="shape">' + esc(it.shape) + "</span>" : "";
    const badge = it.badge !== undefined ? '<span class="badge">' + esc(it.badge) + "</span>" : "";
    const cls = "piece " + it.kind + (it.down ? " down" : "") + (it.unplaced ? " unplaced" : "") +
      (it.colour ? " owned" : "");
    const data = ' data-item="' + (it.kind === "card_back" ? "card" : it.kind) + '"' +
      (it.id ? ' data-card="' + esc(it.id) + '"' : "") +
      ' data-face-up="' + (it.kind === "card_back" ? 0 : 1) + '"' +
      (it.owner ? ' data-owner="' + esc(it.owner) + '"' : "");
    const facing = it.facing ? '<span class="facing">' + esc(it.facing) + "</span>" : "";
    const label = it.kind === "wall" ? "" : '<span class="label">' + esc(shy(it.label)) +
      "</span>";
    return '<div class="' + cls + '"' + data + colour + title + ">" + shape + label + facing +
      badge + "</div>";
  }

  // Text that does not fit its cell gets smaller; a cell still too full is crowded (labels
  // go, pieces shrink: their titles still name them) and gets smaller again.
  // First with whole words (no word broken: "Harvest Moon", not "Harve st Moon").
  function fit(container) {
    const pieces = [...container.querySelectorAll(".piece")];
    const over = whole => container.scrollHeight > container.clientHeight + 1 ||
      container.scrollWidth > container.clientWidth + 1 ||
      (whole && pieces.some(p => p.scrollWidth > p.clientWidth + 1));
    container.style.fontSize = "";
    for (const [whole, crowded] of [[true, false], [false, false], [false, true]]) {
      container.classList.toggle("whole", whole);
      container.classList.toggle("crowded", crowded);
      container.parentElement.classList.toggle("crowded", crowded);
      let size = Math.max(9, Math.round(cellPx / 6.5));
      container.style.fontSize = size + "px";
      while (over(whole) && size > 7) {
        size -= 1;
        container.style.fontSize = size + "px";
      }
      if (!over(whole)) return;
    }
  }

  function render(v) {
    const shape = v.game + "|" + v.cells.map(c => key(c.cell)).join(";") + "|" +
                  (v.tray ? v.tray.length : 0) + "|" +
                  (v.readers || []).map(r => r.reader + ":" + r.seat).join(";") + "|" + mode;
    if (shape !== shapeKey) { shapeKey = shape; buildBoard(v); }
    view = v;
    document.body.dataset.game = v.game;
    const bad = new Set();
    for (const m of v.mismatches) for (const c of m.cells) bad.add(key(c));
    for (const c of v.cells) {
      const e = cellEls[key(c.cell)];
      if (!e) continue;
      const html = c.items.map(itemHtml).join("");
      if (e.items.innerHTML !== html) {
        e.items.innerHTML = html;
        e.items.dataset.count = c.items.length;
        fit(e.items);
      }
      e.scene = c.leds;
      e.el.dataset.leds = JSON.stringify(c.leds);
      e.el.setAttribute("aria-label", "cell " + key(c.cell) + ": " +
        (c.items.map(it => it.title).join(", ") || "empty"));
      e.el.classList.toggle("mismatch", bad.has(key(c.cell)) || c.flash);
      e.el.classList.toggle("bot", !!c.bot);
    }
    for (const p of v.tray || []) {
      const e = pocketEls[p.pocket];
      if (!e) continue;
      e.scene = p.leds;
      e.face.textContent = p.die ? p.die : "";
      e.el.dataset.die = p.die || "";
      e.el.classList.toggle("wanted", !!p.wanted);
    }
    const mine = v.you && v.you.controls ? v.you.reader : null;
    for (const r of v.readers || []) {
      const e = readerEls[r.reader];
      if (!e) continue;
      e.scene = r.leds;
      const html = r.cards.map(itemHtml).join("") +
        (r.problems.length ? '<div class="problem">' + esc(r.problems.join(" ")) + "</div>" : "");
      if (e.cards.innerHTML !== html) e.cards.innerHTML = html;
      e.el.dataset.leds = JSON.stringify(r.leds);
      e.el.classList.toggle("mine", mine === r.reader);
      e.el.classList.toggle("mismatch", bad.has(key(["seat", r.reader])) || r.flash);
    }
    drawTop(v);
    drawSide(v);
    drawYou(v);
    lightTargets();
    // A refusal: this seat's own (a control of this page, or what the table refused where
    // this page's hand had just acted: the table says whose), or one of a hand at the table
    // itself (no seat: a card or a gesture there), which every page says, the TV's too. One
    // made before this page drew its first view is old news.
    if (v.refusal && (v.refusal.seat === null || v.refusal.seat === me.seat)) {
      const k = v.refusal.text + "|" + v.refusal.at;
      if (k !== refusalKey) {
        if (refusalKey !== null) refuse(v.refusal.text, v.refusal.cells);
        refusalKey = k;
      }
    } else if (refusalKey === null) {
      refusalKey = "";
    }
    const shown = window.fairytable.shown;
    if (!shown.length || shown[shown.length - 1].actions !== v.actions) {
      shown.push({actions: v.actions, game_id: v.game_id, at: Date.now()});
      if (shown.length > 5000) shown.shift();
    }
    // The top bar's words took another line (or one less): fit the board again.
    if ((mode === "kiosk" || tv || wide()) && $("header").offsetHeight !== headPx) {
      shapeKey = ""; render(v); }
  }

  function seatOf(v, seat) { return v.seats.find(s => s.seat === seat); }

  function drawTop(v) {
    $("#title").textContent = v.title;
    document.title = v.title + " · Fairytable";
    const turn = $("#turn");
    const mine = !!(v.you && v.you.acting && v.status === "ongoing");
    turn.classList.toggle("mine", mine);
    turn.textContent = v.banner;
    turn.dataset.turn = v.actors.join(" ");
    const acting = v.actors.length === 1 ? seatOf(v, v.actors[0]) : null;
    turn.style.setProperty("--own", acting ? acting.colour : "#333");
    turn.classList.toggle("owned", !!acting);
    $("#facts").textContent = v.facts.join(" · ");
  }

  function drawSide(v) {
    $("#mismatches").innerHTML = v.mismatches.map(m =>
      '<div class="mm" data-cells="' + m.cells.map(key).join(" ") + '">⚠ ' + esc(m.message) +
      "</div>").join("");
    for (const d of document.querySelectorAll("#mismatches .mm")) {
      d.onmouseenter = () => d.dataset.cells.split(" ").forEach(k => cellEls[k] &&
        cellEls[k].el.classList.add("hot"));
      d.onmouseleave = () => d.dataset.cells.split(" ").forEach(k => cellEls[k] &&
        cellEls[k].el.classList.remove("hot"));
    }
    $("#tidy").innerHTML = v.tidy ? '<div class="tidy">' + esc(v.tidy) + "</div>" : "";
    $("#progress").innerHTML = v.progress ? '<div class="pg">' + esc(v.progress.text) +
      "</div>" : "";
    $("#last").innerHTML = "<b>Last:</b> " + esc(v.last || "nothing yet");
    // The bots' levels are said unless every bot is normal ("hard bot"; else "bot").
    const levels = v.seats.some(s => s.bot && s.level !== "normal");
    $("#seats").innerHTML = v.seats.map(s => '<span class="seat' + (s.acting ? " acting" : "") +
      '" data-seat="' + esc(s.seat) + '" style="--own:' + s.colour + '"><span class="shape">' +
      esc(s.shape) + "</span> " + esc(s.name) + (s.bot ? ' <span class="bot-tag">' +
      (levels ? esc(s.level) + " " : "") + "bot</span>" : "") +
      (me.seat === s.seat ? ' <span class="bot-tag">you</span>' : "") + "</span>").join("");
    $("#legend").innerHTML = v.legend.map(l => '<div class="lg"><span class="sw' +
      (l.look === "card_back" ? " card_back" : "") + '" style="--own:' +
      l.colour + '">' + esc(l.shape) + "</span> " + esc(l.words) + "</div>").join("");
    const t = v.tiles;
    $("#tiles").innerHTML = '<span class="tiles ' + (t.online === t.total ? "on" : "off") +
      '" data-online="' + t.online + '" data-total="' + t.total + '"><span class="dot"></span>' +
      t.online + " of " + t.total + " tiles online" + (t.offline.length ? ": " +
      esc(t.offline.join("; ")) + " offline" : "") + "</span>";
    const pk = JSON.stringify(v.panels || []);
    if (pk !== panelsKey) { panelsKey = pk; $("#panels").innerHTML = panelsHtml(v.panels || []); }
    const log = $("#log");
    log.innerHTML = v.log.map(l => "<li>" + esc(l) + "</li>").join("");
    log.scrollTop = log.scrollHeight;
  }

  // Panels of words beside the board (the game's numbers, a seat's own board): a title and
  // rows of a label, a value and a note; a row's state is said in its words as well as shown.
  function panelsHtml(panels) {
    return panels.map(p => '<section class="panel"><h4>' + esc(p.title) + "</h4>" +
      p.rows.map(r => '<div class="prow' + (r.state ? " " + esc(r.state) : "") + '"' +
        (r.colour ? ' style="--own:' + esc(r.colour) + '"' : "") + ">" +
        (r.shape ? '<span class="shape">' + esc(r.shape) + "</span> " : "") +
        '<span class="k">' + esc(r.label) + "</span>" +
        (r.value ? ' <span class="v">' + esc(r.value) + "</span>" : "") +
        (r.note ? '<div class="n">' + esc(r.note) + "</div>" : "") + "</div>").join("") +
      "</section>").join("");
  }

  // A seat's choices, under their groups' headings; a choice with "then" opens its second step
  // (a target, a way to pay) below its group.
  function choicesHtml(choices) {
    if (openChoice !== null && !(choices[openChoice] && choices[openChoice].then)) openChoice = null;
    const button = (c, attrs) => "<button " + attrs + (c.enabled ? "" : " disabled") +
      (c.title ? ' title="' + esc(c.title) + '"' : "") +
      (c.chosen ? ' class="on" aria-pressed="true"' : "") + ">" + esc(c.label) +
      (c.chosen ? " ✓" : "") + (c.then ? (openChoice !== null && choices[openChoice] === c ?
        " ▴" : " ▾") : "") + "</button>" +
      // A button greyed for a reason the face gives: the reason beside it (a phone has no
      // tooltips).
      (!c.enabled && c.why ? '<span class="why">' + esc(c.why) + "</span>" : "");
    let h = "", group = undefined, members = [];
    const close = () => {
      if (group === undefined) return;
      h += "</div>";
      const open = members.find(i => i === openChoice);
      if (open !== undefined) h += '<div class="row then">' + choices[open].then.map((c, j) =>
        button(c, 'data-then="' + open + "." + j + '"')).join("") + "</div>";
    };
    choices.forEach((c, i) => {
      const g = c.group || "";
      if (g !== group) {
        close();
        group = g; members = [];
        if (g) h += '<div class="grp">' + esc(g) + "</div>";
        h += '<div class="row">';
      }
      members.push(i);
      h += button(c, 'data-choice="' + i + '"' + (c.control && c.control.op === "button" ?
        ' data-button="' + esc(c.control.name) + '"' : ""));
    });
    close();
    return h;
  }

  // ------------------------------------------------------------ a seat's controls

  function drawYou(v) {
    const box = $("#you");
    const you = v.you;
    if (!you) {
      youHtml = "";
      box.innerHTML = tv ? "" : "<p class=\"note\">You are watching. Each seat plays from its " +
        "own link.</p>";
      return;
    }
    let h = '<div class="me"><b>You play ' + esc(you.name) + "</b>" +
      (you.bot ? " (a bot plays this seat)" : "") + "</div>";
    if (you.note) h += '<p class="note">' + esc(you.note) + "</p>";
    if (!you.controls) {
      // A real table (or a bot's seat): the cards are played on the table; the choices no
      // card shows (the phone's buttons and the seat buttons) are still made here.
      const phone = you.bot ? [] : (you.choices || []).map(c => c.then ?
        Object.assign({}, c, {then: c.then.filter(x => x.control && ["action", "button"]
          .includes(x.control.op))}) : c).filter(c => c.then ? c.then.length :
        c.control && ["action", "button"].includes(c.control.op));
      h += '<div class="choices">' + choicesHtml(phone) + "</div>";
      if ((you.board || []).length) h += '<div class="board">' + panelsHtml(you.board) +
        "</div>";
      if (h === youHtml) return;
      youHtml = h;
      box.innerHTML = h;
      bindChoices(box, phone);
      return;
    }
    const hand = you.hand || [];
    if (picked && !hand.find(c => c.id === picked)) picked = null;
    if (hand.length) {
      h += '<div class="lbl">' + (hand.some(c => (c.targets || []).length || c.reader) ?
        "Your hand: pick one, then a lit cell" + (you.reader ? " or your card reader" : "") :
        "Your hand") + "</div>";
      h += '<div class="row hand">' + hand.map(c => '<button data-card="' + esc(c.id) + '"' +
        (picked === c.id ? ' class="on"' : "") + ' title="' + esc(c.label) + '">' +
        esc(c.label) + "</button>").join("") + "</div>";
      const pc = hand.find(c => c.id === picked);
      if (pc && pc.face_down) h += '<div class="row faces"><button data-face="up"' +
        (!faceDown ? ' class="on"' : "") + '>Face up</button><button data-face="down"' +
        (faceDown ? ' class="on"' : "") + ">Face down (hidden)</button></div>";
    }
    // A choice marked "dice" is the engine rolling in the dice's stead: a page that throws
    // the table's dice itself offers only that.
    const throwing = (v.tray || []).some(p => p.wanted);
    const choices = (you.choices || []).filter(c => !(throwing && c.dice));
    h += '<div class="choices">' + choicesHtml(choices) +
      (throwing ? '<div class="row"><button data-op="throw">' +
        "Throw the dice</button></div>" : "") + "</div>";
    if ((you.board || []).length) h += '<div class="board">' + panelsHtml(you.board) + "</div>";
    const tools = [["tap", "Tap"], ["double", "Double tap"], ["hold", "Hold"], ["lift", "Lift"],
                   ["move", "Move"]];
    // What each gesture does in this game, in words beside the buttons (the banner's "spin a
    // card" is a hold here).
    const said = you.gestures || [], toolName = Object.fromEntries(tools);
    h += '<details class="gestures"' + (gesturesOpen ? " open" : "") +
      "><summary>Hands on the table" + (you.gestures_for ? ": " + esc(you.gestures_for) : "") +
      '</summary><div class="row tools">' + tools.map(t => {
        const g = said.find(x => x.tool === t[0]);
        return '<button data-tool="' + t[0] + '"' + (tool === t[0] ? ' class="on"' : "") +
          (g ? ' title="' + esc(t[1] + " " + g.words) + '"' : "") + ">" + t[1] + "</button>";
      }).join("") + "</div>" + (said.length ? '<ul class="gwords">' + said.map(g =>
        "<li><b>" + esc(toolName[g.tool] || g.tool) + "</b> " + esc(g.words) + "</li>")
        .join("") + "</ul>" : "") + "</details>";
    h += '<div id="hint">' + esc(hint()) + "</div>";
    if (h === youHtml) return;     // nothing new: the buttons under the pointer stay
    youHtml = h;
    box.innerHTML = h;
    box.querySelector("details.gestures").ontoggle = ev => {
      gesturesOpen = ev.target.open; };
    for (const b of box.querySelectorAll("button[data-card]")) b.onclick = single(() => {
      picked = picked === b.dataset.card ? null : b.dataset.card;
      tool = picked ? "place" : "tap"; faceDown = false; moveFrom = null;
      drawYou(view); lightTargets(); });
    for (const b of box.querySelectorAll("button[data-face]")) b.onclick = () => {
      faceDown = b.dataset.face === "down"; drawYou(view); };
    for (const b of box.querySelectorAll("button[data-tool]")) b.onclick = () => {
      tool = b.dataset.tool; picked = null; moveFrom = null; drawYou(view); lightTargets(); };
    bindChoices(box, choices);
    for (const b of box.querySelectorAll("button[data-op]")) b.onclick = single(() =>
      send({op: b.dataset.op}));
  }

  function bindChoices(box, choices) {
    for (const b of box.querySelectorAll("button[data-choice]")) b.onclick = single(() => {
      const i = parseInt(b.dataset.choice, 10), c = choices[i];
      if (c.then) { openChoice = openChoice === i ? null : i; drawYou(view); return; }
      openChoice = null;
      send(Object.assign({}, c.control)); });
    for (const b of box.querySelectorAll("button[data-then]")) b.onclick = single(() => {
      const [i, j] = b.dataset.then.split(".").map(x => parseInt(x, 10));
      const c = (choices[i].then || [])[j];
      openChoice = null;
      if (c && c.control) send(Object.assign({}, c.control)); });
  }

  // A finger taps, a mouse clicks: the hints say the word of the screen they are on.
  const press = window.matchMedia && window.matchMedia("(pointer: coarse)").matches ? "Tap" :
    "Click";

  function hint() {
    const you = view && view.you;
    const pc = ((you && you.hand) || []).find(c => c.id === picked);
    if (tool === "place" && pc) {
      if (pc.reader) return press + " your card reader (below the board) to lay " + pc.label +
        " on it.";
      // (mid-sentence: "put your pawn (Red) there", not "put Your pawn")
      const what = pc.label.replace(/^Your /, "your ");
      if (!(pc.targets || []).length && pc.why) return "No cell is lit for " + what + ": " +
        pc.why + ".";
      return press + " a lit cell to put " + what + (faceDown ? " face down" : "") + " there.";
    }
    if (tool === "move") return moveFrom ? press + " where it goes." :
      press + " the piece to move.";
    // The table waits for dice (a turn order, an attack): no cell is to be tapped yet.
    if (tool === "tap" && ((view && view.tray) || []).some(p => p.wanted))
      return "The table waits for the dice: press Throw the dice, or " + press.toLowerCase() +
        " a lit pocket.";
    return press + " a cell to " + ({tap: "tap", double: "double tap", hold: "hold",
                                  lift: "lift what lies on", place: "tap"})[tool] + " it.";
  }

  function targetCells() {
    const you = view && view.you;
    if (!you || !you.controls) return [];
    if (tool === "place" && picked) {
      const c = (you.hand || []).find(h => h.id === picked);
      return c ? c.targets || [] : [];
    }
    if (tool === "move" && moveFrom) return (you.slides || {})[key(moveFrom)] ||
      ((you.moves || {})[key(moveFrom)] || []);
    return [];
  }

  function lightTargets() {
    const t = new Set(targetCells().map(key));
    for (const k in cellEls) {
      cellEls[k].el.classList.toggle("target", t.has(k));
      cellEls[k].el.classList.toggle("picked", !!moveFrom && key(moveFrom) === k);
    }
  }

  function clickReader(n) {
    if (!view || !view.you || !view.you.controls) return;
    if (view.you.reader !== n) { refuse("Lay your cards on your own card reader.", []); return; }
    if (tool === "place" && picked) {
      send({op: "place", reader: n, card: picked});
      picked = null; tool = "tap";
    } else {
      send({op: "lift", reader: n});
    }
    drawYou(view);
    lightTargets();
  }

  function clickCell(cell) {
    if (!view || !view.you || !view.you.controls) return;
    if (tool === "place") {
      if (!picked) { refuse("Pick a card from your hand first.", [cell]); return; }
      send({op: "place", cell: cell, card: picked, face_down: faceDown});
      picked = null; tool = "tap"; faceDown = false;
    } else if (tool === "move") {
      if (!moveFrom) { moveFrom = cell; }
      else { send({op: "move", cell: moveFrom, to: cell}); moveFrom = null; tool = "tap"; }
    } else {
      send({op: tool, cell: cell});
    }
    drawYou(view);
    lightTargets();
  }

  window.addEventListener("resize", () => { shapeKey = ""; if (view) render(view); });

  // ------------------------------------------------------------ the LEDs

  const N = 6;
  function drawLeds(canvas, scene, now, n, round) {
    const ctx = canvas.getContext("2d");
    const W = canvas.width, H = canvas.height;
    ctx.clearRect(0, 0, W, H);
    for (let e = 0; e < 4; e++) {
      const leds = FxLeds.segment(scene[e], e, n, now);
      for (let i = 0; i < n; i++) {
        ctx.fillStyle = FxLeds.css(leds[i]);
        const f = (i + 0.5) / n;   // along the edge, clockwise
        let x, y;
        if (round) {
          const a = ((e + f) / 4) * 2 * Math.PI - Math.PI / 2;
          x = W / 2 + Math.cos(a) * (W / 2 - 4); y = H / 2 + Math.sin(a) * (H / 2 - 4);
          ctx.beginPath(); ctx.arc(x, y, 3, 0, 2 * Math.PI); ctx.fill();
          continue;
        }
        const L = 4, T = 6;   // an LED: its length along the edge and its thickness
        if (e === 0) { x = f * W; y = 2; ctx.fillRect(x - T / 2, 0, T, L); }
        else if (e === 1) { y = f * H; ctx.fillRect(W - L, y - T / 2, L, T); }
        else if (e === 2) { x = W - f * W; ctx.fillRect(x - T / 2, H - L, T, L); }
        else { y = H - f * H; ctx.fillRect(0, y - T / 2, L, T); }
      }
    }
  }

  let lastFrame = 0;
  function frame(t) {
    requestAnimationFrame(frame);
    if (t - lastFrame < 33) return;   // 30 frames a second, as the tiles
    lastFrame = t;
    const now = Date.now();
    for (const k in cellEls) paint(cellEls[k], now, N, false);
    for (const k in pocketEls) paint(pocketEls[k], now, 3, true);
    for (const k in readerEls) paint(readerEls[k], now, N, false);
  }
  function paint(e, now, n, round) {
    if (!e.scene) return;
    const sig = JSON.stringify(e.scene);
    if (FxLeds.still(e.scene) && e.drawn === sig) return;
    drawLeds(e.canvas, e.scene, now, n, round);
    e.drawn = sig;
  }

  requestAnimationFrame(frame);
  connect();
})();
