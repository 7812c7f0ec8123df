// Any game the page has no module of its own for (pgx's, one registered with games.register).
//
// A game whose board JSON is a grid with a move per cell ({rows, cols, cells, cell_moves}:
// cells[r][c] 0 empty, 1 the first player's stone, 2 the second's; cell_moves[r][c] the move
// that clicking the cell plays) is drawn as a board of clickable cells, with the legal moves
// that have no cell (a pass, say) as buttons beside it. Any other game: the position as the
// game writes it (the session's `text`), and a grid of buttons, one per legal move in the
// game's notation. Either way each legal move is shaded with the search's visit share.

import { lastMoveOf } from "./common.js";

export const sides = ["First player", "Second player"];

const SHARE_TINT = "#7a4cd9"; // the search's colour, as on the other games' boards

function shareOf(overlay, move) {
  return overlay.shares ? overlay.shares[move] : undefined;
}

// A button playing `move`, shaded with its visit share: a move button of the generic grid.
function moveButton(move, overlay, onMove) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "generic-move";
  button.dataset.move = move;
  button.textContent = move;
  const share = shareOf(overlay, move);
  if (share !== undefined) {
    button.style.background = `color-mix(in srgb, ${SHARE_TINT} ${Math.round(5 + 45 * share)}%, white)`;
    button.title = `${move}: ${Math.round(share * 100)}% of the search`;
  }
  button.disabled = !overlay.canMove;
  button.addEventListener("click", () => onMove(move));
  return button;
}

function moveButtons(moves, overlay, onMove) {
  const grid = document.createElement("div");
  grid.className = "generic-moves";
  grid.style.gridTemplateColumns = `repeat(${Math.min(7, Math.max(1, moves.length))}, auto)`;
  grid.append(...moves.map((move) => moveButton(move, overlay, onMove)));
  return grid;
}

// Whether the board JSON is a grid of cells with a move name per cell.
function isCellGrid(board) {
  const { rows, cols, cells, cell_moves: moves } = board || {};
  const shaped = (grid) =>
    Array.isArray(grid) && grid.length === rows && grid.every((row) => Array.isArray(row) && row.length === cols);
  return Number.isInteger(rows) && Number.isInteger(cols) && rows > 0 && cols > 0 && shaped(cells) && shaped(moves);
}

// One cell: a button that plays its move when that move is legal, with its stone, if any, and
// the search's share of its move. `last`: the stone the last move placed here; `alone`: no
// other cell plays its move (a column game's cells share their column's move: they are
// shaded alike, with no dots, and the share's figure is written in the first of them only);
// `first`: the first empty cell of its move.
function cell(move, stone, { legal, last, alone, first }, overlay, onMove) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "generic-cell";
  button.dataset.move = move;
  button.title = move;
  if (stone === 1 || stone === 2) {
    const disc = document.createElement("div");
    disc.className = `generic-stone p${stone}` + (last ? " last" : "");
    button.appendChild(disc);
  }
  const share = legal ? shareOf(overlay, move) : undefined;
  if (share !== undefined) {
    button.style.background = `color-mix(in srgb, ${SHARE_TINT} ${Math.round(45 * share)}%, var(--generic-square))`;
    button.title = `${move}: ${Math.round(share * 100)}% of the search`;
    if (!stone && first) {
      const label = document.createElement("span");
      label.className = "generic-share";
      label.textContent = `${Math.round(share * 100)}%`;
      button.appendChild(label);
    }
  } else if (legal && alone && !stone) {
    const dot = document.createElement("span");
    dot.className = "generic-dot";
    button.appendChild(dot);
  }
  if (legal) button.classList.add("legal");
  button.disabled = !(legal && overlay.canMove);
  button.addEventListener("click", () => onMove(move));
  return button;
}

function drawGrid(view, overlay, onMove) {
  const { rows, cols, cells, cell_moves: cellMoves } = view.board;
  const legal = new Set(view.legal_moves);
  const named = cellMoves.flat();
  const cellsOf = new Map();
  for (const move of named) cellsOf.set(move, (cellsOf.get(move) || 0) + 1);
  const lastMove = lastMoveOf(view);
  const labelled = new Set();
  const board = document.createElement("div");
  board.className = "generic-board";
  board.style.gridTemplateColumns = `repeat(${cols}, var(--generic-cell))`;
  // Cells as Othello's, smaller on a large board (Go 19x19) so that it fits beside the settings.
  board.style.setProperty("--generic-cell", `min(2.9rem, ${(27 / cols).toFixed(2)}rem)`);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const move = cellMoves[r][c];
      const alone = cellsOf.get(move) === 1;
      const first = !cells[r][c] && !labelled.has(move);
      if (first) labelled.add(move);
      const facts = { legal: legal.has(move), last: alone && move === lastMove, alone, first };
      board.appendChild(cell(move, cells[r][c], facts, overlay, onMove));
    }
  }
  const root = document.createElement("div");
  root.className = "generic-board-row";
  root.appendChild(board);
  const offBoard = view.legal_moves.filter((move) => !cellsOf.has(move));
  if (offBoard.length) {
    const buttons = moveButtons(offBoard, overlay, onMove);
    buttons.classList.add("generic-off-board");
    buttons.style.gridTemplateColumns = "auto";
    root.appendChild(buttons);
  }
  return root;
}

export function render(container, view, overlay, onMove) {
  if (isCellGrid(view.board)) {
    container.replaceChildren(drawGrid(view, overlay, onMove));
    return;
  }
  const picture = document.createElement("pre");
  picture.className = "generic-text";
  picture.textContent = view.text;
  container.replaceChildren(picture, moveButtons(view.legal_moves, overlay, onMove));
}
