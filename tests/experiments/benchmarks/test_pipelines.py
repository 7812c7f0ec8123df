"""The self-play benchmark's network that costs nothing (its "ours, no net" side, which
splits our self-play time between the network and the search and game): it fits the
network contract, plays the same pipeline as the network, and gives every legal move the
same prior and every position the value 0 (no timed assertions: its numbers are for people).
The pgx sides need the ``bench`` extra and are not run here."""

import jax
import numpy as np
from jax.sharding import Mesh

from alphazero_jax import games, networks
from experiments.benchmarks import pipelines


def test_no_network__uniform_priors_and_zero_values_through_the_same_pipeline():
    game = games.make("tic_tac_toe")
    states = jax.vmap(game.init)(jax.random.split(jax.random.key(0), 3))
    observations = jax.vmap(game.observe)(states)
    no_net = pipelines.no_network(game)
    output, variables = no_net({"params": {}}, observations)
    assert variables == {"params": {}}
    np.testing.assert_array_equal(output.logits, np.zeros((3, game.num_actions)))
    np.testing.assert_array_equal(output.value, np.zeros(3))

    apply_fn, weights = networks.make_network(game, channels=4, blocks=1, value_hidden=4)
    mesh = Mesh(np.array(jax.devices()[:1]), ("batch",))
    shapes = []
    for fn in (apply_fn, no_net):
        play = pipelines.pipeline(game, fn, mesh, policy="puct", batch=2, moves=3, simulations=2)
        shapes.append(jax.eval_shape(play, weights, jax.random.key(1)))  # traced, not run
    assert shapes[0] == shapes[1]
