"""The installed command-line programs: ``alphazero-train``, ``alphazero-play``,
``alphazero-serve``, ``alphazero-evaluate`` (the Elo ladder), ``alphazero-judge`` (perfect
play and the learning proofs, ``judge/``) and ``alphazero-export`` (a run's network as an
agent). In a checkout, ``python -m experiments.train`` and so on run the same ``main``.

This package and ``experiments/`` are the only places that read flags; everything below
takes typed arguments.
"""
