// Quoridor for the offline page: the rules of alphazero_jax/games/quoridor_rules.py (and the
// paths of quoridor_geometry.py) written again for the browser, with its heuristic, which the
// shipped agents' search mixes into its values. tests/play/test_offline_rules.py plays the
// same random games through both and finds every legal mask (walls and their path check
// included), observation, heuristic and outcome equal.
//
// A state, in absolute coordinates (row 0 on top, the first player heading up):
// pawns [[row, col], [row, col]], wallsH and wallsV (bool[(size - 1) * (size - 1)] by groove
// r * (size - 1) + c), wallsLeft [2], legal (the mover's legal actions, mover's frame),
// currentPlayer, numMoves, terminal, winner (-1: none). Actions are in the mover's frame:
// 12 pawn moves, then horizontal walls by groove, then vertical ones.

const FILES = "abcdefghijklmnop";
const NUM_PAWN_ACTIONS = 12;
const FAR = 1 << 16;
const HEURISTIC_BOUND = 0.99;
const WEIGHTS = { distance: 1.0, walls: 0.5 };
// (row, col) of the pawn actions in the mover's frame: steps N E S W, jumps, diagonals
// NE SE SW NW.
const OFFSETS = [
  [-1, 0], [0, 1], [1, 0], [0, -1],
  [-2, 0], [0, 2], [2, 0], [0, -2],
  [-1, 1], [1, 1], [1, -1], [-1, -1],
];
// The diagonal action for "direction towards the other pawn, side stepped to".
const DIAGONAL = { "0,1": 8, "0,3": 11, "2,1": 9, "2,3": 10, "1,0": 8, "1,2": 9, "3,0": 11, "3,2": 10 };

export function quoridor({ size = 9, walls = 10, distance_planes: distancePlanes = 1 } = {}) {
  const n = size - 1; // grooves per row
  const grooves = n * n;
  const numActions = NUM_PAWN_ACTIONS + 2 * grooves;
  const maxMoves = 4 * size * size;
  const planes = 6 + 2 * distancePlanes;

  // The walls seen from the other side: groove rows turned over.
  const turnWalls = (w) => w.map((_, g) => w[(n - 1 - Math.floor(g / n)) * n + (g % n)]);
  const turn = ([row, col]) => [size - 1 - row, col];

  // The position as the mover sees it, heading up.
  function view(state) {
    if (state.currentPlayer === 0) {
      return { own: state.pawns[0], other: state.pawns[1], wallsH: state.wallsH, wallsV: state.wallsV, ownWalls: state.wallsLeft[0], otherWalls: state.wallsLeft[1] };
    }
    return { own: turn(state.pawns[1]), other: turn(state.pawns[0]), wallsH: turnWalls(state.wallsH), wallsV: turnWalls(state.wallsV), ownWalls: state.wallsLeft[1], otherWalls: state.wallsLeft[0] };
  }

  const has = (w, r, c) => r >= 0 && r < n && c >= 0 && c < n && w[r * n + c];

  // Whether the step from (row, col) in direction d (0 N, 1 E, 2 S, 3 W) is open.
  function canGo(wallsH, wallsV, [row, col], d) {
    if (d === 0) return row > 0 && !has(wallsH, row - 1, col) && !has(wallsH, row - 1, col - 1);
    if (d === 2) return row < size - 1 && !has(wallsH, row, col) && !has(wallsH, row, col - 1);
    if (d === 1) return col < size - 1 && !has(wallsV, row, col) && !has(wallsV, row - 1, col);
    return col > 0 && !has(wallsV, row, col - 1) && !has(wallsV, row - 1, col - 1);
  }

  // Every square's fewest steps to `goalRow` (pawns ignored), FAR where there is no path.
  function distanceField(wallsH, wallsV, goalRow) {
    const field = new Array(size * size).fill(FAR);
    const queue = new Int32Array(size * size);
    let tail = 0;
    for (let c = 0; c < size; c++) {
      field[goalRow * size + c] = 0;
      queue[tail++] = goalRow * size + c;
    }
    for (let head = 0; head < tail; head++) {
      const square = queue[head];
      const at = [Math.floor(square / size), square % size];
      for (let d = 0; d < 4; d++) {
        if (!canGo(wallsH, wallsV, at, d)) continue;
        const next = square + OFFSETS[d][0] * size + OFFSETS[d][1];
        if (field[next] === FAR) {
          field[next] = field[square] + 1;
          queue[tail++] = next;
        }
      }
    }
    return field;
  }

  // The grooves of the walls that would block a step of one shortest path from `pawn` to
  // `goalRow` (bool[2 * grooves]), or null when there is no path. A wall that blocks none of
  // them leaves that path open, so only these need the path check.
  function pathGrooves(wallsH, wallsV, pawn, goalRow) {
    const field = distanceField(wallsH, wallsV, goalRow);
    if (field[pawn[0] * size + pawn[1]] === FAR) return null;
    const used = new Uint8Array(2 * grooves);
    const mark = (kind, r, c) => {
      if (r >= 0 && r < n && c >= 0 && c < n) used[kind * grooves + r * n + c] = 1;
    };
    let [row, col] = pawn;
    while (row !== goalRow) {
      const here = field[row * size + col];
      const d = [0, 1, 2, 3].find(
        (k) =>
          canGo(wallsH, wallsV, [row, col], k) &&
          field[(row + OFFSETS[k][0]) * size + col + OFFSETS[k][1]] === here - 1,
      );
      const top = Math.min(row, row + OFFSETS[d][0]);
      const left = Math.min(col, col + OFFSETS[d][1]);
      if (d % 2 === 0) mark(0, top, col), mark(0, top, col - 1); // a step N or S
      else mark(1, row, left), mark(1, row - 1, left); // a step E or W
      row += OFFSETS[d][0];
      col += OFFSETS[d][1];
    }
    return used;
  }

  function reaches(wallsH, wallsV, pawn, goalRow) {
    return distanceField(wallsH, wallsV, goalRow)[pawn[0] * size + pawn[1]] < FAR;
  }

  function freeGroove(wallsH, wallsV, g) {
    const r = Math.floor((g % grooves) / n);
    const c = g % n;
    if (g < grooves) {
      return !has(wallsH, r, c) && !has(wallsH, r, c - 1) && !has(wallsH, r, c + 1) && !has(wallsV, r, c);
    }
    return !has(wallsV, r, c) && !has(wallsV, r - 1, c) && !has(wallsV, r + 1, c) && !has(wallsH, r, c);
  }

  // bool[A]: the mover's legal actions, in the mover's frame.
  function legalActions(own, other, wallsH, wallsV, wallsInHand) {
    const legal = new Array(numActions).fill(false);
    for (let d = 0; d < 4; d++) {
      const can = canGo(wallsH, wallsV, own, d);
      const facing = can && own[0] + OFFSETS[d][0] === other[0] && own[1] + OFFSETS[d][1] === other[1];
      legal[d] = can && !facing;
      const over = canGo(wallsH, wallsV, other, d);
      legal[4 + d] = facing && over;
      for (const side of [(d + 1) % 4, (d + 3) % 4]) {
        const beside = facing && !over && canGo(wallsH, wallsV, other, side);
        legal[DIAGONAL[`${d},${side}`]] ||= beside;
      }
    }
    if (wallsInHand > 0) {
      const ownPath = pathGrooves(wallsH, wallsV, own, 0);
      const otherPath = pathGrooves(wallsH, wallsV, other, size - 1);
      for (let g = 0; g < 2 * grooves; g++) {
        if (!freeGroove(wallsH, wallsV, g)) continue;
        const h = g < grooves ? wallsH.slice() : wallsH;
        const v = g < grooves ? wallsV : wallsV.slice();
        (g < grooves ? h : v)[g % grooves] = true;
        const ownOpen = ownPath && (!ownPath[g] || reaches(h, v, own, 0));
        const otherOpen = otherPath && (!otherPath[g] || reaches(h, v, other, size - 1));
        legal[NUM_PAWN_ACTIONS + g] = Boolean(ownOpen && otherOpen);
      }
    }
    return legal;
  }

  function init() {
    const none = new Array(grooves).fill(false);
    const pawns = [[size - 1, size >> 1], [0, size >> 1]];
    return {
      pawns,
      wallsH: none,
      wallsV: none,
      wallsLeft: [walls, walls],
      legal: legalActions(pawns[0], pawns[1], none, none, walls),
      currentPlayer: 0,
      numMoves: 0,
      terminal: false,
      winner: -1,
    };
  }

  function step(state, action) {
    if (state.terminal) return state;
    const mover = state.currentPlayer;
    let { own, other, wallsH, wallsV, ownWalls, otherWalls } = view(state);
    const legalMove = action >= 0 && action < numActions && state.legal[action];
    const moving = action < NUM_PAWN_ACTIONS;
    if (moving && legalMove) own = [own[0] + OFFSETS[action][0], own[1] + OFFSETS[action][1]];
    if (!moving && legalMove) {
      const g = action - NUM_PAWN_ACTIONS;
      if (g < grooves) (wallsH = wallsH.slice())[g] = true;
      else (wallsV = wallsV.slice())[g - grooves] = true;
      ownWalls -= 1;
    }
    const won = moving && own[0] === 0;
    const over = won || state.numMoves + 1 >= maxMoves || !legalMove;
    const nextLegal = over
      ? new Array(numActions).fill(false)
      : legalActions(turn(other), turn(own), turnWalls(wallsH), turnWalls(wallsV), otherWalls);
    const second = mover === 1;
    return {
      pawns: second ? [turn(other), turn(own)] : [own, other],
      wallsH: second ? turnWalls(wallsH) : wallsH,
      wallsV: second ? turnWalls(wallsV) : wallsV,
      wallsLeft: second ? [otherWalls, ownWalls] : [ownWalls, otherWalls],
      legal: nextLegal,
      currentPlayer: 1 - mover,
      numMoves: state.numMoves + 1,
      terminal: over,
      winner: legalMove ? (won ? mover : -1) : 1 - mover,
    };
  }

  const rewards = (state) => (state.winner < 0 ? [0, 0] : state.winner === 0 ? [1, -1] : [-1, 1]);

  function observe(state) {
    const { own, other, wallsH, wallsV, ownWalls, otherWalls } = view(state);
    const out = new Float32Array(size * size * planes);
    // XLA divides by a constant as a product with its float32 reciprocal: so do we.
    const perWall = Math.fround(1 / Math.max(walls, 1));
    const cells = size * size;
    const perStep = Math.fround(1 / cells);
    const fields = distancePlanes ? [distanceField(wallsH, wallsV, 0), distanceField(wallsH, wallsV, size - 1)] : [];
    for (let r = 0; r < size; r++) {
      for (let c = 0; c < size; c++) {
        const at = (r * size + c) * planes;
        out[at] = own[0] === r && own[1] === c ? 1 : 0;
        out[at + 1] = other[0] === r && other[1] === c ? 1 : 0;
        out[at + 2] = has(wallsH, r, c) ? 1 : 0;
        out[at + 3] = has(wallsV, r, c) ? 1 : 0;
        out[at + 4] = ownWalls * perWall;
        out[at + 5] = otherWalls * perWall;
        fields.forEach((field, i) => {
          out[at + 6 + i] = Math.min(field[r * size + c], cells) * perStep;
        });
      }
    }
    return out;
  }

  // The shortest-path race and the walls in hand, from the mover's view, inside +-0.99.
  function heuristic(state) {
    if (state.terminal) return rewards(state)[state.currentPlayer];
    const { own, other, wallsH, wallsV, ownWalls, otherWalls } = view(state);
    const ownSteps = distanceField(wallsH, wallsV, 0)[own[0] * size + own[1]];
    const otherSteps = distanceField(wallsH, wallsV, size - 1)[other[0] * size + other[1]];
    const score = WEIGHTS.distance * (otherSteps - ownSteps) + WEIGHTS.walls * (ownWalls - otherWalls);
    return HEURISTIC_BOUND * Math.tanh(score / size);
  }

  const groovesOf = (w) => w.flatMap((on, g) => (on ? [[Math.floor(g / n), g % n]] : []));

  function boardJson(state) {
    const cells = Array.from({ length: size }, () => new Array(size).fill(0));
    state.pawns.forEach(([r, c], player) => (cells[r][c] = player + 1));
    return {
      rows: size,
      cols: size,
      cells,
      pawns: state.pawns.map((p) => p.slice()),
      walls_h: groovesOf(state.wallsH),
      walls_v: groovesOf(state.wallsV),
      walls_left: state.wallsLeft.slice(),
    };
  }

  // The notation's name of `action` played in `state` (a pawn move names its square).
  function actionName(action, state) {
    const sign = state.currentPlayer === 0 ? 1 : -1;
    if (action < NUM_PAWN_ACTIONS) {
      const [row, col] = state.pawns[state.currentPlayer];
      return `${FILES[col + OFFSETS[action][1]]}${row + sign * OFFSETS[action][0] + 1}`;
    }
    const g = action - NUM_PAWN_ACTIONS;
    let row = Math.floor((g % grooves) / n);
    if (state.currentPlayer === 1) row = size - 2 - row;
    return `${FILES[g % n]}${row + 1}${g < grooves ? "h" : "v"}`;
  }

  return {
    name: "quoridor",
    settings: { size, walls, distance_planes: distancePlanes },
    numActions,
    observationShape: [size, size, planes],
    init,
    step,
    legal: (state) => state.legal.slice(),
    rewards,
    observe,
    heuristic,
    boardJson,
    actionName,
    movesText: (names) => names.join(" "),
  };
}
