"""The Connect Four solver: hand-checked positions, a brute-force negamax on tiny boards,
samples of Pascal Pons' benchmark sets, the errors on bad move strings, and ``verdicts``
with its node budget.

Scores are Pons': from the side to move, a win scores (rows * cols + 1 - plies) // 2 with
``plies`` the stones on the board before the winning stone (22 minus the winner's stones at
the end on 6x7), a draw 0, a loss the negation.
"""

import functools
import random
import threading

import pytest

from alphazero_jax.solvers import connect_four as solver
from alphazero_jax.solvers import pons


def test_score__immediate_win():
    # X has three in column 4, O three in column 1, X to move after 6 plies: X's 4th stone
    # wins at once, so (42 + 1 - 6) // 2 = 18 = 22 - 4.
    assert solver.score("414141") == 18


def test_score__forced_loss_against_two_threats():
    # X holds the bottom cells of columns 3, 4 and 5, with both ends (columns 2 and 6)
    # open; O (to move after 5 plies) can block one end only and X's 4th stone wins:
    # -(22 - 4) = -18, whatever O plays.
    assert solver.score("33445") == -18
    assert solver.move_scores("33445") == [-18] * 7


def test_move_scores__immediate_win_and_the_moves_that_allow_one():
    scores = solver.move_scores("414141")
    assert None not in scores
    assert scores[3] == 18  # column 4 wins now
    for column in (1, 2, 4, 5, 6):  # not blocking column 1: O's 4th stone wins, -(22 - 4)
        assert scores[column] == -18
    assert -18 < scores[0] < 18  # blocking column 1 saves the game for a while
    assert max(scores) == solver.score("414141")


def _four_through(columns, col, row, player):
    """Whether the stone of ``player`` at (col, row) makes four in a line."""
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while 0 <= c < len(columns) and 0 <= r < len(columns[c]) and columns[c][r] == player:
                run, c, r = run + 1, c + sign * dc, r + sign * dr
        if run >= 4:
            return True
    return False


def _brute_move_scores(columns, rows):
    """Plain negamax over every move, no pruning (memoised): one score per column or None."""
    plies = sum(map(len, columns))
    cells, player = rows * len(columns), plies % 2
    scores = []
    for c, col in enumerate(columns):
        if len(col) == rows:
            scores.append(None)
            continue
        child = (*columns[:c], (*col, player), *columns[c + 1 :])
        if _four_through(child, c, len(col), player):
            scores.append((cells + 1 - plies) // 2)
        elif plies + 1 == cells:
            scores.append(0)
        else:
            scores.append(-_brute_score(child, rows))
    return scores


@functools.cache
def _brute_score(columns, rows):
    return max(s for s in _brute_move_scores(columns, rows) if s is not None)


def _random_positions(rows, cols, num_stones, count, seed):
    """``count`` random move strings of ``num_stones`` stones where nobody has won."""
    rng, found = random.Random(seed), []
    while len(found) < count:
        columns, moves = [[] for _ in range(cols)], ""
        for ply in range(num_stones):
            c = rng.choice([c for c in range(cols) if len(columns[c]) < rows])
            columns[c].append(ply % 2)
            moves += str(c + 1)
            if _four_through(columns, c, len(columns[c]) - 1, ply % 2):
                break
        else:
            found.append((moves, tuple(map(tuple, columns))))
    return found


@pytest.mark.parametrize(("rows", "cols", "num_stones"), [(4, 4, 5), (4, 5, 7), (5, 4, 6)])
def test_solver__agrees_with_brute_force_on_tiny_boards(rows, cols, num_stones):
    outcomes = set()
    for moves, columns in _random_positions(rows, cols, num_stones, 12, seed=rows * cols):
        expected = _brute_move_scores(columns, rows)
        assert solver.move_scores(moves, rows=rows, cols=cols) == expected, moves
        best = max(s for s in expected if s is not None)
        assert solver.score(moves, rows=rows, cols=cols) == best, moves
        # weak=True: just the signs (win 1, draw 0, loss -1), through its narrower searches.
        signs = [None if s is None else (s > 0) - (s < 0) for s in expected]
        assert solver.move_scores(moves, rows=rows, cols=cols, weak=True) == signs, moves
        assert solver.score(moves, rows=rows, cols=cols, weak=True) == max(
            s for s in signs if s is not None
        )
        outcomes.update((s > 0) - (s < 0) for s in expected if s is not None)
    assert outcomes == {-1, 0, 1}  # wins, draws and losses were all checked


@pytest.mark.parametrize("set_name", ["Test_L3_R1", "Test_L2_R1", "Test_L2_R2", "Test_L1_R2"])
def test_score__matches_a_sample_of_pons_benchmark(set_name):
    sample = random.Random(0).sample(pons.load(set_name), 30)
    assert [solver.score(p.moves) for p in sample] == [p.score for p in sample]
    signs = [(p.score > 0) - (p.score < 0) for p in sample]
    assert [solver.score(p.moves, weak=True) for p in sample] == signs


# A full 4x4 board without four in a line (top row first):
#   O O X X
#   X O O O
#   O X X X
#   O X O X
_FULL_4X4 = "4321311144234232"


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        ("4x", "'x' at index 1"),
        ("8", "Column 8 at index 0"),
        ("1111111", "Column 1 at index 6 .* is full"),
        ("41414141", "index 7 .* after the game was won"),  # X's 4th stone in column 4 won
    ],
)
def test_score__rejects_bad_move_strings(moves, message):
    with pytest.raises(ValueError, match=message):
        solver.score(moves)


def test_solver__rejects_finished_positions_and_bad_sizes():
    with pytest.raises(ValueError, match="is over"):
        solver.score("4141414")
    with pytest.raises(ValueError, match="is over"):
        solver.move_scores("4141414")
    assert solver.score(_FULL_4X4, rows=4, cols=4) == 0  # a full board is a draw
    with pytest.raises(ValueError, match="is over"):
        solver.move_scores(_FULL_4X4, rows=4, cols=4)
    with pytest.raises(ValueError, match="rows=8, cols=8"):
        solver.score("", rows=8, cols=8)


def _sign(value):
    return None if value is None else (value > 0) - (value < 0)


@pytest.mark.parametrize(("set_name", "index"), [("Test_L3_R1", 0), ("Test_L2_R1", 1)])
def test_verdicts__agree_with_the_signs_of_move_scores_and_pons(set_name, index):
    position = pons.load(set_name)[index]
    verdicts = solver.verdicts(position.moves, max_nodes=10**7)
    assert verdicts == solver.move_scores(position.moves, weak=True)
    assert verdicts == [_sign(s) for s in solver.move_scores(position.moves)]
    assert max(v for v in verdicts if v is not None) == _sign(position.score)


def test_verdicts__hand_positions():
    # "414141": X's 4th stone in column 4 wins; any move but column 1 lets O's 4th stone in
    # column 1 win; blocking there wins in the end (move_scores: 11). "33445": X's open three
    # on the bottom row wins whatever O plays.
    assert solver.verdicts("414141") == [1, -1, -1, 1, -1, -1, -1]
    assert solver.verdicts("33445", max_nodes=1000) == [-1] * 7
    assert solver.verdicts("1111", rows=4, cols=4)[0] is None  # a full column


def test_verdicts__tiny_budget_raises_and_bad_positions_are_rejected():
    with pytest.raises(solver.SearchLimitReached, match="max_nodes=10 "):
        solver.verdicts("", max_nodes=10, book=None)  # a book would answer without search
    with pytest.raises(solver.SearchLimitReached, match="max_nodes=1,000 "):
        solver.move_scores("44", max_nodes=1000, book=None)
    with pytest.raises(ValueError, match="is over"):
        solver.verdicts("4141414", max_nodes=10)
    with pytest.raises(ValueError, match="max_nodes in"):
        solver.verdicts("", max_nodes=-1)


def test_each_thread_searches_with_a_table_of_its_own():
    # A server solves verdicts on one thread and moves of its solver agent on others, and
    # the search releases the GIL: a shared table could be read half written.
    here = solver._tables(6, 7)
    there = []
    worker = threading.Thread(target=lambda: there.append(solver._tables(6, 7)))
    worker.start()
    worker.join()
    assert here[2] is solver._tables(6, 7)[2] and there[0][2] is not here[2]
    assert there[0][2].shape == here[2].shape


def test_verdicts__aborted_searches_leave_the_table_correct():
    # Pons' Begin-Medium "2541266355551" (score -3: the side to move loses) needs > 2e5 nodes
    # from an empty table, even after the smaller searches before it;
    # searches cut off part way must not leave wrong bounds behind in the shared table.
    moves = "2541266355551"
    solver._tables(6, 7)[2][:] = 0  # an empty table (always correct), so the budgets run out
    for max_nodes in (100, 1_000, 3_000, 10_000, 30_000, 100_000, 200_000):
        with pytest.raises(solver.SearchLimitReached):
            solver.verdicts(moves, max_nodes=max_nodes)
    assert max(solver.verdicts(moves)) == -1
    assert solver.score(moves) == -3
