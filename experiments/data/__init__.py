"""Generators and checks of the shipped data (``alphazero_jax/data/``): the perfect-play sets'
labels, the Random-Play set, the solver's scores."""
