"""Speed benchmarks against a peer, each a program: ``python -m experiments.benchmarks.<name>``."""
