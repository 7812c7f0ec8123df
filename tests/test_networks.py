"""The AlphaZero ResNet: shapes, modes (train / eval), settings, parameter counts, tracing."""

import subprocess
import sys

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import games, networks

SMALL = {"channels": 8, "blocks": 1, "value_hidden": 4}


def _observations(game, batch, seed=0):
    """Random 0/1 planes shaped like the game's observations: float32[B, H, W, C]."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2, (batch, *game.observation_shape)).astype(np.float32)


@pytest.mark.parametrize(
    ("name", "num_actions"), [("tic_tac_toe", 9), ("connect_four", 7)], ids=str
)
def test_network__output_shapes_dtypes_and_value_range(name, num_actions):
    game = games.make(name)
    apply_fn, variables = networks.make_network(game, **SMALL)
    output, _ = apply_fn(variables, _observations(game, 5))
    assert output.logits.shape == (5, num_actions)
    assert output.value.shape == (5,)
    assert output.logits.dtype == jnp.float32
    assert output.value.dtype == jnp.float32
    assert np.all(np.abs(np.asarray(output.value)) < 1.0)
    assert np.all(np.isfinite(np.asarray(output.logits)))


def test_network__outputs_are_float32_whatever_the_input_dtype():
    game = games.make("tic_tac_toe")
    apply_fn, variables = networks.make_network(game, **SMALL)
    observations = _observations(game, 3)
    reference, _ = apply_fn(variables, observations)
    for dtype in (jnp.bfloat16, jnp.int32, jnp.bool_):
        output, _ = apply_fn(variables, jnp.asarray(observations).astype(dtype))
        assert output.logits.dtype == jnp.float32
        assert output.value.dtype == jnp.float32
        # The planes are 0/1, exact in every dtype, so the answer is the same.
        np.testing.assert_allclose(output.logits, reference.logits, rtol=1e-5, atol=1e-5)


def test_network__train_mode_updates_batch_stats_and_eval_mode_does_not():
    game = games.make("connect_four")
    apply_fn, variables = networks.make_network(game, **SMALL)
    observations = _observations(game, 8)

    _, same = apply_fn(variables, observations, train=False)
    assert same is variables

    _, updated = apply_fn(variables, observations, train=True)
    assert set(updated) == {"params", "batch_stats"}
    assert updated["params"] is variables["params"]
    old = variables["batch_stats"]["stem_norm"]["mean"]
    new = updated["batch_stats"]["stem_norm"]["mean"]
    # Running means start at 0 and move 10% of the way to the batch mean (momentum 0.9).
    assert np.allclose(old, 0.0)
    assert not np.allclose(new, old)
    stem = jax.lax.conv_general_dilated(
        observations,
        variables["params"]["stem_conv"]["kernel"],
        (1, 1),
        "SAME",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
    )
    np.testing.assert_allclose(new, 0.1 * stem.mean(axis=(0, 1, 2)), rtol=1e-4, atol=1e-6)


def test_network__train_mode_uses_batch_statistics():
    """With batch statistics, a lone position's output depends on the rest of its batch."""
    game = games.make("tic_tac_toe")
    apply_fn, variables = networks.make_network(game, **SMALL)
    observations = _observations(game, 6)
    full, _ = apply_fn(variables, observations, train=True)
    half, _ = apply_fn(variables, observations[:3], train=True)
    assert not np.allclose(full.logits[:3], half.logits)
    full, _ = apply_fn(variables, observations, train=False)
    half, _ = apply_fn(variables, observations[:3], train=False)
    np.testing.assert_allclose(full.logits[:3], half.logits, rtol=1e-5, atol=1e-6)


def test_network__without_normalization_has_no_batch_stats():
    game = games.make("tic_tac_toe")
    apply_fn, variables = networks.make_network(game, normalization="none", **SMALL)
    assert set(variables) == {"params"}
    output, new_variables = apply_fn(variables, _observations(game, 4), train=True)
    assert new_variables is variables
    assert output.logits.shape == (4, 9)
    # Without a norm after them, the convolutions carry a bias.
    assert "bias" in variables["params"]["stem_conv"]


def test_network__parameter_counts_worked_out_by_hand():
    game = games.make("tic_tac_toe")  # 3x3 board, 2 planes, 9 actions.
    _, variables = networks.make_network(game, **SMALL)
    # stem: 3*3*2*8 = 144 kernel + 8+8 norm = 160
    # block: 2 * (3*3*8*8 = 576) kernels + 2 * 16 norm = 1184
    # policy: 1*1*8*2 = 16 kernel + 4 norm + dense 18*9+9 = 171 -> 191
    # value: 1*1*8*1 = 8 kernel + 2 norm + dense 9*4+4 = 40 + dense 4*1+1 = 5 -> 55
    assert networks.num_parameters(variables) == 160 + 1184 + 191 + 55
    _, variables = networks.make_network(game, normalization="none", **SMALL)
    # Each conv trades its norm (2 per channel) for a bias (1 per channel):
    # 152 + 2 * 584 + (18 + 171) + (9 + 40 + 5)
    assert networks.num_parameters(variables) == 152 + 1168 + 189 + 54


def test_network__blocks_zero_is_stem_and_heads_only():
    game = games.make("tic_tac_toe")
    _, variables = networks.make_network(game, channels=8, blocks=0, value_hidden=4)
    assert networks.num_parameters(variables) == 160 + 191 + 55
    assert not any(name.startswith("block_") for name in variables["params"])


def test_network__leaky_relu_changes_the_output_but_not_the_weights():
    game = games.make("tic_tac_toe")
    observations = _observations(game, 4)
    relu_fn, relu_variables = networks.make_network(game, **SMALL)
    leaky_fn, leaky_variables = networks.make_network(game, activation="leaky_relu", **SMALL)
    jax.tree_util.tree_map(np.testing.assert_array_equal, relu_variables, leaky_variables)
    relu, _ = relu_fn(relu_variables, observations)
    leaky, _ = leaky_fn(leaky_variables, observations)
    assert np.all(np.isfinite(np.asarray(leaky.logits)))
    assert not np.allclose(relu.logits, leaky.logits)


def test_network__key_decides_the_weights():
    game = games.make("tic_tac_toe")
    _, default = networks.make_network(game, **SMALL)
    _, zero = networks.make_network(game, key=jax.random.key(0), **SMALL)
    _, one = networks.make_network(game, key=jax.random.key(1), **SMALL)
    kernel = ("params", "stem_conv", "kernel")

    def pick(variables):
        return np.asarray(variables[kernel[0]][kernel[1]][kernel[2]])

    np.testing.assert_array_equal(pick(default), pick(zero))
    assert not np.allclose(pick(zero), pick(one))


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        ({"activation": "gelu"}, r"activation must be one of 'relu', 'leaky_relu', got 'gelu'"),
        ({"normalization": "layer_norm"}, r"normalization must be one of .*'layer_norm'"),
        ({"channels": 0}, r"channels must be an integer >= 1, got 0"),
        ({"channels": 8.0}, r"channels must be an integer >= 1, got 8.0"),
        ({"blocks": -1}, r"blocks must be an integer >= 0, got -1"),
        ({"value_hidden": True}, r"value_hidden must be an integer >= 1, got True"),
    ],
    ids=lambda value: str(value) if isinstance(value, dict) else "",
)
def test_network__bad_settings_raise(settings, match):
    with pytest.raises(ValueError, match=match):
        networks.make_network(games.make("tic_tac_toe"), **settings)


def test_network__wrong_observation_shape_raises():
    game = games.make("tic_tac_toe")
    apply_fn, variables = networks.make_network(game, **SMALL)
    with pytest.raises(ValueError, match=r"shape \[B, 3, 3, 2\].*got \[3, 3, 2\]"):
        apply_fn(variables, np.zeros((3, 3, 2), np.float32))


def test_network__jits_and_traces_once():
    game = games.make("connect_four")
    apply_fn, variables = networks.make_network(game, **SMALL)
    traces = []

    def counted(variables, observations):
        traces.append(None)
        return apply_fn(variables, observations, train=True)

    jitted = jax.jit(counted)
    first, _ = jitted(variables, _observations(game, 4, seed=1))
    second, new_variables = jitted(variables, _observations(game, 4, seed=2))
    assert len(traces) == 1
    assert not np.allclose(first.logits, second.logits)
    eager, _ = apply_fn(variables, _observations(game, 4, seed=2), train=True)
    np.testing.assert_allclose(second.logits, eager.logits, rtol=1e-5, atol=1e-5)
    # The updated variables feed back in without a retrace.
    jitted(new_variables, _observations(game, 4, seed=3))
    assert len(traces) == 1


def test_flops_per_evaluation__worked_out_by_hand():
    # Tic-Tac-Toe: a 3x3 board, 2 planes, 9 actions; 8 channels, 1 block, 8 hidden units.
    # Multiply-adds: stem 81 taps x 2 x 8 = 1296; block 2 x 81 x 8 x 8 = 10368; 1x1 heads
    # 9 x 8 x 3 = 216; policy dense 18 x 9 = 162; value hidden 9 x 8 = 72; value out 8.
    game = games.make("tic_tac_toe")
    settings = {"channels": 8, "blocks": 1, "value_hidden": 8}
    assert networks.flops_per_evaluation(game, **settings) == 2 * 12122
    # In-board taps only: (3 x 3 - 2)^2 = 49 instead of 81 per 3x3 convolution.
    unpadded = 49 * 2 * 8 + 2 * 49 * 8 * 8 + 216 + 162 + 72 + 8
    assert networks.flops_per_evaluation(game, **settings, padded=False) == 2 * unpadded


def test_flops_per_evaluation__agrees_with_xla_cost_analysis_on_cpu():
    game = games.make("connect_four")
    settings = {"channels": 32, "blocks": 2, "value_hidden": 16}
    apply_fn, variables = networks.make_network(game, **settings)
    observations = jnp.zeros((16, *game.observation_shape), jnp.float32)
    lowered = jax.jit(lambda v, x: apply_fn(v, x)[0]).lower(variables, observations)
    analysis = lowered.compile().cost_analysis()
    analysis = analysis[0] if isinstance(analysis, list) else analysis
    counted = networks.flops_per_evaluation(game, **settings, padded=False)
    # XLA also counts the normalisations, activations and additions: a few percent more.
    assert counted <= analysis["flops"] / 16 <= 1.05 * counted


# Take the win, block the loss (as in test_search): the same moves in float32 and bfloat16.
_BF16_ANSWERS = [
    ("connect_four", "112233", 3),
    ("connect_four", "17273", 3),
    ("tic_tac_toe", "a1 a2 b1 b2", 8),
    ("tic_tac_toe", "a1 b2 b1", 8),
]


@pytest.mark.parametrize(("name", "moves", "answer"), _BF16_ANSWERS)
def test_inference_apply_fn__bfloat16_search_keeps_the_known_answers(name, moves, answer):
    from alphazero_jax import search

    game = games.make(name)
    settings = {"channels": 8, "blocks": 1}
    apply_fn, variables = networks.make_network(game, key=jax.random.key(7), **settings)
    low = networks.make_inference_apply_fn(game, compute_dtype="bfloat16", **settings)
    states = games.replay_batch(game, [game.actions_from_text(moves)] * 4)
    chosen = {}
    for label, fn in (("float32", apply_fn), ("bfloat16", low)):
        search_fn = jax.jit(search.make_search(game, fn, policy="puct", num_simulations=64))
        moves_by_seed = []
        for seed in range(3):
            output = search_fn(variables, jax.random.key(seed), states)
            greedy = jnp.zeros(4, bool)
            moves_by_seed.append(
                np.asarray(
                    search.choose_action(output, jax.random.key(seed), policy="puct", sample=greedy)
                )
            )
        chosen[label] = np.stack(moves_by_seed)
    assert (chosen["float32"] == answer).all() and (chosen["bfloat16"] == answer).all(), chosen
    # the outputs are float32 again and close to float32's
    observations = jax.vmap(game.observe)(states)
    exact, _ = apply_fn(variables, observations)
    rounded, _ = low(variables, observations)
    assert rounded.logits.dtype == jnp.float32 and rounded.value.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(rounded.logits), np.asarray(exact.logits), atol=0.05)
    np.testing.assert_allclose(np.asarray(rounded.value), np.asarray(exact.value), atol=0.05)


def test_inference_apply_fn__rejects_an_unknown_dtype():
    with pytest.raises(ValueError, match="compute_dtype must be one of"):
        networks.make_inference_apply_fn(games.make("tic_tac_toe"), compute_dtype="float16")


class _Tiny(nn.Module):
    """A network of one's own: a bias per action and one for the value, plus an auxiliary
    output, whatever the position."""

    num_actions: int
    scale: float

    @nn.compact
    def __call__(self, observations, train):
        del train
        bias = self.param("bias", nn.initializers.ones, (self.num_actions,))
        batch = observations.shape[0]
        logits = jnp.broadcast_to(self.scale * bias, (batch, self.num_actions))
        return logits, jnp.zeros(batch), {"twice": 2 * logits}


def _make_tiny(game, *, scale: float = 1.0):
    return _Tiny(num_actions=game.num_actions, scale=scale)


def test_registry__a_network_of_one_s_own_builds_with_its_settings_and_aux_outputs():
    networks.register("test_tiny", _make_tiny)
    networks.register("test_tiny", _make_tiny)  # the same factory again: no error
    assert {"resnet", "test_tiny"} <= set(networks.available())
    assert networks.settings_of("test_tiny") == {"scale": 1.0}
    assert networks.settings_of("resnet")["channels"] == 64
    game = games.make("tic_tac_toe")
    apply_fn, variables = networks.make(game, kind="test_tiny", scale=3.0)
    output, same = apply_fn(variables, _observations(game, 2), train=True)
    assert same is variables  # no batch statistics
    np.testing.assert_array_equal(output.logits, 3.0)
    np.testing.assert_array_equal(output.aux["twice"], 6.0)
    resnet, _ = networks.make_network(game, **SMALL)
    assert resnet(networks.make_network(game, **SMALL)[1], _observations(game, 1))[0].aux == {}


def test_registry__refuses_unknown_kinds_settings_taken_names_and_bad_outputs():
    game = games.make("tic_tac_toe")
    with pytest.raises(ValueError, match=r"Unknown network kind 'no_such'; registered: .*resnet"):
        networks.make(game, kind="no_such")
    with pytest.raises(ValueError, match=r"Unknown setting\(s\) width for network kind 'resnet'"):
        networks.make(game, width=3)
    with pytest.raises(ValueError, match="taken by"):
        networks.register("resnet", _make_tiny)

    def make_flat(game, *, scale: float = 1.0):
        del scale
        return _Tiny(num_actions=game.num_actions + 1, scale=1.0)

    networks.register("test_wrong_shape", make_flat)
    with pytest.raises(ValueError, match=r"logits \[B, A\] = \[1, 9\].*got \[1, 10\] and \[1\]"):
        networks.make(game, kind="test_wrong_shape")


def test_import__networks_loads_no_game():
    """The networks sit below the settings table: importing them loads no game."""
    code = "import sys, alphazero_jax.networks; print(sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    assert "alphazero_jax.networks" in loaded and "alphazero_jax.games" not in loaded
    assert "alphazero_jax.configs" not in loaded
