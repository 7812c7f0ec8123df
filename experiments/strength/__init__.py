"""Strength research beside the installed judgments (``alphazero-judge``): choosing a
network's play-time search setting against perfect play."""
