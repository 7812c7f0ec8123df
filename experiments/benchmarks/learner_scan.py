r"""How much slower the learner's update runs inside a rolled loop than called on its own.

    python -m experiments.benchmarks.learner_scan [--channels=32] [--blocks=3] \
        [--batch_size=256] [--updates=16] [--unrolled]

On the Connect Four network, in one process, times: the forward pass, the gradient, one
jitted update called on its own (as the training loop calls its K updates), the same
update K times inside one jitted ``lax.scan`` (as the loop ran them until 2026-11-24),
and with ``--unrolled`` that scan with ``unroll=True`` (slow to compile). Each figure is
seconds a call, the scans' divided by K. The design page's "Why the K updates are not a
``lax.scan``" gives what it measured and why the loop calls the update from the host.
"""

from __future__ import annotations

import time

import jax
import numpy as np
import optax
from absl import app, flags

from alphazero_jax import games, networks
from alphazero_jax.cli import common as cli
from alphazero_jax.training import learner
from alphazero_jax.types import Sample

_CHANNELS = flags.DEFINE_integer("channels", 32, "Channels of the network's tower.")
_BLOCKS = flags.DEFINE_integer("blocks", 3, "Residual blocks of the tower.")
_BATCH = flags.DEFINE_integer("batch_size", 256, "Positions in a batch.")
_UPDATES = flags.DEFINE_integer("updates", 16, "Updates in the scan (the loop's K).")
_REPEATS = flags.DEFINE_integer("repeats", 5, "Timed calls of the forward, gradient and update.")
_UNROLLED = flags.DEFINE_bool("unrolled", False, "Also time the scan unrolled (slow to compile).")


def _seconds(fn, *args, repeats: int) -> float:
    """Seconds a call of ``fn(*args)``, over ``repeats`` calls after one to compile."""
    jax.block_until_ready(fn(*args))
    start = time.perf_counter()
    for _ in range(repeats):
        out = fn(*args)
    jax.block_until_ready(out)
    return (time.perf_counter() - start) / repeats


def _scanned(update, updates: int, unroll: bool):
    """``updates`` calls of ``update`` on one batch inside one jitted ``lax.scan``."""

    def run(state, batch):
        def body(state, _):
            state, metrics = update(state, batch)
            return state, metrics["loss"]

        return jax.lax.scan(body, state, None, length=updates, unroll=unroll)[1]

    return jax.jit(run)


def run(
    *, channels: int, blocks: int, batch_size: int, updates: int, repeats: int, unrolled: bool
) -> dict[str, float]:
    """Times each way of running the update; prints one line and returns seconds a call
    (``forward``, ``gradient``, ``update``, ``scan`` and with ``unrolled`` ``unrolled``)."""
    game = games.make("connect_four")
    apply_fn, variables = networks.make_network(
        game, channels=channels, blocks=blocks, value_hidden=channels
    )
    rng = np.random.default_rng(0)
    observation = (rng.random((batch_size, *game.observation_shape)) < 0.3).astype(np.float32)
    logits = rng.normal(size=(batch_size, game.num_actions))
    policy = np.asarray(jax.nn.softmax(logits), np.float32)
    value = rng.uniform(-1, 1, size=(batch_size,)).astype(np.float32)
    batch = Sample(observation=observation, policy=policy, value=value)
    optimizer = optax.adam(1e-3)
    state = learner.init_train_state(variables, optimizer)
    step = learner.make_update(apply_fn, optimizer, l2_weight=1e-4)
    update = jax.jit(lambda state, batch: step(state, batch)[1])
    forward = jax.jit(lambda variables, observation: apply_fn(variables, observation)[0])
    gradient = jax.jit(
        lambda variables, batch: jax.grad(
            lambda params: learner.loss_fn(params, variables, apply_fn, batch, l2_weight=1e-4)[0]
        )(variables["params"])
    )
    times = {
        "forward": _seconds(forward, variables, observation, repeats=repeats),
        "gradient": _seconds(gradient, variables, batch, repeats=repeats),
        "update": _seconds(update, state, batch, repeats=repeats),
        "scan": _seconds(_scanned(step, updates, False), state, batch, repeats=1) / updates,
    }
    if unrolled:
        times["unrolled"] = _seconds(_scanned(step, updates, True), state, batch, repeats=1)
        times["unrolled"] /= updates
    parts = [f"{name} {seconds * 1e3:.0f} ms" for name, seconds in times.items()]
    print(
        f"jax {jax.__version__}, {jax.default_backend()}, network {channels}x{blocks}, batch "
        f"{batch_size}, {updates} updates: " + ", ".join(parts) + f"; in lax.scan "
        f"{times['scan'] / times['update']:.1f}x the update alone"
    )
    return times


def main(argv: list[str]) -> None:
    cli.begin(argv)
    for holder in (_CHANNELS, _BLOCKS, _BATCH, _UPDATES, _REPEATS):
        if holder.value < 1:
            cli.fail(f"--{holder.name}: expected an integer >= 1, got {holder.value}.")
    run(
        channels=_CHANNELS.value,
        blocks=_BLOCKS.value,
        batch_size=_BATCH.value,
        updates=_UPDATES.value,
        repeats=_REPEATS.value,
        unrolled=_UNROLLED.value,
    )


if __name__ == "__main__":
    from alphazero_jax.cli import host_devices  # noqa: F401  (not on import, as the others)

    app.run(main)
