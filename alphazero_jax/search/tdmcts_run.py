"""The TD-MCTS run format: a run directory (``runs``) whose state is a value table.

A TD-MCTS run (``training.tdmcts`` writes it, the ``tdmcts:<simulations>:<run>`` agent
reads it) is a run directory whose ``config.json`` says ``algorithm: tdmcts`` (with the
game's name, the search's settings and the table's ``capacity``) and whose checkpoints, one
per tournament, are named by the episodes played: state ``tdmcts_state(table, episodes)``,
metadata ``{"history": [one record per tournament]}``.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import ml_collections

from alphazero_jax import checkpoints, runs

TDMCTS_ALGORITHM = "tdmcts"


def tdmcts_state(table: Any, episodes: int) -> dict[str, Any]:
    """The checkpointed state of a TD-MCTS run: its value table (``td_table.ValueTable``,
    or a template of one) and the episodes played."""
    return {"table": table, "episodes": jnp.int32(episodes)}


def read_tdmcts_config(workdir: str) -> ml_collections.ConfigDict:
    """A TD-MCTS run's config; ValueError for another kind of run."""
    config = runs.read_config(workdir)
    if config.get("algorithm") != TDMCTS_ALGORITHM:
        raise ValueError(
            f"{workdir} is not a TD-MCTS run: expected algorithm {TDMCTS_ALGORITHM!r} in its "
            f"{runs.CONFIG_FILE}, got {config.get('algorithm')!r}."
        )
    return config


def restore_tdmcts_table(workdir: str, empty_table: Any) -> Any:
    """The newest table of the TD-MCTS run ``workdir``, read into ``empty_table`` (an empty
    ``td_table.ValueTable`` of the run's ``capacity``)."""
    manager = runs.checkpoint_manager(workdir)
    try:
        state, _ = checkpoints.restore(manager, tdmcts_state(empty_table, 0))
    finally:
        manager.close()
    return state["table"]
