"""The numbers inside agent specs (``minimax:4``, ``az:<run>:64``, ``tdmcts:100:c=0.5``)."""

from __future__ import annotations

import math

from alphazero_jax.games._notation import MAX_DIGITS, is_count

__all__ = ["MAX_DIGITS", "finite_number", "is_count"]


def finite_number(text: str) -> float | None:
    """The finite number ``text`` writes in ASCII (``"0.5"``, ``"1e-3"``), else None:
    ``nan``, ``inf``, other digits and surrounding spaces are refused."""
    if not text.isascii() or text != text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None
