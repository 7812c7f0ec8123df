"""Comparing training settings: arms (a config and its overrides) trained on several seeds
for the same budget, every checkpoint judged, curves with intervals and a paired verdict.

The installed program is ``alphazero-compare`` (``alphazero_jax/cli/compare.py``); the
pieces here are what it is made of, usable from a script:

- ``arms``: an arm's text (``name=GAME:PRESET --config.KEY=VALUE ...``) and its config;
- ``plan``: the plan of a comparison, kept in its output directory, and its units (arm, seed);
- ``timing``: a run's training seconds (self-play and learner, compilation left out) and
  the next slice of the round robin;
- ``stats``: intervals over seeds and positions, the exact McNemar (sign) test;
- ``judges``: what a checkpoint is judged by (perfect play, the Tic-Tac-Toe oracle, an
  anchor ladder);
- ``runner``: the round robin of slices of training and judging, resumable;
- ``report``: curves, tables at equal time and equal iterations, the verdict; ``plots``;
- ``record``: the comparison as data (``record.json``), what a results page renders;
- ``outputs``: what a comparison writes into its output directory (report, curves, record).
"""
