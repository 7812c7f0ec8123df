"""``alphazero_jax.configs``: every setting written once (default, rule, meaning), each
game's presets, and generic presets for a game registered by a researcher."""

import functools
import inspect

import flax.linen as nn
import ml_collections
import pytest
from game_names import DEFAULT, marked

from alphazero_jax import configs, games, networks, search
from alphazero_jax.configs import settings, table
from alphazero_jax.games import tic_tac_toe
from alphazero_jax.training import learner, selfplay
from alphazero_jax.training.budgets import by_ply, playout_cap
from alphazero_jax.training.openings import handicap, random_plies


def test_settings__every_key_has_a_rule_and_a_meaning_and_its_default_passes_the_rule():
    keys = dict(settings.leaves())
    # By hand: 7 at the top, game 3, network 8, search 11, selfplay 12, replay 4,
    # evaluation 9, gating 3, learner 12.
    assert len(keys) == 74
    for key, setting in keys.items():
        assert setting.doc.strip() and setting.rule.says().strip(), key
        if key not in ("game.name", "selfplay.num_moves"):  # a preset sets them per game
            assert setting.rule.check(setting.default), key


def test_settings__the_reference_names_every_key_once():
    table = settings.reference().splitlines()
    assert table[0] == "| key | default | accepts | meaning |"
    named = [row.split("|")[1].strip().strip("`") for row in table[2:]]
    assert named == [key for key, _ in settings.leaves()]


def test_settings__the_learner_s_choices_are_the_table_s():
    """The table sits below the learner, so it writes the learner's optimisers and schedules
    out; they stay equal."""
    assert table.OPTIMIZERS == learner.OPTIMIZERS
    assert table.SCHEDULES == learner.SCHEDULES


def test_settings__default_reads_the_table():
    assert settings.default("search.c_puct") == 1.25
    assert settings.default("budget.full_search_probability") == 0.25
    assert settings.base_config().network.channels == settings.default("network.channels") == 64


def test_settings__complete_gives_an_old_run_only_the_keys_added_later():
    config = configs.get_config("tic_tac_toe", "smoke")
    del config["gating"]
    del config.search["discount"]
    config.network.channels = 5
    completed = settings.complete(config)
    assert completed.gating.to_dict() == {"rule": "none", "threshold": 0.0, "games": 40}
    assert completed.search.discount == 1.0 and completed.network.channels == 5
    del config.network["channels"]  # not added later: an old run never lacked it
    with pytest.raises(settings.ConfigError, match=r"missing key config\.network\.channels"):
        settings.check(settings.complete(config))


def test_get_config__refuses_an_unknown_game_or_preset_naming_the_choices():
    with pytest.raises(configs.ConfigError, match=r"No presets for game 'chess'.*connect_four"):
        configs.get_config("chess")
    with pytest.raises(configs.ConfigError, match=r"Unknown preset 'fast'.*'smoke'"):
        configs.get_config("othello", "fast")


def test_get_config__each_call_returns_a_new_config():
    first = configs.get_config("connect_four", "cpu")
    first.search.num_simulations = 1
    assert configs.get_config("connect_four", "cpu").search.num_simulations == 64
    assert isinstance(first, ml_collections.ConfigDict)


@pytest.fixture
def registered(monkeypatch):
    """A researcher's game (Tic-Tac-Toe on 4x4 under its own name), registered for the test
    alone (conftest's fixture unregisters it after)."""

    def make_four():
        return tic_tac_toe.make(rows=4, cols=4, connect=3)._replace(name="four")

    games.register("four", make_four)
    return make_four


def test_register__a_game_gets_the_generic_presets_sized_from_its_longest_game(registered):
    from alphazero_jax.configs.plan import read

    assert "four" in games.available() and "four" in configs.available()
    assert configs.presets("four") == ("smoke", "cpu", "gpu", "auto")
    assert configs.recipes("four") == ("default",)  # gpu's without its budget: old runs resume
    for preset in ("smoke", "cpu", "gpu", "default"):
        config = configs.get_config("four", preset)
        assert config.game.name == "four" and config.selfplay.num_moves == 16  # 4 x 4 cells
        read(config, num_devices=8 if preset in ("gpu", "default") else 1)


def test_register__refuses_a_taken_name_and_a_name_that_is_no_identifier(registered):
    games.register("four", registered)  # the same factory again: nothing changes
    with pytest.raises(ValueError, match=r"'connect_four' is taken"):
        games.register("connect_four", registered)
    with pytest.raises(ValueError, match=r"identifier, got 'my game'"):
        games.register("my game", registered)


@pytest.mark.parametrize("game", marked(configs.available(), large=()))
def test_presets__every_preset_of_every_game_is_valid(game):
    from alphazero_jax.configs.plan import read

    for preset in (*configs.presets(game), *configs.recipes(game)):
        if preset != "auto":  # cpu or gpu, both checked
            config = configs.get_config(game, preset)
            read(config, num_devices=8 if preset in ("gpu", "default") else 1)


@pytest.mark.parametrize("game", [*marked(configs.available(), large=()), "four"])
def test_presets__every_game_has_smoke_cpu_and_gpu_with_a_budget(game, request):
    """Presets by hardware: ``cpu`` and ``gpu`` stop at a time limit, evaluated at the end;
    the agent recipes are marked and out of the user's list but still build."""
    if game == "four":
        request.getfixturevalue("registered")
    assert configs.presets(game)[:3] == ("smoke", "cpu", "gpu")
    assert configs.presets(game)[-1] == configs.AUTO
    assert not set(configs.presets(game)) & set(configs.recipes(game))
    for preset in ("cpu", "gpu"):
        config = configs.get_config(game, preset)
        assert config.time_limit_minutes > 0 and config.evaluation.final, (game, preset)
        assert config.evaluation.every > 0, (game, preset)
    assert configs.get_config(game, "gpu").time_limit_minutes <= 30
    # A run saved with the old accelerator preset resumes with the same command line.
    assert "default" in configs.recipes(game)
    configs.get_config(game, "default")


@pytest.mark.parametrize("game", [*configs.available(), "four"])
def test_presets__every_user_preset_says_whether_it_was_measured(game, request):
    """The first paragraph of each preset a user picks (the presets page's summary) says
    where it was measured, or that it was not yet."""
    if game == "four":
        request.getfixturevalue("registered")
    functions = configs.preset_functions(game)
    for preset in configs.presets(game):
        if preset == configs.AUTO:
            continue
        first = " ".join(inspect.getdoc(functions[preset]).split("\n\n")[0].split()).lower()
        assert "not yet measured" in first or "measured on" in first, (game, preset, first)
        if "not yet measured" not in first and preset != "smoke":
            assert "docs:" in first, (game, preset, first)  # where: a page of the docs
        if preset == "gpu" and game != "othello":
            # Of the GPU presets only Othello's (the long_gpu recipe with a time limit it
            # never reached) was run to its end as itself on a GPU.
            assert "not yet measured on a gpu" in first, (game, first)


@pytest.mark.parametrize(
    ("platform", "expected"), [("cpu", "cpu"), ("gpu", "gpu"), ("tpu", "gpu"), ("METAL", "gpu")]
)
def test_auto__picks_the_preset_of_the_first_device_s_kind(monkeypatch, platform, expected):
    import types

    import jax

    monkeypatch.setattr(jax, "devices", lambda *a: [types.SimpleNamespace(platform=platform)])
    for game in DEFAULT:  # pgx's others take seconds to make; their presets are those of one
        assert configs.resolve_preset(game, configs.AUTO) == expected, game
        made, named = configs.get_config(game), configs.get_config(game, expected)
        assert made.to_dict() == named.to_dict(), game  # get_config's default is auto


def test_auto__a_tpu_host_gets_the_tpu_preset_where_a_game_has_one(monkeypatch):
    import types

    import jax

    def tpu(config):
        """One TPU host; not yet measured on a TPU."""
        configs.preset_functions("tic_tac_toe")["gpu"](config)

    configs.register_preset("tic_tac_toe", "tpu", tpu)
    monkeypatch.setattr(jax, "devices", lambda *a: [types.SimpleNamespace(platform="tpu")])
    assert configs.resolve_preset("tic_tac_toe", configs.AUTO) == "tpu"
    assert configs.resolve_preset("connect_four", configs.AUTO) == "gpu"
    assert configs.preset_for_device("tic_tac_toe", "gpu") == "gpu"


def test_agent_recipe__marks_a_preset_out_of_the_user_s_list_that_still_builds():
    @configs.agent_recipe
    def shipped(config):
        """A recipe of one's own."""
        configs.preset_functions("tic_tac_toe")["cpu"](config)
        config.num_iterations = 9

    configs.register_preset("tic_tac_toe", "shipped", shipped)
    assert "shipped" not in configs.presets("tic_tac_toe")
    assert configs.recipes("tic_tac_toe")[-1] == "shipped"
    assert configs.get_config("tic_tac_toe", "shipped").num_iterations == 9
    assert configs.resolve_preset("tic_tac_toe", "shipped") == "shipped"
    with pytest.raises(configs.ConfigError, match=r"Unknown preset 'nope'.*'gpu'.*'shipped'"):
        configs.get_config("tic_tac_toe", "nope")


def _changed(a: ml_collections.ConfigDict, b: ml_collections.ConfigDict) -> set[str]:
    """The settings (``settings.leaves()``'s dotted keys) whose values differ."""

    def value(config, key):
        return functools.reduce(getattr, key.split("."), config)

    return {key for key, _ in settings.leaves() if value(a, key) != value(b, key)}


def test_connect_four_agent__is_the_playout_cap_preset_for_more_iterations():
    """The docstring's claim: the ``agent`` recipe is the ``playout_cap`` preset (network,
    search, targets and the 150,000-position replay memory of ``make train`` until
    2026-11-29) for 700 iterations, evaluated less often."""
    base = configs.get_config("connect_four", "playout_cap")
    agent = configs.get_config("connect_four", "agent")
    assert (base.num_iterations, agent.num_iterations) == (480, 700)
    assert base.replay.capacity == agent.replay.capacity == 150_000
    differing = {"num_iterations", "evaluation.every", "evaluation.perfect_play_positions"}
    changed = _changed(base, agent)
    assert changed == differing, sorted(changed ^ differing)


def test_connect_four_long_gpu__does_the_long_recipes_work_in_wider_iterations():
    """The card's claim, counted: 125 x 512 games = 1,000 x 64, 125 x 128 updates =
    1,000 x 16 (so the same cosine schedule, which runs by update), and every other
    setting, the network, the search, the targets and the replay memory, the same (but
    the search's constant when the trained network plays)."""
    long = configs.get_config("connect_four", "long")
    wide = configs.get_config("connect_four", "long_gpu")
    assert wide.num_iterations * wide.selfplay.batch_size == 1000 * 64
    assert long.num_iterations * long.selfplay.batch_size == 1000 * 64
    assert wide.num_iterations * wide.learner.updates_per_iteration == 16_000
    assert long.num_iterations * long.learner.updates_per_iteration == 16_000
    differing = {"num_iterations", "selfplay.batch_size", "learner.updates_per_iteration"}
    differing.add("evaluation.every")  # every 25 of 125 where long has every 50 of 1,000
    differing.add("search.play_c_puct")  # how the trained network plays, not how it trains
    changed = _changed(long, wide)
    assert changed == differing, sorted(changed ^ differing)


def test_othello_long_gpu__is_the_agent_recipe_with_a_larger_network_over_more_games():
    """The card's claim, counted: 80 x 512 games = 640 x 64 (1.78x the agent recipe's
    360 x 64), 80 x 128 updates = 10,240 (1.78x 360 x 16), so the same updates per game;
    the network 64 x 4; and the search, the targets, the game and the schedule's shape
    the same."""
    small = configs.get_config("othello", "agent")
    large = configs.get_config("othello", "long_gpu")
    assert large.num_iterations * large.selfplay.batch_size == 640 * small.selfplay.batch_size
    assert small.num_iterations == 360
    assert large.num_iterations * large.learner.updates_per_iteration == 10_240
    per_game = [c.learner.updates_per_iteration / c.selfplay.batch_size for c in (small, large)]
    assert per_game == [0.25, 0.25]
    differing = {"num_iterations", "selfplay.batch_size", "learner.updates_per_iteration"}
    differing |= {"network.channels", "network.blocks", "network.value_hidden"}
    differing |= {"replay.capacity", "evaluation.every", "evaluation.opponents"}
    changed = _changed(small, large)
    assert changed == differing, sorted(changed ^ differing)


# Each setting that a library factory also takes, with that factory and keyword: the table's
# default must be the signature's (the factories keep literal defaults, as mctx and optax).
# Not here: the learner's schedule and warm-up (make_schedule's defaults are a constant rate;
# a run's default is a cosine over its own length, which make_schedule cannot know).
FACTORY_DEFAULTS = [
    *(
        (f"network.{name}", networks.make_resnet, name)
        for name in (
            "channels",
            "blocks",
            "activation",
            "normalization",
            "value_hidden",
            "reply_head",
            "score_head",
        )
    ),
    ("selfplay.inference_dtype", networks.make_resnet, "compute_dtype"),
    ("search.policy", search.make_search, "policy"),
    *(
        (f"search.{name}", search.make_puct, name)
        for name in (
            "num_simulations",
            "dirichlet_alpha",
            "dirichlet_fraction",
            "c_puct",
            "c_puct_base",
            "discount",
            "heuristic_weight",
        )
    ),
    *(
        (f"search.{name}", search.make_gumbel, name)
        for name in ("num_simulations", "max_num_considered_actions", "gumbel_scale")
    ),
    ("search.discount", selfplay.make_selfplay, "discount"),
    ("selfplay.root_value_weight", selfplay.make_selfplay, "root_value_weight"),
    *(
        (f"budget.{name}", playout_cap.make_playout_cap, name)
        for name in ("full_search_probability", "fast_simulations")
    ),
    *(
        (f"budget.{name}", by_ply.make_by_ply, name)
        for name in ("early_slots", "early_simulations")
    ),
    ("opening.handicap_moves", handicap.make_handicap, "handicap_moves"),
    ("opening.random_plies", random_plies.make_random, "random_plies"),
    ("learner.learning_rate", learner.make_schedule, "learning_rate"),
    ("learner.decay_rate", learner.make_schedule, "decay_rate"),
    ("learner.decay_steps", learner.make_schedule, "decay_steps"),
    ("learner.optimizer", learner.make_optimizer, "name"),
    ("learner.l2_weight", learner.make_update, "l2_weight"),
    ("learner.value_weight", learner.make_update, "value_weight"),
]


@pytest.mark.parametrize(
    ("key", "factory", "keyword"),
    FACTORY_DEFAULTS,
    ids=[f"{key}-{factory.__name__}" for key, factory, _ in FACTORY_DEFAULTS],  # stable ids
)
def test_settings__defaults_are_the_factories_keyword_defaults(key, factory, keyword):
    assert settings.default(key) == inspect.signature(factory).parameters[keyword].default


def test_settings__choice_lists_are_the_owners():
    rules = dict(settings.leaves())
    assert rules["network.activation"].rule.says() == f"one of {tuple(networks.ACTIVATIONS)}"
    assert rules["learner.schedule"].rule.says() == f"one of {learner.SCHEDULES}"
    assert rules["learner.optimizer"].rule.says() == f"one of {learner.OPTIMIZERS}"
    assert "gumbel" in rules["search.policy"].rule.says()


def test_settings__resumable_is_a_property_of_each_setting():
    resumable = {key for key, setting in settings.leaves() if setting.resumable}
    assert {"log_every", "imports", "evaluation.games", "evaluation.opponents"} <= resumable
    assert not {"seed", "network.channels", "search.policy", "replay.capacity"} & resumable
    assert settings.resumable("time_limit_minutes") and not settings.resumable("network.hidden")


def test_settings__complete_adds_a_top_level_key_added_later():
    config = configs.get_config("tic_tac_toe", "smoke")
    del config["imports"]
    del config.network["kind"]
    completed = settings.complete(config)
    assert completed.imports == () and completed.network.kind == "resnet"
    settings.check(completed)


class _TwoLayers(nn.Module):
    num_actions: int
    width: int

    @nn.compact
    def __call__(self, observations, train):
        x = nn.relu(nn.Dense(self.width)(observations.reshape(observations.shape[0], -1)))
        return nn.Dense(self.num_actions)(x), nn.tanh(nn.Dense(1)(x)[:, 0])


def _make_two_layers(game, *, width: int = 16, gain: float = 1.0):
    del gain
    return _TwoLayers(game.num_actions, width)


def test_plug__a_network_of_one_s_own_is_checked_by_its_own_settings():
    networks.register("test_two_layers", _make_two_layers)
    config = configs.get_config("tic_tac_toe", "smoke")
    settings.plug(config, "network", "test_two_layers", width=8)
    assert config.network.to_dict() == {"kind": "test_two_layers", "width": 8, "gain": 1.0}
    settings.check(config)
    del config.network["gain"]  # an older or shorter config: complete gives the default
    assert settings.complete(config).network.gain == 1.0
    config.network = ml_collections.ConfigDict({"kind": "test_two_layers", "width": "8"})
    with pytest.raises(settings.ConfigError, match=r"config\.network\.width must be an int"):
        settings.check(settings.complete(config))
    config.network = ml_collections.ConfigDict({"kind": "test_two_layers", "channels": 8})
    with pytest.raises(settings.ConfigError, match=r"unknown key config\.network\.channels"):
        settings.check(settings.complete(config))
    with pytest.raises(settings.ConfigError, match=r"depth: no setting of network"):
        settings.plug(config, "network", "test_two_layers", depth=2)


def test_plug__an_unregistered_name_is_refused_in_one_line_listing_the_registered():
    config = configs.get_config("tic_tac_toe", "smoke")
    config.network.kind = "transformer"
    with pytest.raises(settings.ConfigError) as error:
        settings.check(config)
    assert "config.network.kind must be a registered network kind, one of (" in str(error.value)
    assert "'resnet'" in str(error.value) and "\n" not in str(error.value)
    config = configs.get_config("tic_tac_toe", "smoke")
    config.search.policy = "forced"
    with pytest.raises(settings.ConfigError, match=r"registered search policy, one of \(.*'puct'"):
        settings.check(config)
    config = configs.get_config("tic_tac_toe", "smoke")
    config.learner.aux_weights = {"no_such_term": 1.0}
    with pytest.raises(settings.ConfigError, match=r"aux_weights must be a dict of registered"):
        settings.check(config)
    config.imports = ("no_such_module_of_plugins",)
    with pytest.raises(settings.ConfigError, match=r"cannot import 'no_such_module_of_plugins'"):
        settings.complete(config)


def test_tdmcts_settings__go_through_a_table_of_their_own():
    table = settings.TDMCTS_SETTINGS
    for key, setting in settings.leaves(table):
        assert setting.doc.strip() and setting.rule.check(setting.default), key
    assert [key for key, setting in settings.leaves(table) if setting.resumable] == ["episodes"]
    config = settings.base_config(table)
    settings.check(config, table)
    config.episodes = 0
    with pytest.raises(settings.ConfigError, match=r"config\.episodes must be an int >= 1, got 0"):
        settings.check(config, table)


def test_plugin_modules__records_the_importable_modules_of_a_run_s_plug_ins():
    def make_from_file(game, *, width: int = 16):  # as if defined in a config file
        return _TwoLayers(game.num_actions, width)

    def make_from_module(game, *, width: int = 16):  # as if defined in an importable module
        return _TwoLayers(game.num_actions, width)

    make_from_file.__module__ = "a_config_file_loaded_by_path"
    make_from_module.__module__ = "json"  # any module that an import finds
    networks.register("test_from_file", make_from_file)
    networks.register("test_from_module", make_from_module)
    config = configs.get_config("tic_tac_toe", "smoke")
    assert settings.plugin_modules(config) == ()  # the ResNet and PUCT: the library's
    config.imports = ("my_plugins",)
    settings.plug(config, "network", "test_from_file")
    assert settings.plugin_modules(config) == ("my_plugins",)
    settings.plug(config, "network", "test_from_module")
    assert settings.plugin_modules(config) == ("my_plugins", "json")


def test_register_preset__a_preset_of_one_s_own_for_a_registered_game():
    """A researcher's recipe for a built-in game: ``--config=tic_tac_toe:long`` builds it,
    the game's own presets are kept, and the name is refused a second time from elsewhere."""

    def long(config):
        """Tic-Tac-Toe's default for twice the iterations."""
        configs.get_config("tic_tac_toe", "cpu")  # the game's own, unchanged
        config.game.settings = {"rows": 3, "cols": 3, "connect": 3}
        config.num_iterations = 600

    configs.register_preset("tic_tac_toe", "long", long)
    assert configs.presets("tic_tac_toe") == ("smoke", "cpu", "gpu", "long", "auto")
    assert configs.get_config("tic_tac_toe", "long").num_iterations == 600
    with pytest.raises(ValueError, match="The preset name 'tic_tac_toe:long' is taken by"):
        configs.register_preset("tic_tac_toe", "long", lambda config: None)
    with pytest.raises(ValueError, match="Unknown game 'chess'; registered: connect_four"):
        configs.register_preset("chess", "long", long)
    with pytest.raises(ValueError, match="A preset's name must be GAME:PRESET"):
        configs.register_preset("tic_tac_toe", "two words", long)


def test_plug_points__every_registry_refuses_an_unknown_name_in_the_same_words():
    """One registry type: each plug point refuses a name nobody registered in one line that
    lists the registered names and says how one's own is added (config.imports)."""
    from alphazero_jax import plugs

    for registry in plugs.ALL:
        with pytest.raises(ValueError) as caught:
            registry.get("no_such_name")
        message = str(caught.value)
        assert message.startswith(f"Unknown {registry.what} 'no_such_name'; registered: ")
        assert registry.register_with in message and "config.imports" in message
        assert "\n" not in message
        assert registry.available() and all(registry.is_built_in(n) for n in registry.available())
