"""The argument check shared by the game factories."""

from __future__ import annotations


def check_int(game: str, name: str, value: object, low: int, high: int) -> None:
    """Raises ValueError unless ``value`` is an int in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{game}: {name} must be an integer in [{low}, {high}], got {value!r}.")
