// The /chat page: a game written in prose, played through /api/games. It shows only what
// the server answers, which is only what the person may see: the Game's messages, their
// own, and the referee's notices. No framework, no build step.
"use strict";

const API = "/api/games";
const OWN = "__own__";
const SIDES = ["manager", "player"];

let defaults = null;
let session = null; // the last ProseState answered

function sentenceOf(error) {
  const said = error.message.replace(/\.$/, "");
  const wait = error.retryAfter ? ` (in ${error.retryAfter} s or so)` : "";
  return `${said.charAt(0).toUpperCase()}${said.slice(1)}${wait}.`;
}

// -- setup -------------------------------------------------------------------------------

function title(name) {
  return name.charAt(0).toUpperCase() + name.slice(1).replaceAll("_", " ");
}

function fillSetup() {
  const select = $("example");
  select.replaceChildren(element("option", "A short game (the default prompts)", { value: "" }));
  for (const name of defaults.examples) select.append(element("option", title(name), { value: name }));
  select.append(element("option", "My own prompts", { value: OWN }));
  for (const side of SIDES) {
    const given = defaults[side];
    $(`${side}-model`).placeholder = given.model;
    $(`${side}-temperature`).placeholder = String(given.temperature);
    $(`${side}-max-tokens`).placeholder = String(given.max_tokens);
  }
  if (!defaults.llm_available) {
    showError("setup-error", "This server has no language model configured "
      + "(LEAGUE_LLM_BASE_URL), so games in prose cannot be played here.");
    $("start").disabled = true;
  }
}

function number(id) {
  const value = $(id).value.trim();
  return value === "" ? null : Number(value);
}

function configOf() {
  const choice = $("example").value;
  const config = { example: choice && choice !== OWN ? choice : null };
  for (const side of SIDES) {
    config[side] = {
      model: $(`${side}-model`).value.trim() || null,
      temperature: number(`${side}-temperature`),
      max_tokens: number(`${side}-max-tokens`),
      prompt: choice === OWN ? ($(`${side}-prompt`).value.trim() || null) : null,
    };
  }
  return config;
}

// -- the chat ----------------------------------------------------------------------------

const LABELS = { game: "Game", you: "You", notice: "" };

function bubble(speaker, text, extra = "") {
  const item = element("li", null, { class: `message ${speaker} ${extra}`.trim() });
  if (LABELS[speaker]) item.append(element("span", LABELS[speaker], { class: "who" }));
  item.append(element("span", text, { class: "text" }));
  return item;
}

function render(state) {
  session = state;
  $("messages").replaceChildren(...state.messages.map((m) => bubble(m.speaker, m.text)));
  const over = state.status === "over";
  const started = state.status !== "created";
  $("say-form").hidden = over || !started;
  $("send").disabled = state.busy;
  $("status").textContent = over ? "The game is over." : started ? "Your turn." : "";
  const base = `${API}/sessions/${state.session_id}/transcript`;
  $("download-json").href = `${base}?format=json`;
  $("download-csv").href = `${base}?format=csv`;
  document.body.dataset.status = state.status;
  $("messages").lastElementChild?.scrollIntoView({ block: "nearest" });
}

function busy(line) {
  $("status").textContent = line;
  $("send").disabled = true;
  document.body.dataset.busy = "true";
}

function idle() {
  delete document.body.dataset.busy;
}

async function start() {
  showError("error", "");
  $("retry-start").hidden = true;
  busy("The game is starting…");
  try {
    render(await call("POST", `${API}/sessions/${session.session_id}/start`));
    $("say").focus();
  } catch (error) {
    $("status").textContent = "";
    showError("error", sentenceOf(error));
    $("retry-start").hidden = error.status !== 503;
  } finally {
    idle();
  }
}

async function create(event) {
  event.preventDefault();
  showError("setup-error", "");
  $("start").disabled = true;
  try {
    render(await call("POST", `${API}/sessions`, configOf()));
  } catch (error) {
    showError("setup-error", sentenceOf(error));
    return;
  } finally {
    $("start").disabled = false;
  }
  $("setup").hidden = true;
  $("chat-panel").hidden = false;
  $("chat-title").textContent = $("example").selectedOptions[0].textContent;
  await start();
}

async function send(event) {
  event.preventDefault();
  const text = $("say").value.trim();
  if (!text || !session || document.body.dataset.busy) return;
  showError("error", "");
  const pending = bubble("you", text, "pending");
  $("messages").append(pending);
  $("say").value = "";
  busy("The game is answering…");
  try {
    render(await call("POST", `${API}/sessions/${session.session_id}/move`, { text }));
    $("say").focus();
  } catch (error) {
    pending.remove();
    $("say").value = text; // not taken: the person sends it again
    $("status").textContent = "";
    $("send").disabled = false;
    showError("error", sentenceOf(error));
  } finally {
    idle();
  }
}

async function newGame() {
  if (session && session.status !== "over") {
    await call("DELETE", `${API}/sessions/${session.session_id}`).catch(() => null);
  }
  session = null;
  $("messages").replaceChildren();
  showError("error", "");
  $("chat-panel").hidden = true;
  $("setup").hidden = false;
  delete document.body.dataset.status;
}

async function fillDefaultPrompts(event) {
  event.preventDefault();
  $("manager-prompt").value = defaults.manager.prompt;
  $("player-prompt").value = defaults.player.prompt;
}

async function main() {
  $("setup-form").addEventListener("submit", create);
  $("say-form").addEventListener("submit", send);
  $("say").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) send(event);
  });
  $("retry-start").addEventListener("click", start);
  $("new-game").addEventListener("click", newGame);
  $("default-prompts").addEventListener("click", fillDefaultPrompts);
  $("example").addEventListener("change", () => { $("own").hidden = $("example").value !== OWN; });
  try {
    defaults = await call("GET", `${API}/config/defaults`);
    fillSetup();
  } catch (error) {
    showError("setup-error", sentenceOf(error));
  }
  document.body.dataset.ready = "true";
}

main();
