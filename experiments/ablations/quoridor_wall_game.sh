#!/usr/bin/env bash
# What makes Quoridor learn the wall game, on the comparison
# runner, each arm judged on the anchor ladder (random, greedy:path, minimax:2; every
# checkpoint, arm and seed plays the same openings and colours, so games pair up).
#
#   bash experiments/ablations/quoridor_wall_game.sh STAGE [OUTPUT] [extra alphazero-compare flags]
#
# STAGE is one of
# - `5x5`: the `cpu` preset (5x5, 3 walls, the shipped 5x5 agent's recipe) against its
#   variants, 30 minutes of training time each on one seed; cheap, a screen of the ideas;
# - `9x9`: the `agent` preset (the shipped 9x9 agent's recipe) against the variants that
#   apply there, 90 minutes each on one seed, a checkpoint every 30 minutes (judging one
#   plays 96 games of up to 324 plies, minutes each: the `agent` preset's evaluations of
#   192 games took 4-11 minutes; a checkpoint every 15 would add about a third to the
#   hours of training).
# The same command resumes exactly (`--max_slices=N` to share the machine and go on later);
# arms may be appended at the end. The Connect Four ablations' winners join as arms once its screen has them.
#
# The arms:
# - `score`: the score-like auxiliary target, the path-length race at the end of the game
#   (each game record's score), as Wu (2019) trains KataGo on score and ownership;
# - `wider`: twice the channels and a block more (about 3x the parameters);
# - `games`: twice the games at once (self-play's batch), the same updates an iteration;
# - `merge`: duplicate positions in the replay memory merged, their targets averaged
#   (Clausen, 2020);
# - `reply`: the opponent-reply auxiliary head (Wu, 2019; Clausen, 2020);
# - `stages` (9x9): a simulation budget rising during training (Wu T.-R. et al., 2023);
# - `anysize` (9x9): the network whose heads fit every board size (networks.any_size), the
#   control of `mixed`;
# - `mixed` (9x9): that network also learning on 5x5 and 7x7 boards, each iteration a batch
#   of games on each and 16 updates on their positions (game.mixed; as KataGo trains on
#   mixed sizes, Wu, 2019); the small boards cost a fraction of a 9x9 game.
set -euo pipefail
STAGE="${1:?give the stage: 5x5 or 9x9}"
shift
OUTPUT="${1:-runs/quoridor_wall_game_$STAGE}"
shift || true
BIN="${BIN:-$(dirname "$0")/../../.venv/bin}"

case "$STAGE" in
5x5)
    PRESET="quoridor:cpu"
    exec "$BIN/alphazero-compare" --output="$OUTPUT" --seeds=0 --minutes=30 \
        --slice_minutes=5 --checkpoint_minutes=5 --ladder_games=32 \
        --arm="preset=$PRESET" \
        --arm="score=$PRESET network.score_head=True learner.aux_weights=\"{'score':0.5}\"" \
        --arm="wider=$PRESET network.channels=64 network.blocks=4 network.value_hidden=64" \
        --arm="games=$PRESET selfplay.batch_size=96" \
        --arm="merge=$PRESET replay.merge_duplicates=True" \
        --arm="reply=$PRESET network.reply_head=True learner.aux_weights=\"{'reply':0.15}\"" \
        "$@"
    ;;
9x9)
    PRESET="quoridor:agent"
    exec "$BIN/alphazero-compare" --output="$OUTPUT" --seeds=0 --minutes=90 \
        --slice_minutes=30 --checkpoint_minutes=30 --ladder_games=32 \
        --arm="preset=$PRESET" \
        --arm="score=$PRESET network.score_head=True learner.aux_weights=\"{'score':0.5}\"" \
        --arm="wider=$PRESET network.channels=64 network.blocks=4 network.value_hidden=64" \
        --arm="games=$PRESET selfplay.batch_size=64" \
        --arm="stages=$PRESET selfplay.simulation_stages=((0,16),(60,32))" \
        --arm="anysize=$PRESET network.kind=resnet_any_size" \
        --arm="mixed=$PRESET network.kind=resnet_any_size learner.mixed_updates=16 game.mixed=\"({'size':5,'walls':3},{'size':7,'walls':6})\"" \
        "$@"
    ;;
*)
    echo "Unknown stage '$STAGE': expected 5x5 or 9x9." >&2
    exit 2
    ;;
esac
