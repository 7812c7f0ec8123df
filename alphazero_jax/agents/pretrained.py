"""Trained networks shipped in the package, so that there is an agent to play at once.

``az:pretrained`` (``from_spec``) plays the shipped network of the game, if it has one.
Each lives in ``alphazero_jax/data/agents/<key>/`` (``key_of(game)``, e.g.
``connect_four-rows6-cols7-connect4``):

- ``variables.msgpack``: the network's variables, written by ``flax.serialization``;
- ``agent.json``: the config of the run that trained it (game, network, search, and the
  modules that register its plug-ins, ``imports``) and how it was trained: command,
  iterations, training minutes, machine, library versions.

``export(workdir)`` (``alphazero-export --workdir=<run> --output=<folder>``, which
``make agent`` runs with this folder) writes both from a run's newest checkpoint, so
shipping a stronger agent is one command.
"""

from __future__ import annotations

import json
import os
import pathlib
from importlib import metadata, resources

import flax.serialization
import jax
import ml_collections

from alphazero_jax import checkpoints, games, runs
from alphazero_jax.types import Game

SPEC_NAME = "pretrained"
VARIABLES_FILE = "variables.msgpack"
AGENT_FILE = "agent.json"
_SECTIONS = ("game", "network", "search")  # what playing needs of a run's config


def directory() -> pathlib.Path:
    """The package folder that holds the shipped agents."""
    return pathlib.Path(str(resources.files("alphazero_jax").joinpath("data", "agents")))


def key_of(game: Game) -> str:
    """The folder name of ``game``'s agent, e.g. ``tic_tac_toe-rows3-cols3-connect3``."""
    return "-".join([game.name, *(f"{name}{value}" for name, value in game.settings)])


def available(folder: pathlib.Path | None = None) -> tuple[str, ...]:
    """The keys of the shipped agents, sorted."""
    folder = directory() if folder is None else folder
    if not folder.is_dir():
        return ()
    return tuple(sorted(p.name for p in folder.iterdir() if (p / AGENT_FILE).is_file()))


def shipped(name: str, folder: pathlib.Path | None = None) -> list[dict[str, int]]:
    """The settings of each shipped agent of the game ``name`` (from its ``agent.json``)."""
    folder = directory() if folder is None else folder
    described = [json.loads((folder / key / AGENT_FILE).read_text()) for key in available(folder)]
    return [d["settings"] for d in described if d["game"] == name]


def settings_to_play(name: str, folder: pathlib.Path | None = None) -> dict[str, int]:
    """Settings of the game ``name`` at which ``az:pretrained`` plays: ``{}`` (the game's
    defaults) when an agent ships for them, else those of the first agent shipped for the
    game, else ``{}`` (none ships: ``from_spec`` says so)."""
    found = shipped(name, folder)
    defaults = dict(games.make(name).settings)
    if not found or defaults in found:
        return {}
    return dict(found[0])


def recorded_simulations(name: str | None, folder: pathlib.Path | None = None) -> int | None:
    """The simulations a move of the game ``name``'s shipped agent searches (its
    ``agent.json``; the first agent's, if several are shipped), or for ``name`` None the
    fewest of any shipped agent; None when there is no such agent."""
    folder = directory() if folder is None else folder
    described = [json.loads((folder / key / AGENT_FILE).read_text()) for key in available(folder)]
    counts = [
        int(d["config"]["search"]["num_simulations"])
        for d in described
        if name is None or d["game"] == name
    ]
    if not counts:
        return None
    return min(counts) if name is None else counts[0]


def load(game: Game, folder: pathlib.Path | None = None) -> runs.RestoredNetwork:
    """The shipped network of ``game``, as ``runs.restore_network`` returns a run's.

    Raises:
      ValueError: no agent is shipped for this game and these settings; the message lists
        the games that have one.
    """
    folder = directory() if folder is None else folder
    path = folder / key_of(game)
    if not (path / AGENT_FILE).is_file():
        raise ValueError(
            f"No pretrained agent for {game.name} {dict(game.settings)}; shipped: "
            f"{', '.join(available(folder)) or 'none'}. Train one and export it with "
            "alphazero-export --workdir=<run> --output=<folder>."
        )
    return _read(path, game, _described(path))


def load_folder(path: str | os.PathLike) -> runs.RestoredNetwork:
    """The network exported into the folder ``path`` (its ``agent.json`` and
    ``variables.msgpack``) wherever it lies, as ``load`` returns a shipped one: a snapshot
    judged before it ships, say.

    Raises:
      FileNotFoundError: ``path`` holds no ``agent.json``.
    """
    path = pathlib.Path(path)
    if not (path / AGENT_FILE).is_file():
        raise FileNotFoundError(f"{path}: expected an exported agent's folder, with {AGENT_FILE}")
    described = _described(path)
    return _read(path, games.make(described["game"], **described["settings"]), described)


def restore(path: str) -> runs.RestoredNetwork:
    """The network at ``path``: an exported agent's folder (``load_folder``), a training run
    directory, or one of its checkpoints, ``<run>/checkpoints/<iteration>``
    (``runs.restore_network``).

    Raises:
      FileNotFoundError: none of these is at ``path``.
      ValueError: it is there but cannot be read.
    """
    if (pathlib.Path(path) / AGENT_FILE).is_file():
        return load_folder(path)
    return runs.restore_network(*runs.split_checkpoint_path(path))


def _described(path: pathlib.Path) -> dict:
    """``path/agent.json``, read; ValueError naming the file if it is not what ``export``
    writes."""
    try:
        described = json.loads((path / AGENT_FILE).read_text())
        missing = [k for k in ("game", "settings", "config", "iteration") if k not in described]
    except (json.JSONDecodeError, UnicodeDecodeError, TypeError) as error:
        raise ValueError(
            f"{path / AGENT_FILE}: expected the JSON that alphazero-export writes, got: {error}"
        ) from None
    if missing:
        raise ValueError(f"{path / AGENT_FILE}: expected the keys {', '.join(missing)} too.")
    return described


def _read(path: pathlib.Path, game: Game, described: dict) -> runs.RestoredNetwork:
    config = ml_collections.ConfigDict(described["config"])
    made = {}

    def template() -> dict:  # the variables' shapes only: nothing is initialised
        made["apply_fn"], variables = runs.make_network(config, game)
        return variables

    try:
        shapes = jax.eval_shape(template)  # 0.1 s, where running the init took seconds
    except ValueError as error:  # a plug-in that is not registered here, or not importable
        raise ValueError(f"{path / AGENT_FILE}: {error}") from None
    try:
        variables = flax.serialization.from_bytes(shapes, (path / VARIABLES_FILE).read_bytes())
    except (ValueError, TypeError, KeyError) as error:  # msgpack's errors are ValueErrors
        raise ValueError(
            f"{path / VARIABLES_FILE}: expected the variables of the network that "
            f"{AGENT_FILE} describes, could not read them: {error}"
        ) from None
    wanted = [(x.shape, x.dtype) for x in jax.tree.leaves(shapes)]
    found = [(x.shape, x.dtype) for x in jax.tree.leaves(variables)]
    if found != wanted:  # flax restores any arrays under the right names
        raise ValueError(
            f"{path / VARIABLES_FILE}: expected the variables of the network that "
            f"{AGENT_FILE} describes ({dict(config.network)}), got arrays of other shapes."
        )
    apply_fn = made["apply_fn"]  # held by the agent built on it
    variables = jax.device_put(variables, jax.local_devices()[0])
    return runs.RestoredNetwork(config, game, apply_fn, variables, described["iteration"])


def export(
    workdir: str,
    *,
    step: int | None = None,
    folder: pathlib.Path | None = None,
    command: str = "",
    machine: str = "",
    commit: str = "",
    require_complete: bool = False,
) -> pathlib.Path:
    """Writes a run's network (its newest checkpoint, or ``step``) as the shipped agent of
    its game, replacing any earlier one; returns the agent's folder.

    Args:
      workdir: the run directory.
      step: the checkpoint to export; None: the newest.
      folder: where the agents live (default: the package's ``data/agents``).
      command: the command that trained the run, recorded as given.
      machine: the machine that trained it (default: the machines the run recorded as it
        trained, or this one for a run from before they were recorded).
      commit: the source's version the run was trained with (a git commit), recorded.
      require_complete: refuse a run stopped before its ``num_iterations`` (a recipe's
        export ships only what its command trained to the end).

    Raises:
      ValueError: with ``require_complete``, a run that has not finished.
    """
    run = runs.restore_network(workdir, step)
    planned = int(run.config.num_iterations)
    if require_complete and run.iteration < planned:
        raise ValueError(
            f"{workdir} has trained {run.iteration} of its {planned} iterations; run its "
            "command again to finish it (it resumes), then export."
        )
    manager = runs.checkpoint_manager(workdir)
    try:
        recorded = checkpoints.restore_metadata(manager, run.iteration)
    finally:
        manager.close()
    seconds, machines = recorded.get("seconds"), recorded.get("machines", [])
    config = {section: run.config[section].to_dict() for section in _SECTIONS}
    if run.config.get("imports"):  # the modules that register its plug-ins
        config["imports"] = list(run.config.imports)
    described = {
        "game": run.game.name,
        "settings": dict(run.game.settings),
        "iteration": run.iteration,
        "config": config,
        "trained": {
            "command": command,
            "commit": commit,
            "iterations": run.iteration,
            "minutes": None if seconds is None else round(seconds / 60, 1),
            "machine": machine or "; ".join(machines) or runs.describe_machine(),
            "versions": {name: metadata.version(name) for name in ("jax", "flax", "mctx")},
            "run": os.path.basename(os.path.normpath(workdir)),
        },
    }
    path = (directory() if folder is None else folder) / key_of(run.game)
    path.mkdir(parents=True, exist_ok=True)
    variables = jax.device_get(run.variables)
    _write_atomically(path / VARIABLES_FILE, flax.serialization.to_bytes(variables))
    _write_atomically(path / AGENT_FILE, (json.dumps(described, indent=1) + "\n").encode())
    return path


def _write_atomically(path: pathlib.Path, data: bytes) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(data)
    os.replace(temporary, path)
