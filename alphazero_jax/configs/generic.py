"""Presets for a registered game that has none of its own (pgx's games, a researcher's game):
sized from the game at its default settings, by its board's cells, its action count and its
longest game.

- moves per game slot and iteration: the longest game, so that every slot finishes one;
- the network: 32 x 3 on a CPU, 64 x 4 where the board has more than 25 cells; on an
  accelerator 128 x 6, 256 x 10 above 100 cells (Go 19x19);
- Gumbel's considered actions: at most the action count;
- the ladder: ``learning_proof.GENERIC_BASELINES``, random, greedy (by one-ply outcome where
  the heuristic is neutral, as pgx's games' is) and rollout MCTS (``mcts:32``), the baselines
  that need nothing of a game.

``smoke`` is seconds of training; ``cpu`` is for 2 cores, stopped at 60 minutes; ``gpu`` the
accelerator sizes with a budget of 30 minutes; ``default``, an agent recipe, is ``gpu``'s settings
without the budget (kept so that a run started with it resumes). The results page says which
was measured where (pgx's animal shogi on ``cpu``).
"""

from __future__ import annotations

import ml_collections

from alphazero_jax import games, search
from alphazero_jax.evaluation.learning_proof import GENERIC_BASELINES as LADDER
from alphazero_jax.presets._recipe import agent_recipe
from alphazero_jax.presets._smoke import budget, shrink


def _cells(config: ml_collections.ConfigDict) -> int:
    height, width, _ = games.make(config.game.name).observation_shape
    return height * width


def _fit(config: ml_collections.ConfigDict) -> None:
    """Moves per slot: the longest game; every self-play move sampled from the search's
    visits (as AlphaZero.jl issue #217, 2024, does: with only the first 10 sampled, pgx's
    animal shogi's self-play fell into repetition draws, every game of an iteration drawn
    from its 30th on, and its network lost to rollout MCTS); Gumbel's considered actions at
    most the action count."""
    game = games.make(config.game.name)
    config.selfplay.num_moves = game.max_num_moves
    config.selfplay.num_sampling_moves = game.max_num_moves
    considered = config.search.max_num_considered_actions
    config.search.max_num_considered_actions = min(considered, game.num_actions)


REPLAY_BYTES = 2**30  # an accelerator's replay memory, a copy per device, at most


SELFPLAY_BYTES = 2**33  # self-play's trajectories and search trees, at most


def _games_at_once(game, most: int, num_simulations: int) -> int:
    """``most`` games at once, halved (to 64 at least) until a game's longest trajectory and
    its search tree, float32, fit 8 GiB: 64 of chess, 128 of shogi, 1,024 of Go 9x9."""
    height, width, channels = game.observation_shape
    position = 4 * (height * width * channels + 2 * game.num_actions + 6)
    slot = game.max_num_moves * position + search.tree_bytes(game, num_simulations)
    batch = most
    while batch > 64 and batch * slot > SELFPLAY_BYTES:
        batch //= 2
    return batch


def _accelerator(config: ml_collections.ConfigDict) -> None:
    """The accelerator sizes: a 128 x 6 network (256 x 10 and learner batches of 512 above
    100 cells), 1,024 games at once (fewer where their trajectories and trees would not fit
    8 GiB), 128 simulations, and a replay memory of a million positions or as many as fit
    1 GiB (bfloat16: chess's 119 planes and 4,672 actions fit 43,000)."""
    config.num_iterations = 1000
    wide = _cells(config) > 100
    config.network.update(channels=256 if wide else 128, blocks=10 if wide else 6, value_hidden=128)
    config.search.num_simulations = 128
    game = games.make(config.game.name)
    config.selfplay.batch_size = _games_at_once(game, 1024, config.search.num_simulations)
    position = 2 * (_cells(config) * game.observation_shape[2] + game.num_actions + 1)
    config.replay.capacity = min(1_000_000, REPLAY_BYTES // position)
    config.learner.update(batch_size=512 if wide else 1024, updates_per_iteration=64)
    config.evaluation.update(every=25, games=64, opponents=LADDER)
    _fit(config)


def gpu(config: ml_collections.ConfigDict) -> None:
    """One GPU, a budget of 30 minutes: a 128 x 6 network (256 x 10 above 100 cells), 1,024
    games at once, 128 simulations; not yet measured on a GPU."""
    _accelerator(config)
    budget(config, 30)


@agent_recipe
def default(config: ml_collections.ConfigDict) -> None:
    """``gpu``'s settings without its budget, kept so that a run started with
    ``--config=GAME:default`` resumes; not yet measured on a GPU."""
    _accelerator(config)


def cpu(config: ml_collections.ConfigDict) -> None:
    """A 2-core CPU, stopped at 60 minutes: a 32 x 3 network (64 x 4 above 25 cells), 64
    games at once, 32 simulations; measured on pgx's animal shogi (docs: results)."""
    config.num_iterations = 200
    wide = _cells(config) > 25
    config.network.update(channels=64 if wide else 32, blocks=4 if wide else 3, value_hidden=32)
    config.search.num_simulations = 32
    config.selfplay.batch_size = 64
    config.replay.capacity = 40_000
    config.learner.update(batch_size=256, updates_per_iteration=16, learning_rate=2e-3)
    config.evaluation.update(every=25, games=64, opponents=LADDER)
    _fit(config)
    budget(config, 60)


def smoke(config: ml_collections.ConfigDict) -> None:
    """Seconds of real training, for tests: measured on 2 cores for the tests' own game."""
    shrink(config)
    _fit(config)


PRESETS = {"smoke": smoke, "cpu": cpu, "gpu": gpu, "default": default}
