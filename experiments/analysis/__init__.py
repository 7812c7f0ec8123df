"""Analyses of trained agents beyond a score, each a program:
``python -m experiments.analysis.<name>``."""
