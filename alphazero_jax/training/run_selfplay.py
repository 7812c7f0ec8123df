"""A run's self-play, built from its plan: the run's search at whatever simulations a budget
asks for (``search_with``), the budget and the opening its config names, the batch split
over the devices, one self-play for each stage of ``config.selfplay.simulation_stages``,
and what a move costs in network evaluations.
"""

from __future__ import annotations

from collections.abc import Callable

from jax.sharding import Mesh

from alphazero_jax import networks, plugs
from alphazero_jax.configs.plan import Plan, build_part, make_search, part_settings
from alphazero_jax.training import selfplay
from alphazero_jax.training.budgets import MoveSearchFn
from alphazero_jax.types import Game


def make_device_selfplay(
    plan: Plan,
    game: Game,
    apply_fn,
    mesh: Mesh,
    axis_name: str,
    *,
    num_simulations: int,
    num_moves: int,
    score_fn: Callable | None = None,
):
    """``selfplay(variables, key) -> Trajectory`` of ``game`` with the batch split over
    ``mesh`` (each device plays its share), its budget given ``num_simulations`` (a stage's)
    and ``num_moves`` plies a call; with ``score_fn``, each state's number recorded for the
    targets (``targets.recorder``).

    Raises:
      ConfigError: the budget or opening refuses its settings; PlugInError: one of them
        fails when built. Both name the plug-in.
    """
    config = plan.config
    if config.selfplay.inference_dtype != "float32":
        apply_fn = networks.make_inference_apply_fn(
            game, compute_dtype=config.selfplay.inference_dtype, **config.network
        )
    batch_size = config.selfplay.batch_size // mesh.devices.size
    search_with = make_search_with(plan, game, apply_fn)
    budget_settings = part_settings(config, "budget")
    budget = build_part(
        plugs.BUDGETS,
        config.budget.kind,
        "config.budget",
        lambda make: make(
            search_with, num_simulations=num_simulations, batch_size=batch_size, **budget_settings
        ),
    )
    opening_settings = part_settings(config, "opening")
    opening = build_part(
        plugs.OPENINGS,
        config.opening.kind,
        "config.opening",
        lambda make: make(game, **opening_settings),
    )
    play = selfplay.make_selfplay(
        game,
        budget,
        opening=opening,
        batch_size=batch_size,
        num_moves=num_moves,
        discount=config.search.discount,
        root_value_weight=config.selfplay.root_value_weight,
        score_fn=score_fn,
    )
    return selfplay.shard(play, mesh, axis_name)


def make_search_with(plan: Plan, game: Game, apply_fn) -> Callable[[int], MoveSearchFn]:
    """``search_with(simulations)``: the run's self-play search (its policy and settings, root
    noise on) and move rule at ``simulations``, each call a new search."""
    config = plan.config

    def search_with(simulations: int) -> MoveSearchFn:
        search_fn = make_search(config, game, apply_fn, num_simulations=simulations)
        return selfplay.make_move_search(
            search_fn,
            policy=config.search.policy,
            num_sampling_moves=config.selfplay.num_sampling_moves,
            with_root_value=config.selfplay.root_value_weight > 0,
        )

    return search_with


def stage_of(stages: tuple[tuple[int, int], ...], iteration: int) -> int:
    """The index of the stage that plays ``iteration`` (0-based, iterations completed)."""
    return max(index for index, (first, _) in enumerate(stages) if first <= iteration)


def network_calls_per_move(plan: Plan, iteration: int = 0, *, num_devices: int = 1):
    """The network evaluations that self-play spends on one move at ``iteration``, on
    average, as the run's budget says (``Budget.network_calls``) at the stage's simulations:
    e.g. 17 for 16 simulations everywhere; 0.25 x 65 + 0.75 x 17 = 29 for 64 simulations on
    1 move in 4 and 16 on the rest (a playout cap), and the same 29 for 64 on 16 of 64 slots
    and 16 on the others (a budget by ply). None where the budget does not say."""
    config = plan.config
    entry = plugs.BUDGETS.get(config.budget.kind)
    if entry.network_calls is None:
        return None
    sims = plan.stages[stage_of(plan.stages, iteration)][1]
    return float(
        entry.network_calls(
            num_simulations=sims,
            batch_size=config.selfplay.batch_size // num_devices,
            **part_settings(config, "budget"),
        )
    )
