// The table page: draws the view the host sends on /ws (docs/web.md), animates the LEDs as the
// tiles do, and for a seat's link offers the physical gestures as controls.
"use strict";
(function () {
  const frag = new URLSearchParams(location.hash.slice(1));
  const query = new URLSearchParams(location.search);
  const mode = query.get("layout") || location.pathname.replace(/^\//, "") || "table";
  const tv = mode === "tv";
  const me = {seat: tv ? null : frag.get("seat"), token: frag.get("token"), web: frag.get("web")};
  // Secrets live in the fragment only: wipe it from the address bar once read? No: a reload
  // must keep the seat. The fragment never reaches the server or its logs.
  document.body.classList.add(mode);

  const $ = sel => document.querySelector(sel);
  const board = $("#board"), tray = $("#tray"), readersBox = $("#readers");
  let view = null, ws = null, backoff = 500, nextId = 1, shapeKey = "";
  let tool = "tap", picked = null, moveFrom = null;
  const cellEls = {}, pocketEls = {}, readerEls = {};
  // For tools and tests: the last view, and when each new action count was drawn (wall ms).
  window.fairytable = {get view() { return view; }, get connected() {
    return ws !== null && ws.readyState === 1; }, messages: 0, shown: []};

  // ------------------------------------------------------------ connection

  function setConn(up, text) {
    const c = $("#conn");
    c.className = "conn " + (up ? "up" : "down");
    c.textContent = text;
    c.dataset.state = up ? "up" : "down";
  }

  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(proto + "//" + location.host + "/ws");
    setConn(false, "connecting…");
    ws.onopen = () => {
      backoff = 500;
      ws.send(JSON.stringify({type: "hello", seat: me.seat, token: me.token,
                              web_token: me.web, id: nextId++}));
    };
    ws.onmessage = ev => {
      const msg = JSON.parse(ev.data);
      window.fairytable.messages++;
      if (msg.type === "table") { setConn(true, "live"); render(msg); }
      else if (msg.type === "error" && msg.status === 410) {
        notice(msg.message);
        me.seat = null; me.token = null;     // it watches from now on, and says so
        if (view) render(view);
      }
      else if (msg.type === "error") toast(msg.message, true);
      else if (msg.type === "ack") toast(msg.message, false);
    };
    ws.onclose = () => {
      setConn(false, "offline: reconnecting in " + Math.round(backoff / 1000) + " s");
      ws = null;
      setTimeout(connect, backoff + Math.random() * 250);
      backoff = Math.min(backoff * 2, 8000);
    };
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

  function send(control) {
    if (!ws || ws.readyState !== 1) { toast("not connected to the table", true); return; }
    control.type = "control";
    control.id = nextId++;
    control.seat = me.seat;
    ws.send(JSON.stringify(control));
  }

  // ------------------------------------------------------------ drawing

  const key = c => c[0] + "," + c[1];
  const cellSize = () => parseInt(getComputedStyle(document.body).getPropertyValue("--cell"));

  function buildBoard(v) {
    board.innerHTML = "";
    for (const k in cellEls) delete cellEls[k];
    const S = cellSize(), G = 4;
    const cs = v.cells.map(c => c.cell[0]), rs = v.cells.map(c => c.cell[1]);
    const minC = Math.min(...cs), maxC = Math.max(...cs), minR = Math.min(...rs),
          maxR = Math.max(...rs);
    board.style.width = ((maxC - minC + 1) * (S + G)) + "px";
    board.style.height = ((maxR - minR + 1) * (S + G)) + "px";
    for (const c of v.cells) {
      const el = document.createElement("div");
      el.className = "cell";
      el.dataset.cell = key(c.cell);
      el.style.left = ((c.cell[0] - minC) * (S + G)) + "px";
      el.style.top = ((maxR - c.cell[1]) * (S + G)) + "px";
      const canvas = document.createElement("canvas");
      canvas.className = "leds";
      canvas.width = S; canvas.height = S;
      const items = document.createElement("div");
      items.className = "items";
      items.style.cssText = "position:relative;width:100%;height:100%";
      const coord = document.createElement("span");
      coord.className = "coord";
      coord.textContent = key(c.cell);
      el.append(items, canvas, coord);
      el.addEventListener("click", () => clickCell(c.cell));
      board.append(el);
      cellEls[key(c.cell)] = {el: el, canvas: canvas, items: items, scene: null, drawn: ""};
    }
    tray.innerHTML = "";
    for (const k in pocketEls) delete pocketEls[k];
    for (const p of v.tray || []) {
      const el = document.createElement("div");
      el.className = "pocket";
      el.dataset.pocket = p.pocket;
      const canvas = document.createElement("canvas");
      canvas.width = 64; canvas.height = 64;
      const face = document.createElement("span");
      el.append(canvas, face);
      tray.append(el);
      pocketEls[p.pocket] = {el: el, canvas: canvas, face: face, scene: null, drawn: ""};
    }
    if (v.tray) tray.dataset.pockets = v.tray.length;
    // The seats' card readers (heroes): a card is played by laying it on one's own.
    readersBox.innerHTML = "";
    for (const k in readerEls) delete readerEls[k];
    for (const r of v.readers || []) {
      const el = document.createElement("div");
      el.className = "reader";
      el.dataset.reader = r.reader;
      const canvas = document.createElement("canvas");
      canvas.width = 96; canvas.height = 72;
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = "reader " + r.reader + (r.seat ? " (" + r.seat + ")" : "");
      const cards = document.createElement("div");
      el.append(canvas, who, cards);
      el.addEventListener("click", () => clickReader(r.reader));
      readersBox.append(el);
      readerEls[r.reader] = {el: el, canvas: canvas, cards: cards, scene: null, drawn: ""};
    }
  }

  function itemHtml(it, v, idx) {
    if (it.kind === "pawn") {
      const pos = [["4px", "4px"], ["4px", "auto"], ["auto", "4px"], ["auto", "auto"]][idx % 4];
      return '<div class="pawn' + (it.alive ? "" : " dead") + '" data-pawn="' + it.player +
        '" title="' + it.player + '" style="background:' + it.colour + ";top:" + pos[0] +
        ";left:" + pos[1] + (pos[1] === "auto" ? ";right:4px" : "") +
        (pos[0] === "auto" ? ";bottom:4px" : "") + '"></div>';
    }
    if (it.kind === "wall") return '<div class="wall" title="a wall"></div>';
    if (it.kind === "figure") {
      return '<div class="figure' + (it.state === "standing" ? "" : " down") +
        '" data-figure="' + esc(it.id) + '" title="' + esc(it.name || it.id) + " (" +
        esc(it.seat) + ')" style="border-color:' + it.colour + '">' + esc(it.name || it.id) +
        '<span class="health">' + it.health + "</span></div>";
    }
    if (it.kind === "flag") {
      return '<div class="flag" data-flag="' + esc(it.team) + '" style="color:' + it.team +
        '">⚑</div>';
    }
    if (v.game === "heroes") {
      return '<div class="card" data-item="card" data-card="' + esc(it.id) +
        '" data-face-up="1">' + esc(it.name || it.id) + "</div>";
    }
    if (v.game === "fightclub") {
      // A creature shows its number, a contract its name and the creatures it wants.
      if (it.kind === "contract")
        return '<div class="card contract" data-item="contract" data-card="' + esc(it.id) +
          '" title="' + esc(it.name) + '">' + esc(it.name) + "<br>" +
          esc(it.creatures.join(" ")) + "</div>";
      return '<div class="card creature" data-item="card" data-card="' + esc(it.id) +
        '" data-face-up="1">' + it.value + "</div>";
    }
    if (v.game === "royale") {
      const txt = it.id ? it.id : (it.value !== undefined ? "≤" + it.value : "");
      return '<div class="card map' + (it.id ? "" : " back") + '" data-item="card" data-face-up="' +
        (it.face_up ? 1 : 0) + '">' + txt + "</div>";
    }
    const side = it.owner ? (it.owner === "hero" || it.owner.indexOf("hero") === 0 ? "hero" :
                             "villain") : "";
    const arrow = {N: "↑", E: "→", S: "↓", W: "←"}[it.facing] || "";
    if (!it.id) {
      return '<div class="card back ' + side + (it.unplaced ? " unplaced" : "") +
        '" data-item="card" data-face-up="0" title="a face-down card">' +
        (it.owner ? it.owner : "?") + '<span class="facing">' + arrow + "</span></div>";
    }
    return '<div class="card ' + side + (it.face_up ? "" : " back") + (it.unplaced ? " unplaced" : "") +
      '" data-item="card" data-card="' + it.id + '" data-face-up="' + (it.face_up ? 1 : 0) +
      '">' + (it.name || it.id) + '<span class="facing">' + arrow + "</span></div>";
  }

  function render(v) {
    const shape = v.game + "|" + v.cells.map(c => key(c.cell)).join(";") + "|" +
                  (v.tray ? v.tray.length : 0) + "|" +
                  (v.readers || []).map(r => r.reader + ":" + r.seat).join(";") + "|" + mode;
    if (shape !== shapeKey) { shapeKey = shape; buildBoard(v); }
    view = v;
    document.body.classList.toggle("royale", v.game === "royale");
    document.body.dataset.game = v.game;
    const bad = new Set();
    for (const m of v.mismatches) for (const c of m.cells) bad.add(key(c));
    const botCells = new Set(((v.bot_request || {}).cells || []).map(key));
    for (const c of v.cells) {
      const e = cellEls[key(c.cell)];
      if (!e) continue;
      const html = c.items.map((it, i) => itemHtml(it, v, i)).join("");
      if (e.items.innerHTML !== html) e.items.innerHTML = html;
      e.scene = c.leds;
      e.el.dataset.leds = JSON.stringify(c.leds);
      e.el.classList.toggle("mismatch", bad.has(key(c.cell)) || c.flash);
      e.el.classList.toggle("bot", botCells.has(key(c.cell)));
    }
    for (const p of v.tray || []) {
      const e = pocketEls[p.pocket];
      if (!e) continue;
      e.scene = p.leds;
      e.face.textContent = p.die ? p.die : "";
      e.el.dataset.die = p.die || "";
    }
    const mine = v.you && v.you.controls ? v.you.reader : null;
    for (const r of v.readers || []) {
      const e = readerEls[r.reader];
      if (!e) continue;
      e.scene = r.leds;
      const html = r.cards.map(c => '<div class="card" data-item="card" data-card="' +
        esc(c.id) + '" data-face-up="1">' + esc(c.name) + "</div>").join("") +
        (r.problems.length ? '<div title="' + esc(r.problems.join(" ")) + '">?</div>' : "");
      if (e.cards.innerHTML !== html) e.cards.innerHTML = html;
      e.el.dataset.leds = JSON.stringify(r.leds);
      e.el.classList.toggle("mine", mine === r.reader);
      e.el.classList.toggle("mismatch", bad.has(key(["seat", r.reader])) || r.flash);
    }
    drawTop(v);
    drawSide(v);
    drawYou(v);
    lightTargets();
    const shown = window.fairytable.shown;
    if (!shown.length || shown[shown.length - 1].actions !== v.actions) {
      shown.push({actions: v.actions, game_id: v.game_id, at: Date.now()});
      if (shown.length > 5000) shown.shift();
    }
  }

  function seatName(s) { return s; }

  function drawTop(v) {
    const turn = $("#turn");
    const mine = me.seat && v.turn === me.seat && v.status === "ongoing";
    turn.classList.toggle("mine", !!mine);
    if (v.attract) turn.textContent = "No game: the table waits for staff to start one";
    else if (v.status === "finished")
      turn.textContent = "Game over: " + (v.winner ? seatName(v.winner) + " wins" : "a draw") +
        (v.end_reason === "dead_end" ? " (no contract in play could ever be completed)" : "");
    else turn.textContent = (mine ? "Your turn (" + v.turn + ")" : "Turn: " + v.turn) +
      (v.paused ? " — paused" : "");
    turn.dataset.turn = v.turn || "";
    turn.style.background = v.game === "storybook" ?
      (String(v.turn).indexOf("hero") === 0 ? "#24408f" : "#8f2420") :
      (colourOf(v, v.turn) || "#333");
    let scores = "";
    if (v.game === "fightclub" && v.players)
      scores = v.players.map(p => p.id + " " + p.gold + " gold " + (v.scores || {})[p.id] +
        " VP").join(" · ");
    else if (v.game === "storybook" && v.scores)
      scores = Object.keys(v.scores).map(k => k + " " + v.scores[k]).join(" · ") +
        " (to " + v.target + ")" + (v.overtime ? " OVERTIME" : "");
    else if (v.players)
      scores = v.players.map(p => p.id + (p.alive ? "" : "✝") + " " + p.cards + " cards" +
        (v.scores ? " " + v.scores[p.id] + " pts" : "")).join(" · ");
    $("#scores").textContent = scores;
    let left = "";
    if (v.game === "storybook") left = "AP " + v.ap + " · phase " + v.phase;
    else if (v.game === "fightclub")
      left = "round " + v.round + " · " + v.phase + " · actions " + v.actions_left +
        " · Market " + (v.market || []).map(c => parseInt(c.slice(1, 3), 10)).join(" ");
    else if (v.game === "heroes")
      left = (v.mode === "ctf" ? "Capture the Flag" : "Battle Royale") + " · turn " +
        v.turn_number + " · actions " + v.actions_left + " · movement " +
        (v.roll === null || v.roll === undefined ? "not rolled yet" : v.roll);
    else if (v.actions_left !== null && v.actions_left !== undefined)
      left = "actions " + v.actions_left + " · movement " + v.movement_left +
        (v.reduced ? " · VALUES REDUCED" : "");
    else left = "phase " + v.phase;
    $("#left").textContent = left;
  }

  function colourOf(v, pid) {
    const p = (v.players || []).find(x => x.id === pid);
    return p ? p.colour : null;
  }

  function esc(s) {
    return String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;",
                                               '"': "&quot;"}[c]));
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
    const pg = v.in_progress;
    let words = "";
    if (pg && pg.kind === "placing") words = "A card is going down on " + key(pg.cells[0]) +
      ": double tap it now to hide it, or it is played face up.";
    else if (pg && pg.kind === "sliding") words = "A card lifted from " + key(pg.cells[0]) +
      " is on its way: put it on a lit cell, or back.";
    else if (pg && pg.kind === "pawn_in_hand") words = pg.player + "'s pawn is in hand: put it on a lit cell.";
    else if (pg && pg.kind === "throw") words = "Roll the dice into the lit pockets (" + pg.throw + ").";
    $("#progress").innerHTML = words ? '<div class="pg">' + esc(words) + "</div>" : "";
    const acted = v.log.filter(l => l.indexOf("mismatch: ") !== 0);
    const last = acted.length ? acted[acted.length - 1] : "";
    // The last action and what it did (bested, overwhelmed, captured, duels, dice...).
    const said = (v.last || []).map(e => e.type + Object.keys(e).filter(k => k !== "type" &&
      typeof e[k] !== "object").map(k => " " + k + "=" + e[k]).join("")).slice(0, 6);
    $("#last").innerHTML = "<b>Last:</b> " + esc(last || "nothing yet") +
      (said.length ? '<div class="events">' + said.map(esc).join("<br>") + "</div>" : "");
    $("#tiles").innerHTML = v.tiles.map(t => '<span class="tile ' + (t.online ? "on" : "off") +
      '" data-tile="' + esc(t.id) + '" data-online="' + (t.online ? 1 : 0) +
      '"><span class="dot"></span>' + esc(t.id) + (t.online ? "" : " offline") + "</span>").join("");
    const log = $("#log");
    log.innerHTML = v.log.map(l => "<li>" + esc(l) + "</li>").join("");
    log.scrollTop = log.scrollHeight;
  }

  // ------------------------------------------------------------ a seat's controls

  function drawYou(v) {
    const box = $("#you");
    const you = v.you;
    const seats = '<div class="seats">' + v.seats.map(s => "<span>" + esc(s.seat) +
      (s.bot ? ' <span class="bot-tag">bot</span>' : "") + "</span>").join("") + "</div>";
    if (!you) { box.innerHTML = (tv ? "" : "<b>Watching</b> (spectator) ") + seats; return; }
    let h = "<b>You are " + esc(you.seat) + "</b>" + (you.bot ? " (a bot plays here)" : "") + seats;
    if (!you.controls) {
      box.innerHTML = h + (v.virtual ? "" : "<p>A real table: play with the cards.</p>");
      return;
    }
    const hand = [];
    if (v.game === "storybook") {
      for (const c of you.hand || []) hand.push([c.id, c.name]);
      for (const c of you.lifted || []) hand.push([c.id, c.name + " (lifted)"]);
      if (you.unseen && you.pool) for (const c of you.pool) hand.push([c.id, c.name]);
      h += '<div>Hand' + (you.unseen ? " (" + you.unseen + " unknown: pick the one you hold)" : "") +
        ":</div>";
    } else if (v.game === "heroes") {
      for (const c of you.hand || []) hand.push([c.id, c.name]);
      h += "<div>Figures and cards to lay down:</div>";
    } else if (v.game === "fightclub") {
      for (const c of you.hand || []) hand.push([c.id, String(c.value)]);
      h += "<div>Hand (" + you.gold + " gold): pick a card, then a wagon or the Market</div>";
    } else if (!you.pawn_on_table) {
      hand.push(["pawn", "Your pawn (" + you.colour + ")"]);
      h += "<div>In hand:</div>";
    }
    h += '<div class="row hand">' + hand.map(c => '<button data-card="' + esc(c[0]) + '"' +
      (picked === c[0] && tool === "place" ? ' class="on"' : "") + ">" + esc(c[1]) +
      "</button>").join("") + "</div>";
    const tools = [["tap", "Tap"], ["double", "Double tap"], ["hold", "Hold"], ["lift", "Lift"],
                   ["move", "Lift + put"]];
    h += '<div class="row tools">' + tools.map(t => '<button data-tool="' + t[0] + '"' +
      (tool === t[0] ? ' class="on"' : "") + ">" + t[1] + "</button>").join("") + "</div>";
    const names = {draw: "Draw", end_turn: "End turn", twist: "Plot twist", roll: "Roll order",
                   swap: "Swap", no_defence: "No defence", wagon: "Buy wagon (gold)",
                   action: "Extra action (2 gold)"};
    h += '<div class="row buttons">' + you.buttons.map(b => '<button data-button="' + b + '">' +
      names[b] + "</button>").join("") +
      (v.game === "royale" || v.game === "heroes" ? '<button data-op="throw">Throw dice</button>'
       : "") + "</div>";
    if (you.web_actions && you.web_actions.length) {
      // Fight Club: what the hand's cards do off the table (discard, draw one for one, pay a
      // wagon in creatures, discard down, a fight card, cards to pass).
      h += '<div class="row"><select id="webaction">' + you.web_actions.map((a, i) =>
        '<option value="' + i + '">' + esc(Object.keys(a).map(k => k === "type" ? a[k] :
          k + " " + (Array.isArray(a[k]) ? a[k].map(c => String(c).slice(1, 3)).join("+") :
          a[k])).join(" ")) + "</option>").join("") + '</select><button data-webaction="1">Do' +
        "</button></div>";
    }
    if (you.plot_twist_choices) h += "<div>Plot twist choices: " +
      you.plot_twist_choices.map(esc).join(", ") + " (Plot twist: next; End turn: take it)</div>";
    h += '<div id="hint">' + esc(hint()) + "</div>";
    box.innerHTML = h;
    for (const b of box.querySelectorAll("button[data-card]")) b.onclick = () => {
      picked = b.dataset.card; tool = "place"; moveFrom = null; drawYou(view); lightTargets(); };
    for (const b of box.querySelectorAll("button[data-tool]")) b.onclick = () => {
      tool = b.dataset.tool; picked = null; moveFrom = null; drawYou(view); lightTargets(); };
    for (const b of box.querySelectorAll("button[data-button]")) b.onclick = () =>
      send({op: "button", name: b.dataset.button});
    for (const b of box.querySelectorAll("button[data-op]")) b.onclick = () =>
      send({op: b.dataset.op});
    for (const b of box.querySelectorAll("button[data-webaction]")) b.onclick = () =>
      send({op: "action", action: you.web_actions[parseInt($("#webaction").value, 10)]});
  }

  function pickedKind() {
    const you = view && view.you;
    const c = ((you && you.hand) || []).find(h => h.id === picked);
    return c ? c.kind : null;
  }

  function hint() {
    if (tool === "place" && view && view.game === "heroes" && pickedKind() === "card")
      return "Click your card reader (below the board) to lay " + picked + " on it.";
    if (tool === "place") return "Click a lit cell to put " + picked + " there.";
    if (tool === "move") return moveFrom ? "Click where it goes." : "Click the card or pawn to lift.";
    return "Click a cell to " + ({tap: "tap", double: "double tap", hold: "hold",
                                  lift: "lift what lies on"})[tool] + " it.";
  }

  function targetCells() {
    const you = view && view.you;
    if (!you || !you.controls) return [];
    if (tool === "place" && picked) {
      if (view.game === "storybook") return (you.targets || {})[picked] || [];
      return (you.targets || {}).place || [];
    }
    if (tool === "move" && moveFrom) {
      if (view.game === "storybook") return (you.slides || {})[key(moveFrom)] || [];
      return (you.targets || {}).move || [];
    }
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
    if (view.you.reader !== n) { toast("lay your cards on your own card reader", true); return; }
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
      if (!picked) { toast("pick a card from your hand first", true); return; }
      send({op: "place", cell: cell, card: picked});
      picked = null; tool = "tap";
    } else if (tool === "move") {
      if (!moveFrom) { moveFrom = cell; }
      else { send({op: "move", cell: moveFrom, to: cell}); moveFrom = null; tool = "tap"; }
    } else {
      send({op: tool, cell: cell});
    }
    drawYou(view);
    lightTargets();
  }

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
