// The offline play page: the exported agents (agents/agents.json, each a .onnx network and a
// .json of its search) played in the browser. The network runs in ONNX Runtime Web (one
// thread unless the page is cross-origin isolated), the search is search.js, the rules are
// this folder's, and the board is drawn by the play page's own game modules (../games/).

import * as ort from "../ort/ort.wasm.min.mjs";
import * as connectFour from "../games/connect_four.js";
import * as othello from "../games/othello.js";
import * as quoridor from "../games/quoridor.js";
import * as ticTacToe from "../games/tic_tac_toe.js";
import { makeGame } from "./games.js";
import { makeEvaluator } from "./network.js";
import { search } from "./search.js";

const DRAWING = { connect_four: connectFour, othello, quoridor, tic_tac_toe: ticTacToe };
const AGENT_PAUSE_MS = 300; // between moves when the agent plays both sides
const FORMAT = 2; // web_bundle.FORMAT

ort.env.wasm.wasmPaths = new URL("../ort/", import.meta.url).href;
ort.env.wasm.numThreads = self.crossOriginIsolated ? Math.min(4, navigator.hardwareConcurrency || 1) : 1;

const $ = (id) => document.getElementById(id);
const page = {
  agents: [], // agents.json's list
  loaded: new Map(), // key -> {bundle, game, evaluate}
  game: null, // the current game: {agent, rules, human, states, actions, names, reply}
  busy: false,
  autoplay: false,
  timings: [], // {key, ms, first} per agent move, for the benchmark and the tests
};
window.offlinePage = page;

async function load(key) {
  if (page.loaded.has(key)) return page.loaded.get(key);
  const started = performance.now();
  const bundle = await (await fetch(`agents/${key}.json`)).json();
  if (bundle.format !== FORMAT) throw new Error(`agents/${key}.json: format ${bundle.format}, the page reads ${FORMAT}.`);
  const model = new Uint8Array(await (await fetch(`agents/${key}.onnx`)).arrayBuffer());
  const evaluate = await makeEvaluator(ort, model, bundle, { executionProviders: ["wasm"] });
  const agent = { bundle, rules: makeGame(bundle.game, bundle.settings), evaluate, loadMs: performance.now() - started };
  page.loaded.set(key, agent);
  return agent;
}

// -- the game as the play page's drawing modules see it (the server's session view) --------

function view() {
  const g = page.game;
  const state = g.states[g.states.length - 1];
  const legal = g.rules.legal(state);
  const player = state.currentPlayer;
  const humanSide = { first: 0, second: 1 }[g.human];
  const over = state.terminal;
  let result = "";
  if (over) {
    const winner = state.winner;
    if (winner < 0) result = "Draw";
    else if (g.human === "none") result = `${["First", "Second"][winner]} player wins`;
    else result = winner === humanSide ? "You win" : "The agent wins";
  }
  return {
    game: g.rules.name,
    settings: g.rules.settings,
    human: g.human,
    moves: g.rules.movesText(g.names),
    board: g.rules.boardJson(state),
    legal_moves: legal.flatMap((ok, a) => (ok ? [g.rules.actionName(a, state)] : [])),
    to_move: player,
    human_to_move: !over && player === humanSide,
    over,
    result,
  };
}

function drawing() {
  return DRAWING[page.game.rules.name];
}

function showEval(reply, what = "played") {
  if (!reply) {
    $("eval-fill").style.height = "50%";
    $("eval-text").textContent = "";
    $("search-note").textContent = "";
    return;
  }
  const sides = drawing().sides;
  const first = reply.player === 0 ? reply.value : -reply.value;
  $("eval-fill").style.height = `${Math.round(((first + 1) / 2) * 100)}%`;
  $("eval-text").textContent = `${sides[0]} ${first >= 0 ? "+" : ""}${first.toFixed(2)}`;
  const mover = sides[reply.player];
  const value = `${reply.value >= 0 ? "+" : ""}${reply.value.toFixed(2)}`;
  $("search-note").textContent =
    `The agent ${what} ${reply.move} for ${mover}: value ${value} for ${mover}; ` +
    "the shading shows its search's visit share of each move.";
}

function draw() {
  if (!page.game) return;
  const v = view();
  document.body.dataset.game = v.game;
  document.body.dataset.over = v.over;
  $("board").classList.toggle("busy", page.busy);
  drawing().render($("board"), v, { shares: page.game.shares, verdicts: null, canMove: v.human_to_move && !page.busy }, playMove);
  $("undo").disabled = page.busy || !page.game.actions.length || v.human === "none";
  $("hint").disabled = page.busy || v.over || !v.human_to_move;
  $("step").hidden = v.human !== "none";
  $("step").textContent = page.autoplay ? "Pause" : v.over ? "Replay" : "Resume";
  $("moves").value = v.moves;
  const sides = drawing().sides;
  let text;
  if (v.over) text = `${v.result}. Moves: ${v.moves || "(none)"}`;
  else if (page.busy) text = "The agent is thinking…";
  else if (v.human_to_move) text = `Your move (${sides[v.to_move]}).`;
  else if (v.human === "none") text = `${sides[v.to_move]} to move (agent against agent).`;
  else text = "The agent's move.";
  $("status").textContent = text;
}

async function guarded(work) {
  if (page.busy) return;
  page.busy = true;
  $("error").textContent = "";
  draw();
  try {
    await work();
  } catch (error) {
    $("error").textContent = String(error.message || error);
  } finally {
    page.busy = false;
    draw();
  }
}

function push(action) {
  const g = page.game;
  const state = g.states[g.states.length - 1];
  g.names.push(g.rules.actionName(action, state));
  g.actions.push(action);
  g.states.push(g.rules.step(state, action));
}

// The agent's search of the position now: its move, value and visit shares by move name.
async function analyse() {
  const g = page.game;
  const state = g.states[g.states.length - 1];
  const started = performance.now();
  const found = await search(g.rules, g.agent.evaluate, g.agent.bundle.search, state);
  const ms = performance.now() - started;
  const shares = {};
  g.rules.legal(state).forEach((ok, a) => {
    if (ok) shares[g.rules.actionName(a, state)] = found.visitProbs[a];
  });
  const reply = { move: g.rules.actionName(found.action, state), player: state.currentPlayer, value: found.value, shares };
  return { action: found.action, reply, ms, evaluations: found.evaluations };
}

async function agentMove() {
  const g = page.game;
  const first = !g.agent.searched;
  const { action, reply, ms, evaluations } = await analyse();
  g.agent.searched = true;
  const total = ms + (first ? g.agent.loadMs : 0);
  // at: milliseconds since the page began to load, when the move was chosen.
  page.timings.push({ key: g.agent.bundle.key, ms, first, loadMs: first ? g.agent.loadMs : 0, at: performance.now() });
  push(action);
  g.shares = reply.shares;
  showEval(reply);
  $("timing").textContent =
    `Its search: ${g.agent.bundle.search.num_simulations} simulations, ${evaluations} network evaluations, ` +
    `${Math.round(ms)} ms${first ? ` (${Math.round(total)} ms with loading the network)` : ""}.`;
}

async function agentTurns() {
  const g = page.game;
  for (;;) {
    const v = view();
    if (v.over || v.human_to_move || g.human === "none") break;
    await agentMove();
  }
}

async function playMove(name) {
  await guarded(async () => {
    const g = page.game;
    const state = g.states[g.states.length - 1];
    const legal = g.rules.legal(state);
    const action = legal.findIndex((ok, a) => ok && g.rules.actionName(a, state) === name);
    if (action < 0) throw new Error(`${name} is not a legal move here.`);
    push(action);
    g.shares = null;
    draw();
    await agentTurns();
  });
}

async function newGame() {
  page.autoplay = false;
  await guarded(async () => {
    const key = $("agent").value;
    $("status").textContent = "Loading the agent's network…";
    const agent = await load(key);
    page.game = { agent, rules: agent.rules, human: $("human").value, states: [agent.rules.init()], actions: [], names: [], shares: null };
    showEval(null);
    $("timing").textContent = "";
    draw();
    await agentTurns();
  });
  if (page.game && page.game.human === "none") startAutoplay();
}

async function startAutoplay() {
  page.autoplay = true;
  draw();
  while (page.autoplay && page.game && !view().over) {
    const g = page.game;
    await guarded(agentMove);
    if (page.game !== g || $("error").textContent) break;
    await new Promise((resolve) => setTimeout(resolve, AGENT_PAUSE_MS));
  }
  page.autoplay = false;
  draw();
}

function undo() {
  const g = page.game;
  const humanSide = { first: 0, second: 1 }[g.human];
  // Back to the human's last turn: the agent's reply and the human's move go.
  do {
    g.states.pop();
    g.actions.pop();
    g.names.pop();
  } while (g.actions.length && g.states[g.states.length - 1].currentPlayer !== humanSide);
  g.shares = null;
  showEval(null);
  draw();
}

async function hint() {
  await guarded(async () => {
    const { reply } = await analyse();
    page.game.shares = reply.shares;
    showEval(reply, "suggests");
  });
}

// "6x7 (connect 4)", "9x9 (walls 10)", "8x8": the board and the settings that are rules.
function boardSize(settings) {
  const { rows, cols, size, connect, walls } = settings;
  const board = size ? `${size}x${size}` : `${rows}x${cols}`;
  const more = connect !== undefined ? `connect ${connect}` : walls !== undefined ? `walls ${walls}` : "";
  return more ? `${board} (${more})` : board;
}

async function init() {
  try {
    page.agents = (await (await fetch("agents/agents.json")).json()).agents;
  } catch (error) {
    $("error").textContent = `agents/agents.json: ${error.message}; serve this folder over HTTP.`;
    return;
  }
  $("agent").replaceChildren(
    ...page.agents.map((a) => {
      const option = document.createElement("option");
      option.value = a.key;
      option.textContent = `${a.title} ${boardSize(a.settings)}`;
      return option;
    }),
  );
  const describe = () => {
    const a = page.agents.find((x) => x.key === $("agent").value);
    $("agent-note").textContent = `${a.num_simulations} simulations a move; network ${(a.onnx_bytes / 1e6).toFixed(1)} MB.`;
  };
  $("agent").addEventListener("change", describe);
  $("new-game").addEventListener("click", newGame);
  $("undo").addEventListener("click", undo);
  $("hint").addEventListener("click", hint);
  $("step").addEventListener("click", () => {
    if (page.autoplay) page.autoplay = false;
    else if (view().over) newGame();
    else startAutoplay();
  });
  const wanted = new URLSearchParams(location.search);
  if (wanted.get("agent")) $("agent").value = wanted.get("agent");
  if (wanted.get("human")) $("human").value = wanted.get("human");
  describe();
  await newGame();
}

init();
