#!/usr/bin/env bash
# The Connect Four ablations, first step (a screen): each idea of the literature, as its
# settings (docs/training.md, "Ideas from the literature"), against the Connect Four `cpu`
# preset on one seed, 30 minutes of training time each, every checkpoint judged on all
# perfect-play sets at the run's own 64 simulations. The hour's own knobs (network width
# and depth, games at once, the schedule) are arms too. The arms are connect_four_arms.sh's.
#
#   bash experiments/ablations/connect_four_screen.sh [OUTPUT] [extra alphazero-compare flags]
#
# e.g. `--max_slices=4` to share the machine and go on later (the same command resumes
# exactly). Arms may be appended later: keep these first, add new ones at the end.
# All arms together: 18 x 30 minutes of training, plus the judging of their checkpoints;
# the last three change `lean64_hour`, and are for connect_four_hour.sh --reference=lean64_hour.
set -euo pipefail
OUTPUT="${1:-runs/connect_four_screen}"
shift || true
HERE="$(dirname "$0")"
BIN="${BIN:-$HERE/../../.venv/bin}"
source "$HERE/connect_four_arms.sh"

ARMS=(--arm="preset=$ARMS_PRESET")
for name in "${ARMS_ORDER[@]}"; do
    ARMS+=(--arm="$(ablation_arm "$name")")
done
exec "$BIN/alphazero-compare" --output="$OUTPUT" --seeds=0 --minutes=30 \
    --slice_minutes=5 --checkpoint_minutes=5 "${ARMS[@]}" "$@"
