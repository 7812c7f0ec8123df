"""The installed command-line programs: ``alphazero-train``, ``alphazero-play`` and
``alphazero-serve`` (``python -m experiments.train`` and so on run the same ``main``).

This package and ``experiments/`` are the only places that read flags; everything below
takes typed arguments.
"""
