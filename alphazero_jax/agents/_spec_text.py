"""The numbers inside agent specs (``minimax:4``, ``az:<run>:64``, ``tdmcts:100:c=0.5``)."""

from __future__ import annotations

import math

# Longer counts are refused before ``int`` reads them: no search is that big, and Python
# refuses 4,300 digits with a message about conversion limits, not about agents.
MAX_DIGITS = 9


def is_count(text: str) -> bool:
    """Whether ``text`` is a count in ASCII digits, at most ``MAX_DIGITS`` of them (``"²"``
    and ``"١"`` are digits to ``str.isdigit`` but not counts here)."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS


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
