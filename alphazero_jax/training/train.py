"""``train_and_evaluate(config, workdir)``: the only loop over iterations.

One iteration is self-play of a batch of games (one XLA program, the batch split over all
devices) whose positions go into the replay memory, then K optimiser updates on batches
sampled from it. The K updates are K calls of one jitted update, dispatched from the host
without waiting, not a ``lax.scan`` over them (docs/design.md, "Why the K updates are not a
``lax.scan``": XLA's CPU backend runs a convolution's gradient far slower inside a rolled
loop body). Each half of an iteration draws its own key from the run's key and advances
it (``_draw_key``). The loop around it logs, checkpoints every few minutes, on Ctrl-C and
at the end, and resumes exactly from the newest checkpoint.

Where the time goes: the session waits for self-play and for the updates to finish
(``block_until_ready``, once each per iteration, never per move or update) and the loop
logs the seconds of self-play, learner, evaluation and checkpointing of every log interval
as ``time/*``.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import time
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import ml_collections
import numpy as np
from flax import struct
from jax.experimental import multihost_utils
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from alphazero_jax import networks, runs, search
from alphazero_jax.configs import settings
from alphazero_jax.training import evaluator, learner, losses, replay, scores, selfplay, session
from alphazero_jax.training import targets as targets_lib
from alphazero_jax.training.config_schema import (
    ConfigError,
    updates_per_iteration,
    validate_config,
)
from alphazero_jax.training.run_logging import RunLogger
from alphazero_jax.types import Array, Game

_BATCH_AXIS = "batch"


@struct.dataclass
class TrainingState:
    """Everything a run needs to continue exactly: what a checkpoint holds."""

    learner: learner.TrainState
    replay: replay.ReplayBuffer
    key: Array  # uint32[2]: raw PRNG key data.
    iteration: Array  # int32[]: iterations completed.
    num_positions: Array  # int32[]: self-play positions generated so far.


@struct.dataclass
class MixedTrainingState(TrainingState):
    """A run's state with other boards (``config.game.mixed``): a replay memory for each
    (a run without them keeps ``TrainingState``, so that its checkpoints stay as they were)."""

    mixed_replay: tuple[replay.ReplayBuffer, ...] = ()


class Components(NamedTuple):
    config: ml_collections.ConfigDict  # the run's config, completed (``settings.complete``)
    game: Game
    apply_fn: Any
    initial_state: TrainingState
    # jitted (TrainingState, play_variables | None) -> (state, metrics): an iteration's first
    # half, self-play and replay insertion; it draws its key (``_draw_key``).
    selfplay_fn: Any
    # (TrainingState) -> (state, metrics): its second half, K calls of ``update_fn`` from the
    # host and one of ``end_fn`` (the mean metrics, the next key and iteration).
    learn_fn: Any
    update_fn: Any  # jitted (learner state, replay, key data, index) -> (learner state, metrics)
    end_fn: Any  # jitted (key data, iteration, [metrics] * K) -> (key data, iteration, means)
    evaluator: evaluator.Evaluator | None  # None when evaluation and gating are off


def _selfplay_over_devices(
    config, game, apply_fn, mesh: Mesh, *, num_simulations: int, score_fn=None, num_moves=None
):
    """Self-play with the batch split over the mesh: each device plays its share, every
    move searched with ``num_simulations`` (a stage's, ``_simulation_stages``; with a budget by
    ply, the youngest games' slots with ``early_simulations``) and, with
    ``score_fn``, each game's final score recorded; ``num_moves`` plies a call (None:
    ``config.selfplay.num_moves``)."""
    num_devices = mesh.devices.size
    if config.selfplay.inference_dtype != "float32":
        apply_fn = networks.make_inference_apply_fn(
            game, compute_dtype=config.selfplay.inference_dtype, **config.network
        )
    settings = search.search_settings(config.search, play=False)
    settings["num_simulations"] = num_simulations
    search_fn = search.make_search(game, apply_fn, **settings)
    fast_search_fn = None
    if config.selfplay.full_search_probability < 1:
        settings["num_simulations"] = config.selfplay.fast_simulations
        fast_search_fn = search.make_search(game, apply_fn, **settings)
    early_search_fn = None
    if config.selfplay.early_slots:
        settings["num_simulations"] = config.selfplay.early_simulations
        early_search_fn = search.make_search(game, apply_fn, **settings)
    play = selfplay.make_selfplay(
        game,
        search_fn,
        policy=config.search.policy,
        batch_size=config.selfplay.batch_size // num_devices,
        num_moves=config.selfplay.num_moves if num_moves is None else num_moves,
        num_sampling_moves=config.selfplay.num_sampling_moves,
        discount=config.search.discount,
        handicap_moves=config.selfplay.handicap_moves,
        root_value_weight=config.selfplay.root_value_weight,
        fast_search_fn=fast_search_fn,
        full_search_probability=config.selfplay.full_search_probability,
        random_opening_plies=config.selfplay.random_opening_plies,
        score_fn=score_fn,
        early_search_fn=early_search_fn,
        early_slots=config.selfplay.early_slots // num_devices,
    )
    return selfplay.shard(play, mesh, _BATCH_AXIS)


def _simulation_stages(config) -> tuple[tuple[int, int], ...]:
    """``((first iteration, simulations), ...)`` of self-play, from iteration 0: the
    search's simulations, then each of ``config.selfplay.simulation_stages`` (a rising
    budget, Wu T.-R. et al. (2023)) from its iteration on."""
    starts = {0: config.search.num_simulations}
    starts.update((int(it), int(sims)) for it, sims in config.selfplay.simulation_stages)
    return tuple(sorted(starts.items()))


def _stage_of(stages: tuple[tuple[int, int], ...], iteration: int) -> int:
    """The index of the stage that plays ``iteration`` (0-based, iterations completed)."""
    return max(index for index, (first, _) in enumerate(stages) if first <= iteration)


def network_calls_per_move(config, iteration: int = 0) -> float:
    """The network evaluations that self-play spends on one move at ``iteration``, on
    average: the root's and one a simulation, of the stage's search (a rising budget's,
    ``config.selfplay.simulation_stages``) or, with a playout cap, of the full search with
    its probability and of the fast one otherwise, or, with a budget by ply, of the
    youngest games' slots and of the others by their shares. E.g. 17 for 16 simulations
    everywhere; 0.25 x 65 + 0.75 x 17 = 29 for 64 simulations on 1 move in 4 and 16 on the
    rest, and the same 29 for 64 on 16 of 64 slots and 16 on the others."""
    stages = _simulation_stages(config)
    full = stages[_stage_of(stages, iteration)][1] + 1
    early = config.selfplay.early_slots
    if early:
        share = early / config.selfplay.batch_size
        return share * (config.selfplay.early_simulations + 1) + (1 - share) * full
    p = config.selfplay.full_search_probability
    if p >= 1:
        return float(full)
    return p * full + (1 - p) * (config.selfplay.fast_simulations + 1)


def _draw_key(key_data: Array) -> tuple[Array, jax.Array]:
    """The run's key advanced once: ``(the next key's data, a key for one use)``.

    The only place the run's key is split. Each half of an iteration draws its own key with
    it and carries the next one on: self-play in its program; the learner's K updates each
    draw the same key (and fold in their index), and ``end_fn`` carries the next one on.
    So a half called on its own (a benchmark's repeated self-play) plays new games.
    """
    key, subkey = jax.random.split(jax.random.wrap_key_data(key_data))
    return jax.random.key_data(key), subkey


def _make_iteration(config, game, apply_fn, schedule, optimizer, mesh: Mesh, *, mixed=()):
    """An iteration's two halves: ``(selfplay_fn, learn_fn, update_fn, end_fn)``.

    With simulation stages, each stage's self-play is compiled once, here, and
    ``selfplay_fn`` calls the one of the state's iteration. With other boards (``mixed``:
    ``(game, apply_fn)`` pairs, ``config.game.mixed``), self-play also plays a batch on
    each for its move cap's plies (``max_num_moves``: every slot finishes a game, and a
    small board costs less), into its own replay memory, and the learner makes
    ``config.learner.mixed_updates``
    updates on their positions, the boards in turn, before its updates on the main board's."""
    aux_weights = tuple(config.learner.aux_weights.items())
    target_names = losses.targets_of(dict(aux_weights))
    stages = _simulation_stages(config)
    boards = ((game, apply_fn), *mixed)
    plays = [
        tuple(
            _selfplay_over_devices(
                config,
                board,
                board_apply_fn,
                mesh,
                num_simulations=sims,
                score_fn=scores.make(board) if "final_score" in target_names else None,
                num_moves=None if board is game else board.max_num_moves,
            )
            for board, board_apply_fn in boards
        )
        for _, sims in stages
    ]
    updates = [
        learner.make_update(
            board_apply_fn,
            optimizer,
            l2_weight=config.learner.l2_weight,
            value_weight=config.learner.value_weight,
            aux_weights=aux_weights,
            schedule=schedule,
        )
        for _, board_apply_fn in boards
    ]
    update = updates[0]
    symmetries = game.symmetries if config.replay.augment else ()
    batch_sharding = NamedSharding(mesh, P(_BATCH_AXIS))
    num_updates = config.learner.updates_per_iteration
    num_mixed_updates = config.learner.get("mixed_updates", 0) if mixed else 0

    def play_half(play_set, state: TrainingState, play_variables: dict | None = None):
        """Self-play with ``play_variables`` (gating's best network) or, when None, the
        network being trained; its positions go into the replay memory (each other
        board's into its own)."""
        key_data, play_key = _draw_key(state.key)
        if play_variables is None:
            play_variables = state.learner.variables
        trajectory = play_set[0](play_variables, play_key)
        num_positions = trajectory.valid.sum().astype(jnp.int32)
        metrics = dict(_selfplay_metrics(trajectory), positions=num_positions)
        extra = targets_lib.compute(trajectory, target_names)
        new_state = state.replace(
            key=key_data,
            replay=replay.add_trajectory(state.replay, trajectory, extra),
            num_positions=state.num_positions + num_positions,
        )
        if len(play_set) == 1:
            return new_state, metrics
        memories, mixed_positions = [], jnp.int32(0)
        for play, memory in zip(play_set[1:], state.mixed_replay, strict=True):
            key_data, play_key = _draw_key(key_data)
            other = play(play_variables, play_key)
            extra = targets_lib.compute(other, target_names)
            memories.append(replay.add_trajectory(memory, other, extra))
            mixed_positions += other.valid.sum().astype(jnp.int32)
        metrics["mixed_positions"] = mixed_positions
        return new_state.replace(key=key_data, mixed_replay=tuple(memories)), metrics

    window_start = config.replay.window_start

    def window_of(num_positions):
        return replay.growing_window(num_positions, window_start) if window_start else None

    def update_step(learner_state, buffer, key_data, index, num_positions, merged=None):
        """The iteration's ``index``-th update, on a batch sampled with its own key (and
        with ``merged``, the targets averaged over duplicates, ``replay.merge_duplicates``)."""
        _, learn_key = _draw_key(key_data)
        batch = replay.sample(
            buffer,
            jax.random.fold_in(learn_key, index),
            batch_size=config.learner.batch_size,
            symmetries=symmetries,
            window=window_of(num_positions),
            merged=merged,
        )
        return update(learner_state, jax.lax.with_sharding_constraint(batch, batch_sharding))

    def end(key_data, iteration, metrics):
        key_data, _ = _draw_key(key_data)
        means = jax.tree.map(lambda *values: jnp.mean(jnp.stack(values)), *metrics)
        return key_data, iteration + 1, means

    def mixed_step(board, learner_state, buffer, key_data, index):
        """An update on the other board ``board`` (1-based in ``boards``), from its memory."""
        _, learn_key = _draw_key(key_data)
        other = boards[board][0]
        batch = replay.sample(
            buffer,
            jax.random.fold_in(learn_key, index),
            batch_size=config.learner.batch_size,
            symmetries=other.symmetries if config.replay.augment else (),
        )
        batch = jax.lax.with_sharding_constraint(batch, batch_sharding)
        return updates[board](learner_state, batch)

    update_fn = jax.jit(update_step, donate_argnums=0)
    mixed_fns = [
        jax.jit(functools.partial(mixed_step, board), donate_argnums=0)
        for board in range(1, len(boards))
    ]
    end_fn = jax.jit(end)
    merge_fn = None
    if config.replay.merge_duplicates:  # once an iteration: the memory is the same for all K
        merge_fn = jax.jit(lambda buffer, n: replay.merge_duplicates(buffer, window_of(n)))

    def learn_half(state: TrainingState):
        """K updates, dispatched without waiting; the state's learner is consumed."""
        learner_state, metrics, mixed_losses = state.learner, [], []
        for index in range(num_mixed_updates):  # the other boards in turn, first
            board = index % len(mixed_fns)
            learner_state, step_metrics = mixed_fns[board](
                learner_state, state.mixed_replay[board], state.key, num_updates + index
            )
            mixed_losses.append(step_metrics["loss"])
        extra = () if merge_fn is None else (merge_fn(state.replay, state.num_positions),)
        for index in range(num_updates):
            learner_state, step_metrics = update_fn(
                learner_state, state.replay, state.key, index, state.num_positions, *extra
            )
            metrics.append(step_metrics)
        key, iteration, means = end_fn(state.key, state.iteration, metrics)
        if mixed_losses:
            means = dict(means, mixed_loss=jnp.mean(jnp.stack(mixed_losses)))
        return state.replace(learner=learner_state, key=key, iteration=iteration), means

    halves = [jax.jit(functools.partial(play_half, pl), donate_argnums=0) for pl in plays]
    if len(halves) == 1:
        return halves[0], learn_half, update_fn, end_fn

    def selfplay_fn(state: TrainingState, play_variables: dict | None = None):
        """The self-play of the stage of ``state.iteration`` (read once an iteration; the
        session waits for the previous iteration there anyway)."""
        return halves[_stage_of(stages, int(state.iteration))](state, play_variables)

    return selfplay_fn, learn_half, update_fn, end_fn


def _selfplay_metrics(trajectory) -> dict[str, Array]:
    """Statistics of the games that ended: length, first player's wins, draws."""
    ended = trajectory.ended
    num_games = jnp.maximum(ended.sum(), 1)
    # A position's game finished if a game ends at or after it in its slot.
    finished = jnp.flip(jnp.cumsum(jnp.flip(ended, 0), 0), 0) > 0
    first_player = trajectory.outcome
    return {
        "games": ended.sum(),
        "game_length": finished.sum() / num_games,
        "first_player_wins": ((first_player > 0) & ended).sum() / num_games,
        "draws": ((first_player == 0) & ended).sum() / num_games,
    }


def _make_schedule(config):
    return learner.make_schedule(
        learning_rate=config.learner.learning_rate,
        schedule=config.learner.schedule,
        warmup_steps=config.learner.warmup_steps,
        total_steps=config.num_iterations * updates_per_iteration(config),
        decay_rate=config.learner.decay_rate,
        decay_steps=tuple(config.learner.decay_steps),
    )


def build(config: ml_collections.ConfigDict) -> Components:
    """Validates ``config`` and builds the game, network, initial state and iteration.

    A config written before a section existed gets that section's defaults: the
    ``Components``' ``config`` is the completed one, what the run uses from then on."""
    devices = jax.devices()
    config = settings.complete(config)
    validated = validate_config(config, num_devices=len(devices))
    if jax.process_count() > 1 and (config.evaluation.every or config.gating.rule != "none"):
        raise ConfigError(
            f"evaluation and gating run in one process, but this run has "
            f"{jax.process_count()} processes: set config.evaluation.every=0 and "
            "config.gating.rule='none', and evaluate its checkpoints with alphazero-evaluate."
        )
    game = validated.game
    config.imports = type(config.imports)(settings.plugin_modules(config))
    mesh = Mesh(np.array(devices), (_BATCH_AXIS,))
    key = jax.random.key(config.seed)
    net_key, run_key = jax.random.split(key)
    try:
        apply_fn, variables = runs.make_network(config, game, key=net_key)
    except ValueError as error:
        raise ConfigError(f"config.network: {error}") from None
    target_names = _check_loss_terms(config, game, apply_fn, variables)
    mixed = tuple(
        (other, _mixed_apply_fn(config, index, other, variables, net_key))
        for index, other in enumerate(validated.mixed)
    )
    schedule = _make_schedule(config)
    optimizer = learner.make_optimizer(schedule, name=config.learner.optimizer)

    def memory(board: Game) -> replay.ReplayBuffer:
        return replay.init(
            capacity=config.replay.capacity,
            observation_shape=board.observation_shape,
            num_actions=board.num_actions,
            targets=targets_lib.shapes(target_names, board.num_actions),
            over_actions=tuple(n for n in target_names if targets_lib.get(n).over_actions),
        )

    fields = dict(
        learner=learner.init_train_state(variables, optimizer),
        replay=memory(game),
        key=jax.random.key_data(run_key),
        iteration=jnp.int32(0),
        num_positions=jnp.int32(0),
    )
    if mixed:
        state = MixedTrainingState(**fields, mixed_replay=tuple(memory(g) for g, _ in mixed))
    else:
        state = TrainingState(**fields)
    state = jax.device_put(state, NamedSharding(mesh, P()))
    selfplay_fn, learn_fn, update_fn, end_fn = _make_iteration(
        config, game, apply_fn, schedule, optimizer, mesh, mixed=mixed
    )
    return Components(
        config=config,
        game=game,
        apply_fn=apply_fn,
        initial_state=state,
        selfplay_fn=selfplay_fn,
        learn_fn=learn_fn,
        update_fn=update_fn,
        end_fn=end_fn,
        evaluator=_make_evaluator(config, game, apply_fn, validated.opponents),
    )


def _mixed_apply_fn(config, index: int, other: Game, variables: dict, key: jax.Array):
    """The network's apply function on the other board ``config.game.mixed[index]``;
    ConfigError unless the main board's variables fit it as they are."""
    try:
        other_apply_fn, other_variables = runs.make_network(config, other, key=key)
    except ValueError as error:
        raise ConfigError(f"config.game.mixed[{index}]: {error}") from None
    shapes = jax.tree.map(jnp.shape, variables)
    if jax.tree.map(jnp.shape, other_variables) != shapes:
        raise ConfigError(
            f"config.game.mixed[{index}]: one network learns on every board, but network "
            f"kind {config.network.get('kind', 'resnet')!r} has variables of other shapes on "
            f"{dict(other.settings)} than on the main board; use network.kind="
            "'resnet_any_size' (or a kind of one's own whose variables fit every size)."
        )
    return other_apply_fn


def _check_loss_terms(config, game, apply_fn, variables) -> tuple[str, ...]:
    """The targets the run's loss terms read; ConfigError for a term that reads an auxiliary
    output the network does not produce."""
    dummy = jnp.zeros((1, *game.observation_shape), jnp.float32)
    output, _ = jax.eval_shape(lambda v: apply_fn(v, dummy), variables)
    for name in config.learner.aux_weights:
        missing = [out for out in losses.get(name).outputs if out not in output.aux]
        if missing:
            raise ConfigError(
                f"config.learner.aux_weights: the loss term {name!r} reads the network's "
                f"auxiliary output(s) {', '.join(missing)}, which network kind "
                f"{config.network.get('kind', 'resnet')!r} does not produce (it produces: "
                f"{', '.join(output.aux) or 'none'})."
            )
    names = losses.targets_of(config.learner.aux_weights)
    if "final_score" in names and game.name not in scores.available():
        raise ConfigError(
            f"config.learner.aux_weights: the target final_score needs the game's score, but "
            f"{game.name!r} has none; games with one: {', '.join(scores.available())} "
            "(training.scores.register)."
        )
    return names


def _make_evaluator(config, game, apply_fn, opponents) -> evaluator.Evaluator | None:
    evaluation = config.evaluation
    if not evaluation.every and config.gating.rule == "none":
        return None
    return evaluator.make_evaluator(
        game,
        apply_fn,
        config.search.to_dict(),
        num_simulations=(
            config.search.num_simulations if evaluation.simulations < 0 else evaluation.simulations
        ),
        baselines=opponents,
        num_games=evaluation.games,
        opening_moves=evaluation.opening_moves,
        perfect_play_sets=tuple(evaluation.perfect_play_sets),
        perfect_play_positions=evaluation.perfect_play_positions,
    )


def check_workdir(workdir: str, config: ml_collections.ConfigDict) -> None:
    """Refuses a workdir whose run has other settings: all but the resumable ones
    (``Setting.resumable``; ``num_iterations`` too where the learning rate does not depend
    on it) must agree for the run to go on exactly (its game, network and replay capacity
    are also the shapes of its checkpoints)."""
    if not os.path.exists(os.path.join(workdir, runs.CONFIG_FILE)):
        return
    # Both as config.json has them (tuples as lists): a key added since the run was written
    # gets its default from complete, a tuple, where the config has a list.
    previous = json.loads(json.dumps(settings.complete(runs.read_config(workdir)).to_dict()))
    now = json.loads(json.dumps(config.to_dict()))
    constant = config.learner.schedule == "constant" == previous["learner"].get("schedule")
    for key, setting in settings.config_leaves(config):
        before = _at(previous, key)
        if setting.resumable or (constant and key == "num_iterations"):
            continue
        if before is _ABSENT or before == _at(now, key):
            continue  # an absent key came later than the run: not compared
        raise ConfigError(
            f"{workdir} holds a run trained with {key}={before!r}, but this config "
            f"asks for {key}={_at(now, key)!r}, so it would not continue that run. Resume it "
            "with its own settings (its config.json), or choose another workdir."
        )


_ABSENT = object()


def _at(tree: dict, key: str) -> Any:
    """The value of a dotted settings key in a config dict; ``_ABSENT`` if it has none."""
    for name in key.split("."):
        if not isinstance(tree, dict) or name not in tree:
            return _ABSENT
        tree = tree[name]
    return tree


def _check_writable(workdir: str, state: TrainingState) -> None:
    """Refuses, before any work, a workdir that cannot be written or has no room for a
    checkpoint of ``state`` (twice: a step being replaced exists twice for a moment)."""
    probe = os.path.join(workdir, f".writable-{jax.process_index()}")
    try:
        os.makedirs(workdir, exist_ok=True)
        with open(probe, "w") as file:
            file.write("ok")
        os.remove(probe)
    except OSError as error:
        raise session.TrainingError(
            f"Cannot write to the work directory {workdir} "
            f"({error.strerror or error}); nothing was trained."
        ) from error
    needed = 2 * sum(leaf.nbytes for leaf in jax.tree.leaves(state))
    free = shutil.disk_usage(workdir).free
    if free < needed:
        raise session.TrainingError(
            f"The work directory {workdir} has {free / 2**20:.0f} MiB free, but this run "
            f"needs about {needed / 2**20:.0f} MiB for its checkpoints; nothing was trained."
        )


# Seconds of each log interval (summed over its iterations), logged as ``time/<name>``:
# self-play with replay insertion, the learner's updates, evaluation (Elo, mistake rates,
# gating) before the interval's iterations, and checkpoints saved since the previous record.
TIME_KEYS = ("selfplay", "learner", "evaluation", "checkpoint")


def train_and_evaluate(config: ml_collections.ConfigDict, workdir: str) -> TrainingState:
    """Trains (or resumes training) until ``config.num_iterations``; returns the state.

    ``workdir`` receives ``config.json``, ``checkpoints/``, ``metrics.jsonl`` and
    ``tensorboard/``, and with evaluation on ``elo.json`` and ``elo.png``. Each record of
    ``metrics.jsonl`` (and TensorBoard) also says where its interval's time went:
    ``time/selfplay``, ``time/learner``, ``time/evaluation`` and ``time/checkpoint``. If
    ``workdir`` already holds a run, the run continues from its newest checkpoint, exactly
    as if it had never stopped; its config may differ only in its evaluation, logging,
    checkpoint cadence and time limit (and, under a constant learning rate, its
    ``num_iterations``), else ``ConfigError``. Ctrl-C (SIGINT or SIGTERM), or
    ``config.time_limit_minutes`` of this call, saves a checkpoint and stops, within a
    match of an evaluation (an evaluation stopped that way runs again on resume).

    Launched as several processes (``jax.distributed.initialize`` called first), every
    process runs this with the same arguments and a shared ``workdir``: the mesh spans all
    processes' devices, each plays its devices' share of the games, orbax writes each
    checkpoint once, process 0 writes the files, and the processes agree once per
    iteration on stopping and saving (any process's Ctrl-C or time limit stops all).
    """
    components = build(config)
    config = components.config
    primary = jax.process_index() == 0
    _check_writable(workdir, components.initial_state)
    check_workdir(workdir, config)
    manager = runs.checkpoint_manager(workdir, max_to_keep=config.max_to_keep)
    run = session.Session(components, config, workdir, manager)
    if primary:
        runs.write_config(workdir, config)
        if run.iteration:
            print(f"Resuming from the checkpoint of iteration {run.iteration} in {workdir}.")
        else:
            print(f"Starting a new run in {workdir}.")
    logger = RunLogger(
        workdir,
        total_iterations=config.num_iterations,
        history=run.history,
        primary=primary,
        process_index=jax.process_index(),
    )
    sums, count, log_started, seconds = None, 0, time.monotonic(), dict.fromkeys(TIME_KEYS, 0.0)
    started = last_save = time.monotonic()
    limit = config.time_limit_minutes * 60 or float("inf")
    try:
        with session.StopRequest() as stop:

            def stopping() -> bool:
                return stop.requested or time.monotonic() - started >= limit

            while True:
                save_due = (time.monotonic() - last_save) / 60 >= config.checkpoint_every_minutes
                stop_now, save_now = _agree(stopping(), save_due)
                if save_now and not run.saved:
                    save_started = time.monotonic()
                    run.save()
                    seconds["checkpoint"] += time.monotonic() - save_started
                    last_save = time.monotonic()
                if stop_now:
                    break
                if run.evaluation_pending():
                    evaluation_started = time.monotonic()
                    record = run.evaluate(stopping)
                    if record is None:  # stopped between two matches; pending on resume
                        break
                    logger.write_evaluation(record)
                    elapsed = time.monotonic() - evaluation_started
                    seconds["evaluation"] += elapsed
                    log_started += elapsed  # not in pos/s
                if run.iteration >= config.num_iterations:
                    break
                metrics, step_seconds = run.step()
                sums = metrics if sums is None else jax.tree.map(jnp.add, sums, metrics)
                count += 1
                for name, value in step_seconds.items():
                    seconds[name] += value
                if run.iteration % config.log_every == 0 or run.iteration == config.num_iterations:
                    record = _record(run.iteration, jax.device_get(sums), count, log_started)
                    record.update((f"time/{name}", value) for name, value in seconds.items())
                    run.history.append(record)
                    logger.write(record)
                    sums, count, log_started = None, 0, time.monotonic()
                    seconds = dict.fromkeys(TIME_KEYS, 0.0)
            if not run.saved:
                run.save()
    finally:
        logger.close()
        manager.close()
    return run.state


def _agree(*decisions: bool) -> tuple[bool, ...]:
    """The host-side decisions of the loop, each True if any process's is: processes of a
    multi-process run stop and save at the same iteration (one tiny collective per
    iteration; nothing with one process)."""
    if jax.process_count() == 1:
        return decisions
    gathered = multihost_utils.process_allgather(np.array(decisions, np.int32))
    return tuple(bool(value) for value in np.asarray(gathered).reshape(-1, len(decisions)).max(0))


def _record(iteration: int, sums: dict, count: int, started: float) -> dict:
    seconds = time.monotonic() - started
    record = {"iteration": iteration, "seconds": seconds}
    for name, value in sums.items():
        total = float(np.asarray(value))
        record[name] = total if name in ("positions", "games") else total / count
    record["positions_per_s"] = record["positions"] / max(seconds, 1e-9)
    return record
