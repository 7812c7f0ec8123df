"""A plug-in's fault named: a run's compiled halves wrapped so that an exception raised in
a plug-in's own code (while tracing, in the first call of a compiled function) or a result
of the wrong shapes ends the run with a ``PlugInError`` whose first line names the plug-in
and its module; its own exception follows as the cause (the fault is in its code), or, for
wrong shapes, nothing (the one line says what was expected).

Only plug-ins of one's own are named: a fault in the library's own code is the library's,
and its traceback is left as it is.
"""

from __future__ import annotations

import functools
import os
import sys
import traceback
import types

from alphazero_jax import plugs
from alphazero_jax.configs import settings
from alphazero_jax.configs.plan import Plan
from alphazero_jax.registry import PlugInError, WrongShapes, factory_of


def named(plan: Plan, fn):
    """``fn`` (a half of an iteration) with its plug-ins' faults named."""
    chosen = settings.chosen_plugins(plan.config) + [(plugs.TARGETS, t) for t in plan.targets]
    own = [(registry, name) for registry, name in chosen if not registry.is_built_in(name)]
    codes = [(_codes(factory_of(registry.get(name))), (registry, name)) for registry, name in own]
    files = {}  # a file of several plug-ins: the first chosen (the network before the rest)
    for registry, name in own:
        files.setdefault(_file_of(registry.module_of(name)), (registry, name))
    files.pop(None, None)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except WrongShapes as error:
            name = error.name or next((n for r, n in chosen if r is error.registry), "?")
            raise PlugInError(
                f"{error.registry.describe(name)} returned the wrong shapes: {error}"
            ) from None
        except Exception as error:
            culprit = _culprit(error, codes, files)
            if culprit is None:
                raise
            registry, name = culprit
            raise registry.failure(name, "in a compiled call", error) from error

    return call


def _file_of(module: str) -> str | None:
    loaded = sys.modules.get(module)
    path = getattr(loaded, "__file__", None)
    return os.path.realpath(path) if path else None


def _codes(fn) -> set:
    """The code of a plug-in's function and of every function defined inside it."""
    found, stack = set(), [getattr(fn, "__code__", None)]
    while stack:
        code = stack.pop()
        if isinstance(code, types.CodeType) and code not in found:
            found.add(code)
            stack.extend(const for const in code.co_consts if isinstance(const, types.CodeType))
    return found


def _culprit(error: BaseException, codes: list, files: dict):
    """The plug-in running in the innermost frame of ``error``'s traceback that is a plug-in's
    own: by its function (or one defined inside it), else by its module's file; None where
    no plug-in of one's own was running."""
    for frame, _ in reversed(list(traceback.walk_tb(error.__traceback__))):
        for owned, plug_in in codes:
            if frame.f_code in owned:
                return plug_in
        found = files.get(os.path.realpath(frame.f_code.co_filename))
        if found is not None:
            return found
    return None
