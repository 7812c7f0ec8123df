#!/usr/bin/env bash
# The accelerator check in one bounded command, for a session lent one GPU for a short
# span: its phases' time limits sum to 580 s, inside a 600 s limit for one command and 12
# minutes of the machine. Run from the repository root on the GPU machine, with the
# package's dependencies importable (wheels in ./.whl, if any, are installed into /tmp/site
# first: mctx, ml-collections and tensorboardX are the ones a CUDA image with JAX and Flax
# tends to lack). Each phase runs under its own `timeout` and writes its log, and each
# training its metrics and evaluations, into $OUT (default /tmp/out).
#
# Phases, in the order of what matters most:
# 1. c4_gpu: Connect Four's `gpu` preset judged every 16 iterations at 600 simulations on
#    500 positions of Middle-Medium and Begin-Hard (AlphaZero.jl's table: 2.8% and 7.4%),
#    its budget scaled from 6 minutes to 2.5. The first evaluation at or below both figures
#    is the time to AlphaZero.jl's strength (the goal: 3 minutes of one H100).
# 2. quoridor_agent: `quoridor:agent` self-play calls (2-core CPU: 15.5 s a call).
# 3. quoridor_gpu: Quoridor 9x9's `gpu` preset for 1 minute (of its 20): whether an
#    iteration finishes, its seconds and positions a second, and its final evaluation.
# 4. othello_gpu and tic_tac_toe_gpu: those games' `gpu` presets for 0.75 and 0.4 minutes
#    (of 12 and 5), each judged at its end by its own evaluation (fewer games).
# 5. c4_games2048: a lever the CPU could not afford, four times the games at once (2,048;
#    AlphaZero.jl issue #217 played 20-40 thousand), with four times the updates an
#    iteration and the replay memory, and a quarter of the iterations (the same games,
#    updates and schedule), judged as phase 1 every 8 iterations, for 1.2 minutes.
# Every budget here is scaled down to fit the window; a card written from it says so.
#
# `accelerator_check.sh pgx` runs the other set instead, for a second span: pgx's Go 9x9 on
# its `gpu` preset (sized from the board: 128 x 6, 1,024 games at once, 128 simulations; a
# budget of 30 minutes scaled to 7), evaluated at its end against the generic ladder
# (random, greedy, rollout MCTS). It needs pgx importable: its wheel and svgwrite's in
# ./.whl where the image lacks them. Its phases' time limits sum to 570 s.
set -u
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
export PYTHONPATH="$PWD"

# phase NAME SECONDS COMMAND...: COMMAND under `timeout SECONDS`, its output in $OUT/NAME.log.
phase() {
  local name=$1 seconds=$2
  shift 2
  echo "=== phase $name (at most $seconds s) $(date +%T)"
  timeout "$seconds" "$@" 2>&1 | tee "$OUT/$name.log"
  echo "=== phase $name: exit ${PIPESTATUS[0]} $(date +%T)"
}

# train NAME SECONDS MINUTES PRESET FLAGS...: a run of PRESET stopped at MINUTES (its own
# time limit, then its final evaluation) inside SECONDS, its records copied into $OUT.
train() {
  local name=$1 seconds=$2 minutes=$3 preset=$4
  shift 4
  phase "$name" "$seconds" python3 -m experiments.train --workdir="/tmp/accelerator_$name" \
    --config="$preset" --config.time_limit_minutes="$minutes" \
    --config.checkpoint_every_minutes=100 "$@"
  for file in metrics.jsonl elo.json; do
    cp "/tmp/accelerator_$name/$file" "$OUT/${name}_$file" 2>/dev/null
  done
}

if ls .whl/*.whl >/dev/null 2>&1; then
  phase setup 30 python3 -m pip install -q --no-index --no-deps --no-compile \
    --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH="/tmp/site:$PWD"
fi
phase devices 20 python3 -c "import jax; print('jax', jax.__version__, jax.devices())"

# AlphaZero.jl's table at 600 simulations: Middle-Medium and Begin-Hard, 500 positions each.
judge=(--config.evaluation.simulations=600
  "--config.evaluation.opponents=('random',)" --config.evaluation.games=8
  --config.evaluation.num_past=0 --config.evaluation.perfect_play_positions=500
  "--config.evaluation.perfect_play_sets=('Test_L2_R2','Test_L1_R3')")
# The other games' own evaluations, with fewer games so that the final one fits.
quick=(--config.evaluation.games=16 --config.evaluation.num_past=0)

case "${1:-games}" in
games)
  train c4_gpu 180 2.5 connect_four:gpu "${judge[@]}" --config.evaluation.every=16
  phase quoridor_agent 40 python3 -m experiments.benchmarks.quoridor \
    --selfplay=quoridor:agent --calls=3
  train quoridor_gpu 95 1.0 quoridor:gpu "${quick[@]}"
  train othello_gpu 75 0.75 othello:gpu "${quick[@]}"
  train tic_tac_toe_gpu 45 0.4 tic_tac_toe:gpu "${quick[@]}"
  train c4_games2048 95 1.2 connect_four:gpu "${judge[@]}" --config.evaluation.every=8 \
    --config.selfplay.batch_size=2048 --config.learner.updates_per_iteration=1024 \
    --config.replay.capacity=800000 --config.num_iterations=32
  ;;
pgx)
  train pgx_go_9x9_gpu 520 7 pgx_go_9x9:gpu "${quick[@]}"
  ;;
*)
  echo "usage: accelerator_check.sh [games|pgx]; got $1" >&2
  exit 2
  ;;
esac
echo "=== done $(date +%T)"
