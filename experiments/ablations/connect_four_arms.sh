# The arms of the Connect Four ablations, sourced by connect_four_screen.sh and connect_four_hour.sh: each idea of the
# literature (docs/training.md, "Ideas from the literature") and each of the hour's own knobs
# as the overrides it adds to `playout_cap`, the Connect Four preset that was `make
# train`'s `cpu` until 2026-11-29, so that the screen and the hour runs after it train
# exactly the same arms. `make train`'s `cpu` is now the arm `lean64_hour` with fewer
# iterations (tests/experiments/ablations/test_scripts.py checks it).
#
# ablation_arm NAME prints the arm's alphazero-compare spec, `NAME=PRESET OVERRIDES`, and
# ablation_together NAME... the spec of the named arms' overrides together, as the arm
# `together` (their auxiliary weights in one learner.aux_weights; arms that set one key to
# two values, such as `gumbel_jl` and `forced`, are refused).
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
# - `reply` and `score` add an auxiliary head each, with its loss weight (ARMS_AUX).
# - `lean` (added after the hour's first pair): every move searched with 16 simulations
#   of Gumbel and kept for training, where the preset keeps one move in four, searched
#   with 64, and spends 16 on the others unkept: 17 network calls a kept position instead
#   of about 116, so about five times the kept positions in the same time (Danihelka et
#   al., 2022: Gumbel's improved policy is a policy target even at a few simulations).
#   With `gumbel_jl`'s sampling and random starts, and 32 updates an iteration (about 2
#   samples a new position, the preset's about 3.6). The 16 are self-play's only stage;
#   search.num_simulations stays 64, so the judge and the agent search with 64.
# - `lean64`: `lean` with the 64 x 4 network of the `long` recipes (about 5 times the
#   32 x 3's arithmetic an evaluation), whose capacity took Middle-Medium below the
#   preset's plateau at the same positions (docs: ablations, "What the targets would
#   take"); 120 iterations, so that its schedule ends within about 40 minutes of 2 cores.
# - `lean64_hour`: `lean64` with a schedule that fills the hour: 180 iterations, from its
#   120 in 39.2 minutes on the 2-core AMD machine (2026-11-29). It is `make train`'s `cpu`
#   with 30 more iterations, and the reference of the arms below (connect_four_hour.sh
#   --reference=lean64_hour), each of which changes one thing of it, aimed at Begin-Hard,
#   which stayed at 15-16% on every run of it:
# - `lean64_rising`: a rising budget (Wu T.-R. et al., 2023), 32 simulations from iteration
#   120; 165 iterations, so that its self-play (17 -> 33 network calls a position for the
#   last 45) and learner take about the reference's hour.
# - `lean64_outcome`: value targets the game's outcome alone (root_value_weight 0): 16
#   simulations of Gumbel give a noisier root value than the 64 of PUCT it was chosen with.
# - `lean64_replay`: a replay memory of 400,000 positions, about 30 minutes of its
#   self-play, where 150,000 hold about 11.
# - `lean64_updates16`: 16 updates of 256 an iteration in place of 32 (about one sample a
#   new position): the learner is a third of the reference's
#   iteration, so halving it buys about 1.2 times the self-play an hour; 220 iterations,
#   so that the schedule fills about the reference's hour.
# - `lean64_deep`: a narrower, deeper network, 48 x 6 in place of 64 x 4 (about 0.84 times
#   its arithmetic an evaluation): Begin-Hard's positions are decided many plies ahead, and
#   depth composes features where width only adds them; the same 180 iterations.
# - `lean64_score` and `lean64_reply`: a second target signal, where every setting of the
#   reference's own targets held Begin-Hard at its plateau: the score head at 0.5 (for
#   Connect Four the number of plies to the end: Begin-Hard's positions are the ones whose
#   end is far off) and the opponent-reply head at 0.15 (Wu, 2019; Clausen, 2020: +1.9
#   points on Connect Four). Both were level with the old preset in the screen, which kept
#   one move in four; here every move is kept, so each has about four times the targets.
#   The same 180 iterations.
# - `lean64_open4` and `lean64_open8`: wider random openings, games starting from random
#   0-4- and 0-8-ply positions in place of 0-2: Begin-Hard's positions are 1-13 plies in
#   and close, and self-play from 0-2-ply starts sees mostly the openings its own sampled
#   policy favours. The opening's plies are searched but not kept (training.selfplay), so
#   the arms keep about 1 and 3 fewer positions a game. The same 180 iterations.
# - `lean64_early`: a budget by ply (training.budgets.by_ply, `budget.kind=by_ply`): each move
#   the 16 of the 64 slots whose games are the youngest are searched with 64 simulations,
#   the judge's, and the other 48 with 16: the reference's Begin-Hard mistakes are ones
#   that more search fixes (docs: ablations, "A budget by ply"). 29 network calls a move, the playout cap's, spent by age instead of by
#   chance, and every position kept; 120 iterations, as its self-play costs about 1.7
#   times the reference's a move (train.network_calls_per_move).
# - `lean64_sigma`: Gumbel's sigma twice as steep (search.value_scale 0.2 for mctx's 0.1):
#   the improved policy, self-play's target, leans more on the search's values than on the
#   prior, and so does the move played. 0.2 was the best play-time value on validation
#   positions for the reference's network (docs: ablations, "Play-time sigma"); this asks
#   whether training with it teaches more. The same 180 iterations and cost.

ARMS_PRESET="connect_four:playout_cap"
# The settings that `lean` and the arms built on it share.
ARMS_LEAN="search.policy=gumbel selfplay.simulation_stages=((0,16),) budget.kind=full selfplay.num_sampling_moves=42 opening.kind=random opening.random_plies=2 learner.updates_per_iteration=32"
ARMS_NET64="network.channels=64 network.blocks=4 network.value_hidden=64"
# `lean64_hour`'s, which the arms after it start from.
ARMS_HOUR="$ARMS_LEAN $ARMS_NET64 num_iterations=180"
_early="${ARMS_HOUR/num_iterations=180/num_iterations=120}"  # lean64_early's: fewer, dearer
ARMS_ORDER=(gumbel_jl openings reply merge forced stages score wider games128 schedule300 narrow lean lean64 lean64_hour lean64_rising lean64_outcome lean64_replay lean64_updates16 lean64_deep lean64_score lean64_reply lean64_open4 lean64_open8 lean64_early lean64_sigma)
declare -A ARMS_OVERRIDES=(
    [gumbel_jl]="search.policy=gumbel selfplay.num_sampling_moves=42 opening.kind=random opening.random_plies=2"
    [openings]="opening.kind=random opening.random_plies=2"
    [reply]="network.reply_head=True"
    [merge]="replay.merge_duplicates=True"
    [forced]="search.policy=puct_forced"
    [stages]="selfplay.simulation_stages=((0,16),(60,32),(150,64))"
    [score]="network.score_head=True"
    [wider]="network.channels=48 network.blocks=4 network.value_hidden=48"
    [games128]="selfplay.batch_size=128"
    [schedule300]="num_iterations=300"
    [narrow]="network.channels=24 network.blocks=2 network.value_hidden=24"
    [lean]="$ARMS_LEAN"
    [lean64]="$ARMS_LEAN $ARMS_NET64 num_iterations=120"
    [lean64_hour]="$ARMS_HOUR"
    [lean64_rising]="${ARMS_LEAN/"((0,16),)"/"((0,16),(120,32))"} $ARMS_NET64 num_iterations=165"
    [lean64_outcome]="$ARMS_HOUR selfplay.root_value_weight=0.0"
    [lean64_replay]="$ARMS_HOUR replay.capacity=400000"
    [lean64_updates16]="${ARMS_LEAN/updates_per_iteration=32/updates_per_iteration=16} $ARMS_NET64 num_iterations=220"
    [lean64_early]="${_early/budget.kind=full/budget.kind=by_ply} budget.early_slots=16 budget.early_simulations=64"
    [lean64_sigma]="$ARMS_HOUR search.value_scale=0.2"
    [lean64_deep]="$ARMS_LEAN network.channels=48 network.blocks=6 network.value_hidden=48 num_iterations=180"
)
declare -A ARMS_AUX=([reply]="'reply':0.15" [score]="'score':0.5")
for _head in score reply; do  # the heads of the screen over `lean64_hour`, at their weights
    ARMS_OVERRIDES[lean64_$_head]="$ARMS_HOUR ${ARMS_OVERRIDES[$_head]}"
    ARMS_AUX[lean64_$_head]="${ARMS_AUX[$_head]}"
done
for _plies in 4 8; do  # wider random openings over `lean64_hour`
    ARMS_OVERRIDES[lean64_open$_plies]="${ARMS_HOUR/random_plies=2/random_plies=$_plies}"
done
unset _head _plies _early

_ablation_check() {
    if [[ -z "${ARMS_OVERRIDES[$1]+set}" ]]; then
        echo "Unknown Connect Four ablation arm '$1': expected one of ${ARMS_ORDER[*]}." >&2
        return 2
    fi
}

# _ablation_spec LABEL REFERENCE ARM... : the spec of arm LABEL with the overrides of ARM... in
# order. With a REFERENCE arm (empty: none), its overrides first, and of each ARM only what it
# changes of them, in the reference's place where it sets the same key; an override key
# that two arms set to different values is refused in one line.
_ablation_spec() {
    local label="$1" reference="$2" name override key aux=""
    shift 2
    local -A value=() owner=() given=()
    local -a keys=()
    if [[ -n "$reference" ]]; then
        _ablation_check "$reference" || return
        for override in ${ARMS_OVERRIDES[$reference]}; do
            key="${override%%=*}"
            keys+=("$key")
            value[$key]="$override"
            owner[$key]=""
            given[$key]="$override"
        done
    fi
    for name in "$@"; do
        _ablation_check "$name" || return
        for override in ${ARMS_OVERRIDES[$name]}; do
            key="${override%%=*}"
            if [[ -z "${value[$key]+set}" ]]; then
                keys+=("$key")
            elif [[ "${value[$key]}" == "$override" || "${given[$key]:-}" == "$override" ]]; then
                continue  # what another arm or the reference set already
            elif [[ -n "${owner[$key]}" ]]; then
                echo "Arms $* cannot go together: they set $key to two values (${value[$key]#*=} and ${override#*=})." >&2
                return 2
            fi
            value[$key]="$override"
            owner[$key]="$name"
        done
        if [[ -n "${ARMS_AUX[$name]+set}" ]]; then
            aux+="${aux:+,}${ARMS_AUX[$name]}"
        fi
    done
    local spec="$label=$ARMS_PRESET"
    for key in "${keys[@]}"; do
        spec+=" ${value[$key]}"
    done
    if [[ -n "$aux" ]]; then
        spec+=" learner.aux_weights=\"{$aux}\""
    fi
    printf '%s\n' "$spec"
}

ablation_arm() {
    _ablation_spec "$1" "" "$1"
}

# ablation_together [--reference=ARM] NAME...: the arm `together`; over a reference, that
# reference with each named arm's changes of it.
ablation_together() {
    local reference=""
    if [[ "${1:-}" == --reference=* ]]; then
        reference="${1#--reference=}"
        shift
    fi
    _ablation_spec together "$reference" "$@"
}
