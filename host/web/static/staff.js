// The staff page: PIN-protected controls, tile health, seat links as QR codes, and a journalled
// game stepped through action by action (docs/web.md, "Staff API").
"use strict";
(function () {
  const $ = s => document.querySelector(s);
  let pin = sessionStorage.getItem("fairytable-pin") || "";
  // The key the server gives this page for the right PIN: an open staff page is never kept
  // out by someone else's wrong PINs.
  let staffKey = sessionStorage.getItem("fairytable-staff-session") || "";
  const web = new URLSearchParams(location.hash.slice(1)).get("web");
  let replay = null, timer = null, tilesShape = "", gamesShape = "", seatsShape = "";

  function headers() {
    const h = {"X-Staff-Pin": pin, "Content-Type": "application/json"};
    if (staffKey) h["X-Staff-Session"] = staffKey;
    if (web) h["X-Web-Token"] = web;
    return h;
  }
  function keep(st) {
    if (st.session) { staffKey = st.session; sessionStorage.setItem("fairytable-staff-session", staffKey); }
    return st;
  }
  async function api(method, path, body) {
    const r = await fetch(path, {method: method, headers: headers(),
                                 body: body === undefined ? undefined : JSON.stringify(body)});
    const type = r.headers.get("Content-Type") || "";
    const data = type.indexOf("json") >= 0 ? await r.json() : await r.text();
    if (!r.ok) throw new Error(data.error || ("error " + r.status));
    return data;
  }
  const esc = s => String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;",
                                                        '"': "&quot;"}[c]));

  async function open() {
    try {
      const st = keep(await api("GET", "/api/staff/state"));
      sessionStorage.setItem("fairytable-pin", pin);
      $("#login").hidden = true; $("#panel").hidden = false;
      $("#conn").className = "conn up"; $("#conn").textContent = "staff";
      await show(st);
      clearInterval(timer);
      timer = setInterval(refresh, 2000);
    } catch (e) { $("#loginerr").textContent = e.message; }
  }
  let refreshing = false;
  async function refresh() {
    if (refreshing) return;        // a slow answer (the QR codes) is not asked for twice
    refreshing = true;
    try { await show(keep(await api("GET", "/api/staff/state"))); }
    catch (e) { $("#said").textContent = e.message; }
    finally { refreshing = false; }
  }

  // A tile's numbers in words a person reads at a glance (what `fairytable doctor` reports).
  const LINK = [["crc_errors", "CRC error"], ["resends", "resend"], ["reboots", "reboot"],
                ["reconnects", "reconnect"], ["protocol_errors", "protocol error"],
                ["flood_drops", "flood drop"]];
  const known = v => v !== null && v !== undefined;
  function upFor(ms) {
    if (!known(ms)) return "?";
    const s = Math.floor(ms / 1000);
    if (s < 120) return s + " s";
    if (s < 7200) return Math.floor(s / 60) + " min";
    return Math.floor(s / 3600) + " h " + Math.floor(s % 3600 / 60) + " min";
  }
  function tileCells(t) {
    const bad = t.readers.map((r, i) => r.ok ? null : i).filter(i => i !== null);
    const errors = t.readers.reduce((n, r) => n + (r.errors || 0), 0);
    const link = LINK.filter(([k]) => t[k]).map(([k, w]) => t[k] + " " + w + (t[k] === 1 ? "" : "s")).join(", ");
    return [known(t.index) ? String(t.index) : "?", t.uid, t.online ? "online" : "OFFLINE",
            known(t.firmware) ? String(t.firmware) : "?", upFor(t.uptime_ms),
            known(t.heap_free) ? (t.heap_free / 1024).toFixed(1) + " KB" : "?",
            known(t.loop_max_ms) ? t.loop_max_ms + " ms" : "?", link || "none",
            (bad.length ? "not ok: " + bad.join(", ") : "all " + t.readers.length + " ok") +
            (errors ? " (" + errors + " errors)" : "")];
  }
  const TILE_HEADS = ["#", "tile", "state", "firmware", "up for", "heap free", "slowest loop",
                      "link problems", "readers", ""];

  // The journal's games: what each is now, in words.
  const gameState = g => g.finished ? (g.current ? "finished (on the table)" : "finished")
    : g.current ? "playing" : "unfinished";

  async function show(st) {
    $("#game").textContent = st.title + " · game " + st.game_id + (st.attract ? " · attract mode" : "") +
      (st.paused ? " · PAUSED" : "") + " · " + st.clients + (st.clients === 1 ? " page" : " pages") + " watching";
    newGameForm(st.form);
    // Pause or resume, whichever the game is not (neither while no game is played).
    $("button[data-op=pause]").disabled = st.paused || st.attract;
    $("button[data-op=resume]").disabled = !st.paused || st.attract;
    $("#palette").value = st.palette;
    // Rebuilt only when the set of tiles changes; everything else in a row (online or not,
    // its readers, its numbers) is updated in place, so a button being pressed is never
    // swapped out under the finger, not even when a tile first reports its readers or
    // comes back online.
    const shape = st.tiles.map(t => t.uid).join();
    if (shape !== tilesShape) {
      tilesShape = shape;
      $("#tiles").innerHTML = "<tr>" + TILE_HEADS.map(c => "<th>" + c + "</th>").join("") + "</tr>" +
        st.tiles.map(t => '<tr data-tile="' + esc(t.uid) + '">' + tileCells(t).map((c, i) =>
          '<td class="' + ["index", "uid", "online", "fw", "up", "heap", "loop", "link",
                           "readers"][i] + '"></td>').join("") +
          '<td><div class="acts"><button data-led="' + esc(t.uid) + '">LED test</button>' +
          '<button data-off="' + esc(t.uid) + '" title="switch the virtual tile off">off</button>' +
          '<button data-on="' + esc(t.uid) + '" title="switch the virtual tile on">on</button>' +
          "</div></td></tr>").join("");
      for (const b of document.querySelectorAll("[data-led]")) b.onclick = () => op("led_test", {tile: b.dataset.led});
      for (const b of document.querySelectorAll("[data-off]")) b.onclick = () => op("tile_off", {tile: b.dataset.off});
      for (const b of document.querySelectorAll("[data-on]")) b.onclick = () => op("tile_on", {tile: b.dataset.on});
    }
    for (const t of st.tiles) {
      const row = document.querySelector('#tiles tr[data-tile="' + CSS.escape(t.uid) + '"]');
      if (!row) continue;
      tileCells(t).forEach((text, i) => { if (row.children[i].textContent !== text) row.children[i].textContent = text; });
      row.children[2].className = "online" + (t.online ? "" : " bad");
      const readersBad = t.readers.some(r => !r.ok);
      row.children[8].className = "readers" + (readersBad ? " bad" : "");
    }
    // The journal: rows rebuilt only when the list of games changes; the counts and states
    // are updated in place, so a step-through button is never replaced under the pointer.
    const gshape = st.games.map(g => g.id).join();
    if (gshape !== gamesShape) {
      gamesShape = gshape;
      $("#games").innerHTML = "<tr><th>game</th><th>kind</th><th>actions</th><th></th><th></th></tr>" +
        st.games.map(g => '<tr data-game="' + g.id + '"><td>' + g.id + "</td><td>" + esc(g.title) +
          '</td><td class="actions"></td><td class="state"></td><td><button data-replay="' + g.id +
          '">step through</button></td></tr>').join("");
      for (const b of document.querySelectorAll("[data-replay]")) b.onclick = () =>
        step(parseInt(b.dataset.replay), 0);
    }
    for (const g of st.games) {
      const row = document.querySelector('#games tr[data-game="' + g.id + '"]');
      if (!row) continue;
      const cells = [[".actions", String(g.actions)], [".state", gameState(g)]];
      for (const [sel, text] of cells) {
        const td = row.querySelector(sel);
        if (td.textContent !== text) td.textContent = text;
      }
      row.querySelector("[data-replay]").dataset.steps = g.actions;
    }
    // The seat links change with every game: their QR codes follow.
    const sshape = st.seats.map(x => x.seat + (x.bot ? "*" + x.level : "") + x.url).join(" ");
    if (sshape !== seatsShape) {
      seatsShape = sshape;
      await seats(st);
    }
  }

  async function seats(st) {
    // The bots' levels are said unless every bot is normal ("hard bot"; else "bot").
    const levels = st.seats.some(s => s.bot && s.level !== "normal");
    // On loopback a phone cannot open the links: no QR code to scan, and a sentence why.
    let h = st.reach ? '<p class="note" id="reach">' + esc(st.reach) + "</p>" : "";
    for (const s of st.seats) {
      const svg = st.reach ? "" :
        await api("GET", "/api/staff/qr?seat=" + encodeURIComponent(s.seat));
      const bot = s.bot ? " (" + (levels ? esc(s.level) + " bot" : "bot") + ")" : "";
      h += '<div class="seat" data-seat="' + esc(s.seat) + '"><b>' + esc(s.name || s.seat) +
        bot + "</b><br>" + svg + '<a href="' + esc(s.url) + '">' + esc(s.url) + "</a></div>";
    }
    $("#seats").innerHTML = h;
  }

  async function op(name, body) {
    try { $("#said").textContent = (await api("POST", "/api/staff/" + name, body || {})).message; }
    catch (e) { $("#said").textContent = e.message; }
    refresh();
  }
  for (const b of document.querySelectorAll("button[data-op]"))
    if (b.dataset.op !== "start") b.onclick = () => op(b.dataset.op);
  // The new-game form offers what this table's game takes (its player counts and modes).
  let formKey = "", form = null, chosen = {};
  function newGameForm(given) {
    const k = JSON.stringify(given);
    if (k === formKey) return;
    formKey = k;
    form = given;
    chosen = {};
    $("#ng-title").textContent = form.title;
    $("#ng-players").innerHTML = form.players.map(n => '<option value="' + n + '"' +
      (n === form.default_players ? " selected" : "") + ">" + n + "</option>").join("");
    $("#ng-modebox").hidden = !form.modes.length;
    $("#ng-mode").innerHTML = form.modes.map(m => '<option value="' + m + '"' +
      (m === form.mode ? " selected" : "") + ">" + (form.mode_titles[m] || m) + "</option>").join("");
    $("#ng-switches").innerHTML = (form.switches || []).map(o => '<label>' + esc(o.title) +
      ' <select data-option="' + esc(o.name) + '">' + o.values.map(v => '<option value="' +
      esc(v) + '"' + (v === o.value ? " selected" : "") + ">" +
      esc((o.value_titles || {})[v] || v) + "</option>").join("") +
      "</select></label>").join("");
    $("#ng-bots").value = form.bots;
    levelSelects();
  }
  // One level a bot, the bots being the last seats of the count chosen: each select is
  // labelled with its seat's name at that count ("Bot 1", "Bot 2" where the form knows no
  // names) and starts from the level of that seat's bot now (else normal); a level staff
  // chose stays with its seat as the counts change.
  function levelSelects() {
    const players = parseInt($("#ng-players").value) || 0;
    // No more bots than players: the field's top follows the players chosen.
    const field = $("#ng-bots");
    field.max = players;
    const bots = Math.max(0, Math.min(players, parseInt(field.value) || 0));
    if (field.value !== "" && String(bots) !== field.value) field.value = bots;
    const names = (form.seat_names || {})[String(players)];
    const offered = form.level_choices.map(c => c.level);
    let h = "";
    for (let i = 0; i < bots; i++) {
      const n = players - bots + 1 + i;
      const now = chosen[n] || form.levels[n];
      const level = offered.includes(now) ? now : "normal";
      h += "<label>" + esc(names ? names[n - 1] : "Bot " + (i + 1)) +
        ' <select data-level-seat="' + n + '">' + form.level_choices.map(c =>
          '<option value="' + esc(c.level) + '" title="' + esc(c.words) + '"' +
          (c.level === level ? " selected" : "") + ">" + esc(c.level) + "</option>").join("") +
        "</select></label>";
    }
    $("#ng-level-list").innerHTML = h;
    $("#ng-levels").hidden = !bots;
    for (const sel of document.querySelectorAll("#ng-level-list select"))
      sel.onchange = () => { chosen[sel.dataset.levelSeat] = sel.value; };
  }
  $("#ng-players").onchange = levelSelects;
  $("#ng-bots").oninput = levelSelects;
  $("#newgame").onsubmit = ev => {
    ev.preventDefault();
    const f = new FormData($("#newgame")), body = {};
    for (const k of ["players", "bots", "seed"]) if (f.get(k) !== "" && f.get(k) !== null)
      body[k] = parseInt(f.get(k));
    if (!$("#ng-modebox").hidden && f.get("mode")) body.mode = f.get("mode");
    const options = {};
    for (const s of document.querySelectorAll("#ng-switches select[data-option]"))
      options[s.dataset.option] = s.value;
    if (Object.keys(options).length) body.options = options;
    const levels = {};
    for (const s of document.querySelectorAll("#ng-level-list select[data-level-seat]"))
      levels[s.dataset.levelSeat] = s.value;
    if (Object.keys(levels).length) body.levels = levels;
    op("start", body);
  };
  $("#palette").onchange = () => op("palette", {palette: $("#palette").value});
  $("#login").onsubmit = ev => { ev.preventDefault(); pin = $("#pin").value; open(); };

  async function step(game, n) {
    try {
      const r = await api("GET", "/api/staff/replay?game=" + game + "&step=" + n);
      replay = r;
      $("#replay").hidden = false;
      $("#stepinfo").textContent = "game " + game + ": step " + r.step + " of " + r.steps +
        " · " + r.banner;
      $("#raction").textContent = r.said || "the setup";
      draw(r);
    } catch (e) { $("#said").textContent = e.message; }
  }
  $("#first").onclick = () => replay && step(replay.game_id, 0);
  $("#prev").onclick = () => replay && step(replay.game_id, Math.max(0, replay.step - 1));
  $("#next").onclick = () => replay && step(replay.game_id, Math.min(replay.steps, replay.step + 1));
  $("#last").onclick = () => replay && step(replay.game_id, replay.steps);

  function draw(r) {
    const b = $("#rboard");
    const cs = r.cells.map(c => c.cell[0]), rs = r.cells.map(c => c.cell[1]);
    const minC = Math.min(...cs), maxR = Math.max(...rs), S = 58;
    b.style.width = ((Math.max(...cs) - minC + 1) * S) + "px";
    b.style.height = ((maxR - Math.min(...rs) + 1) * S) + "px";
    b.innerHTML = r.cells.map(c => {
      const seg = c.leds.find(s => s[0] !== "off");
      const border = seg ? FxLeds.css(FxLeds.segment(seg, 0, 6, 0)[0] || [0, 0, 0]) : "#333";
      const text = c.items.map(i => (i.shape || "") + i.label).join(" ");
      return '<div class="rcell" data-cell="' + c.cell[0] + "," + c.cell[1] + '" style="left:' +
        (c.cell[0] - minC) * S + "px;top:" + (maxR - c.cell[1]) * S + "px;border-color:" +
        border + '">' + esc(text) + "</div>";
    }).join("");
  }

  if (pin) open();
})();
