"""Every plug point of the library, each a ``registry.Registry``: where a researcher's idea
plugs in without editing the package.

A plug-in is registered with the function its plug point names (``games.register``,
``search.register``, ...), in a module that a run's ``config.imports`` lists, so that a
resumed run, an ``az:`` agent and the page export find it again. The built-ins register
the same way, from the module named beside each registry, and every list of them is read
from here: docs/extending.md's table of the plug points is generated from ``ALL``.
"""

from __future__ import annotations

import re

from alphazero_jax.registry import Registry


def _is_preset_name(name: object) -> bool:
    return isinstance(name, str) and re.fullmatch(r"[A-Za-z_]\w*:[A-Za-z_]\w*", name) is not None


def _is_agent_kind(name: object) -> bool:
    return isinstance(name, str) and re.fullmatch(r"[a-z_]\w*(:[a-z_]\w*)?", name) is not None


GAMES = Registry(
    "game",
    register_with="games.register",
    builtins="alphazero_jax.games",
    picked_by="config.game.name",
    guide="tutorials/own_game.md",
)
PRESETS = Registry(
    "preset",
    register_with="configs.register_preset",
    builtins="alphazero_jax.games",
    name_rule=_is_preset_name,
    name_says="GAME:PRESET, two identifiers",
    picked_by="--config=GAME:PRESET (a game's record holds its own)",
    guide="configuration.md",
)
ACTION_LAYOUTS = Registry(
    "action layout",
    register_with="networks.any_size.register_layout",
    builtins="alphazero_jax.networks.any_size",
    picked_by="a game's record (GameRecord(action_layout=...))",
    guide="training.md",
)
NETWORKS = Registry(
    "network kind",
    register_with="networks.register",
    builtins="alphazero_jax.networks",
    picked_by="config.network.kind",
    guide="tutorials/own_network.md",
)
SEARCH_POLICIES = Registry(
    "search policy",
    register_with="search.register",
    builtins="alphazero_jax.search",
    picked_by="config.search.policy",
    guide="tutorials/forced_playouts.md",
)
BUDGETS = Registry(
    "self-play budget",
    register_with="training.budgets.register",
    builtins="alphazero_jax.training.budgets",
    picked_by="config.budget.kind",
    guide="tutorials/selfplay_parts.md",
)
OPENINGS = Registry(
    "opening",
    register_with="training.openings.register",
    builtins="alphazero_jax.training.openings",
    picked_by="config.opening.kind",
    guide="tutorials/selfplay_parts.md",
)
TARGETS = Registry(
    "target",
    register_with="training.targets.register",
    builtins="alphazero_jax.training.targets",
    picked_by="the loss terms that read it",
    guide="tutorials/opponent_reply.md",
)
LOSS_TERMS = Registry(
    "loss term",
    register_with="training.losses.register",
    builtins="alphazero_jax.training.losses",
    picked_by="config.learner.aux_weights",
    guide="tutorials/opponent_reply.md",
)
AGENT_KINDS = Registry(
    "agent kind",
    register_with="agents.register",
    builtins="alphazero_jax.agents",
    name_rule=_is_agent_kind,
    name_says="a lowercase identifier, or two joined by a colon",
    picked_by="an agent spec (minimax:4, az:RUN)",
    guide="agents.md",
)
ONNX_WRITERS = Registry(
    "ONNX writer",
    register_with="play.onnx_network.register",
    builtins="alphazero_jax.play.onnx_network",
    picked_by="the run's network kind, when it is exported to the page",
    guide="play.md",
)

ALL = (
    GAMES,
    PRESETS,
    ACTION_LAYOUTS,
    NETWORKS,
    SEARCH_POLICIES,
    BUDGETS,
    OPENINGS,
    TARGETS,
    LOSS_TERMS,
    AGENT_KINDS,
    ONNX_WRITERS,
)
