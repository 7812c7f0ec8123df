"""Exact solvers, used as references for agents and tests."""
