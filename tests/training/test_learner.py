"""The learner: loss arithmetic by hand, no NaNs, schedules, and the jitted, donated update."""

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alphazero_jax import games, networks
from alphazero_jax.networks import NetworkOutput
from alphazero_jax.training import learner
from alphazero_jax.types import Sample

SMALL = {"channels": 8, "blocks": 1, "value_hidden": 8}


def _stub_apply(logits, value, calls=None):
    """A network that ignores its input and returns fixed outputs (recording ``train``)."""

    def apply_fn(variables, observations, *, train=False):
        if calls is not None:
            calls.append(train)
        return NetworkOutput(jnp.asarray(logits, jnp.float32), jnp.asarray(value)), variables

    return apply_fn


def _random_batch(game, size, seed):
    """Random 0/1 planes, one-hot policy targets and outcomes in {-1, 0, 1}."""
    rng = np.random.default_rng(seed)
    observation = rng.integers(0, 2, (size, *game.observation_shape)).astype(np.float32)
    policy = np.eye(game.num_actions, dtype=np.float32)[rng.integers(0, game.num_actions, size)]
    value = rng.integers(-1, 2, size).astype(np.float32)
    return Sample(jnp.asarray(observation), jnp.asarray(policy), jnp.asarray(value))


def test_loss__hand_computed_case():
    log3 = math.log(3.0)
    # softmax([0, ln 3]) = [1/4, 3/4]; softmax([0, 0]) = [1/2, 1/2].
    logits = [[0.0, log3], [0.0, 0.0], [0.0, 0.0], [0.0, log3]]
    policy = [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [0.0, 1.0]]
    value = [0.5, -0.2, 0.1, -0.9]
    target = [1.0, -1.0, 0.0, 1.0]
    params = {
        "dense": {"kernel": jnp.array([[1.0, 2.0], [3.0, 0.0]]), "bias": jnp.array([5.0])},
        "norm": {"scale": jnp.array([7.0]), "bias": jnp.array([11.0])},
    }
    calls = []
    batch = Sample(jnp.zeros((4, 1, 1, 1)), jnp.array(policy), jnp.array(target))
    loss, (metrics, new_variables) = learner.loss_fn(
        params,
        {"params": params},
        _stub_apply(logits, value, calls),
        batch,
        l2_weight=0.01,
        value_weight=2.0,
    )
    assert calls == [True]
    assert new_variables["params"] is params
    # Cross-entropies: -ln 1/4 = 1.386294, ln 2 = 0.693147, -ln 1/2 = 0.693147,
    # -ln 3/4 = 0.287682; mean 3.060271 / 4 = 0.765068.
    np.testing.assert_allclose(metrics["policy_loss"], 0.765068, rtol=1e-5)
    # Squared errors: 0.5^2 = 0.25, 0.8^2 = 0.64, 0.1^2 = 0.01, 1.9^2 = 3.61; mean 1.1275.
    np.testing.assert_allclose(metrics["value_loss"], 1.1275, rtol=1e-5)
    # Kernels only: 0.5 * (1 + 4 + 9 + 0) = 7 (biases and norm scale ignored).
    np.testing.assert_allclose(metrics["l2"], 7.0, rtol=1e-6)
    # H(1/4, 3/4) = 0.25 ln 4 + 0.75 ln 4/3 = 0.562335, H(1/2, 1/2) = 0.693147;
    # mean (2 * 0.562335 + 2 * 0.693147) / 4 = 0.627741.
    np.testing.assert_allclose(metrics["policy_entropy"], 0.627741, rtol=1e-5)
    # Predicted win/draw/draw/loss against target win/loss/draw/win: 2 of 4 agree.
    np.testing.assert_allclose(metrics["value_sign_accuracy"], 0.5)
    # 2 * 1.1275 + 0.765068 + 0.01 * 7 = 3.090068.
    np.testing.assert_allclose(loss, 3.090068, rtol=1e-5)
    np.testing.assert_allclose(metrics["loss"], loss)
    assert all(m.dtype == jnp.float32 and m.shape == () for m in metrics.values())


def test_loss__value_sign_accuracy_uses_a_draw_band():
    # Labels: 0.34 -> win, 0.33 -> draw, -0.33 -> draw, -0.34 -> loss, against the targets
    # win, win, loss, loss: the first and last agree.
    value = [0.34, 0.33, -0.33, -0.34]
    batch = Sample(jnp.zeros((4, 1, 1, 1)), jnp.full((4, 2), 0.5), jnp.array([1.0, 1, -1, -1]))
    _, (metrics, _) = learner.loss_fn(
        {}, {"params": {}}, _stub_apply(jnp.zeros((4, 2)), value), batch, l2_weight=0.0
    )
    np.testing.assert_allclose(metrics["value_sign_accuracy"], 0.5)


def test_loss__mismatched_target_shapes_raise():
    apply_fn = _stub_apply(jnp.zeros((4, 2)), jnp.zeros(4))
    batch = Sample(jnp.zeros((4, 1, 1, 1)), jnp.full((4, 2), 0.5), jnp.zeros((4, 1)))
    with pytest.raises(ValueError, match=r"value \[4\] .*got \[4, 2\] and \[4, 1\]"):
        learner.loss_fn({}, {"params": {}}, apply_fn, batch, l2_weight=0.0)


@pytest.mark.parametrize("masked", [-1e9, -jnp.inf])
def test_loss__no_nan_with_zero_targets_and_masked_logits(masked):
    def apply_fn(variables, observations, *, train=False):
        bias = variables["params"]["bias"]
        logits = jnp.array([[masked, 0.0, 1.0], [2.0, masked, masked]]) + bias
        return NetworkOutput(logits, jnp.tanh(bias[:2])), variables

    params = {"bias": jnp.array([0.1, 0.2, 0.3])}
    policy = jnp.array([[0.0, 0.25, 0.75], [1.0, 0.0, 0.0]])
    batch = Sample(jnp.zeros((2, 1, 1, 1)), policy, jnp.array([1.0, -1.0]))
    grad_fn = jax.value_and_grad(learner.loss_fn, has_aux=True)
    (loss, (metrics, _)), grads = grad_fn(
        params, {"params": params}, apply_fn, batch, l2_weight=1.0
    )
    assert np.isfinite(loss)
    assert all(np.isfinite(m) for m in metrics.values())
    assert np.all(np.isfinite(grads["bias"]))
    # The masked entries have probability 0, so they add nothing to the entropy.
    assert 0.0 < metrics["policy_entropy"] < math.log(2.0)


def test_update__loss_falls_on_a_fixed_batch():
    game = games.make("tic_tac_toe")
    apply_fn, variables = networks.make_network(game, **SMALL, key=jax.random.key(3))
    optimizer = learner.make_optimizer(learner.make_schedule(learning_rate=1e-2), name="adam")
    update = jax.jit(learner.make_update(apply_fn, optimizer, l2_weight=1e-4), donate_argnums=0)
    state = learner.init_train_state(variables, optimizer)
    batch = _random_batch(game, 32, seed=0)
    losses = []
    for _ in range(80):
        state, metrics = update(state, batch)
        losses.append(metrics["loss"])
    losses = np.asarray(losses)
    assert np.all(np.isfinite(losses))
    assert losses[-1] < 0.5 * losses[0], losses[[0, 20, 40, 60, 79]]
    assert int(state.step) == 80
    # Having memorised the batch, the network mostly gets the outcomes right.
    assert metrics["value_sign_accuracy"] > 0.8


def test_update__compiles_once_and_donates_the_state():
    game = games.make("tic_tac_toe")
    apply_fn, variables = networks.make_network(game, **SMALL)
    settings = {"learning_rate": 0.1, "schedule": "cosine", "warmup_steps": 2, "total_steps": 4}
    schedule = learner.make_schedule(**settings)
    optimizer = learner.make_optimizer(schedule, name="sgd")
    update = learner.make_update(apply_fn, optimizer, l2_weight=1e-4, schedule=schedule)
    traces = []

    def counted(state, batch):
        traces.append(None)
        return update(state, batch)

    jitted = jax.jit(counted, donate_argnums=0)
    state = learner.init_train_state(variables, optimizer)
    old_var = np.asarray(variables["batch_stats"]["stem_norm"]["var"])
    rates = []
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*donated.*")
        for seed in range(4):
            old_kernel = state.variables["params"]["stem_conv"]["kernel"]
            state, metrics = jitted(state, _random_batch(game, 8, seed))
            assert old_kernel.is_deleted()  # the donated buffers were reused
            rates.append(float(metrics["learning_rate"]))
    assert len(traces) == 1
    assert int(state.step) == 4
    assert not np.allclose(state.variables["batch_stats"]["stem_norm"]["var"], old_var)
    assert set(metrics) == {
        "loss",
        "value_loss",
        "policy_loss",
        "l2",
        "policy_entropy",
        "value_sign_accuracy",
        "grad_norm",
        "learning_rate",
    }
    # Warmup 0 -> 0.1 over 2 steps, then half a cosine from 0.1 to 0 over 2 steps.
    np.testing.assert_allclose(rates, [0.0, 0.05, 0.1, 0.05], atol=1e-7)


def test_update__applies_the_optimizer_step_to_the_gradient():
    """Plain SGD (momentum 0) on a stub network whose gradients are worked out by hand."""

    def apply_fn(variables, observations, *, train=False):
        size = observations.shape[0]
        params = variables["params"]
        logits = jnp.broadcast_to(params["policy"]["bias"], (size, 2))
        value = jnp.broadcast_to(params["value"]["bias"], (size,))
        if not train:
            return NetworkOutput(logits, value), variables
        stats = {"count": variables["batch_stats"]["count"] + 1}
        return NetworkOutput(logits, value), {**variables, "batch_stats": stats}

    params = {
        "policy": {"bias": jnp.array([0.0, 0.0])},
        "value": {"bias": jnp.array(0.5)},
        "unused": {"kernel": jnp.array([2.0])},
    }
    variables = {"params": params, "batch_stats": {"count": jnp.array(0)}}
    batch = Sample(jnp.zeros((1, 1, 1, 1)), jnp.array([[1.0, 0.0]]), jnp.array([1.0]))
    optimizer = learner.make_optimizer(
        learner.make_schedule(learning_rate=0.5), name="sgd", momentum=0.0
    )
    update = jax.jit(learner.make_update(apply_fn, optimizer, l2_weight=0.1))
    state, metrics = update(learner.init_train_state(variables, optimizer), batch)
    new = state.variables["params"]
    # Policy: d CE / d logits = softmax - target = [0.5, 0.5] - [1, 0] = [-0.5, 0.5],
    # so the biases move by -0.5 * that: [0.25, -0.25].
    np.testing.assert_allclose(new["policy"]["bias"], [0.25, -0.25], rtol=1e-6)
    # Value: d (v - 1)^2 / dv = 2 * (0.5 - 1) = -1, so v moves to 0.5 + 0.5 = 1.
    np.testing.assert_allclose(new["value"]["bias"], 1.0, rtol=1e-6)
    # L2: d (0.1 * 0.5 * w^2) / dw = 0.1 * 2 = 0.2, so w moves to 2 - 0.1 = 1.9.
    np.testing.assert_allclose(new["unused"]["kernel"], [1.9], rtol=1e-6)
    # |grad| = sqrt(0.25 + 0.25 + 1 + 0.04) = sqrt(1.54).
    np.testing.assert_allclose(metrics["grad_norm"], math.sqrt(1.54), rtol=1e-6)
    assert int(state.variables["batch_stats"]["count"]) == 1  # the train-mode update is kept
    assert "learning_rate" not in metrics  # no schedule was passed


def test_schedule__cosine_with_warmup():
    schedule = learner.make_schedule(
        learning_rate=0.2, schedule="cosine", warmup_steps=10, total_steps=110
    )
    # 0 at the start, half way up at 5, the peak at 10, half way down at 10 + 100/2 = 60,
    # and 0 from 110 on.
    steps = jnp.array([0, 5, 10, 60, 110, 200])
    np.testing.assert_allclose(jax.vmap(schedule)(steps), [0.0, 0.1, 0.2, 0.1, 0.0, 0.0], atol=1e-7)
    assert schedule(jnp.int32(3)).dtype == jnp.float32


def test_schedule__step_and_constant():
    schedule = learner.make_schedule(
        learning_rate=1.0, schedule="step", decay_rate=0.5, decay_steps=(10, 20)
    )
    # x 0.5 at step 10 and again at step 20.
    got = [float(schedule(step)) for step in (0, 9, 10, 19, 20, 1000)]
    np.testing.assert_allclose(got, [1.0, 1.0, 0.5, 0.5, 0.25, 0.25])
    constant = learner.make_schedule(learning_rate=0.3, warmup_steps=4)
    got = [float(constant(step)) for step in (0, 1, 4, 1000)]
    np.testing.assert_allclose(got, [0.0, 0.075, 0.3, 0.3], rtol=1e-6)


def test_optimizer__follows_its_schedule():
    """With a warmup the first step has rate 0 and changes nothing; the second moves."""
    params = {"w": jnp.array([1.0, -2.0])}
    grads = {"w": jnp.array([0.5, 0.25])}
    schedule = learner.make_schedule(learning_rate=0.4, warmup_steps=2, total_steps=10)
    optimizer = learner.make_optimizer(schedule, name="sgd", momentum=0.0)
    opt_state = optimizer.init(params)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    np.testing.assert_allclose(updates["w"], [0.0, 0.0])
    updates, opt_state = optimizer.update(grads, opt_state, params)
    # Step 1 of a 2-step warmup: rate 0.2, update -0.2 * grad.
    np.testing.assert_allclose(updates["w"], [-0.1, -0.05], rtol=1e-6)


@pytest.mark.parametrize(
    ("settings", "match"),
    [
        ({"name": "rmsprop"}, r"name must be one of 'adam', 'sgd', got 'rmsprop'"),
        ({"schedule": "linear"}, r"schedule must be one of .*got 'linear'"),
        ({"momentum": 1.0}, r"momentum must be a number in \[0, 1\), got 1.0"),
        ({"learning_rate": 0.0}, r"learning_rate must be a number > 0, got 0.0"),
        ({"warmup_steps": -1}, r"warmup_steps must be an integer >= 0, got -1"),
        ({"total_steps": 0}, r"total_steps must be an integer >= 1, got 0"),
        ({"decay_rate": -0.5}, r"decay_rate must be a number > 0, got -0.5"),
        ({"decay_steps": 100}, r"decay_steps must be a tuple of ints, got 100"),
        ({"decay_steps": (10, -5)}, r"each of decay_steps must be an integer >= 0, got -5"),
        (
            {"schedule": "cosine", "warmup_steps": 10, "total_steps": 10},
            r"total_steps > warmup_steps, got total_steps=10 and warmup_steps=10",
        ),
    ],
    ids=lambda value: str(value) if isinstance(value, dict) else "",
)
def test_optimizer__bad_settings_raise(settings, match):
    optimizer_keys = {"name", "momentum"}
    schedule_settings = {k: v for k, v in settings.items() if k not in optimizer_keys}
    optimizer_settings = {k: v for k, v in settings.items() if k in optimizer_keys}
    with pytest.raises(ValueError, match=match):
        learner.make_optimizer(learner.make_schedule(**schedule_settings), **optimizer_settings)
