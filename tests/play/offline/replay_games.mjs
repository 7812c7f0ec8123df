// Replays games through the offline page's rules (alphazero_jax/play/static/offline/) for
// tests/play/test_offline_rules.py. Input (stdin): {"game", "settings", "games": [[action,
// ...], ...]}. Output (stdout): per game, per state from the start to the last: the legal
// mask as a 0/1 string, the observation, terminal, rewards, the player to move, and the
// heuristic where the game has one.
import { readFileSync } from "node:fs";
import { makeGame } from "../../../alphazero_jax/play/static/offline/games.js";

const input = JSON.parse(readFileSync(0, "utf8"));
const game = makeGame(input.game, input.settings);

function record(state) {
  return {
    legal: game.legal(state).map((x) => (x ? "1" : "0")).join(""),
    observation: Array.from(game.observe(state)),
    terminal: state.terminal,
    rewards: game.rewards(state),
    player: state.currentPlayer,
    heuristic: game.heuristic ? game.heuristic(state) : null,
  };
}

const out = input.games.map((actions) => {
  let state = game.init();
  const states = [record(state)];
  for (const action of actions) {
    state = game.step(state, action);
    states.push(record(state));
  }
  return states;
});
process.stdout.write(JSON.stringify(out));
