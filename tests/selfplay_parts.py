"""Self-play built from a stand-in search and the registered parts, as training builds it
from a config (``training.run_selfplay``): tests pick a budget and an opening by name."""

from alphazero_jax.training import budgets, openings, selfplay


def build(
    game,
    searches,
    *,
    batch_size,
    num_moves,
    num_sampling_moves=0,
    policy="puct",
    num_simulations=8,
    budget="full",
    budget_settings=None,
    opening="none",
    opening_settings=None,
    **options,
):
    """``selfplay(variables, key)``: ``searches`` is a search function for every simulation
    count, or ``{simulations: search function}``; ``options`` go to ``make_selfplay``
    (``root_value_weight``, ``score_fn``, ...)."""
    with_root_value = options.get("root_value_weight", 0) > 0

    def search_with(simulations):
        fn = searches[simulations] if isinstance(searches, dict) else searches
        return selfplay.make_move_search(
            fn,
            policy=policy,
            num_sampling_moves=num_sampling_moves,
            with_root_value=with_root_value,
        )

    budget_fn = budgets.get(budget).make(
        search_with,
        num_simulations=num_simulations,
        batch_size=batch_size,
        **(budget_settings or {}),
    )
    rule = openings.make(opening, game, **(opening_settings or {}))
    return selfplay.make_selfplay(
        game, budget_fn, opening=rule, batch_size=batch_size, num_moves=num_moves, **options
    )
