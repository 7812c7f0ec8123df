"""What the learning proofs share: their common flags, each defined here once (a proof calls
``define_<flag>()`` at the top of its module, and the flag belongs to that proof: its
``--help`` lists it), and reading the run they judge."""

from __future__ import annotations

from absl import flags

from alphazero_jax.cli import common as cli

flags.disclaim_key_flags()  # the flags defined below belong to the module that asks for them


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
    """``--simulations``: the searches to judge the network with."""
    return flags.DEFINE_list(
        "simulations", ["0", "128"], "Search simulations to evaluate with (0: the run's own)."
    )


def define_games() -> flags.FlagHolder[int]:
    """``--games``: games against each opponent."""
    return flags.DEFINE_integer("games", 200, "Games against each opponent (half as first player).")


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
