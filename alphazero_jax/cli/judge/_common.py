"""What the judgments share: their common flags, each defined here once (a judgment calls
``define_<flag>()`` at the top of its module, and the flag belongs to that judgment: its
``--help`` lists it), reading the run they judge, and judging an agent on the perfect-play
sets."""

from __future__ import annotations

import time

from absl import flags

from alphazero_jax.cli import common as cli

flags.disclaim_key_flags()  # the flags defined below belong to the module that asks for them


# The learning proofs' flags.


def define_workdir() -> flags.FlagHolder[str]:
    """``--workdir``: the run, one of its checkpoints, or an exported agent's folder
    (required)."""
    return flags.DEFINE_string(
        "workdir",
        None,
        "Run directory, one of its checkpoints (<run>/checkpoints/<iteration>), or the "
        "folder of an exported agent (its agent.json), e.g. "
        "alphazero_jax/data/agents/othello-size8-legal_plane1.",
        required=True,
    )


def define_simulations() -> flags.FlagHolder[list[str]]:
    """``--simulations``: the searches to judge the network with, in turn (read them with
    ``simulations``)."""
    return flags.DEFINE_list(
        "simulations",
        ["-1", "128"],
        f"A list, judged in turn. {cli.SIMULATIONS_HELP} {cli.OLD_ZERO_HELP}",
    )


def simulations(texts: list[str]) -> list[int]:
    """The counts ``--simulations`` lists (``common.read_old_zero``'s); ends the program in one
    line on one that is not an integer >= -1."""
    try:
        counts = [int(text) for text in texts]
    except ValueError:
        counts = []
    if not counts or min(counts) < -1:
        cli.fail(f"--simulations: expected integers >= -1 such as -1,128; got {','.join(texts)!r}.")
    return cli.read_old_zero(counts)


def define_games() -> flags.FlagHolder[int]:
    """``--games``: games against each opponent."""
    return flags.DEFINE_integer("games", 200, "Games against each opponent (half as first player).")


def define_search() -> flags.FlagHolder[list[str]]:
    """``--search``: ``config.search`` settings to play with in place of the run's own
    (read it with ``common.with_search``)."""
    return flags.DEFINE_list(
        "search",
        [],
        "KEY=VALUE,...: config.search settings to play with in place of the run's own, e.g. "
        "play_value_scale=0.2: a play-time setting judged on the same games as the run's.",
    )


# The perfect-play judgments' flags.


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


# The run a learning proof judges.


def is_snapshot(workdir: str) -> bool:
    """Whether ``--workdir`` names one fixed network (an exported agent's folder or
    ``<run>/checkpoints/<iteration>``) rather than a run, which a proof may train."""
    import pathlib

    from alphazero_jax import runs
    from alphazero_jax.agents import pretrained

    if (pathlib.Path(workdir) / pretrained.AGENT_FILE).is_file():
        return True
    return runs.split_checkpoint_path(workdir)[1] is not None


def restore(workdir: str, game: str | None = None):
    """``pretrained.restore(workdir)``: a run, one of its checkpoints or an exported agent's
    folder; ends the program in one line if it cannot be read, or is not of ``game`` (a
    name, or any game for None)."""
    from alphazero_jax.agents import pretrained

    try:
        run = pretrained.restore(workdir)
    except (FileNotFoundError, ValueError) as error:
        cli.fail(error)
    if game is not None and run.game.name != game:
        cli.fail(f"--workdir={workdir}: expected a {game} run, got one of {run.game.name}.")
    return run


# Agents on the perfect-play sets.


def labels(sets: list[str] | None, positions: int):
    """``perfect_play.choose_labels``; ends the program in one line naming an unknown set."""
    from alphazero_jax.evaluation import perfect_play

    try:
        return perfect_play.choose_labels(sets, positions)
    except ValueError as error:
        cli.fail(f"--sets: {error}")


def agent_of(game, spec: str):
    """``perfect_play.agent_of``; ends the program in one line on a bad spec or a run that
    cannot be read."""
    from alphazero_jax.evaluation import perfect_play

    try:
        return perfect_play.agent_of(game, spec)
    except (ValueError, FileNotFoundError) as error:
        cli.fail(error)


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
