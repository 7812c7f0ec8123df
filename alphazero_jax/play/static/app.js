// The play page: settings on the left, the game on the right. It talks to the server only
// through the JSON API (/api/...); each game's drawing and input is a module in games/, and
// a game with none (pgx's, one registered outside the package) is drawn by games/generic.js
// (a clickable board where its board JSON names a move per cell). A game's title, notation
// and the settings a player never chooses come from GET /api/games.

import * as connectFour from "./games/connect_four.js";
import * as generic from "./games/generic.js";
import * as othello from "./games/othello.js";
import * as quoridor from "./games/quoridor.js";
import * as ticTacToe from "./games/tic_tac_toe.js";

const MODULES = { connect_four: connectFour, othello, quoridor, tic_tac_toe: ticTacToe };
const AGENT_PAUSE_MS = 500; // between moves when the agent plays both sides
const STATS_POLL_MS = 1000; // while the server compiles

const $ = (id) => document.getElementById(id);
const page = {
  games: [],
  view: null, // the session as the API last returned it
  shares: null, // visit shares to shade on the board (the last search shown)
  verdicts: null,
  busy: false,
  autoplay: false,
  stats: null, // GET /api/stats as last read: the warm-up, the compiles, the agents held
  polling: false,
  compiling: false, // the request running waits for its agent's first compile
};

async function api(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response = await fetch(path, options);
  // 429: the agent's search is still compiling; ask again when the server says.
  for (let tries = 0; response.status === 429 && tries < 60; tries++) {
    const seconds = Number(response.headers.get("Retry-After")) || 1;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    response = await fetch(path, options);
  }
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function gameInfo() {
  return page.games.find((g) => g.name === $("game").value);
}

function agentInfo() {
  return gameInfo().agents.find((a) => a.spec === $("agent").value);
}

function moduleOf(name) {
  return MODULES[name] || generic;
}

function module() {
  return moduleOf(page.view ? page.view.game : $("game").value);
}

// -- setup -----------------------------------------------------------------------------

function settingsNow() {
  const settings = {};
  for (const input of $("settings").querySelectorAll("input")) settings[input.name] = Number(input.value);
  return settings;
}

function sameSettings(a, b) {
  return Object.keys(a).every((k) => a[k] === b[k]);
}

function fillSettings() {
  const info = gameInfo();
  // Settings that are not rules (Othello's observation planes) stay at their defaults, out
  // of the player's sight.
  const hidden = info.encodings;
  // Start from the settings of the game's shipped network, where there is one (Othello's
  // is 6x6), so that it is among the opponents at once.
  const shipped = info.agents.find((a) => a.only_settings && a.only_settings.length);
  const start = shipped ? shipped.only_settings[0] : {};
  $("settings").replaceChildren(
    ...Object.entries(info.settings).map(([name, bound]) => {
      const label = document.createElement("label");
      label.textContent = name;
      label.hidden = hidden.includes(name);
      const input = document.createElement("input");
      const value = name in start ? start[name] : bound.default;
      Object.assign(input, { type: "number", name, min: bound.min, max: bound.max, value });
      input.step = bound.step || 1;
      input.id = `setting-${name}`;
      input.addEventListener("change", fillAgents);
      label.appendChild(input);
      return label;
    }),
  );
  fillAgents();
}

function fillAgents() {
  const previous = $("agent").value;
  const settings = settingsNow();
  const usable = gameInfo().agents.filter(
    (a) => !a.only_settings || a.only_settings.some((s) => sameSettings(s, settings)),
  );
  $("agent").replaceChildren(
    ...usable.map((a) => {
      const option = document.createElement("option");
      option.value = a.spec;
      option.textContent = a.label;
      return option;
    }),
  );
  if (usable.some((a) => a.spec === previous)) $("agent").value = previous;
  fillStrength();
}

function fillStrength() {
  const strength = agentInfo().strength;
  $("strength-label").hidden = !strength;
  if (strength) {
    Object.assign($("strength"), { min: strength.min, max: strength.max, value: strength.default });
    $("strength-name").textContent = `${strength.name} (${strength.min}–${strength.max})`;
  }
  showAgentReady();
}

function agentSpec() {
  const info = agentInfo();
  return info.strength ? `${info.spec}:${$("strength").value}` : info.spec;
}

// -- the server's compiles ----------------------------------------------------------------

// Reads GET /api/stats every STATS_POLL_MS while the server warms up or compiles, and
// shows what it is doing below the board and its buttons (where the line cannot move them
// under the pointer as it comes and goes) and whether the chosen agent is ready.
async function pollStats() {
  if (page.polling) return;
  page.polling = true;
  try {
    for (;;) {
      page.stats = await api("GET", "/api/stats");
      showWarmUp();
      showAgentReady();
      const compiling = page.stats.compiling;
      const waiting = page.busy && page.compiling; // our request waits for a compile
      if (page.stats.warm && !compiling.running.length && !compiling.queued && !waiting) break;
      await new Promise((resolve) => setTimeout(resolve, STATS_POLL_MS));
    }
  } catch {
    // The line is only news; the game goes on without it.
  } finally {
    page.polling = false;
  }
}

function showWarmUp() {
  const stats = page.stats;
  const running = stats.compiling.running;
  const now = running.length ? ` (now: ${running.join("; ")})` : "";
  let text = "";
  if (!stats.warm) {
    const { done, total } = stats.warm_up;
    text =
      `The server is warming up: ${done} of ${total} searches of the shipped agents compiled${now}. ` +
      "A game against an agent that is ready starts at once; any other waits for one compile " +
      "(seconds) before the agent's first move.";
  } else if (running.length) {
    text = `Compiling searches${now}.`;
  }
  $("warm-up").textContent = text;
  $("warm-up").hidden = !text;
}

// Whether the server holds `spec` for the game at `settings` with a compiled search.
function agentReady(game, settings, spec) {
  const held = (page.stats ? page.stats.agents : []).find(
    (a) =>
      a.game === game && a.agent === spec && sameSettings(a.settings, settings) && sameSettings(settings, a.settings),
  );
  return Boolean(held && held.ready.length);
}

function showAgentReady() {
  if (!page.stats || !gameInfo()) return;
  const ready = agentReady($("game").value, settingsNow(), agentSpec());
  $("agent-ready").textContent = ready
    ? "Ready: its search is compiled."
    : "Not compiled yet: its first move waits for one compile (seconds, once).";
}

// -- showing the game --------------------------------------------------------------------

function sideName(player) {
  return module().sides[player];
}

function showStatus() {
  const view = page.view;
  let text;
  if (!view) text = "";
  else if (view.over) text = `${view.result}. Moves: ${view.moves || "(none)"}`;
  else if (page.busy && page.compiling) text = "Compiling the agent's search (its first move at this strength)…";
  else if (page.busy) text = "The agent is thinking…";
  else if (view.human_to_move) text = `Your move (${sideName(view.to_move)}).`;
  else if (view.human === "none") text = `${sideName(view.to_move)} to move (agent against agent).`;
  else text = "The agent's move.";
  $("status").textContent = text;
}

// The eval bar and the note under the board: what the agent's search made of the
// position before `reply` (its move, or a hint).
function showEval(reply, what = "played") {
  if (!reply || reply.value === null) {
    $("eval-fill").style.height = "50%";
    $("eval-text").textContent = "";
    $("search-note").textContent = reply ? `The agent ${what} ${reply.move} (it has no search to show).` : "";
    return;
  }
  const first = reply.player === 0 ? reply.value : -reply.value;
  $("eval-fill").style.height = `${Math.round(((first + 1) / 2) * 100)}%`;
  $("eval-text").textContent = `${sideName(0)} ${first >= 0 ? "+" : ""}${first.toFixed(2)}`;
  $("eval").title = `The agent's value for ${sideName(0)} (+1 wins, -1 loses), from its search`;
  const mover = sideName(reply.player);
  const value = `${reply.value >= 0 ? "+" : ""}${reply.value.toFixed(2)}`;
  $("search-note").textContent =
    `The agent ${what} ${reply.move} for ${mover}: value ${value} for ${mover}; ` +
    "the shading shows its search's visit share of each move.";
}

function draw() {
  const view = page.view;
  if (!view) return;
  document.body.dataset.game = view.game;
  $("board").classList.toggle("busy", page.busy);
  module().render(
    $("board"),
    view,
    {
      shares: page.shares,
      verdicts: $("verdicts").checked ? page.verdicts : null,
      canMove: view.human_to_move && !page.busy,
    },
    playMove,
  );
  $("undo").disabled = page.busy || !view.moves;
  $("hint").disabled = page.busy || view.over;
  $("step").hidden = view.human !== "none";
  $("step").textContent = page.autoplay ? "Pause" : view.over ? "Replay" : "Resume";
  $("verdict-label").hidden = !solverAnswers(view);
  if (document.activeElement !== $("moves")) $("moves").value = view.moves;
  showStatus();
}

function gameInfoOf(name) {
  return page.games.find((g) => g.name === name);
}

// Whether the solver gives verdicts for the session's game at its settings: the server's
// catalogue lists the settings at which its verdicts route answers.
function solverAnswers(view) {
  return gameInfoOf(view.game).solver.some((settings) => sameSettings(settings, view.settings));
}

function showError(error) {
  $("error").textContent = error ? String(error.message || error) : "";
}

// Shows a new view of the session; the agent's last reply (if any) sets the eval bar and
// the visit shares.
function update(view) {
  page.view = view;
  const replies = view.reply || [];
  if (replies.length) {
    const last = replies[replies.length - 1];
    page.shares = last.shares;
    showEval(last);
  } else {
    page.shares = null;
  }
  page.verdicts = null;
  draw();
  refreshVerdicts();
}

// Runs a request with the board locked; errors are shown, the game is left as it was.
// `agent` ({game, settings, agent}), when the request may search: if that agent's search is
// not compiled yet, the status says so and the compile's progress is polled.
async function guarded(work, agent = null) {
  if (page.busy) return;
  page.busy = true;
  page.compiling = Boolean(agent) && !agentReady(agent.game, agent.settings, agent.agent);
  if (page.compiling) pollStats();
  showError(null);
  draw();
  try {
    await work();
  } catch (error) {
    showError(error);
  } finally {
    page.busy = false;
    if (page.compiling) pollStats();
    page.compiling = false;
    draw();
  }
}

// -- actions -----------------------------------------------------------------------------

async function newGame(moves = "") {
  page.autoplay = false;
  const body = {
    game: $("game").value,
    settings: settingsNow(),
    agent: agentSpec(),
    human: $("human").value,
    moves,
  };
  const searches = body.human === "second" ? body : null; // the agent opens
  await guarded(async () => {
    const old = page.view;
    const view = await api("POST", "/api/sessions", body);
    if (old) api("DELETE", `/api/sessions/${old.id}`).catch(() => {});
    showEval(null);
    update(view);
  }, searches);
  if (page.view && page.view.human === "none") startAutoplay();
}

async function playMove(move) {
  const view = page.view;
  await guarded(async () => update(await api("POST", `/api/sessions/${view.id}/moves`, { move })), view);
}

async function undo() {
  page.autoplay = false;
  await guarded(async () => {
    update(await api("POST", `/api/sessions/${page.view.id}/undo`));
    showEval(null);
  });
}

async function hint() {
  await guarded(async () => {
    const analysed = await api("POST", `/api/sessions/${page.view.id}/hint`);
    page.shares = analysed.shares;
    showEval(analysed, "suggests");
  }, page.view);
}

async function startAutoplay() {
  page.autoplay = true;
  draw();
  while (page.autoplay && page.view && !page.view.over) {
    const id = page.view.id;
    await guarded(async () => update(await api("POST", `/api/sessions/${id}/agent-move`)), page.view);
    if (page.view.id !== id || $("error").textContent) break;
    await new Promise((resolve) => setTimeout(resolve, AGENT_PAUSE_MS));
  }
  page.autoplay = false;
  draw();
}

async function refreshVerdicts() {
  const view = page.view;
  $("verdict-status").textContent = "";
  if (!$("verdicts").checked || !view || view.over || !solverAnswers(view)) return;
  $("verdict-status").textContent = "Solving…";
  try {
    const answer = await api("GET", `/api/sessions/${view.id}/verdicts`);
    if (page.view !== view) return; // the game moved on meanwhile
    page.verdicts = answer.verdicts;
    $("verdict-status").textContent = answer.verdicts
      ? "Solver: the result of each column with perfect play after it."
      : `Solver: ${answer.reason}.`;
    draw();
  } catch (error) {
    $("verdict-status").textContent = `Solver: ${error.message}`;
  }
}

async function copyMoves() {
  const text = page.view ? page.view.moves : "";
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    $("moves").select();
    document.execCommand("copy");
  }
  $("verdict-status").textContent = `Copied: ${text || "(no moves)"}`;
}

async function init() {
  try {
    page.games = (await api("GET", "/api/games")).games;
  } catch (error) {
    showError(error);
    return;
  }
  $("game").replaceChildren(
    ...page.games.map((g) => {
      const option = document.createElement("option");
      option.value = g.name;
      option.textContent = g.title;
      return option;
    }),
  );
  $("game").addEventListener("change", fillSettings);
  $("agent").addEventListener("change", fillStrength);
  $("strength").addEventListener("input", () => {
    showAgentReady();
    pollStats(); // another player may have compiled it meanwhile
  });
  $("new-game").addEventListener("click", () => newGame());
  $("undo").addEventListener("click", undo);
  $("hint").addEventListener("click", hint);
  $("step").addEventListener("click", () => {
    if (page.autoplay) page.autoplay = false;
    else if (page.view.over) newGame();
    else startAutoplay();
  });
  $("verdicts").addEventListener("change", () => {
    draw();
    refreshVerdicts();
  });
  $("load-moves").addEventListener("click", () => newGame($("moves").value));
  $("moves").addEventListener("keydown", (event) => {
    if (event.key === "Enter") newGame($("moves").value);
  });
  $("copy-moves").addEventListener("click", copyMoves);
  fillSettings();
  const showNotation = () => {
    const notation = gameInfo().notation;
    $("moves").placeholder = notation ? `paste a move list: ${notation}` : "paste a move list";
  };
  showNotation();
  $("game").addEventListener("change", showNotation);
  $("status").textContent = "Starting a game…";
  pollStats();
  await newGame();
}

init();
