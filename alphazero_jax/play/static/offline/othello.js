// Othello for the offline page: the rules of alphazero_jax/games/othello_rules.py written
// again for the browser (tests/play/test_offline_rules.py plays the same random games through
// both and finds every legal mask, observation and outcome equal, passes included).
//
// A state: cells[row * size + col] (0 empty, 1 Black = player 0, 2 White), legal (the mover's
// placements, bool per cell; none when it must pass or the game is over), currentPlayer,
// numMoves, terminal, winner (-1: none). Actions: cells in reading order, then the pass.

const FILES = "abcdefghijklmnop";
const STEPS = [[0, 1], [1, 0], [1, 1], [1, -1], [0, -1], [-1, 0], [-1, -1], [-1, 1]];

// The discs of `other` that `own` (1 or 2) flips by placing on `cell` (empty), as cells.
function flips(cells, size, cell, own) {
  const other = 3 - own;
  const row = Math.floor(cell / size);
  const col = cell % size;
  const flipped = [];
  for (const [dr, dc] of STEPS) {
    const run = [];
    let r = row + dr;
    let c = col + dc;
    while (r >= 0 && r < size && c >= 0 && c < size && cells[r * size + c] === other) {
      run.push(r * size + c);
      r += dr;
      c += dc;
    }
    if (run.length && r >= 0 && r < size && c >= 0 && c < size && cells[r * size + c] === own) {
      flipped.push(...run);
    }
  }
  return flipped;
}

function placements(cells, size, own) {
  return cells.map((disc, cell) => disc === 0 && flips(cells, size, cell, own).length > 0);
}

export function othello({ size = 8, legal_plane: legalPlane = 1 } = {}) {
  const numCells = size * size;
  const planes = 2 + legalPlane;

  function init() {
    const cells = new Array(numCells).fill(0);
    const low = size / 2 - 1;
    const high = size / 2;
    cells[low * size + high] = cells[high * size + low] = 1;
    cells[low * size + low] = cells[high * size + high] = 2;
    const legal = placements(cells, size, 1);
    return { cells, legal, currentPlayer: 0, numMoves: 0, terminal: false, winner: -1 };
  }

  function step(state, action) {
    if (state.terminal) return state;
    const mover = state.currentPlayer;
    const own = mover + 1;
    const placing = action >= 0 && action < numCells && state.legal[action];
    const passing = action === numCells && !state.legal.some(Boolean);
    const cells = state.cells.slice();
    if (placing) {
      for (const cell of flips(cells, size, action, own)) cells[cell] = own;
      cells[action] = own;
    }
    const next = { ...state, cells, currentPlayer: 1 - mover, numMoves: state.numMoves + 1 };
    if (!placing && !passing) {
      return { ...next, cells: state.cells, legal: state.legal.map(() => false), terminal: true, winner: 1 - mover };
    }
    const nextMoves = placements(cells, size, 3 - own);
    const over = !nextMoves.some(Boolean) && !placements(cells, size, own).some(Boolean);
    let winner = -1;
    if (over) {
      const lead = cells.filter((d) => d === own).length - cells.filter((d) => d === 3 - own).length;
      winner = lead > 0 ? mover : lead < 0 ? 1 - mover : -1;
    }
    return { ...next, legal: over ? nextMoves.map(() => false) : nextMoves, terminal: over, winner };
  }

  function observe(state) {
    const out = new Float32Array(numCells * planes);
    const own = state.currentPlayer + 1;
    for (let cell = 0; cell < numCells; cell++) {
      const disc = state.cells[cell];
      if (disc) out[cell * planes + (disc === own ? 0 : 1)] = 1;
      if (legalPlane && state.legal[cell]) out[cell * planes + 2] = 1;
    }
    return out;
  }

  return {
    name: "othello",
    settings: { size, legal_plane: legalPlane },
    numActions: numCells + 1,
    observationShape: [size, size, planes],
    init,
    step,
    legal: (state) => [...state.legal, !state.terminal && !state.legal.some(Boolean)],
    rewards: (state) => (state.winner < 0 ? [0, 0] : state.winner === 0 ? [1, -1] : [-1, 1]),
    observe,
    boardJson: (state) => ({
      rows: size,
      cols: size,
      cells: Array.from({ length: size }, (_, r) => state.cells.slice(r * size, (r + 1) * size)),
    }),
    actionName: (action) =>
      action === numCells ? "pass" : `${FILES[action % size]}${Math.floor(action / size) + 1}`,
    movesText: (names) => names.join(" "),
  };
}
