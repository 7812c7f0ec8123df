"""Every size a user can set is refused before anything is allocated when its arrays would
not fit this machine's memory budget (``alphazero_jax/memory.py``), with a message that
names the size and the largest that fits. The budget is set to 1 MB here, so that each
bound is small enough to check by hand."""

import pytest

from alphazero_jax import agents, configs, games, memory, search
from alphazero_jax.configs.plan import ConfigError, read
from alphazero_jax.search import td_table

BUDGET = 1_000_000
MACHINE_BUDGET = memory.budget_bytes  # before the fixture replaces it


@pytest.fixture(autouse=True)
def small_budget(monkeypatch):
    monkeypatch.setattr(memory, "budget_bytes", lambda: BUDGET)


def test_budget__is_three_quarters_of_the_device_memory():
    import os

    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert MACHINE_BUDGET() == int(0.75 * physical)  # a CPU: the host's


def test_search_tree__a_node_is_a_state_and_six_action_arrays_and_five_scalars_twice():
    game = games.make("tic_tac_toe")
    state = memory.state_bytes(game)
    assert search.tree_bytes(game, 9) == 10 * 2 * (state + 4 * (6 * 9 + 5))


def test_agent_spec__too_many_simulations_name_the_largest_that_fits():
    game = games.make("tic_tac_toe")
    node = search.tree_bytes(game, 0)  # one node: the root
    largest = BUDGET // node - 1  # nodes = simulations + 1
    agents.from_spec(game, f"mcts:{largest}")
    for spec in (f"mcts:{largest + 1}", f"az:pretrained:{largest + 1}"):
        with pytest.raises(memory.MemoryBoundError, match=rf"at most {largest:,}\.$") as caught:
            agents.from_spec(game, spec)
        assert str(caught.value).startswith(f"Agent spec {spec!r}: ")
    with pytest.raises(ValueError, match=rf"'tdmcts:{largest + 1}'.*search tree.*{largest:,}"):
        agents.from_spec(game, f"tdmcts:{largest + 1}")


def test_agent_spec__minimax_deeper_than_the_longest_game_is_refused():
    game = games.make("tic_tac_toe")
    agents.from_spec(game, "minimax:9")
    with pytest.raises(ValueError, match=r"'minimax:10'.*at most the game's longest game, 9"):
        agents.from_spec(game, "minimax:10")


def test_td_table__sixteen_bytes_a_slot():
    td_table.empty_table(capacity=2**15)  # 524,288 bytes
    with pytest.raises(memory.MemoryBoundError, match=r"capacity=65,536 .* at most 62,500\."):
        td_table.empty_table(capacity=2**16)  # 1,048,576 bytes


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("replay.capacity", 10**6, r"config\.replay\.capacity=1,000,000 needs .* at most"),
        ("selfplay.batch_size", 4096, r"config\.selfplay\.batch_size=4,096 needs .* at most"),
        ("search.num_simulations", 10**5, r"config\.search\.num_simulations=100,000 needs"),
        ("learner.batch_size", 4096, r"config\.learner\.batch_size=4,096 needs .* at most"),
    ],
)
def test_config__each_size_that_allocates_has_a_bound(key, value, message):
    config = configs.get_config("tic_tac_toe", "smoke")
    read(config, num_devices=1)  # the smoke preset fits 1 MB
    section, name = key.split(".")
    config[section][name] = value
    config.replay.capacity = max(config.replay.capacity, config.learner.batch_size)
    with pytest.raises(ConfigError, match=message):
        read(config, num_devices=1)
