r"""Export agents for the browser: each network as ONNX with its search settings, and with
``--page`` the static play page around them (``make page``).

    alphazero-export-web --output=DIR [--workdir=<run or agent folder>,...] \
        [--page [--onnxruntime_web=node_modules/onnxruntime-web/dist]]

Without ``--workdir`` every shipped agent (``az:pretrained`` of each game) is written. A
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

_OUTPUT = flags.DEFINE_string("output", None, "The folder to write (created if missing).")
_WORKDIR = flags.DEFINE_list(
    "workdir",
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
cli.define_old_name("out", "output")
cli.define_old_name("agents", "workdir")  # they are folders, not agent specs


def main(argv: list[str]) -> None:
    cli.begin(argv)
    import pathlib

    from alphazero_jax.agents import pretrained
    from alphazero_jax.play import web_bundle, web_page

    if not _OUTPUT.value:
        cli.fail("--output: expected the folder to write, --output=<folder>; got none.")
    out = pathlib.Path(cli.writable_directory(_OUTPUT.value, "output"))
    bundles = out / web_page.AGENTS_FOLDER if _PAGE.value else out
    try:
        if _PAGE.value:
            web_page.check_onnxruntime_web(pathlib.Path(_ORT.value))
        found = [pretrained.restore(path) for path in _WORKDIR.value]
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
    """The ``alphazero-export-web`` console script."""
    cli.run(main, __name__)


if __name__ == "__main__":
    run()
