"""Stored searches (``play/executables.py``): compiled without tracing, answering as traced,
kept in JAX's cache folder and off with it."""

from __future__ import annotations

from unittest import mock

import jax
import numpy as np
import pytest

from alphazero_jax import agents, games
from alphazero_jax.play import batching, executables
from alphazero_jax.play.executables import SearchStore
from alphazero_jax.play.session import analysis_fn


@pytest.mark.parametrize("spec", ["greedy", "mcts:2"])
def test_a_stored_search_compiles_without_tracing_and_answers_as_traced(tmp_path, spec):
    # A batcher traces its size 1 and stores it; another of the same program compiles it
    # from the store without tracing its search or computing its example, and answers
    # alike (greedy: a move only; mcts: its value and visit shares too). Another program,
    # size or installation is another key; a damaged entry is traced again.
    game = games.make("tic_tac_toe")
    state = game.init(jax.random.key(0))
    store = SearchStore(tmp_path)

    def batcher():
        made = batching.Batcher(agents.from_spec(game, spec), sizes=(1, 2))
        made.store, made.program = store, f"tic_tac_toe {spec}"
        return made

    def untraced(*args):
        raise AssertionError("the search was traced")

    first = batcher()
    first.compile(1, state).result()
    (entry,) = tmp_path.iterdir()
    second = batcher()
    second._search = untraced
    second.compile(1, lambda: pytest.fail("the example was computed")).result()
    states = batching.stack([game.step(state, 4)], 1)
    direct = jax.jit(analysis_fn(first.agent)).lower(first.agent.params, first._key, states)
    answers = [direct.compile()(first.agent.params, first._key, states)]
    answers += [b._compiled[1](b.agent.params, b._key, states) for b in (first, second)]
    for answer in answers[1:]:
        assert jax.tree.structure(answer) == jax.tree.structure(answers[0])
        jax.tree.map(np.testing.assert_array_equal, answer, answers[0])
    params = first.agent.params
    assert entry.name == store.key(f"tic_tac_toe {spec}", params, 1)
    assert entry.name != store.key("tic_tac_toe random", params, 1)
    assert entry.name != store.key(f"tic_tac_toe {spec}", params, 2)
    with mock.patch.object(executables, "_installation", lambda: "another jax"):
        assert store.key(f"tic_tac_toe {spec}", params, 1) != entry.name
    entry.write_bytes(b"damaged")
    third = batcher()
    third.compile(1, state).result()
    assert 1 in third.ready and entry.read_bytes() != b"damaged"  # traced and stored again


def test_the_store_is_in_jax_caches_folder_and_off_with_it(tmp_path):
    before = jax.config.jax_compilation_cache_dir, jax.config.jax_enable_compilation_cache
    try:
        jax.config.update("jax_compilation_cache_dir", str(tmp_path))
        assert SearchStore.beside_jax_cache().folder == tmp_path / executables.FOLDER
        jax.config.update("jax_enable_compilation_cache", False)
        assert SearchStore.beside_jax_cache() is None
    finally:
        jax.config.update("jax_compilation_cache_dir", before[0])
        jax.config.update("jax_enable_compilation_cache", before[1])
