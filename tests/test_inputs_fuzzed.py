"""Every text and value boundary under random input (hypothesis): the move notation of the
four games (and Quoridor's position builder), agent specs, training config values and the
lines typed at the terminal. Each property says what any input yields: a result, or a
``ValueError`` whose message says what was expected and what was received; never another
exception, and a refused input changes nothing. Hand-written bad inputs pin the words.

The properties parse against games and positions built once, so that nothing compiles
inside the loops but the first move of each game; ``deadline=None`` because that first
move compiles.
"""

import copy
import functools

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
import positions
import pytest
from fuzz_text import NUMBER_TEXT
from hypothesis import given, settings
from hypothesis import strategies as st

from alphazero_jax import agents, games
from alphazero_jax.configs import plan as config_plan
from alphazero_jax.configs import settings as config_settings
from alphazero_jax.play import terminal
from alphazero_jax.play.session import MoveError, PlaySession, Programs, make_programs
from alphazero_jax.training import learner, run_selfplay, train
from alphazero_jax.types import Agent

# Inputs tried per property (per game where a property runs over the games).
NUM_PARSES = 120
NUM_PLAYS = 60
NUM_LINES = 40
NUM_SETUPS = 80
NUM_SPECS = 100
NUM_CONFIGS = 300


@functools.cache
def _game(name: str):
    settings_of = {"quoridor": {"size": 5, "walls": 3}}
    return games.make(name, **settings_of.get(name, {}))


# Per game: a position reached by hand-checked moves (Quoridor: X at c3 faces O at c2,
# whose wall c1h behind it blocks the jump, so X may step diagonally to b2 or d2), and
# characters near the notation, so that random text often comes close to a move.
POSITIONS = {
    "connect_four": "4453",
    "tic_tac_toe": "b2 a1",
    "othello": "f5 d6",
    "quoridor": "c4 c2 c3 c1h",
}
ALPHABETS = {
    "connect_four": "1234567890aAbx ,\t",
    "tic_tac_toe": "abcdABCD012345 ,²",
    "othello": "abcdefghiAHps012345678910 ,٥",
    "quoridor": "abcdefhvHV0123456 ,²",
}
# A near-move: a file, a number (as above), and for Quoridor a wall's kind; Connect Four's
# moves are single characters, or a number.
_NEAR_MOVES = {
    "connect_four": st.sampled_from("1234567890aAbx") | NUMBER_TEXT,
    **{
        name: st.builds(
            lambda file, rank, kind: file + rank + kind,
            st.sampled_from(files),
            NUMBER_TEXT,
            st.sampled_from(kinds),
        )
        for name, files, kinds in [
            ("tic_tac_toe", "abcdAB", [""]),
            ("othello", "abcdefghiH", ["", "", "", "ass"]),
            ("quoridor", "abcdefE", ["", "", "h", "v", "H", "x"]),
        ]
    },
}


def _moves(name: str, names: list[str]) -> st.SearchStrategy[str]:
    """Any text, text over the notation's characters, one near-move or move (from
    ``names``, in any case), and lists of them."""
    near = st.one_of(
        _NEAR_MOVES[name],
        st.sampled_from(["pass", "PASS", "c4", "c1h", "b2"]),
        st.sampled_from(names),
        st.sampled_from(names).map(str.upper),
    )
    return st.one_of(
        st.text(max_size=16),
        st.text(alphabet=ALPHABETS[name], max_size=12),
        near,
        st.lists(near, max_size=4).map(" ".join),
        st.lists(near, max_size=3).map(",".join),
    )


def _names(game, state) -> list[str]:
    """Every action's name where it has one in ``state`` (None: the start)."""
    names = []
    for action in range(game.num_actions):
        try:
            names.append(game.action_to_text(action, state))
        except ValueError:  # a Quoridor pawn action off the board
            continue
    return names


def _leftmost_act(game, params, key, states):
    del params, key
    return jnp.argmax(jax.vmap(game.legal_action_mask)(states), axis=-1)


@functools.cache
def _leftmost(name: str) -> Agent:
    """Plays the lowest legal action (one agent per game, so that it compiles once)."""
    return Agent("leftmost", functools.partial(_leftmost_act, _game(name)))


@functools.cache
def _programs(name: str) -> Programs:
    """The compiled programs of the leftmost agent, held here so that every session of a
    game shares them (a session without them compiles its own)."""
    return make_programs(_game(name), _leftmost(name))


def _session(name: str) -> PlaySession:
    session = PlaySession(_game(name), _leftmost(name), human="first", programs=_programs(name))
    session.set_moves(POSITIONS[name])
    return session


# --- Move notation ----------------------------------------------------------------------


def _quoridor_second_to_move():
    """Quoridor with O to move from c4 and X on c3: O's pawn moves are named from its
    square, in its frame (turned over), and c2 is a jump."""
    game = _game("quoridor")
    state = game.init(jax.random.key(0))
    pawns = jnp.asarray([[2, 2], [3, 2]], jnp.int32)
    return game, state.replace(pawns=pawns, current_player=jnp.int32(1))


PARSE_CASES = {
    "connect_four": lambda: (games.make("connect_four"), None),
    "connect_four_10x10": lambda: (games.make("connect_four", rows=10, cols=10), None),
    "tic_tac_toe": lambda: (games.make("tic_tac_toe"), None),
    "tic_tac_toe_10x10": lambda: (games.make("tic_tac_toe", rows=10, cols=10), None),
    "othello": lambda: (games.make("othello"), None),
    "quoridor": lambda: (_game("quoridor"), None),
    "quoridor_second_to_move": _quoridor_second_to_move,
}


@pytest.mark.parametrize("case", sorted(PARSE_CASES))
def test_move_notation__any_text_is_actions_in_range_or_a_value_error_naming_it(case):
    game, state = PARSE_CASES[case]()

    @settings(max_examples=NUM_PARSES, deadline=None)
    @given(_moves(game.name, _names(game, state)))
    def check(text):
        try:
            actions = game.actions_from_text(text, state)
        except ValueError as error:
            message = str(error)
            assert repr(text) in message and "expected" in message, message
            return
        assert all(isinstance(a, int) and 0 <= a < game.num_actions for a in actions)
        # The move list written back reads the same.
        assert game.actions_from_text(game.actions_to_text(actions, state), state) == actions

    check()


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_move_notation__any_text_plays_one_legal_move_or_is_refused_unchanged(name):
    session = _session(name)
    before = list(session.actions)

    @settings(max_examples=NUM_PLAYS, deadline=None)
    @given(_moves(name, session.legal_moves()))
    def check(text):
        legal = session.legal_actions()
        try:
            action = session.play(text)
        except MoveError as error:
            assert "Legal moves: " in str(error) and session.actions == before, str(error)
            return
        assert action in legal and session.actions == [*before, action]
        session.undo()
        assert session.actions == before

    check()


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_move_notation__any_pasted_move_list_is_played_or_refused_unchanged(name):
    """``PlaySession.set_moves`` (the web page's pasted positions), from the start."""
    game = _game(name)
    session = _session(name)

    @settings(max_examples=NUM_PLAYS // 2, deadline=None)
    @given(_moves(name, _names(game, session.state)))
    def check(text):
        try:
            session.set_moves(POSITIONS[name] + " " + text)
        except MoveError as error:
            assert session.moves_text() == game.actions_to_text(_parsed(name)), str(error)
            return
        session.set_moves(POSITIONS[name])

    check()


@functools.cache
def _parsed(name: str) -> tuple[int, ...]:
    return tuple(_game(name).actions_from_text(POSITIONS[name]))


# On the 5x5 board: squares a1..e5 and walls a1..d4 (h or v), then near misses.
SQUARES = [f"{f}{r}" for f in "abcde" for r in range(1, 6)]
BAD_SQUARES = ["f1", "a0", "a6", "C3", "c²", "c٣", "", " c1", "c1h"]
WALLS = [f"{f}{r}{k}" for f in "abcd" for r in range(1, 5) for k in "hv"]
BAD_WALLS = ["C3H", "e1h", "a0h", "c3x", "z1h", "c9h", "c²h", "h", "3v", "c3", "a5v"]
# Valid choices are drawn more often than bad ones, so that positions are built too.
_SQUARE = st.one_of(
    st.sampled_from(SQUARES), st.sampled_from(SQUARES + BAD_SQUARES), st.text(max_size=3)
)
_WALLS = st.one_of(
    st.lists(st.sampled_from(WALLS), max_size=3).map(" ".join),
    st.lists(st.sampled_from(WALLS + BAD_WALLS), max_size=3).map(" ".join),
    st.text(max_size=8),
)


@settings(max_examples=NUM_SETUPS, deadline=None)
@given(
    pawns=st.one_of(
        st.lists(st.sampled_from(SQUARES), min_size=2, max_size=2, unique=True).map(tuple),
        st.tuples(_SQUARE, _SQUARE),
    ),
    walls=_WALLS,
    walls_left=st.one_of(
        st.none(),
        st.tuples(st.integers(0, 3), st.integers(0, 3)),
        st.tuples(st.integers(), st.integers()),
    ),
    player=st.one_of(st.sampled_from([0, 1]), st.integers()),
)
def test_quoridor_setup__any_drawing_is_a_position_or_a_value_error(
    pawns, walls, walls_left, player
):
    game = _game("quoridor")
    try:
        state = positions.quoridor(
            game, pawns=pawns, walls=walls, walls_left=walls_left, player=player
        )
    except ValueError as error:
        message = str(error)
        assert "Expected" in message or "overlap or cross" in message, message
        return
    assert state.legal.shape == (game.num_actions,) and int(state.current_player) == player
    assert ((0 <= state.pawns) & (state.pawns < 5)).all()
    assert ((0 <= state.walls_left) & (state.walls_left <= 3)).all()


# --- Agent specs ------------------------------------------------------------------------

SPEC_KINDS = [
    *(k.kind for k in agents.kinds()),
    "",
    "Random",
    "greedy:",
    "solver:",
    "az:",
    "tdmcts:1:",
]
SPEC_TAILS = "0123456789:=.-+eE abcfglmnopqrstx/²١"
_SPEC_NUMBERS = NUMBER_TEXT
_SPEC_SETTINGS = st.builds(
    lambda name, value: f":{name}={value}",
    st.sampled_from(["c", "gamma", "floor", "x", ""]),
    st.one_of(
        st.floats().map(repr), st.sampled_from(["nan", "inf", "0.5", "1e-3", "", "١"]), NUMBER_TEXT
    ),
)


def _specs() -> st.SearchStrategy[str]:
    """Any text, kinds with random tails, and the grammar's specs with numbers in and out
    of range."""
    return st.one_of(
        st.text(max_size=20),
        st.builds(
            lambda kind, colon, tail: kind + colon + tail,
            st.sampled_from(SPEC_KINDS),
            st.sampled_from([":", "", "::", " "]),
            st.text(alphabet=SPEC_TAILS, max_size=12),
        ),
        st.sampled_from(["random", "greedy", "greedy:flips", "greedy:path", "solver:exact"]),
        st.builds(
            lambda kind, number: f"{kind}:{number}",
            st.sampled_from(["minimax", "mcts", "tdmcts", "az", "az:x"]),
            _SPEC_NUMBERS,
        ),
        st.builds(
            lambda number, extra: f"tdmcts:{number}{''.join(extra)}",
            _SPEC_NUMBERS,
            st.lists(_SPEC_SETTINGS, max_size=2),
        ),
    )


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_agent_specs__any_text_is_an_agent_or_a_value_error_naming_it(name, tmp_path, monkeypatch):
    game = _game(name)
    monkeypatch.chdir(tmp_path)  # relative run paths name nothing

    @settings(max_examples=NUM_SPECS, deadline=None)
    @given(_specs())
    def check(spec):
        try:
            agent = agents.from_spec(game, spec)
        except ValueError as error:
            message = str(error)
            assert "expected" in message.lower() or "Valid specs" in message, message
            assert "got" in message or repr(spec) in message, message
            return
        assert isinstance(agent, Agent) and isinstance(agent.name, str)

    check()


# --- Training config values -------------------------------------------------------------


@functools.cache
def _base_config() -> dict:
    from alphazero_jax import configs

    return config_settings.complete(configs.get_config("tic_tac_toe", "smoke")).to_dict()


def _key_paths(schema: dict, prefix: tuple = ()) -> list[tuple[str, ...]]:
    paths = []
    for key, rule in schema.items():
        paths.append((*prefix, key))
        if isinstance(rule, dict):
            paths += _key_paths(rule, (*prefix, key))
    return paths


_DELETE = object()
_NAMES = ["puct", "gumbel", "relu", "none", "adam", "cosine", "step", "float32", "tic_tac_toe"]
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 80),
    st.integers(),
    st.floats(),
    st.floats(0, 1),
    st.sampled_from([0.5, 1.0, 1e-3, 2, 64, 2**31, 1e39, float("nan")]),
    st.text(max_size=8),
    NUMBER_TEXT,
    st.sampled_from([*_NAMES, _DELETE]),
    st.lists(
        st.one_of(
            st.integers(-2, 50), st.sampled_from(["random", "minimax:x", "Test_L3_R1", "greedy"])
        ),
        max_size=3,
    ),
    st.dictionaries(
        st.sampled_from(["rows", "cols", "connect", "size"]),
        st.one_of(st.integers(-1, 12), st.text(max_size=2), NUMBER_TEXT),
        max_size=3,
    ),
)


def _built(config: ml_collections.ConfigDict) -> None:
    """What training builds from the values before it compiles (as ``train.build``)."""
    read = config_plan.read(config, num_devices=1)
    jax.random.key(config.seed)
    schedule = train._make_schedule(config)
    learner.make_optimizer(schedule, name=config.learner.optimizer)
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("batch",))
    for _, simulations in read.stages:
        run_selfplay.make_device_selfplay(
            read,
            read.game,
            lambda *args: None,
            mesh,
            "batch",
            num_simulations=simulations,
            num_moves=config.selfplay.num_moves,
        )
    names = [*config.evaluation.opponents, *config.evaluation.perfect_play_sets]
    assert all(isinstance(name, str) for name in names)


def _with(path: tuple[str, ...], value) -> ml_collections.ConfigDict:
    values = copy.deepcopy(_base_config())
    section = values
    for key in path[:-1]:
        section = section[key]
    if value is _DELETE:
        section.pop(path[-1], None)
    else:
        section[path[-1]] = value
    return ml_collections.ConfigDict(values)


@settings(max_examples=NUM_CONFIGS, deadline=None)
@given(
    path=st.sampled_from([*_key_paths(config_settings.SETTINGS), ("search", "typo"), ("typo",)]),
    value=_VALUES,
)
def test_config_values__any_value_passes_or_is_a_config_error_naming_the_key(path, value):
    try:  # complete imports config.imports' modules, so it may refuse too
        config = config_settings.complete(_with(path, value))
        config = config_plan.read(config, num_devices=1).config
    except config_plan.ConfigError as error:
        assert "config." in str(error), str(error)
        return
    _built(config)


# --- The terminal -----------------------------------------------------------------------


def _typed(name: str, line: str) -> tuple[PlaySession, str]:
    printed = []
    lines = iter([line, "quit"])
    session = terminal.run(
        lambda: _session(name), read=lambda prompt: next(lines), write=printed.append
    )
    return session, "\n".join(printed)


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_terminal__any_line_is_a_move_a_command_or_a_message_and_refusals_change_nothing(name):
    before = list(_parsed(name))
    lines = st.one_of(
        _moves(name, _session(name).legal_moves()),
        st.sampled_from([*terminal.COMMANDS, "", " undo ", "Quit"]),
    )

    @settings(max_examples=NUM_LINES, deadline=None)
    @given(lines)
    def check(line):
        session, printed = _typed(name, line)
        typed = line.strip()
        if typed in (*terminal.COMMANDS, ""):
            if typed != "undo":
                assert session.actions == before
            return
        if "Refused: " in printed:
            assert session.actions == before, printed
            return
        move = _game(name).actions_from_text(typed, _session(name).state)
        assert session.actions[: len(before) + 1] == [*before, *move], printed

    check()


# --- Hand-written bad inputs and their exact messages ------------------------------------


def _error(fn, *args, **kwargs) -> str:
    with pytest.raises(ValueError) as caught:
        fn(*args, **kwargs)
    return str(caught.value)


def test_move_notation__bad_inputs_found_by_fuzzing_have_clear_messages():
    c4, ttt, othello, q = (_game(n) for n in ("connect_four", "tic_tac_toe", "othello", "quoridor"))
    assert _error(c4.actions_from_text, "4z") == (
        "Move 'z' at index 1 of '4z' is not a column: expected one of 1 2 3 4 5 6 7 "
        "(1-based columns)."
    )
    # Unicode digits were read as numbers ("b²" raised int()'s own error; "f٥" played f5).
    assert _error(ttt.actions_from_text, "b²") == (
        "Move 'b²' at index 0 of 'b²' is not a cell: expected a file a..c and a rank 1..3, "
        "e.g. 'b2'."
    )
    assert _error(othello.actions_from_text, "d3 f٥") == (
        "Move 'f٥' at index 1 of 'd3 f٥' is not a cell or a pass: expected a column a..h and "
        "a row 1..8 (top to bottom), e.g. 'f5', or 'pass'."
    )
    assert _error(q.actions_from_text, "c4 c²h") == (
        "Move 'c²h' at index 1 of 'c4 c²h' is not a Quoridor move here: expected a pawn move "
        "to a square a..e1..5 (rows from the top) at most two steps away, e.g. 'c4', or a wall "
        "such as 'c1h' or 'b2v' (columns a..d, rows 1..4)."
    )
    # A Quoridor pawn move refused in a replay is named where it is played (c3 from c4,
    # not from the start), with the moves up to it.
    assert _error(games.replay, q, "c4 c2 c3 c3") == (
        "Move 'c3' at index 3 ('c4 c2 c3 c3') is illegal in this position (e.g. a full column "
        "or a taken cell)."
    )
    assert _error(games.replay, c4, [3, 9]) == (
        "Move 1 of move list 0 is action 9, but connect_four actions are in [0, 7)."
    )


@pytest.mark.parametrize(
    ("drawing", "message"),
    [
        # Each raised KeyError, IndexError or int()'s ValueError, or drew a pawn off the board.
        ({"walls": "c3x"}, "Expected walls such as 'c3h' or 'b2v' (columns a..d, rows 1..4, "),
        ({"walls": "z1h"}, "Expected walls such as 'c3h' or 'b2v'"),
        ({"walls": "c9h"}, "got 'c9h' in 'c9h'."),
        ({"walls": "c2h c2h"}, "Expected each wall once, got 'c2h' twice in 'c2h c2h'."),
        ({"pawns": ("c9", "c1")}, "Expected a pawn's square a..e1..5, such as 'c1', got 'c9'."),
        ({"pawns": ("c1", "C1")}, "Expected the pawns on two squares, got both on 'c1'."),
        ({"walls_left": (4, 0)}, "Expected each player's walls in hand from 0 to 3, got (4, 0)"),
        ({"player": 2}, "Expected player 0 or 1 to move, got 2."),
    ],
)
def test_quoridor_setup__bad_drawings_have_clear_messages(drawing, message):
    drawing = {"pawns": ("c5", "c1"), **drawing}
    assert message in _error(positions.quoridor, _game("quoridor"), **drawing)


def test_agent_specs__bad_specs_found_by_fuzzing_have_clear_messages(tmp_path):
    game = _game("tic_tac_toe")
    specs = ", ".join(agents.specs())
    assert _error(agents.from_spec, game, "minimax:²") == (
        "Agent spec 'minimax:²': expected an integer >= 1 (at most 9 digits) after the colon, "
        f"got '²'. Valid specs: {specs}."
    )
    missing = str(tmp_path / "missing")
    assert _error(agents.from_spec, game, f"az:{missing}") == (
        f"Agent spec az:{missing}: expected a training run directory, one of its "
        f"checkpoints, <run>/checkpoints/<iteration>, or an exported agent's folder, "
        f"got {missing!r}: {missing} is no "
        "training run: it has no config.json."
    )
    expected = "tdmcts:<simulations>[:c=<x>][:gamma=<x>][:floor=<x>][:<run>]"
    assert _error(agents.from_spec, game, "tdmcts:10:c=inf") == (
        f"Agent spec 'tdmcts:10:c=inf': setting 'c' needs a finite number, got 'inf'. "
        f"Expected {expected}."
    )
    assert _error(agents.from_spec, game, "tdmcts:10:c=-1") == (
        "Agent spec 'tdmcts:10:c=-1': exploration must be a number >= 0, got -1.0 (c is "
        f"exploration, gamma is gamma, floor is learning_rate_floor). Expected {expected}."
    )
    assert _error(agents.from_spec, game, f"tdmcts:10:{tmp_path}") == (
        f"Agent spec 'tdmcts:10:{tmp_path}': no TD-MCTS run in {str(tmp_path)!r}: {tmp_path} "
        f"is no training run: it has no config.json. Expected {expected}."
    )


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        # Each raised TypeError, AttributeError or OverflowError, or passed validation and
        # failed (or trained on NaN) later.
        (("evaluation", "opponents"), 5, "config.evaluation.opponents must be a list of agent"),
        (("game", "settings"), 7, "config.game.settings must be a dict of the game's settings"),
        (("network",), 5, "config.network must be a section with the keys activation, "),
        (("learner", "decay_steps"), 3, "config.learner.decay_steps must be a list of ints"),
        (("seed",), 2**64, "config.seed must be an int in [0, 4294967295], got 1844"),
        (("seed",), True, "config.seed must be an int in [0, 4294967295], got True."),
        (("learner", "learning_rate"), float("inf"), "must be a finite number > 0, got inf."),
        (
            ("num_iterations",),
            2**31,
            "config.num_iterations must be an int >= 1, got 2147483648. Counts are int32 on "
            "the device: at most 2147483647.",
        ),
        (
            ("search", "policy"),
            ["puct"],
            "config.search.policy must be a registered search policy, one of ('gumbel', 'puct'",
        ),
    ],
)
def test_config_values__bad_values_found_by_fuzzing_have_clear_messages(path, value, message):
    config = config_settings.complete(_with(path, value))
    with pytest.raises(config_plan.ConfigError) as caught:
        config_plan.read(config, num_devices=1)
    assert message in str(caught.value)


def test_terminal__a_line_of_unicode_digits_is_refused_and_the_game_unchanged():
    session, printed = _typed("tic_tac_toe", "c²")
    assert session.actions == list(_parsed("tic_tac_toe"))
    assert (
        "Refused: Move 'c²' at index 0 of 'c²' is not a cell: expected a file a..c and a rank "
        "1..3, e.g. 'b2'. Legal moves: a3, b3, c3, a2, c2, b1, c1." in printed
    )
