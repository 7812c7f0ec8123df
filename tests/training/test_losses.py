"""Loss terms (``training.losses``): the built-ins by hand, a term of one's own added with
its weight, and the names that are refused."""

import math

import jax.numpy as jnp
import numpy as np
import optax
import pytest

from alphazero_jax.networks import NetworkOutput
from alphazero_jax.training import learner, losses
from alphazero_jax.types import Sample

# Two positions, three actions; uniform logits, so each cross entropy is log 3.
LOGITS = jnp.zeros((2, 3))
BATCH = Sample(
    observation=jnp.zeros((2, 1, 1, 1)),
    policy=jnp.eye(3)[jnp.array([0, 2])],
    value=jnp.array([1.0, -1.0]),
    targets={"reply_policy": jnp.array([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])},
)


def _reply_term(output, batch):
    return losses.cross_entropy(output.aux["reply"], batch.targets["reply_policy"])


@pytest.fixture(autouse=True)
def _reply_term_registered():
    """A loss term of the tests' own, registered for each test (and gone after it)."""
    losses.register("test_reply", _reply_term, targets=("reply_policy",), outputs=("reply",))


def _apply(variables, observations, *, train=False):
    del observations, train
    output = NetworkOutput(LOGITS, jnp.array([0.5, 0.5]), {"reply": jnp.zeros((2, 3))})
    return output, variables


def test_builtin_terms__by_hand():
    output, _ = _apply({}, None)
    assert float(losses.policy_loss(output, BATCH)) == pytest.approx(math.log(3))
    # (0.5 - 1)^2 and (0.5 + 1)^2: 0.25 and 2.25, mean 1.25.
    assert float(losses.value_loss(output, BATCH)) == pytest.approx(1.25)
    # The second position's reply target is zero (its game ended): it adds 0 to the mean.
    assert float(_reply_term(output, BATCH)) == pytest.approx(math.log(3) / 2)


def test_loss_fn__adds_each_term_times_its_weight_and_logs_it():
    params = {"kernel": jnp.zeros((1,))}
    plain, (metrics, _) = learner.loss_fn(params, {"params": params}, _apply, BATCH, l2_weight=0)
    weighted, (aux_metrics, _) = learner.loss_fn(
        params, {"params": params}, _apply, BATCH, l2_weight=0, aux_weights=(("test_reply", 0.5),)
    )
    assert float(plain) == pytest.approx(math.log(3) + 1.25)
    assert float(weighted - plain) == pytest.approx(0.5 * math.log(3) / 2)
    assert "test_reply_loss" not in metrics
    assert float(aux_metrics["test_reply_loss"]) == pytest.approx(math.log(3) / 2)
    np.testing.assert_allclose(aux_metrics["policy_loss"], metrics["policy_loss"])


def test_losses__refuse_unknown_names_listing_the_registered_ones():
    with pytest.raises(ValueError, match=r"Unknown loss term 'no_such_term'; registered: .*policy"):
        learner.make_update(_apply, optax.sgd(0.1), aux_weights=(("no_such_term", 1.0),))
    with pytest.raises(ValueError, match=r"Unknown target 'no_such_target'"):
        losses.register("test_no_target", _reply_term, targets=("no_such_target",))
    with pytest.raises(ValueError, match="taken by"):
        losses.register("policy", _reply_term)
    assert losses.targets_of(("policy", "test_reply")) == ("reply_policy",)
