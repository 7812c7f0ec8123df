// Quoridor: click a marked square to move the pawn there, or a groove between squares to
// place a wall. Hovering a groove previews the wall a click would place: the groove line
// nearest the pointer picks horizontal or vertical, and only a legal wall is shown. A wall
// is named by the top-left square of the 2x2 block whose middle it covers, then h or v.
//
// The board is a grid of tracks, square, groove, square, ..., so that square (r, c) sits in
// grid row 2r + 1 and column 2c + 1, and a wall in groove (r, c) spans three tracks.

import { lastMoveOf } from "./common.js";

const FILES = "abcdefghi";
const SHOWN_WALL_SHARE = 0.05; // walls the search gave less than this are not shaded

export const sides = ["Red", "Blue"];

const squareName = (r, c) => `${FILES[c]}${r + 1}`;

function place(element, r, c, kind) {
  if (kind === "h") {
    element.style.gridRow = `${2 * r + 2}`;
    element.style.gridColumn = `${2 * c + 1} / span 3`;
  } else if (kind === "v") {
    element.style.gridRow = `${2 * r + 1} / span 3`;
    element.style.gridColumn = `${2 * c + 2}`;
  } else {
    element.style.gridRow = `${2 * r + 1}`;
    element.style.gridColumn = `${2 * c + 1}`;
  }
  return element;
}

function wall(r, c, kind, className) {
  const bar = document.createElement("div");
  bar.className = `q-wall ${kind} ${className}`;
  bar.dataset.wall = `${squareName(r, c)}${kind}`;
  return place(bar, r, c, kind);
}

// The wall under the pointer as [r, c, kind], or null over a square or off the board: the
// groove whose middle is nearest, horizontal when the pointer is nearer its horizontal line.
function wallAt(event, board, size) {
  const first = board.querySelector(".q-square").getBoundingClientRect();
  const pitch = board.querySelectorAll(".q-square")[1].getBoundingClientRect().left - first.left;
  const groove = pitch - first.width;
  const x = event.clientX - first.left;
  const y = event.clientY - first.top;
  const extent = size * pitch - groove;
  const inSquare = (v) => v - Math.floor(v / pitch) * pitch < first.width;
  if (x < 0 || y < 0 || x > extent || y > extent || (inSquare(x) && inSquare(y))) return null;
  const corner = (v) => Math.min(size - 2, Math.max(0, Math.round((v - first.width - groove / 2) / pitch)));
  const r = corner(y);
  const c = corner(x);
  const dx = x - (c * pitch + first.width + groove / 2);
  const dy = y - (r * pitch + first.width + groove / 2);
  return [r, c, Math.abs(dy) < Math.abs(dx) ? "h" : "v"];
}

function square(r, c, cells, legal, lastMove, overlay, onMove) {
  const move = squareName(r, c);
  const cell = place(document.createElement("div"), r, c);
  cell.className = "q-square";
  cell.dataset.move = move;
  cell.title = move;
  if (cells[r][c]) {
    const pawn = document.createElement("div");
    pawn.className = `q-pawn p${cells[r][c]}` + (move === lastMove ? " last" : "");
    cell.appendChild(pawn);
  } else if (legal.has(move)) {
    cell.classList.add("legal");
    const share = overlay.shares ? overlay.shares[move] : undefined;
    const mark = document.createElement("span");
    if (share !== undefined) {
      mark.className = "q-share";
      mark.textContent = `${Math.round(share * 100)}%`;
      cell.style.background = `color-mix(in srgb, #7a4cd9 ${Math.round(45 * share)}%, #ecd9b4)`;
    } else {
      mark.className = "q-dot";
    }
    cell.appendChild(mark);
    if (overlay.canMove) cell.addEventListener("click", () => onMove(move));
  }
  return cell;
}

// The search's favourite walls, shaded by their visit share.
function wallShares(shares, legal) {
  const bars = [];
  for (const [move, share] of Object.entries(shares || {})) {
    const match = /^([a-i])(\d+)([hv])$/.exec(move);
    if (!match || share < SHOWN_WALL_SHARE || !legal.has(move)) continue;
    const bar = wall(Number(match[2]) - 1, FILES.indexOf(match[1]), match[3], "share");
    bar.style.opacity = `${0.25 + 0.6 * share}`;
    bar.title = `${move} ${Math.round(share * 100)}%`;
    bars.push(bar);
  }
  return bars;
}

function footer(view) {
  const row = document.createElement("div");
  row.className = "q-footer";
  view.board.walls_left.forEach((count, player) => {
    const side = document.createElement("span");
    side.className = "q-side" + (!view.over && view.to_move === player ? " to-move" : "");
    side.dataset.player = player;
    const heading = player === 0 ? "heads up" : "heads down";
    side.innerHTML = `<span class="q-pawn p${player + 1}"></span>`;
    side.append(`${sides[player]} (${heading}): ${count} wall${count === 1 ? "" : "s"} in hand`);
    row.appendChild(side);
  });
  return row;
}

export function render(container, view, overlay, onMove) {
  const { rows, cols, cells, walls_h: wallsH, walls_v: wallsV } = view.board;
  const legal = new Set(view.legal_moves);
  const lastMove = lastMoveOf(view);
  const board = document.createElement("div");
  board.className = "q-board";
  const tracks = `repeat(${cols - 1}, var(--q-square) var(--q-groove)) var(--q-square)`;
  board.style.gridTemplateColumns = tracks;
  board.style.gridTemplateRows = tracks;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) board.appendChild(square(r, c, cells, legal, lastMove, overlay, onMove));
  }
  board.append(...wallShares(overlay.shares, legal));
  for (const [kind, grooves] of [["h", wallsH], ["v", wallsV]]) {
    for (const [r, c] of grooves) {
      const placed = wall(r, c, kind, "placed");
      if (placed.dataset.wall === lastMove) placed.classList.add("last");
      board.appendChild(placed);
    }
  }
  if (overlay.canMove) {
    const preview = document.createElement("div");
    preview.id = "wall-preview";
    preview.hidden = true;
    board.appendChild(preview);
    const legalWallAt = (event) => {
      const found = wallAt(event, board, cols);
      return found && legal.has(`${squareName(found[0], found[1])}${found[2]}`) ? found : null;
    };
    board.addEventListener("pointermove", (event) => {
      const found = legalWallAt(event);
      preview.hidden = !found;
      board.classList.toggle("walling", Boolean(found));
      if (!found) return;
      const [r, c, kind] = found;
      preview.className = `q-wall ${kind} preview`;
      preview.dataset.wall = `${squareName(r, c)}${kind}`;
      place(preview, r, c, kind);
    });
    board.addEventListener("pointerleave", () => {
      preview.hidden = true;
      board.classList.remove("walling");
    });
    board.addEventListener("click", (event) => {
      const found = legalWallAt(event); // from the click itself: a tap has no hover first
      if (found) onMove(`${squareName(found[0], found[1])}${found[2]}`);
    });
  }
  const root = document.createElement("div");
  root.className = "q";
  root.append(board, footer(view));
  container.replaceChildren(root);
}
