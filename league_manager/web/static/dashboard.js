// The League Manager's dashboard: fills each page from the JSON routes and keeps it live
// through the server-sent events of /events. Every value is written as text, never as HTML.
"use strict";

(() => {
  const body = document.body;
  const TOKEN_KEY = "agent-league-admin-token";
  const MIN_REFRESH_GAP_MS = 500;

  // -- building blocks ---------------------------------------------------------------

  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  const badge = (text, kind) => h("span", { class: `badge ${kind || text}` }, text);
  const OUTCOMES = { WIN: "won", LOSS: "lost", DRAW: "drawn", TECHNICAL_LOSS: "lost by a fault" };
  const outcomeBadge = (outcome) => badge(OUTCOMES[outcome] || outcome, outcome);
  const num = (value) => h("td", { class: "num" }, value === null || value === undefined ? "–" : value);
  const playerLink = (id, name) => h("a", { href: `/ui/players/${encodeURIComponent(id)}` }, name || id);
  const matchLink = (id) => h("a", { href: `/ui/matches/${encodeURIComponent(id)}` }, id);

  function table(headers, rows, attrs) {
    const head = h("tr", {}, headers.map((title) => {
      const numeric = title.startsWith("#");
      return h("th", { class: numeric ? "num" : null, scope: "col" }, numeric ? title.slice(1) : title);
    }));
    return h("div", { class: "scroll" },
      h("table", attrs || {}, h("thead", {}, head), h("tbody", {}, rows)));
  }

  function fill(id, ...nodes) {
    const box = document.getElementById(id);
    if (box) box.replaceChildren(h("div", {}, nodes));
  }

  const empty = (text) => h("p", { class: "muted" }, text);
  const json = (value) => h("pre", {}, JSON.stringify(value, null, 2));
  const clock = (stamp) => (stamp ? String(stamp).replace("T", " ").replace("Z", "") : "");

  async function errorOf(response) {
    try {
      const answer = await response.json();
      if (answer && typeof answer.error === "string") return answer.error;
      if (answer && typeof answer.detail === "string") return `${answer.detail} (HTTP ${response.status})`;
    } catch (_) { /* not JSON: the status says it */ }
    return `HTTP ${response.status} ${response.statusText}`.trim();
  }

  async function getJSON(url) {
    const response = await fetch(url, { cache: "no-store", headers: { Accept: "application/json" } });
    if (!response.ok) {
      const failure = new Error(await errorOf(response));
      failure.status = response.status;
      throw failure;
    }
    return response.json();
  }

  function showError(message) {
    const box = document.getElementById("error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  // -- live updates: one EventSource, refetches coalesced to one per MIN_REFRESH_GAP_MS;
  // polling (a refetch every POLL_MS) whenever the stream is down, or open but silent (a
  // proxy that blocks or buffers server-sent events): the page never freezes ------------

  const POLL_MS = 3000;
  const HELLO_MS = 5000;  // the stream's first event comes at once; later than this, it is held

  function live(refresh) {
    let last = 0;
    let timer = null;
    let busy = false;
    let again = false;

    async function run() {
      if (busy) { again = true; return; }
      busy = true;
      last = Date.now();
      try {
        await refresh();
        showError("");
      } catch (failure) {
        showError(failure.message);
      } finally {
        busy = false;
        if (again) { again = false; soon(); }
      }
    }

    function soon() {
      if (timer !== null) return;
      timer = setTimeout(() => { timer = null; run(); }, Math.max(0, last + MIN_REFRESH_GAP_MS - Date.now()));
    }

    run();
    if (!body.dataset.events) return run;
    const indicator = document.getElementById("live");
    let streaming = false;  // an event arrived on the open stream
    const show = (text, kind, title) => {
      indicator.textContent = text;
      indicator.className = `badge ${kind}`;
      indicator.title = title;
    };
    const polling = () => {
      streaming = false;
      show("updating every few seconds", "polling",
        "The live event stream does not get through (a proxy may block it): the page asks for news every few seconds instead.");
    };
    setInterval(() => { if (!streaming && !document.hidden) run(); }, POLL_MS);
    if (!window.EventSource) { polling(); return run; }
    const source = new EventSource("/events");
    const heard = () => {
      if (!streaming) show("live", "live", "Updated as soon as something happens.");
      streaming = true;
      soon();
    };
    const names = ["hello", "resync", ...body.dataset.events.split(" ")];
    for (const name of names) source.addEventListener(name, heard);
    setTimeout(() => { if (!streaming) polling(); }, HELLO_MS);
    source.onerror = polling;
    window.addEventListener("pagehide", () => source.close());
    return run;
  }

  // -- the dashboard -----------------------------------------------------------------

  function renderProgress(status) {
    const done = status.matches_completed;
    const total = status.total_matches;
    const round = status.current_round
      ? `round ${status.current_round} of ${status.total_rounds}`
      : status.state === "COMPLETED" ? `all ${status.total_rounds} rounds played`
      : `${status.total_rounds} rounds scheduled`;
    const finished = status.state === "COMPLETED"
      ? h("p", { id: "finished" }, `The league has finished: all ${total} matches of its ` +
        `${status.total_rounds} rounds are played, and the standings below are final.`)
      : null;
    fill("progress", finished,
      h("div", { class: "facts" },
        h("span", {}, "State ", badge(status.state)),
        status.paused === true ? badge("paused") : null,
        h("span", { id: "round" }, round),
        h("span", { id: "matches-done", "data-done": done, "data-total": total },
          `${done} of ${total} matches played`),
        h("span", { class: "muted" }, `game: ${status.game_type}`)),
      total ? h("progress", { max: total, value: done, "aria-label": "matches played" }) : null);
  }

  function renderRunning(running) {
    if (!running.length) { fill("running", empty("No match is being played right now.")); return; }
    fill("running", table(["Match", "Round", "Players", "Referee", "Status"], running.map((m) =>
      h("tr", {},
        h("td", {}, matchLink(m.match_id)), h("td", {}, m.round_id),
        h("td", {}, m.players.map((p, i) => [i ? " v " : "", playerLink(p.player_id, p.display_name)])),
        h("td", {}, m.referee_id || "–"), h("td", {}, badge(m.status))))));
  }

  const RECORD = ["#Played", "#Won", "#Drawn", "#Lost", "#Faults", "#Points"];
  const FAULTS = "Faults: matches lost by a fault (no answer in time, or a move the rules refuse).";
  const recordCells = (row) => [num(row.played), num(row.wins), num(row.draws), num(row.losses),
    num(row.technical_losses), num(row.points)];

  // An agent's state in words: after a league has finished every agent is told to stop,
  // which is the end of its work, not a failure.
  const stateBadge = (state, over) => (over && state === "SHUTDOWN" ? badge("finished", "FINISHED") : badge(state));

  function renderStandings(standings, states, over) {
    const rows = standings.standings.map((row) => h("tr", { "data-player": row.player_id },
      num(row.rank), h("td", { class: "name" }, playerLink(row.player_id, row.display_name), " ",
        states[row.player_id] && !["ACTIVE", "SHUTDOWN"].includes(states[row.player_id]) ? badge(states[row.player_id]) : null),
      recordCells(row)));
    const rounds = standings.rounds_completed;
    const box = rows.length
      ? table(["##", "Player", ...RECORD], rows, { class: "standings" })
      : empty("No standings yet: the schedule is fixed when the league starts.");
    fill("standings", h("div", { id: "standings-table", "data-version": standings.version }, box,
      h("p", { class: "muted" }, over ? "Final standings. " : `After ${rounds} completed round${rounds === 1 ? "" : "s"}. `,
        rows.length ? [h("span", { class: "narrow-only" }, "On a narrow screen the drawn, lost and " +
          "fault columns are on each player's page. "), FAULTS] : "")));
  }

  function renderAgents(id, agents, referee, over, done) {
    if (!agents.length) { fill(id, empty(referee ? "No referee has registered." : "No player has registered.")); return; }
    const load = referee && !over;  // matches running on a referee: none once the league is over
    const headers = ["Referee", "Name", "State", "#Running now", "#At once, at most"];
    fill(id, table(load ? headers : [referee ? "Referee" : "Player", "Name", "State"], agents.map((a) => h("tr", { "data-agent": a.agent_id },
      h("td", {}, referee ? a.agent_id : playerLink(a.agent_id, a.agent_id)),
      h("td", {}, a.display_name),
      h("td", { class: "state" }, stateBadge(a.state, over), over && a.state === "SHUTDOWN" ? [" ", done(a)] : null),
      load ? num(a.running_matches) : null, load ? num(a.max_concurrent_matches) : null))));
  }

  async function dashboard() {
    const overview = await getJSON("/api/overview");
    const status = overview.status;
    document.getElementById("league-name").textContent = status.display_name;
    const states = Object.fromEntries(status.players.map((p) => [p.agent_id, p.state]));
    const over = status.state === "COMPLETED";
    const rows = Object.fromEntries(overview.standings.standings.map((row) => [row.player_id, row]));
    renderProgress(status);
    renderRunning(overview.running);
    renderStandings(overview.standings, states, over);
    renderAgents("referees", status.referees, true, over, (a) => {
      const count = (overview.refereed || {})[a.agent_id] || 0;
      return `${count} match${count === 1 ? "" : "es"} refereed`;
    });
    renderAgents("players", status.players, false, over, (a) => {
      const row = rows[a.agent_id];
      return row ? `${row.played} played, ${row.wins} won` : "no match played";
    });
  }

  // -- the schedule ------------------------------------------------------------------

  const SCHEDULE_ROUNDS = 10;  // rounds a page shows: a league of thousands has thousands

  async function schedule() {
    const from = Math.max(1, Number(new URLSearchParams(location.search).get("from_round")) || 1);
    const doc = await getJSON(`/schedule?from_round=${from}&rounds=${SCHEDULE_ROUNDS}`);
    const names = Object.fromEntries(doc.players.map((p) => [p.player_id, p.display_name]));
    if (!doc.rounds.length) { fill("schedule", empty(doc.total_rounds ? `No round ${from}: the schedule has ${doc.total_rounds}.` : "No schedule yet: it is fixed when the league starts.")); return; }
    const last = doc.rounds[doc.rounds.length - 1].round_id;
    const pager = h("p", { class: "muted pager" }, `Rounds ${from}–${last} of ${doc.total_rounds}`,
      from > 1 ? [" · ", h("a", { href: `/ui/schedule?from_round=${Math.max(1, from - SCHEDULE_ROUNDS)}` }, "earlier rounds")] : null,
      doc.next_from_round ? [" · ", h("a", { href: `/ui/schedule?from_round=${doc.next_from_round}` }, "later rounds")] : null);
    fill("schedule", pager, doc.rounds.map((round) => h("section", { id: `round-${round.round_id}` },
      h("h2", {}, `Round ${round.round_id} `, badge(round.status)),
      round.byes.length ? h("p", { class: "muted" }, "Byes: ", round.byes.map((p, i) => [i ? ", " : "", playerLink(p, names[p])])) : null,
      table(["Match", "Players", "Referee", "Status", "Winner"], round.matches.map((m) => h("tr", {},
        h("td", {}, matchLink(m.match_id)),
        h("td", {}, m.player_ids.map((p, i) => [i ? " v " : "", playerLink(p, names[p])])),
        h("td", {}, m.referee_id || "–"), h("td", {}, badge(m.status)),
        h("td", {}, m.winner ? playerLink(m.winner, names[m.winner]) : m.status === "COMPLETED" ? "none (draw)" : "–")))))));
  }

  // -- one match ---------------------------------------------------------------------

  function renderMoves(match, names) {
    const file = match.match_file;
    const stages = (file && file.stages) || [];
    const ids = match.players.map((p) => p.player_id);
    if (stages.length) {
      return table(["#Stage", ...ids.map((id) => names[id] || id)], stages.map((stage) => h("tr", {},
        num(stage.stage), ids.map((id) => h("td", {}, stage.moves[id] === undefined ? "–" : JSON.stringify(stage.moves[id]))))));
    }
    const details = (match.result && match.result.details) || {};
    if (details.choices) {
      const rows = ids.map((id) => h("tr", {}, h("td", {}, names[id] || id),
        h("td", {}, details.choices[id] === undefined ? "–" : String(details.choices[id]))));
      return h("div", {}, table(["Player", "Choice"], rows),
        details.drawn_number !== undefined
          ? h("p", {}, `Drawn number: ${details.drawn_number} (${details.number_parity || ""})`) : null);
    }
    return empty("No moves recorded.");
  }

  function renderTranscript(file) {
    if (!file || !file.transcript || !file.transcript.length) return empty("No transcript.");
    return table(["At", "Direction", "Method", "Peer", "Message"], file.transcript.map((entry) => {
      const message = entry.message || {};
      const summary = entry.error
        ? `${entry.error.code || ""} ${entry.error.description || entry.error.message || ""}`.trim()
        : message.message_type || "";
      return h("tr", { class: `dir-${entry.direction}` },
        h("td", { class: "when", title: clock(entry.at) }, clock(entry.at).split(" ").pop()),
        h("td", {}, entry.direction),
        h("td", {}, entry.method), h("td", {}, entry.peer),
        h("td", {}, h("details", {}, h("summary", {}, summary || "message"),
          json(entry.error ? { error: entry.error, message: entry.message } : entry.message))));
    }), { class: "transcript" });
  }

  async function match() {
    const id = body.dataset.matchId;
    const m = await getJSON(`/api/matches/${encodeURIComponent(id)}`);
    const names = Object.fromEntries(m.players.map((p) => [p.player_id, p.display_name]));
    const file = m.match_file;
    const lifecycle = file && file.lifecycle ? file.lifecycle.map((step) => step.state).join(" → ") : null;
    fill("match-summary", h("div", { class: "facts" },
      h("span", {}, "Status ", badge(m.status)),
      h("span", {}, `round ${m.round_id}`), h("span", {}, `game ${m.game_type}`),
      h("span", {}, `referee ${m.referee_id || "–"}`),
      h("span", {}, m.players.map((p, i) => [i ? " v " : "", playerLink(p.player_id, p.display_name)]))),
      lifecycle ? h("p", { class: "muted" }, `Lifecycle: ${lifecycle}`) : null,
      m.match_file_problem ? h("p", { class: "muted" }, m.match_file_problem) : null);
    if (m.result) {
      const r = m.result;
      fill("match-result",
        h("p", { id: "winner" }, r.winner ? ["Winner: ", playerLink(r.winner, names[r.winner])] : "No winner (draw)."),
        table(["Player", "Outcome", "#Points"], Object.entries(r.outcomes).map(([pid, outcome]) => h("tr", {},
          h("td", {}, playerLink(pid, names[pid])), h("td", {}, outcomeBadge(outcome)), num(r.points[pid])))),
        r.details && r.details.reason ? h("p", { class: "muted" }, r.details.reason) : null,
        h("details", {}, h("summary", {}, "Result details"), json(r.details)));
    } else {
      fill("match-result", empty("No result yet."));
    }
    fill("match-moves", renderMoves(m, names));
    fill("match-transcript", renderTranscript(file));
  }

  // -- one player --------------------------------------------------------------------

  async function player() {
    const id = body.dataset.playerId;
    const p = await getJSON(`/api/players/${encodeURIComponent(id)}`);
    const record = p.stats.record;
    document.getElementById("player-name").textContent = `${p.player.display_name} (${p.player.agent_id})`;
    fill("player-summary",
      h("div", { class: "facts" },
        h("span", { id: "player-state" }, "State ", stateBadge(p.player.state, p.league_state === "COMPLETED")),
        h("span", {}, p.stats.rank ? `rank ${p.stats.rank}` : "not ranked yet"),
        h("span", { class: "muted" }, `registered ${clock(p.player.registered_at)}`),
        h("span", { class: "muted" }, p.player.contact_endpoint)),
      record
        ? [table(RECORD, [h("tr", { id: "player-record" }, recordCells(record))], { class: "record" }),
          h("p", { class: "muted" }, FAULTS)]
        : empty("No record yet: the schedule is fixed when the league starts."));
    if (!p.matches.length) { fill("player-matches", empty("No match scheduled.")); return; }
    fill("player-matches", table(["Round", "Match", "Opponents", "Status", "Outcome", "#Points"],
      p.matches.map((m) => h("tr", {},
        h("td", {}, m.round_id), h("td", {}, matchLink(m.match_id)),
        h("td", {}, m.players.filter((s) => s.player_id !== id).map((s, i) => [i ? ", " : "", playerLink(s.player_id, s.display_name)])),
        h("td", {}, badge(m.status)), h("td", {}, m.outcome ? outcomeBadge(m.outcome) : "–"), num(m.points)))));
  }

  // -- the analysis ------------------------------------------------------------------

  const fixed = (value, digits) => (value === null || value === undefined ? "–" : Number(value).toFixed(digits));

  // A meta-game cell: its mean, its interval and its count; an unobserved cell, no number.
  function metaCell(cell) {
    if (!cell.matches) {
      return h("td", { class: "cell unobserved", title: "never observed: no match measured it" },
        "unobserved");
    }
    const interval = cell.lower === null || cell.upper === null
      ? "one match: no interval" : `[${fixed(cell.lower, 2)}, ${fixed(cell.upper, 2)}]`;
    return h("td", { class: "num cell", "data-matches": cell.matches },
      h("span", { class: "mean" }, fixed(cell.mean, 2)),
      h("span", { class: "interval" }, interval),
      h("span", { class: "count" }, cell.matches === 1 ? "1 match" : `${cell.matches} matches`));
  }

  function renderSolution(solution, name) {
    if (solution.reason) {
      return h("p", { id: "equilibrium-status", class: "flag unknown" }, `Not computed: ${solution.reason}.`);
    }
    const leftOut = Object.entries(solution.left_out).map(([pid, why]) => `${name(pid)}: ${why}`);
    const equilibria = solution.equilibria.map((eq, i) => h("li", {}, `#${i + 1}: `,
      Object.entries(eq.shares).filter(([, share]) => share > 1e-6)
        .map(([pid, share]) => `${name(pid)} ${(share * 100).toFixed(1)}%`).join(", "),
      ` (payoff ${fixed(eq.payoff, 3)})`));
    const check = solution.check;
    return h("div", {},
      leftOut.length ? h("p", { class: "muted" }, "Among the players whose cells are all observed; " +
        `left out: ${leftOut.join("; ")}.`) : null,
      equilibria.length ? h("ul", {}, equilibria) : empty("None found."),
      check ? h("p", { id: "equilibrium-check", class: `flag ${check.verdict}` },
        `${check.flag}: ${check.reason}.`) : null);
  }

  function renderAnalysis(a) {
    const meta = a.meta_game;
    const solution = a.solution;
    const name = (id) => meta.names[id] || id;
    const matrix = table(["Player", ...meta.players.map(name)], meta.players.map((row, i) => h("tr", {},
      h("th", { scope: "row" }, playerLink(row, name(row))),
      meta.cells[i].map(metaCell))), { id: "meta-game" });
    const ratings = table(["Player", "#Elo rating", "#Skill", "#Uncertainty", "#Cautious rating", "#Matches"],
      Object.entries(a.ratings.elo).map(([pid, elo]) => {
        const bayes = a.ratings.bayesian[pid] || {};
        return h("tr", {}, h("td", {}, playerLink(pid, name(pid))), num(fixed(elo.rating, 0)),
          num(fixed(bayes.mu, 2)), num(fixed(bayes.sigma, 2)), num(fixed(bayes.ordinal, 2)), num(elo.matches));
      }));
    const metrics = table(["Player", "#Matches", "#Payoff/match", "#Payoff/stage", "#Cooperation", "#Reciprocity"],
      Object.entries(a.metrics).map(([pid, m]) => h("tr", {}, h("td", {}, playerLink(pid, name(pid))),
        num(m.matches), num(fixed(m.payoff_per_match, 3)), num(fixed(m.payoff_per_stage, 3)),
        num(fixed(m.cooperation, 3)), num(fixed(m.reciprocity, 3)))));
    fill("analysis",
      h("p", { class: "muted", "data-version": a.version }, `${a.matches_analysed} ` +
        `match${a.matches_analysed === 1 ? "" : "es"} analysed, in ${fixed(a.seconds, 2)} s`),
      h("h2", {}, `Payoff matrix (${meta.measure}: row player against column player)`), matrix,
      h("p", { class: "muted" }, "Each cell: the row player's mean against the column player, " +
        `its ${Math.round(meta.confidence * 100)}% interval (none with one match) and its count. ` +
        "Hatched cells were never observed and hold no value; the diagonal is what a player " +
        "earns against itself, which no match of a league measures."),
      h("h2", {}, "Ratings"), ratings,
      h("p", { class: "muted" }, "Elo: the chess rating, from every match's result. Skill and " +
        "uncertainty: a Bayesian rating (Plackett-Luce, from openskill); the uncertainty shrinks " +
        "as a player plays more. Cautious rating: the skill less three times the uncertainty, " +
        "what the player is almost surely worth."),
      h("h2", {}, `Equilibria of the meta-game${solution.method ? ` (${solution.method})` : ""}`),
      renderSolution(solution, name),
      h("h2", {}, "Metrics"), metrics,
      a.cooperation_meaning ? h("p", { class: "muted" }, `Cooperation: ${a.cooperation_meaning}`) : null);
  }

  async function analysis() {
    fill("analysis", empty("Computing…"));
    try {
      renderAnalysis(await getJSON("/analysis"));
    } catch (failure) {
      if (failure.status === 409) fill("analysis", empty(`No analysis yet: ${failure.message}.`));
      else throw failure;
    }
  }

  // -- the admin panel ---------------------------------------------------------------

  function adminPanel(refresh) {
    const panel = document.getElementById("admin");
    if (!panel) return;
    const input = document.getElementById("admin-token");
    const state = document.getElementById("admin-token-state");
    const message = document.getElementById("admin-message");
    const token = () => sessionStorage.getItem(TOKEN_KEY) || "";
    const showToken = () => {
      state.textContent = token() ? "A token is kept for this tab." : "No token kept: paste the admin token first.";
    };
    const say = (text, ok) => { message.textContent = text; message.className = ok ? "ok" : "failed"; };

    document.getElementById("admin-token-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const value = input.value.trim();
      if (value) sessionStorage.setItem(TOKEN_KEY, value);
      input.value = "";
      showToken();
    });
    document.getElementById("admin-forget").addEventListener("click", () => {
      sessionStorage.removeItem(TOKEN_KEY);
      showToken();
    });

    async function call(url, init) {
      if (!token()) throw new Error("paste the admin token first");
      const response = await fetch(url, { ...init, cache: "no-store", headers: { Authorization: `Bearer ${token()}` } });
      if (!response.ok) throw new Error(await errorOf(response));
      return response;
    }

    for (const button of panel.querySelectorAll("[data-admin-post]")) {
      button.addEventListener("click", async () => {
        if (button.dataset.confirm && !window.confirm(button.dataset.confirm)) return;
        button.disabled = true;
        try {
          const answer = await (await call(button.dataset.adminPost, { method: "POST" })).json();
          const state = answer && answer.state ? ` (the league is ${answer.state})` : "";
          say(`${button.textContent.trim()}: done${state}.`, true);
          if (refresh) refresh();
        } catch (failure) {
          say(`${button.textContent.trim()}: ${failure.message}`, false);
        } finally {
          button.disabled = false;
        }
      });
    }
    for (const button of panel.querySelectorAll("[data-admin-export]")) {
      button.addEventListener("click", async () => {
        const url = button.dataset.adminExport;
        try {
          const blob = await (await call(url, { method: "GET" })).blob();
          const link = h("a", { href: URL.createObjectURL(blob), download: url.split("/").pop() });
          document.body.append(link);
          link.click();
          link.remove();
          setTimeout(() => URL.revokeObjectURL(link.href), 10000);
          say(`Exported ${url.split("/").pop()}.`, true);
        } catch (failure) {
          say(`Export ${url.split("/").pop()}: ${failure.message}`, false);
        }
      });
    }
    showToken();
  }

  // -- start -------------------------------------------------------------------------

  const views = { dashboard, schedule, match, player };
  const page = body.dataset.page;
  if (page === "analysis") {
    const run = () => analysis().then(() => showError(""), (failure) => showError(failure.message));
    document.getElementById("analysis-refresh").addEventListener("click", run);
    run();
  } else if (views[page]) {
    adminPanel(live(views[page]));
  }
})();
