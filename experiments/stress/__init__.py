"""Stress tests: many players on the play server, and training killed again and again."""
