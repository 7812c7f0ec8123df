"""Every search algorithm of the library, each a factory of pure functions; the caller jits.

- ``policies``: the registry of search policies (``register``, ``policies.available()``):
  a name, a factory returning a ``SearchFn`` and the rule that reads a move from it;
- ``mctx_search``: the mctx adapter, a game plus a network become a batched PUCT or Gumbel
  tree search (``make_search``, by a registered policy: ``make_puct``, ``make_gumbel`` or
  one's own; its arguments from a run's config by
  ``search_settings``), and its memory bound (``tree_bytes``,
  ``check_simulations``);
- ``alphabeta``: depth-limited alpha-beta (negamax) on the game's heuristic;
- ``rollout_mcts``: UCT with uniform priors and random-playout values, no network;
- ``tdmcts`` and ``td_table``: UCT on values learned by TD backups, kept in a hash table;
- ``forced_playouts``: the ``puct_forced`` policy, PUCT with forced playouts and policy
  target pruning (Wu, 2019);
- ``choice``: the move to play after a search (``choose_action``) and a uniform draw among
  equal moves (``uniform_choice``).

The mctx adapter's names and move choice are re-exported here, which is how their callers
name them: ``search.make_search``, ``search.choose_action``.
"""

from __future__ import annotations

from alphazero_jax.search import forced_playouts, policies
from alphazero_jax.search.choice import choose_action, uniform_choice
from alphazero_jax.search.mctx_search import (
    check_simulations,
    make_gumbel,
    make_puct,
    make_recurrent_fn,
    make_root_fn,
    make_search,
    mask_logits,
    qtransform_alphazero,
    root_value,
    search_settings,
    tree_bytes,
)
from alphazero_jax.search.policies import SearchFn, SearchPolicy, register

__all__ = [
    "SearchFn",
    "SearchPolicy",
    "check_simulations",
    "choose_action",
    "forced_playouts",
    "make_gumbel",
    "make_puct",
    "make_recurrent_fn",
    "make_root_fn",
    "make_search",
    "mask_logits",
    "policies",
    "qtransform_alphazero",
    "register",
    "root_value",
    "search_settings",
    "tree_bytes",
    "uniform_choice",
]
