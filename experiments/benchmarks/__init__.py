"""Speed benchmarks against a peer, run by ``python -m experiments.benchmark <name>``."""
