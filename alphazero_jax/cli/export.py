r"""Exports a run's trained network as an agent, into a folder of one's own or the package's.

    alphazero-export --workdir=runs/connect_four --output=agents
    alphazero-export --workdir=runs/connect_four --output=alphazero_jax/data/agents \
        --command="make agent"

Writes ``<game key>/variables.msgpack`` and ``agent.json`` (the run's game, network and
search settings, and how it was trained) from the run's newest checkpoint (``--step`` for
another) into ``--output``, replacing the game's earlier agent there; it then plays as
``az:<output>/<game key>``. ``--output`` has no default: only the package's own folder,
``alphazero_jax/data/agents`` (``make agent`` passes it), replaces the game's shipped
``az:pretrained``; commit both files to ship the agent.

(``python -m experiments.export_agent`` in a checkout runs the same ``main``.)
"""

from __future__ import annotations

import pathlib
import subprocess

from absl import flags

# First, before JAX starts: the machine written into agent.json then counts the host
# devices that training offered (--host_devices, the same default), not one.
from alphazero_jax.cli import host_devices  # noqa: F401

# isort: split
from alphazero_jax.cli import common as cli

_WORKDIR = flags.DEFINE_string("workdir", None, "The run directory to export.", required=True)
_STEP = flags.DEFINE_integer("step", None, "The checkpoint (iteration); default: newest.")
_COMMAND = flags.DEFINE_string("command", "", "The command that trained the run.")
_MACHINE = flags.DEFINE_string(
    "machine", "", "The machine that trained it (default: the machines the run recorded)."
)
_COMMIT = flags.DEFINE_string(
    "commit", None, "The source's commit it was trained with (default: this checkout's HEAD)."
)
_OUTPUT = flags.DEFINE_string(
    "output",
    None,
    "The folder the agent's folder goes to (required; it replaces the game's earlier agent "
    "there); the agent then plays as az:<output>/<game key>. The package's own folder of "
    "agents (alphazero_jax/data/agents in a checkout, which make agent passes) replaces the "
    "game's shipped az:pretrained for everyone who uses this installation: for an agent to "
    "commit and ship.",
)
_COMPLETE = flags.DEFINE_bool(
    "require_complete", False, "Refuse a run stopped before its last iteration (recipes)."
)
cli.define_old_name("run", "workdir")
cli.define_old_name("output_dir", "output")


def _head() -> str:
    """The commit of the checkout this package runs from, with ``+changes`` when its files
    differ from it; "" for an installed package (or no git), whatever folder it runs in."""
    root = pathlib.Path(__file__).resolve().parents[2]

    def git(*args: str) -> str:
        command = ["git", "-C", str(root), *args]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    top = git("rev-parse", "--show-toplevel")
    if not top or pathlib.Path(top).resolve() != root:  # site-packages, or a venv's in a repo
        return ""
    commit = git("rev-parse", "HEAD")
    return commit + (
        "+changes" if commit and git("status", "--porcelain", "--", "alphazero_jax") else ""
    )


def main(argv: list[str]) -> None:
    cli.begin(argv)
    from alphazero_jax.agents import pretrained

    if _OUTPUT.value is None:
        cli.fail(
            "--output: expected the folder the agent goes to, e.g. --output=agents (then "
            "az:agents/<game key> plays it), or the package's alphazero_jax/data/agents to "
            "replace its shipped az:pretrained; got none."
        )
    folder = pathlib.Path(cli.writable_directory(_OUTPUT.value, "output"))
    try:
        path = pretrained.export(
            _WORKDIR.value,
            step=_STEP.value,
            folder=folder,
            command=_COMMAND.value,
            machine=_MACHINE.value,
            commit=_head() if _COMMIT.value is None else _COMMIT.value,
            require_complete=_COMPLETE.value,
        )
    except (FileNotFoundError, ValueError) as error:
        cli.fail(error)
    size = sum(f.stat().st_size for f in path.iterdir()) / 1024
    shipped = folder.resolve() == pretrained.directory().resolve()
    plays = "az:pretrained" if shipped else f"az:{path}"
    print(f"Wrote {path} ({size:.0f} KiB); {plays} now plays it.")


def run() -> None:
    """The ``alphazero-export`` console script."""
    cli.run(main, __name__)


if __name__ == "__main__":
    run()
