# The arms of C23 (issue 62), sourced by c23_screen.sh and c23_hour.sh: each idea of the
# literature (docs/training.md, "Ideas from the literature") and each of the hour's own knobs
# as the overrides it adds to `playout_cap`, the Connect Four preset that was `make
# train`'s `cpu` until 2026-11-29, so that the screen and the hour runs after it train
# exactly the same arms. `make train`'s `cpu` is now the arm `lean64_hour` with fewer
# iterations (tests/experiments/ablations/test_scripts.py checks it).
#
# c23_arm NAME prints the arm's alphazero-compare spec, `NAME=PRESET OVERRIDES`, and
# c23_together NAME... the spec of the named arms' overrides together, as the arm
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
# - `reply` and `score` add an auxiliary head each, with its loss weight (C23_AUX).
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
#   120 in 39.2 minutes on the 2-core AMD machine (2026-11-29).

C23_PRESET="connect_four:playout_cap"
# The settings that `lean` and the arms built on it share.
C23_LEAN="search.policy=gumbel selfplay.simulation_stages=((0,16),) selfplay.full_search_probability=1.0 selfplay.num_sampling_moves=42 selfplay.random_opening_plies=2 learner.updates_per_iteration=32"
C23_NET64="network.channels=64 network.blocks=4 network.value_hidden=64"
C23_ORDER=(gumbel_jl openings reply merge forced stages score wider games128 schedule300 narrow lean lean64 lean64_hour)
declare -A C23_OVERRIDES=(
    [gumbel_jl]="search.policy=gumbel selfplay.num_sampling_moves=42 selfplay.random_opening_plies=2"
    [openings]="selfplay.random_opening_plies=2"
    [reply]="network.reply_head=True"
    [merge]="replay.merge_duplicates=True"
    [forced]="search.policy=puct_forced"
    [stages]="selfplay.simulation_stages=((0,16),(60,32),(150,64))"
    [score]="network.score_head=True"
    [wider]="network.channels=48 network.blocks=4 network.value_hidden=48"
    [games128]="selfplay.batch_size=128"
    [schedule300]="num_iterations=300"
    [narrow]="network.channels=24 network.blocks=2 network.value_hidden=24"
    [lean]="$C23_LEAN"
    [lean64]="$C23_LEAN $C23_NET64 num_iterations=120"
    [lean64_hour]="$C23_LEAN $C23_NET64 num_iterations=180"
)
declare -A C23_AUX=([reply]="'reply':0.15" [score]="'score':0.5")

_c23_check() {
    if [[ -z "${C23_OVERRIDES[$1]+set}" ]]; then
        echo "Unknown C23 arm '$1': expected one of ${C23_ORDER[*]}." >&2
        return 2
    fi
}

# _c23_spec NAME ARM... : the spec of arm NAME with the overrides of ARM... in order; an
# override key that two of them set to different values is refused in one line.
_c23_spec() {
    local label="$1" name override overrides="" aux=""
    shift
    declare -A seen=()
    for name in "$@"; do
        _c23_check "$name" || return
        for override in ${C23_OVERRIDES[$name]}; do
            local key="${override%%=*}"
            if [[ -n "${seen[$key]+set}" && "${seen[$key]}" != "$override" ]]; then
                echo "Arms $* cannot go together: they set $key to two values (${seen[$key]#*=} and ${override#*=})." >&2
                return 2
            fi
            [[ -z "${seen[$key]+set}" ]] && overrides+=" $override"
            seen[$key]="$override"
        done
        if [[ -n "${C23_AUX[$name]+set}" ]]; then
            aux+="${aux:+,}${C23_AUX[$name]}"
        fi
    done
    local spec="$label=$C23_PRESET$overrides"
    if [[ -n "$aux" ]]; then
        spec+=" learner.aux_weights=\"{$aux}\""
    fi
    printf '%s\n' "$spec"
}

c23_arm() {
    _c23_spec "$1" "$1"
}

c23_together() {
    _c23_spec together "$@"
}
