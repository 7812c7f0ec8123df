"""A network of one's own: a small multilayer perceptron, registered as ``"mlp"``."""

import flax.linen as nn
import jax.numpy as jnp

from alphazero_jax import networks


class MLP(nn.Module):
    """Flattened board -> ``layers`` dense layers -> policy logits and a value."""

    num_actions: int
    hidden: int
    layers: int

    @nn.compact
    def __call__(self, observations, train: bool):
        del train  # no batch statistics, no dropout
        x = observations.reshape(observations.shape[0], -1)
        for index in range(self.layers):
            x = nn.relu(nn.Dense(self.hidden, name=f"dense_{index}")(x))
        logits = nn.Dense(self.num_actions, name="policy")(x)  # float32[B, A]
        value = jnp.tanh(nn.Dense(1, name="value")(x)[:, 0])  # float32[B], mover's view
        return logits, value


def make_mlp(game, *, hidden: int = 64, layers: int = 2) -> MLP:
    """The network kind ``"mlp"``: its keyword settings are ``config.network``'s."""
    if hidden < 1 or layers < 1:
        raise ValueError(f"mlp: hidden and layers must be >= 1, got {hidden} and {layers}.")
    return MLP(num_actions=game.num_actions, hidden=hidden, layers=layers)


networks.register("mlp", make_mlp)
