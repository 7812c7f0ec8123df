// Connect Four: one clickable column per move ("1".."9", "a" for a tenth column), with
// the search's visit share above each column and the solver's verdict below it.

const COLUMNS = "123456789a";

export const sides = ["Red", "Yellow"];

function columnName(col) {
  return COLUMNS[col];
}

// The row (top row first) of the stone in `col` that was played last, or -1.
function lastStoneRow(cells, col) {
  for (let r = 0; r < cells.length; r++) if (cells[r][col]) return r;
  return -1;
}

export function render(container, view, overlay, onMove) {
  const { rows, cols, cells } = view.board;
  const legal = new Set(view.legal_moves);
  const lastMove = view.moves ? view.moves[view.moves.length - 1] : null;
  const root = document.createElement("div");
  root.className = "c4";
  root.style.gridTemplateColumns = `repeat(${cols}, auto)`;
  root.style.background = "transparent";
  const grid = document.createElement("div");
  grid.className = "c4-grid";
  grid.style.gridTemplateColumns = `repeat(${cols}, auto)`;
  grid.style.gridColumn = `1 / span ${cols}`;
  const heads = [], feet = [];
  for (let c = 0; c < cols; c++) {
    const move = columnName(c);
    const head = document.createElement("div");
    head.className = "c4-head";
    const share = overlay.shares ? overlay.shares[move] : undefined;
    if (share !== undefined) {
      head.textContent = `${Math.round(share * 100)}%`;
      const bar = document.createElement("div");
      bar.className = "heat";
      bar.style.width = `${Math.max(2, Math.round(share * 100))}%`;
      head.appendChild(bar);
    }
    heads.push(head);
    const foot = document.createElement("div");
    foot.className = "c4-foot";
    const verdict = overlay.verdicts ? overlay.verdicts[move] : undefined;
    foot.innerHTML = `<div>${move}</div>`;
    if (verdict) {
      const tag = document.createElement("span");
      tag.className = `verdict ${verdict}`;
      tag.textContent = verdict;
      tag.dataset.verdict = move;
      foot.appendChild(tag);
    }
    feet.push(foot);
  }
  const lastCol = lastMove ? COLUMNS.indexOf(lastMove) : -1;
  const lastRow = lastCol >= 0 ? lastStoneRow(cells, lastCol) : -1;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const slot = document.createElement("div");
      slot.className = "c4-slot" + (cells[r][c] ? ` p${cells[r][c]}` : "");
      if (r === lastRow && c === lastCol) slot.classList.add("last");
      slot.dataset.move = columnName(c);
      slot.dataset.row = r;
      const playable = overlay.canMove && legal.has(columnName(c));
      if (playable) slot.addEventListener("click", () => onMove(columnName(c)));
      else slot.classList.add("disabled");
      grid.appendChild(slot);
    }
  }
  heads.forEach((head, c) => {
    head.dataset.move = columnName(c);
    if (overlay.canMove && legal.has(columnName(c))) {
      head.addEventListener("click", () => onMove(columnName(c)));
      head.style.cursor = "pointer";
    }
    root.appendChild(head);
  });
  root.appendChild(grid);
  feet.forEach((foot) => root.appendChild(foot));
  container.replaceChildren(root);
}
