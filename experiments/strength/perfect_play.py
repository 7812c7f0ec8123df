r"""Connect Four agents against perfect play: mistake rates on the perfect-play sets.

    python -m experiments.strength.perfect_play \
        --agents=random,greedy,minimax:4,az:runs/connect_four
    python -m experiments.strength.perfect_play --run=runs/connect_four  # every checkpoint
    python -m experiments.strength.perfect_play --compare=puct=runs/a,gumbel=runs/b \
        --output=runs/cmp

The sets are ``solvers.benchmark_sets.SETS``, all seven by default: Pascal Pons' six and
Random-Play. A move is a mistake when another legal move has a strictly better
game-theoretic outcome (win > draw > loss); the labels are our solver's, shipped with the
package (``alphazero_jax/evaluation/perfect_play.py``). For each agent and set it prints
the mistake rate with its 95% Wilson interval, and for ``az:`` agents the value head's win/draw/loss
accuracy; the table goes to ``--output`` as Markdown and JSON.

``--run`` judges each saved checkpoint of a run (its search, or ``--simulations``) and
writes ``perfect_play_checkpoints.json`` and ``perfect_play_checkpoints.png`` into the run
directory and the curves into its TensorBoard (``perfect_play_checkpoints/<set>/...``);
each record also holds the run's training time at that checkpoint (``seconds``).

``--compare`` reads runs already judged by ``--run`` (``label=workdir`` or a workdir,
labelled by its name) and draws their mistake rates against training time on one figure,
a panel per set (``--output``/``mistake_curves.png``), with a Markdown table of each run's
rates at every checkpoint (``mistake_curves.md``): the curves training settings are
compared on (runs made on the same machine under the same load).
"""

from __future__ import annotations

import json
import os
import time

from absl import app, flags

from alphazero_jax.cli import (
    compilation_cache,
    host_devices,  # noqa: F401  (first: before JAX starts)
)

# isort: split
from alphazero_jax import agents

_AGENTS = flags.DEFINE_list(
    "agents", ["random", "greedy", "minimax:4"], f"Agents to judge. {agents.spec_help()}"
)
_RUN = flags.DEFINE_string("run", None, "Judge every saved checkpoint of this run instead.")
_COMPARE = flags.DEFINE_list("compare", None, "Judged runs to draw together: [label=]workdir.")
_SIMULATIONS = flags.DEFINE_integer("simulations", -1, "--run: simulations (-1: the run's).")
_SETS = flags.DEFINE_list("sets", None, "Sets (default: all of benchmark_sets.SETS).")
_POSITIONS = flags.DEFINE_integer("positions", 0, "The first N positions of each set (0: all).")
_BATCH = flags.DEFINE_integer("batch_size", 250, "Positions per call of an agent.")
_SEED = flags.DEFINE_integer("seed", 0, "Randomness of the agents (ties, search).")
_OUTPUT = flags.DEFINE_string(
    "output", "runs/benchmark_c4", "Where tables and figures go (agents and compare modes)."
)

CHECKPOINTS_FILE = "perfect_play_checkpoints.json"
CHECKPOINTS_PLOT = "perfect_play_checkpoints.png"
CURVES_PLOT, CURVES_TABLE = "mistake_curves.png", "mistake_curves.md"


def _labels():
    from alphazero_jax.evaluation import perfect_play
    from alphazero_jax.solvers import benchmark_sets

    known = list(benchmark_sets.SETS)
    names = _SETS.value or known
    unknown = [name for name in names if name not in known]
    if unknown:
        raise app.UsageError(f"--sets: unknown {unknown}; expected some of {known}.")
    labels = [perfect_play.load_labels(name) for name in names]
    return (
        [set_labels.take(_POSITIONS.value) for set_labels in labels] if _POSITIONS.value else labels
    )


def _judge(game, agent, labels, value_fn):
    import jax

    from alphazero_jax.evaluation import perfect_play

    started = time.perf_counter()
    results = perfect_play.benchmark(
        game,
        agent,
        labels,
        key=jax.random.key(_SEED.value),
        value_fn=value_fn,
        batch_size=_BATCH.value,
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


def _agent(game, spec: str):
    """The agent of ``spec`` and, for an ``az:`` network, its value function (else None)."""
    import functools

    from alphazero_jax import agents
    from alphazero_jax.evaluation import perfect_play

    if not spec.strip().startswith("az:"):
        return agents.from_spec(game, spec), None
    path, simulations = agents.parse_az(spec)
    agent, run = agents.restore_az(game, path, num_simulations=simulations)
    value_fn = functools.partial(perfect_play.make_value_fn(game, run.apply_fn), run.variables)
    return agent, value_fn


def _agents_mode() -> None:
    from alphazero_jax import games
    from alphazero_jax.evaluation import perfect_play

    game = games.make("connect_four")
    labels = _labels()
    rows, records = {}, {}
    for spec in _AGENTS.value:
        agent, value_fn = _agent(game, spec)
        print(f"{agent.name}:", flush=True)
        results = _judge(game, agent, labels, value_fn)
        rows[agent.name] = results
        records[agent.name] = [r.as_dict() for r in results]
    table = perfect_play.results_table(rows)
    print("\nMistake rate against perfect play [95% interval]\n\n" + table)
    os.makedirs(_OUTPUT.value, exist_ok=True)
    with open(os.path.join(_OUTPUT.value, "mistakes.md"), "w") as file:
        file.write(table + "\n")
    with open(os.path.join(_OUTPUT.value, "mistakes.json"), "w") as file:
        json.dump(records, file, indent=1)
    print(f"\nWrote {_OUTPUT.value}/mistakes.md and mistakes.json")


def _run_mode(workdir: str) -> None:
    from tensorboardX import SummaryWriter

    from alphazero_jax import checkpoints, games, runs
    from alphazero_jax.training import plots
    from alphazero_jax.training.run_logging import TENSORBOARD_DIR

    steps = runs.checkpoint_steps(workdir)
    if not steps:
        raise app.UsageError(f"--run={workdir}: no checkpoints in {workdir}/checkpoints.")
    game = games.make("connect_four")
    labels = _labels()
    simulations = "" if _SIMULATIONS.value < 0 else f":{_SIMULATIONS.value}"
    records = []
    writer = SummaryWriter(os.path.join(workdir, TENSORBOARD_DIR))
    manager = runs.checkpoint_manager(workdir)
    for step in steps:
        checkpoint = os.path.join(workdir, runs.CHECKPOINT_DIR, str(step))
        agent, value_fn = _agent(game, f"az:{checkpoint}{simulations}")
        print(f"checkpoint {step} ({agent.name}):", flush=True)
        results = _judge(game, agent, labels, value_fn)
        record = {"iteration": step, "perfect_play": {r.set_name: r.as_dict() for r in results}}
        seconds = checkpoints.restore_metadata(manager, step).get("seconds")
        records.append(record if seconds is None else dict(record, seconds=seconds))
        for result in results:
            tag = f"perfect_play_checkpoints/{result.title}"
            writer.add_scalar(f"{tag}/mistake_rate", result.mistake_rate, step)
            writer.add_scalar(f"{tag}/value_accuracy", result.value_accuracy, step)
    writer.close()
    manager.close()
    path = os.path.join(workdir, CHECKPOINTS_FILE)
    with open(path + ".tmp", "w") as file:
        json.dump(records, file, indent=1)
    os.replace(path + ".tmp", path)
    plots.plot_mistake_rates(
        records, os.path.join(workdir, CHECKPOINTS_PLOT), title=f"{workdir}: mistakes by checkpoint"
    )
    print(f"Wrote {path} and {os.path.join(workdir, CHECKPOINTS_PLOT)}")


def _compare_mode(specs: list[str]) -> None:
    from alphazero_jax.training import plots

    curves = {}
    for spec in specs:
        label, _, workdir = spec.rpartition("=")
        path = os.path.join(workdir, CHECKPOINTS_FILE)
        if not os.path.exists(path):
            raise app.UsageError(
                f"--compare: {path} does not exist; judge the run first with --run={workdir}."
            )
        with open(path) as file:
            curves[label or os.path.basename(os.path.normpath(workdir))] = json.load(file)
    os.makedirs(_OUTPUT.value, exist_ok=True)
    figure_path = os.path.join(_OUTPUT.value, CURVES_PLOT)
    plots.plot_mistake_curves(curves, figure_path)
    table = _curves_table(curves)
    with open(os.path.join(_OUTPUT.value, CURVES_TABLE), "w") as file:
        file.write(table + "\n")
    print(table + f"\n\nWrote {figure_path} and {CURVES_TABLE} beside it")


def _curves_table(curves: dict[str, list[dict]]) -> str:
    """Markdown: a row per run and checkpoint, its minutes of training and mistake rates."""
    titles = {  # set name -> title, in the order the sets first appear
        n: r["perfect_play"][n]["title"]
        for rs in curves.values()
        for r in rs
        for n in r["perfect_play"]
    }
    sets = list(titles)
    lines = [
        "| run | iteration | minutes | " + " | ".join(titles[n] for n in sets) + " |",
        "| --- | ---: | ---: | " + " | ".join("---:" for _ in sets) + " |",
    ]
    for label, records in curves.items():
        for record in sorted(records, key=lambda r: r["iteration"]):
            minutes = f"{record['seconds'] / 60:.1f}" if "seconds" in record else "?"
            rates = [
                f"{record['perfect_play'][n]['mistake_rate']:.1%}"
                if n in record["perfect_play"]
                else ""
                for n in sets
            ]
            lines.append(
                f"| {label} | {record['iteration']} | {minutes} | " + " | ".join(rates) + " |"
            )
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    if _RUN.value and _COMPARE.value:
        raise app.UsageError("--run and --compare: expected one of them, got both.")
    compilation_cache.setup()
    if _RUN.value:
        _run_mode(_RUN.value)
    elif _COMPARE.value:
        _compare_mode(_COMPARE.value)
    else:
        _agents_mode()


if __name__ == "__main__":
    app.run(main)
