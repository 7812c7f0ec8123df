"""What a training setting's value must be: ``Rule`` and ``Setting``, the rules the
settings table (``configs.table``) is written with, and ``ConfigError``.

Rules that look a name up in a registry (games, network kinds, search policies, loss terms)
look it up when a value is checked, so that a researcher's plug-in registered after this
module is imported is accepted.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import ml_collections

from alphazero_jax import plugs

# Counts reach int32 device arrays (iterations, positions, steps), so each fits one.
INT_MAX = 2**31 - 1
FLOAT32_MAX = 3.4028234663852886e38


class ConfigError(ValueError):
    """A training config that cannot run; the message names the key and what it accepts."""


class Rule(NamedTuple):
    """What a value must be: ``check(value)`` is True, ``expected`` says it in words (or,
    for a registry's names, a function that says it when asked)."""

    check: Callable[[Any], bool]
    expected: str | Callable[[], str]

    def says(self) -> str:
        """``expected``, in words."""
        return self.expected() if callable(self.expected) else self.expected


class Setting(NamedTuple):
    """One key of a training config.

    Attributes:
      default: its value unless a preset or a flag sets another.
      rule: what a value must be.
      doc: one or two sentences: what it does.
      added_later: whether runs written before the key existed lack it; such a run gets
        ``default``, which keeps the behaviour it was trained with.
      resumable: whether a resumed run may change it: how the run is watched and kept,
        not what it computes.
    """

    default: Any
    rule: Rule
    doc: str
    added_later: bool = False
    resumable: bool = False


def integer(low: int, high: int = INT_MAX) -> Rule:
    expected = f"an int >= {low}" if high == INT_MAX else f"an int in [{low}, {high}]"
    return Rule(
        lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high, expected
    )


def finite(value: float) -> bool:
    """Whether ``value`` is a finite float32 (settings reach the device as float32)."""
    try:
        return math.isfinite(value) and abs(float(value)) <= FLOAT32_MAX
    except OverflowError:  # an int too large for any float
        return False


def number(check: Callable[[float], bool], expected: str) -> Rule:
    """An int or a float (not a bool), finite in float32, that passes ``check``."""
    return Rule(
        lambda v: isinstance(v, int | float) and not isinstance(v, bool) and finite(v) and check(v),
        expected,
    )


def list_of(check: Callable[[Any], bool], expected: str) -> Rule:
    return Rule(lambda v: isinstance(v, list | tuple) and all(check(x) for x in v), expected)


def one_of(*options: str) -> Rule:
    return Rule(lambda v: isinstance(v, str) and v in options, f"one of {options}")


def registered(registry) -> Rule:
    """A name of ``registry``'s (``plugs``), looked up when checked: a researcher's plug-in
    may be registered after the table is built."""
    return Rule(
        lambda v: isinstance(v, str) and v in registry,
        lambda: (
            f"a registered {registry.what}, one of {registry.available()} "
            f"({registry.register_with})"
        ),
    )


GAME_NAME = registered(plugs.GAMES)
POSITIVE = integer(1)
NON_NEGATIVE = integer(0)
FRACTION = number(lambda v: 0 <= v <= 1, "a number in [0, 1]")
POSITIVE_FLOAT = number(lambda v: v > 0, "a finite number > 0")
NON_NEGATIVE_FLOAT = number(lambda v: v >= 0, "a finite number >= 0")
DISCOUNT = number(lambda v: 0 < v <= 1, "a number in (0, 1]")
BOOL = Rule(lambda v: isinstance(v, bool), "True or False")
GAME_SETTINGS = Rule(
    lambda v: isinstance(v, dict | ml_collections.ConfigDict),
    "a dict of the game's settings, such as {'rows': 6, 'cols': 7}",
)
MIXED_BOARDS = list_of(
    lambda x: isinstance(x, dict | ml_collections.ConfigDict),
    "a list of dicts of the game's settings, such as ({'size': 5, 'walls': 3},)",
)
SPECS = list_of(
    lambda x: isinstance(x, str), "a list of agent specs such as ('random', 'minimax:2')"
)
SET_NAMES = list_of(lambda x: isinstance(x, str), "a list of perfect-play set names")
STEPS = list_of(NON_NEGATIVE.check, "a list of ints >= 0")
MODULES = list_of(lambda x: isinstance(x, str), "a list of module names such as ('my_plugins',)")


def _weighed_terms() -> tuple[str, ...]:
    """The loss terms a run weighs by ``learner.aux_weights``: every registered one but those
    in every run's loss (``policy`` and ``value``)."""
    return tuple(n for n in plugs.LOSS_TERMS.available() if not plugs.LOSS_TERMS.get(n).always)


def _is_aux_weights(value: Any) -> bool:
    if not isinstance(value, dict | ml_collections.ConfigDict):
        return False
    return all(name in _weighed_terms() and _POSITIVE_OR_ZERO(w) for name, w in value.items())


def _POSITIVE_OR_ZERO(value: Any) -> bool:
    return NON_NEGATIVE_FLOAT.check(value)


def _is_stages(value: Any) -> bool:
    if not isinstance(value, list | tuple):
        return False
    pairs = [tuple(p) if isinstance(p, list | tuple) else () for p in value]
    if not all(len(p) == 2 and NON_NEGATIVE.check(p[0]) and POSITIVE.check(p[1]) for p in pairs):
        return False
    return all(a[0] < b[0] for a, b in itertools.pairwise(pairs))


STAGES = Rule(
    _is_stages,
    "a list of (iteration >= 0, simulations >= 1) pairs of ints, iterations increasing, such as "
    "((100, 32), (300, 64))",
)

AUX_WEIGHTS = Rule(
    _is_aux_weights,
    lambda: (
        "a dict of registered loss terms to weights >= 0, such as {'reply': 0.5}; terms: "
        f"{_weighed_terms()} ({plugs.LOSS_TERMS.register_with})"
    ),
)
STRING = Rule(lambda v: isinstance(v, str), "a string")


def size_hint(value) -> str:
    """Why a number that looks right is refused: it does not fit the device's int32 or
    float32."""
    if isinstance(value, int) and not isinstance(value, bool) and value > INT_MAX:
        return f" Counts are int32 on the device: at most {INT_MAX}."
    if isinstance(value, float) and math.isfinite(value) and abs(value) > FLOAT32_MAX:
        return f" Numbers are float32 on the device: at most {FLOAT32_MAX:.4g} in size."
    return ""
