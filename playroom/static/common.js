// What the /play and /chat pages share: finding and making elements, calling the play
// service's JSON API (a refusal becomes an Error carrying the server's sentence) and showing
// an error line. Loaded before each page's own script. No framework, no build step.
"use strict";

const $ = (id) => document.getElementById(id);

function element(tag, content, attrs = {}) {
  const node = document.createElement(tag);
  if (content !== undefined && content !== null) node.textContent = content;
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

// A refusal throws an Error whose message is the server's sentence (or each field's
// problem, for a request the API's validation refused), with the HTTP status and the
// seconds to wait that a 429 or 503 gave.
async function call(method, path, body) {
  const options = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const answer = response.status === 204 ? null : await response.json();
  if (!response.ok) {
    const detail = answer && answer.detail;
    const sentence = typeof detail === "string" ? detail
      : Array.isArray(detail) ? detail.map((d) => `${(d.loc || []).join(".")}: ${d.msg}`).join("; ")
        : `the server answered ${response.status}`;
    const error = new Error(sentence);
    error.status = response.status;
    error.retryAfter = Number(response.headers.get("Retry-After")) || null;
    throw error;
  }
  return answer;
}

function showError(id, message) {
  const node = $(id);
  node.textContent = message || "";
  node.hidden = !message;
}
