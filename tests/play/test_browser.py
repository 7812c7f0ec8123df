"""The play page in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by Selenium against the server on loopback.

Without Chromium the tests skip, unless ``REQUIRE_BROWSER=1`` (set by ``make test`` where it
could install the browser, and so in CI), which makes them fail instead. Screenshots go to
``$SCREENSHOT_DIR`` when it is set.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import shutil
import socket
import threading
import time

import numpy as np
import pytest

selenium = pytest.importorskip("selenium")
from selenium import webdriver  # noqa: E402
from selenium.webdriver import ActionChains  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
PONS_POSITION = "5554224333234511764415115"
WAIT_SECONDS = 180  # the first search compiles; two cores shared with other tests


def _missing_browser() -> None:
    message = "Debian's chromium and chromium-driver are not installed"
    if os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(message + " (REQUIRE_BROWSER=1)")
    pytest.skip(message)


@pytest.fixture(scope="module")
def app():
    from alphazero_jax.play.routes import create_app

    return create_app()


@pytest.fixture(scope="module")
def url(app):
    yield from _serve(app)


def _serve(app):
    """Serves ``app`` on a free loopback port, as alphazero-serve does; yields its URL."""
    import uvicorn

    from alphazero_jax.play.routes import uvicorn_options

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    options = uvicorn_options(app)  # as alphazero-serve runs it
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **options)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the server did not start"
    yield f"http://127.0.0.1:{port}/"
    server.should_exit = True
    thread.join(timeout=30)


@pytest.fixture(scope="module")
def driver():
    if not (CHROMIUM and DRIVER):
        _missing_browser()
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.add_argument("--window-size=1100,760")
    browser = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield browser
    browser.quit()


def _shot(driver, name: str, tmp_path: pathlib.Path) -> pathlib.Path:
    folder = pathlib.Path(os.environ.get("SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(folder / name))
    return folder / name


def _over(driver) -> bool:
    return "Moves:" in driver.find_element(By.ID, "status").text


def _settled(driver) -> bool:
    """No request running, and the human to move or the game over."""
    board = driver.find_element(By.ID, "board")
    status = driver.find_element(By.ID, "status").text
    return "busy" not in board.get_attribute("class") and (
        status.startswith("Your move") or _over(driver)
    )


def _wait_settled(driver) -> None:
    WebDriverWait(driver, WAIT_SECONDS).until(_settled)
    errors = driver.find_element(By.ID, "error").text
    assert not errors, errors


def _moves(driver) -> str:
    return driver.find_element(By.ID, "moves").get_attribute("value")


def _count(game: str, moves: str) -> int:
    return len(moves) if game == "connect_four" else len(moves.split())


def _start(driver, url: str, game: str, human: str) -> None:
    driver.get(url)
    WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, f"#game option[value={game}]")
    )
    _wait_settled(driver)  # the page starts a game of its own first
    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    Select(driver.find_element(By.ID, "human")).select_by_value(human)
    driver.find_element(By.ID, "new-game").click()
    _wait_settled(driver)


def _play_to_the_end(driver, game: str, selector: str, seed: int) -> list[str]:
    """Clicks random legal moves, undoing once after the third; returns the search notes
    shown after each of the human's moves."""
    rng = np.random.default_rng(seed)
    notes = []
    while not _over(driver):
        before = _count(game, _moves(driver))
        legal = sorted(
            {c.get_attribute("data-move") for c in driver.find_elements(By.CSS_SELECTOR, selector)}
        )
        assert legal, "no legal move to click while it is the human's turn"
        move = str(rng.choice(legal))
        driver.find_element(By.CSS_SELECTOR, f'{selector}[data-move="{move}"]').click()
        WebDriverWait(driver, WAIT_SECONDS).until(lambda d, n=before: _count(game, _moves(d)) > n)
        _wait_settled(driver)
        played = _count(game, _moves(driver)) - before
        assert played == 2 or (played == 1 and _over(driver)), (before, _moves(driver))
        notes.append(driver.find_element(By.ID, "search-note").text)
        if len(notes) == 3 and not _over(driver):
            driver.find_element(By.ID, "undo").click()
            WebDriverWait(driver, WAIT_SECONDS).until(
                lambda d, n=before: _count(game, _moves(d)) == n  # both moves taken back
            )
            _wait_settled(driver)
    return notes


def _stones(driver, selector: str) -> int:
    return len(driver.find_elements(By.CSS_SELECTOR, f"{selector}.p1, {selector}.p2"))


@pytest.mark.long
def test_connect_four_as_second_player(driver, url, tmp_path):
    _start(driver, url, "connect_four", "second")
    assert len(_moves(driver)) == 1  # the agent opened
    assert _stones(driver, ".c4-slot") == 1
    assert "The agent played" in driver.find_element(By.ID, "search-note").text
    assert driver.find_element(By.ID, "eval-text").text.startswith("Red ")
    notes = _play_to_the_end(driver, "connect_four", ".c4-slot:not(.disabled)", seed=1)
    assert all(note.startswith("The agent played") for note in notes[:-1])
    status = driver.find_element(By.ID, "status").text
    assert status.split(".")[0] in ("You win", "The agent wins", "Draw"), status
    moves = _moves(driver)
    assert _stones(driver, ".c4-slot") == len(moves) and moves in status
    _shot(driver, "connect_four_end.png", tmp_path)
    # A pasted position from Pons' test set (Test_L2_R1, its labels LLLL.WL: column 6
    # wins, column 5 is full, the others lose), with the solver's verdicts shown.
    driver.find_element(By.ID, "moves").clear()
    driver.find_element(By.ID, "moves").send_keys(PONS_POSITION)
    driver.find_element(By.ID, "load-moves").click()
    _wait_settled(driver)
    assert _moves(driver) == PONS_POSITION and _stones(driver, ".c4-slot") == len(PONS_POSITION)
    driver.find_element(By.ID, "verdicts").click()
    WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "[data-verdict]")
    )
    shown = {
        tag.get_attribute("data-verdict"): tag.text
        for tag in driver.find_elements(By.CSS_SELECTOR, "[data-verdict]")
    }
    assert shown == {"1": "loss", "2": "loss", "3": "loss", "4": "loss", "6": "win", "7": "loss"}
    driver.find_element(By.ID, "hint").click()  # the agent's search on top of the verdicts
    WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: "suggests" in d.find_element(By.ID, "search-note").text
    )
    assert _moves(driver) == PONS_POSITION
    _shot(driver, "connect_four.png", tmp_path)


def test_the_solver_is_offered_on_the_boards_where_it_answers(driver, url):
    # The catalogue lists the boards the verdicts route answers at: 6x7 and 7x8, not 8x8
    # ((rows + 1) * cols > 64), where the page offered verdicts the server then refused.
    _start(driver, url, "connect_four", "first")
    assert driver.find_element(By.ID, "verdict-label").is_displayed()
    for rows, cols, offered in [(8, 8, False), (7, 8, True)]:
        for name, value in (("rows", rows), ("cols", cols)):
            box = driver.find_element(By.CSS_SELECTOR, f'#settings input[name="{name}"]')
            box.clear()
            box.send_keys(str(value), Keys.TAB)
        driver.find_element(By.ID, "new-game").click()
        WebDriverWait(driver, WAIT_SECONDS).until(
            lambda d, n=rows * cols: len(d.find_elements(By.CSS_SELECTOR, ".c4-slot")) == n
        )
        _wait_settled(driver)
        assert driver.find_element(By.ID, "verdict-label").is_displayed() == offered


@pytest.mark.long
def test_tic_tac_toe_as_second_player_with_a_hint(driver, url, tmp_path):
    _start(driver, url, "tic_tac_toe", "second")
    assert _count("tic_tac_toe", _moves(driver)) == 1
    driver.find_element(By.ID, "hint").click()
    WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: "suggests" in d.find_element(By.ID, "search-note").text
    )
    assert _count("tic_tac_toe", _moves(driver)) == 1  # a hint plays nothing
    assert driver.find_elements(By.CSS_SELECTOR, ".ttt-share")
    _shot(driver, "tic_tac_toe_hint.png", tmp_path)
    _play_to_the_end(driver, "tic_tac_toe", ".ttt-cell:not(.p1):not(.p2)", seed=2)
    status = driver.find_element(By.ID, "status").text
    assert status.split(".")[0] in ("You win", "The agent wins", "Draw"), status
    assert _stones(driver, ".ttt-cell") == _count("tic_tac_toe", _moves(driver))
    _shot(driver, "tic_tac_toe.png", tmp_path)


def test_a_refused_move_is_explained_and_the_game_kept(driver, url):
    _start(driver, url, "tic_tac_toe", "first")
    driver.find_element(By.ID, "moves").clear()
    driver.find_element(By.ID, "moves").send_keys("b2 b2")
    driver.find_element(By.ID, "load-moves").click()
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_element(By.ID, "error").text)
    assert "not legal" in driver.find_element(By.ID, "error").text
    assert driver.find_element(By.ID, "status").text.startswith("Your move")


def test_othello_with_a_forced_pass_to_the_end(driver, url, tmp_path):
    driver.get(url)
    WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#game option[value=othello]")
    )
    _wait_settled(driver)
    Select(driver.find_element(By.ID, "game")).select_by_value("othello")
    size = driver.find_element(By.ID, "setting-size")
    assert size.get_attribute("step") == "2"  # sizes are even
    size.clear()
    size.send_keys("4")
    driver.find_element(By.ID, "human").click()  # leaves the field: its change event fires
    Select(driver.find_element(By.ID, "agent")).select_by_value("random")
    Select(driver.find_element(By.ID, "human")).select_by_value("first")
    driver.find_element(By.ID, "new-game").click()
    _wait_settled(driver)
    assert len(driver.find_elements(By.CSS_SELECTOR, ".oth-square")) == 16
    assert len(driver.find_elements(By.CSS_SELECTOR, ".oth-square.legal")) == 4
    # After c4 b4 a2 d4 Black (the human) has no placement: only the Pass button.
    driver.find_element(By.ID, "moves").clear()
    driver.find_element(By.ID, "moves").send_keys("c4 b4 a2 d4")
    driver.find_element(By.ID, "load-moves").click()
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: d.find_elements(By.ID, "pass"))
    _wait_settled(driver)
    assert not driver.find_elements(By.CSS_SELECTOR, ".oth-square.legal")
    _shot(driver, "othello_pass.png", tmp_path)
    rng = np.random.default_rng(3)
    while not _over(driver):
        before = len(_moves(driver).split())
        passes = driver.find_elements(By.ID, "pass")
        if passes:
            passes[0].click()
        else:
            squares = driver.find_elements(By.CSS_SELECTOR, ".oth-square.legal")
            squares[int(rng.integers(len(squares)))].click()
        WebDriverWait(driver, WAIT_SECONDS).until(lambda d, n=before: len(_moves(d).split()) > n)
        _wait_settled(driver)
    moves = _moves(driver).split()
    assert moves[:5] == ["c4", "b4", "a2", "d4", "pass"]
    status = driver.find_element(By.ID, "status").text
    assert status.split(".")[0] in ("You win", "The agent wins", "Draw"), status
    discs = len(driver.find_elements(By.CSS_SELECTOR, ".oth-disc"))
    black = len(driver.find_elements(By.CSS_SELECTOR, ".oth-disc.p1"))
    assert f"Black {black} · White {discs - black}" in driver.find_element(By.ID, "board").text
    _shot(driver, "othello.png", tmp_path)


def _hover(driver, square: str, right: float, down: float, click: bool = False) -> None:
    """Moves the pointer from the middle of ``square`` by the given fractions of the pitch
    (a square plus a groove) to the right and down, and clicks there if ``click``: in the same
    action, so that a page laid out again since an earlier hover cannot move the click."""
    board = driver.find_element(By.ID, "board")
    cell = board.find_element(By.CSS_SELECTOR, f'.q-square[data-move="{square}"]')
    pitch = board.find_element(By.CSS_SELECTOR, '.q-square[data-move="b1"]').rect["x"]
    pitch -= board.find_element(By.CSS_SELECTOR, '.q-square[data-move="a1"]').rect["x"]
    offset = (round(right * pitch), round(down * pitch))
    actions = ActionChains(driver).move_to_element_with_offset(cell, *offset)
    (actions.click() if click else actions).perform()


def _preview(driver) -> str | None:
    shown = [p for p in driver.find_elements(By.ID, "wall-preview") if p.is_displayed()]
    return shown[0].get_attribute("data-wall") if shown else None


def _preview_at(driver, square: str, right: float, down: float) -> str:
    """The wall previewed with the pointer there (hovering again until one shows: a late
    redraw of the board, on a loaded machine, can drop the preview of an earlier move)."""

    def hovered(d):
        _hover(d, square, right, down)
        return _preview(d)

    return WebDriverWait(driver, WAIT_SECONDS).until(hovered)


def test_quoridor_a_pawn_move_then_a_wall_placed_through_its_groove(driver, url, tmp_path):
    driver.get(url)
    WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#game option[value=quoridor]")
    )
    _wait_settled(driver)
    Select(driver.find_element(By.ID, "game")).select_by_value("quoridor")
    assert not driver.find_element(By.ID, "setting-distance_planes").is_displayed()
    for name, value in [("size", "5"), ("walls", "3")]:
        field = driver.find_element(By.ID, f"setting-{name}")
        field.clear()
        field.send_keys(value)
    driver.find_element(By.ID, "human").click()  # leaves the field: its change event fires
    agent = Select(driver.find_element(By.ID, "agent"))
    assert agent.first_selected_option.get_attribute("value") == "greedy:path"  # no network yet
    Select(driver.find_element(By.ID, "human")).select_by_value("first")
    driver.find_element(By.ID, "new-game").click()
    _wait_settled(driver)
    assert len(driver.find_elements(By.CSS_SELECTOR, ".q-square")) == 25
    legal = {s.get_attribute("data-move") for s in driver.find_elements(By.CSS_SELECTOR, ".legal")}
    assert legal == {"c4", "b5", "d5"}
    driver.find_element(By.CSS_SELECTOR, '.q-square[data-move="c4"]').click()
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: _moves(d) == "c4 c2")
    _wait_settled(driver)
    # Half a pitch below c2 is the groove under it: a quarter to the right is nearer the
    # horizontal line than the vertical one, and nearer the groove corner right of c2.
    assert _preview_at(driver, "c2", 0.25, 0.5) == "c2h"
    # Beside c4, nearer the corner above it: vertical.
    assert _preview_at(driver, "c4", 0.5, -0.3) == "c3v"
    assert _preview_at(driver, "c2", 0.25, 0.5) == "c2h"
    _shot(driver, "quoridor_preview.png", tmp_path)
    _hover(driver, "c2", 0.25, 0.5, click=True)
    # The wall bars O's way down the c file: greedy:path steps aside to b2.
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: len(_moves(d).split()) == 4)
    _wait_settled(driver)
    assert _moves(driver) == "c4 c2 c2h b2"

    def in_groove(d) -> bool:
        # The three boxes in one read (a loaded machine may lay the page out again between
        # three separate reads): the wall in the groove between c2 and d3's rows, as wide
        # as both columns (to a pixel).
        placed, above, below = d.execute_script(
            "return arguments[0].map(s => document.querySelector(s).getBoundingClientRect())"
            ".map(b => ({x: b.x, y: b.y, width: b.width, height: b.height}));",
            [
                '.q-wall.placed[data-wall="c2h"]',
                '.q-square[data-move="c2"]',
                '.q-square[data-move="d3"]',
            ],
        )
        return (
            above["y"] + above["height"] - 1 <= placed["y"] <= below["y"] - placed["height"] + 1
            and abs(placed["x"] - above["x"]) <= 1
            and abs(placed["x"] + placed["width"] - below["x"] - below["width"]) <= 1
        )

    WebDriverWait(driver, WAIT_SECONDS).until(
        in_groove, "the placed wall c2h never lay in the groove between c2 and d3"
    )
    assert driver.find_elements(By.CSS_SELECTOR, '.q-square[data-move="b2"] .q-pawn.p2')
    assert "Red (heads up): 2 walls in hand" in driver.find_element(By.ID, "board").text
    _hover(driver, "c2", 0.5, 0.25)  # c2v would cross c2h: no preview
    assert _preview(driver) is None
    _shot(driver, "quoridor.png", tmp_path)


def test_the_warm_up_is_shown_until_it_is_done(driver, url, app):
    import concurrent.futures

    server = app.state.server
    done, waiting = concurrent.futures.Future(), concurrent.futures.Future()
    done.set_result(None)
    server.warm, server.pool.warm_up_jobs = False, [done, waiting]  # as if still compiling
    try:
        driver.get(url)
        line = driver.find_element(By.ID, "warm-up")
        WebDriverWait(driver, WAIT_SECONDS).until(lambda d: line.is_displayed())
        assert line.text.startswith("The server is warming up: 1 of 2 searches")
        assert "A game against an agent that is ready starts at once" in line.text
        _wait_settled(driver)  # the board is there meanwhile: the human moves first
        slots = driver.find_elements(By.CSS_SELECTOR, ".c4-slot")
        assert len(slots) == 42 and _stones(driver, ".c4-slot") == 0
    finally:
        waiting.set_result(None)
        server.warm = True
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: not line.is_displayed())


@pytest.fixture(scope="module")
def nim_url():
    """A server that plays Nim, the tutorial's game (docs/tutorials/nim.py), registered as
    its tutorial does: no record, so no title, notation or page module of its own."""
    from alphazero_jax import games, plugs
    from alphazero_jax.play.routes import create_app
    from alphazero_jax.play.server_config import ServerConfig

    registered = "nim" in games.available()
    saved = plugs.GAMES.save()
    if not registered:
        path = pathlib.Path(__file__).parents[2] / "docs" / "tutorials" / "nim.py"
        spec = importlib.util.spec_from_file_location("tutorial_nim", path)
        nim = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(nim)
        games.register("nim", nim.make)
    yield from _serve(create_app(ServerConfig(agent_kinds=("random",), batch_sizes=(1,))))
    if not registered:  # the later tests of this worker see the package's games only
        plugs.GAMES.restore(saved)


def test_a_game_registered_outside_the_package_is_played_on_a_generic_grid(
    driver, nim_url, tmp_path
):
    _start(driver, nim_url, "nim", "first")
    title = driver.find_element(By.CSS_SELECTOR, "#game option[value=nim]").text
    assert title == "Nim"
    picture = driver.find_element(By.CSS_SELECTOR, ".generic-text").text
    assert picture.splitlines() == ["a |||", "b |||||", "c |||||||"]
    buttons = driver.find_elements(By.CSS_SELECTOR, ".generic-move")
    assert len(buttons) == 3 + 5 + 7 and buttons[0].get_attribute("data-move") == "a1"
    assert driver.find_element(By.ID, "status").text == "Your move (First player)."
    _play_to_the_end(driver, "nim", ".generic-move:not([disabled])", seed=3)
    status = driver.find_element(By.ID, "status").text
    assert status.split(".")[0] in ("You win", "The agent wins"), status
    assert not driver.find_elements(By.CSS_SELECTOR, ".generic-move")  # no legal move left
    _shot(driver, "nim.png", tmp_path)


def test_a_pgx_grid_game_is_played_by_clicking_its_cells(driver, url, tmp_path):
    """pgx's Tic-Tac-Toe, drawn by the generic module from its board JSON (a move per cell):
    a click on a cell plays it, the stone is drawn and the agent's reply after it."""
    pytest.importorskip("pgx")
    driver.get(url)
    WebDriverWait(driver, WAIT_SECONDS).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "#game option[value=pgx_tic_tac_toe]")
    )
    _wait_settled(driver)  # the page starts a game of its own first
    Select(driver.find_element(By.ID, "game")).select_by_value("pgx_tic_tac_toe")
    agent = Select(driver.find_element(By.ID, "agent"))
    offered = [option.get_attribute("value") for option in agent.options]
    assert offered == ["mcts", "minimax", "greedy", "random"]  # no network ships for it
    agent.select_by_value("random")
    Select(driver.find_element(By.ID, "human")).select_by_value("first")
    driver.find_element(By.ID, "new-game").click()
    _wait_settled(driver)
    cells = driver.find_elements(By.CSS_SELECTOR, ".generic-cell")
    names = [cell.get_attribute("data-move") for cell in cells]
    assert names == ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]  # rows from the top
    assert all(cell.is_enabled() for cell in cells)
    assert not driver.find_elements(By.CSS_SELECTOR, ".generic-stone, .generic-move")
    driver.find_element(By.CSS_SELECTOR, '.generic-cell[data-move="b2"]').click()
    WebDriverWait(driver, WAIT_SECONDS).until(lambda d: len(_moves(d).split()) == 2)
    _wait_settled(driver)
    first, reply = _moves(driver).split()
    assert first == "b2"
    assert driver.find_elements(By.CSS_SELECTOR, '.generic-cell[data-move="b2"] .generic-stone.p1')
    replied = driver.find_element(By.CSS_SELECTOR, f'.generic-cell[data-move="{reply}"]')
    assert replied.find_elements(By.CSS_SELECTOR, ".generic-stone.p2.last")
    enabled = driver.find_elements(By.CSS_SELECTOR, ".generic-cell:enabled")
    assert sorted(cell.get_attribute("data-move") for cell in enabled) == sorted(
        set(names) - {"b2", reply}
    )
    assert f"The agent played {reply}" in driver.find_element(By.ID, "search-note").text
    _shot(driver, "pgx_tic_tac_toe.png", tmp_path)


_RENDER_GENERIC = """
const done = arguments[arguments.length - 1];
import('./games/generic.js').then((generic) => {
  const clicked = [];
  const grid = document.createElement('div');
  const view = {
    board: {rows: 2, cols: 2, cells: [[1, 0], [0, 0]], cell_moves: [['a1', 'b1'], ['a2', 'b2']]},
    text: 'unused', moves: 'a1', legal_moves: ['b1', 'a2', 'pass'],
  };
  generic.render(grid, view, {shares: {b1: 0.7, a2: 0.1, pass: 0.2}, canMove: true},
                 (move) => clicked.push(move));
  const cells = [...grid.querySelectorAll('.generic-cell')].map((cell) => [
    cell.dataset.move, cell.disabled, cell.textContent, cell.style.background.includes('color-mix'),
    cell.querySelector('.generic-stone') ? cell.querySelector('.generic-stone').className : null,
  ]);
  const offBoard = [...grid.querySelectorAll('.generic-move')].map((b) => [b.dataset.move,
                                                                          b.title]);
  for (const move of ['a1', 'b1', 'pass']) grid.querySelector(`[data-move="${move}"]`).click();
  const text = document.createElement('div');
  generic.render(text, {board: {position: null}, text: 'Nim', moves: '', legal_moves: ['a1', 'b2']},
                 {shares: null, canMove: false}, () => {});
  done({cells, offBoard, clicked, text: text.innerHTML});
}).catch((error) => done(String(error)));
"""


def test_the_generic_module_shades_a_grids_moves_and_draws_any_other_game_as_before(driver, url):
    driver.get(url)
    drawn = driver.execute_async_script(_RENDER_GENERIC)
    assert isinstance(drawn, dict), drawn
    # [move, disabled, text, shaded, stone]: a1 holds the last move's stone; b1 and a2 are
    # legal, shaded, with their shares written; b2 is not legal.
    assert drawn["cells"] == [
        ["a1", True, "", False, "generic-stone p1 last"],
        ["b1", False, "70%", True, None],
        ["a2", False, "10%", True, None],
        ["b2", True, "", False, None],
    ]
    assert drawn["offBoard"] == [["pass", "pass: 20% of the search"]]  # beside the board
    assert drawn["clicked"] == ["b1", "pass"]  # a1 is taken: its click plays nothing
    # A board with no grid: the text and a button per legal move, exactly as before the grid.
    assert drawn["text"] == (
        '<pre class="generic-text">Nim</pre>'
        '<div class="generic-moves" style="grid-template-columns: repeat(2, auto);">'
        '<button type="button" class="generic-move" data-move="a1" disabled="">a1</button>'
        '<button type="button" class="generic-move" data-move="b2" disabled="">b2</button></div>'
    )
