#!/usr/bin/env bash
# bench/micro/micro.sh — interpreter micro benchmarks: tally against Lua 5.4.
#
# Input: each benchmark NAME in three versions that print the same text —
# bench/micro/NAME.tla (hand-written bytecode), bench/micro/tl/NAME.tl (tally
# source, compiled in memory by `tally run`) and bench/micro/lua/NAME.lua —
# plus the tally binary and lua5.4.  For each benchmark it runs, BENCH_RUNS
# times (default 5), the round lua, tla, tl, build: the three programs
# alternately, then `tally build NAME.tl` on its own (to report the compile
# time separately; the tl runs include it).  Every process run is timed by
# wall clock, and every run's output must equal the first Lua run's output
# (Lua runs first in each round, so it is the reference).
# Output: one progress line per run on stderr; a table on stdout (median ms
# of each configuration and of the build, the ratios tla/lua, tl/lua and
# tl/tla, their geometric means); the same data in bench/micro/results.json.
# Exit status 1 if any benchmark failed (a program or the build exited
# non-zero, or the outputs differ), 2 on bad setup.
# Invariant: needs only bash, awk, date and coreutils (no python), so it
# runs on a fresh Debian machine.
#
# Usage: bench/micro/micro.sh [NAME...]       (default: every benchmark)
# Environment: BENCH_RUNS (runs per configuration), TALLY (default
# bin/tally), TALLY_FLAGS (default --jit=off: this suite measures the
# interpreter), LUA (default lua5.4), BENCH_JSON (default
# bench/micro/results.json).
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${BENCH_RUNS:-5}
tally=${TALLY:-$root/bin/tally}
# the interpreter is what this suite measures: the JIT (on by default) is off
read -r -a tally_flags <<<"${TALLY_FLAGS---jit=off}"
lua=${LUA:-lua5.4}
json=${BENCH_JSON:-$here/results.json}
all_benchmarks=(fib loops floats array_sum array_fill calls virtual alloc strings)

if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
    echo "micro.sh: BENCH_RUNS must be a positive integer, not '$runs'" >&2
    exit 2
fi
if [[ ! -x $tally ]]; then
    echo "micro.sh: $tally not found or not executable (make bin/tally)" >&2
    exit 2
fi
if ! command -v "$lua" >/dev/null 2>&1; then
    echo "micro.sh: $lua not found (apt-get install lua5.4)" >&2
    exit 2
fi

if (($# > 0)); then
    benchmarks=("$@")
else
    benchmarks=("${all_benchmarks[@]}")
fi
for b in "${benchmarks[@]}"; do
    if [[ ! -f $here/$b.tla || ! -f $here/tl/$b.tl || ! -f $here/lua/$b.lua ]]; then
        echo "micro.sh: unknown benchmark '$b' (need $b.tla, tl/$b.tl and lua/$b.lua)" >&2
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

# ratio A B: A / B with 3 decimals (0 when B is 0).
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0) ? a / b : 0 }'
}

# ns list (space separated) as a JSON array of ms.
ms_array() {
    awk -v list="$1" 'BEGIN {
        n = split(list, v, " "); s = "["
        for (i = 1; i <= n; i++) s = s (i > 1 ? ", " : "") sprintf("%.2f", v[i] / 1e6)
        print s "]"
    }'
}

# geometric mean of the numbers on stdin ("null" when there are none).
geomean() {
    awk 'NF && $1 > 0 { s += log($1); n++ }
        END { if (n) printf "%.3f", exp(s / n); else print "null" }'
}

failed=0
names=() statuses=() notes=()
tla_meds=() tl_meds=() lua_meds=() build_meds=()
tla_lua=() tl_lua=() tl_tla=()
tla_lists=() tl_lists=() lua_lists=() build_lists=()

for b in "${benchmarks[@]}"; do
    tla_ns=() tl_ns=() lua_ns=() build_ns=()
    status_b=ok note=""
    ref="$tmp/$b.ref"
    for ((i = 1; i <= runs; i++)); do
        for side in lua tla tl build; do
            out="$tmp/$b.$side.out" err="$tmp/$b.$side.err"
            case $side in
            lua)
                time_run "$out" "$err" "$lua" "$here/lua/$b.lua"
                lua_ns+=("$elapsed_ns") ;;
            tla)
                time_run "$out" "$err" "$tally" run "${tally_flags[@]}" "$here/$b.tla"
                tla_ns+=("$elapsed_ns") ;;
            tl)
                time_run "$out" "$err" "$tally" run "${tally_flags[@]}" "$here/tl/$b.tl"
                tl_ns+=("$elapsed_ns") ;;
            build)
                time_run "$out" "$err" "$tally" build "$here/tl/$b.tl" -o "$tmp/$b.tlb"
                build_ns+=("$elapsed_ns") ;;
            esac
            ms=$(awk -v n="$elapsed_ns" 'BEGIN { printf "%.1f", n / 1e6 }')
            mark=""
            if ((status != 0)); then
                mark=" FAIL (exit $status)"
                [[ $status_b == ok ]] && note="$side exited with status $status: $(clean 300 <"$err")"
                status_b=FAIL
            elif [[ $side == build ]]; then
                :   # writes a module, prints nothing to compare
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
    a=$(printf '%s\n' "${tla_ns[@]}" | median_ms)
    t=$(printf '%s\n' "${tl_ns[@]}" | median_ms)
    l=$(printf '%s\n' "${lua_ns[@]}" | median_ms)
    c=$(printf '%s\n' "${build_ns[@]}" | median_ms)
    [[ $status_b == ok ]] || failed=1
    names+=("$b") statuses+=("$status_b") notes+=("$note")
    tla_meds+=("$a") tl_meds+=("$t") lua_meds+=("$l") build_meds+=("$c")
    tla_lua+=("$(ratio "$a" "$l")") tl_lua+=("$(ratio "$t" "$l")") tl_tla+=("$(ratio "$t" "$a")")
    tla_lists+=("${tla_ns[*]}") tl_lists+=("${tl_ns[*]}") lua_lists+=("${lua_ns[*]}")
    build_lists+=("${build_ns[*]}")
done

# geometric means over the benchmarks whose outputs agreed
ok=()
for k in "${!names[@]}"; do
    [[ ${statuses[k]} == ok ]] && ok+=("$k")
done
g_tla_lua=$(for k in "${ok[@]}"; do echo "${tla_lua[k]}"; done | geomean)
g_tl_lua=$(for k in "${ok[@]}"; do echo "${tl_lua[k]}"; done | geomean)
g_tl_tla=$(for k in "${ok[@]}"; do echo "${tl_tla[k]}"; done | geomean)

row='%-12s %10s %10s %10s %9s %8s %8s %8s  %s\n'
rule() {
    printf "$row" ------------ ---------- ---------- ---------- --------- -------- -------- -------- ------
}
echo
printf "$row" benchmark "tla ms" "tl ms" "lua ms" "build ms" tla/lua tl/lua tl/tla status
rule
for k in "${!names[@]}"; do
    printf "$row" "${names[k]}" "${tla_meds[k]}" "${tl_meds[k]}" "${lua_meds[k]}" "${build_meds[k]}" \
        "${tla_lua[k]}" "${tl_lua[k]}" "${tl_tla[k]}" "${statuses[k]}"
done
rule
printf "$row" geomean "" "" "" "" "$g_tla_lua" "$g_tl_lua" "$g_tl_tla" \
    "(${#ok[@]} of ${#names[@]} benchmarks; target tally/lua <= 0.8)"
echo "tl ms includes compiling the .tl in memory; build ms is 'tally build' alone."
for k in "${!names[@]}"; do
    [[ -n ${notes[k]} ]] && echo "${names[k]}: ${notes[k]}"
done

# results.json.  tally_median_ms, ratio and geomean_ratio repeat the .tla
# figures under the names older results files use, for tools that read them.
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null | tr -d '\042\134')
lua_version=$("$lua" -v 2>&1 | head -n 1 | tr -d '\042\134')
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null | tr -d '\042\134')
{
    printf '{\n'
    printf '  "date": "%s",\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf '  "machine": {"cpu": "%s", "cores": %s, "kernel": "%s", "loadavg_at_end": "%s"},\n' \
        "$cpu" "$(nproc 2>/dev/null || echo 0)" "$(uname -sr | tr -d '\042\134')" "$load"
    printf '  "tally": "%s",\n' "$(tr -d '\042\134' <<<"$tally")"
    printf '  "lua": "%s",\n' "$lua_version"
    printf '  "runs": %d,\n' "$runs"
    printf '  "benchmarks": [\n'
    for k in "${!names[@]}"; do
        sep=","
        ((k == ${#names[@]} - 1)) && sep=""
        printf '    {"name": "%s", "status": "%s",\n' "${names[k]}" "${statuses[k]}"
        printf '     "tla_median_ms": %s, "tl_median_ms": %s, "lua_median_ms": %s, "tl_build_median_ms": %s,\n' \
            "${tla_meds[k]}" "${tl_meds[k]}" "${lua_meds[k]}" "${build_meds[k]}"
        printf '     "tla_lua": %s, "tl_lua": %s, "tl_tla": %s,\n' \
            "${tla_lua[k]}" "${tl_lua[k]}" "${tl_tla[k]}"
        printf '     "tally_median_ms": %s, "ratio": %s,\n' "${tla_meds[k]}" "${tla_lua[k]}"
        printf '     "tla_ms": %s, "tl_ms": %s, "lua_ms": %s, "tl_build_ms": %s,\n' \
            "$(ms_array "${tla_lists[k]}")" "$(ms_array "${tl_lists[k]}")" \
            "$(ms_array "${lua_lists[k]}")" "$(ms_array "${build_lists[k]}")"
        printf '     "note": "%s"}%s\n' "${notes[k]}" "$sep"
    done
    printf '  ],\n'
    printf '  "geomean_tla_lua": %s,\n' "$g_tla_lua"
    printf '  "geomean_tl_lua": %s,\n' "$g_tl_lua"
    printf '  "geomean_tl_tla": %s,\n' "$g_tl_tla"
    printf '  "geomean_ratio": %s,\n' "$g_tla_lua"
    printf '  "geomean_count": %d,\n' "${#ok[@]}"
    printf '  "target_ratio": 0.8\n'
    printf '}\n'
} >"$json"
echo "wrote $json"

exit "$failed"
