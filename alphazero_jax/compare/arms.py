"""An arm of a comparison: a name, a training config (``GAME:PRESET`` or ``FILE.py[:ARG]``,
as ``alphazero-train --config`` takes it) and its ``--config.KEY=VALUE`` overrides.

Its text form, one argument of ``alphazero-compare --arm``::

    gumbel=connect_four:cpu --config.search.policy=gumbel search.num_simulations=16

(``--config.`` before a key may be left out). The program builds its config exactly as the
train program does (``cli/compare.py``), overrides included, so an arm that names no key of
the config, or a value of the wrong type, is refused before anything is trained.
"""

from __future__ import annotations

import re
import shlex
from typing import NamedTuple

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_PREFIX = "--config."


class ArmError(ValueError):
    """An arm that cannot be read or built; the message is one line."""


class Arm(NamedTuple):
    """One arm: ``name`` (letters, digits, ``_.-``), ``config`` (``GAME:PRESET`` or a
    file) and ``overrides`` (``KEY=VALUE`` each, applied in order)."""

    name: str
    config: str
    overrides: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The arm as ``parse_arm`` reads it."""
        return " ".join([f"{self.name}={self.config}", *(_PREFIX + o for o in self.overrides)])

    def as_dict(self) -> dict:
        return {"name": self.name, "config": self.config, "overrides": list(self.overrides)}


def parse_arm(text: str) -> Arm:
    """The arm of ``"NAME=CONFIG [--config.KEY=VALUE | KEY=VALUE] ..."`` (shell quoting).

    Raises:
      ArmError: no ``NAME=CONFIG`` first, a bad name, or an override without ``=``.
    """
    expected = "expected 'NAME=GAME:PRESET [--config.KEY=VALUE ...]'"
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise ArmError(f"--arm={text!r}: {expected} ({error}).") from error
    if not words or "=" not in words[0] or words[0].startswith("-"):
        raise ArmError(f"--arm={text!r}: {expected}.")
    name, _, config = words[0].partition("=")
    if not NAME.match(name) or not config:
        raise ArmError(
            f"--arm={text!r}: {expected}, with a NAME of letters, digits and _.- and a "
            f"config after it; got name {name!r} and config {config!r}."
        )
    overrides = []
    for word in words[1:]:
        key = word.removeprefix(_PREFIX)
        if "=" not in key or key.startswith(("-", "=")):
            raise ArmError(f"--arm={text!r}: expected KEY=VALUE overrides, got {word!r}.")
        overrides.append(key)
    return Arm(name, config, tuple(overrides))
