"""A thin orbax wrapper: a pytree of arrays plus a JSON document per checkpoint.

orbax writes each checkpoint into a temporary directory and renames it when complete, so
an interrupted save never leaves a half-written checkpoint behind: the latest complete one
is what ``restore`` finds.
"""

from __future__ import annotations

import os
from typing import Any

import orbax.checkpoint as ocp

_ITEMS = ("state", "metadata", "evaluation")


def make_manager(directory: str, *, max_to_keep: int) -> ocp.CheckpointManager:
    """A synchronous manager for ``directory`` keeping the newest ``max_to_keep`` steps."""
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
    step = manager.latest_step() if step is None else step
    if step is None:
        raise FileNotFoundError(f"No checkpoint in {manager.directory}.")
    restored = manager.restore(
        step,
        args=ocp.args.Composite(
            state=ocp.args.StandardRestore(template), metadata=ocp.args.JsonRestore()
        ),
    )
    return restored.state, restored.metadata


def restore_metadata(manager: ocp.CheckpointManager, step: int | None = None) -> dict:
    """Only the JSON document of ``step`` (default: the latest), without the arrays."""
    step = manager.latest_step() if step is None else step
    restored = manager.restore(step, args=ocp.args.Composite(metadata=ocp.args.JsonRestore()))
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
