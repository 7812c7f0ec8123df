// Searches positions with the offline page's search (alphazero_jax/play/static/offline/) and
// an exported agent's network in onnxruntime-node, for tests/play/test_offline_search.py.
// Input (stdin): {"bundle": "<folder>/<key>" (its .json and .onnx), "positions": [[action,
// ...], ...] (the moves from the start)}. Output: per position {action, value, visitProbs}.
import { readFileSync } from "node:fs";
import * as ort from "onnxruntime-node";
import { makeGame } from "../../../alphazero_jax/play/static/offline/games.js";
import { makeEvaluator } from "../../../alphazero_jax/play/static/offline/network.js";
import { search } from "../../../alphazero_jax/play/static/offline/search.js";

const input = JSON.parse(readFileSync(0, "utf8"));
const bundle = JSON.parse(readFileSync(`${input.bundle}.json`, "utf8"));
const game = makeGame(bundle.game, bundle.settings);
const evaluate = await makeEvaluator(ort, readFileSync(`${input.bundle}.onnx`), bundle, {
  intraOpNumThreads: 1,
});
const out = [];
for (const actions of input.positions) {
  const state = actions.reduce((s, a) => game.step(s, a), game.init());
  const found = await search(game, evaluate, bundle.search, state);
  out.push({ action: found.action, value: found.value, visitProbs: found.visitProbs });
}
process.stdout.write(JSON.stringify(out));
