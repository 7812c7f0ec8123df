r"""Self-play throughput of our Connect Four and Othello against pgx's same games through the
library's adapter (``games/pgx_games.py``, the games ``pgx_connect_four`` and ``pgx_othello``).

    python -m experiments.benchmarks.selfplay [--games=connect_four,othello] \
        [--batch_sizes=64,512] [--policies=puct,gumbel] [--simulations=64] [--channels=64] \
        [--blocks=4] [--evaluations=30000] [--rounds=3]

Needs pgx: the ``pgx`` or ``bench`` extra (``pip install -e '.[bench]'``, or ``make bench``).

Both pipelines are the library's own ``search.make_search`` + ``selfplay.make_selfplay`` with
the same network, the same mctx call and the same settings; the pgx side is pgx's game through
the adapter that trains it here. So the ratio measures the game code, the adapter, and the way
the batch is spread over devices, which is where the two pipelines differ:

- "ours": our game, the batch split over every local device (``selfplay.shard``), as
  ``train.py`` runs it;
- "pgx": pgx's game on one device, as a pgx + mctx pipeline is usually written;
- "pgx sharded": pgx's game split over the devices the same way as ours;
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
from jax.sharding import Mesh

from alphazero_jax import games, networks
from alphazero_jax.cli import common as cli
from alphazero_jax.games import pgx_games
from alphazero_jax.types import Game
from experiments.benchmarks import common, pipelines

# Our games at pgx's settings: the same board, actions and observation planes (our Othello
# without its legal-move plane), so that both sides run the same network.
GAMES = {"connect_four": {}, "othello": {"legal_plane": 0}}


_BATCH_SIZES = common.define_batch_sizes(["64", "512"])
_GAMES = flags.DEFINE_list("games", list(GAMES), f"Games of both sides, of {list(GAMES)}.")
_POLICIES = flags.DEFINE_list("policies", ["puct", "gumbel"], "Search policies.")
_SIMULATIONS = flags.DEFINE_integer("simulations", 64, "Simulations per search.")
_CHANNELS = flags.DEFINE_integer("channels", 64, "Network channels.")
_BLOCKS = flags.DEFINE_integer("blocks", 4, "Residual blocks.")
_EVALUATIONS = flags.DEFINE_integer("evaluations", 30_000, "Network evaluations per timed call.")
_ROUNDS = common.define_rounds(3)
_NO_NET = "ours, no net"  # the side whose time is the search's and the game's alone


def pgx_game(name: str = "connect_four") -> Game:
    """pgx's game through the library's adapter (``games.make("pgx_" + name)``)."""
    return games.make(pgx_games.PREFIX + name)


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
    game_names: tuple[str, ...],
    batch_sizes: tuple[int, ...],
    policies: tuple[str, ...],
    simulations: int,
    channels: int,
    blocks: int,
    rounds: int,
    evaluations_per_call: int,
) -> list[dict]:
    """Times the pipelines alternately per game and configuration; prints and returns rows."""
    peak = matmul_peak_flops()
    devices = jax.devices()
    print(
        f"jax {jax.__version__}, {len(devices)} x {devices[0].device_kind}; network "
        f"{channels}ch x {blocks} blocks; matmul peak {peak / 1e9:.1f} GFLOP/s"
    )
    rows = []
    for name in game_names:
        game, peer = games.make(name, **GAMES[name]), pgx_game(name)
        flops = networks.flops_per_evaluation(game, channels=channels, blocks=blocks)
        print(f"{name}: {flops / 1e6:.1f} MFLOP/evaluation")
        print(
            f"{'policy':<7} {'batch':>5} {'side':<12} {'positions/s':>12} {'evals/s':>9} "
            f"{'GFLOP/s':>8} {'vs pgx':>7} {'% peak':>7}"
        )
        for policy in policies:
            for batch in batch_sizes:
                timed = _time_sides(
                    game, peer, policy=policy, batch=batch, simulations=simulations,
                    channels=channels, blocks=blocks, rounds=rounds,
                    evaluations_per_call=evaluations_per_call,
                )  # fmt: skip
                rows += _report(name, policy, batch, timed, simulations, flops, peak)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {rss:,.0f} MiB")
    return rows


def _time_sides(game, peer, *, policy, batch, simulations, channels, blocks, rounds,
                evaluations_per_call) -> tuple[int, dict[str, list[float]]]:  # fmt: skip
    """``(moves per call, side -> seconds of each round)``, the sides run alternately."""
    apply_fn, variables = networks.make_network(game, channels=channels, blocks=blocks)
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
    moves = max(1, evaluations_per_call // (batch * (simulations + 1)))
    fns = {
        side: pipelines.pipeline(
            g, a, meshes[m], policy=policy, batch=batch, moves=moves, simulations=simulations
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
    return moves, times


def _report(name, policy, batch, timed, simulations, flops, peak) -> list[dict]:
    """Prints one configuration's rows (and the search's share) and returns them."""
    moves, times = timed
    rows = []
    for side in times:
        if side == _NO_NET:
            continue  # its share follows the rows
        seconds = statistics.median(times[side])
        positions = batch * moves / seconds
        evaluations = positions * (simulations + 1)
        ratio = statistics.median(p / s for p, s in zip(times["pgx"], times[side]))
        row = dict(
            game=name,
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
    return rows


def main(argv: list[str]) -> None:
    cli.begin(argv)
    if importlib.util.find_spec("pgx") is None:
        cli.fail("pgx is not installed: pip install -e '.[bench]' (or make bench) adds it.")
    unknown = sorted(set(_GAMES.value) - set(GAMES))
    if unknown:
        cli.fail(f"--games: expected some of {list(GAMES)}, got {unknown}.")
    run(
        game_names=tuple(_GAMES.value),
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
