"""An auxiliary target of one's own: the opponent's reply (Wu, 2019; Clausen, 2020).

A network kind ``"reply_mlp"`` with a second policy head, ``aux["reply"]``, and a loss term
``"opponent_reply"``: the cross entropy of that head against the search's policy at the
next ply, which self-play stores as the package's target ``reply_policy``
(``training.targets``). The package's own term ``reply`` (``training.losses.reply_loss``)
averages over every sampled position, a game's last one (no reply) adding zero; this
variant averages over the positions that have a reply.
"""

import flax.linen as nn
import jax.numpy as jnp

from alphazero_jax import networks
from alphazero_jax.training import losses


class ReplyMLP(nn.Module):
    """An MLP trunk with three heads: the policy, the value and the opponent's reply."""

    num_actions: int
    hidden: int

    @nn.compact
    def __call__(self, observations, train: bool):
        del train
        x = observations.reshape(observations.shape[0], -1)
        x = nn.relu(nn.Dense(self.hidden, name="trunk_0")(x))
        x = nn.relu(nn.Dense(self.hidden, name="trunk_1")(x))
        logits = nn.Dense(self.num_actions, name="policy")(x)
        value = jnp.tanh(nn.Dense(1, name="value")(x)[:, 0])
        reply = nn.Dense(self.num_actions, name="reply")(x)  # the opponent's next move
        return logits, value, {"reply": reply}


def make_reply_mlp(game, *, hidden: int = 64) -> ReplyMLP:
    """The network kind ``"reply_mlp"``."""
    return ReplyMLP(num_actions=game.num_actions, hidden=hidden)


def opponent_reply_loss(output, batch):
    """float32[]: the reply head's cross entropy against the next ply's search policy,
    the mean over the sampled positions that have a reply (after a game's last move the
    target is zero)."""
    target = batch.targets["reply_policy"]
    with_reply = jnp.sum(jnp.sum(target, axis=-1) > 0)
    total = losses.cross_entropy(output.aux["reply"], target) * target.shape[0]
    return total / jnp.maximum(with_reply, 1)


networks.register("reply_mlp", make_reply_mlp)
losses.register(
    "opponent_reply", opponent_reply_loss, targets=("reply_policy",), outputs=("reply",)
)
