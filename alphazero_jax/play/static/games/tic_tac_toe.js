// Tic-Tac-Toe (and m,n,k boards): one clickable cell per move, named like chess squares
// ("a3" is the top-left cell of a 3x3 board), with the search's visit share in each cell.

import { lastMoveOf } from "./common.js";

const FILES = "abcdefghij";
const MARKS = ["", "X", "O"];

export const sides = ["X", "O"];

export function render(container, view, overlay, onMove) {
  const { rows, cols, cells } = view.board;
  const legal = new Set(view.legal_moves);
  const lastMove = lastMoveOf(view);
  const root = document.createElement("div");
  root.className = "ttt";
  root.style.gridTemplateColumns = `repeat(${cols}, auto)`;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const move = `${FILES[c]}${rows - r}`;
      const cell = document.createElement("div");
      cell.className = "ttt-cell" + (cells[r][c] ? ` p${cells[r][c]}` : "");
      cell.dataset.move = move;
      cell.title = move;
      cell.textContent = MARKS[cells[r][c]];
      if (move === lastMove) cell.classList.add("last");
      const share = overlay.shares ? overlay.shares[move] : undefined;
      if (share !== undefined && !cells[r][c]) {
        cell.style.background = `color-mix(in srgb, #7a4cd9 ${Math.round(5 + 45 * share)}%, white)`;
        const label = document.createElement("span");
        label.className = "ttt-share";
        label.textContent = `${Math.round(share * 100)}%`;
        cell.appendChild(label);
      }
      if (overlay.canMove && legal.has(move)) cell.addEventListener("click", () => onMove(move));
      root.appendChild(cell);
    }
  }
  container.replaceChildren(root);
}
