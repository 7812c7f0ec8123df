// Othello: one clickable square per placement, named a1 (top-left) to h8; a "Pass" button
// when passing is the only move. Legal squares show a dot, or the search's visit share.

import { lastMoveOf } from "./common.js";

const FILES = "abcdefghijklmnop";

export const sides = ["Black", "White"];

export function render(container, view, overlay, onMove) {
  const { rows, cols, cells } = view.board;
  const legal = new Set(view.legal_moves);
  const lastMove = lastMoveOf(view);
  const root = document.createElement("div");
  root.className = "oth";
  const board = document.createElement("div");
  board.className = "oth-board";
  board.style.gridTemplateColumns = `repeat(${cols}, auto)`;
  const count = [0, 0, 0];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const move = `${FILES[c]}${r + 1}`;
      const square = document.createElement("div");
      square.className = "oth-square";
      square.dataset.move = move;
      square.title = move;
      count[cells[r][c]] += 1;
      if (cells[r][c]) {
        const disc = document.createElement("div");
        disc.className = `oth-disc p${cells[r][c]}` + (move === lastMove ? " last" : "");
        square.appendChild(disc);
      } else if (legal.has(move)) {
        square.classList.add("legal");
        const share = overlay.shares ? overlay.shares[move] : undefined;
        const mark = document.createElement("span");
        if (share !== undefined) {
          mark.className = "oth-share";
          mark.textContent = `${Math.round(share * 100)}%`;
          square.style.background = `color-mix(in srgb, #7a4cd9 ${Math.round(45 * share)}%, #2e7d4f)`;
        } else {
          mark.className = "oth-hint";
        }
        square.appendChild(mark);
        if (overlay.canMove) square.addEventListener("click", () => onMove(move));
      }
      board.appendChild(square);
    }
  }
  const footer = document.createElement("div");
  footer.className = "oth-footer";
  footer.textContent = `Black ${count[1]} · White ${count[2]}`;
  if (legal.has("pass")) {
    const pass = document.createElement("button");
    pass.id = "pass";
    pass.textContent = "Pass (no move)";
    pass.disabled = !overlay.canMove;
    pass.addEventListener("click", () => onMove("pass"));
    footer.appendChild(pass);
  }
  root.append(board, footer);
  container.replaceChildren(root);
}
