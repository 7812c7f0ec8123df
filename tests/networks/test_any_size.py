"""The network kind ``resnet_any_size``: one set of variables for every board size of a
game, and heads that read each action where it is on the board (checked by moving one
square of the input and seeing which logits move, with a trunk of no residual blocks, so
that each square's features see only its 3x3 neighbourhood)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import games, networks

SMALL = {"channels": 4, "blocks": 0, "value_hidden": 4}


@pytest.mark.parametrize(
    ("name", "small", "large"),
    [
        ("quoridor", {"size": 5, "walls": 3}, {"size": 9, "walls": 10}),
        ("connect_four", {"rows": 4, "cols": 5}, {"rows": 6, "cols": 7}),
        ("othello", {"size": 6}, {"size": 8}),
        ("tic_tac_toe", {}, {"rows": 4, "cols": 4}),
    ],
)
def test_any_size__one_set_of_variables_plays_every_size(name, small, large):
    board, big = games.make(name, **small), games.make(name, **large)
    _, variables = networks.make(big, kind="resnet_any_size", reply_head=True, score_head=True)
    apply_fn = networks.make_apply_fn(
        board, kind="resnet_any_size", reply_head=True, score_head=True
    )
    _, own = networks.make(board, kind="resnet_any_size", reply_head=True, score_head=True)
    assert jax.tree.map(jnp.shape, own) == jax.tree.map(jnp.shape, variables)
    state = board.init(jax.random.key(0))
    output, _ = apply_fn(variables, board.observe(state)[None])
    assert output.logits.shape == output.aux["reply"].shape == (1, board.num_actions)
    assert output.value.shape == output.aux["score"].shape == (1,)
    assert np.all(np.abs(np.asarray(output.value)) <= 1)


def _moved_logits(game, square):
    """Which logits change when the input planes at ``square`` change."""
    apply_fn, variables = networks.make(game, kind="resnet_any_size", **SMALL)
    observations = jax.random.uniform(jax.random.key(1), (1, *game.observation_shape))
    moved = observations.at[0, square[0], square[1], :].add(1.0)
    before, _ = apply_fn(variables, observations)
    after, _ = apply_fn(variables, moved)
    return np.abs(np.asarray(after.logits - before.logits))[0] > 1e-6


def test_any_size__a_quoridor_groove_s_walls_read_the_four_squares_around_it():
    game = games.make("quoridor", size=5, walls=3)
    pawn_moves = game.num_actions - 2 * 16  # 4 x 4 grooves, each horizontal and vertical
    changed = _moved_logits(game, (0, 0))
    walls = changed[pawn_moves:].reshape(2, 4, 4)  # horizontal, then vertical; row-major
    # square (0, 0) is within the 3x3 stem of the squares around grooves (0..1, 0..1) only
    expected = np.zeros((4, 4), bool)
    expected[:2, :2] = True
    np.testing.assert_array_equal(walls[0], expected)
    np.testing.assert_array_equal(walls[1], expected)
    assert changed[:pawn_moves].all()  # pawn moves read the pooled board


def test_any_size__a_connect_four_column_reads_its_own_cells():
    game = games.make("connect_four", rows=6, cols=7)
    changed = _moved_logits(game, (5, 0))  # the bottom of the first column
    np.testing.assert_array_equal(changed, [True, True, False, False, False, False, False])


def test_any_size__a_cell_reads_its_neighbours_and_the_pass_the_whole_board():
    game = games.make("othello", size=6)
    changed = _moved_logits(game, (2, 3))
    cells = changed[:36].reshape(6, 6)
    expected = np.zeros((6, 6), bool)
    expected[1:4, 2:5] = True
    np.testing.assert_array_equal(cells, expected)
    assert changed[36]  # the pass


def test_any_size__a_game_whose_record_names_no_layout_is_refused_in_one_line():
    game = games.make("tic_tac_toe")._replace(name="nim")  # not registered: no record
    with pytest.raises(ValueError, match="and 'nim' names none; name one of cells, ") as error:
        networks.make(game, kind="resnet_any_size")
    assert "GameRecord(action_layout=...)" in str(error.value)
    assert "\n" not in str(error.value)
    wide = games.make("connect_four")  # its record says columns: 7 actions
    with pytest.raises(ValueError, match="has 9 actions on a 6x7 board, which do not fit"):
        networks.make(wide._replace(num_actions=9), kind="resnet_any_size")


def test_any_size__takes_the_resnet_s_settings():
    assert networks.settings_of("resnet_any_size") == networks.settings_of("resnet")
    with pytest.raises(ValueError, match="channels must be an integer >= 1, got 0"):
        networks.make(games.make("tic_tac_toe"), kind="resnet_any_size", channels=0)


def _my_grid():
    return games.make("tic_tac_toe", rows=4, cols=4)._replace(name="my_grid")


def test_any_size__a_game_of_one_s_own_names_its_layout_in_its_record():
    games.register("my_grid", _my_grid)
    with pytest.raises(ValueError, match=r"GameRecord\(action_layout=\.\.\.\)"):
        networks.make(_my_grid(), kind="resnet_any_size", **SMALL)
    games.register("my_grid", _my_grid, record=games.GameRecord(action_layout="cells"))
    apply_fn, variables = networks.make(_my_grid(), kind="resnet_any_size", **SMALL)
    output, _ = apply_fn(variables, jnp.zeros((1, 4, 4, 2)))
    assert output.logits.shape == (1, 16)
    games.register("my_grid", _my_grid, record=games.GameRecord(action_layout="hexes"))
    with pytest.raises(ValueError, match="Unknown action layout 'hexes'; registered: cells"):
        networks.make(_my_grid(), kind="resnet_any_size", **SMALL)


def test_any_size__a_layout_of_one_s_own_reads_its_actions():
    """A layout registered from outside: the cells in reverse order, from the shared cell
    layer of ``cells`` (its head runs inside the network's module, so its layers are the
    network's): the logits are those of ``cells`` reversed."""
    from alphazero_jax.networks import any_size

    def reversed_cells(h, observations, num_actions, prefix, dtype):
        return any_size._cells(h, observations, num_actions, prefix, dtype)[:, ::-1]

    any_size.register_layout("reversed_cells", lambda h, w, a: a == h * w, reversed_cells)
    games.register("my_grid", _my_grid, record=games.GameRecord(action_layout="cells"))
    apply_fn, variables = networks.make(_my_grid(), kind="resnet_any_size", **SMALL)
    games.register("my_grid", _my_grid, record=games.GameRecord(action_layout="reversed_cells"))
    apply_reversed, same = networks.make(_my_grid(), kind="resnet_any_size", **SMALL)
    observations = jax.random.normal(jax.random.key(1), (2, 4, 4, 2))
    logits, _ = apply_fn(variables, observations)
    backwards, _ = apply_reversed(same, observations)
    np.testing.assert_allclose(backwards.logits, logits.logits[:, ::-1], rtol=1e-6)
