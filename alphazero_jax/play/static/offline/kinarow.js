// Connect Four and Tic-Tac-Toe (m,n,k) for the offline page: the rules of
// alphazero_jax/games/connect_four.py and tic_tac_toe.py (with _kinarow.py), written again
// for the browser. tests/play/test_offline_rules.py plays the same random games through both
// and finds every legal mask, observation and outcome equal.
//
// A state is a plain object: cells[row][col] (row 0 on top; 0 empty, 1 first player's,
// 2 second's), currentPlayer, numMoves, terminal, winner (-1: none).

const FILES = "abcdefghij";
const COLUMNS = "123456789a";

function initial(rows, cols) {
  return {
    cells: Array.from({ length: rows }, () => new Array(cols).fill(0)),
    currentPlayer: 0,
    numMoves: 0,
    terminal: false,
    winner: -1,
  };
}

// Whether the stone at (row, col) ends a line of `connect` of its owner's stones.
function completesLine(cells, row, col, connect) {
  const owner = cells[row][col];
  const rows = cells.length;
  const cols = cells[0].length;
  for (const [dr, dc] of [[0, 1], [1, 0], [1, 1], [1, -1]]) {
    let count = 1;
    for (const sign of [1, -1]) {
      let r = row + sign * dr;
      let c = col + sign * dc;
      while (r >= 0 && r < rows && c >= 0 && c < cols && cells[r][c] === owner) {
        count += 1;
        r += sign * dr;
        c += sign * dc;
      }
    }
    if (count >= connect) return true;
  }
  return false;
}

// The state after the mover puts a stone on (row, col); row < 0: an illegal move, which
// ends the game as a loss for the mover. A terminal state is returned unchanged.
function place(state, row, col, connect) {
  if (state.terminal) return state;
  const mover = state.currentPlayer;
  const rows = state.cells.length;
  const cols = state.cells[0].length;
  const numMoves = state.numMoves + 1;
  const next = { ...state, currentPlayer: 1 - mover, numMoves };
  if (row < 0) return { ...next, terminal: true, winner: 1 - mover };
  const cells = state.cells.map((line) => line.slice());
  cells[row][col] = mover + 1;
  const won = completesLine(cells, row, col, connect);
  return { ...next, cells, terminal: won || numMoves >= rows * cols, winner: won ? mover : -1 };
}

function rewards(state) {
  if (state.winner < 0) return [0, 0];
  return state.winner === 0 ? [1, -1] : [-1, 1];
}

// float32[rows * cols * 2], channels last: the mover's stones, then the opponent's.
function observe(state) {
  const rows = state.cells.length;
  const cols = state.cells[0].length;
  const planes = new Float32Array(rows * cols * 2);
  const own = state.currentPlayer + 1;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const cell = state.cells[r][c];
      if (cell) planes[(r * cols + c) * 2 + (cell === own ? 0 : 1)] = 1;
    }
  }
  return planes;
}

function boardJson(state) {
  return { rows: state.cells.length, cols: state.cells[0].length, cells: state.cells };
}

export function connectFour({ rows = 6, cols = 7, connect = 4 } = {}) {
  return {
    name: "connect_four",
    settings: { rows, cols, connect },
    numActions: cols,
    observationShape: [rows, cols, 2],
    init: () => initial(rows, cols),
    legal: (state) => state.cells[0].map((cell) => !state.terminal && cell === 0),
    step(state, action) {
      let row = -1;
      if (action >= 0 && action < cols) {
        for (let r = rows - 1; r >= 0 && row < 0; r--) if (state.cells[r][action] === 0) row = r;
      }
      return place(state, row, action, connect);
    },
    rewards,
    observe,
    boardJson,
    actionName: (action) => COLUMNS[action],
    // Pons' notation: the columns, no separator.
    movesText: (names) => names.join(""),
  };
}

export function ticTacToe({ rows = 3, cols = 3, connect = 3 } = {}) {
  return {
    name: "tic_tac_toe",
    settings: { rows, cols, connect },
    numActions: rows * cols,
    observationShape: [rows, cols, 2],
    init: () => initial(rows, cols),
    legal: (state) => state.cells.flat().map((cell) => !state.terminal && cell === 0),
    step(state, action) {
      const row = Math.floor(action / cols);
      const col = action % cols;
      const free = action >= 0 && action < rows * cols && state.cells[row][col] === 0;
      return place(state, free ? row : -1, col, connect);
    },
    rewards,
    observe,
    boardJson,
    actionName: (action) => `${FILES[action % cols]}${rows - Math.floor(action / cols)}`,
    movesText: (names) => names.join(" "),
  };
}
