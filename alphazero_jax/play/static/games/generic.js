// Any game the page has no module of its own for (a game registered with games.register):
// the position as the game writes it (the session's `text`), and a grid of buttons, one per
// legal move in the game's notation, each shaded with the search's visit share.

export const sides = ["First player", "Second player"];

export function render(container, view, overlay, onMove) {
  const picture = document.createElement("pre");
  picture.className = "generic-text";
  picture.textContent = view.text;
  const grid = document.createElement("div");
  grid.className = "generic-moves";
  grid.style.gridTemplateColumns = `repeat(${Math.min(7, Math.max(1, view.legal_moves.length))}, auto)`;
  for (const move of view.legal_moves) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "generic-move";
    button.dataset.move = move;
    button.textContent = move;
    const share = overlay.shares ? overlay.shares[move] : undefined;
    if (share !== undefined) {
      button.style.background = `color-mix(in srgb, #7a4cd9 ${Math.round(5 + 45 * share)}%, white)`;
      button.title = `${move}: ${Math.round(share * 100)}% of the search`;
    }
    button.disabled = !overlay.canMove;
    button.addEventListener("click", () => onMove(move));
    grid.appendChild(button);
  }
  container.replaceChildren(picture, grid);
}
