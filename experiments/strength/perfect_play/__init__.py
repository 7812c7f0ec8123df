r"""Connect Four against perfect play, three programs:

    python -m experiments.strength.perfect_play.agents \
        --agents=random,greedy,minimax:4,az:runs/connect_four
    python -m experiments.strength.perfect_play.checkpoints --run=runs/connect_four
    python -m experiments.strength.perfect_play.compare --runs=puct=runs/a,gumbel=runs/b \
        --output=runs/cmp

``agents`` judges agents on the perfect-play sets, ``checkpoints`` every saved checkpoint
of a run, ``compare`` draws runs judged by ``checkpoints`` together. The sets are
``solvers.benchmark_sets.SETS``, all seven by default: Pascal Pons' six and Random-Play. A
move is a mistake when another legal move has a strictly better game-theoretic outcome
(win > draw > loss); the labels are our solver's, shipped with the package
(``alphazero_jax/evaluation/perfect_play.py``).
"""
