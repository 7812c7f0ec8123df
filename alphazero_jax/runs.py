"""A run directory: what training writes there and what everyone else reads from it.

A run is a directory holding ``config.json`` (the config that built it) and
``checkpoints/<iteration>/``: orbax checkpoints with the training state (``state``), a JSON
document (``metadata``) and, with evaluation on, the networks it keeps (``evaluation``).
Training writes it (``training.train``); agents, evaluation and the entry points read it
through ``restore_network``, which needs neither the training code nor the device count
the run was trained with.

orbax writes each checkpoint into a temporary directory and renames it when complete, so
an interrupted save never leaves a half-written checkpoint behind: the latest complete one
is what ``restore`` finds.
"""

from __future__ import annotations

import json
import os
from typing import Any, NamedTuple

import jax
import ml_collections
import orbax.checkpoint as ocp

from alphazero_jax import games, networks
from alphazero_jax.types import Game

CONFIG_FILE = "config.json"
CHECKPOINT_DIR = "checkpoints"

_ITEMS = ("state", "metadata", "evaluation")


def make_manager(directory: str, *, max_to_keep: int | None) -> ocp.CheckpointManager:
    """A synchronous manager for ``directory`` keeping the newest ``max_to_keep`` steps, or
    with ``max_to_keep=None`` a reader's: it keeps every step, creates no directory and
    cleans nothing up, so it may read a run that is still training. (orbax's ``read_only``
    option would do the same but logs a warning on every use.)"""
    if max_to_keep is None:
        options = ocp.CheckpointManagerOptions(create=False, enable_async_checkpointing=False)
        return ocp.CheckpointManager(os.path.abspath(directory), options=options, item_names=_ITEMS)
    if max_to_keep < 1:
        raise ValueError(f"max_to_keep must be >= 1, got {max_to_keep}.")
    options = ocp.CheckpointManagerOptions(
        max_to_keep=max_to_keep, create=True, enable_async_checkpointing=False
    )
    return ocp.CheckpointManager(os.path.abspath(directory), options=options, item_names=_ITEMS)


def save(
    manager: ocp.CheckpointManager,
    step: int,
    state: Any,
    metadata: dict,
    evaluation: Any = None,
) -> None:
    """Saves ``state`` (a pytree of arrays) and ``metadata`` (JSON-able) as ``step``, and
    ``evaluation`` (the evaluator's networks, a pytree of arrays) when given."""
    if step in manager.all_steps():  # saved before an evaluation that changed the metadata
        manager.delete(step)
    items = {"state": ocp.args.StandardSave(state), "metadata": ocp.args.JsonSave(metadata)}
    if evaluation is not None:
        items["evaluation"] = ocp.args.StandardSave(evaluation)
    manager.save(step, args=ocp.args.Composite(**items), force=True)
    manager.wait_until_finished()


def latest_step(manager: ocp.CheckpointManager) -> int | None:
    return manager.latest_step()


def restore(
    manager: ocp.CheckpointManager, template: Any, step: int | None = None
) -> tuple[Any, dict]:
    """Restores ``(state, metadata)`` of ``step`` (default: the latest) into ``template``'s
    structure, dtypes and shardings."""
    restored = manager.restore(
        _existing_step(manager, step),
        args=ocp.args.Composite(
            state=ocp.args.StandardRestore(template), metadata=ocp.args.JsonRestore()
        ),
    )
    return restored.state, restored.metadata


def restore_part(manager: ocp.CheckpointManager, wanted: Any, step: int | None = None) -> Any:
    """Only the part of ``step``'s state (default: the latest) that ``wanted`` names: a
    nested dict of ``jax.ShapeDtypeStruct`` (with shardings) in the state's own structure,
    e.g. ``{"learner": {"variables": ...}}``; the rest stays on disk."""
    restored = manager.restore(
        _existing_step(manager, step),
        args=ocp.args.Composite(
            state=ocp.args.PyTreeRestore(
                item=wanted,
                restore_args=ocp.checkpoint_utils.construct_restore_args(wanted),
                partial_restore=True,
            )
        ),
    )
    return restored.state


def _existing_step(manager: ocp.CheckpointManager, step: int | None) -> int:
    step = manager.latest_step() if step is None else step
    if step is None:
        raise FileNotFoundError(f"No checkpoint in {manager.directory}.")
    return step


def restore_metadata(manager: ocp.CheckpointManager, step: int | None = None) -> dict:
    """Only the JSON document of ``step`` (default: the latest), without the arrays."""
    restored = manager.restore(
        _existing_step(manager, step), args=ocp.args.Composite(metadata=ocp.args.JsonRestore())
    )
    return restored.metadata


def restore_evaluation(manager: ocp.CheckpointManager, template: Any, step: int) -> Any | None:
    """The ``evaluation`` item of ``step`` in ``template``'s structure, or None when that
    checkpoint has none (it was written with evaluation off, or by an older version)."""
    if not os.path.isdir(os.path.join(str(manager.directory), str(step), "evaluation")):
        return None
    restored = manager.restore(
        step, args=ocp.args.Composite(evaluation=ocp.args.StandardRestore(template))
    )
    return restored.evaluation


def read_config(workdir: str) -> ml_collections.ConfigDict:
    """The config a run was trained with, as written to its ``config.json``."""
    path = os.path.join(workdir, CONFIG_FILE)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{workdir} is no training run: it has no {CONFIG_FILE}.")
    with open(path) as file:
        return ml_collections.ConfigDict(json.load(file))


def write_config(workdir: str, config: ml_collections.ConfigDict) -> None:
    """Writes ``config.json`` (atomically: a reader never sees half of it)."""
    path = os.path.join(workdir, CONFIG_FILE)
    with open(path + ".tmp", "w") as file:
        json.dump(config.to_dict(), file, indent=2)
    os.replace(path + ".tmp", path)


def checkpoint_manager(workdir: str, *, max_to_keep: int | None = None) -> ocp.CheckpointManager:
    """The manager of a run's ``checkpoints/``: a reader's unless ``max_to_keep`` is given
    (training's)."""
    return make_manager(os.path.join(workdir, CHECKPOINT_DIR), max_to_keep=max_to_keep)


def checkpoint_steps(workdir: str) -> list[int]:
    """The iterations of a run's complete checkpoints, oldest first."""
    manager = checkpoint_manager(workdir)
    try:
        return sorted(manager.all_steps())
    finally:
        manager.close()


def split_checkpoint_path(path: str) -> tuple[str, int | None]:
    """``(workdir, step)`` of a run directory (step None: newest) or a checkpoint path."""
    path = os.path.normpath(path)
    parent, name = os.path.split(path)
    if name.isdigit() and os.path.basename(parent) == CHECKPOINT_DIR:
        return os.path.dirname(parent), int(name)
    return path, None


class RestoredNetwork(NamedTuple):
    """A run's trained network: its config, game, ``apply_fn`` and variables."""

    config: ml_collections.ConfigDict
    game: Game
    apply_fn: Any
    variables: dict
    iteration: int


def restore_network(workdir: str, step: int | None = None) -> RestoredNetwork:
    """The game, network and trained variables of a run's checkpoint (default: newest).

    Only the network's variables (and the iteration) are read, onto this process's first
    device: the replay memory and optimiser state stay on disk, and the run may have
    been trained on any number and kind of devices.
    """
    config = read_config(workdir)
    game = games.make(config.game.name, **config.game.settings)
    apply_fn, variables = networks.make_network(game, **config.network)
    device = jax.sharding.SingleDeviceSharding(jax.local_devices()[0])
    wanted = {
        "learner": {"variables": variables},
        "iteration": jax.ShapeDtypeStruct((), "int32"),
    }
    wanted = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=device), wanted)
    manager = checkpoint_manager(workdir)
    try:
        restored = restore_part(manager, wanted, step)
    finally:
        manager.close()
    return RestoredNetwork(
        config,
        game,
        apply_fn,
        restored["learner"]["variables"],
        int(restored["iteration"]),
    )
