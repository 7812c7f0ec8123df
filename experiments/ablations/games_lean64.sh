#!/usr/bin/env bash
# The ideas that apply beyond Connect Four, on the other
# games' `cpu` presets, with the comparison runner; every checkpoint (one every 10 minutes
# of training) judged on an anchor ladder.
#
#   bash experiments/ablations/games_lean64.sh GAME OUTPUT [ARM...] [extra alphazero-compare flags]
#
# With ARMs named (any of stages, score, lean64) the comparison is the preset and those;
# without, the preset and all three. Arguments that start with `-` go to the runner (after
# a `--`, all of them do).
# GAME is `othello` (the 6x6 `cpu` preset, 240 iterations of 32 simulations) or
# `quoridor` (the 5x5 `cpu` preset, 200 iterations of Gumbel with 32 simulations). Each
# preset's schedule takes 20-30 minutes of 2 cores, so a 30-minute budget ends most runs at
# their last iteration. The same command resumes exactly; `--seeds=0,1` for two seeds.
#
# The arms, against the preset:
# - `stages`: the rising simulation budget (Wu T.-R. et al., 2023, whose MiniZero found it
#   better on Othello and Go 9x9): a quarter, a half, then all of the preset's simulations,
#   from the same fractions of the schedule as Connect Four's `stages` arm (connect_four_arms.sh);
# - `score`: the score-like auxiliary target (Wu, 2019), the final disc difference in
#   Othello and the path-length race in Quoridor (the game records' score), at Connect Four's
#   weight;
# - `lean64`: what Connect Four's comparisons chose for `make train` (its `cpu` preset,
#   the arm `lean64_hour` of connect_four_arms.sh): the 64 x 4 network, every move searched with a
#   quarter of the preset's simulations of Gumbel (Danihelka et al., 2022) and kept,
#   sampled from the improved policy to the end of the game, and in Othello games starting
#   from random 0-2-ply positions (AlphaZero.jl issue #217, 2024; Quoridor's preset
#   already opens with random handicap moves). The preset's learner is kept. Its
#   schedule is sized to end near the 30 minutes, as `lean64_hour`'s fills the hour:
#   12-14 iterations timed on 2 idle AMD cores (2026-11-29) took 7.0 s each in Othello
#   (250 iterations) and 5.5-6.1 s in Quoridor (280).
# Othello's ladder leaves out `random`, which a 5-minute network already beats, and adds
# the deeper alpha-beta players that the shipped 6x6 agent is level with (its card).
set -euo pipefail
GAME="${1:?give the game: othello or quoridor}"
OUTPUT="${2:?give the output directory}"
shift 2
HERE="$(dirname "$0")"
BIN="${BIN:-$HERE/../../.venv/bin}"
source "$HERE/connect_four_arms.sh"  # ARMS_NET64: Connect Four's 64 x 4 network
NET64="$ARMS_NET64"
case "$GAME" in
othello)
    PRESET="othello:cpu"
    STAGES="((0,8),(30,16),(75,32))"
    LEAN64="search.policy=gumbel selfplay.simulation_stages=((0,8),) selfplay.num_sampling_moves=64 opening.kind=random opening.random_plies=2 $NET64 num_iterations=250"
    LADDER=(--anchors=greedy:flips,minimax:2,minimax:3,minimax:4)
    ;;
quoridor)
    PRESET="quoridor:cpu"
    STAGES="((0,8),(25,16),(63,32))"
    LEAN64="selfplay.simulation_stages=((0,8),) selfplay.num_sampling_moves=100 $NET64 num_iterations=280"
    LADDER=()
    ;;
*)
    echo "Unknown game '$GAME': expected othello or quoridor." >&2
    exit 2
    ;;
esac
declare -A SPECS=(
    [stages]="stages=$PRESET selfplay.simulation_stages=$STAGES"
    [score]="score=$PRESET network.score_head=True learner.aux_weights=\"{'score':0.5}\""
    [lean64]="lean64=$PRESET $LEAN64"
)
NAMES=() FLAGS=()
while (($#)); do
    case "$1" in
    --) shift; FLAGS+=("$@"); break ;;
    -*) FLAGS+=("$1") ;;
    *)
        if [[ -z "${SPECS[$1]+set}" ]]; then
            echo "Unknown arm '$1' of games_lean64.sh: expected stages, score or lean64." >&2
            exit 2
        fi
        NAMES+=("$1")
        ;;
    esac
    shift
done
((${#NAMES[@]})) || NAMES=(stages score lean64)
ARMS=(--arm="preset=$PRESET")
for name in "${NAMES[@]}"; do
    ARMS+=(--arm="${SPECS[$name]}")
done
exec "$BIN/alphazero-compare" --output="$OUTPUT" --seeds=0 --minutes=30 \
    --slice_minutes=10 --checkpoint_minutes=10 --ladder_games=32 "${LADDER[@]}" \
    "${ARMS[@]}" "${FLAGS[@]}"
