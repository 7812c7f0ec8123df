"""An agent as a bundle for the static play page: its network as ONNX and a JSON of what the
page's search needs, so that the page plays it in a browser with no Python behind it.

A bundle is two files named by the agent's key (``pretrained.key_of``):

- ``<key>.onnx``: the network (``onnx_network.network_to_onnx``);
- ``<key>.json``: the game and its settings, the network's input and output shapes, and the
  search as the agent plays it (``search.search_settings(..., play=True)``: no root noise,
  ``play_c_puct`` as PUCT's constant, ``play_value_scale`` as Gumbel's sigma scale), with
  how the move is read from it (``choice``: the most visited move for PUCT, sequential
  halving's choice for Gumbel). The page's search is the one the run's policy registered
  as its ``page`` (``search.register``); a policy that registered none is refused in one
  line, since the page could not play it as JAX does. So is an agent of a game whose rules
  the page has not in JavaScript (``PAGE_GAMES``; pgx's games, a game of one's own).

``write_page_agents`` writes a bundle per agent and ``agents.json``, the page's list of them.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Iterable

import jax

from alphazero_jax import games, networks, plugs, runs, search
from alphazero_jax.agents import pretrained
from alphazero_jax.play import onnx_network

FORMAT = 2  # the bundle JSON's version; the page refuses another (2: Gumbel's sigma settings)
INDEX_FILE = "agents.json"
# The offline page's own searches (play/static/offline/search.js), each with its move rule.
PAGE_SEARCHES = {"puct": "most_visited", "gumbel": "sequential_halving"}
# The games whose rules the offline page has in JavaScript (play/static/offline/games.js, its
# MAKERS; tests/play/test_offline_rules.py keeps the two equal).
PAGE_GAMES = ("connect_four", "othello", "quoridor", "tic_tac_toe")
_SEARCH_KEYS = (
    "policy",
    "num_simulations",
    "c_puct",
    "c_puct_base",
    "max_num_considered_actions",
    "value_scale",
    "maxvisit_init",
    "discount",
    "heuristic_weight",
)


def describe(run: runs.RestoredNetwork, *, num_simulations: int | None = None) -> dict:
    """The bundle JSON of a restored network (a shipped agent's or a run's).

    Args:
      run: the network and the config it was trained with.
      num_simulations: simulations per move (None: the run's own).

    Raises:
      ValueError: a game whose rules the page has not (``PAGE_GAMES``), or a search policy
        with no search on the page; one line.
    """
    check_page_game(run.game.name)
    policy = search.policies.get(run.config.search.policy)
    if policy.page not in PAGE_SEARCHES:
        raise ValueError(
            f"{plugs.SEARCH_POLICIES.describe(policy.name)} has no search on the offline "
            f"page (it registered page={policy.page!r}; the page plays "
            f"{', '.join(PAGE_SEARCHES)}), so the page cannot play this run as JAX does; "
            "play it with alphazero-serve or alphazero-play."
        )
    # A key the run's config predates (a Gumbel setting added since) has its factory's default.
    defaults = {
        key: value
        for name in PAGE_SEARCHES
        for key, value in search.policies.settings_of(name).items()
    }
    settings = search.search_settings({**defaults, **run.config.search.to_dict()}, play=True)
    settings["policy"] = policy.page
    if num_simulations is not None:
        settings["num_simulations"] = num_simulations
    game = run.game
    return {
        "format": FORMAT,
        "key": pretrained.key_of(game),
        "game": game.name,
        "title": games.record(game.name).title,
        "settings": dict(game.settings),
        "observation_shape": list(game.observation_shape),
        "num_actions": game.num_actions,
        "network": {
            **run.config.network.to_dict(),
            "parameters": networks.num_parameters(run.variables),
            "iteration": run.iteration,
        },
        "search": {key: settings[key] for key in _SEARCH_KEYS},
        "choice": PAGE_SEARCHES[policy.page],
    }


def check_page_game(name: str) -> None:
    """Raises ValueError, in one line, unless the offline page has the rules of the game
    ``name`` in JavaScript (``PAGE_GAMES``): it plays its agents' searches in the browser."""
    if name not in PAGE_GAMES:
        raise ValueError(
            f"The offline page has JavaScript rules only for {', '.join(PAGE_GAMES)}, not for "
            f"{name}, so it cannot play this agent; play it with alphazero-serve or "
            "alphazero-play."
        )


def write_bundle(
    run: runs.RestoredNetwork, folder: pathlib.Path, *, num_simulations: int | None = None
) -> dict:
    """Writes ``<key>.onnx`` and ``<key>.json`` of ``run`` into ``folder``; returns the JSON
    with the two files' sizes in bytes added (``onnx_bytes``, ``json_bytes``).

    Raises:
      ValueError: the network has no ONNX writer (``onnx_network.check_exportable``), or
        the page cannot play the run's game or search policy (``describe``); one line.
    """
    folder.mkdir(parents=True, exist_ok=True)
    described = describe(run, num_simulations=num_simulations)
    model = onnx_network.network_to_onnx(
        jax.device_get(run.variables),
        run.config.network.to_dict(),
        run.game,
        name=described["key"],
    )
    onnx_path = folder / f"{described['key']}.onnx"
    onnx_path.write_bytes(model.SerializeToString())
    text = json.dumps(described, indent=1) + "\n"
    (folder / f"{described['key']}.json").write_text(text)
    return {**described, "onnx_bytes": onnx_path.stat().st_size, "json_bytes": len(text)}


def write_page_agents(
    folder: pathlib.Path, runs_to_write: Iterable[runs.RestoredNetwork]
) -> list[dict]:
    """Writes a bundle per run into ``folder`` and ``agents.json``, the list the page offers
    (each bundle's key, game, title, settings, simulations and sizes); returns that list."""
    listed = []
    for run in runs_to_write:
        written = write_bundle(run, folder)
        listed.append(
            {
                "key": written["key"],
                "game": written["game"],
                "title": written["title"],
                "settings": written["settings"],
                "num_simulations": written["search"]["num_simulations"],
                "onnx_bytes": written["onnx_bytes"],
                "json_bytes": written["json_bytes"],
            }
        )
    (folder / INDEX_FILE).write_text(json.dumps({"agents": listed}, indent=1) + "\n")
    return listed


def shipped_runs() -> list[runs.RestoredNetwork]:
    """Every agent shipped in the package (``pretrained.available``), restored."""
    restored = []
    for key in pretrained.available():
        described = json.loads((pretrained.directory() / key / pretrained.AGENT_FILE).read_text())
        restored.append(pretrained.load(games.make(described["game"], **described["settings"])))
    return restored
