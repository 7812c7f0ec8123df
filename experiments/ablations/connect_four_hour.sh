#!/usr/bin/env bash
# The Connect Four ablations, second step: the arms that led the screen (connect_four_screen.sh),
# each on two seeds for the full hour against the preset, and, with two or more of them,
# the arm `together` with all their overrides (their auxiliary weights in one
# learner.aux_weights); every checkpoint, one every 10 minutes of training, judged on all
# perfect-play sets at the run's own 64 simulations.
#
#   bash experiments/ablations/connect_four_hour.sh OUTPUT [--together|--apart] [--reference=ARM] ARM [ARM...] [-- extra alphazero-compare flags]
#
# e.g. `bash experiments/ablations/connect_four_hour.sh runs/connect_four_hour stages merge`. The same
# command resumes exactly. With `--together`, only the preset and `together` (two or more
# arms): the pair that fits one 3-hour working session on one seed (`-- --seeds=0`; two
# hours of training and about ten minutes of judging), for a machine whose runs do not
# outlive the session. ARM is one of connect_four_arms.sh's names. A run ends at its schedule's
# last iteration if that comes first (the preset's 480 take about 55-60 minutes of training
# on the 2-core Intel machine: 125 in the screen's first 15), and keeps that network for the
# report's later times; `schedule300`'s 300 iterations end at about 35-40.
#
# With `--apart`, each named arm against the reference and no `together`: ideas not yet
# judged, whose winners are put together afterwards.
#
# With `--reference=ARM`, that arm is the reference in the preset's place: e.g.
# `connect_four_hour.sh runs/connect_four_begin_hard --reference=lean64_hour lean64_rising` compares `make train`'s
# recipe with one change of it, the preset not trained; `together` is then the reference
# with every named arm's change of it. A reference trained by an earlier comparison is
# taken over rather than trained again with `-- --reuse=THAT_OUTPUT` (docs/compare.md):
# e.g. `lean64_hour`'s seed 0 in hour_together, its seed 1 in connect_four_lean64.
set -euo pipefail
OUTPUT="${1:?give the output directory, then the arms}"
shift
HERE="$(dirname "$0")"
BIN="${BIN:-$HERE/../../.venv/bin}"
source "$HERE/connect_four_arms.sh"

SINGLES=1  # each named arm on its own too (all but --together)
TOGETHER=1  # all of them in one arm, with two or more (all but --apart)
REFERENCE=""
while [[ "${1:-}" == --together || "${1:-}" == --apart || "${1:-}" == --reference=* ]]; do
    if [[ "$1" == --together ]]; then
        SINGLES=0
    elif [[ "$1" == --apart ]]; then
        TOGETHER=0
    else
        REFERENCE="${1#--reference=}"
        _ablation_check "$REFERENCE" || exit
    fi
    shift
done
NAMES=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
    NAMES+=("$1")
    shift
done
[[ "${1:-}" == "--" ]] && shift
if [[ ${#NAMES[@]} -eq 0 ]]; then
    echo "Give at least one arm after the output directory: one of ${ARMS_ORDER[*]}." >&2
    exit 2
fi
if [[ $SINGLES -eq 0 && $TOGETHER -eq 0 ]]; then
    echo "--together and --apart exclude each other: give one." >&2
    exit 2
fi
if [[ $SINGLES -eq 0 && ${#NAMES[@]} -lt 2 ]]; then
    echo "--together needs two or more arms; got ${#NAMES[@]}: ${NAMES[*]}." >&2
    exit 2
fi
if [[ -n "$REFERENCE" ]]; then
    for name in "${NAMES[@]}"; do
        if [[ "$name" == "$REFERENCE" ]]; then
            echo "Arm '$name' is the reference already; name the arms to compare with it." >&2
            exit 2
        fi
    done
    ARMS=(--arm="$(ablation_arm "$REFERENCE")")
else
    ARMS=(--arm="preset=$ARMS_PRESET")
fi
if [[ $SINGLES -eq 1 ]]; then
    for name in "${NAMES[@]}"; do
        ARMS+=(--arm="$(ablation_arm "$name")")
    done
fi
if [[ $TOGETHER -eq 1 && ${#NAMES[@]} -ge 2 ]]; then
    ARMS+=(--arm="$(ablation_together ${REFERENCE:+--reference=$REFERENCE} "${NAMES[@]}")")
fi
exec "$BIN/alphazero-compare" --output="$OUTPUT" --seeds=0,1 --minutes=60 \
    --slice_minutes=10 --checkpoint_minutes=10 "${ARMS[@]}" "$@"
