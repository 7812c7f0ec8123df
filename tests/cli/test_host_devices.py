"""An entry point's module offers JAX the host's cores when first imported
(``cli/host_devices.py``); the tests' process keeps its one CPU device whatever a test
module imports (``tests/conftest.py`` takes the offer back), and so do the programs the
tests start, unless they ask with ``--host_devices``."""

import os

import jax


def test_tests_process__keeps_one_device_after_an_entry_point_s_module_is_imported():
    from alphazero_jax.cli import judge  # noqa: F401  (it imports host_devices)

    assert "xla_force_host_platform_device_count" not in os.environ["XLA_FLAGS"]
    assert jax.device_count() == 1
