// The offline page's games: each game's rules for the browser, by name (the names of
// alphazero_jax.games), built from the settings of an exported agent's bundle.

import { connectFour, ticTacToe } from "./kinarow.js";
import { othello } from "./othello.js";
import { quoridor } from "./quoridor.js";

export const MAKERS = { connect_four: connectFour, tic_tac_toe: ticTacToe, othello, quoridor };

export function makeGame(name, settings) {
  const maker = MAKERS[name];
  if (!maker) throw new Error(`No rules for the game ${name} in the page; it has ${Object.keys(MAKERS).join(", ")}.`);
  return maker(settings);
}
