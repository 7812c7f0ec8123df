// What the game modules share.

// The last move of the view's move list (space-separated notation), or null.
export function lastMoveOf(view) {
  const tokens = view.moves.split(/\s+/).filter(Boolean);
  return tokens.length ? tokens[tokens.length - 1] : null;
}
