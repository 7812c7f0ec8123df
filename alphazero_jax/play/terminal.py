"""Play an agent in a terminal: the board after every move, moves in the game's notation.

Commands at the prompt: a move, ``undo`` (your last move and the agent's reply), ``hint``
(the agent's move for you), ``eval`` (the agent's value of the position and its search's
visit share per move, as bars), ``moves`` (the game so far), ``new``, ``quit`` (or end of
input). A refused move is explained and asked again; the game stays as it was. The move
list is printed when a game ends and on quitting.
"""

from __future__ import annotations

from collections.abc import Callable

from alphazero_jax.play.session import AgentMove, MoveError, PlaySession

COMMANDS = ("undo", "hint", "eval", "moves", "new", "quit")
_BAR = 30  # characters of a 100% bar


def bars(shares: dict[str, float]) -> str:
    """One line per move: the move, a bar of ``#`` as long as its share, the percentage."""
    width = max(len(move) for move in shares)
    return "\n".join(
        f"  {move:>{width}} {'#' * round(share * _BAR):<{_BAR}} {share:6.1%}"
        for move, share in shares.items()
    )


def describe(analysed: AgentMove, *, player: str) -> str:
    """The agent's view of a position: its value for ``player`` and the bars of its search."""
    if analysed.value is None:
        return "This agent has no value or search to show; it would play " + analysed.move
    lines = [f"Value for {player}: {analysed.value:+.2f} (+1 wins, -1 loses)"]
    lines.append(f"Search (visit share per move), best {analysed.move}:")
    lines.append(bars(analysed.shares))
    return "\n".join(lines)


def run(
    make_session: Callable[[], PlaySession],
    *,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> PlaySession:
    """Plays games until ``quit`` or the end of input; returns the last session.

    Args:
      make_session: builds a new game (for the first one and for ``new``); games built
        with the same ``session.make_programs`` compile once.
      read: asks for a line with a prompt (``input``); EOFError ends the session.
      write: prints a block of text.
    """
    session = _start(make_session, write)
    while True:
        if session.over:
            prompt = "Game over: new, undo, moves or quit> "
        else:
            prompt = f"Your move ({' '.join(session.legal_moves())}) or {'/'.join(COMMANDS)}> "
        try:
            line = read(prompt).strip()
        except EOFError:  # Ctrl-D, or the end of piped input
            write("")
            line = "quit"
        if line == "quit":
            write(f"Moves: {session.moves_text() or '(none)'}")
            return session
        if line == "new":
            session = _start(make_session, write)
        elif line in COMMANDS or not line:
            _command(session, line, write)
        else:
            _human_move(session, line, write)


def _start(make_session: Callable[[], PlaySession], write: Callable[[str], None]) -> PlaySession:
    session = make_session()
    side = {"first": "first (X)", "second": "second (O)"}.get(session.human, "no side")
    write(f"{session.game.name}: you play {side} against {session.agent.name}.")
    write(session.board_text())
    _agent_turns(session, write)
    return session


def _command(session: PlaySession, line: str, write: Callable[[str], None]) -> None:
    try:
        if line == "undo":
            names = session.move_names()
            taken = session.undo()
            write(f"Took back {', '.join(names[len(names) - len(taken) :])}.")
            write(session.board_text())
        elif line == "moves":
            write(f"Moves: {session.moves_text() or '(none)'}")
        elif line == "hint":
            write(f"Hint: the agent would play {session.analyse().move}.")
        elif line == "eval":
            write(
                describe(session.analyse(), player="you" if session.human_to_move else "the mover")
            )
        else:
            write(
                f"Enter a move ({' '.join(session.legal_moves())}) or one of {', '.join(COMMANDS)}."
            )
    except MoveError as error:
        write(str(error))


def _human_move(session: PlaySession, line: str, write: Callable[[str], None]) -> None:
    try:
        session.play(line)
    except MoveError as error:
        write(f"Refused: {error}")
        return
    write(session.board_text())
    _agent_turns(session, write)


def _agent_turns(session: PlaySession, write: Callable[[str], None]) -> None:
    """The agent's moves until it is the human's turn or the game is over."""
    while not session.over and not session.human_to_move:
        played = session.agent_move()
        value = "" if played.value is None else f" (its value {played.value:+.2f})"
        write(f"{session.agent.name} plays {played.move}{value}.")
        write(session.board_text())
    if session.over:
        write(f"{session.result_text()}. Moves: {session.moves_text()}")
