#!/usr/bin/env bash
# The accelerator check in one bounded run (about 9.5 minutes; give it a limit of 600 s),
# for a session that is lent a GPU for a short span: run from the repository root on the
# GPU machine, with the package's dependencies importable (wheels in ./.whl, if any, are
# installed into /tmp/site first: mctx, ml-collections and tensorboardX are the ones a CUDA
# image with JAX and Flax tends to lack). Writes its logs into $OUT (default /tmp/out).
#
# The Connect Four long_gpu recipe against itself with the searches that won the CPU
# comparisons of the ablations page (`make train`'s: every move searched with 16 simulations
# of Gumbel, sampled from the improved policy and kept, random 0-2-ply starts; the settings
# ARMS_LEAN of experiments/ablations/connect_four_arms.sh, with 256 updates an iteration for
# the four times as many positions kept, about 2 samples each as on the CPU), both judged
# every 8 iterations at 600 simulations on Middle-Medium and Begin-Hard (AlphaZero.jl's
# table: 2.8% and 7.4%): the preset for $MINUTES (2.2) of its call's clock, `lean` for its
# whole 125 iterations ($LEAN_MINUTES, 6.3, holds them and their 15 evaluations on an H200).
# The first checkpoint at or below both figures is the time to AlphaZero.jl's strength; the
# ablations page ("On one GPU") has a run of it. Quoridor's accelerator report is
# `python -m experiments.benchmarks.quoridor --device_report` (docs: Benchmarks).
set -u
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 3
  export PYTHONPATH="/tmp/site:$PWD"
else
  export PYTHONPATH="$PWD"
fi
MINUTES="${MINUTES:-2.2}"
LEAN_MINUTES="${LEAN_MINUTES:-6.3}"
python3 -c "import jax; print('jax', jax.__version__, jax.devices())"
judge=(--config.evaluation.every=8 --config.evaluation.simulations=600
  "--config.evaluation.opponents=('random',)" --config.evaluation.games=8
  --config.evaluation.num_past=0 --config.evaluation.perfect_play_positions=500
  "--config.evaluation.perfect_play_sets=('Test_L2_R2','Test_L1_R3')")
arm() {
  local name=$1 minutes=$2
  shift 2
  echo "=== arm $name $(date +%T)"
  timeout "$(awk "BEGIN { print int($minutes * 60 + 35) }")" python3 -m experiments.train \
    --workdir="/tmp/arm_$name" --config=connect_four:long_gpu \
    --config.time_limit_minutes="$minutes" --config.checkpoint_every_minutes=100 "${judge[@]}" "$@" 2>&1 | tee "$OUT/arm_$name.log"
  cp "/tmp/arm_$name/metrics.jsonl" "$OUT/arm_${name}_metrics.jsonl" 2>/dev/null
}
arm preset "$MINUTES"
source experiments/ablations/connect_four_arms.sh
lean=()
for override in $ARMS_LEAN; do
  [[ $override == learner.updates_per_iteration=* ]] && override=learner.updates_per_iteration=256
  lean+=("--config.$override")
done
arm lean "$LEAN_MINUTES" "${lean[@]}"
echo "=== done $(date +%T)"
