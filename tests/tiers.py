"""Test helper: a family of cases that each start a process (a program's one-line errors,
its help, its old flag names) runs one of each kind in ``make test`` and the rest under
``@pytest.mark.long`` (docs/testing.md)."""

import pytest


def one_of_a_kind(kept, rest) -> list:
    """pytest parameters: ``kept`` as they are, for ``make test``, then ``rest`` marked
    ``long``. A case is one value or a tuple of the test's arguments."""
    return [*kept, *(pytest.param(*_arguments(case), marks=pytest.mark.long) for case in rest)]


def _arguments(case) -> tuple:
    return case if isinstance(case, tuple) else (case,)
