#!/usr/bin/env bash
# C23 screening (issue 62, deliverable 2, first step): each idea of the literature, as its
# settings (docs/training.md, "Ideas from the literature"), against the Connect Four `cpu`
# preset on one seed, 30 minutes of training time each, every checkpoint judged on all
# perfect-play sets at the run's own 64 simulations. The hour's own knobs (network width
# and depth, games at once, the schedule) are arms too.
#
#   bash experiments/ablations/c23_screen.sh [OUTPUT] [extra alphazero-compare flags]
#
# e.g. `--max_slices=4` to share the machine and go on later (the same command resumes
# exactly). Arms may be appended later: keep these first, add new ones at the end.
# All arms together: 12 x 30 minutes of training, plus the judging of their checkpoints.
#
# Notes on the arms:
# - The preset's cosine schedule spans its 480 iterations; a 30-minute budget stops every
#   arm about halfway through it (the learning rate still high), the same for all arms but
#   `schedule300`, whose schedule ends within the 30 minutes.
# - The preset's playout cap searches 1 move in 4 with search.num_simulations (64) and the
#   rest with 16: `stages` raises the full searches' budget only, 16 -> 32 -> 64.
# - `gumbel_jl` is AlphaZero.jl issue #217's recipe (2024): every move sampled from Gumbel's
#   improved policy (42 >= a game's 42 plies), which is also the policy target, and games
#   starting from random 0-2-ply positions; `openings` is the random starts alone.
set -euo pipefail
OUTPUT="${1:-runs/c23_screen}"
shift || true
BIN="${BIN:-$(dirname "$0")/../../.venv/bin}"
PRESET="connect_four:cpu"

exec "$BIN/alphazero-compare" --output="$OUTPUT" --seeds=0 --minutes=30 \
    --slice_minutes=5 --checkpoint_minutes=5 \
    --arm="preset=$PRESET" \
    --arm="gumbel_jl=$PRESET search.policy=gumbel selfplay.num_sampling_moves=42 selfplay.random_opening_plies=2" \
    --arm="openings=$PRESET selfplay.random_opening_plies=2" \
    --arm="reply=$PRESET network.reply_head=True learner.aux_weights=\"{'reply':0.15}\"" \
    --arm="merge=$PRESET replay.merge_duplicates=True" \
    --arm="forced=$PRESET search.policy=puct_forced" \
    --arm="stages=$PRESET selfplay.simulation_stages=((0,16),(60,32),(150,64))" \
    --arm="score=$PRESET network.score_head=True learner.aux_weights=\"{'score':0.5}\"" \
    --arm="wider=$PRESET network.channels=48 network.blocks=4 network.value_hidden=48" \
    --arm="games128=$PRESET selfplay.batch_size=128" \
    --arm="schedule300=$PRESET num_iterations=300" \
    --arm="narrow=$PRESET network.channels=24 network.blocks=2 network.value_hidden=24" \
    "$@"
