#!/usr/bin/env bash
# bench/micro/run.sh — interpreter micro benchmarks: tally against Lua 5.4.
#
# Input: the benchmark programs bench/micro/NAME.tla and their Lua twins
# bench/micro/lua/NAME.lua (same algorithm, same output), the tally binary
# and lua5.4.  For each benchmark it runs the two programs alternately
# BENCH_RUNS times each (default 5), timing every process run by wall clock,
# and checks that every run of both printed exactly the same text as the
# first Lua run (Lua runs first in each pair, so it is the reference).
# Output: one progress line per run on stderr; a table on stdout (median ms
# of each side, ratio tally/lua, geometric mean of the ratios); the same data
# in bench/micro/results.json.  Exit status 1 if any benchmark failed (a
# program exited non-zero or the outputs differ), 2 on bad setup.
# Invariant: needs only bash, awk, date and coreutils (no python), so it
# runs on a fresh Debian machine.
#
# Usage: bench/micro/run.sh [NAME...]       (default: every benchmark)
# Environment: BENCH_RUNS (runs per side), TALLY (default bin/tally),
# LUA (default lua5.4), BENCH_JSON (default bench/micro/results.json).
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${BENCH_RUNS:-5}
tally=${TALLY:-$root/bin/tally}
lua=${LUA:-lua5.4}
json=${BENCH_JSON:-$here/results.json}
all_benchmarks=(fib loops floats array_sum array_fill calls virtual alloc strings)

if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
    echo "run.sh: BENCH_RUNS must be a positive integer, not '$runs'" >&2
    exit 2
fi
if [[ ! -x $tally ]]; then
    echo "run.sh: $tally not found or not executable (make bin/tally)" >&2
    exit 2
fi
if ! command -v "$lua" >/dev/null 2>&1; then
    echo "run.sh: $lua not found (apt-get install lua5.4)" >&2
    exit 2
fi

if (($# > 0)); then
    benchmarks=("$@")
else
    benchmarks=("${all_benchmarks[@]}")
fi
for b in "${benchmarks[@]}"; do
    if [[ ! -f $here/$b.tla || ! -f $here/lua/$b.lua ]]; then
        echo "run.sh: unknown benchmark '$b' (need $b.tla and lua/$b.lua)" >&2
        exit 2
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tally-bench.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# time_run OUT ERR CMD... — runs CMD with stdout/stderr to OUT/ERR; sets
# elapsed_ns and status.
time_run() {
    local out=$1 err=$2
    shift 2
    local t0 t1
    t0=$(date +%s%N)
    "$@" >"$out" 2>"$err"
    status=$?
    t1=$(date +%s%N)
    elapsed_ns=$((t1 - t0))
}

# stdin as one line fit for a JSON string and the table: no quotes,
# backslashes or control characters, at most $1 bytes.
clean() {
    head -c "$1" | tr '\n\t' '| ' | tr -d '"\\\000-\037'
}

# median of the numbers on stdin (ns), printed in ms with 2 decimals.
median_ms() {
    sort -n | awk '{ v[NR] = $1 }
        END {
            if (NR == 0) { print "0"; exit }
            m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            printf "%.2f\n", m / 1e6
        }'
}

# ns list (space separated) as a JSON array of ms.
ms_array() {
    awk -v list="$1" 'BEGIN {
        n = split(list, v, " "); s = "["
        for (i = 1; i <= n; i++) s = s (i > 1 ? ", " : "") sprintf("%.2f", v[i] / 1e6)
        print s "]"
    }'
}

failed=0
names=() statuses=() tally_meds=() lua_meds=() ratios=() tally_lists=() lua_lists=() notes=()

for b in "${benchmarks[@]}"; do
    tally_ns=() lua_ns=()
    status_b=ok note=""
    ref="$tmp/$b.ref"
    for ((i = 1; i <= runs; i++)); do
        for side in lua tally; do
            out="$tmp/$b.$side.out" err="$tmp/$b.$side.err"
            if [[ $side == tally ]]; then
                time_run "$out" "$err" "$tally" run "$here/$b.tla"
                tally_ns+=("$elapsed_ns")
            else
                time_run "$out" "$err" "$lua" "$here/lua/$b.lua"
                lua_ns+=("$elapsed_ns")
            fi
            ms=$(awk -v n="$elapsed_ns" 'BEGIN { printf "%.1f", n / 1e6 }')
            mark=""
            if ((status != 0)); then
                mark=" FAIL (exit $status)"
                [[ $status_b == ok ]] && note="$side exited with status $status: $(clean 300 <"$err")"
                status_b=FAIL
            elif [[ ! -f $ref ]]; then
                cp "$out" "$ref"
            elif ! cmp -s "$out" "$ref"; then
                mark=" FAIL (output differs)"
                if [[ $status_b == ok ]]; then
                    note="output differs: $side printed '$(clean 120 <"$out")', lua printed '$(clean 120 <"$ref")'"
                fi
                status_b=FAIL
            fi
            printf '%-11s %-5s run %d/%d  %9s ms%s\n' "$b" "$side" "$i" "$runs" "$ms" "$mark" >&2
        done
    done
    tm=$(printf '%s\n' "${tally_ns[@]}" | median_ms)
    lm=$(printf '%s\n' "${lua_ns[@]}" | median_ms)
    ratio=$(awk -v t="$tm" -v l="$lm" 'BEGIN { printf "%.3f", (l > 0) ? t / l : 0 }')
    [[ $status_b == ok ]] || failed=1
    names+=("$b") statuses+=("$status_b") tally_meds+=("$tm") lua_meds+=("$lm") ratios+=("$ratio")
    tally_lists+=("${tally_ns[*]}") lua_lists+=("${lua_ns[*]}") notes+=("$note")
done

# geometric mean over the benchmarks whose outputs agreed
ok_ratios=()
for k in "${!names[@]}"; do
    [[ ${statuses[k]} == ok ]] && ok_ratios+=("${ratios[k]}")
done
geomean=$(printf '%s\n' "${ok_ratios[@]}" | awk 'NF && $1 > 0 { s += log($1); n++ }
    END { if (n) printf "%.3f", exp(s / n); else print "null" }')

echo
printf '%-12s %12s %12s %10s  %s\n' benchmark "tally ms" "lua ms" tally/lua status
printf '%-12s %12s %12s %10s  %s\n' ------------ ------------ ------------ ---------- ------
for k in "${!names[@]}"; do
    printf '%-12s %12s %12s %10s  %s\n' "${names[k]}" "${tally_meds[k]}" "${lua_meds[k]}" \
        "${ratios[k]}" "${statuses[k]}"
done
printf '%-12s %12s %12s %10s  %s\n' ------------ ------------ ------------ ---------- ------
printf '%-12s %12s %12s %10s  (%d of %d benchmarks; target <= 0.8)\n' geomean "" "" "$geomean" \
    "${#ok_ratios[@]}" "${#names[@]}"
for k in "${!names[@]}"; do
    [[ -n ${notes[k]} ]] && echo "${names[k]}: ${notes[k]}"
done

# results.json
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null | tr -d '\042\134')
lua_version=$("$lua" -v 2>&1 | head -n 1 | tr -d '\042\134')
{
    printf '{\n'
    printf '  "date": "%s",\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf '  "machine": {"cpu": "%s", "cores": %s, "kernel": "%s"},\n' \
        "$cpu" "$(nproc 2>/dev/null || echo 0)" "$(uname -sr | tr -d '\042\134')"
    printf '  "tally": "%s",\n' "$(tr -d '\042\134' <<<"$tally")"
    printf '  "lua": "%s",\n' "$lua_version"
    printf '  "runs": %d,\n' "$runs"
    printf '  "benchmarks": [\n'
    for k in "${!names[@]}"; do
        sep=","
        ((k == ${#names[@]} - 1)) && sep=""
        printf '    {"name": "%s", "status": "%s", "tally_median_ms": %s, "lua_median_ms": %s, "ratio": %s,\n' \
            "${names[k]}" "${statuses[k]}" "${tally_meds[k]}" "${lua_meds[k]}" "${ratios[k]}"
        printf '     "tally_ms": %s, "lua_ms": %s, "note": "%s"}%s\n' \
            "$(ms_array "${tally_lists[k]}")" "$(ms_array "${lua_lists[k]}")" "${notes[k]}" "$sep"
    done
    printf '  ],\n'
    printf '  "geomean_ratio": %s,\n' "$geomean"
    printf '  "geomean_count": %d,\n' "${#ok_ratios[@]}"
    printf '  "target_ratio": 0.8\n'
    printf '}\n'
} >"$json"
echo "wrote $json"

exit "$failed"
