#!/usr/bin/env bash
# tests/gen/tiers.sh — random programs (build/tlgen) on every tier.
#
# Usage:
#   tests/gen/tiers.sh [FIRST_SEED [COUNT]]   generate programs FIRST_SEED..
#       and run each on every tier of tests/tiers.sh; a program passes when
#       every tier prints the stdout and stderr of the first tier and ends
#       with its status (a timeout, or a failed JIT compile in a logging
#       tier, fails it).  Mismatches are reduced (tests/gen/tlreduce) into
#       tests/gen/regressions/SEED.tl.  Last line:
#       "gen: N programs, M mismatches, K generator errors"; status 0 when
#       M + K is 0.
#   tests/gen/tiers.sh --replay FILE...    the same check on saved programs
#   tests/gen/tiers.sh --one SEED|FILE     one program: prints "ok ID",
#       "generr ID: why", or "mismatch ID I J: why" (tier indexes)
#   tests/gen/tiers.sh --differ I J FILE   status 0 when tiers I and J
#       disagree on FILE, which compiles (the reducer's predicate)
# Environment: GEN_TIERS (tests/tiers.sh) the file defining TIERS; JOBS (2) programs at once; GEN_TIMEOUT (60) seconds a run;
# GEN_DIR (build/gen) where programs and outputs go; REDUCE (1) reduce
# mismatches; GEN_VERBOSE (0) 1 = a PASS/FAIL line per program (run.sh).
# Needs bin/tally, bin/tally-switch, build/tlgen, build/tlreduce.
set -u
cd "$(dirname "$0")/../.."
source "${GEN_TIERS:-tests/tiers.sh}"   # another list only to test this script
GEN_DIR=${GEN_DIR:-build/gen}
GEN_TIMEOUT=${GEN_TIMEOUT:-60}
JOBS=${JOBS:-2}
mkdir -p "$GEN_DIR"

# run_tier I FILE OUTBASE: runs tier I; OUTBASE.out, OUTBASE.err (JIT log
# lines split off), OUTBASE.jitfail (failed compiles); echoes the status
run_tier() {
    local bin=${TIERS[$1]} file=$2 base=$3 log=()
    # sync and eager compiles log on the program's thread (whole lines): a
    # failed compile leaves the method interpreted, hiding a codegen bug
    [[ $bin == *--jit=sync* || $bin == *--jit=eager* ]] && log=(-X jit.log=1)
    # shellcheck disable=SC2086
    timeout "$GEN_TIMEOUT" $bin "${log[@]}" run "$file" >"$base.out" 2>"$base.all" </dev/null
    local st=$?
    grep -v '^\[[0-9.]*ms\] jit: ' "$base.all" >"$base.err"
    grep '^\[[0-9.]*ms\] jit: failed' "$base.all" >"$base.jitfail"
    rm -f "$base.all"
    echo "$st"
}

# check FILE ID: one program on every tier; one result line
check() {
    local file=$1 id=$2 base="$GEN_DIR/$2" i st ref_st
    ref_st=$(run_tier 0 "$file" "$base.0")
    if [[ $ref_st == 2 ]]; then
        echo "generr $id: $(head -1 "$base.0.err")"
        return
    fi
    if [[ $ref_st == 124 ]]; then
        echo "mismatch $id 0 0: the reference timed out"
        return
    fi
    for ((i = 1; i < ${#TIERS[@]}; i++)); do
        st=$(run_tier "$i" "$file" "$base.$i")
        if [[ -s $base.$i.jitfail ]]; then
            echo "mismatch $id 0 $i: a JIT compile failed: $(head -1 "$base.$i.jitfail" | cut -c1-160)"
            return
        fi
        if [[ $st != "$ref_st" ]] || ! cmp -s "$base.0.out" "$base.$i.out" || ! cmp -s "$base.0.err" "$base.$i.err"; then
            local what=()
            [[ $st != "$ref_st" ]] && what+=("status $ref_st vs $st")
            cmp -s "$base.0.out" "$base.$i.out" || what+=("stdout differs")
            cmp -s "$base.0.err" "$base.$i.err" || what+=("stderr differs")
            echo "mismatch $id 0 $i: ${what[*]} (outputs in $base.*)"
            return
        fi
    done
    rm -f "$base".*
    echo "ok $id"
}

# differ I J FILE: the reducer's predicate
differ() {
    local i=$1 j=$2 file=$3 base si sj
    base=$(mktemp "$GEN_DIR/differ.XXXXXX")
    si=$(run_tier "$i" "$file" "$base.a")
    sj=$(run_tier "$j" "$file" "$base.b")
    local r=1
    if [[ $si != 2 && $si != 124 && $sj != 124 ]]; then
        if [[ $si != "$sj" || -s $base.b.jitfail ]] || ! cmp -s "$base.a.out" "$base.b.out" ||
            ! cmp -s "$base.a.err" "$base.b.err"; then r=0; fi
    fi
    rm -f "$base" "$base".*
    return $r
}

case ${1:-} in
--one)
    if [[ -f $2 ]]; then
        check "$2" "$(basename "$2" .tl)"
    else
        build/tlgen "$2" >"$GEN_DIR/$2.tl" && check "$GEN_DIR/$2.tl" "$2"
    fi
    exit 0
    ;;
--differ)
    differ "$2" "$3" "$4"
    exit
    ;;
--replay)
    shift
    mode=replay
    ;;
*)
    mode=seeds
    first=${1:-1}
    count=${2:-100}
    ;;
esac

for b in bin/tally bin/tally-switch build/tlgen build/tlreduce; do
    [[ -x $b ]] || { echo "FAIL gen: $b is missing (make all build/tlgen build/tlreduce)"; exit 2; }
done

# the work list: seeds, or files to replay
if [[ $mode == seeds ]]; then
    items=$(seq "$first" $((first + count - 1)))
    echo "gen: seeds $first..$((first + count - 1)) on ${#TIERS[@]} tiers, $JOBS at once" >&2
else
    items=$(printf '%s\n' "$@")
    count=$#
fi
n=0 nbad=0 ngen=0
start=$SECONDS
mismatches=()
while read -r kind id rest; do
    n=$((n + 1))
    case $kind in
    ok) [[ ${GEN_VERBOSE:-0} == 1 ]] && echo "PASS gen $id" ;;
    generr)
        ngen=$((ngen + 1))
        echo "FAIL gen $id: generator error (the program does not compile): $rest"
        ;;
    mismatch)
        nbad=$((nbad + 1))
        mismatches+=("$id $rest")
        echo "FAIL gen $id: tiers disagree ([${TIERS[0]}] vs [${TIERS[$(cut -d' ' -f2 <<<"$rest" | tr -d :)]}]): ${rest#*: }"
        ;;
    *) echo "gen: unexpected line: $kind $id $rest" >&2 ;;
    esac
    if ((n % 25 == 0)); then
        echo "gen: $n/$count programs, $nbad mismatches, $ngen generator errors, $((SECONDS - start)) s" >&2
    fi
done < <(tr ' ' '\n' <<<"$items" | grep . | xargs -r -P "$JOBS" -n 1 bash tests/gen/tiers.sh --one)

# reduce each mismatch to a small program that still shows it
if [[ ${REDUCE:-1} == 1 && $mode == seeds ]]; then
    mkdir -p tests/gen/regressions
    for m in "${mismatches[@]}"; do
        read -r seed ti tj _ <<<"$m"
        tj=${tj%:}
        [[ $ti == "$tj" ]] && continue  # the reference timed out: nothing to compare
        out=tests/gen/regressions/$seed.tl
        echo "gen: reducing seed $seed (tiers $ti and $tj) into $out" >&2
        if GEN_TIMEOUT=${REDUCE_TIMEOUT:-30} build/tlreduce -o "$GEN_DIR/$seed.min.tl" "$GEN_DIR/$seed.tl" \
            bash tests/gen/tiers.sh --differ "$ti" "$tj" >&2; then
            {
                echo "// tiers disagree: [${TIERS[$ti]}] vs [${TIERS[$tj]}]"
                echo "// reduced from: build/tlgen $seed"
                cat "$GEN_DIR/$seed.min.tl"
            } >"$out"
        else
            echo "gen: seed $seed: the mismatch does not reproduce; the program is $GEN_DIR/$seed.tl" >&2
        fi
    done
fi
echo "gen: $n programs, $nbad mismatches, $ngen generator errors ($((SECONDS - start)) s)"
[[ $nbad -eq 0 && $ngen -eq 0 ]]
