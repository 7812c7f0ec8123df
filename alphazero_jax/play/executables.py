"""The server's warm-up searches kept traced on disk, so that a second start compiles them
from the cache without tracing them again.

JAX's persistent compilation cache (``cli/compilation_cache.py``) keys a program by what
tracing makes of it: a start whose programs are all cached still traces and lowers each
one, 0.5-1.5 s a search on a CPU (24 of them in the warm-up: most of a second start).
``SearchStore`` keeps each search as ``jax.export`` makes it (its StableHLO module, and its
inputs' and outputs' shapes) under a key that stands for everything tracing reads: the
program (game, settings, agent spec and batch size, and its parameters' shapes), this
package's source, the versions of the libraries it is traced through, the backend and the
JAX and XLA settings that change a program. A change to any of them is another key: the
search is traced again, then stored. A stored search is compiled as ``jax.jit`` of its
exported call: JAX's persistent cache holds that program from the first start on.

The store lives in JAX's cache directory (``alphazero_jax-searches``), which the entry
points check is yours alone (its programs are run as found, as JAX's own are); no
directory (the cache off): nothing is stored. A file that cannot be read is traced again.
(``jax.export``'s own serialization needs the ``flatbuffers`` package, not a dependency;
the module and a JSON description of its arguments are written instead.)
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import pathlib
import tempfile
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
from jax import export

from alphazero_jax.types import Analysis, State

FOLDER = "alphazero_jax-searches"
# Libraries whose code a search is traced through, and what it runs on.
LIBRARIES = ("jax", "jaxlib", "mctx", "flax", "numpy")
# JAX settings that change a traced or compiled program.
SETTINGS = ("jax_enable_x64", "jax_default_matmul_precision", "jax_default_prng_impl")

Search = Callable[[Any, jax.Array, State], Analysis]  # (params, key, states) -> Analysis


class SearchStore:
    """Traced searches in ``folder``, by ``key``."""

    def __init__(self, folder: pathlib.Path):
        self.folder = folder

    @classmethod
    def beside_jax_cache(cls) -> SearchStore | None:
        """The store in JAX's persistent cache directory; None when that cache is off."""
        folder = jax.config.jax_compilation_cache_dir
        if not (jax.config.jax_enable_compilation_cache and folder):
            return None
        return cls(pathlib.Path(folder) / FOLDER)

    def key(self, program: str, params: Any, size: int) -> str:
        """The name of the search ``program`` (its game, settings and agent spec) at batch
        ``size`` with ``params`` (their shapes), as this installation traces it."""
        shapes = jax.tree.map(lambda x: (x.shape, str(x.dtype)), params)
        parts = [_installation(), program, str(size), str(jax.tree.structure(params)), str(shapes)]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    def compiled(
        self, key: str, search: Search, params: Any, rng: jax.Array, states: Callable[[], State]
    ) -> Search:
        """``search`` compiled for ``params``, a key like ``rng`` and a batch of states
        shaped as ``states()`` (called only when ``key`` is not stored), as a function of
        ``(params, key, states)``; traced and stored under ``key`` when it is not."""
        stored = self._load(key)
        if stored is None:
            stored = _exported(search, params, rng, states())
            self._save(key, *stored)
            stored = self._load(key) or stored  # compile the module as a later start will
        return _compiled(*stored)

    def _load(self, key: str) -> tuple[export.Exported, list[bool]] | None:
        try:
            head, _, module = (self.folder / key).read_bytes().partition(b"\n")
            described = json.loads(head)
            return _rebuilt(described, module), described["present"]
        except Exception:  # none, another version's, or damaged: traced again
            return None

    def _save(self, key: str, exported: export.Exported, present: list[bool]) -> None:
        described = {
            "fun_name": exported.fun_name,
            "in": [(a.shape, str(a.dtype)) for a in exported.in_avals],
            "out": [(a.shape, str(a.dtype)) for a in exported.out_avals],
            "nr_devices": exported.nr_devices,
            "platforms": list(exported.platforms),
            "calling_convention_version": exported.calling_convention_version,
            "module_kept_var_idx": sorted(exported.module_kept_var_idx),
            "uses_global_constants": exported.uses_global_constants,
            "present": present,
        }
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.folder, delete=False) as file:
                file.write(json.dumps(described).encode() + b"\n")
                file.write(exported.mlir_module_serialized)
            os.replace(file.name, self.folder / key)
        except OSError:  # a full or read-only disk: traced again next time
            return


def _exported(
    search: Search, params: Any, rng: jax.Array, example: State
) -> tuple[export.Exported, list[bool]]:
    """``search`` exported as a function of the leaves of ``(params, key data, states)``
    to those of its ``Analysis`` (``present``: which of its fields are not None)."""
    leaves, tree = jax.tree.flatten((params, jax.random.key_data(rng), example))
    present = []

    def flat(*leaves):
        params, key_data, states = jax.tree.unflatten(tree, leaves)
        analysis = search(params, jax.random.wrap_key_data(key_data), states)
        present[:] = [field is not None for field in analysis]
        return tuple(field for field in analysis if field is not None)

    shapes = [jax.ShapeDtypeStruct(np.shape(x), x.dtype) for x in leaves]
    return export.export(jax.jit(flat))(*shapes), present


def _rebuilt(described: dict[str, Any], module: bytes) -> export.Exported:
    """The ``Exported`` that ``_save`` described (one device, no effects or shardings)."""

    def avals(rows):
        return tuple(jax.core.ShapedArray(tuple(shape), np.dtype(dtype)) for shape, dtype in rows)

    count_in, count_out = len(described["in"]), len(described["out"])
    return export.Exported(
        fun_name=described["fun_name"],
        in_tree=jax.tree.structure(((0,) * count_in, {})),
        in_avals=avals(described["in"]),
        out_tree=jax.tree.structure((0,) * count_out),
        out_avals=avals(described["out"]),
        _in_named_shardings=(None,) * count_in,
        _out_named_shardings=(None,) * count_out,
        in_shardings_hlo=(None,) * count_in,
        out_shardings_hlo=(None,) * count_out,
        nr_devices=described["nr_devices"],
        platforms=tuple(described["platforms"]),
        ordered_effects=(),
        unordered_effects=(),
        disabled_safety_checks=(),
        mlir_module_serialized=module,
        calling_convention_version=described["calling_convention_version"],
        module_kept_var_idx=tuple(described["module_kept_var_idx"]),
        uses_global_constants=described["uses_global_constants"],
        _get_vjp=None,
    )


def _compiled(exported: export.Exported, present: list[bool]) -> Search:
    flat = jax.jit(exported.call).lower(*exported.in_avals).compile()

    def search(params: Any, key: jax.Array, states: State) -> Analysis:
        found = iter(flat(*jax.tree.leaves((params, jax.random.key_data(key), states))))
        return Analysis(*(next(found) if there else None for there in present))

    return search


@functools.cache
def _installation() -> str:
    """What a traced search depends on beyond its own inputs: this package's source, the
    libraries' versions, the backend and the settings of JAX and XLA."""
    source = hashlib.sha256()
    package = pathlib.Path(__file__).parents[1]
    for path in sorted(package.rglob("*.py")):
        source.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    versions = [f"{name}={importlib.metadata.version(name)}" for name in LIBRARIES]
    device = jax.devices()[0]
    settings = [f"{name}={getattr(jax.config, name)}" for name in SETTINGS]
    return "\n".join(
        [
            source.hexdigest(),
            *versions,
            f"{device.platform}:{device.device_kind}",
            os.environ.get("XLA_FLAGS", ""),
            *settings,
        ]
    )
