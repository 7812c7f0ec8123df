"""The settings table: every key of a training config once, with its default, its rule and
its meaning (``SETTINGS``), TD-MCTS's flat table (``TDMCTS_SETTINGS``), and the plug points'
sections (``PLUGS``). ``configs.settings`` reads it; ``configs.rules`` holds its rules.

The table sits below the training loop that reads it and above the games, networks,
searches and agents it names: each factory keeps literal keyword defaults (as mctx and optax
do), the table imports their choice lists (activations, normalisations, dtypes, perfect-play
sets, gating rules) and names registered plug-ins through ``plugs``, and a test keeps its
defaults equal to the signatures' (and its optimisers and schedules equal to the learner's,
which sits above it).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from alphazero_jax import networks, plugs
from alphazero_jax.configs.rules import (
    AUX_WEIGHTS,
    BOOL,
    DISCOUNT,
    FRACTION,
    GAME_NAME,
    GAME_SETTINGS,
    MIXED_BOARDS,
    MODULES,
    NON_NEGATIVE,
    NON_NEGATIVE_FLOAT,
    POSITIVE,
    POSITIVE_FLOAT,
    SET_NAMES,
    SPECS,
    STAGES,
    STEPS,
    STRING,
    Setting,
    integer,
    one_of,
    registered,
)
from alphazero_jax.evaluation.gating import GATING_RULES
from alphazero_jax.search import policies
from alphazero_jax.search import tdmcts as tdmcts_search
from alphazero_jax.solvers import benchmark_sets

# The learner's choices (training.learner.OPTIMIZERS and SCHEDULES, which a test keeps equal).
OPTIMIZERS = ("adam", "sgd")
SCHEDULES = ("constant", "cosine", "step")

S = Setting
SETTINGS: dict[str, Any] = {
    "seed": S(0, integer(0, 2**32 - 1), "The run's random seed: network, self-play, evaluation."),
    "num_iterations": S(100, POSITIVE, "Iterations of self-play then learning."),
    "log_every": S(1, POSITIVE, "Iterations between lines of the metrics log.", resumable=True),
    "checkpoint_every_minutes": S(
        5.0, POSITIVE_FLOAT, "Minutes between checkpoints.", resumable=True
    ),
    "max_to_keep": S(3, POSITIVE, "Checkpoints kept in the workdir (the newest).", resumable=True),
    "time_limit_minutes": S(
        0.0,
        NON_NEGATIVE_FLOAT,
        "> 0: save and stop after this long (this process); 0: none.",
        resumable=True,
    ),
    "imports": S(
        (),
        MODULES,
        "Modules imported before the config is read: those that register a network, search "
        "policy or loss term of one's own. Training adds the module of each plug-in it uses, "
        "so that a resumed run and an ``az:`` agent import them too.",
        added_later=True,
        resumable=True,
    ),
    "game": {
        "name": S("", GAME_NAME, "The game, by its registry name (``games.make``)."),
        "settings": S({}, GAME_SETTINGS, "The game's keyword arguments (``games.settings_of``)."),
        "mixed": S(
            (),
            MIXED_BOARDS,
            "Other boards of the same game that the network also learns on, each as the "
            "settings that differ from ``settings``, e.g. ``({'size': 5, 'walls': 3},)`` "
            "(as KataGo trains on mixed board sizes, Wu, 2019): self-play plays a batch on "
            "each into its own replay memory, and ``learner.mixed_updates`` updates learn "
            "from them. Needs a network whose variables fit every size (``network.kind="
            "'resnet_any_size'``); evaluation and export play the main board.",
            added_later=True,
        ),
    },
    "network": {
        "kind": S(
            "resnet",
            registered(plugs.NETWORKS),
            "The network, by its registry name: ``resnet`` or ``resnet_any_size`` (the "
            "keys below; the second's variables fit every board size, for ``game.mixed``) "
            "or one's own (``networks.register``; its factory's keyword settings replace "
            "them).",
            added_later=True,
        ),
        "channels": S(64, POSITIVE, "ResNet: channels of the residual tower."),
        "blocks": S(4, NON_NEGATIVE, "ResNet: residual blocks (two convolutions each)."),
        "activation": S("relu", one_of(*networks.ACTIVATIONS), "ResNet: the tower's nonlinearity."),
        "normalization": S(
            "batch_norm", one_of(*networks.NORMALIZATIONS), "ResNet: after each conv."
        ),
        "value_hidden": S(64, POSITIVE, "ResNet: width of the value head's hidden layer."),
        "reply_head": S(
            False,
            BOOL,
            "ResNet: a head predicting the opponent's reply, aux['reply'], for the loss term "
            "``reply`` (Wu, 2019).",
            added_later=True,
        ),
        "score_head": S(
            False,
            BOOL,
            "ResNet: a head predicting the game's final score, aux['score'], for the loss term "
            "``score`` (Wu, 2019; the game record's ``score``).",
            added_later=True,
        ),
    },
    "search": {
        "policy": S(
            "puct",
            registered(plugs.SEARCH_POLICIES),
            "``puct``: mctx's muzero_policy, AlphaZero's PUCT with root noise (Silver et al., "
            "2018); ``gumbel``: gumbel_muzero_policy (Danihelka et al., 2022); "
            "``puct_forced``: PUCT with forced playouts and policy target pruning (Wu, 2019; "
            "k = 2); or one's own "
            "(``search.register``; its factory's keyword settings replace the PUCT and Gumbel "
            "keys).",
        ),
        "num_simulations": S(64, POSITIVE, "Simulations of each self-play search."),
        "dirichlet_alpha": S(0.3, POSITIVE_FLOAT, "PUCT: the root noise's concentration."),
        "dirichlet_fraction": S(0.25, FRACTION, "PUCT: the root noise's share of the prior."),
        "c_puct": S(1.25, POSITIVE_FLOAT, "PUCT: the exploration constant c_1."),
        "c_puct_base": S(19652.0, POSITIVE_FLOAT, "PUCT: the constant c_2 of c's growth."),
        "play_c_puct": S(
            0.0,
            NON_NEGATIVE_FLOAT,
            "PUCT: c_1 when the network plays to win (agents, evaluations) rather than "
            "self-plays; 0: c_puct. Self-play explores, so play may want less.",
            added_later=True,
        ),
        "max_num_considered_actions": S(16, POSITIVE, "Gumbel: root actions sampled."),
        "gumbel_scale": S(1.0, NON_NEGATIVE_FLOAT, "Gumbel: the scale of the Gumbel noise."),
        "value_scale": S(
            0.1,
            POSITIVE_FLOAT,
            "Gumbel: sigma's scale c_scale, sigma(q) = (maxvisit_init + max visits) * "
            "value_scale * q, the weight of the search's values beside the prior's logits "
            "(Danihelka et al., 2022).",
            added_later=True,
        ),
        "maxvisit_init": S(
            50.0,
            NON_NEGATIVE_FLOAT,
            "Gumbel: sigma's c_visit, the visits sigma counts before the search has any.",
            added_later=True,
        ),
        "play_value_scale": S(
            0.0,
            NON_NEGATIVE_FLOAT,
            "Gumbel: value_scale when the network plays to win (agents, evaluations) rather "
            "than self-plays; 0: value_scale.",
            added_later=True,
        ),
        "discount": S(
            1.0,
            DISCOUNT,
            "Per-ply value discount of the search and of the value targets; below 1 the "
            "network learns how far a win is, so the search hurries to it.",
            added_later=True,
        ),
        "heuristic_weight": S(
            0.0,
            FRACTION,
            "The game heuristic's share of the search's node values (AlphaGo's mix of value "
            "network and rollouts); the value targets stay the outcomes.",
            added_later=True,
        ),
    },
    "selfplay": {
        "batch_size": S(64, POSITIVE, "Games played at once (slots), over all devices."),
        "num_moves": S(
            0,
            POSITIVE,
            "Moves per slot and iteration, at least the game's max_num_moves: games restart "
            "in their slot, and each slot's last, unfinished game is dropped.",
        ),
        "num_sampling_moves": S(
            10, NON_NEGATIVE, "Opening moves of each game sampled from the visit counts."
        ),
        "inference_dtype": S(
            "float32",
            one_of(*networks.COMPUTE_DTYPES),
            "The network's arithmetic in self-play (weights stay float32; the learner is "
            "unchanged); bfloat16 for a GPU's or TPU's bfloat16 units.",
            added_later=True,
        ),
        "root_value_weight": S(
            0.0,
            FRACTION,
            "w: value targets are (1 - w) x the outcome + w x the search's root value.",
            added_later=True,
        ),
        "simulation_stages": S(
            (),
            STAGES,
            "A rising simulation budget (Wu T.-R. et al., 2023): (iteration, simulations) "
            "pairs; from each iteration on, the budget's full search has its simulations "
            "(before the first, search.num_simulations); each stage's self-play is compiled "
            "once.",
            added_later=True,
        ),
    },
    "budget": {
        "kind": S(
            "full",
            registered(plugs.BUDGETS),
            "How self-play spends its search on each move and which positions it keeps "
            "(``training.budgets``): ``full``, every move searched with the stage's "
            "simulations and kept; ``playout_cap``, playout-cap randomisation (Wu, 2019); "
            "``by_ply``, more simulations for the youngest games; or one's own "
            "(``training.budgets.register``; its factory's keyword settings replace the keys "
            "below).",
            added_later=True,
        ),
        "full_search_probability": S(
            0.25,
            DISCOUNT,
            "playout_cap: the chance p that a move is searched in full (and kept for "
            "training); else with fast_simulations (and not kept).",
            added_later=True,
        ),
        "fast_simulations": S(
            16, POSITIVE, "playout_cap: the cheap search's simulations.", added_later=True
        ),
        "early_slots": S(
            16,
            POSITIVE,
            "by_ply: the e slots, each move, whose games are the youngest (fewest plies since "
            "their opening), searched with early_simulations; the others with the stage's.",
            added_later=True,
        ),
        "early_simulations": S(
            64, POSITIVE, "by_ply: the youngest games' simulations.", added_later=True
        ),
    },
    "opening": {
        "kind": S(
            "none",
            registered(plugs.OPENINGS),
            "How each self-play game's first plies are chosen (``training.openings``): "
            "``none``; ``handicap``, one side's first moves at random, kept for training; "
            "``random``, random plies of both sides, not trained on; or one's own "
            "(``training.openings.register``; its factory's keyword settings replace the keys "
            "below).",
            added_later=True,
        ),
        "handicap_moves": S(
            3,
            NON_NEGATIVE,
            "handicap: one side of each game plays its first 0..n moves at random, which puts "
            "positions the network's own play never reaches into the replay memory.",
            added_later=True,
        ),
        "random_plies": S(
            2,
            NON_NEGATIVE,
            "random: each game opens with 0..k (drawn per game) uniform random plies, not "
            "trained on, as AlphaZero.jl issue #217 (2024) starts games from random 0-2-ply "
            "positions.",
            added_later=True,
        ),
    },
    "replay": {
        "capacity": S(30_000, POSITIVE, "Positions the replay memory holds (a ring)."),
        "augment": S(True, BOOL, "Train on a random symmetry of each sampled position."),
        "window_start": S(
            0,
            NON_NEGATIVE,
            "s > 0: sample from a growing window of the newest positions (Wu, 2019): all of "
            "the first s, then s x (1 + 0.4 ((N/s)^0.75 - 1) / 0.75) of the N so far, at "
            "most the capacity; 0: from the whole memory.",
            added_later=True,
        ),
        "merge_duplicates": S(
            False,
            BOOL,
            "Average the targets (policy, value, further ones) of a sampled position over "
            "every copy of it in the memory (Clausen, 2020).",
            added_later=True,
        ),
    },
    "evaluation": {
        "every": S(0, NON_NEGATIVE, "Iterations between evaluations; 0: none.", added_later=True),
        "final": S(
            False,
            BOOL,
            "With ``every`` > 0: also evaluate the last network when the run stops at its last "
            "iteration or its time limit, if it has no evaluation yet (the time limit does "
            "not cut this one short; Ctrl-C does).",
            added_later=True,
            resumable=True,
        ),
        "games": S(64, POSITIVE, "Games per opponent (even).", added_later=True),
        "opponents": S(
            ("random", "greedy", "minimax:2"),
            SPECS,
            "Baselines, by agent spec (``agents.from_spec``).",
            added_later=True,
        ),
        "num_past": S(
            2, NON_NEGATIVE, "Earlier evaluated networks that are played too.", added_later=True
        ),
        "simulations": S(
            -1,
            integer(-1),
            "The network's simulations per move; -1: the search's, 0: its raw policy.",
            added_later=True,
        ),
        "opening_moves": S(
            2,
            NON_NEGATIVE,
            "Random plies opening each game (varies the games of a noise-free network).",
            added_later=True,
        ),
        "perfect_play_positions": S(
            0,
            NON_NEGATIVE,
            "Connect Four 6x7: mistake rates against perfect play on the first positions of "
            "perfect_play_sets at each evaluation; 0: off.",
            added_later=True,
        ),
        "perfect_play_sets": S(
            ("Test_L3_R1", "Test_L2_R2", benchmark_sets.RANDOM_PLAY),
            SET_NAMES,
            "The perfect-play sets judged (``benchmark_sets.SETS``).",
            added_later=True,
        ),
    },
    "gating": {
        "rule": S(
            "none",
            one_of(*GATING_RULES),
            "Whether a candidate network replaces the one self-play uses: ``none``, "
            "``win_ratio`` or ``score`` (``training/evaluator.py``).",
            added_later=True,
        ),
        "threshold": S(
            0.0, NON_NEGATIVE_FLOAT, "The rule's threshold; 0: its own.", added_later=True
        ),
        "games": S(
            40,
            POSITIVE,
            "Games of the candidate against the best network (even).",
            added_later=True,
        ),
    },
    "learner": {
        "batch_size": S(256, POSITIVE, "Positions per update, over all devices."),
        "updates_per_iteration": S(8, POSITIVE, "Optimiser updates after each self-play."),
        "mixed_updates": S(
            0,
            NON_NEGATIVE,
            "With ``game.mixed``: further updates an iteration on the other boards' "
            "positions, the boards in turn, before those on the main board's (the learning "
            "rate's schedule counts them too).",
            added_later=True,
        ),
        "optimizer": S("adam", one_of(*OPTIMIZERS), "``adam``, or ``sgd`` with momentum."),
        "learning_rate": S(1e-3, POSITIVE_FLOAT, "The peak learning rate."),
        "schedule": S(
            "cosine",
            one_of(*SCHEDULES),
            "``constant``, ``cosine`` (warm-up then decay to 0 over the run) or ``step``.",
        ),
        "warmup_steps": S(50, NON_NEGATIVE, "Cosine: updates of linear warm-up."),
        "decay_rate": S(0.1, POSITIVE_FLOAT, "Step: the factor at each of decay_steps."),
        "decay_steps": S((), STEPS, "Step: the updates at which the rate is multiplied."),
        "l2_weight": S(1e-4, NON_NEGATIVE_FLOAT, "Weight decay (L2 on the parameters)."),
        "value_weight": S(1.0, POSITIVE_FLOAT, "The value loss's weight beside the policy's."),
        "aux_weights": S(
            {},
            AUX_WEIGHTS,
            "Further loss terms by registry name, each with its weight, e.g. ``{'reply': "
            "0.15}``: ``reply``, the opponent's reply (Wu, 2019; network.reply_head), "
            "``score``, the final score (Wu, 2019; network.score_head), or one's own "
            "(``training.losses``).",
            added_later=True,
        ),
    },
}
for _key in SETTINGS["evaluation"]:  # how a run is judged, not what it computes
    SETTINGS["evaluation"][_key] = SETTINGS["evaluation"][_key]._replace(resumable=True)
del _key


class Plug(NamedTuple):
    """A section whose keys follow a registry choice: the key that chooses, the keys every
    choice has, the registry, and the keywords the loop gives every factory (not settings).
    A built-in choice's keys are the table's (it holds every built-in's); one's own are its
    factory's keyword settings."""

    key: str
    common: tuple[str, ...]
    registry: Any
    given: tuple[str, ...] = ()


PLUGS: dict[str, Plug] = {
    "network": Plug("kind", ("kind",), plugs.NETWORKS),
    "search": Plug(
        "policy",
        ("policy", *policies.COMMON, "play_c_puct", "play_value_scale"),
        plugs.SEARCH_POLICIES,
    ),
    "budget": Plug("kind", ("kind",), plugs.BUDGETS, given=("num_simulations", "batch_size")),
    "opening": Plug("kind", ("kind",), plugs.OPENINGS),
}


# TD-MCTS's runs (training.tdmcts): a flat config of their own, through the same kind of table.
TDMCTS_SETTINGS: dict[str, Setting] = {
    "algorithm": S("tdmcts", one_of("tdmcts"), "The run's kind (``search.tdmcts_run``)."),
    "game": S("tic_tac_toe", GAME_NAME, "The game, by its registry name, at its defaults."),
    "num_simulations": S(100, POSITIVE, "TD-MCTS's simulations per move."),
    "exploration": S(
        tdmcts_search.DEFAULT_EXPLORATION, NON_NEGATIVE_FLOAT, "UCT's exploration constant c."
    ),
    "gamma": S(tdmcts_search.DEFAULT_GAMMA, FRACTION, "The TD backups' per-ply discount."),
    "learning_rate_floor": S(
        tdmcts_search.DEFAULT_FLOOR,
        FRACTION,
        "The least step of a value's update; 0: the value is its targets' running mean.",
    ),
    "capacity": S(2**16, POSITIVE, "Entries of the value table (a power of two)."),
    "opponent": S("minimax:6", STRING, "The training opponent, an agent spec, or ``self``."),
    "tournament_opponent": S(
        "", STRING, "The tournaments' opponent; empty: the opponent (``mcts:100`` in self-play)."
    ),
    "episodes": S(5000, POSITIVE, "Training games in all.", resumable=True),
    "tournament_every": S(200, POSITIVE, "Episodes between tournaments."),
    "tournament_games": S(100, POSITIVE, "Games of each tournament (even)."),
    "batch_size": S(100, POSITIVE, "Games played at once (even; divides tournament_every)."),
    "seed": S(0, integer(0, 2**32 - 1), "The run's random seed."),
}
del S
