"""Argument checks shared by the game factories, and the numbers of the move notations."""

from __future__ import annotations

# Longer digit strings are refused before ``int`` sees them (Python refuses 4,300 digits
# with a message about conversion limits, not about moves).
_MAX_DIGITS = 9


def check_int(game: str, name: str, value: object, low: int, high: int) -> None:
    """Raises ValueError unless ``value`` is an int in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{game}: {name} must be an integer in [{low}, {high}], got {value!r}.")


def small_int(text: str, low: int, high: int) -> int | None:
    """The number that ``text`` writes in ASCII digits when it lies in ``[low, high]``,
    else None (other digits, such as ``"²"`` or ``"١"``, are no rank or row)."""
    if not text.isascii() or not text.isdigit() or len(text) > _MAX_DIGITS:
        return None
    value = int(text)
    return value if low <= value <= high else None


def file_index(char: str, files: str) -> int | None:
    """The index of the one-letter file ``char`` (any case) in ``files``, else None."""
    lowered = char.lower()
    if len(lowered) != 1 or lowered not in files:
        return None
    return files.index(lowered)
