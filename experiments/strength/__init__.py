"""Strength benchmarks: agents against perfect play, trained runs against exact references."""
