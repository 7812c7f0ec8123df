r"""Self-play throughput on Connect Four against a pipeline built on pgx's Connect Four.

    python -m experiments.benchmarks.selfplay [--batch_sizes=64,512] [--policies=puct,gumbel] \
        [--simulations=64] [--channels=64] [--blocks=4] [--evaluations=30000] [--rounds=3]

Needs pgx, the ``bench`` extra: ``pip install -e '.[bench]'``, or ``make bench``.

Both pipelines are the library's own ``search.make_search`` + ``selfplay.make_selfplay`` with
the same network, the same mctx call and the same settings; the pgx side plugs pgx's game
in through a thin adapter to the game contract. So the ratio measures the game code and the
way the batch is spread over devices, which is where the two pipelines differ:

- "ours": our Connect Four, the batch split over every local device (``selfplay.shard``),
  as ``train.py`` runs it;
- "pgx": pgx's Connect Four on one device, as a pgx + mctx pipeline is usually written;
- "pgx sharded": pgx's Connect Four split over the devices the same way as ours;
- "ours, no net": ours with the network replaced by one that costs nothing (uniform
  priors, zero values), so that its time is the search's and the game's alone; the line
  after each configuration gives their share of ours (the rest is the network's).

Each timed call plays a few moves of every game slot; positions/s counts searched
positions and network evaluations/s = positions/s x (simulations + 1); GFLOP/s is analytic,
evaluations/s x the network's FLOPs per evaluation counted from its shapes (XLA's cost
analysis misses cuDNN's convolutions on a GPU). The script also
prints the network's FLOPs per evaluation (counted from its shapes), the machine's matmul peak
(a large ``jnp.dot``, timed here) and the peak resident memory.
"""

from __future__ import annotations

import importlib.util
import resource
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np
from absl import app, flags
from flax import struct
from jax.sharding import Mesh

from alphazero_jax import games, networks
from alphazero_jax.cli import common as cli
from alphazero_jax.types import Game
from experiments.benchmarks import common, pipelines

_BATCH_SIZES = common.define_batch_sizes(["64", "512"])
_POLICIES = flags.DEFINE_list("policies", ["puct", "gumbel"], "Search policies.")
_SIMULATIONS = flags.DEFINE_integer("simulations", 64, "Simulations per search.")
_CHANNELS = flags.DEFINE_integer("channels", 64, "Network channels.")
_BLOCKS = flags.DEFINE_integer("blocks", 4, "Residual blocks.")
_EVALUATIONS = flags.DEFINE_integer("evaluations", 30_000, "Network evaluations per timed call.")
_ROUNDS = common.define_rounds(3)
_NO_NET = "ours, no net"  # the side whose time is the search's and the game's alone


@struct.dataclass
class _PgxState:
    """pgx's State seen through the game contract's attribute names."""

    inner: object

    @property
    def terminal(self):
        return self.inner.terminated

    @property
    def current_player(self):
        return self.inner.current_player

    @property
    def rewards(self):
        return self.inner.rewards

    @property
    def num_moves(self):
        return self.inner._step_count


def pgx_game(name: str = "connect_four") -> Game:
    """pgx's game as a ``Game`` (only what search and self-play use)."""
    import pgx

    env = pgx.make(name)
    ours = games.make(name)

    return ours._replace(
        name=f"pgx/{name}",
        init=lambda key: _PgxState(env.init(key)),
        step=lambda state, action: _PgxState(env.step(state.inner, action)),
        observe=lambda state: state.inner.observation.astype(jnp.float32),
        legal_action_mask=lambda state: state.inner.legal_action_mask,
    )


def matmul_peak_flops(size: int = 2048, repeats: int = 10) -> float:
    """The best FLOP/s of a ``size`` x ``size`` float32 matmul over ``repeats`` tries."""
    a = jax.random.normal(jax.random.key(0), (size, size), jnp.float32)
    dot = jax.jit(jnp.dot)
    jax.block_until_ready(dot(a, a))
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(dot(a, a))
        best = min(best, time.perf_counter() - start)
    return 2 * size**3 / best


def run(
    *,
    batch_sizes: tuple[int, ...],
    policies: tuple[str, ...],
    simulations: int,
    channels: int,
    blocks: int,
    rounds: int,
    evaluations_per_call: int,
) -> list[dict]:
    """Times the three pipelines alternately per configuration; prints and returns rows."""
    game, peer = games.make("connect_four"), pgx_game()
    apply_fn, variables = networks.make_network(game, channels=channels, blocks=blocks)
    flops = networks.flops_per_evaluation(game, channels=channels, blocks=blocks)
    peak = matmul_peak_flops()
    devices = jax.devices()
    meshes = {
        "all": Mesh(np.array(devices), ("batch",)),
        "one": Mesh(np.array(devices[:1]), ("batch",)),
    }
    sides = {
        "ours": (game, "all", apply_fn),
        "pgx": (peer, "one", apply_fn),
        "pgx sharded": (peer, "all", apply_fn),
        _NO_NET: (game, "all", pipelines.no_network(game)),
    }
    print(
        f"jax {jax.__version__}, {len(devices)} x {devices[0].device_kind}; network "
        f"{channels}ch x {blocks} blocks: {flops / 1e6:.1f} MFLOP/evaluation; "
        f"matmul peak {peak / 1e9:.1f} GFLOP/s"
    )
    print(
        f"{'policy':<7} {'batch':>5} {'side':<12} {'positions/s':>12} {'evals/s':>9} "
        f"{'GFLOP/s':>8} {'vs pgx':>7} {'% peak':>7}"
    )
    rows = []
    for policy in policies:
        for batch in batch_sizes:
            moves = max(1, evaluations_per_call // (batch * (simulations + 1)))
            fns = {
                side: pipelines.pipeline(
                    g,
                    a,
                    meshes[m],
                    policy=policy,
                    batch=batch,
                    moves=moves,
                    simulations=simulations,
                )
                for side, (g, m, a) in sides.items()
            }
            for fn in fns.values():  # compile
                jax.block_until_ready(fn(variables, jax.random.key(0)))
            times = {side: [] for side in fns}
            for r in range(rounds):
                for side, fn in fns.items():
                    start = time.perf_counter()
                    jax.block_until_ready(fn(variables, jax.random.key(r + 1)))
                    times[side].append(time.perf_counter() - start)
            for side in fns:
                if side == _NO_NET:
                    continue  # its share follows the rows
                seconds = statistics.median(times[side])
                positions = batch * moves / seconds
                evaluations = positions * (simulations + 1)
                ratio = statistics.median(p / s for p, s in zip(times["pgx"], times[side]))
                row = dict(
                    policy=policy,
                    batch=batch,
                    side=side,
                    positions_per_s=positions,
                    evaluations_per_s=evaluations,
                    flops_per_s=evaluations * flops,  # analytic: counted FLOPs x evals/s
                    ratio=ratio,
                    peak_fraction=evaluations * flops / peak,
                )
                rows.append(row)
                print(
                    f"{policy:<7} {batch:>5} {side:<12} {positions:>12,.1f} "
                    f"{evaluations:>9,.0f} {evaluations * flops / 1e9:>8.1f} "
                    f"{ratio:>6.2f}x {row['peak_fraction']:>6.1%}"
                )
            share = statistics.median(times[_NO_NET]) / statistics.median(times["ours"])
            print(f"{'':<13} search and game: {share:.0%} of ours' time, the network the rest")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {rss:,.0f} MiB")
    return rows


def main(argv: list[str]) -> None:
    cli.begin(argv)
    if importlib.util.find_spec("pgx") is None:
        cli.fail("pgx is not installed: pip install -e '.[bench]' (or make bench) adds it.")
    run(
        batch_sizes=common.ints(_BATCH_SIZES),
        policies=tuple(_POLICIES.value),
        simulations=_SIMULATIONS.value,
        channels=_CHANNELS.value,
        blocks=_BLOCKS.value,
        rounds=_ROUNDS.value,
        evaluations_per_call=_EVALUATIONS.value,
    )


if __name__ == "__main__":
    from alphazero_jax.cli import host_devices  # noqa: F401  (not on import: common.py)

    app.run(main)
