r"""The play server's start, twice on one new empty compilation cache.

    python -m experiments.stress.server_load.warm_start

Seconds until it answers and until its warm-up is done, first with the cache empty, then
full, and the cache's size.
"""

from __future__ import annotations

import asyncio

from absl import app

from experiments.stress import simulated_players
from experiments.stress.server_load import common


async def _warm_start() -> dict:
    cache, times = simulated_players.fresh_cache(), {}
    try:
        for start in ("first", "second"):
            server = simulated_players.Server([f"--compilation_cache_dir={cache}"])
            try:
                async with simulated_players.client_for(server, 1) as client:
                    answering = await server.wait(client, warm=False)
                    warm = await server.wait(client, warm=True)
            finally:
                server.stop()
            times[start] = warm
            print(
                f"{start} start ({'empty' if start == 'first' else 'full'} cache): answers after "
                f"{answering:.1f} s, warm after {warm:.1f} s",
                flush=True,
            )
        print(f"cache: {simulated_players.folder_bytes(cache) / 1e6:.1f} MB")
    finally:
        simulated_players.remove(cache)
    return times


def main(argv: list[str]) -> None:
    common.begin(argv, "warm_start")
    common.report(asyncio.run(_warm_start()))


if __name__ == "__main__":
    app.run(main)
