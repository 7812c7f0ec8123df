"""The Connect Four opening book: its keys and mirror images by hand, its levels against the
known counts of positions, a whole book of a small board against the search, and the shipped
6x7 book against the known answer of the first move and Pons' published scores."""

import numpy as np
import pytest

from alphazero_jax.solvers import connect_four as solver
from alphazero_jax.solvers import opening_book, pons
from alphazero_jax.solvers._bits import mirror


def _bits(moves: str, rows: int = 6):
    """(position, mask) after ``moves``, the side to move's stones in ``position``."""
    position = mask = 0
    for char in moves:
        column = int(char) - 1
        position ^= mask
        mask |= mask + (1 << (column * (rows + 1)))
    return position ^ mask, mask  # the stones of the side to move


def test_mirror__swaps_the_outer_columns_and_keeps_the_centre():
    # 6x7: 7 bits a column. A stone at the bottom of column 1 (bit 0) goes to the bottom of
    # column 7 (bit 42); the centre column (bits 21..26) stays.
    assert mirror(1, 6, 7) == 1 << 42
    assert mirror(1 << 42, 6, 7) == 1
    assert mirror(0b111 << 21, 6, 7) == 0b111 << 21
    assert mirror((1 << 7) | (1 << 15), 6, 7) == (1 << 35) | (1 << 29)  # columns 2, 3


def test_key__is_shared_by_a_position_and_its_mirror_image():
    for moves, mirrored in (("1", "7"), ("4453", "4435"), ("1234", "7654")):
        assert opening_book.key_of(*_bits(moves), 6, 7) == opening_book.key_of(
            *_bits(mirrored), 6, 7
        )
    assert opening_book.key_of(*_bits("12"), 6, 7) != opening_book.key_of(*_bits("21"), 6, 7)


def test_levels__count_the_known_positions_of_6x7():
    # Distinct positions after n plies (OEIS A212693): 1, 7, 49, 238, 1120, 4263, 16422.
    # The levels hold one of each mirror pair, so each asymmetric entry stands for two.
    found = opening_book.levels(6, 7, 6)
    counts = []
    for level in found:
        symmetric = sum(key == mirror(key, 6, 7) for key in level)
        counts.append(2 * len(level) - symmetric)
    assert counts == [1, 7, 49, 238, 1120, 4263, 16422]


@pytest.fixture(scope="module")
def small_book():
    """A whole book of 4x5 to depth 5, its frontier solved by the search."""
    rows, cols, depth = 4, 5, 5
    found = opening_book.levels(rows, cols, depth)
    frontier = {
        key: solver.search_score(position, mask, rows, cols)
        for key, (position, mask) in found[depth].items()
    }
    scores = opening_book.complete(rows, cols, found, frontier)
    return found, opening_book.make_book(rows, cols, depth, scores, {})


def test_small_book__every_entry_is_the_searchs_score(small_book):
    found, book = small_book
    assert len(book.keys) == sum(map(len, found)) and np.all(np.diff(book.keys) > 0)
    for level in found[:-1]:  # the levels made by negamax
        for position, mask in level.values():
            assert book.score(position, mask) == solver.search_score(position, mask, 4, 5)
            mirrored = mirror(position, 4, 5), mirror(mask, 4, 5)
            assert book.score(*mirrored) == book.score(position, mask)


def test_small_book__move_scores_agree_with_and_without_it(small_book):
    _, book = small_book
    with pytest.raises(solver.SearchLimitReached):  # without the book, a search
        solver.move_scores("", rows=4, cols=5, book=None, max_nodes=0)
    for moves in ("", "3", "33", "31", "1234"):  # max_nodes=0: only the book answers
        with_book = solver.move_scores(moves, rows=4, cols=5, book=book, max_nodes=0)
        assert with_book == solver.move_scores(moves, rows=4, cols=5, book=None)
        weak = solver.move_scores(moves, rows=4, cols=5, book=book, weak=True, max_nodes=0)
        assert weak == [None if s is None else int(np.sign(s)) for s in with_book]


def test_book__refuses_a_position_it_does_not_hold(small_book):
    _, book = small_book
    with pytest.raises(KeyError, match="not in the 4x5 book"):
        book.score(*_bits("123451", rows=4))  # 6 stones: deeper than its depth 5
    with pytest.raises(ValueError, match="expected a book of 6x7, got one of 4x5"):
        solver.move_scores("", book=book)


def test_book__saves_and_loads(small_book, tmp_path):
    _, book = small_book
    opening_book.save(book, tmp_path)
    loaded = opening_book.load(4, 5, tmp_path)
    assert loaded.depth == 5 and np.array_equal(loaded.keys, book.keys)
    assert np.array_equal(loaded.scores, book.scores)
    assert opening_book.load(6, 7, tmp_path) is None
    np.savez_compressed(tmp_path / "connect_four-4x5.npz", keys=book.keys, scores=book.keys)
    with pytest.raises(ValueError, match="expected keys uint64"):
        opening_book.load(4, 5, tmp_path)


SHIPPED = opening_book.shipped(6, 7)
needs_book = pytest.mark.skipif(SHIPPED is None, reason="no 6x7 book is shipped yet")


@needs_book
def test_shipped_book__answers_the_first_move_without_searching():
    # The first player wins by the centre column, by the 41st stone at the latest
    # (Pons' score 1 = (43 - 40) // 2), the next columns draw and the four outer ones lose
    # (AlphaFour (blog)). max_nodes=0: any search would raise.
    scores = solver.move_scores("", max_nodes=0)
    assert scores[3] == 1
    assert scores[2] == scores[4] == 0
    assert all(scores[c] < 0 for c in (0, 1, 5, 6))
    assert scores == [-2, -1, 0, 1, 0, -1, -2]


@needs_book
def test_shipped_book__agrees_with_pons_published_scores():
    checked = 0
    for name in pons.SETS:
        for position in pons.load(name):
            if len(position.moves) <= SHIPPED.depth:
                assert solver.score(position.moves) == position.score, position.moves
                checked += 1
    assert checked > 0


def test_sequences__reach_every_position_of_a_level_once():
    paths = opening_book.sequences(6, 7, 4)
    assert set(paths) == set(opening_book.levels(6, 7, 4)[4])  # 568 positions
    for key, moves in paths.items():
        position, mask, won = solver._replay(moves, 6, 7)
        assert len(moves) == 4 and not won and opening_book.key_of(position, mask, 6, 7) == key
