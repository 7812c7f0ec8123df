"""The offline play page (alphazero-export-web --page) in headless Chromium, served by
``python -m http.server`` with no alphazero-serve running: every shipped agent plays at its
shipped simulations, a whole Connect Four game is played by clicks, and an agent plays a
whole Tic-Tac-Toe game against itself.

Needs Debian's chromium and chromium-driver (as tests/play/test_browser.py; with
``REQUIRE_BROWSER=1`` their absence fails) and ONNX Runtime Web from ``npm ci``.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time

import pytest

selenium = pytest.importorskip("selenium")
pytest.importorskip("onnx", reason="the export extra (onnx, onnxruntime)")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from alphazero_jax.agents import pretrained  # noqa: E402
from alphazero_jax.play import web_bundle, web_page  # noqa: E402

ROOT = pathlib.Path(__file__).parents[2]
ORT = ROOT / "node_modules" / "onnxruntime-web" / "dist"
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
WAIT_SECONDS = 180  # two cores shared with other tests; WebAssembly compiles on first use


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    if not ORT.is_dir():
        pytest.skip("needs onnxruntime-web: run `npm ci` in the repository (make test does)")
    folder = tmp_path_factory.mktemp("page")
    web_bundle.write_page_agents(folder / web_page.AGENTS_FOLDER, web_bundle.shipped_runs())
    web_page.write_page(folder, ORT)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/"
    server.terminate()
    server.wait(timeout=30)


@pytest.fixture(scope="module")
def driver():
    if not (CHROMIUM and DRIVER):
        message = "Debian's chromium and chromium-driver are not installed"
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(message + " (REQUIRE_BROWSER=1)")
        pytest.skip(message)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.add_argument("--window-size=1100,800")
    browser = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield browser
    browser.quit()


def _status(driver) -> str:
    return driver.find_element(By.ID, "status").text


def _wait_for_human_or_end(driver) -> str:
    def ready(d):
        error = d.find_element(By.ID, "error").text
        assert not error, f"the page says: {error}"
        status = _status(d)
        return status if status.startswith("Your move") or "Moves:" in status else False

    return WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(ready)


@pytest.mark.parametrize("key", pretrained.available())
def test_offline_page__every_agent_opens_and_answers_a_move(driver, url, key):
    driver.get(f"{url}?agent={key}&human=second")
    assert _wait_for_human_or_end(driver).startswith("Your move")
    note = driver.find_element(By.ID, "search-note").text
    assert note.startswith("The agent played "), note
    assert "simulations" in driver.find_element(By.ID, "timing").text
    timings = driver.execute_script("return window.offlinePage.timings")
    assert len(timings) == 1 and timings[0]["key"] == key and timings[0]["first"]
    shares = driver.execute_script("return window.offlinePage.game.shares")
    assert shares and abs(sum(shares.values()) - 1) < 1e-6
    # The human's move: the first legal one, through the page's own move list.
    played = driver.execute_script(
        "const g = window.offlinePage.game;"
        "const s = g.states[g.states.length - 1];"
        "return g.rules.legal(s).findIndex(Boolean);"
    )
    assert played >= 0
    before = len(driver.execute_script("return window.offlinePage.game.actions"))
    _click_legal(driver)
    _wait_for_human_or_end(driver)
    after = driver.execute_script("return window.offlinePage.game.actions")
    assert len(after) in (before + 1, before + 2)  # the agent answers unless the game ended


def _click_legal(driver) -> None:
    """Clicks a legal move on the drawn board (the drawing modules' own elements)."""
    selectors = (
        ".c4-slot:not(.disabled)",
        ".ttt-cell:not(.p1):not(.p2)",
        ".oth-square.legal",
        "#pass",
        ".q-square.legal",
    )
    for selector in selectors:
        found = driver.find_elements(By.CSS_SELECTOR, selector)
        if found:
            found[0].click()
            return
    raise AssertionError("no legal move to click on the board")


def test_offline_page__a_whole_connect_four_game_by_clicks(driver, url):
    driver.get(f"{url}?agent=connect_four-rows6-cols7-connect4&human=first")
    for _ in range(22):  # at most 21 moves of the human's
        status = _wait_for_human_or_end(driver)
        if "Moves:" in status:
            break
        _click_legal(driver)
    assert "Moves:" in _status(driver)
    assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-over") == "true"
    result = _status(driver).split(".")[0]
    assert result in ("You win", "The agent wins", "Draw")


def test_offline_page__an_agent_plays_a_whole_game_against_itself(driver, url):
    driver.get(f"{url}?agent=tic_tac_toe-rows3-cols3-connect3&human=none")
    WebDriverWait(driver, WAIT_SECONDS, poll_frequency=0.2).until(lambda d: "Moves:" in _status(d))
    moves = driver.execute_script("return window.offlinePage.game.actions")
    assert 5 <= len(moves) <= 9
    # The shipped Tic-Tac-Toe agent plays perfectly: against itself, a draw.
    assert _status(driver).startswith("Draw")
