r"""Export agents for the browser: each network as ONNX with its search settings, and with
``--page`` the static play page around them (``make page``).

    alphazero-export-web --out=DIR [--agents=<run or agent folder>,...] \
        [--page [--onnxruntime_web=node_modules/onnxruntime-web/dist]]

Without ``--agents`` every shipped agent (``az:pretrained`` of each game) is written. A
bundle is ``<key>.onnx`` and ``<key>.json`` (``alphazero_jax/play/web_bundle.py``), listed
in ``agents.json``. With ``--page`` the bundles go to ``DIR/agents`` and the folder gets the
page (``index.html``, its scripts, the play page's drawing modules) and ONNX Runtime Web's
files, copied from ``--onnxruntime_web`` (``npm ci`` installs them into ``node_modules``):
any static file host then serves a page that plays the agents with no Python behind it
(docs/play.md, "Hosting the offline page").
"""

from __future__ import annotations

from absl import flags

from alphazero_jax.cli import common as cli

_OUT = flags.DEFINE_string("out", None, "The folder to write (created if missing).")
_AGENTS = flags.DEFINE_list(
    "agents",
    [],
    "Networks to export: run directories, <run>/checkpoints/<n> or exported agents' folders; "
    "default: every shipped agent.",
)
_PAGE = flags.DEFINE_bool("page", False, "Also write the static play page around them.")
_ORT = flags.DEFINE_string(
    "onnxruntime_web",
    "node_modules/onnxruntime-web/dist",
    "With --page: the folder of ONNX Runtime Web's built files (npm ci installs them).",
)


def main(argv: list[str]) -> None:
    cli.begin(argv)
    import pathlib

    from alphazero_jax.agents import pretrained
    from alphazero_jax.play import web_bundle, web_page

    if not _OUT.value:
        cli.fail("--out=<folder> is required.")
    out = pathlib.Path(cli.writable_directory(_OUT.value, "out"))
    bundles = out / web_page.AGENTS_FOLDER if _PAGE.value else out
    try:
        if _PAGE.value:
            web_page.check_onnxruntime_web(pathlib.Path(_ORT.value))
        found = [pretrained.restore(path) for path in _AGENTS.value]
        listed = web_bundle.write_page_agents(bundles, found or web_bundle.shipped_runs())
        if _PAGE.value:
            web_page.write_page(out, pathlib.Path(_ORT.value))
    except (ValueError, FileNotFoundError) as error:
        cli.fail(error)
    for agent in listed:
        print(
            f"{agent['key']}: {agent['onnx_bytes']:,} bytes of ONNX, "
            f"{agent['num_simulations']} simulations"
        )
    if _PAGE.value:
        print(f"The page: {out}/index.html (serve the folder, e.g. python -m http.server)")
    else:
        print(f"Written: {bundles}")


def run() -> None:
    cli.run(main, __name__)


if __name__ == "__main__":
    run()
