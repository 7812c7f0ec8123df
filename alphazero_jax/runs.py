"""A run directory: what training writes there and what everyone else reads from it.

A run is a directory holding ``config.json`` (the config that built it) and
``checkpoints/<iteration>/``: crash-safe checkpoints (``checkpoints``) with the training
state (``state``), a JSON document (``metadata``: the history, the training time, the
machines that trained it) and, with evaluation on, the networks it keeps (``evaluation``).
Training writes it (``training.train``); agents, evaluation and the entry points read it
through ``restore_network``, which needs neither the training code nor the device count
the run was trained with. A TD-MCTS run is the same directory with another state
(``search.tdmcts_run``).
"""

from __future__ import annotations

import importlib
import json
import os
import platform
from typing import Any, NamedTuple

import jax
import ml_collections
import orbax.checkpoint as ocp

from alphazero_jax import checkpoints, games, networks
from alphazero_jax.checkpoints import CorruptCheckpointError as CorruptCheckpointError
from alphazero_jax.types import Game

CONFIG_FILE = "config.json"
CHECKPOINT_DIR = "checkpoints"


def describe_machine() -> str:
    """This machine in a few words: its processor, CPU cores and JAX's devices, e.g.
    ``Intel(R) Xeon(R) Processor, 2 cores, 2 x cpu (cpu)``."""
    devices = jax.devices()
    return (
        f"{_processor()}, {os.cpu_count()} cores, "
        f"{len(devices)} x {devices[0].device_kind} ({jax.default_backend()})"
    )


def _processor() -> str:
    """The processor's model name where Linux says it, else its architecture."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def import_modules(names) -> None:
    """Imports each module of ``names``: those that register a run's plug-ins (its
    ``config.imports``), so that its network, search policy and loss terms can be rebuilt.

    Raises:
      ValueError: ``names`` not a list of module names, or a module that cannot be
        imported, in one line.
    """
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"expected a list of module names, got {names!r:.80}.")
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as error:
            raise ValueError(
                f"cannot import {name!r}, the module that registers this run's plug-ins "
                f"({error}); put its folder on PYTHONPATH (or sys.path) first."
            ) from None


def make_network(config: ml_collections.ConfigDict, game: Game, **kw) -> tuple[Any, dict]:
    """A run's network (``networks.make``) from its config: ``config.network`` (an older
    run's, without ``kind``, is the ResNet), its plug-in modules imported first."""
    import_modules(config.get("imports", ()))
    return networks.make(game, **config.network.to_dict(), **kw)


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
    return checkpoints.make_manager(os.path.join(workdir, CHECKPOINT_DIR), max_to_keep=max_to_keep)


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
    apply_fn, variables = make_network(config, game)
    device = jax.sharding.SingleDeviceSharding(jax.local_devices()[0])
    wanted = {
        "learner": {"variables": variables},
        "iteration": jax.ShapeDtypeStruct((), "int32"),
    }
    wanted = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=device), wanted)
    manager = checkpoint_manager(workdir)
    try:
        restored = checkpoints.restore_part(manager, wanted, step)
    finally:
        manager.close()
    return RestoredNetwork(
        config,
        game,
        apply_fn,
        restored["learner"]["variables"],
        int(restored["iteration"]),
    )
