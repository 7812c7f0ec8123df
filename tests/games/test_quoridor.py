"""Quoridor: hand-drawn positions (jumps, diagonals, sealing, crossing and overlapping walls,
the move cap), notation, symmetry, the heuristic and Gavriilidis (2019)'s greedy player.

Positions are drawn with ``positions.quoridor``: squares and walls in the game's notation
(rows 1..size from the top; the first player, X, starts on the bottom row and heads up).
"""

import collections

import jax
import jax.numpy as jnp
import numpy as np
import positions
import pytest
from replaying import every_state

from alphazero_jax import agents, games
from alphazero_jax.games import quoridor_geometry as geometry
from alphazero_jax.games import quoridor_rules

GAME = games.make("quoridor", size=5, walls=3)
STEP = jax.jit(GAME.step)


def _names(state, game=GAME):
    return {game.action_to_text(int(a), state) for a in np.flatnonzero(np.asarray(state.legal))}


def _pawn_moves(state, game=GAME):
    return {name for name in _names(state, game) if name[-1] not in "hv"}


def _play(text, game=GAME, state=None):
    state = game.init(jax.random.key(0)) if state is None else state
    step = STEP if game is GAME else jax.jit(game.step)
    for action in game.actions_from_text(text, state):
        state = step(state, action)
    return state


def test_start_position_has_three_steps_and_every_wall():
    assert _pawn_moves(GAME.init(None)) == {"c4", "b5", "d5"}
    assert len(_names(GAME.init(None))) == 3 + 2 * 16
    nine = games.make("quoridor")
    assert nine.num_actions == 12 + 2 * 64
    assert len(_names(nine.init(None), nine)) == 3 + 128  # OpenSpiel's count too


def test_facing_pawns_jump_straight_over():
    state = positions.quoridor(GAME, pawns=("c3", "c2"))
    assert _pawn_moves(state) == {"c1", "b3", "d3", "c4"}
    state = STEP(state, GAME.actions_from_text("c1", state)[0])
    assert state.terminal and state.winner == 0  # c1 is on X's goal row


def test_a_wall_behind_the_other_pawn_turns_the_jump_diagonal():
    state = positions.quoridor(GAME, pawns=("c3", "c2"), walls="c1h", walls_left=(3, 3))
    assert _pawn_moves(state) == {"b2", "d2", "b3", "d3", "c4"}
    # A wall on one side of the other pawn leaves the other diagonal.
    state = positions.quoridor(GAME, pawns=("c3", "c2"), walls="c1h b1v", walls_left=(3, 3))
    assert _pawn_moves(state) == {"d2", "b3", "d3", "c4"}


def test_the_edge_behind_the_other_pawn_turns_the_jump_diagonal():
    state = positions.quoridor(GAME, pawns=("c2", "c1"))
    assert _pawn_moves(state) == {"b1", "d1", "b2", "d2", "c3"}
    state = STEP(state, GAME.actions_from_text("d1", state)[0])
    assert state.terminal and state.winner == 0


def test_the_second_player_jumps_towards_its_own_goal():
    state = positions.quoridor(GAME, pawns=("c3", "c2"), player=1)
    assert _pawn_moves(state) == {"c4", "b2", "d2", "c1"}
    state = positions.quoridor(GAME, pawns=("c3", "c2"), walls="b3h", walls_left=(3, 3), player=1)
    assert _pawn_moves(state) == {"b3", "d3", "b2", "d2", "c1"}


def test_steps_stop_at_walls():
    state = positions.quoridor(GAME, pawns=("c3", "a1"), walls="b2h c3v b3h", walls_left=(3, 3))
    assert _pawn_moves(state) == {"b3"}  # north under b2h, east by c3v, south over b3h


def test_a_wall_that_seals_a_pawn_in_is_illegal():
    # X in the corner pocket a5-b5 under a4h: b4v would close the pocket.
    sealed = positions.quoridor(GAME, pawns=("a5", "c1"), walls="a4h", walls_left=(3, 3))
    assert "b4v" not in _names(sealed)
    assert "b4v" in _names(positions.quoridor(GAME, pawns=("c5", "c1"), walls="a4h"))
    # The opponent may not be sealed in either.
    sealed = positions.quoridor(GAME, pawns=("c5", "a1"), walls="a1h", walls_left=(3, 3))
    assert "b1v" not in _names(sealed)
    # Played anyway, it ends the game as a loss for the mover.
    state = STEP(sealed, GAME.actions_from_text("b1v", sealed)[0])
    assert state.terminal and state.winner == 1


# How the path check's flood fills loop: this machine's default, one round between tests,
# and an accelerator's fixed rounds with no test (quoridor_geometry.FILL_LOOPS).
FILL_LOOPS = [{"cpu": (4, True)}, {"cpu": (1, True)}, {}]


def _checked(state, loops, monkeypatch, game=GAME):
    """The legal moves' names and the mover's fewest steps to its goal, worked out afresh
    with the flood fills looping as ``loops`` says."""
    monkeypatch.setattr(geometry, "FILL_LOOPS", loops)
    size = dict(game.settings)["size"]

    def distance(state):
        own, _, walls_h, walls_v, _, _ = quoridor_rules.mover_view(size, state)
        east, south = geometry.open_edges(size, walls_h, walls_v)
        goal = geometry.tables(size).goals[0]
        return geometry.race(geometry.pawn_rows(size, own), goal, east, south)

    legal, steps = jax.jit(lambda s: (quoridor_rules.legal_actions(s), distance(s)))(state)
    return _names(state.replace(legal=legal), game), int(steps)


@pytest.mark.parametrize("loops", FILL_LOOPS)
def test_a_wall_may_force_a_detour_but_not_close_the_last_way(loops, monkeypatch):
    # a2h and c2h fence rows 3-5 off the goal but for column e: X on a3 walks round.
    fenced = positions.quoridor(GAME, pawns=("a3", "b4"), walls="a2h c2h", walls_left=(3, 3))
    names, steps = _checked(fenced, loops, monkeypatch)
    assert steps == 6 and {"d2v", "d3h"} <= names  # a3-e3, e2, e1
    # d2v closes e3's west side: the way goes under it, by e4, two steps longer.
    detour = positions.quoridor(GAME, pawns=("a3", "b4"), walls="a2h c2h d2v", walls_left=(3, 3))
    names, steps = _checked(detour, loops, monkeypatch)
    assert steps == 8 and "a3h" in names  # a3h lengthens the way again
    # d3h would close e3's south side too: no way is left, so it is refused.
    assert "d3h" not in names and "d3v" not in names  # d3v overlaps d2v
    assert quoridor_rules.illegal_reasons(detour, 12 + 2 * 4 + 3) == ("cuts_own",)


@pytest.mark.parametrize("loops", FILL_LOOPS)
def test_a_serpentine_of_72_steps_is_followed_to_its_end(loops, monkeypatch):
    # Rows of walls with the gap at alternate ends: X on a9 walks every square to a1.
    nine = games.make("quoridor", size=9, walls=10)
    walls = " ".join(f"{'abcdefgh'[c]}{r}h" for r in range(1, 9) for c in range(r % 2, 8, 2))
    maze = positions.quoridor(nine, pawns=("a9", "e1"), walls=walls, walls_left=(1, 1))
    names, steps = _checked(maze, loops, monkeypatch, nine)
    assert steps == 72
    # Every free groove would cut the one corridor both pawns need: no wall is legal.
    # a1v, say, would shut the last gap (a2 to a1).
    assert names == {"b9"}
    (a1v,) = nine.actions_from_text("a1v", maze)
    assert quoridor_rules.illegal_reasons(maze, int(a1v)) == ("cuts_own", "cuts_other")
    (a5v,) = nine.actions_from_text("a5v", maze)
    assert quoridor_rules.illegal_reasons(maze, int(a5v)) == ("cuts_own", "cuts_other")


def _grooves(state, names, game=GAME):
    return [int(a) - 12 for a in game.actions_from_text(names, state)]


def test_only_a_wall_that_closes_on_two_obstacles_can_cut_a_pawn_off():
    touching = np.asarray(geometry.touching(5, *quoridor_rules.mover_view(5, GAME.init(None))[2:4]))
    assert not touching.any()  # on an empty board a wall touches the edge at one end at most
    pocket = positions.quoridor(GAME, pawns=("a5", "c1"), walls="a4h", walls_left=(3, 3))
    _, _, walls_h, walls_v, _, _ = quoridor_rules.mover_view(5, pocket)
    touching = np.asarray(geometry.touching(5, walls_h, walls_v))
    # b4v's middle is a4h's end and its lower end is on the edge: it closes the pocket.
    # a3v ends on a4h's middle, c4h on its end, a2h on the edge: one point each.
    free = np.asarray(geometry.free_grooves(5, walls_h, walls_v))
    assert np.flatnonzero(touching & free).tolist() == _grooves(pocket, "b4v")
    assert not touching[_grooves(pocket, "a3v c4h a2h d2v")].any()


def _wall_heavy_states(size, walls, num_games, plies, seed):
    """Every position of random games whose players place a wall four times in five."""
    game = games.make("quoridor", size=size, walls=walls)

    def ply(states, key):
        wall_key, pick_key = jax.random.split(key)
        legal = states.legal
        walls_only = legal & (jnp.arange(game.num_actions) >= 12)
        prefer = jax.random.bernoulli(wall_key, 0.8, (num_games, 1))
        prefer = prefer & walls_only.any(-1, keepdims=True)
        weights = jnp.where(prefer, walls_only, legal)
        actions = jax.random.categorical(pick_key, jnp.where(weights, 0.0, -jnp.inf))
        fresh = jax.vmap(game.init)(jax.random.split(key, num_games))
        states = jax.vmap(game.step)(states, actions)
        states = jax.tree.map(
            lambda a, b: jnp.where(states.terminal.reshape((-1,) + (1,) * (a.ndim - 1)), a, b),
            fresh,
            states,
        )
        return states, states

    start = jax.vmap(game.init)(jax.random.split(jax.random.key(0), num_games))
    keys = jax.random.split(jax.random.key(seed), plies)
    _, states = jax.jit(lambda s: jax.lax.scan(ply, s, keys))(start)
    return jax.tree.map(lambda x: x.reshape((-1, *x.shape[2:])), states)


@pytest.mark.parametrize(
    "size, walls",
    [
        (5, 10),
        pytest.param(7, 12, marks=pytest.mark.long),
        pytest.param(9, 20, marks=pytest.mark.long),
    ],
)
def test_the_path_check_agrees_with_a_fill_for_every_wall(size, walls):
    # The reference: every free groove, both pawns, a plain flood fill from pawn to goal.
    board = geometry.tables(size)

    def both(state):
        own, other, walls_h, walls_v, _, _ = quoridor_rules.mover_view(size, state)
        east, south = geometry.open_edges(size, walls_h | board.add_h, walls_v | board.add_v)
        pawns = jnp.stack([geometry.pawn_rows(size, own), geometry.pawn_rows(size, other)])
        steps = geometry.race(pawns, board.goals, east[:, None], south[:, None])
        free = geometry.free_grooves(size, walls_h, walls_v)
        fast = quoridor_rules.wall_moves(size, own, other, walls_h, walls_v, jnp.int32(1))
        return fast, free & jnp.all(steps < geometry.FAR, -1), free

    states = _wall_heavy_states(size, walls, num_games=64, plies=60, seed=size)
    fast, every, free = map(np.asarray, jax.jit(jax.vmap(both))(states))
    np.testing.assert_array_equal(fast, every)
    assert (free & ~every).sum() > 200  # many walls refused for cutting a pawn off


def test_walls_may_neither_overlap_nor_cross():
    names = _names(positions.quoridor(GAME, pawns=("c5", "c1"), walls="c3h"))
    assert not {"c3h", "b3h", "d3h", "c3v"} & names
    assert {"a3h", "c2h", "c4h", "b3v", "d3v", "c2v", "c4v"} <= names
    names = _names(positions.quoridor(GAME, pawns=("c5", "c1"), walls="c3v"))
    assert not {"c3v", "c2v", "c4v", "c3h"} & names
    assert {"c1v", "b3v", "d3v", "b3h", "d3h"} <= names
    with pytest.raises(ValueError, match="overlap or cross"):
        positions.quoridor(GAME, pawns=("c5", "c1"), walls="c3h c3v")


def test_a_refused_move_says_why():
    explain = GAME.explain_illegal
    sealed = positions.quoridor(GAME, pawns=("a5", "c1"), walls="a4h c2h", walls_left=(3, 3))
    (b4v,) = GAME.actions_from_text("b4v", sealed)
    assert explain(sealed, b4v) == "it would leave your pawn no path to the goal edge"
    (c2h,) = GAME.actions_from_text("c2h", sealed)
    assert explain(sealed, c2h) == "it would overlap or cross a wall on the board"
    (a1,) = GAME.actions_from_text("a3", sealed)  # two squares up: no pawn to jump
    assert "jumps straight over the other pawn" in explain(sealed, a1)
    pocket = positions.quoridor(GAME, pawns=("c5", "a1"), walls="a1h", walls_left=(3, 3))
    (b1v,) = GAME.actions_from_text("b1v", pocket)
    assert explain(pocket, b1v) == "it would leave the other pawn no path to the goal edge"
    no_walls = positions.quoridor(GAME, pawns=("c5", "c1"), walls_left=(0, 3))
    assert explain(no_walls, b1v) == "you have no walls left"
    assert explain(no_walls, GAME.actions_from_text("c4", no_walls)[0]) == ""
    assert games.make("connect_four").explain_illegal is None


def test_walls_at_the_edges_are_legal():
    assert {"a1h", "a1v", "d1h", "d1v", "a4h", "a4v", "d4h", "d4v"} <= _names(GAME.init(None))


def test_no_walls_in_hand_means_no_walls():
    state = positions.quoridor(GAME, pawns=("c5", "c1"), walls_left=(0, 3))
    assert _names(state) == {"c4", "b5", "d5"}


def test_walls_are_placed_where_they_are_named_whoever_places_them():
    first = _play("c3h")
    second = _play("c4 c3h")
    assert GAME.to_json(first)["walls_h"] == GAME.to_json(second)["walls_h"] == [[2, 2]]
    assert GAME.to_json(second)["walls_left"] == [3, 2]
    assert _play("b2v").walls_v.tolist() == [0, 1 << 1, 0, 0]


def test_the_move_cap_draws_and_a_win_on_the_last_ply_still_wins():
    shuffle = "c4 c2 c5 c1 " * 25  # 100 plies back and forth: the 5x5 cap
    state = _play(shuffle)
    assert state.terminal and int(state.num_moves) == GAME.max_num_moves == 100
    assert state.winner == -1 and state.rewards.tolist() == [0.0, 0.0]
    # OpenSpiel calls this one a draw (its cap overrides the win); the rules say X won.
    last = positions.quoridor(GAME, pawns=("c2", "a3")).replace(num_moves=jnp.int32(99))
    won = STEP(last, GAME.actions_from_text("c1", last)[0])
    assert won.terminal and won.winner == 0


def test_notation_round_trips_and_rejects_bad_moves():
    text = "c4 c2 c3h b2v d4 c3 a4h"
    assert GAME.actions_to_text(GAME.actions_from_text(text)) == text
    state = _play("c4 c2")
    assert GAME.action_to_text(0, state) == "c3"  # north from c4
    assert GAME.action_to_text(0, _play("c4")) == "c2"  # north for O is down the rows
    for bad in ("e1h", "a5v", "c4", "z3", "c4hh", "c9"):
        with pytest.raises(ValueError, match="not a Quoridor move here"):
            GAME.actions_from_text(f"c4 {bad}")
    with pytest.raises(ValueError, match="index 1"):
        GAME.actions_from_text("c4 e1h")


def test_text_picture():
    picture = GAME.to_text(_play("c4 c2 c3h b2v"))
    assert picture.splitlines() == [
        "  a   b   c   d   e",
        "1 .   .   .   .   .",
        "",
        "2 .   . | O   .   .",
        "        +",
        "3 .   . | .   .   .",
        "         ---+---",
        "4 .   .   X   .   .",
        "",
        "5 .   .   .   .   .",
        "walls in hand: X 2, O 2",
    ]


def test_the_mirror_maps_observations_and_legal_moves():
    state = positions.quoridor(GAME, pawns=("b4", "d2"), walls="a1h c3v", walls_left=(2, 1))
    mirrored = positions.quoridor(GAME, pawns=("d4", "b2"), walls="d1h b3v", walls_left=(2, 1))
    identity, mirror = GAME.symmetries
    assert identity.name == "identity" and mirror.name == "mirror"
    np.testing.assert_array_equal(
        mirror.transform_observation(GAME.observe(state)), GAME.observe(mirrored)
    )
    np.testing.assert_array_equal(
        np.asarray(state.legal)[mirror.action_permutation], np.asarray(mirrored.legal)
    )
    assert sorted(mirror.action_permutation.tolist()) == list(range(GAME.num_actions))


def test_observation_planes_from_the_movers_view():
    state = _play("c4 c3h")  # X stepped, O placed a wall; X to move
    planes = np.asarray(GAME.observe(state))
    assert planes[3, 2, 0] == 1 and planes[0, 2, 1] == 1  # own pawn c4, other pawn c1
    assert planes[2, 2, 2] == 1 and planes[..., 3].sum() == 0  # the wall c3h
    assert planes[0, 0, 4] == 1 and planes[0, 0, 5] == pytest.approx(2 / 3)  # walls in hand
    assert planes[3, 2, 6] * 25 == pytest.approx(4)  # c4, round the wall: b4 b3 b2 b1
    turned = np.asarray(GAME.observe(_play("c4 c3h b4")))  # O to move: rows turned over
    assert turned[4, 2, 0] == 1 and turned[1, 1, 1] == 1  # own pawn c1, other pawn b4
    assert turned[1, 2, 2] == 1  # the wall c3h, seen from the other side


def test_heuristic_is_the_race_and_exact_at_the_end():
    start = GAME.init(None)
    assert float(GAME.heuristic(start)) == 0.0
    ahead = _play("c4")  # O to move, one step behind
    assert float(GAME.heuristic(ahead)) == pytest.approx(-0.99 * np.tanh(1 / 5))
    walled = positions.quoridor(GAME, pawns=("c5", "c1"), walls_left=(3, 1))
    assert float(GAME.heuristic(walled)) == pytest.approx(0.99 * np.tanh(1 / 5))
    won = _play("c4 c2 c3 b2 c2 b3 c1")
    assert won.terminal and float(GAME.heuristic(won)) == -1.0


def _bfs_distance(game, state, player):
    """An independent breadth-first search over squares: ``player``'s fewest steps home."""
    position = game.to_json(state)
    size = position["rows"]
    h = {tuple(g) for g in position["walls_h"]}
    v = {tuple(g) for g in position["walls_v"]}

    def blocked(a, b):
        (r, c), (r2, _) = sorted([a, b])
        if r == r2:  # east-west: a vertical wall in groove (r, c) or (r - 1, c)
            return (r, c) in v or (r - 1, c) in v
        return (r, c) in h or (r, c - 1) in h

    start, goal = tuple(position["pawns"][player]), (0, size - 1)[player]
    seen, queue = {start: 0}, collections.deque([start])
    while queue:
        square = queue.popleft()
        if square[0] == goal:
            return seen[square]
        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nxt = (square[0] + dr, square[1] + dc)
            if 0 <= nxt[0] < size and 0 <= nxt[1] < size and nxt not in seen:
                if not blocked(square, nxt):
                    seen[nxt] = seen[square] + 1
                    queue.append(nxt)
    return None


def test_greedy_path_walks_a_shortest_path_while_not_behind_on_walls():
    agent = agents.from_spec(GAME, "greedy:path")
    state = positions.quoridor(GAME, pawns=("c5", "a1"), walls="c4h", walls_left=(3, 3))
    batch = jax.tree.map(lambda x: jnp.stack([x] * 16), state)
    actions = jax.jit(agent.act_fn)(None, jax.random.key(0), batch)
    assert {GAME.action_to_text(int(a), state) for a in actions} == {"b5"}  # b5-b4-...-b1


def test_greedy_path_places_the_longest_detour_when_behind_on_walls():
    agent = agents.from_spec(GAME, "greedy:path")
    state = positions.quoridor(GAME, pawns=("c5", "c2"), walls="b3h", walls_left=(1, 2))
    before = _bfs_distance(GAME, state, 1)
    detours = {}
    for action in np.flatnonzero(np.asarray(state.legal)[12:]) + 12:
        detours[int(action)] = _bfs_distance(GAME, STEP(state, action), 1) - before
    best = max(detours.values())
    assert best > 0
    batch = jax.tree.map(lambda x: jnp.stack([x] * 32), state)
    actions = {int(a) for a in jax.jit(agent.act_fn)(None, jax.random.key(1), batch)}
    assert actions and all(detours.get(a) == best for a in actions)
    with pytest.raises(ValueError, match="plays Quoridor"):
        agents.from_spec(games.make("othello", size=4), "greedy:path")


def test_settings_are_checked():
    for bad in ({"size": 6}, {"size": 11}, {"walls": -1}, {"distance_planes": 2}):
        with pytest.raises(ValueError, match="quoridor"):
            games.make("quoridor", **bad)
    assert games.make("quoridor", distance_planes=0).observation_shape == (9, 9, 6)


# --- OpenSpiel differential -------------------------------------------------------------
# OpenSpiel's quoridor has the same rules, coordinates and move names; its actions are
# numbered differently, so moves are mapped by name. One known disagreement: OpenSpiel's
# move cap overrides a win on the cap's last ply (it calls the game a draw); the rules,
# and we, call it a win.

OFFSETS = [(-1, 0), (0, 1), (1, 0), (0, -1), (-2, 0), (0, 2), (2, 0), (0, -2)]
OFFSETS += [(-1, 1), (1, 1), (1, -1), (-1, -1)]


def _our_action(name, pawn, player, size):
    """Our action for an OpenSpiel move name, given the mover's pawn square and side."""
    col, row = "abcdefghi".index(name[0]), int(name[1:].rstrip("hv")) - 1
    if name[-1] in "hv":
        row = size - 2 - row if player == 1 else row  # the mover's frame
        return 12 + row * (size - 1) + col + (size - 1) ** 2 * (name[-1] == "v")
    forward = 1 if player == 0 else -1
    return OFFSETS.index((forward * (row - pawn[0]), col - pawn[1]))


def _openspiel_games(size, walls, num_games, seed):
    """Random games through OpenSpiel: per ply the side to move, both pawns' squares (from
    its board), its legal moves mapped to our actions, and the move played; the returns."""
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game("quoridor", {"board_size": size, "wall_count": walls})
    diameter = 2 * size - 1
    rng = np.random.default_rng(seed)
    records = []
    for _ in range(num_games):
        state = game.new_initial_state()
        plies = []
        while True:
            board = np.asarray(state.observation_tensor(0)).reshape(-1, diameter, diameter)
            pawns = [tuple(int(x) // 2 for x in np.argwhere(board[p])[0]) for p in (0, 1)]
            if state.is_terminal():
                break
            player = state.current_player()
            legal = state.legal_actions()
            ours = sorted(
                _our_action(state.action_to_string(a), pawns[player], player, size) for a in legal
            )
            played = legal[rng.integers(len(legal))]
            move = _our_action(state.action_to_string(played), pawns[player], player, size)
            plies.append((player, pawns, ours, move))
            state.apply_action(played)
        records.append((plies, pawns, state.returns()))
    return records


@pytest.mark.parametrize("size, walls, num_games", [(5, 3, 200), (9, 10, 12)])
def test_random_games_match_openspiel_move_by_move(size, walls, num_games):
    game = games.make("quoridor", size=size, walls=walls)
    records = _openspiel_games(size, walls, num_games, seed=size)
    move_lists = [[ply[3] for ply in plies] for plies, _, _ in records]
    states = jax.tree.map(np.asarray, every_state(game, move_lists))
    outcomes = collections.Counter()
    for i, (plies, final_pawns, returns) in enumerate(records):
        for t, (player, pawns, legal, _) in enumerate(plies):
            assert int(states.current_player[i, t]) == player
            assert [tuple(p) for p in states.pawns[i, t].tolist()] == pawns, f"game {i} ply {t}"
            assert np.flatnonzero(states.legal[i, t]).tolist() == legal, f"game {i} ply {t}"
        n = len(plies)
        assert [tuple(p) for p in states.pawns[i, n].tolist()] == final_pawns
        assert states.terminal[i, n] and not states.terminal[i, n - 1]
        ours = states.rewards[i, n].tolist()
        if ours != list(returns):  # only the documented cap disagreement
            assert n == game.max_num_moves and returns == [0.0, 0.0]
            assert int(states.winner[i, n]) == plies[-1][0] and plies[-1][3] < 12
            outcomes["won on the cap ply"] += 1
        else:
            outcomes["drawn at the cap" if returns == [0.0, 0.0] else "won"] += 1
        walls_placed = sum(ply[3] >= 12 for ply in plies)
        assert walls * 2 - states.walls_left[i, n].sum() == walls_placed
    assert outcomes["won"] > num_games // 2 and outcomes["drawn at the cap"] > 0
