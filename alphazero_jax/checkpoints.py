"""Crash-safe orbax checkpoints: saving a step, reading the newest good one.

A manager's directory holds one orbax checkpoint per step, each with the items ``state`` (a
pytree of arrays), ``metadata`` (a JSON document) and, optionally, ``evaluation`` (more
arrays). Nothing here knows what the arrays mean; a run format (``runs``) names them.

Nothing a crash can do loses a checkpoint:

- orbax writes each checkpoint into a temporary directory and renames it when complete, so
  an interrupted save leaves no half-written step (a writer's manager removes the
  temporary directory when it next opens the directory);
- a step saved again (its metadata changed) is written beside the old one and the two are
  swapped in one atomic rename, so one of them is always in place;
- each checkpoint records a CRC-32 of every array, checked when it is read: a truncated or
  corrupted newest step is named in one line and the newest good one is read instead;
  training also moves the bad one aside to ``bad_checkpoints/`` (kept, not deleted).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import sys
import zlib
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import orbax.checkpoint as ocp

BAD_CHECKPOINT_DIR = "bad_checkpoints"  # beside a manager's directory: steps that failed to read

_ITEMS = ("state", "metadata", "evaluation")
_REPLACING = ".replacing"  # inside a manager's directory: a step being saved again


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
    _finish_replacing(os.path.abspath(directory))
    options = ocp.CheckpointManagerOptions(
        max_to_keep=max_to_keep,
        create=True,
        enable_async_checkpointing=False,
        cleanup_tmp_directories=True,  # what a killed save left behind
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
    ``evaluation`` (the evaluator's networks, a pytree of arrays) when given, with a CRC-32
    of each array in the metadata. A step saved before is replaced atomically."""
    metadata = dict(metadata, checksums=_checksums({"state": state, "evaluation": evaluation}))
    items = {"state": ocp.args.StandardSave(state), "metadata": ocp.args.JsonSave(metadata)}
    if evaluation is not None:
        items["evaluation"] = ocp.args.StandardSave(evaluation)
    args = ocp.args.Composite(**items)
    if step not in manager.all_steps():
        manager.save(step, args=args, force=True)
        manager.wait_until_finished()
        return
    # Saved before an evaluation that changed the metadata: write the new version beside
    # the old one, then swap them.
    directory = os.fspath(manager.directory)
    staging = os.path.join(directory, _REPLACING)
    shutil.rmtree(staging, ignore_errors=True)
    with contextlib.closing(make_manager(staging, max_to_keep=1)) as stage:
        stage.save(step, args=args, force=True)
        stage.wait_until_finished()
    _swap(os.path.join(staging, str(step)), os.path.join(directory, str(step)))
    shutil.rmtree(staging)


def _swap(new: str, old: str) -> None:
    """Puts directory ``new`` at ``old``'s path and ``old`` at ``new``'s: in one atomic
    ``renameat2(RENAME_EXCHANGE)`` where the system has it (Linux), else in two renames
    that ``_finish_replacing`` completes if a crash falls between them."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        exchange = libc.renameat2
    except (OSError, AttributeError):
        exchange = None
    if exchange is not None:
        at_cwd, rename_exchange = -100, 2
        if exchange(at_cwd, os.fsencode(new), at_cwd, os.fsencode(old), rename_exchange) == 0:
            return
    os.rename(old, new + ".old")
    os.rename(new, old)
    os.rename(new + ".old", new)


def _finish_replacing(directory: str) -> None:
    """After a crash inside ``save``'s replacement: a step missing from ``directory`` is
    put back from the staging directory (the new version if complete, else the old)."""
    staging = os.path.join(directory, _REPLACING)
    if not os.path.isdir(staging):
        return
    names = sorted(os.listdir(staging), key=lambda name: name.endswith(".old"))
    for name in names:  # complete new versions first, then the old ones
        step = name.removesuffix(".old")
        if step.isdigit() and not os.path.exists(os.path.join(directory, step)):
            os.rename(os.path.join(staging, name), os.path.join(directory, step))
    shutil.rmtree(staging)


def latest_step(manager: ocp.CheckpointManager) -> int | None:
    return manager.latest_step()


def restore(
    manager: ocp.CheckpointManager,
    template: Any,
    step: int | None = None,
    *,
    set_aside: bool = False,
) -> tuple[Any, dict]:
    """Restores ``(state, metadata)`` of ``step`` into ``template``'s structure, dtypes and
    shardings. Without ``step``: the newest checkpoint that reads and matches its
    checksums, each newer one named in a line on stderr (and with ``set_aside``, training's
    choice, moved to ``bad_checkpoints/``)."""
    _, (state, metadata, _) = restore_checkpoint(manager, template, step=step, set_aside=set_aside)
    return state, metadata


def restore_checkpoint(
    manager: ocp.CheckpointManager,
    template: Any,
    evaluation_template: Any = None,
    *,
    step: int | None = None,
    set_aside: bool = False,
) -> tuple[int, tuple[Any, dict, Any]]:
    """``(step, (state, metadata, evaluation))`` as ``restore`` finds them; ``evaluation``
    is read into ``evaluation_template`` when given and the checkpoint has one, else None."""

    def read(step: int):
        has_evaluation = evaluation_template is not None and os.path.isdir(
            os.path.join(os.fspath(manager.directory), str(step), "evaluation")
        )
        items = {"state": ocp.args.StandardRestore(template), "metadata": ocp.args.JsonRestore()}
        if has_evaluation:
            items["evaluation"] = ocp.args.StandardRestore(evaluation_template)
        restored = manager.restore(step, args=ocp.args.Composite(**items))
        evaluation = restored.evaluation if has_evaluation else None
        _verify(restored.metadata, {"state": restored.state, "evaluation": evaluation})
        return restored.state, restored.metadata, evaluation

    return _read_newest(manager, read, step, set_aside=set_aside)


def restore_part(manager: ocp.CheckpointManager, wanted: Any, step: int | None = None) -> Any:
    """Only the part of ``step``'s state (default: the newest good one) that ``wanted``
    names: a nested dict of ``jax.ShapeDtypeStruct`` (with shardings) in the state's own
    structure, e.g. ``{"learner": {"variables": ...}}``; the rest stays on disk."""

    def read(step: int):
        restored = manager.restore(
            step,
            args=ocp.args.Composite(
                state=ocp.args.PyTreeRestore(
                    item=wanted,
                    restore_args=ocp.checkpoint_utils.construct_restore_args(wanted),
                    partial_restore=True,
                ),
                metadata=ocp.args.JsonRestore(),
            ),
        )
        _verify(restored.metadata, {"state": restored.state})
        return restored.state

    return _read_newest(manager, read, step)[1]


class CorruptCheckpointError(ValueError):
    """A checkpoint that cannot be read, or whose arrays do not match their checksums."""


def _read_newest(
    manager: ocp.CheckpointManager,
    read: Callable[[int], Any],
    step: int | None,
    *,
    set_aside: bool = False,
) -> tuple[int, Any]:
    """``(step, read(step))`` for ``step``, or without one for the newest step that reads.

    Steps newer than the one read are reported, and moved aside with ``set_aside``. If
    no step reads, nothing is moved (the cause is likely not the files, e.g. a template
    of another shape) and the newest step's error is raised.
    """
    steps = sorted(manager.all_steps(), reverse=True) if step is None else [step]
    if not steps:
        raise FileNotFoundError(f"No checkpoint in {manager.directory}.")
    failed = []
    for candidate in steps:
        try:
            value = read(candidate)
        except Exception as error:  # orbax and tensorstore raise many kinds
            failed.append((candidate, error))
            continue
        for bad, error in failed:
            where = _move_aside(manager, bad) if set_aside else None
            print(
                f"warning: checkpoint {os.path.join(os.fspath(manager.directory), str(bad))} "
                f"is unreadable ({_brief(error)}); "
                + (f"moved to {where}; " if where else "")
                + f"using step {candidate} instead.",
                file=sys.stderr,
                flush=True,
            )
        if failed and set_aside:
            manager.reload()
        return candidate, value
    bad, error = failed[0]
    path = os.path.join(os.fspath(manager.directory), str(bad))
    raise CorruptCheckpointError(
        f"checkpoint {path} cannot be read: {_brief(error)}"
        + (f" (nor can the {len(failed) - 1} older ones)" if len(failed) > 1 else "")
    ) from error


def _brief(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = lines[0] if lines else ""
    text = text if len(text) <= 200 else text[:197] + "..."
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _move_aside(manager: ocp.CheckpointManager, step: int) -> str:
    """Moves ``step``'s directory to ``bad_checkpoints/`` beside the manager's directory."""
    directory = os.fspath(manager.directory)
    aside = os.path.join(os.path.dirname(directory), BAD_CHECKPOINT_DIR)
    os.makedirs(aside, exist_ok=True)
    target, copy = os.path.join(aside, str(step)), 1
    while os.path.exists(target):
        target, copy = os.path.join(aside, f"{step}-{copy}"), copy + 1
    os.rename(os.path.join(directory, str(step)), target)
    return target


def _checksums(tree: Any) -> dict[str, str]:
    """A CRC-32 of each array of ``tree`` whose whole value this process holds, by path."""
    sums = {}
    for path, leaf in jax.tree_util.tree_flatten_with_path(tree)[0]:
        value = _whole_value(leaf)
        if value is not None:
            sums[_path_name(path)] = f"{zlib.crc32(value.tobytes()):08x}"
    return sums


def _verify(metadata: dict, tree: Any) -> None:
    """Raises if an array of ``tree`` differs from the checksum saved for it (checkpoints
    of older versions have none: nothing to check)."""
    saved = metadata.get("checksums", {})
    for name, computed in _checksums(tree).items():
        if name in saved and saved[name] != computed:
            raise CorruptCheckpointError(
                f"array {name} does not match its checksum (saved {saved[name]}, read {computed})"
            )


def _whole_value(leaf: Any) -> np.ndarray | None:
    if isinstance(leaf, jax.Array):
        if leaf.is_fully_addressable:
            return np.asarray(leaf)
        if leaf.sharding.is_fully_replicated:  # several processes: each holds all of it
            return np.asarray(leaf.addressable_data(0))
        return None
    return np.asarray(leaf) if isinstance(leaf, np.ndarray | np.generic) else None


def _path_name(path) -> str:
    """``learner/variables/params/...``: the same for a NamedTuple's fields and a dict's
    keys, as orbax stores both."""
    parts = []
    for key in path:
        if isinstance(key, jax.tree_util.GetAttrKey):
            parts.append(key.name)
        elif isinstance(key, jax.tree_util.DictKey):
            parts.append(str(key.key))
        elif isinstance(key, jax.tree_util.SequenceKey):
            parts.append(str(key.idx))
        else:
            parts.append(str(key))
    return "/".join(parts)


def restore_metadata(manager: ocp.CheckpointManager, step: int | None = None) -> dict:
    """Only the JSON document of ``step`` (default: the newest that reads), without the
    arrays."""

    def read(step: int):
        return manager.restore(
            step, args=ocp.args.Composite(metadata=ocp.args.JsonRestore())
        ).metadata

    return _read_newest(manager, read, step)[1]
