"""Quoridor's batched ``step`` throughput, the path check's share of it, and OpenSpiel's C++
random playouts in the same run.

No JAX Quoridor exists to compare with (pgx and jumanji have none), so the peer is
OpenSpiel's C++ game: ``pyspiel.random_sim_test`` plays whole random games in C++
(with its own consistency checks, which it cannot skip). Ours is timed with the harness of
``step_loop.py``: random legal moves, games restarting when they end.

The path check's share: the same loop once more with one extra legal-move computation
per move (``quoridor.legal_actions``: the distance fields and the fills of the walls in
doubt), as ``step`` makes one for the next mover; the difference over the plain loop's
time is the check's cost.

The same-work row: OpenSpiel's game played from Python with nothing but what our loop does,
the legal actions and one random move a ply (``state.legal_actions()`` and
``apply_action``, restarting at the end); the calls' Python overhead is counted against it.

``--selfplay=quoridor:agent`` times self-play calls of a preset instead (each call one
iteration's self-play, the first one compiling): every call's seconds, then the searched
and kept positions a second over the calls after the first. ``--device_report`` runs the
accelerator check of Quoridor as child processes of this program, each with its own time
limit and its output printed as it comes: game steps at 1,024, 4,096 and 16,384 games,
``quoridor:agent`` self-play (2-core CPU: 15.5 s a call), and whether the self-play of one
``quoridor:gpu`` iteration finishes, and how fast::

    python -m experiments.benchmarks.quoridor --device_report
"""

from __future__ import annotations

import importlib.util
import random
import statistics
import subprocess
import sys
import threading
import time

import jax
import numpy as np
from absl import app, flags

from alphazero_jax import configs, games
from alphazero_jax.cli import common as cli
from alphazero_jax.games import quoridor, quoridor_geometry
from experiments.benchmarks import common
from experiments.benchmarks.step_loop import MAX_SCAN_STEPS, make_loop, time_loop

_SIZES = flags.DEFINE_list("sizes", ["9", "5"], "Board sizes (5, 7 or 9).")
_BATCH_SIZES = common.define_batch_sizes(["1", "1024", "4096"])
_ROUNDS = common.define_rounds(3)
_MOVES = common.define_moves(200_000)
_OPENSPIEL = flags.DEFINE_bool("openspiel", True, "Time OpenSpiel's C++ game beside ours.")
_FILL_LOOP = flags.DEFINE_string(
    "fill_loop",
    None,
    "How flood fills loop (quoridor_geometry.FILL_LOOPS): 'while:R' (R rounds, then a test "
    "of whether any fill grows) or 'fixed:R' (R rounds an iteration, a static number of "
    "iterations). Unset: the backend's default.",
)
_SHARE = flags.DEFINE_bool(
    "share", True, "Also time the loop with a second legal-move computation a move."
)
_SELFPLAY = flags.DEFINE_string(
    "selfplay", None, "A preset (GAME:PRESET) whose self-play calls to time instead."
)
_CALLS = flags.DEFINE_integer("calls", 4, "Self-play calls with --selfplay, the first compiling.")
_DEVICE_REPORT = flags.DEFINE_bool(
    "device_report", False, "Run the accelerator report (steps, agent, a gpu iteration)."
)
_PART_SECONDS = flags.DEFINE_list(
    "part_seconds", ["70", "80", "90"], "--device_report: each part's time limit, in seconds."
)


def _legal_again(state):
    return quoridor.legal_actions(state).sum().astype(np.float32)


def _openspiel_playouts(size: int, walls: int, seconds: float) -> tuple[float, float]:
    """(playouts/s in C++, mean plies per game) for OpenSpiel's quoridor."""
    import pyspiel

    game = pyspiel.load_game("quoridor", {"board_size": size, "wall_count": walls})
    rng = np.random.default_rng(0)
    lengths = []
    for _ in range(200):  # the mean game length, from Python (not timed)
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        lengths.append(len(state.history()))
    sims, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)
        sims += 10
    return sims / (time.perf_counter() - start), float(np.mean(lengths))


def _openspiel_loop(size: int, walls: int, seconds: float) -> float:
    """Steps/s of OpenSpiel's game driven from Python with only the legal actions and one
    random move a ply, games restarting at the end (no clones, strings or checks)."""
    import pyspiel

    game = pyspiel.load_game("quoridor", {"board_size": size, "wall_count": walls})
    rng = random.Random(0)
    state, steps, start = game.new_initial_state(), 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(200):
            if state.is_terminal():
                state = game.new_initial_state()
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        steps += 200
    return steps / (time.perf_counter() - start)


def run(
    *,
    sizes: tuple[int, ...],
    batch_sizes: tuple[int, ...],
    rounds: int,
    moves: int,
    openspiel: bool = True,
    share: bool = True,
):
    """Prints and returns steps/s per size and batch, the path check's share (``share``)
    and the peer (``openspiel``): OpenSpiel's ``random_sim_test``, timed once a size, and
    its bare loop, timed in every round before ours (the ratio is the rounds' median)."""
    rows = []
    print(
        f"jax {jax.__version__} on {jax.devices()[0].device_kind}; {rounds} alternating "
        f"rounds; flood fills at 9x9 (rounds an iteration, tested): "
        f"{quoridor_geometry.fill_loop(81)}",
        flush=True,
    )
    nan = float("nan")
    for size in sizes:
        walls = {5: 3, 7: 6, 9: 10}[size]
        game = games.make(quoridor.NAME, size=size, walls=walls)
        playouts, plies = nan, nan
        if openspiel:
            playouts, plies = _openspiel_playouts(size, walls, seconds=5.0)
            print(
                f"quoridor {size}x{size} ({walls} walls): OpenSpiel C++ {playouts:,.0f} random "
                f"playouts/s, {plies:.0f} plies each: {playouts * plies:,.0f} steps/s with "
                "random_sim_test's checks",
                flush=True,
            )
        base = (game.init, game.step, game.legal_action_mask, lambda s: s.terminal)
        for batch in batch_sizes:
            num_steps = min(max(32, moves // batch), MAX_SCAN_STEPS)
            loops = {"step": make_loop(*base, lambda s: np.float32(0), batch, num_steps)}
            if share:
                loops["step+check"] = make_loop(*base, _legal_again, batch, num_steps)
            for loop in loops.values():
                time_loop(loop, 0)
            times = {k: [] for k in loops}
            bare = []
            for r in range(rounds):
                bare.append(_openspiel_loop(size, walls, seconds=2.0) if openspiel else nan)
                for side, loop in loops.items():
                    times[side].append(time_loop(loop, r + 1))
            plain = statistics.median(times["step"])
            rate = batch * num_steps / plain
            row = dict(
                size=size,
                batch=batch,
                steps_per_s=rate,
                path_check_share=nan,
                vs_openspiel=rate / (playouts * plies),
                openspiel_bare_steps_per_s=statistics.median(bare),
                vs_openspiel_same_work=statistics.median(
                    batch * num_steps / t / b for t, b in zip(times["step"], bare)
                ),
            )
            if share:
                row["path_check_share"] = statistics.median(
                    [(c - p) / p for p, c in zip(times["step"], times["step+check"])]
                )
            rows.append(row)
            peer = share_text = ""
            if openspiel:
                peer = (
                    f" ({row['vs_openspiel']:.1f}x random_sim_test; same work: "
                    f"{row['vs_openspiel_same_work']:.2f}x OpenSpiel's bare loop, "
                    f"{row['openspiel_bare_steps_per_s']:,.0f} steps/s)"
                )
            if share:
                share_text = f", path check {row['path_check_share']:.0%} of a step"
            print(f"  batch {batch:>5}: {rate:>12,.0f} steps/s{peer}{share_text}", flush=True)
    return rows


def selfplay_calls(preset: str, calls: int) -> dict:
    """Times ``calls`` self-play calls of ``preset`` (``GAME:PRESET``), each one
    iteration's self-play as training runs it, printing each as it ends; returns the
    seconds of each call and the searched and kept positions a second after the first."""
    from alphazero_jax.training import train

    name, _, which = preset.partition(":")
    config = configs.get_config(name, which or configs.AUTO)
    config.evaluation.every = 0
    config.gating.rule = "none"
    searched = config.selfplay.batch_size * config.selfplay.num_moves
    print(
        f"{preset}: jax {jax.__version__} on {jax.devices()[0].device_kind}; "
        f"{config.selfplay.batch_size} slots x {config.selfplay.num_moves} moves, "
        f"{config.search.num_simulations} simulations, network {config.network.channels}ch x "
        f"{config.network.blocks}",
        flush=True,
    )
    start = time.perf_counter()
    components = train.build(config)
    state = components.initial_state
    print(f"  built in {time.perf_counter() - start:.1f} s", flush=True)
    seconds, kept = [], []
    for call in range(calls):
        start = time.perf_counter()
        state, metrics = components.selfplay_fn(state)
        kept.append(float(jax.device_get(metrics["positions"])))
        seconds.append(time.perf_counter() - start)
        note = " (compiling)" if call == 0 else ""
        print(
            f"  call {call + 1}: {seconds[-1]:.2f} s{note}, {kept[-1]:.0f} positions kept",
            flush=True,
        )
    later = sum(seconds[1:])
    result = dict(seconds=seconds)
    if later:
        result.update(
            searched_per_s=searched * (calls - 1) / later, kept_per_s=sum(kept[1:]) / later
        )
        print(
            f"  after the first: {result['searched_per_s']:,.0f} searched positions/s, "
            f"{result['kept_per_s']:,.0f} kept/s",
            flush=True,
        )
    return result


def _echo(stream) -> None:
    for line in stream:
        print("   ", line.rstrip(), flush=True)


def device_report(limits: tuple[int, ...]) -> None:
    """The accelerator check as child processes of this program, each ended at its time
    limit, their lines printed as they come."""
    program = [sys.executable, "-m", "experiments.benchmarks.quoridor"]
    parts = [
        ("game steps", ["--sizes=9", "--batch_sizes=1024,4096,16384", "--rounds=3",
                        "--moves=400000", "--noopenspiel", "--noshare"]),
        ("quoridor:agent self-play", ["--selfplay=quoridor:agent", "--calls=4"]),
        ("quoridor:gpu, one iteration", ["--selfplay=quoridor:gpu", "--calls=2"]),
    ]  # fmt: skip
    for (title, flags_), limit in zip(parts, limits):
        print(f"== {title} (at most {limit} s)", flush=True)
        start = time.perf_counter()
        child = subprocess.Popen(
            program + flags_, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        echo = threading.Thread(target=_echo, args=(child.stdout,), daemon=True)
        echo.start()
        try:
            child.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            print(f"    stopped at the limit, {limit} s", flush=True)
        echo.join(timeout=5)
        print(f"== {title}: {time.perf_counter() - start:.0f} s, exit {child.returncode}")


def main(argv: list[str]) -> None:
    cli.begin(argv)
    if _FILL_LOOP.value:
        mode, _, rounds = _FILL_LOOP.value.partition(":")
        if mode not in ("while", "fixed") or not rounds.isdigit() or int(rounds) < 1:
            cli.fail(f"--fill_loop: expected while:R or fixed:R, R >= 1, got {_FILL_LOOP.value}.")
        quoridor_geometry.FILL_LOOPS[jax.default_backend()] = (int(rounds), mode == "while")
    if _DEVICE_REPORT.value:
        device_report(common.ints(_PART_SECONDS))
        return
    if _SELFPLAY.value:
        selfplay_calls(_SELFPLAY.value, _CALLS.value)
        return
    if _OPENSPIEL.value and importlib.util.find_spec("pyspiel") is None:
        cli.fail("OpenSpiel is not installed: pip install -e '.[test]' adds it (open-spiel).")
    sizes = common.ints(_SIZES)
    if not set(sizes) <= {5, 7, 9}:
        cli.fail(f"--sizes: expected some of 5, 7, 9, got {_SIZES.value}.")
    run(
        sizes=sizes,
        batch_sizes=common.ints(_BATCH_SIZES),
        rounds=_ROUNDS.value,
        moves=_MOVES.value,
        openspiel=_OPENSPIEL.value,
        share=_SHARE.value,
    )


if __name__ == "__main__":
    from alphazero_jax.cli import host_devices  # noqa: F401  (not on import: common.py)

    app.run(main)
