r"""Trains an AlphaZero agent: the flag-reading edge around ``train.train_and_evaluate``.

    alphazero-train --config=connect_four:cpu --workdir=runs/connect_four \
        --config.search.num_simulations=64

(``python -m experiments.train`` in a checkout runs the same ``main``.)

Several processes (machines) train one run when each is started with
``--num_processes=N --process_id=I --coordinator_address=HOST:PORT`` and the same
``--workdir`` on a shared file system; ``--distributed`` lets a TPU pod, Slurm or Open MPI
supply those (``alphazero_jax/cli/multiprocess.py``).

Restarting with the same ``--workdir`` resumes from its newest good checkpoint; Ctrl-C
saves one and stops. A bad flag or config prints one line, ``error: ...``, and exits with
status 2; training that cannot go on (a non-finite loss, a full disk) exits with status 1
and one line naming the checkpoint it resumes from. On a machine without an accelerator,
the CPU is offered to JAX as one device per core (``--host_devices``) so that self-play
and learning run on all cores.
"""

from __future__ import annotations

import sys
import traceback
from typing import NoReturn

from absl import flags

from alphazero_jax.cli import (
    host_devices,  # noqa: F401  (first: before JAX starts)
)

# isort: split
from alphazero_jax.cli import common as cli
from alphazero_jax.cli import compilation_cache, config_flag, multiprocess

_CONFIG = config_flag.define("config")
_WORKDIR = flags.DEFINE_string("workdir", None, "Run directory (created; resumed if present).")
flags.DEFINE_integer("num_processes", None, "Processes of a multi-process run (default 1).")
flags.DEFINE_integer("process_id", None, "This process's index, 0..num_processes-1.")
flags.DEFINE_string("coordinator_address", None, "Process 0's HOST:PORT (multi-process).")
flags.DEFINE_bool("distributed", False, "Let JAX detect a TPU pod / Slurm / Open MPI job.")
flags.mark_flags_as_required(["config", "workdir"])


def _fail(error: Exception | str, status: int = 2) -> NoReturn:
    """Exits with ``status`` and one line (``common.one_line``)."""
    cli.fail(cli.one_line(error), status)


def _parse_flags(argv: list[str]) -> list[str]:
    try:
        return cli.parse_flags(argv)
    except (AttributeError, KeyError) as error:  # ml_collections: an override's unknown key
        while error.args and isinstance(error.args[0], Exception):
            error = error.args[0]
        detail = error.args[0] if error.args else error
        _fail(f"a --config.<key> override names no key of the config: {detail}")


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        _fail(f"unexpected arguments {argv[1:]}; settings go in --config.<key>=<value>")
    cli.quiet()  # keep the progress bar readable
    try:
        multiprocess.start(
            num_processes=flags.FLAGS.num_processes,
            process_id=flags.FLAGS.process_id,
            coordinator_address=flags.FLAGS.coordinator_address,
            auto=flags.FLAGS.distributed,
        )
    except ValueError as error:
        _fail(error)
    compilation_cache.setup()
    try:
        config = _CONFIG.value
        config.to_dict()  # a file that failed to load raises here, on first use
    except (OSError, ValueError) as error:
        _fail(error)
    import jax

    from alphazero_jax.configs import ConfigError
    from alphazero_jax.registry import PlugInError
    from alphazero_jax.training import train
    from alphazero_jax.training.session import TrainingError

    print(
        f"JAX {jax.__version__}: {jax.device_count()} x {jax.devices()[0].device_kind}"
        + (f" over {jax.process_count()} processes" if jax.process_count() > 1 else "")
    )
    try:
        train.train_and_evaluate(config, _WORKDIR.value)
    except ConfigError as error:
        _fail(error)
    except TrainingError as error:  # a non-finite loss, a full disk: one line, status 1
        _fail(error, status=1)
    except PlugInError as error:  # a plug-in's fault: its line first, then its own traceback
        print(f"error: {error}", file=sys.stderr)
        if error.__cause__ is not None:
            traceback.print_exception(error.__cause__, file=sys.stderr)
        sys.exit(1)


def run() -> None:
    """The ``alphazero-train`` console script."""
    cli.run(main, __name__, flags_parser=_parse_flags)


if __name__ == "__main__":
    run()
