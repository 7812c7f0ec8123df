r"""Trains an AlphaZero agent: the flag-reading edge around ``train.train_and_evaluate``.

    python -m experiments.train --config=experiments/configs/connect_four.py:cpu \
        --workdir=runs/connect_four --config.search.num_simulations=64

Restarting with the same ``--workdir`` resumes from its newest checkpoint; Ctrl-C saves
one and stops. On a machine without an accelerator, the CPU is offered to JAX as one device
per core (``--host_devices``) so that self-play and learning run on all cores.
"""

from __future__ import annotations

from absl import app, flags, logging
from ml_collections import config_flags

from experiments import host_devices  # noqa: F401  (first: before JAX starts)

_CONFIG = config_flags.DEFINE_config_file("config", None, "Training config file[:preset].")
_WORKDIR = flags.DEFINE_string("workdir", None, "Run directory (created; resumed if present).")
flags.DEFINE_integer("host_devices", None, "CPU devices to offer JAX (default: cores, <= 8).")
flags.mark_flags_as_required(["config", "workdir"])


def main(argv: list[str]) -> None:
    if len(argv) > 1:
        raise app.UsageError(f"Unexpected arguments: {argv[1:]}")
    if not flags.FLAGS["verbosity"].present:  # keep the progress bar readable
        logging.set_verbosity(logging.WARNING)
    import jax

    from alphazero_jax import train

    print(f"JAX {jax.__version__}: {jax.device_count()} x {jax.devices()[0].device_kind}")
    train.train_and_evaluate(_CONFIG.value, _WORKDIR.value)


if __name__ == "__main__":
    app.run(main)
