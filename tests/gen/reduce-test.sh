#!/usr/bin/env bash
# tests/gen/reduce-test.sh — the reducer on a fake mismatch, deterministically.
# A generated program gets a marker line in one of its functions; the
# predicate is "still has the marker line and compiles" (run by the switch
# interpreter: exit 0 or 1).  The reduced program must satisfy the
# predicate, be small (at most MAX_LINES lines) and be the same on a
# second run; and build/tlgen is deterministic.  Prints PASS/FAIL lines
# (tests/run.sh, suite gen).
# Usage: tests/gen/reduce-test.sh [SEED...]   (default: 3 11; the second
# reduction, for determinism, of the first seed only)
set -u
cd "$(dirname "$0")/../.."
MAX_LINES=30
if [[ ${1:-} == --pred ]]; then
    # the predicate: the marker, and a program that compiles and ends
    grep -q '^ *ck = mix(ck, 4242);$' "$2" || exit 1
    timeout 10 bin/tally-switch --jit=off run "$2" >/dev/null 2>&1 </dev/null
    [[ $? -le 1 ]]
    exit
fi
TMP=$(mktemp -d /tmp/tally-reduce.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# the generator itself: a seed gives the same program every time
if cmp -s <(build/tlgen 5) <(build/tlgen 5) && ! cmp -s <(build/tlgen 5) <(build/tlgen 6); then
    echo "PASS tlgen: a seed gives one program, two seeds two"
else
    echo "FAIL tlgen: build/tlgen is not a function of its seed"
fi
first=1
for seed in "${@:-3 11}"; do
    for s in $seed; do
        build/tlgen "$s" >"$TMP/p.tl"
        # the marker: the first statement of the function that is declared last
        n=$(grep -n '^fn f[0-9]*(' "$TMP/p.tl" | tail -1 | cut -d: -f1)
        sed -i "${n}a\\    ck = mix(ck, 4242);" "$TMP/p.tl"
        runs=1
        [[ $first == 1 ]] && runs=2
        first=0
        rm -f "$TMP/r2.tl"
        for ((run = 1; run <= runs; run++)); do
            TMPDIR=$TMP build/tlreduce -o "$TMP/r$run.tl" "$TMP/p.tl" bash tests/gen/reduce-test.sh --pred 2>"$TMP/log"
        done
        lines=$(wc -l <"$TMP/r1.tl")
        if ! bash tests/gen/reduce-test.sh --pred "$TMP/r1.tl"; then
            echo "FAIL reduce $s: the reduced program does not satisfy the predicate"
        elif ((lines > MAX_LINES)); then
            echo "FAIL reduce $s: $lines lines left of $(wc -l <"$TMP/p.tl") (at most $MAX_LINES): $(cat "$TMP/log")"
        elif [[ -f $TMP/r2.tl ]] && ! cmp -s "$TMP/r1.tl" "$TMP/r2.tl"; then
            echo "FAIL reduce $s: two reductions differ"
        else
            echo "PASS reduce $s: $lines lines left of $(wc -l <"$TMP/p.tl"): $(cat "$TMP/log")"
        fi
    done
done
