"""What the perfect-play programs share: their flags (each defined once here, belonging to
the program that asks for it), the sets, judging one agent, and an ``az:`` agent with its
value head."""

from __future__ import annotations

import functools
import time

from absl import flags

from alphazero_jax.cli import common as cli

flags.disclaim_key_flags()  # the flags defined below belong to the program that asks for them

CHECKPOINTS_FILE = "perfect_play_checkpoints.json"
CHECKPOINTS_PLOT = "perfect_play_checkpoints.png"


def define_judging() -> tuple[flags.FlagHolder, ...]:
    """``--sets``, ``--positions``, ``--batch_size``, ``--seed``: which positions, and how an
    agent is run on them."""
    return (
        flags.DEFINE_list("sets", None, "Sets (default: all of benchmark_sets.SETS)."),
        flags.DEFINE_integer("positions", 0, "The first N positions of each set (0: all)."),
        flags.DEFINE_integer("batch_size", 250, "Positions per call of an agent."),
        flags.DEFINE_integer("seed", 0, "Randomness of the agents (ties, search)."),
    )


def define_output(default: str) -> flags.FlagHolder[str]:
    """``--output``: where a program's tables and figures go."""
    return flags.DEFINE_string("output", default, "Where the tables and figures go.")


def labels(sets: list[str] | None, positions: int):
    """The labels of ``sets`` (all when None), each cut to its first ``positions`` (0: all);
    ends the program in one line naming an unknown set."""
    from alphazero_jax.evaluation import perfect_play
    from alphazero_jax.solvers import benchmark_sets

    known = list(benchmark_sets.SETS)
    names = sets or known
    unknown = [name for name in names if name not in known]
    if unknown:
        cli.fail(f"--sets: unknown {unknown}; expected some of {known}.")
    chosen = [perfect_play.load_labels(name) for name in names]
    return [one.take(positions) for one in chosen] if positions else chosen


def judge(game, agent, labels, value_fn, *, seed: int, batch_size: int):
    """``perfect_play.benchmark`` of ``agent``, each set's line printed as it is judged."""
    import jax

    from alphazero_jax.evaluation import perfect_play

    started = time.perf_counter()
    results = perfect_play.benchmark(
        game, agent, labels, key=jax.random.key(seed), value_fn=value_fn, batch_size=batch_size
    )
    seconds = time.perf_counter() - started
    for result in results:
        low, high = result.interval()
        value = (
            "" if result.value_accuracy is None else f", value W/D/L {result.value_accuracy:.1%}"
        )
        print(
            f"  {result.title:<14} {result.mistakes:>4}/{result.positions:<4} mistakes "
            f"{result.mistake_rate:6.1%} [{low:.1%}, {high:.1%}]{value}"
        )
    print(f"  ({seconds:.1f} s)", flush=True)
    return results


def agent_of(game, spec: str):
    """The agent of ``spec`` and, for an ``az:`` network, its value function (else None)."""
    from alphazero_jax import agents
    from alphazero_jax.evaluation import perfect_play

    if not spec.strip().startswith("az:"):
        return agents.from_spec(game, spec), None
    path, simulations = agents.parse_az(spec)
    agent, run = agents.restore_az(game, path, num_simulations=simulations)
    value_fn = functools.partial(perfect_play.make_value_fn(game, run.apply_fn), run.variables)
    return agent, value_fn
