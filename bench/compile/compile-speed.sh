#!/usr/bin/env bash
# bench/compile/compile-speed.sh — compile-speed benchmark of the tally front end.
#
# Input: bench/compile/gen.sh (the generated program), the tally binary.
# It generates a LINES-line program (default 10000) into build/bench-compile/,
# checks that it compiles and runs, then times `tally build` on it and on a
# one-line program BENCH_RUNS times each (default 7, alternating), by wall
# clock (date +%s%N).  Output: the median build time of each, their
# difference (the compile time without process start-up, module writing of
# a tiny module and the like), and lines per second for both measures.
# Exit status 1 if the program fails to build or run, 2 on bad setup.
# Invariant: needs only bash, awk, date and coreutils.
#
# Usage: bench/compile/compile-speed.sh [LINES]
# Environment: BENCH_RUNS (default 7), TALLY (default bin/tally).
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
lines=${1:-10000}
runs=${BENCH_RUNS:-7}
tally=${TALLY:-$root/bin/tally}
out=$root/build/bench-compile

if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
    echo "compile-speed.sh: BENCH_RUNS must be a positive integer, not '$runs'" >&2
    exit 2
fi
if [[ ! -x $tally ]]; then
    echo "compile-speed.sh: $tally not found or not executable (make bin/tally)" >&2
    exit 2
fi
mkdir -p "$out" || exit 2
big=$out/big.tl tiny=$out/tiny.tl
bash "$here/gen.sh" "$lines" >"$big" || exit 2
printf 'fn main() { println(1); }\n' >"$tiny"
nlines=$(wc -l <"$big")

# The program must compile and run before its compile time means anything.
if ! "$tally" build "$big" -o "$out/big.tlb" 2>"$out/build.err"; then
    echo "compile-speed.sh: the generated program does not compile:" >&2
    head -20 "$out/build.err" >&2
    exit 1
fi
if ! "$tally" run "$out/big.tlb" >"$out/run.out" 2>"$out/run.err"; then
    echo "compile-speed.sh: the generated program fails when run:" >&2
    head -20 "$out/run.err" >&2
    exit 1
fi
if ! "$tally" build "$tiny" -o "$out/tiny.tlb" 2>"$out/build.err"; then
    echo "compile-speed.sh: the one-line program does not compile:" >&2
    head -20 "$out/build.err" >&2
    exit 1
fi

# time_build FILE — sets elapsed_ns to the wall time of `tally build FILE`.
time_build() {
    local t0 t1
    t0=$(date +%s%N)
    "$tally" build "$1" -o "$out/timed.tlb" 2>/dev/null
    status=$?
    t1=$(date +%s%N)
    elapsed_ns=$((t1 - t0))
    if ((status != 0)); then
        echo "compile-speed.sh: tally build $1 failed (exit $status)" >&2
        exit 1
    fi
}

median() {
    sort -n | awk '{ v[NR] = $1 }
        END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

big_ns=() tiny_ns=()
for ((i = 1; i <= runs; i++)); do
    time_build "$tiny"
    tiny_ns+=("$elapsed_ns")
    time_build "$big"
    big_ns+=("$elapsed_ns")
    printf 'run %d/%d: %d lines %.1f ms, tiny %.1f ms\n' "$i" "$runs" "$nlines" \
        "$(awk -v n="${big_ns[-1]}" 'BEGIN { print n / 1e6 }')" \
        "$(awk -v n="${tiny_ns[-1]}" 'BEGIN { print n / 1e6 }')" >&2
done
bm=$(printf '%s\n' "${big_ns[@]}" | median)
tm=$(printf '%s\n' "${tiny_ns[@]}" | median)

awk -v big="$bm" -v tiny="$tm" -v n="$nlines" -v runs="$runs" -v out="$(cat "$out/run.out" | tr '\n' ' ')" 'BEGIN {
    c = big - tiny; if (c < 1) c = 1
    printf "program:       %d lines (bench/compile/gen.sh), runs and prints: %s\n", n, out
    printf "tally build:   %8.1f ms median of %d  (%8.0f lines/s)\n", big / 1e6, runs, n / (big / 1e9)
    printf "one-line file: %8.1f ms median of %d  (process start-up, stdlib, writing)\n", tiny / 1e6, runs
    printf "compile only:  %8.1f ms             (%8.0f lines/s)\n", c / 1e6, n / (c / 1e9)
    printf "per 10,000 lines: %.1f ms build, %.1f ms compile only (goal: < 100 ms)\n", big / 1e6 * 10000 / n, c / 1e6 * 10000 / n
}'
