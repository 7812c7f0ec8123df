#!/usr/bin/env bash
# C23 (issue 62, deliverable 4): the ideas that apply beyond Connect Four, on the other
# games' `cpu` presets, with the comparison runner; every checkpoint (one every 10 minutes
# of training) judged on an anchor ladder.
#
#   bash experiments/ablations/c23_games.sh GAME OUTPUT [extra alphazero-compare flags]
#
# GAME is `othello` (the 6x6 `cpu` preset, 240 iterations of 32 simulations) or
# `quoridor` (the 5x5 `cpu` preset, 200 iterations of Gumbel with 32 simulations). Each
# preset's schedule takes 20-30 minutes of 2 cores, so a 30-minute budget ends most runs at
# their last iteration. The same command resumes exactly; `--seeds=0,1` for two seeds.
#
# The arms, against the preset:
# - `stages`: the rising simulation budget (Wu T.-R. et al., 2023, whose MiniZero found it
#   better on Othello and Go 9x9): a quarter, a half, then all of the preset's simulations,
#   from the same fractions of the schedule as Connect Four's `stages` arm (c23_arms.sh);
# - `score`: the score-like auxiliary target (Wu, 2019), the final disc difference in
#   Othello and the path-length race in Quoridor (training.scores), at Connect Four's
#   weight.
# Othello's ladder leaves out `random`, which a 5-minute network already beats, and adds
# the deeper alpha-beta players that the shipped 6x6 agent is level with (its card).
set -euo pipefail
GAME="${1:?give the game: othello or quoridor}"
OUTPUT="${2:?give the output directory}"
shift 2
BIN="${BIN:-$(dirname "$0")/../../.venv/bin}"

case "$GAME" in
othello)
    PRESET="othello:cpu"
    STAGES="((0,8),(30,16),(75,32))"
    LADDER=(--anchors=greedy:flips,minimax:2,minimax:3,minimax:4)
    ;;
quoridor)
    PRESET="quoridor:cpu"
    STAGES="((0,8),(25,16),(63,32))"
    LADDER=()
    ;;
*)
    echo "Unknown game '$GAME': expected othello or quoridor." >&2
    exit 2
    ;;
esac
exec "$BIN/alphazero-compare" --output="$OUTPUT" --seeds=0 --minutes=30 \
    --slice_minutes=10 --checkpoint_minutes=10 --ladder_games=32 "${LADDER[@]}" \
    --arm="preset=$PRESET" \
    --arm="stages=$PRESET selfplay.simulation_stages=$STAGES" \
    --arm="score=$PRESET network.score_head=True learner.aux_weights=\"{'score':0.5}\"" \
    "$@"
