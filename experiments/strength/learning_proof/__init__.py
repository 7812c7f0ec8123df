"""Proof that training learns, judged against exact references: a program per game.

    python -m experiments.strength.learning_proof.tic_tac_toe --workdir=runs/ttt_proof
    python -m experiments.strength.learning_proof.connect_four --workdir=runs/connect_four
    python -m experiments.strength.learning_proof.baselines --workdir=runs/othello_6x6

``tic_tac_toe`` trains and checks every position against a perfect oracle;
``connect_four`` and ``baselines`` (Othello, Quoridor) judge a run already trained.
``experiments.evaluate`` fits the Elo ladder.
"""
