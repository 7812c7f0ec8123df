"""Tests run on the CPU, whatever accelerator the machine has."""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
