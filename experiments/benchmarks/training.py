r"""The training loop's speed beside self-play alone, at a preset's settings.

    python -m experiments.benchmarks.training [--config=connect_four:cpu] \
        [--config.selfplay.batch_size=256] [--inference_dtypes=float32,bfloat16] [--rounds=3]

Builds the run of ``train.build`` (evaluation off) and times, alternately in each round:

- "self-play": the self-play half alone (``selfplay_fn``: self-play and replay insertion);
- "loop": an iteration as ``train_and_evaluate`` runs it (``Session.step``): self-play,
  then the learner's K updates, each half waited for once.

Every call plays new games: each half draws its own key from the run's key and advances
it. The loop's "vs self-play" is the share of self-play's speed that training keeps
(docs/benchmarks.md gives the figures and what to expect).

positions/s counts the positions kept for training (finished games); the searched
positions (every slot's every move) give network evaluations/s = searched x the network
calls a move (``run_selfplay.network_calls_per_move``: the root's and one a simulation of the
first iteration's search, a playout cap's fast searches counted), and the analytic
FLOP/s = evaluations/s x the network's FLOPs per evaluation
(``networks.flops_per_evaluation``, counted from its shapes: XLA's cost analysis misses
cuDNN's convolutions on a GPU). With several ``inference_dtypes`` each gets its own rows.
"""

from __future__ import annotations

import statistics
import time

import jax
from absl import app, flags

from alphazero_jax import games, networks
from alphazero_jax.cli import common as cli
from alphazero_jax.cli import config_flag
from alphazero_jax.training import run_selfplay, train
from experiments.benchmarks import common

_CONFIG = config_flag.define("config", "connect_four:cpu")
_DTYPES = flags.DEFINE_list(
    "inference_dtypes", ["float32"], "Self-play's selfplay.inference_dtype values to compare."
)
_ROUNDS = common.define_rounds(3)


def _timed(fn) -> tuple[float, dict]:
    start = time.perf_counter()
    metrics = jax.block_until_ready(fn())
    return time.perf_counter() - start, jax.device_get(metrics)


def _modes(components):
    """name -> a function running one timed call and returning its metrics."""
    state = [components.initial_state]

    def selfplay_alone():
        state[0], metrics = components.selfplay_fn(state[0])
        return metrics

    def loop():  # as Session.step: each half waited for
        state[0], metrics = components.selfplay_fn(state[0])
        jax.block_until_ready(state[0])
        state[0], learn_metrics = components.learn_fn(state[0])
        jax.block_until_ready(state[0])
        return dict(learn_metrics, **metrics)

    return {"self-play": selfplay_alone, "loop": loop}


def run(*, config, inference_dtypes: tuple[str, ...], rounds: int) -> list[dict]:
    """Times the modes alternately for ``rounds`` rounds; prints and returns rows.

    Args:
      config: a training config (``configs.get_config``); evaluation is turned off.
      inference_dtypes: self-play's ``selfplay.inference_dtype`` values to compare.
      rounds: timed calls per mode (the median is reported), after one to compile.
    """
    config.evaluation.every = 0
    config.gating.rule = "none"
    game = games.make(config.game.name, **config.game.settings)
    flops = networks.flops_per_evaluation(game, **config.network)
    searched = config.selfplay.batch_size * config.selfplay.num_moves
    functions, calls = {}, None
    for dtype in inference_dtypes:
        config.selfplay.inference_dtype = dtype
        components = train.build(config)
        calls = run_selfplay.network_calls_per_move(components.plan, num_devices=jax.device_count())
        for mode, fn in _modes(components).items():
            functions[(dtype, mode)] = fn
    evaluations = searched * calls
    devices = jax.devices()
    print(
        f"jax {jax.__version__}, {len(devices)} x {devices[0].device_kind}; "
        f"{config.game.name}: {config.selfplay.batch_size} slots x {config.selfplay.num_moves} "
        f"moves, {calls:g} network calls a move, network "
        f"{config.network.channels}ch x {config.network.blocks} ({flops / 1e6:.1f} MFLOP); "
        f"learner {config.learner.updates_per_iteration} x {config.learner.batch_size}"
    )
    for fn in functions.values():  # compile
        _timed(fn)
    times = {name: [] for name in functions}
    positions = {name: [] for name in functions}
    for _ in range(rounds):
        for name, fn in functions.items():
            seconds, metrics = _timed(fn)
            times[name].append(seconds)
            positions[name].append(float(metrics["positions"]))
    print(
        f"{'dtype':<9} {'mode':<10} {'s/call':>7} {'positions/s':>12} {'evals/s':>10} "
        f"{'GFLOP/s':>8} {'vs self-play':>12}"
    )
    rows = []
    for (dtype, mode), spent in times.items():
        seconds = statistics.median(spent)
        row = dict(
            dtype=dtype,
            mode=mode,
            seconds=seconds,
            positions_per_s=statistics.median(positions[(dtype, mode)]) / seconds,
            evaluations_per_s=evaluations / seconds,
            flops_per_s=evaluations * flops / seconds,
            vs_selfplay=statistics.median(
                a / s for a, s in zip(times[(dtype, "self-play")], spent)
            ),
        )
        rows.append(row)
        print(
            f"{dtype:<9} {mode:<10} {seconds:>7.2f} {row['positions_per_s']:>12,.0f} "
            f"{row['evaluations_per_s']:>10,.0f} {row['flops_per_s'] / 1e9:>8.1f} "
            f"{row['vs_selfplay']:>11.2f}x"
        )
    return rows


def main(argv: list[str]) -> None:
    cli.begin(argv)
    run(config=_CONFIG.value, inference_dtypes=tuple(_DTYPES.value), rounds=_ROUNDS.value)


if __name__ == "__main__":
    from alphazero_jax.cli import host_devices  # noqa: F401  (not on import: common.py)

    app.run(main)
