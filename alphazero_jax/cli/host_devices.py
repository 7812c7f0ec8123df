"""Import first in an entry point: offers JAX one CPU device per core (at most 8), and
defines ``--host_devices``.

XLA runs a small network's convolutions on one core; with the batch split over several
host devices, self-play and learning use them all. The flag only shapes the CPU platform,
so it changes nothing on a GPU or TPU. ``--host_devices=N`` on the command line overrides
the count; an ``XLA_FLAGS`` that already sets it wins.
"""

from __future__ import annotations

import os
import sys

from absl import flags

flags.DEFINE_integer("host_devices", None, "CPU devices to offer JAX (default: cores, <= 8).")


def _offer(argv: list[str]) -> None:
    requested = [a.split("=", 1)[1] for a in argv if a.startswith("--host_devices=")]
    count = int(requested[-1]) if requested else min(8, os.cpu_count() or 1)
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={count}".strip()


_offer(sys.argv)
