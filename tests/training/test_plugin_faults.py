"""A plug-in that fails ends the run with a first line naming it and its module: one that
raises when built, one that raises in its first compiled call (while tracing), and one that
returns the wrong shapes (one line saying what was expected), for each plug point a run
builds; and the run's last checkpoint still resumes."""

import sys
import textwrap

import jax
import pytest

from alphazero_jax import configs
from alphazero_jax.configs import ConfigError, settings
from alphazero_jax.registry import PlugInError
from alphazero_jax.training import train

# A module outside the package: a plug-in of every kind, each failing where the environment
# variable FAULT says ("<kind>:build", "<kind>:call" or "<kind>:shapes"), else well behaved.
MODULE = """
import os

import flax.linen as nn
import jax.numpy as jnp

from alphazero_jax import networks, search
from alphazero_jax.networks import resnet
from alphazero_jax.training import budgets, losses, openings, targets


def fault(kind, where):
    return os.environ.get("FAULT") == f"{kind}:{where}"


def make_budget(search_with, *, num_simulations, batch_size):
    if fault("budget", "build"):
        raise RuntimeError("the budget broke")
    run = search_with(num_simulations)

    def budget(variables, key, states, plies):
        if fault("budget", "call"):
            raise RuntimeError("the budget broke in its call")
        searched = run(variables, key, states)
        if fault("budget", "shapes"):
            searched = searched._replace(policy=searched.policy[:, :2])
        return searched, True

    return budget


def make_opening(game):
    if fault("opening", "build"):
        raise RuntimeError("the opening broke")
    rule = openings.make("none", game)

    def play(start, key, states, legal, action):
        if fault("opening", "call"):
            raise RuntimeError("the opening broke in its call")
        return action[:1] if fault("opening", "shapes") else action

    return openings.Opening(rule.start, play)


def make_search(game, apply_fn, *, num_simulations=8, discount=1.0, heuristic_weight=0.0):
    if fault("search", "build"):
        raise RuntimeError("the search broke")
    run = search.make_puct(game, apply_fn, num_simulations=num_simulations)

    def search_fn(variables, key, states):
        if fault("search", "call"):
            raise RuntimeError("the search broke in its call")
        output = run(variables, key, states)
        if fault("search", "shapes"):
            output = output.replace(action_weights=output.action_weights[0])
        return output

    return search_fn


class Net(nn.Module):
    num_actions: int

    @nn.compact
    def __call__(self, observations, train):
        if fault("network", "call") and observations.shape[0] > 1:  # not when initialised
            raise RuntimeError("the network broke in its call")
        x = nn.Dense(8)(observations.reshape(observations.shape[0], -1))
        logits = nn.Dense(self.num_actions + fault("network", "shapes"))(x)
        return logits, jnp.tanh(nn.Dense(1)(x)[:, 0])


def make_network(game, *, width: int = 8):
    if fault("network", "build"):
        raise RuntimeError("the network broke")
    return Net(game.num_actions)


def late_target(trajectory):
    if fault("target", "call"):
        raise RuntimeError("the target broke in its call")
    plies = targets.plies_to_end(trajectory)
    return plies[0] if fault("target", "shapes") else plies


def length_loss(output, batch):
    if fault("loss", "call"):
        raise RuntimeError("the loss broke in its call")
    value = jnp.square(output.value - batch.targets["late_target"] / 9.0)
    return value if fault("loss", "shapes") else jnp.mean(value)


budgets.register("faulty_budget", make_budget)
openings.register("faulty_opening", make_opening)
search.register("faulty_search", make_search)
networks.register("faulty_network", make_network)
targets.register("late_target", late_target)
losses.register("faulty_loss", length_loss, targets=("late_target",))
"""

# Each plug point: how the run names its faulty plug-in, and the config's section and choice
# (None: the loss term faulty_loss, which reads the target late_target).
KINDS = {
    "budget": ("self-play budget 'faulty_budget'", ("budget", "faulty_budget")),
    "opening": ("opening 'faulty_opening'", ("opening", "faulty_opening")),
    "search": ("search policy 'faulty_search'", ("search", "faulty_search")),
    "network": ("network kind 'faulty_network'", ("network", "faulty_network")),
    "target": ("target 'late_target'", None),
    "loss": ("loss term 'faulty_loss'", None),
}


@pytest.fixture
def faulty(tmp_path, monkeypatch):
    """The module above in a folder of its own, on the path and imported."""
    (tmp_path / "faulty_parts.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "faulty_parts", raising=False)
    __import__("faulty_parts")
    monkeypatch.delenv("FAULT", raising=False)
    return monkeypatch


def _config(kind, num_iterations=1):
    config = configs.get_config("tic_tac_toe", "smoke")
    config.num_iterations = num_iterations
    if KINDS[kind][1] is None:
        config.learner.aux_weights = {"faulty_loss": 0.1}
    else:
        settings.plug(config, *KINDS[kind][1])
    return config


def _first_call(components):
    """An iteration's two halves, as the loop calls them first (tracing both)."""
    state, _ = components.selfplay_fn(components.initial_state, None)
    components.learn_fn(state)


@pytest.mark.parametrize("kind", ["budget", "opening", "search", "network"])
def test_a_plug_in_raising_when_built_is_named_with_its_module(faulty, kind):
    faulty.setenv("FAULT", f"{kind}:build")
    with pytest.raises(PlugInError) as caught:
        _first_call(train.build(_config(kind)))
    assert str(caught.value).startswith(f"the {KINDS[kind][0]} (faulty_parts) failed when built")
    assert "RuntimeError: the" in str(caught.value) and "\n" not in str(caught.value)
    assert isinstance(caught.value.__cause__, RuntimeError)  # its own traceback follows


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_plug_in_raising_in_its_first_compiled_call_is_named_with_its_module(faulty, kind):
    faulty.setenv("FAULT", f"{kind}:call")
    components = train.build(_config(kind))
    with pytest.raises(PlugInError) as caught:
        _first_call(components)
    message = str(caught.value)
    assert message.startswith(f"the {KINDS[kind][0]} (faulty_parts) failed in a compiled call")
    assert f"RuntimeError: the {kind} broke in its call" in message and "\n" not in message
    assert isinstance(caught.value.__cause__, RuntimeError)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("budget", "expected (Searched(action [B], policy [B, A], root_value [B]), keep [] or"),
        ("opening", "expected actions [B] = [{B}], got [1]"),
        ("search", "expected action_weights [B, A] with B = {B}, got [9]"),
        ("target", "expected [9, 4] ([T, B]), got [4]"),
        ("loss", "expected one number, float32[] (the batch's mean), got shape [16]"),
    ],
)
def test_a_plug_in_returning_the_wrong_shapes_is_one_line(faulty, kind, expected):
    faulty.setenv("FAULT", f"{kind}:shapes")
    components = train.build(_config(kind))
    expected = expected.format(B=4 // jax.device_count())  # a device's share of the slots
    with pytest.raises(PlugInError) as caught:
        _first_call(components)
    message = str(caught.value)
    assert message.startswith(f"the {KINDS[kind][0]} (faulty_parts) returned the wrong shapes")
    assert expected in message and "\n" not in message
    assert caught.value.__cause__ is None  # nothing of its code failed: no traceback


def test_a_network_of_the_wrong_shapes_is_refused_before_anything_is_built(faulty):
    faulty.setenv("FAULT", "network:shapes")
    with pytest.raises(ConfigError) as caught:
        train.build(_config("network"))
    assert str(caught.value) == (
        "config.network: the network kind 'faulty_network' (faulty_parts) must return logits "
        "[B, A] = [1, 9] and value [B] = [1] for one tic_tac_toe position, got [1, 10] and [1]."
    )


@pytest.mark.slow
def test_a_run_whose_plug_in_fails_resumes_from_its_last_checkpoint(faulty, tmp_path):
    """One iteration trained; the second run's budget fails in its first call: a
    ``PlugInError``, and the first iteration's checkpoint is left as it was; with the fault
    gone, the run resumes from it."""
    workdir = str(tmp_path / "run")
    train.train_and_evaluate(_config("budget", num_iterations=1), workdir)
    checkpoint = tmp_path / "run" / "checkpoints" / "1"
    before = sorted((p.relative_to(checkpoint), p.stat().st_size) for p in checkpoint.rglob("*"))
    faulty.setenv("FAULT", "budget:call")
    with pytest.raises(PlugInError, match="the self-play budget 'faulty_budget'"):
        train.train_and_evaluate(_config("budget", num_iterations=2), workdir)
    after = sorted((p.relative_to(checkpoint), p.stat().st_size) for p in checkpoint.rglob("*"))
    assert after == before and not (tmp_path / "run" / "checkpoints" / "2").exists()
    faulty.delenv("FAULT")
    state = train.train_and_evaluate(_config("budget", num_iterations=2), workdir)
    assert int(state.iteration) == 2
