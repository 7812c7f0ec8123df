"""Training TD-MCTS: many games at once against an opponent or itself, a tournament every
``tournament_every`` episodes, the table checkpointed after each (the run format is
``search.tdmcts_run``).

The loop over tournaments (``train``) is the only loop over training time. A round plays
``batch_size`` games at once, all in JAX (``make_round``): TD-MCTS moves first in the first
half of them and second in the others, searches in training mode and merges its trees into
the table after every move (``tdmcts.make_tdmcts``). An episode is one game.

Exact resume: the randomness of round ``r`` is ``fold_in(key, r)`` and that of the
tournament after ``e`` episodes ``fold_in(tournament_key, e)``, so the checkpoint needs only
the table and the episode count; a run killed and restarted from its last checkpoint plays
the same games as one never interrupted. JSON lines and TensorBoard are rewritten from the
history kept in the checkpoint, so records of an interrupted stretch disappear.
"""

from __future__ import annotations

import os
import time
from typing import Any

import jax
import jax.numpy as jnp
import ml_collections

from alphazero_jax import agents, checkpoints, games, runs
from alphazero_jax.agents import td_agent
from alphazero_jax.configs import settings
from alphazero_jax.configs.rules import ConfigError
from alphazero_jax.evaluation import arena
from alphazero_jax.search import td_table, tdmcts, tdmcts_run
from alphazero_jax.training import plots, run_logging
from alphazero_jax.types import Agent, Game

PLOT_FILE = "tdmcts.png"
SELF = "self"


def default_config() -> ml_collections.ConfigDict:
    """The run's settings (``configs.settings.TDMCTS_SETTINGS``): Tic-Tac-Toe, 5000
    episodes, 100-game tournaments every 200."""
    return settings.base_config(settings.TDMCTS_SETTINGS)


def _check(config: ml_collections.ConfigDict) -> None:
    def fail(what: str):
        raise ConfigError(f"TD-MCTS config: {what}")

    if config.get("algorithm") != tdmcts_run.TDMCTS_ALGORITHM:
        fail(f"expected algorithm {tdmcts_run.TDMCTS_ALGORITHM!r}, got {config.algorithm!r}.")
    try:
        settings.check(config, settings.TDMCTS_SETTINGS)
    except ConfigError as error:
        fail(str(error))
    if config.batch_size % 2 or config.tournament_every % config.batch_size:
        fail(
            f"batch_size must be even and divide tournament_every, got batch_size "
            f"{config.batch_size} and tournament_every {config.tournament_every}."
        )
    if config.episodes % config.tournament_every:
        fail(
            f"episodes ({config.episodes}) must be a multiple of tournament_every "
            f"({config.tournament_every})."
        )
    if config.tournament_games % 2:
        fail(f"tournament_games must be even, got {config.tournament_games}.")


def make_round(game: Game, search: tdmcts.TDSearch, opponent: Agent | None, batch_size: int):
    """The jitted ``round(table, key) -> (table, float32[B])``: ``batch_size`` training
    games (TD-MCTS first in the first half) and TD-MCTS's outcome in each; ``opponent``
    None plays TD-MCTS against itself, every move learning."""
    td_first = jnp.arange(batch_size) < batch_size // 2

    def round_fn(table, key):
        init_key, play_key = jax.random.split(key)
        states = jax.vmap(game.init)(jax.random.split(init_key, batch_size))

        def body(carry):
            ply, table, states = carry
            td_key, other_key = jax.random.split(jax.random.fold_in(play_key, ply))
            td_to_move = (states.current_player == 0) == td_first
            if opponent is None:
                td_to_move = jnp.ones_like(td_to_move)
            table, moves = search.search_and_learn(table, td_key, states, td_to_move)
            if opponent is not None:
                other = opponent.act_fn(opponent.params, other_key, states)
                moves = jnp.where(td_to_move, moves, other)
            return ply + 1, table, jax.vmap(game.step)(states, moves)

        def going(carry):
            ply, _, states = carry
            return ~jnp.all(states.terminal) & (ply < game.max_num_moves)

        _, table, states = jax.lax.while_loop(going, body, (jnp.int32(0), table, states))
        return table, jnp.where(td_first, states.rewards[:, 0], states.rewards[:, 1])

    return jax.jit(round_fn)


def _check_workdir(workdir: str, config: ml_collections.ConfigDict) -> None:
    """Refuses a workdir whose run has other settings: all but the resumable ones
    (``Setting.resumable``: ``episodes``) must agree for the run to go on exactly."""
    if not os.path.exists(os.path.join(workdir, runs.CONFIG_FILE)):
        return
    previous, now = runs.read_config(workdir).to_dict(), config.to_dict()
    for name in sorted(set(previous) | set(now)):
        setting = settings.TDMCTS_SETTINGS.get(name)
        if not (setting and setting.resumable) and previous.get(name) != now.get(name):
            raise ConfigError(
                f"{workdir} holds a run with other settings: {name} {previous.get(name)!r}, "
                f"but this config asks for {name} {now.get(name)!r}. Resume it with its own "
                "settings, or choose another workdir."
            )


def _start(config, workdir: str) -> tuple[Any, dict[str, Any], list[dict]]:
    """Writes ``config.json``; returns the checkpoint manager, the newest checkpoint (or a
    fresh state) and the history of records."""
    os.makedirs(workdir, exist_ok=True)
    runs.write_config(workdir, config)
    manager = runs.checkpoint_manager(workdir, max_to_keep=2)
    template = tdmcts_run.tdmcts_state(td_table.empty_table(capacity=config.capacity), 0)
    if manager.latest_step() is None:
        print(f"Starting a new run in {workdir}.", flush=True)
        return manager, template, []
    state, metadata = checkpoints.restore(manager, template, set_aside=True)
    episodes = int(state["episodes"])
    print(f"Resuming from the checkpoint of episode {episodes} in {workdir}.", flush=True)
    return manager, state, list(metadata["history"])


def _build(config: ml_collections.ConfigDict, judge: str) -> tuple[Game, Any, Agent, Agent]:
    """The game, the jitted round, the tournament player and its opponent; the caller holds
    them (a run compiles each once)."""
    game = games.make(config.game)
    settings = {name: config[name] for name in ("exploration", "gamma", "learning_rate_floor")}
    search = tdmcts.make_tdmcts(game, num_simulations=config.num_simulations, **settings)
    trainer = None if config.opponent == SELF else agents.from_spec(game, config.opponent)
    player = td_agent.tdmcts_agent(game, num_simulations=config.num_simulations, **settings)
    round_fn = make_round(game, search, trainer, config.batch_size)
    return game, round_fn, player, agents.from_spec(game, judge)


def _record(result: arena.MatchResult, table: td_table.ValueTable, episodes: int) -> dict:
    """The JSON record of one tournament (``seconds`` is added by the caller)."""
    wins, draws, losses = result.total
    games = result.total.num_games
    return {
        "episodes": episodes,
        "opponent": result.opponent,
        "win_rate": wins / games,
        "draw_rate": draws / games,
        "loss_rate": losses / games,
        "score": result.score,
        "positions": int(td_table.num_positions(table)),
        "collisions": int(table.num_collisions),
    }


def train(config: ml_collections.ConfigDict, workdir: str) -> dict[str, Any]:
    """Trains TD-MCTS into ``workdir`` (resuming it) until ``config.episodes``.

    Args:
      config: ``default_config()``'s keys.
      workdir: the run directory (created; resumed when it holds a checkpoint).

    Returns:
      The final state, ``{"table": ValueTable, "episodes": int32[]}``.

    Raises:
      ConfigError: for bad settings, or a workdir holding a run with other settings.
    """
    _check(config)
    _check_workdir(workdir, config)
    judge = config.tournament_opponent or ("mcts:100" if config.opponent == SELF else "")
    judge = judge or config.opponent
    game, round_fn, player, judge_agent = _build(config, judge)
    title = (
        f"TD-MCTS on {config.game}, {config.num_simulations} simulations, "
        f"c={config.exploration:g}, floor={config.learning_rate_floor:g}, vs {judge}"
    )
    manager, state, history = _start(config, workdir)
    log = run_logging.MetricsLog(workdir, history, step_key="episodes", prefix="tdmcts/")
    episodes, table = int(state["episodes"]), state["table"]
    round_key, tournament_key = jax.random.split(jax.random.key(config.seed))
    match = arena.make_match(game, player.act_fn, judge_agent.act_fn)  # compiled once
    while not history or episodes < config.episodes:
        started = time.monotonic()
        if history:  # the first tournament judges the empty table
            for _ in range(config.tournament_every // config.batch_size):
                round_index = episodes // config.batch_size
                table, _ = round_fn(table, jax.random.fold_in(round_key, round_index))
                episodes += config.batch_size
        result = arena.play(
            game,
            player._replace(params=table),
            judge_agent,
            num_games=config.tournament_games,
            key=jax.random.fold_in(tournament_key, episodes),
            match=match,
        )
        record = _record(result, table, episodes) | {"seconds": time.monotonic() - started}
        history.append(record)
        state = tdmcts_run.tdmcts_state(table, episodes)
        checkpoints.save(manager, episodes, state, {"history": history})
        log.append(record)
        plots.plot_tdmcts_history(history, os.path.join(workdir, PLOT_FILE), title=title)
        print(
            f"episodes {episodes}: {result.summary()}; {record['positions']} positions, "
            f"{record['collisions']} collisions ({record['seconds']:.0f} s)",
            flush=True,
        )
    log.close()
    return state
