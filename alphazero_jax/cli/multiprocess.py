"""Starts JAX's distributed runtime when an entry point runs as one of several processes.

Three ways in, tried in this order:

- ``--num_processes=N --process_id=I --coordinator_address=HOST:PORT`` (the address may
  come from ``JAX_COORDINATOR_ADDRESS`` instead): any machines, CPU ones included;
- ``--distributed``: ``jax.distributed.initialize()`` finds its settings itself on a
  Cloud TPU pod slice, under Slurm or Open MPI;
- neither: one process, nothing to start.

It must run before anything touches a JAX backend (a config's ``auto`` preset does).
"""

from __future__ import annotations

import os


def start(
    *,
    num_processes: int | None,
    process_id: int | None,
    coordinator_address: str | None,
    auto: bool,
) -> None:
    """Calls ``jax.distributed.initialize`` as the flags ask, or does nothing.

    Raises:
      ValueError: a partial or inconsistent set of flags.
    """
    coordinator_address = coordinator_address or os.environ.get("JAX_COORDINATOR_ADDRESS")
    if num_processes is None or num_processes == 1:
        if process_id not in (None, 0):
            raise ValueError(f"--process_id={process_id} needs --num_processes > {process_id}.")
        if auto:
            import jax

            jax.distributed.initialize()
        return
    if num_processes < 1:
        raise ValueError(f"--num_processes must be >= 1, got {num_processes}.")
    if process_id is None or not 0 <= process_id < num_processes:
        raise ValueError(
            f"--num_processes={num_processes} needs --process_id in 0..{num_processes - 1}, "
            f"got {process_id}."
        )
    if not coordinator_address:
        raise ValueError(
            f"--num_processes={num_processes} needs --coordinator_address=HOST:PORT (process "
            "0's address and a free port, the same for every process) or JAX_COORDINATOR_ADDRESS."
        )
    import jax

    jax.distributed.initialize(
        coordinator_address=coordinator_address,
        num_processes=num_processes,
        process_id=process_id,
    )
