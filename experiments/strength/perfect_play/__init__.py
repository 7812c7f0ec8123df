r"""Research on Connect Four against perfect play, beside the installed judgments
(``alphazero-judge agents``, ``checkpoints`` and ``curves``, ``alphazero_jax/cli/judge/``):

    python -m experiments.strength.perfect_play.play_settings \
        --agent=az:pretrained --vary=play_c_puct:0.5,1,1.5,2,3.5,5

``play_settings`` chooses a network's play-time search setting on held-out validation
positions, then judges it on the shipped sets.
"""
