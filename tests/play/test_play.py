"""Playing an agent: the session (moves, refusals, undo, pasted positions), the terminal
front end with scripted input, and the entry point."""

import json
import os
import shutil
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import agents, games
from alphazero_jax.play import session as play_session
from alphazero_jax.play import terminal
from alphazero_jax.play.session import MoveError, PlaySession
from alphazero_jax.types import Agent

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _leftmost(game):
    """Plays the lowest legal action: column 1 in Connect Four, a3 in Tic-Tac-Toe."""

    def act_fn(params, key, states):
        del params, key
        return jnp.argmax(jax.vmap(game.legal_action_mask)(states), axis=-1)

    return Agent("leftmost", act_fn)


def test_session__moves_refusals_and_undo_of_both_moves():
    game = games.make("connect_four")
    session = PlaySession(game, _leftmost(game), human="first")
    assert session.human_to_move and session.legal_moves() == list("1234567")
    session.play("4")
    with pytest.raises(MoveError, match="agent's turn"):
        session.play("4")
    assert session.agent_move().move == "1"
    assert session.moves_text() == "41"
    for text, reason in [("8", "not a column"), ("x", "not a column"), ("44", "Expected one")]:
        with pytest.raises(MoveError, match=reason):
            session.play(text)
        assert session.moves_text() == "41"  # unchanged
    assert session.undo() == [3, 0] and session.moves_text() == "" and session.human_to_move
    with pytest.raises(MoveError, match="Nothing to take back"):
        session.undo()


def test_session__a_full_column_is_refused_with_the_legal_moves():
    game = games.make("connect_four")
    session = PlaySession(game, _leftmost(game), human="first")
    session.set_moves("111111")  # column 1 is full, no four in a row
    assert "1" not in session.legal_moves()
    with pytest.raises(MoveError, match=r"1 is not legal here\. Legal moves: 2, 3"):
        session.play("1")
    assert session.moves_text() == "111111"


def test_session__pasted_positions_are_checked_and_leave_the_game_as_it_was_when_bad():
    game = games.make("connect_four")
    session = PlaySession(game, _leftmost(game))
    session.set_moves("4453")
    with pytest.raises(MoveError, match=r"Move 7 \(1\) is not legal"):
        session.set_moves("1111111")
    with pytest.raises(MoveError, match="not a column"):
        session.set_moves("44z")
    assert session.moves_text() == "4453" and session.player == 0


def test_session__human_second_undo_keeps_the_agents_first_move():
    game = games.make("tic_tac_toe")
    session = PlaySession(game, _leftmost(game), human="second")
    assert not session.human_to_move
    with pytest.raises(MoveError, match="Nothing to take back"):
        session.undo()
    assert session.agent_move().move == "a3"
    session.play("b2")
    session.agent_move()
    assert session.undo() == [4, 1] and session.moves_text() == "a3"


def test_session__result_of_a_won_game():
    # X plays the left column a3 a2 a1 while O plays b2 c3: X wins on the file.
    game = games.make("tic_tac_toe")
    session = PlaySession(game, _leftmost(game), human="none")
    session.set_moves("a3 b2 a2 c3 a1")
    assert session.over and session.winner == 0
    assert session.result_text() == "First player wins"
    for human, text in [("first", "You win"), ("second", "The agent wins")]:
        played = PlaySession(game, _leftmost(game), human=human)
        played.set_moves("a3 b2 a2 c3 a1")
        assert played.result_text() == text
    with pytest.raises(MoveError, match="game is over"):
        session.agent_move()


def test_session__a_network_agent_shows_its_value_and_visit_shares():
    game = games.make("tic_tac_toe")
    agent = agents.from_spec(game, "az:pretrained:16")
    session = PlaySession(game, agent, human="second")
    session.set_moves("b2 a3 c1")  # O, the human, to move
    analysed = session.analyse()
    assert set(analysed.shares) == set(session.legal_moves())
    assert sum(analysed.shares.values()) == pytest.approx(1.0, abs=1e-5)
    assert -1 <= analysed.value <= 1 and analysed.move in session.legal_moves()
    assert session.moves_text() == "b2 a3 c1"  # analysing plays nothing


def _counted(game, traces):
    """``_leftmost`` that notes each trace of its ``act_fn`` in ``traces``."""
    leftmost = _leftmost(game).act_fn

    def act_fn(params, key, states):
        traces.append(None)  # a Python side effect runs once per trace
        return leftmost(params, key, states)

    return Agent("counted", act_fn)


def _compiled(programs):
    return [fn._cache_size() for fn in (programs.step, programs.facts, programs.analyse)]


def test_session__two_games_with_the_same_programs_compile_once():
    game, traces = games.make("tic_tac_toe"), []
    agent = _counted(game, traces)
    programs = play_session.make_programs(game, agent)
    first = PlaySession(game, agent, human="none", programs=programs)
    while not first.over:
        first.agent_move()
    assert first.moves_text() == "a3 b3 c3 a2 b2 c2 a1" and first.winner == 0
    assert _compiled(programs) == [1, 1, 1] and len(traces) == 1
    # A second game, with every kind of change: nothing more compiles or traces.
    second = PlaySession(game, agent, human="second", seed=1, programs=programs)
    second.agent_move()
    second.play("b2")
    second.analyse()
    second.undo()
    second.set_moves("a3 b2 b3 c3 a2 a1")
    while not second.over:
        if second.human_to_move:
            second.play(second.legal_moves()[-1])
        else:
            second.agent_move()
    assert second.over and _compiled(programs) == [1, 1, 1] and len(traces) == 1


def test_terminal__a_new_game_with_the_same_programs_compiles_nothing():
    game, traces = games.make("tic_tac_toe"), []
    agent = _counted(game, traces)
    programs = play_session.make_programs(game, agent)
    lines = iter(["b2", "hint", "new", "b2", "c1", "quit"])
    terminal.run(
        lambda: PlaySession(game, agent, programs=programs),
        read=lambda prompt: next(lines),
        write=lambda text: None,
    )
    assert _compiled(programs) == [1, 1, 1] and len(traces) == 1


def test_session__programs_of_another_agent_are_refused():
    game = games.make("tic_tac_toe")
    programs = play_session.make_programs(game, _leftmost(game))
    with pytest.raises(ValueError, match="made for leftmost on tic_tac_toe"):
        PlaySession(game, _leftmost(game), programs=programs)


def test_session__refusals_say_why_by_their_type():
    game = games.make("tic_tac_toe")
    session = PlaySession(game, _leftmost(game), human="first")
    with pytest.raises(play_session.NothingToUndo):
        session.undo()
    with pytest.raises(play_session.NotYourTurn, match="your turn, not the agent's"):
        session.agent_move()
    for text in ("z9", "b2 c3"):
        with pytest.raises(play_session.IllegalMove):
            session.play(text)
    session.play("b2")
    with pytest.raises(play_session.NotYourTurn, match="agent's turn, not yours"):
        session.play("c3")
    with pytest.raises(play_session.IllegalMove, match="not legal there"):
        session.set_moves("b2 b2")
    session.set_moves("a3 b2 a2 c3 a1")  # X wins
    for refused in (lambda: session.play("c1"), session.agent_move, session.analyse):
        with pytest.raises(play_session.GameOver, match="game is over"):
            refused()
    both = PlaySession(game, _leftmost(game), human="none")
    with pytest.raises(play_session.NotYourTurn, match="plays both sides"):
        both.play("b2")
    assert all(
        issubclass(kind, MoveError)
        for kind in (
            play_session.GameOver,
            play_session.NotYourTurn,
            play_session.IllegalMove,
            play_session.NothingToUndo,
        )
    )


def test_terminal__scripted_game_with_refusals_commands_and_the_move_list():
    game = games.make("tic_tac_toe")
    lines = iter(["z9", "b2", "hint", "eval", "undo", "b2", "b3", "b1", "quit"])
    printed = []
    prompts = []

    def read(prompt):
        prompts.append(prompt)
        return next(lines)

    terminal.run(
        lambda: PlaySession(game, _leftmost(game), human="first"), read=read, write=printed.append
    )
    text = "\n".join(printed)
    assert "you play first (X) against leftmost" in text
    assert "Refused:" in text and "Legal moves: a3, b3, c3, a2, b2, c2, a1, b1, c1" in text
    assert "Hint: the agent would play" in text
    assert "This agent has no value or search to show" in text
    assert "Took back b2, a3." in text
    # b2 a3, b3 c3, b1: X completes the b file; the agent takes the top rank instead.
    assert "You win. Moves: b2 a3 b3 c3 b1" in text
    assert printed[-1] == "Moves: b2 a3 b3 c3 b1"
    assert prompts[0].startswith("Your move (a3 b3 c3 a2 b2 c2 a1 b1 c1) or undo/hint/eval")


def test_terminal__a_quoridor_game_with_a_wall_a_refused_wall_and_undo():
    game = games.make("quoridor", size=5, walls=3)
    lines = iter(["c4", "c2h", "c2v", "undo", "quit"])
    printed = []
    terminal.run(
        lambda: PlaySession(game, _leftmost(game), human="first"),
        read=lambda prompt: next(lines),
        write=printed.append,
    )
    text = "\n".join(printed)
    # Leftmost plays action 0, a step towards its goal: c2; then c2h bars it, so action 1,
    # a step east in its frame: d2.
    assert "leftmost plays c2." in text and "leftmost plays d2." in text
    board = printed[printed.index("leftmost plays d2.") + 1].splitlines()
    assert board[3] == "2 .   .   .   O   ." and board[4] == "         ---+---"
    assert board[-1] == "walls in hand: X 2, O 3"
    refusal = "Refused: c2v is not legal here: it would overlap or cross a wall on the board."
    assert f"{refusal} Legal moves: c3, d4, c5, b4, a1h" in text
    assert "Took back c2h, d2." in text and printed[-1] == "Moves: c4 c2"


def test_terminal__bars_are_as_long_as_the_shares():
    assert terminal.bars({"4": 0.5, "10": 0.0}).splitlines() == [
        "   4 " + "#" * 15 + " " * 15 + "  50.0%",
        "  10 " + " " * 30 + "   0.0%",
    ]


def test_play_entry_point__agent_moves_first_and_end_of_input_quits():
    command = [
        sys.executable,
        "-m",
        "experiments.play",
        "--game=tic_tac_toe",
        "--human=second",
        "--simulations=8",
    ]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    done = subprocess.run(
        command, cwd=REPO, env=env, input="eval\n", capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "you play second (O) against az:pretrained:8" in done.stdout
    assert done.stdout.count("az:pretrained:8 plays") == 1  # it moves first, then waits
    assert "Value for you:" in done.stdout and "%" in done.stdout
    assert done.stdout.rstrip().splitlines()[-1].startswith("Moves: ")


def test_play_entry_point__a_bad_agent_is_one_line_and_status_2():
    command = [sys.executable, "-m", "experiments.play", "--game=tic_tac_toe", "--agent=nope"]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "error: Unknown agent spec 'nope'" in done.stderr


def test_pretrained__settings_to_play_are_where_a_network_ships(tmp_path):
    from alphazero_jax.agents import pretrained

    assert pretrained.settings_to_play("connect_four") == {}  # its default size ships
    assert pretrained.settings_to_play("othello", folder=tmp_path) == {}  # none ships
    # Only a 6x6 agent: play starts at 6x6. Once the default size (8x8) ships too, there.
    for size in (6, 8):
        key = f"othello-size{size}-legal_plane1"
        (tmp_path / key).mkdir()
        described = {"game": "othello", "settings": {"size": size, "legal_plane": 1}}
        (tmp_path / key / pretrained.AGENT_FILE).write_text(json.dumps(described))
        expected = {} if size == 8 else {"size": 6, "legal_plane": 1}
        assert pretrained.settings_to_play("othello", folder=tmp_path) == expected


@pytest.mark.long
def test_play_entry_point__othello_and_quoridor_start_against_their_full_size_agents():
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    headers = {"othello": "a b c d e f g h\n", "quoridor": "a   b   c   d   e   f   g   h   i\n"}
    for name, header in headers.items():
        command = [sys.executable, "-m", "experiments.play", f"--game={name}"]
        done = subprocess.run(
            command, cwd=REPO, env=env, input="quit\n", capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
        assert "where its shipped agent plays" not in done.stdout  # the default size ships
        assert "against az:pretrained" in done.stdout and header in done.stdout


def test_play_entry_point__starts_where_the_only_shipped_agent_plays(tmp_path):
    """With only Othello's 6x6 agent shipped (a folder holding a copy of it), play starts
    at 6x6 and says so in one line."""
    from alphazero_jax.agents import pretrained

    key = "othello-size6-legal_plane1"
    shutil.copytree(pretrained.directory() / key, tmp_path / key)
    script = (
        "import pathlib, sys\n"
        "from absl import app\n"
        "from alphazero_jax.agents import pretrained\n"
        "from alphazero_jax.cli import play\n"
        "pretrained.directory = lambda: pathlib.Path(sys.argv[1])\n"
        "app.run(play.main, argv=['play', '--game=othello'])\n"
    )
    command = [sys.executable, "-c", script, str(tmp_path)]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    done = subprocess.run(
        command, cwd=REPO, env=env, input="quit\n", capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "Playing othello at size=6,legal_plane=1, where its shipped agent plays" in done.stdout
    assert "against az:pretrained" in done.stdout and "a b c d e f\n" in done.stdout


@pytest.mark.long
def test_pretrained__every_shipped_agent_loads_and_plays_its_game():
    from alphazero_jax.agents import pretrained

    shipped = pretrained.available()
    assert "tic_tac_toe-rows3-cols3-connect3" in shipped
    assert "connect_four-rows6-cols7-connect4" in shipped
    for key in shipped:
        described = json.loads((pretrained.directory() / key / pretrained.AGENT_FILE).read_text())
        game = games.make(described["game"], **described["settings"])
        assert pretrained.key_of(game) == key and described["trained"]["minutes"] > 0
        agent = agents.from_spec(game, "az:pretrained")
        states = jax.vmap(game.init)(jax.random.split(jax.random.key(0), 2))
        moves = np.asarray(jax.jit(agent.act_fn)(agent.params, jax.random.key(0), states))
        assert np.asarray(jax.vmap(game.legal_action_mask)(states))[np.arange(2), moves].all()


def test_the_play_programs_help_names_each_games_notation_from_its_record():
    command = [sys.executable, "-m", "alphazero_jax.cli.play", "--help"]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    shown = " ".join(done.stdout.split())  # absl wraps the help
    assert "--game:" in shown, done.stderr
    for name in games.available():
        assert f"{name} (moves: {games.record(name).notation})" in shown
