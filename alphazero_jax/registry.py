"""One registry type for every plug point: a name, an entry, and the module that registered it.

Every place a researcher's idea plugs in (a game, a network kind, a search policy, a loss
term, a self-play budget, ...) is a ``Registry`` (``alphazero_jax.plugs`` lists them all).
The built-ins register through it exactly as a plug-in does, and every list of them (the
settings table's choices, a flag's help, the docs) is read from it. Each registry has the
same verbs and says the same things:

- ``register(name, entry, module=...)``: a name taken by another module's entry, or a name
  that is no identifier, is refused in one line;
- ``get(name)``: an unknown name is refused in one line that lists the registered names and
  says how one's own is added (``config.imports`` names the module that registers it);
- ``available()`` (sorted), ``entries()`` (in registration order), ``module_of(name)``.

A registry whose built-ins live in a package above the code that reads it (the settings
table reads the loss terms' names, which ``training.losses`` registers) names that package
as its ``builtins``: the registry imports it the first time it is read, as a plug-in system
loads its plug-ins, so a reader never sees a registry without its built-ins.

``PlugInError`` is how a plug-in's failure ends a run: its first line names the plug-in,
its plug point and its module; the plug-in's own exception follows as its cause.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

T = TypeVar("T")

LIBRARY = "alphazero_jax"  # the modules of the built-ins start with this name


def factory_of(entry: object) -> object:
    """What owns a registered name: the entry's factory (its ``make`` or ``fn``), else the
    entry itself. Registering a name again with the same factory replaces its entry (a
    game's record updated, a module imported twice); with another factory it is refused."""
    for field in ("make", "fn"):
        if hasattr(entry, field):
            return getattr(entry, field)
    return entry


def is_identifier(name: object) -> bool:
    """The default rule of a registered name: a Python identifier."""
    return isinstance(name, str) and name.isidentifier()


class Registry(Generic[T]):
    """The entries of one plug point, by name.

    Args:
      what: the plug point in words, e.g. ``"search policy"``.
      register_with: the function a researcher calls to add one, e.g. ``"search.register"``.
      builtins: the module that registers the built-ins, imported when the registry is
        first read (None: the built-ins register where the registry is defined).
      name_rule: which names are accepted, and ``name_says``, how the refusal describes them.
      picked_by: what chooses an entry, e.g. ``"config.search.policy"`` (for the docs).
      guide: the docs page that shows how to write one (relative to ``docs/``).
    """

    def __init__(
        self,
        what: str,
        *,
        register_with: str,
        builtins: str | None = None,
        name_rule: Callable[[object], bool] = is_identifier,
        name_says: str = "an identifier",
        picked_by: str = "",
        guide: str = "",
    ):
        self.what = what
        self.register_with = register_with
        self.picked_by, self.guide = picked_by, guide
        self._builtins = builtins
        self._name_rule, self._name_says = name_rule, name_says
        self._entries: dict[str, T] = {}
        self._modules: dict[str, str] = {}
        self._missing: dict[str, str] = {}
        self._loaded = builtins is None

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True  # before the import: the built-ins register through here
            importlib.import_module(self._builtins)

    def register(self, name: str, entry: T, *, module: str) -> None:
        """Adds ``entry`` under ``name``; ``module`` is the module that defines it.

        Registering a name again with the same factory replaces its entry (``factory_of``);
        another factory under a taken name is refused.

        Raises:
          ValueError: a name the rule refuses, or one taken by another entry; one line.
        """
        if not self._name_rule(name):
            raise ValueError(f"A {self.what}'s name must be {self._name_says}, got {name!r}.")
        self._load()
        if name in self._entries and factory_of(self._entries[name]) is not factory_of(entry):
            raise ValueError(
                f"The {self.what} name {name!r} is taken by {self._modules[name]}; choose another."
            )
        self._entries[name] = entry
        self._modules[name] = module

    def get(self, name: str) -> T:
        """The entry registered as ``name``.

        Raises:
          ValueError: for a name nobody registered; one line listing those registered.
        """
        self._load()
        if not isinstance(name, str) or name not in self._entries:
            raise ValueError(self.why_unavailable(name) or self.unknown(name))
        return self._entries[name]

    def unavailable(self, name: str, why: str) -> None:
        """Marks ``name`` as an entry that this installation cannot offer (its optional
        dependency is missing): ``get(name)`` refuses it with ``why``, one line that says
        how to install it, instead of calling it unknown; ``available()`` leaves it out."""
        self._missing[name] = why

    def why_unavailable(self, name: object) -> str | None:
        """The line that refuses ``name`` where it is marked ``unavailable``, else None."""
        self._load()
        return self._missing.get(name) if isinstance(name, str) else None

    def unknown(self, name: object) -> str:
        """The one line that refuses ``name``."""
        return (
            f"Unknown {self.what} {name!r}; registered: {', '.join(self.available()) or 'none'}. "
            f"One's own is added with {self.register_with} in a module that the run's "
            "config.imports names."
        )

    def available(self) -> tuple[str, ...]:
        """The registered names, sorted."""
        self._load()
        return tuple(sorted(self._entries))

    def entries(self) -> tuple[T, ...]:
        """The registered entries, in the order they were registered."""
        self._load()
        return tuple(self._entries.values())

    def items(self) -> Iterator[tuple[str, T]]:
        """``(name, entry)`` pairs, in the order they were registered."""
        self._load()
        return iter(tuple(self._entries.items()))

    def module_of(self, name: str) -> str:
        """The module that defines the entry ``name`` (ValueError for an unknown name)."""
        self.get(name)
        return self._modules[name]

    def is_built_in(self, name: str) -> bool:
        """Whether ``name`` is one of the library's own entries."""
        module = self.module_of(name)
        return module == LIBRARY or module.startswith(LIBRARY + ".")

    def describe(self, name: str) -> str:
        """``"the search policy 'puct_forced' (alphazero_jax.search.forced_playouts)"``."""
        return f"the {self.what} {name!r} ({self.module_of(name)})"

    def failure(self, name: str, when: str, error: BaseException) -> PlugInError:
        """The ``PlugInError`` of the entry ``name`` failing ``when`` (e.g. ``"when built"``);
        raise it ``from error`` so that the plug-in's own traceback follows."""
        return PlugInError(f"{self.describe(name)} failed {when}: {type(error).__name__}: {error}")

    def save(self) -> tuple[dict, dict]:
        """What is registered now (the built-ins loaded first), for ``restore``."""
        self._load()
        return dict(self._entries), dict(self._modules)

    def restore(self, saved: tuple[dict, dict]) -> None:
        """Registers again exactly what ``save`` saw (a test's own entries are gone)."""
        for table, before in zip((self._entries, self._modules), saved, strict=True):
            table.clear()
            table.update(before)

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._entries

    def __repr__(self) -> str:
        return f"Registry({self.what!r}: {', '.join(self.available())})"


class PlugInError(RuntimeError):
    """A plug-in failed; the first line names it, its plug point and its module."""


class WrongShapes(ValueError):
    """What a plug-in returned has other shapes than its plug point expects: raised where
    the library receives it (while tracing), with the plug point's registry and, where
    several of its plug-ins run (loss terms, targets), the plug-in's name; the run turns it
    into one line naming the plug-in (``training.plugin_faults``)."""

    def __init__(self, registry: Registry, message: str, *, name: str | None = None):
        super().__init__(message)
        self.registry, self.name = registry, name


def module_of(thing: object) -> str:
    """The module that defines a function or class (``"__main__"`` where it has none)."""
    return getattr(thing, "__module__", None) or "__main__"


def keyword_defaults(fn: Callable, *, given: tuple[str, ...] = ()) -> dict[str, Any]:
    """A factory's own settings: its keyword-only arguments with defaults, but those the
    caller ``given`` always passes (a budget's ``num_simulations``, say)."""
    return {
        key: p.default
        for key, p in inspect.signature(fn).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
        and p.default is not inspect.Parameter.empty
        and key not in given
    }
