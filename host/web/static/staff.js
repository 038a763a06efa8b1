// The staff page: PIN-protected controls, tile health, seat links as QR codes, and a journalled
// game stepped through action by action (docs/web.md, "Staff API").
"use strict";
(function () {
  const $ = s => document.querySelector(s);
  let pin = sessionStorage.getItem("fairytable-pin") || "";
  const web = new URLSearchParams(location.hash.slice(1)).get("web");
  let replay = null, timer = null, tilesShape = "", gamesHtml = "";

  function headers() {
    const h = {"X-Staff-Pin": pin, "Content-Type": "application/json"};
    if (web) h["X-Web-Token"] = web;
    return h;
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
      const st = await api("GET", "/api/staff/state");
      sessionStorage.setItem("fairytable-pin", pin);
      $("#login").hidden = true; $("#panel").hidden = false;
      $("#conn").className = "conn up"; $("#conn").textContent = "staff";
      show(st);
      await seats(st);
      clearInterval(timer);
      timer = setInterval(refresh, 2000);
    } catch (e) { $("#loginerr").textContent = e.message; }
  }
  async function refresh() {
    try { show(await api("GET", "/api/staff/state")); }
    catch (e) { $("#said").textContent = e.message; }
  }

  function show(st) {
    $("#game").textContent = st.game + " · game " + st.game_id + (st.attract ? " · attract mode" : "") +
      (st.paused ? " · PAUSED" : "") + " · " + st.clients + " page(s) watching";
    newGameForm(st.form);
    $("#palette").value = st.palette;
    const cols = ["index", "uid", "online", "firmware", "uptime_ms", "heap_free", "loop_max_ms",
                  "crc_errors", "resends", "reboots", "reconnects", "protocol_errors", "flood_drops"];
    let h = "<tr>" + cols.map(c => "<th>" + c + "</th>").join("") + "<th>readers</th><th></th></tr>";
    for (const t of st.tiles) {
      h += '<tr data-tile="' + esc(t.uid) + '">' + cols.map(c => "<td" +
        (c === "online" && !t.online ? ' class="bad"' : "") + ">" + esc(t[c] === null ||
        t[c] === undefined ? "?" : t[c]) + "</td>").join("") + '<td class="readers">' + t.readers.map((r, i) =>
        '<span class="' + (r.ok ? "" : "bad") + '">' + i + ":" + (r.ok ? "ok" : "NOT OK") +
        " " + r.errors + "e</span>").join(" ") + '</td><td><div class="acts">' +
        '<button data-led="' + esc(t.uid) + '">LED test</button> ' +
        '<button data-off="' + esc(t.uid) + '">off</button><button data-on="' + esc(t.uid) +
        '">on</button></div></td></tr>';
    }
    // Rebuilt only when the tiles change; the numbers are updated in place (a button being
    // pressed is never swapped out under the finger).
    const shape = st.tiles.map(t => t.uid + (t.online ? "+" : "-") + t.readers.map(r => r.ok)).join();
    if (shape === tilesShape) {
      for (const t of st.tiles) {
        const row = document.querySelector('#tiles tr[data-tile="' + t.uid + '"]');
        if (!row) continue;
        cols.forEach((c, i) => { row.children[i].textContent = t[c] === null ||
          t[c] === undefined ? "?" : t[c]; });
      }
    } else {
      tilesShape = shape;
      $("#tiles").innerHTML = h;
    }
    for (const b of document.querySelectorAll("[data-led]")) b.onclick = () => op("led_test", {tile: b.dataset.led});
    for (const b of document.querySelectorAll("[data-off]")) b.onclick = () => op("tile_off", {tile: b.dataset.off});
    for (const b of document.querySelectorAll("[data-on]")) b.onclick = () => op("tile_on", {tile: b.dataset.on});
    const games = "<tr><th>game</th><th>kind</th><th>actions</th><th></th><th></th></tr>" +
      st.games.map(g => "<tr><td>" + g.id + "</td><td>" + esc(g.game) + "</td><td>" + g.actions +
        "</td><td>" + (g.current ? "playing" : g.finished ? "finished" : "unfinished") +
        '</td><td><button data-replay="' + g.id + '" data-steps="' + g.actions +
        '">step through</button></td></tr>').join("");
    if (games !== gamesHtml) { gamesHtml = games; $("#games").innerHTML = games; }
    for (const b of document.querySelectorAll("[data-replay]")) b.onclick = () =>
      step(parseInt(b.dataset.replay), 0);
  }

  async function seats(st) {
    let h = "";
    for (const s of st.seats) {
      const svg = await api("GET", "/api/staff/qr?seat=" + encodeURIComponent(s.seat));
      h += '<div class="seat" data-seat="' + esc(s.seat) + '"><b>' + esc(s.seat) +
        (s.bot ? " (bot)" : "") + "</b><br>" + svg + '<a href="' + esc(s.url) + '">' +
        esc(s.url) + "</a></div>";
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
  let formKey = "";
  function newGameForm(form) {
    const k = JSON.stringify(form);
    if (k === formKey) return;
    formKey = k;
    $("#ng-title").textContent = form.title;
    $("#ng-players").innerHTML = form.players.map(n => '<option value="' + n + '"' +
      (n === form.default_players ? " selected" : "") + ">" + n + "</option>").join("");
    $("#ng-modebox").hidden = !form.modes.length;
    $("#ng-mode").innerHTML = form.modes.map(m => '<option value="' + m + '"' +
      (m === form.mode ? " selected" : "") + ">" + m + "</option>").join("");
    $("#ng-bots").max = Math.max(...form.players);
    $("#ng-bots").value = form.bots;
  }
  $("#newgame").onsubmit = ev => {
    ev.preventDefault();
    const f = new FormData($("#newgame")), body = {};
    for (const k of ["players", "bots", "seed"]) if (f.get(k) !== "" && f.get(k) !== null)
      body[k] = parseInt(f.get(k));
    if (!$("#ng-modebox").hidden && f.get("mode")) body.mode = f.get("mode");
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
