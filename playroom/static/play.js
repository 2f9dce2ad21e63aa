// The /play page: picks a game and an opponent from /api/play/defaults, plays it through
// /api/play, and shows only what the person's seat may see: the game's rules, what each
// move means and its payoff table (the game's guide), the observation in words and the
// history as a table (as the server words them). No framework, no build step.
"use strict";

const API = "/api/play";
const POLL_MS = 500;

let defaults = null;
let session = null; // the last SessionState answered
let nextMessage = 0;
let polling = null;

function text(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

// -- setup -------------------------------------------------------------------------------

function currentGame() {
  return defaults.games.find((g) => g.game_type === $("game").value);
}

// -- the rules: what each game is, what each move means, its payoff table ------------------

function gameOf(gameType) {
  return defaults.games.find((g) => g.game_type === gameType);
}

function moveLabel(guide, move) {
  const shown = text(move);
  const meaning = guide && guide.moves.find((m) => m.move === shown);
  return meaning && meaning.name.toLowerCase() !== shown.toLowerCase() ? `${meaning.name} (${shown})` : shown;
}

function renderGuide(game) {
  const guide = game.guide;
  $("rules").textContent = guide ? guide.rules : "";
  const moves = $("move-guide");
  moves.replaceChildren();
  if (guide && guide.moves.length) {
    const head = element("tr");
    head.append(element("th", "Move", { scope: "col" }), element("th", "What it does", { scope: "col" }));
    moves.append(element("thead"), element("tbody"));
    moves.tHead.append(head);
    for (const meaning of guide.moves) {
      const row = element("tr", null, { "data-move": meaning.move });
      row.append(element("td", moveLabel(guide, meaning.move)), element("td", meaning.meaning));
      moves.tBodies[0].append(row);
    }
  }
  const box = $("payoffs");
  box.replaceChildren();
  const table = game.payoff_table;
  if (!table) return;
  const grid = element("table", null, { id: "payoff-table" });
  grid.append(element("caption", "Payoffs: each cell is yours, then your opponent's"));
  const head = element("tr");
  head.append(element("th", "you \\ opponent", { scope: "col" }));
  for (const column of table.column_actions) head.append(element("th", moveLabel(guide, column), { scope: "col" }));
  grid.append(head);
  table.row_actions.forEach((rowAction, i) => {
    const row = element("tr");
    row.append(element("th", moveLabel(guide, rowAction), { scope: "row" }));
    for (const cell of table.payoffs[i]) row.append(element("td", `${cell[0]}, ${cell[1]}`));
    grid.append(row);
  });
  box.append(grid);
}

function placeGuide(after) {
  after.after($("guide"));
}

function fillOpponents() {
  const game = currentGame();
  const select = $("opponent");
  select.replaceChildren();
  const builtin = element("optgroup", null, { label: "Built-in strategies" });
  for (const name of game.strategies) {
    builtin.append(element("option", name, { value: JSON.stringify({ kind: "builtin", strategy: name }) }));
  }
  select.append(builtin);
  const players = defaults.players.filter((p) => p.game_types.includes(game.game_type));
  if (players.length) {
    const group = element("optgroup", null, { label: "Players of this league" });
    for (const p of players) {
      group.append(element("option", `${p.display_name} (${p.player_id})`,
        { value: JSON.stringify({ kind: "player", player_id: p.player_id }) }));
    }
    select.append(group);
  }
  if (defaults.llm.available) {
    const label = defaults.llm.model ? `LLM (${defaults.llm.model})` : "LLM";
    select.append(element("option", label, { value: JSON.stringify({ kind: "llm" }) }));
  }
}

function fillParams() {
  const game = currentGame();
  const box = $("params");
  box.replaceChildren(element("legend", "Parameters"));
  const entries = Object.entries(game.params);
  if (!entries.length) {
    box.append(element("p", "none", { class: "muted" }));
    return;
  }
  for (const [name, value] of entries) {
    const label = element("label", name + " ");
    let input;
    if (typeof value === "boolean") {
      input = element("input", null, { type: "checkbox" });
      input.checked = value;
    } else if (typeof value === "number") {
      input = element("input", null, { type: "number", step: "any", inputmode: "decimal" });
      input.value = String(value);
    } else {
      input = element("input", null, { type: "text" });
      input.value = text(value);
    }
    input.name = "param-" + name;
    input.dataset.param = name;
    label.append(input);
    box.append(label);
  }
}

function readParams() {
  const game = currentGame();
  const params = {};
  for (const input of $("params").querySelectorAll("input[data-param]")) {
    const name = input.dataset.param;
    const original = game.params[name];
    let value;
    if (input.type === "checkbox") value = input.checked;
    else if (input.type === "number") {
      if (input.value.trim() === "") throw new Error(`${name}: give a number`);
      value = Number(input.value);
    } else if (typeof original === "string") value = input.value;
    else {
      try { value = JSON.parse(input.value); } catch { throw new Error(`${name}: not valid JSON`); }
    }
    if (JSON.stringify(value) !== JSON.stringify(original)) params[name] = value;
  }
  return params;
}

async function startGame(event) {
  event.preventDefault();
  showError("setup-error", "");
  $("start").disabled = true;
  try {
    const seed = $("seed").value.trim();
    const created = await call("POST", API, {
      game: $("game").value,
      opponent: JSON.parse($("opponent").value),
      params: readParams(),
      seed: seed === "" ? null : Number(seed),
    });
    nextMessage = 0;
    $("messages").replaceChildren();
    render(created);
    $("setup").hidden = true;
    $("game-panel").hidden = false;
    placeGuide($("result"));
    render(await call("POST", `${API}/${created.session_id}/start`));
  } catch (error) {
    showError("setup-error", error.message);
    $("setup").hidden = false;
  } finally {
    $("start").disabled = false;
  }
}

// -- the game ----------------------------------------------------------------------------

async function sendMove(move) {
  showError("error", "");
  for (const button of $("moves").querySelectorAll("button")) button.disabled = true;
  try {
    render(await call("POST", `${API}/${session.session_id}/moves`, { move }));
  } catch (error) {
    showError("error", error.message);
    for (const button of $("moves").querySelectorAll("button")) button.disabled = false;
    await refreshMessages();
  }
}

function numberMove(guide, space, observation) {
  // the guide's meaning of a number or list move: the one named by the stage, or the only one
  if (!guide) return null;
  const stage = (observation || {}).stage;
  const free = guide.moves.filter((m) => !(space.choices || []).includes(m.move));
  return guide.moves.find((m) => m.move === stage) || (free.length === 1 ? free[0] : null);
}

function moveControls(space, guide, observation) {
  const box = $("moves");
  box.replaceChildren();
  if (!space) return;
  if (space.kind === "choice") {
    for (const choice of space.choices) {
      const meaning = guide && guide.moves.find((m) => m.move === text(choice));
      const attrs = { type: "button", "data-move": text(choice) };
      if (meaning) attrs.title = meaning.meaning;
      const button = element("button", moveLabel(guide, choice), attrs);
      button.addEventListener("click", () => sendMove(choice));
      box.append(button);
    }
    return;
  }
  const meaning = numberMove(guide, space, observation);
  if (meaning) box.append(element("p", `${meaning.name}: ${meaning.meaning}`, { class: "move-meaning" }));
  const inputs = [];
  const count = space.kind === "number" ? 1 : space.size;
  for (let i = 0; i < count; i += 1) {
    const input = element("input", null, {
      type: "number", inputmode: "decimal", "aria-label": space.kind === "number" ? "your move" : `part ${i + 1}`,
      step: space.kind === "number" && !space.integer ? "any" : "1",
    });
    if (space.kind === "number") { input.min = space.low; input.max = space.high; } else input.min = 0;
    inputs.push(input);
    box.append(input);
  }
  const send = element("button", "Play", { type: "button", id: "send-move" });
  send.addEventListener("click", () => {
    const values = inputs.map((input) => Number(input.value));
    if (inputs.some((input) => input.value.trim() === "")) {
      showError("error", "fill in every number first");
      return;
    }
    sendMove(space.kind === "number" ? values[0] : values);
  });
  box.append(send);
}

function renderObservation(state) {
  const table = $("observation");
  table.replaceChildren();
  for (const seen of state.seen || []) {
    const row = element("tr");
    row.append(element("th", seen.label, { scope: "row" }), element("td", seen.text));
    table.append(row);
  }
  const box = $("history");
  box.replaceChildren();
  const history = state.history;
  if (!history || !history.rows.length) return;
  const grid = element("table", null, { id: "history-table" });
  const head = element("tr");
  for (const title of history.columns) head.append(element("th", title, { scope: "col" }));
  grid.append(head);
  for (const cells of history.rows) {
    const row = element("tr");
    for (const cell of cells) row.append(element("td", cell));
    grid.append(row);
  }
  box.append(element("h3", "History"), element("div", null, { class: "scroll" }));
  box.lastChild.append(grid);
}

function renderScore(score) {
  const entries = Object.entries(score || {});
  $("score").textContent = entries.length
    ? "Score: " + entries.map(([p, v]) => `${p === "human" ? "you" : p} ${v}`).join(", ") : "";
}

function statusLine(state) {
  const opponent = state.config.opponent;
  const against = opponent.kind === "builtin" ? opponent.strategy
    : opponent.kind === "player" ? opponent.player_id : "an LLM";
  const head = `${state.display_name} against ${against}`;
  if (state.status === "created") return `${head}: starting…`;
  if (state.status === "finished") return `${head}: game over`;
  if (state.status === "failed") return `${head}: the game stopped (${state.error})`;
  return state.turn === "you" ? `${head}: stage ${state.stage}, your move`
    : `${head}: the opponent is moving…`;
}

function render(state) {
  session = state;
  $("game-title").textContent = state.display_name;
  $("status").textContent = statusLine(state);
  $("game-panel").dataset.status = state.status;
  $("game-panel").dataset.turn = state.turn || "";
  renderScore(state.score);
  renderObservation(state);
  const game = gameOf(state.config.game);
  const yourMove = state.status === "running" && state.turn === "you";
  $("play").hidden = !yourMove;
  $("hint").textContent = yourMove && state.hint ? `Legal moves: ${state.hint}` : "";
  moveControls(yourMove ? state.action_space : null, game && game.guide, state.observation);
  const over = state.status === "finished" || state.status === "failed";
  $("result").hidden = !over;
  if (over) {
    const lines = state.result_lines.length ? state.result_lines : [state.error || "no result"];
    $("result-lines").replaceChildren(...lines.map((line) => element("li", line)));
    $("download-json").href = `${API}/${state.session_id}/transcript.json`;
    $("download-csv").href = `${API}/${state.session_id}/transcript.csv`;
  }
  clearTimeout(polling);
  if (state.status === "running" && state.turn !== "you") {
    polling = setTimeout(poll, POLL_MS);
  }
  if (state.status !== "created") refreshMessages();
}

async function poll() {
  try {
    render(await call("GET", `${API}/${session.session_id}`));
  } catch (error) {
    showError("error", error.message);
  }
}

let messagesQueue = Promise.resolve();

function refreshMessages() {
  // one fetch at a time, so no message is appended twice
  messagesQueue = messagesQueue.then(fetchMessages);
  return messagesQueue;
}

async function fetchMessages() {
  if (!session || session.status === "created") return;
  try {
    const answer = await call("GET", `${API}/${session.session_id}/messages?since=${nextMessage}`);
    for (const message of answer.messages) {
      if (message.index < nextMessage) continue;
      const who = message.role === "human" ? "you" : message.speaker || message.role;
      $("messages").append(element("li", `${who}: ${message.text}`, { class: message.role }));
    }
    nextMessage = Math.max(nextMessage, answer.next);
  } catch (error) {
    showError("error", error.message);
  }
}

function newGame() {
  clearTimeout(polling);
  session = null;
  $("game-panel").hidden = true;
  $("setup").hidden = false;
  placeGuide($("setup-form"));
  renderGuide(currentGame());
}

async function init() {
  try {
    defaults = await call("GET", `${API}/defaults`);
  } catch (error) {
    showError("setup-error", `cannot load the games: ${error.message}`);
    return;
  }
  const select = $("game");
  for (const game of defaults.games) {
    select.append(element("option", game.display_name, { value: game.game_type }));
  }
  select.value = defaults.games.some((g) => g.game_type === defaults.default_game)
    ? defaults.default_game : defaults.games[0].game_type;
  const chosen = () => { fillOpponents(); fillParams(); renderGuide(currentGame()); };
  select.addEventListener("change", chosen);
  chosen();
  $("setup-form").addEventListener("submit", startGame);
  $("new-game").addEventListener("click", newGame);
  document.body.dataset.ready = "true";
}

init();
