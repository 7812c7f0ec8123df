r"""Chooses a network's play-time search setting on held-out positions, then judges it.

    python -m experiments.strength.perfect_play.play_settings \
        --agent=az:pretrained --vary=play_c_puct:0.5,1,1.5,2,3.5,5 [--sets=Test_L2_R2]

Self-play explores; play should not have to. This program plays one network at its own
simulations (or those of the ``az:`` spec) with one ``config.search`` key set to each of
``--vary``'s values, and counts its mistakes against perfect play on validation positions
that no shipped set holds: the Random-Play rule (``experiments/data/random_play_set.py``)
with another seed (``--validation_seed``, not Random-Play's 0), every board of a shipped
set dropped, each position's moves labelled by our solver. Only positions where a mistake
is possible count (a won position with a move that does not win, or a drawn one with a
losing move). The labels go to ``--output/validation_seed<seed>.labels``, one line at a
time, so a second run (or one resumed after an interruption) reuses them: 2,500 took 11
minutes of a shared core.

For each value it prints the mistake rate with its 95% Wilson interval and, against the
network's own setting, the positions it fixed and broke with the two-sided exact
(McNemar) p-value of that split. ``--sets`` then judges each value on those shipped sets
too; choose on the validation positions, not on the sets that the result is reported on.
The table goes to ``--output/play_settings.md``.
"""

from __future__ import annotations

import pathlib

from absl import flags

if __name__ == "__main__":
    from alphazero_jax.cli import host_devices  # noqa: F401  (first: before JAX starts)

from alphazero_jax.cli import common as cli
from alphazero_jax.cli.judge import _common as common

_AGENT = flags.DEFINE_string("agent", "az:pretrained", "The network: an az: agent spec.")
_VARY = flags.DEFINE_string(
    "vary",
    "play_c_puct:0.5,1,1.5,2,3.5,5",
    "<config.search key>:<value>,<value>,...: the settings to try, each beside the network's own.",
)
_VALIDATION_SEED = flags.DEFINE_integer(
    "validation_seed", 1, "numpy seed of the validation positions (0 is Random-Play's)."
)
_VALIDATION_POSITIONS = flags.DEFINE_integer(
    "validation_positions",
    2500,
    "Validation positions drawn (before keeping those where a mistake is possible: about half).",
)
_SETS, _POSITIONS, _BATCH, _SEED = common.define_judging()
_OUTPUT = common.define_output("runs/play_settings")


def parse_vary(text: str, search_settings: dict) -> tuple[str, list]:
    """``(key, values)`` of ``--vary``, each value of the type of the network's own setting;
    ends the program in one line on a key that ``config.search`` lacks, on a bad value, and on
    a key that a play-time override of the network replaces (``c_puct`` where ``play_c_puct``
    is set: every row would play alike)."""
    key, _, values = text.partition(":")
    if key not in search_settings or not values:
        cli.fail(
            f"--vary: expected <config.search key>:<value>,..., with a key among "
            f"{sorted(search_settings)}; got {text!r}."
        )
    return key, cli.search_values(key, values.split(","), search_settings, "--vary")


def paired_table(wrong: dict[str, list], names: list[str]) -> str:
    """A Markdown table: a row per setting (``wrong``'s first is the network's own), a
    column per set of ``names``; each cell the mistake rate of bool[N] ``wrong[label][set]``
    with its 95% interval and, beside the own setting's, the positions fixed and broken
    with their exact McNemar p."""
    from alphazero_jax.evaluation import perfect_play
    from alphazero_jax.evaluation.elo import wilson_interval

    base = next(iter(wrong.values()))
    lines = ["| setting | " + " | ".join(names) + " |", "| --- |" + " ---: |" * len(names)]
    for label, rows in wrong.items():
        cells = []
        for number, row in enumerate(rows):
            low, high = wilson_interval(row.mean(), len(row))
            cell = f"{row.mean():.1%} [{low:.1%}, {high:.1%}]"
            if row is not base[number]:
                fixed = int((base[number] & ~row).sum())
                broke = int((~base[number] & row).sum())
                cell += f", +{fixed}/-{broke} p={perfect_play.mcnemar_p(fixed, broke):.2g}"
            cells.append(cell)
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    import jax
    import numpy as np

    from alphazero_jax import agents, games
    from alphazero_jax.configs import settings
    from alphazero_jax.evaluation import perfect_play
    from alphazero_jax.solvers import benchmark_sets
    from experiments.data import positions

    cli.begin(argv)
    reported = common.labels(_SETS.value, _POSITIONS.value) if _SETS.value else []
    game = games.make("connect_four")
    try:
        path, simulations = agents.parse_az(_AGENT.value)
        run = agents.restore_az(game, path, num_simulations=simulations)[1]
    except (ValueError, FileNotFoundError) as error:
        cli.fail(error)
    own = settings.complete(run.config).search.to_dict()  # keys added since it was trained
    simulations = simulations or int(own["num_simulations"])
    key, values = parse_vary(_VARY.value, own)
    output = pathlib.Path(_OUTPUT.value)
    try:  # seed 0, or a labels file of other positions: one line, not a traceback
        validation = positions.validation_labels(
            output / f"validation_seed{_VALIDATION_SEED.value}.labels",
            seed=_VALIDATION_SEED.value,
            count=_VALIDATION_POSITIONS.value,
        )
    except ValueError as error:
        cli.fail(f"--validation_seed={_VALIDATION_SEED.value}: {error}")
    sets = [validation, *reported]
    states = [perfect_play.states_of(game, one) for one in sets]  # once, for every setting
    print(
        f"{len(validation.moves)} validation positions where a mistake is possible; "
        f"{_AGENT.value} at {simulations} simulations, {key} = {own[key]} (its own) "
        f"against {values}",
        flush=True,
    )
    wrong: dict[str, list[np.ndarray]] = {}
    for value in [own[key], *[v for v in values if v != own[key]]]:
        search = dict(own, **{key: value})
        act = jax.jit(
            agents.make_network_act_fn(game, run.apply_fn, search, num_simulations=simulations)
        )
        label = f"{key}={value}" + (" (own)" if value == own[key] else "")
        wrong[label] = []
        for number, one in enumerate(sets):
            actions = perfect_play.agent_moves(
                act,
                run.variables,
                states[number],
                key=jax.random.fold_in(jax.random.key(_SEED.value), number),
                batch_size=_BATCH.value,
            )
            wrong[label].append(perfect_play.mistakes(one, actions))
        print(f"  {label}: validation {wrong[label][0].mean():.2%}", flush=True)
    names = ["validation", *(benchmark_sets.SETS[one.set_name] for one in sets[1:])]
    table = paired_table(wrong, names)
    print(
        f"\nMistakes of {_AGENT.value} at {simulations} simulations [95% interval]; "
        "+fixed/-broken positions against its own setting, exact McNemar p\n\n" + table
    )
    (output / "play_settings.md").write_text(table + "\n")
    print(f"\nWrote {output}/play_settings.md")


if __name__ == "__main__":
    cli.run(main, __name__)
