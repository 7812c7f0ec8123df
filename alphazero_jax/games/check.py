"""The game contract as a check: ``check_game(game)``, for ours and for a researcher's own.

It traces every function, plays random legal games (vmapped, inside one ``jax.jit`` and
``lax.scan``) and checks each rule of ``alphazero_jax.types.Game`` on every position they
reach. The first rule broken raises ``GameContractError``, whose one-line message names the
rule, what was expected and what was received.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, NoReturn

import jax
import jax.numpy as jnp
import numpy as np

from alphazero_jax.types import Game, PRNGKey, State

_FIELDS = {"current_player": "int32[]", "terminal": "bool[]", "rewards": "float32[2]"}
_FIELDS["num_moves"] = "int32[]"
_FUNCTIONS = ("init", "step", "observe", "legal_action_mask", "heuristic")
_MAX_ILLEGAL = 1 << 16  # illegal in-range moves tried (a random sample beyond)
_TEXT_PLIES = (0, 1, 3)  # plies of random game 0 whose every legal action is named, read back
Fns = dict[str, Callable[..., Any]]  # each of _FUNCTIONS, jitted and vmapped over B states
Fields = dict[str, np.ndarray]  # each of _FIELDS over the random games, [T + 1, B, ...]
Rule = tuple[str, str, np.ndarray, Callable[[Any], object]]  # name, expected, broken, received


class GameContractError(ValueError):
    """A game breaks the contract of ``alphazero_jax.types.Game``; the message names the rule."""


class GameCheckReport(NamedTuple):
    """What ``check_game`` tried, to judge how much its pass says.

    Attributes:
      num_games: random games played.
      num_positions: positions checked before the end of their game.
      num_illegal_moves: illegal in-range actions tried (each must lose for the mover).
      symmetries_played: the symmetries checked against play (those that map the start
        onto itself).
      longest_game: the actions of the longest random game.
    """

    num_games: int
    num_positions: int
    num_illegal_moves: int
    symmetries_played: tuple[str, ...]
    longest_game: tuple[int, ...]


def check_game(game: Game, *, key: PRNGKey | None = None, num_games: int = 256) -> GameCheckReport:
    """Checks that ``game`` keeps the contract of ``alphazero_jax.types.Game``.

    Args:
      game: the game, e.g. ``games.make("connect_four")`` or one of your own.
      key: PRNG key of the random games; ``jax.random.key(0)`` when None.
      num_games: ``B``, the random games played to the end, in one batch.

    Returns:
      What was tried: games, positions, illegal moves, symmetries, the longest game.

    Raises:
      GameContractError: at the first rule broken, naming it (expected vs received).
    """
    if not isinstance(game, Game):
        raise TypeError(f"check_game expects an alphazero_jax.types.Game, got {type(game)}.")
    if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
        raise ValueError(f"num_games must be a positive int, got {num_games!r}.")
    key = jax.random.key(0) if key is None else key
    _check_metadata(game)
    _check_signatures(game, key)
    counts: collections.Counter[str] = collections.Counter()
    fns = _check_batched(game, key, num_games, counts)
    play = jax.jit(lambda k: _play_random(game, k, num_games))
    played = _call(game, "random play, vmap(step) in lax.scan, must jit", play, key)
    states, (host, fields, actions, legal) = played[0], jax.device_get(played)
    values = np.stack([fns["heuristic"](_at(states, t)) for t in range(len(legal))])
    _check_positions(game, host, fields, actions, legal, values)
    num_illegal = _check_illegal_and_ended(game, fns["step"], host, fields, legal)
    symmetries = _check_symmetries(game, fns, states, fields, actions, legal)
    longest = _check_text(game, states, fields, actions, legal)
    _check_traced_once(game, counts)  # again, after every call above
    num_positions = int((~fields["terminal"]).sum())
    return GameCheckReport(num_games, num_positions, num_illegal, symmetries, longest)


def _fail(game: Game, rule: str, expected: object, received: object) -> NoReturn:
    message = f"{game.name}: {rule}: expected {expected}, received {received}".rstrip(".")
    raise GameContractError(" ".join(message.split()) + ".")


def _why(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0][:200] if lines else ''}"


def _describe(leaf: Any) -> str:
    weak = " (weak)" if getattr(leaf, "weak_type", False) else ""
    return f"{leaf.dtype}[{','.join(map(str, leaf.shape))}]{weak}"


def _at(tree: Any, *index: Any) -> Any:
    return jax.tree.map(lambda x: x[index], tree)


def _where(t: int, b: int) -> str:
    return f"(ply {t} of random game {b})"


def _first(bad: np.ndarray) -> tuple[int, ...] | None:
    found = np.argwhere(bad)
    return tuple(int(i) for i in found[0]) if len(found) else None


def _check_rules(game: Game, rules: Iterable[Rule]) -> None:
    """Fails at the first rule broken, with what is received at its first place ``[t, b]``."""
    for rule, expected, broken, received in rules:
        if (found := _first(broken)) is not None:
            _fail(game, rule, expected, f"{received(found)} {_where(*found)}")


def _check_metadata(game: Game) -> None:
    sizes = (game.num_actions, game.max_num_moves, *tuple(game.observation_shape))
    if len(sizes) != 5 or not all(isinstance(n, int) and n > 0 for n in sizes):
        _fail(game, "metadata", "positive ints, observation_shape (H, W, C)", sizes)
    every = np.arange(game.num_actions)
    for symmetry in game.symmetries:
        perm = np.asarray(symmetry.action_permutation)
        if perm.shape != every.shape or sorted(perm.tolist()) != every.tolist():
            rule = f"the action_permutation of symmetry {symmetry.name!r}"
            _fail(game, rule, "a permutation of range(num_actions)", perm.tolist())
    first = game.symmetries[0] if game.symmetries else None
    if first is None or first.name != "identity" or (first.action_permutation != every).any():
        _fail(game, "symmetries[0]", "the identity, named 'identity'", first and repr(first.name))


def _call(game: Game, rule: str, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``, any error in it reported as ``rule`` broken."""
    try:
        return fn(*args)
    except Exception as error:
        _fail(game, rule, "no error", _why(error))


def _shape_of(game: Game, name: str, fn: Callable[..., Any], *args: Any) -> Any:
    return _call(game, f"{name} must trace under jit", jax.eval_shape, fn, *args)


def _check_signatures(game: Game, key: PRNGKey) -> None:
    """Shapes and dtypes of the State's fields and of every function's output."""
    state = _shape_of(game, "init", game.init, key)
    if missing := [name for name in _FIELDS if name not in dir(state)]:
        _fail(game, "State", f"fields or properties {list(_FIELDS)}", f"none named {missing}")
    fields = _shape_of(game, "State", lambda s: {n: getattr(s, n) for n in _FIELDS}, state)
    found = {f"State.{name}": (expected, fields[name]) for name, expected in _FIELDS.items()}
    h, w, c = game.observation_shape
    outputs = {"observe": f"float32[{h},{w},{c}]", "heuristic": "float32[]"}
    outputs["legal_action_mask"] = f"bool[{game.num_actions}]"
    for name, expected in outputs.items():
        found[name] = (expected, _shape_of(game, name, getattr(game, name), state))
    for name, (expected, aval) in found.items():
        if _describe(aval).removesuffix(" (weak)") != expected:
            _fail(game, f"the shape and dtype of {name}", expected, _describe(aval))
    after = _shape_of(game, "step", game.step, state, jax.ShapeDtypeStruct((), jnp.int32))
    rule = "step must return a State like its input (else jit traces again)"
    if jax.tree.structure(after) != jax.tree.structure(state):
        _fail(game, rule, jax.tree.structure(state), jax.tree.structure(after))
    for (path, old), new in zip(jax.tree_util.tree_leaves_with_path(state), jax.tree.leaves(after)):
        if _describe(old) != _describe(new):
            where = jax.tree_util.keystr(path)
            _fail(game, rule, f"State{where} {_describe(old)}", _describe(new))


def _check_traced_once(game: Game, counts: collections.Counter[str]) -> None:
    for name in _FUNCTIONS:
        if counts[name] != 1:
            rule = f"{name} must trace once"
            _fail(game, rule, "1 trace for batches of one shape", f"{counts[name]} traces")


def _check_batched(game: Game, key: PRNGKey, num_games: int, counts: collections.Counter) -> Fns:
    """Each function jitted and vmapped over ``num_games`` states, counting its traces."""

    def batched(name: str) -> Callable[..., Any]:
        def counted(*args: Any) -> Any:
            counts[name] += 1
            return getattr(game, name)(*args)

        jitted = jax.jit(jax.vmap(counted))
        run = lambda *args: jax.block_until_ready(jitted(*args))  # noqa: E731
        return lambda *args: _call(game, f"{name} must jit and vmap", run, *args)

    fns = {name: batched(name) for name in _FUNCTIONS}
    keys = jax.random.split(key, (2, num_games))
    fns["init"](keys[1])
    states, rng = fns["init"](keys[0]), np.random.default_rng(0)
    for _ in range(3):
        legal = np.asarray(fns["legal_action_mask"](states))
        fns["observe"](states), fns["heuristic"](states)
        scores = np.where(legal, rng.random(legal.shape), -1.0)
        states = fns["step"](states, scores.argmax(-1).astype(np.int32))
    _check_traced_once(game, counts)
    return fns


def _play_random(game: Game, key: PRNGKey, num_games: int) -> tuple[State, Fields, Any, Any]:
    """Random legal games for ``max_num_moves`` plies: the states and their ``_FIELDS``
    ``[T + 1, B]``, actions ``int32[T, B]`` (0 once a game is over), legal masks
    ``bool[T + 1, B, A]``."""
    mask_fn = jax.vmap(game.legal_action_mask)

    def move(states: State, key: PRNGKey) -> tuple[State, tuple[State, Any, Any]]:
        legal = mask_fn(states)
        actions = jax.random.categorical(key, jnp.where(legal, 0.0, -jnp.inf))
        actions = jnp.where(legal.any(-1), actions, 0).astype(jnp.int32)
        return jax.vmap(game.step)(states, actions), (states, actions, legal)

    keys = jax.random.split(key, game.max_num_moves + 1)
    first = jax.vmap(game.init)(jax.random.split(keys[0], num_games))
    last, (states, actions, legal) = jax.lax.scan(move, first, keys[1:])
    states = jax.tree.map(lambda xs, x: jnp.concatenate([xs, x[None]]), states, last)
    fields = jax.vmap(jax.vmap(lambda s: {name: getattr(s, name) for name in _FIELDS}))(states)
    return states, fields, actions, jnp.concatenate([legal, mask_fn(last)[None]])


def _check_positions(
    game: Game, host: State, fields: Fields, actions: np.ndarray, legal: np.ndarray, values
) -> None:
    """The rules on every position of the random games ``[T + 1, B]`` and on every move
    ``[T, B]`` (at the ply of the position it is played from)."""
    terminal, player, moves = fields["terminal"], fields["current_player"], fields["num_moves"]
    rewards, num_legal, live = fields["rewards"], legal.sum(-1), ~fields["terminal"]
    ply, changed = np.arange(len(terminal))[:, None], np.zeros(live[1:].shape, bool)
    for leaf in jax.tree.leaves(host):
        flat = np.asarray(leaf).reshape(*terminal.shape, -1)
        changed |= (flat[1:] != flat[:-1]).any(-1)
    counted = np.diff(moves, axis=0)
    exact = np.take_along_axis(rewards, player[..., None], -1)[..., 0]
    _check_rules(game, (
        ("init must start a live game with player 0 to move",
         "[current_player, terminal, num_moves] [0, False, 0]",
         (ply == 0) & ((player != 0) | terminal | (moves != 0)),
         lambda i: [player[i], terminal[i], moves[i]]),
        ("step must return a terminal state unchanged", "no change", terminal[:-1] & changed,
         lambda i: f"a change by action {actions[i]}"),
        ("legal_action_mask must be empty exactly when terminal",
         "no legal action at the end, some before", (num_legal == 0) != terminal,
         lambda i: f"{num_legal[i]} legal actions with terminal={terminal[i]}"),
        ("step must change a live state", "a new state after a legal move", live[:-1] & ~changed,
         lambda i: f"the same state after action {actions[i]}"),
        ("num_moves must count moves", "+1 a move, +0 after the end", counted != live[:-1],
         lambda i: f"{counted[i]:+d}"),
        ("random games must end within max_num_moves",
         f"every game over after {game.max_num_moves} moves", (ply == len(actions)) & live,
         lambda i: "a game still on"),
        ("rewards must be -1, 0 or +1", "rewards in {-1, 0, 1}",
         ~np.isin(rewards, (-1, 0, 1)).all(-1), lambda i: rewards[i].tolist()),
        ("rewards must be zero-sum", "rewards[0] + rewards[1] == 0", rewards.sum(-1) != 0,
         lambda i: rewards[i].tolist()),
        ("rewards must be zero before the end", "[0.0, 0.0]", live & (rewards != 0).any(-1),
         lambda i: rewards[i].tolist()),
        ("heuristic must be inside (-1, 1) before the end", "|heuristic| < 1",
         live & ~(np.abs(values) < 1), lambda i: values[i]),
        ("heuristic must be exact at the end", "the mover's reward, +1, 0 or -1",
         terminal & (values != exact),
         lambda i: f"{values[i]} where the reward is {exact[i]}"),
    ))  # fmt: skip


def _check_illegal_and_ended(
    game: Game, step: Callable, host: State, fields: Fields, legal: np.ndarray
) -> int:
    """Any action leaves an ended game as it is; an illegal action (in range or not) ends a
    live one as a loss for the mover. Returns how many illegal in-range actions were tried."""
    batch, final = fields["terminal"].shape[1], _at(host, -1)
    for action in (0, game.num_actions - 1, -1, game.num_actions):
        after = jax.tree.leaves(step(final, np.full(batch, action, np.int32)))
        for (path, old), new in zip(jax.tree_util.tree_leaves_with_path(final), after):
            if (old != np.asarray(new)).any():
                where = f"a change of State{jax.tree_util.keystr(path)} by action {action}"
                _fail(game, "step must return a terminal state unchanged", "no change", where)
    flat = jax.tree.map(lambda x: x.reshape(-1, *x.shape[2:]), host)
    live, player = ~fields["terminal"].reshape(-1), fields["current_player"].reshape(-1)
    rows, actions = np.nonzero(~legal.reshape(len(live), -1) & live[:, None])
    if len(rows) > _MAX_ILLEGAL:  # a sample keeps big boards quick
        keep = np.sort(np.random.default_rng(0).choice(len(rows), _MAX_ILLEGAL, replace=False))
        rows, actions = rows[keep], actions[keep]
    num_illegal, on, out = len(rows), np.flatnonzero(live), (-1, game.num_actions)
    rows = np.concatenate([rows, on, on])
    actions = np.concatenate([actions, *(np.full(len(on), a) for a in out)]).astype(np.int32)
    for first in range(0, len(rows), batch):  # batches of one shape: step traces once
        chunk = np.minimum(np.arange(first, first + batch), len(rows) - 1)
        after, index = step(_at(flat, rows[chunk]), actions[chunk]), np.arange(batch)
        ended, rewards = np.asarray(after.terminal), np.asarray(after.rewards)
        mover = player[rows[chunk]]
        lost = ended & (rewards[index, mover] == -1) & (rewards[index, 1 - mover] == 1)
        if (found := _first(~lost)) is not None:
            (r,), i = found, chunk[found[0]]
            rule = "an illegal action must end the game as a loss for the mover"
            received = f"terminal={ended[r]}, rewards {rewards[r].tolist()}"
            where = f"after action {actions[i]} {_where(*divmod(rows[i], batch))}"
            _fail(game, rule, "terminal, -1 for the mover", f"{received} {where}")
    return num_illegal


def _check_symmetries(
    game: Game, fns: Fns, states: State, fields: Fields, actions: np.ndarray, legal: np.ndarray
) -> tuple[str, ...]:
    """Each symmetry that maps the starts onto themselves commutes with play: the permuted
    moves reach the transformed positions, whose legal actions are the permuted ones."""
    observe, mask, step = fns["observe"], fns["legal_action_mask"], fns["step"]
    batch = actions.shape[1]
    start = np.asarray(observe(_at(states, 0)))
    kept = []  # the symmetries that map the starts onto themselves
    for s in game.symmetries:
        moved = _call(game, f"{s.name} must transform", s.transform_observation, start)
        kept += [s] if np.array_equal(moved, start) else []
    if not kept or kept[0] is not game.symmetries[0]:
        _fail(game, "symmetries[0]", "the identity, leaving observations as they are", "a change")
    perms = np.stack([np.asarray(s.action_permutation) for s in kept])
    inverse = np.argsort(perms, -1)  # action a of a position becomes inverse[a]
    per = min(batch, max(1, batch // len(kept)))  # games played under each symmetry
    pairs = np.array([(i, g) for i in range(len(kept)) for g in range(per)])
    for first in range(0, len(pairs), batch):
        sym, g = pairs[np.minimum(np.arange(first, first + batch), len(pairs) - 1)].T
        transformed = _at(states, 0, g)
        for t in range(len(actions) + 1):
            original = np.asarray(observe(_at(states, t)))[g]
            expected = np.empty_like(original)
            for i, symmetry in enumerate(kept):
                expected[sym == i] = symmetry.transform_observation(original[sym == i])
            seen = (np.asarray(observe(transformed)) != expected).reshape(batch, -1).any(-1)
            moved = (np.asarray(mask(transformed)) != legal[t, g[:, None], perms[sym]]).any(-1)
            commute = "observe(transformed play) == transform(observe(play))"
            permute = "mask(transformed play) == mask[permutation]"
            for broken, rule, expected_text in (
                (seen, "commute with play", commute),
                (moved, "permute the legal actions", permute),
            ):
                if (found := _first(broken)) is not None:
                    name, (r,) = kept[sym[found[0]]].name, found
                    rule = f"symmetry {name!r} must {rule}"
                    _fail(game, rule, expected_text, f"a difference {_where(t, g[r])}")
            if t == len(actions) or fields["terminal"][t, g].all():
                break
            transformed = step(transformed, inverse[sym, actions[t, g]].astype(np.int32))
    return tuple(s.name for s in kept)


def _plain_json(board: Any) -> bool:
    try:
        return json.loads(json.dumps(board)) == board
    except (TypeError, ValueError):
        return False


def _check_text(
    game: Game, states: State, fields: Fields, actions: np.ndarray, legal: np.ndarray
) -> tuple[int, ...]:
    """Move lists and action names read back; the picture is a str, the board plain JSON.
    Returns the longest random game's actions."""
    lengths = fields["num_moves"][-1]
    longest = int(np.argmax(lengths))
    for b in dict.fromkeys((longest, *range(min(3, len(lengths))))):
        moves = actions[: lengths[b], b].tolist()
        written = _call(game, "actions_to_text must work", game.actions_to_text, moves)
        read = list(_call(game, "actions_from_text must work", game.actions_from_text, written))
        if read != moves:
            i = next((k for k, (x, y) in enumerate(zip(moves, read)) if x != y), len(read))
            rule = "actions_from_text must read what actions_to_text writes"
            expected, received = f"{moves[i : i + 1]} at index {i}", read[i : i + 1]
            _fail(game, rule, expected, f"{received} (random game {b})")
    for ply in (p for p in _TEXT_PLIES if p < len(legal)):
        state = _at(states, ply, 0)
        for action in np.flatnonzero(legal[ply, 0]).tolist():
            name = _call(game, "action_to_text must work", game.action_to_text, action, state)
            read = _call(game, "actions_from_text must work", game.actions_from_text, name, state)
            if not isinstance(name, str) or read != [action]:
                rule = "actions_from_text must read what action_to_text writes"
                _fail(game, rule, f"[{action}] from {name!r}", f"{read} {_where(ply, 0)}")
    for ply in (0, min(3, len(actions)), len(actions)):
        state = _at(states, ply, 0)
        if not isinstance(picture := _call(game, "to_text must work", game.to_text, state), str):
            _fail(game, "to_text must draw the position", "a str", type(picture).__name__)
        if not _plain_json(board := _call(game, "to_json must work", game.to_json, state)):
            rule, expected = "to_json must return plain JSON", "dicts, lists, str, numbers"
            _fail(game, rule, expected, f"{board!r:.60} {_where(ply, 0)}")
    return tuple(actions[: lengths[longest], longest].tolist())
