"""The offline play page as a folder for any static file host: the page
(``play/static/offline/``), the play page's style and drawing modules it reuses
(``play/static/style.css``, ``games/``), ONNX Runtime Web's files and the agents' bundles
(``web_bundle``), so that a browser plays the agents with no Python behind it.

Layout of the folder::

  index.html, style.css   the page and the play page's style
  games/*.js              the play page's drawing of each game
  offline/*.js            the rules, the search, the network and the page's script
  ort/                    ONNX Runtime Web (its WebAssembly build), copied from npm's files
  agents/                 agents.json and each agent's .onnx and .json
"""

from __future__ import annotations

import pathlib
import shutil
from importlib import resources

ORT_FILES = ("ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm")
AGENTS_FOLDER = "agents"


def static_directory() -> pathlib.Path:
    """The play page's static files in the package."""
    return pathlib.Path(str(resources.files("alphazero_jax").joinpath("play", "static")))


def check_onnxruntime_web(folder: pathlib.Path) -> None:
    """Raises FileNotFoundError, in one line, unless ``folder`` holds ONNX Runtime Web's
    files that the page loads (``ORT_FILES``; npm's ``onnxruntime-web/dist``)."""
    missing = [name for name in ORT_FILES if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"{folder}: expected ONNX Runtime Web's built files ({', '.join(missing)} missing); "
            "run `npm ci` in the repository, or point to onnxruntime-web's dist folder."
        )


def write_page(folder: pathlib.Path, onnxruntime_web: pathlib.Path) -> None:
    """Writes the page's files into ``folder`` (the agents' bundles go to
    ``folder/agents``: ``web_bundle.write_page_agents``).

    Raises:
      FileNotFoundError: ``onnxruntime_web`` lacks ONNX Runtime Web's files.
    """
    check_onnxruntime_web(onnxruntime_web)
    static = static_directory()
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(static / "offline" / "index.html", folder / "index.html")
    shutil.copyfile(static / "style.css", folder / "style.css")
    for part in ("games", "offline"):
        (folder / part).mkdir(exist_ok=True)
        for path in sorted((static / part).glob("*.js")):
            shutil.copyfile(path, folder / part / path.name)
    (folder / "ort").mkdir(exist_ok=True)
    for name in ORT_FILES:
        shutil.copyfile(onnxruntime_web / name, folder / "ort" / name)
