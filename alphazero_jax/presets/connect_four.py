"""Connect Four 6x7, by hardware: ``smoke`` (tests), ``cpu`` (about an hour of 2 cores:
``make train``), ``gpu`` (minutes of one GPU). Agent recipes (``configs.recipes``):
``long_gpu`` (the shipped agent's), ``playout_cap`` (``make train``'s before ``cpu``),
``agent`` (a 32 x 3 agent in one session of 2 cores), ``long`` (a 64 x 4 network over
several sessions) and ``default`` (the accelerator preset before ``gpu``)."""

from __future__ import annotations

import ml_collections

from alphazero_jax.presets._recipe import agent_recipe
from alphazero_jax.presets._smoke import budget, shrink

# make train's searches (the `cpu` preset's): every move searched with 16 simulations of
# Gumbel, sampled from the improved policy and kept, games from random 0-2-ply starts
# (experiments/ablations/connect_four_arms.sh: ARMS_LEAN, with its updates left out).
LEAN_SEARCHES = {
    "search.policy": "gumbel",
    "selfplay.simulation_stages": ((0, 16),),
    "budget.kind": "full",
    "selfplay.num_sampling_moves": 42,
    "opening.kind": "random",
    "opening.random_plies": 2,
}


def _common(config: ml_collections.ConfigDict) -> None:
    config.game.settings = {"rows": 6, "cols": 7, "connect": 4}


@agent_recipe
def default(config: ml_collections.ConfigDict) -> None:
    """The accelerator preset before ``gpu``, kept so that a run started with
    ``--config=connect_four:default`` resumes: 1,000 iterations of 4,096 games at 128
    simulations, 48-49 s an iteration on an H100 (about 13 hours); not yet measured on a GPU
    to its end."""
    _common(config)
    config.num_iterations = 1000
    config.network.update(channels=128, blocks=6, value_hidden=128)
    config.search.num_simulations = 128
    # 4096 slots x 84 moves: ~285k positions an iteration (the unfinished last game of
    # each slot is dropped), 44M network evaluations: 47-49 s of self-play on an H100
    # (measured 2026-11-27 in training, 5.8-6.0k positions/s; 9.3k at 4096 slots with a
    # fresh network alone on 2026-11-22, 4.0k at 512).
    config.selfplay.update(batch_size=4096, num_moves=84)
    # Four iterations of positions (~600 bytes each: ~0.7 GB, replicated per device).
    config.replay.capacity = 1_000_000
    # Replay ratio ~0.7: 96 x 2048 = 197k samples an iteration for ~285k new positions,
    # so each position is trained on about 0.7 times in the ~4 iterations it is kept
    # (AlphaZero.jl's Connect Four trains about once per position). On an H100 the 96
    # updates of 2048 on the 128x6 net took 0.7-1.0 s against 47-49 s of self-play
    # (2026-11-27): the loop runs at 0.98x of self-play. Measured there on 2026-11-22:
    # these settings trained at 5.2k positions/s and after 7.5 minutes erred on 8.5% of
    # Middle-Medium and 12.7% of Begin-Hard, where 512 slots x 32 updates of 1024 erred
    # on 8.1% and 14.3% after 14.5 minutes.
    config.learner.update(batch_size=2048, updates_per_iteration=96, warmup_steps=20)
    # Evaluation bounded: every 30 iterations (about 25 minutes on an H100), 64 games per
    # baseline and 500 positions per set: 94 s there, ~6% of the time (time/evaluation).
    config.evaluation.update(
        every=30,
        games=64,
        opponents=("random", "greedy", "minimax:2", "minimax:4"),
        perfect_play_positions=500,  # of End-Easy, Middle-Medium, Random-Play
    )


@agent_recipe
def playout_cap(config: ml_collections.ConfigDict) -> None:
    """``make train``'s preset before ``cpu``, and the reference of the comparisons that chose
    ``cpu``: the 32 x 3 network, PUCT with a playout cap, 480 iterations, about an hour of 2
    cores. The ``agent`` recipe and those built on it train with its search and targets."""
    _common(config)
    # 5.3-6.0 s an iteration on 2 idle AMD cores (16 updates: 0.6 s of it) and ~40 s an
    # evaluation every 20 iterations: about an hour (docs: results, settings compared).
    # On 2 idle Intel cores a median 6.3-7.1 s and ~30 s: 63-71 minutes (2026-11-27); 115
    # by its clock on 2026-11-26, partly beside other work.
    config.num_iterations = 480
    config.network.update(channels=32, blocks=3, value_hidden=32)
    # Playout-cap randomisation (Wu, 2019): 1 move in 4 searched with 64 simulations and
    # kept for training, the others with 16 and not recorded (29 network calls a move on
    # average, against 33 for 32 simulations everywhere); value targets half the outcome,
    # half the search's root value. Judged on 3 x 1000 positions at 32 simulations after an
    # hour: the playout cap took Middle-Medium from 20.2% to 16.0%, the root value from
    # 16.8% to 12.9%.
    config.search.num_simulations = 64
    # Twice AlphaZero's exploration constant: on two seeds of an hour each, 2.5 erred on
    # 2.0-2.3 points fewer Middle-Medium positions than 1.25 at the end (docs: ablations).
    config.search.c_puct = 2.5
    config.selfplay.update(batch_size=64, num_moves=84, root_value_weight=0.5)
    config.budget.update(kind="playout_cap", full_search_probability=0.25, fast_simulations=16)
    # The last ~130 iterations' positions (~1,150 kept an iteration). Over the whole
    # schedule: 9.7% of Middle-Medium at iteration 480 against 60,000's 12.4% (seed 0), and
    # 9.6% against 10.9% on seed 1; 8.5-10.5% at every checkpoint of either seed from about
    # iteration 140 on, and 60,000 10.7-12.7% at every one judged from 178 (docs: ablations).
    config.replay.capacity = 150_000
    config.learner.update(batch_size=256, updates_per_iteration=16, learning_rate=2e-3)
    # random, greedy, minimax:2; mistake rates on 100 of End-Easy, Middle-Medium, Random-Play
    config.evaluation.update(every=20, games=64, perfect_play_positions=100)


def cpu(config: ml_collections.ConfigDict) -> None:
    """``make train``, about an hour of 2 cores, stopped at 90 minutes: measured on 2-core
    AMD and Intel machines at 47-60 minutes, 6.0-6.9% of Middle-Medium and 15.0-16.6% of
    Begin-Hard wrong at 64 simulations (docs: choosing a preset).

    ``playout_cap``'s game length, targets, replay memory and learner with the 64 x 4 network
    trained on every move of games searched with 16 simulations of Gumbel, 150 iterations
    (the comparisons that chose it: docs, results, ablations). It plays with a steeper Gumbel
    sigma than it self-plays with (``search.play_value_scale`` 0.2)."""
    playout_cap(config)  # its game length, root-value targets, replay memory and learner
    # lean64_hour's 180 iterations took 60 minutes of 2 AMD cores without evaluations
    # (20.1 s each, on two seeds); 150 take about 50, and three evaluations (69 s for the
    # first, baselines rated included, measured at iteration 150) and the start the rest
    # of the hour.
    config.num_iterations = 150
    # The long recipes' network: about five times the 32 x 3's arithmetic an evaluation.
    # With playout_cap's searches it kept 53-64 positions a second on 2 cores; the 32 x 3
    # network's Middle-Medium stayed at 8.9-9.1% after every hour it was trained, on any
    # targets.
    config.network.update(channels=64, blocks=4, value_hidden=64)
    # Every move searched with 16 simulations of Gumbel (Danihelka et al., 2022), sampled
    # from the improved policy and kept for training, games starting from random 0-2-ply
    # positions (AlphaZero.jl issue #217's recipe): 17 network calls a kept position where
    # playout_cap spends about 116, so 204-237 positions a second on 2 AMD cores. Play and
    # the judge search with num_simulations (64) of Gumbel.
    config.search.policy = "gumbel"
    config.selfplay.update(simulation_stages=((0, 16),), num_sampling_moves=42)
    config.budget.kind = "full"
    config.opening.update(kind="random", random_plies=2)
    # About 2 samples a new position (playout_cap's about 3.6): 5-6 s of a 20 s iteration.
    config.learner.updates_per_iteration = 32
    config.evaluation.every = 50
    # Play (the evaluations, the trained agent) leans twice as hard on the search's values
    # as self-play does: Gumbel's sigma at value_scale 0.2 for mctx's 0.1, chosen after
    # training on 1,245 validation positions no shipped set holds (the recipe's network at
    # 30 minutes: 10.4% of mistakes at 0.1, 9.0% at 0.2, 9.2-9.6% at 0.15-1.0; docs:
    # ablations, "Play-time sigma"). Self-playing with 0.2 taught no faster. Training does
    # not read it.
    config.search.play_value_scale = 0.2
    # A machine with AVX2 alone took 47.7 s an iteration (over two hours): it stops at 90
    # minutes, evaluated, and resumes when run again.
    budget(config, 90)


def gpu(config: ml_collections.ConfigDict) -> None:
    """One GPU, a budget of 6 minutes: ``long_gpu``'s network and games with ``cpu``'s
    searches, the ablations' arm ``lean``. Measured on one H200 as that arm: AlphaZero.jl's
    Middle-Medium (2.8% wrong at 600 simulations) met at 1.18 minutes (2.4%), its Begin-Hard
    (7.4%) not met in 125 iterations (8.0% at best; docs: ablations, "lean on one GPU").
    Not yet measured on a GPU as this preset, run to its end with its own evaluations.

    The 64 x 4 network, 512 games at once and 125 iterations of ``long_gpu``; every move
    searched with 16 simulations of Gumbel, sampled from the improved policy and kept, games
    from random 0-2-ply starts (``cpu``'s searches), and 256 updates of 256 an iteration
    (about 2 samples a kept position, as on the CPU). Its median iteration took 1.30 s of
    the H200 for about 36,000 kept positions (6.7 times ``long_gpu``'s positions a second)."""
    long_gpu(config)
    for key, value in LEAN_SEARCHES.items():
        section, name = key.split(".")
        config[section][name] = value
    config.learner.updates_per_iteration = 256
    # 125 iterations of 1.3 s, the first one's compilation and five evaluations (every 25)
    # fit in about 4 minutes of an H200; 6 leave room for a slower card.
    budget(config, 6)


@agent_recipe
def agent(config: ml_collections.ConfigDict) -> None:
    """The recipe of the agent shipped before ``long_gpu``'s, ``make agent
    GAME=connect_four``: the ``playout_cap`` preset for 700 iterations, with an evaluation
    every 100; one working session of 2 cores."""
    playout_cap(config)
    config.num_iterations = 700
    config.evaluation.update(every=100, perfect_play_positions=200)


@agent_recipe
def long(config: ml_collections.ConfigDict) -> None:
    """A longer run for 2 cores, ``make agent GAME=connect_four RECIPE=long``: the ``agent``
    recipe's search and targets with a network of 64 channels x 4 blocks (about 5x the 32 x 3
    network's parameters) for 1,000 iterations over several sessions (it resumes exactly).
    The 32 x 3 agent's mistake rates were level from its 100th iteration to its 700th while
    its Elo rose; this asks whether a larger network keeps improving. ``long_gpu`` does the
    same work in wider iterations on one accelerator."""
    agent(config)
    config.num_iterations = 1000
    config.network.update(channels=64, blocks=4, value_hidden=64)
    # ~1,150 positions kept an iteration: the last ~175 iterations.
    config.replay.capacity = 200_000
    config.evaluation.update(every=50, perfect_play_positions=200)


@agent_recipe
def long_gpu(config: ml_collections.ConfigDict) -> None:
    """The ``long`` recipe's work shaped for one accelerator, ``make agent
    GAME=connect_four RECIPE=long_gpu``: 125 iterations of 512 games at once and 128
    updates each, where ``long`` has 1,000 of 64 and 16 updates. Both play about the
    same positions, take the same 16,000 updates of 256 (so the same cosine schedule by
    update) and keep the same 200,000 positions in replay; here the network learns after
    each iteration's ~9,100 new positions instead of ~1,150. On a GPU a small network's
    search is bound by its sequence of steps more than by its batch, so the recipe fits
    minutes of one GPU and trained the shipped agent; on 2 cores it is no faster than
    ``long`` per position."""
    long(config)
    config.num_iterations = 125
    config.selfplay.batch_size = 512
    config.learner.updates_per_iteration = 128
    config.evaluation.update(every=25)
    # Self-play keeps c_puct 2.5; the trained network plays with 1.0, chosen after training
    # on 1,245 validation positions no shipped set holds (7.0% of mistakes at 2.5, 6.0% at
    # 1.0, 6.1-6.4% at 0.75-1.5, 8.3% at 5), which took the shipped agent from 5.1 to 4.0%
    # of Middle-Medium (docs: the Connect Four card). Training does not read it.
    config.search.play_c_puct = 1.0


def smoke(config: ml_collections.ConfigDict) -> None:
    """Seconds of real training, for tests: measured on 2 cores, where the tests run it."""
    _common(config)
    shrink(config)
    config.selfplay.num_moves = 42


PRESETS = {
    "smoke": smoke,
    "cpu": cpu,
    "gpu": gpu,
    "long_gpu": long_gpu,
    "playout_cap": playout_cap,
    "agent": agent,
    "long": long,
    "default": default,
}
