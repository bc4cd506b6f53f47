#!/usr/bin/env bash
# bench/kernels/kernels.sh — numeric kernels of the Computer Language Benchmarks
# Game: tally (in each configuration asked for) against the same algorithm
# in plain C.
#
# Input: bench/kernels/NAME.tl (the tally kernel) and bench/kernels/c/NAME.c
# (its C twin) for each kernel in the table below, the tally binary, gcc.
# The C twins are compiled at -O2 into build/kernels/ (again only when a
# source is newer).  For each kernel it runs, RUNS times (default 5), the
# round: the C binary, then `tally [OPTIONS] run NAME.tl SIZE` for each
# configuration in TALLY_CONFIGS — so the configurations alternate.  Every
# run is timed by wall clock (start-up included) and its peak RSS taken
# with /usr/bin/time when that is installed; every run's output must equal
# the first C run's output byte for byte.
# Output: one progress line per run on stderr; on stdout a table of median
# ms, ratios tally/C per configuration, their geometric means and the
# largest RSS; the same data in bench/kernels/results.json.
# Quick mode (--quick): the small test sizes, one run, only the output
# checks (also against bench/kernels/expected/NAME.out, outputs recorded
# from the C twins and checked against the Benchmarks Game's reference
# values); no table, no results.json.
# Exit status 1 if any kernel failed (a run exited non-zero, outputs differ),
# 2 on bad setup.
# Invariant: needs only bash, awk, date, coreutils and gcc (no python), so
# it runs on a fresh Debian machine.
#
# Usage: bench/kernels/kernels.sh [--quick] [KERNEL[=SIZE]...]
#   (default: every kernel, at its benchmark size; KERNEL=SIZE overrides it)
#        bench/kernels/kernels.sh --list    the table: "NAME TEST-SIZE BENCH-SIZE" lines
#        bench/kernels/kernels.sh --build   only compile the C twins (build/kernels/NAME)
#   (bench/suite.sh, the whole suite's harness, uses these two)
# Environment:
#   RUNS          runs per configuration (default 5; 1 in quick mode)
#   TALLY_CONFIGS the tally configurations: whitespace-separated, each word
#                 one option ("--jit=off --jit=on"); or, when it contains a
#                 ';', ';'-separated option lists ("--jit=on -X a=1; --jit=off").
#                 Set but empty: one configuration without options.  Unset:
#                 "--jit=off" if `tally --help` mentions --jit, else "".
#   TALLY (default bin/tally), CC (default gcc),
#   KERNELS_JSON (default bench/kernels/results.json)
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tally=${TALLY:-$root/bin/tally}
cc=${CC:-gcc}
json=${KERNELS_JSON:-$here/results.json}
bindir=$root/build/kernels

# name, test size, benchmark size.  The numeric four run 1-3 s in C on the
# development machine (the Benchmarks Game's own sizes are larger still):
# at 0.3 s the JIT's start-up and compile latency (~0.1 s) would be a third
# of the C run (README.md has both measurements).  binarytrees and fasta
# run 0.2-0.5 s.
kernel_table="
nbody        1000    12000000
spectralnorm 100     4000
mandelbrot   200     4000
fannkuch     7       11
binarytrees  6       16
fasta        1000    1500000
"

# build_twins KERNEL...: compiles the C twins that are missing or older than
# their source into $bindir; exit status 2 when one does not compile.
cflags="-O2 -ffp-contract=off"   # no FMA contraction: results as written
build_twins() {
    mkdir -p "$bindir" || return 2
    local k src exe
    for k in "$@"; do
        src=$here/c/$k.c exe=$bindir/$k
        if [[ ! -x $exe || $src -nt $exe || $here/c/tallyfmt.h -nt $exe ]]; then
            echo "cc $cflags -o build/kernels/$k bench/kernels/c/$k.c -lm" >&2
            # cflags holds several options on purpose
            # shellcheck disable=SC2086
            if ! "$cc" $cflags -Wall -Wextra -o "$exe" "$src" -lm; then
                echo "kernels.sh: the C twin $src does not compile" >&2
                return 2
            fi
        fi
    done
}

case ${1:-} in
    --list)
        awk 'NF == 3' <<<"$kernel_table"
        exit 0
        ;;
    --build)
        # shellcheck disable=SC2046
        build_twins $(awk 'NF == 3 { print $1 }' <<<"$kernel_table")
        exit
        ;;
esac

quick=0
if [[ ${1:-} == --quick ]]; then
    quick=1
    shift
fi
runs=${RUNS:-5}
((quick)) && runs=1

if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
    echo "kernels.sh: RUNS must be a positive integer, not '$runs'" >&2
    exit 2
fi
if [[ ! -x $tally ]]; then
    echo "kernels.sh: $tally not found or not executable (make bin/tally)" >&2
    exit 2
fi
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "kernels.sh: $cc not found" >&2
    exit 2
fi

# ---- configurations -------------------------------------------------------
configs=()
if [[ -z ${TALLY_CONFIGS+set} ]]; then
    if "$tally" --help 2>&1 | grep -q -- '--jit'; then
        configs=("--jit=off")
    else
        configs=("")
    fi
elif [[ -z ${TALLY_CONFIGS//[[:space:]]/} ]]; then
    configs=("")
elif [[ $TALLY_CONFIGS == *";"* ]]; then
    IFS=';' read -r -a parts <<<"$TALLY_CONFIGS"
    for p in "${parts[@]}"; do
        read -r -a words <<<"$p"    # trims and squeezes blanks
        p="${words[*]}"
        [[ -n $p ]] && configs+=("$p")
    done
else
    read -r -a configs <<<"$TALLY_CONFIGS"
fi
((${#configs[@]})) || configs=("")
labels=()
for c in "${configs[@]}"; do
    labels+=("${c:-tally}")
done

# ---- kernels and sizes ----------------------------------------------------
declare -A test_size bench_size
all_kernels=()
while read -r k t b; do
    [[ -n $k ]] || continue
    all_kernels+=("$k")
    test_size[$k]=$t
    bench_size[$k]=$b
done <<<"$kernel_table"

kernels=() sizes=()
if (($# == 0)); then
    set -- "${all_kernels[@]}"
fi
for arg in "$@"; do
    k=${arg%%=*}
    if [[ -z ${test_size[$k]+set} ]]; then
        echo "kernels.sh: unknown kernel '$k' (one of: ${all_kernels[*]})" >&2
        exit 2
    fi
    if [[ $arg == *=* ]]; then
        s=${arg#*=}
        if ! [[ $s =~ ^[0-9]+$ ]]; then
            echo "kernels.sh: bad size in '$arg'" >&2
            exit 2
        fi
    elif ((quick)); then
        s=${test_size[$k]}
    else
        s=${bench_size[$k]}
    fi
    kernels+=("$k") sizes+=("$s")
done

# ---- the C twins ----------------------------------------------------------
build_twins "${kernels[@]}" || exit 2

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tally-kernels.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

have_time=0
[[ -x /usr/bin/time ]] && have_time=1

# time_run OUT ERR CMD... — runs CMD with stdout/stderr to OUT/ERR; sets
# elapsed_ns, status and rss_kb (peak resident set in KB, or "null").
time_run() {
    local out=$1 err=$2
    shift 2
    local t0 t1
    t0=$(date +%s%N)
    if ((have_time)); then
        /usr/bin/time -f '%M' -o "$tmp/rss" "$@" >"$out" 2>"$err"
    else
        "$@" >"$out" 2>"$err"
    fi
    status=$?
    t1=$(date +%s%N)
    elapsed_ns=$((t1 - t0))
    rss_kb=null
    if ((have_time)); then
        # the last line is %M; a line before it may say the command failed
        rss_kb=$(tail -n 1 "$tmp/rss" 2>/dev/null)
        [[ $rss_kb =~ ^[0-9]+$ ]] || rss_kb=null
    fi
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

# a space separated list as a JSON array, as is.
json_array() {
    awk -v list="$1" 'BEGIN {
        n = split(list, v, " "); s = "["
        for (i = 1; i <= n; i++) s = s (i > 1 ? ", " : "") v[i]
        print s "]"
    }'
}

# the largest number of a space separated list, in MB with 1 decimal ("-"
# when there is none).
max_mb() {
    awk -v list="$1" 'BEGIN {
        n = split(list, v, " "); m = -1
        for (i = 1; i <= n; i++) if (v[i] ~ /^[0-9]+$/ && v[i] + 0 > m) m = v[i] + 0
        if (m < 0) print "-"; else printf "%.1f", m / 1024
    }'
}

# geometric mean of the numbers on stdin ("null" when there are none).
geomean() {
    awk 'NF && $1 > 0 { s += log($1); n++ }
        END { if (n) printf "%.3f", exp(s / n); else print "null" }'
}

# ---- the runs -------------------------------------------------------------
ncfg=${#configs[@]}
failed=0
statuses=() notes=()
declare -A ns_list rss_list med rat   # keyed "kernel-index,side" (side c or 0..)

for ki in "${!kernels[@]}"; do
    k=${kernels[ki]} size=${sizes[ki]}
    status_k=ok note=""
    ref=$tmp/$k.ref
    rm -f "$ref"
    sides=(c)
    for ((ci = 0; ci < ncfg; ci++)); do sides+=("$ci"); done
    for s in "${sides[@]}"; do ns_list[$ki,$s]="" rss_list[$ki,$s]=""; done
    for ((i = 1; i <= runs; i++)); do
        for s in "${sides[@]}"; do
            out=$tmp/$k.$s.out err=$tmp/$k.$s.err
            if [[ $s == c ]]; then
                label=C
                time_run "$out" "$err" "$bindir/$k" "$size"
            else
                label=${labels[s]}
                # the configuration's options are words on purpose
                # shellcheck disable=SC2086
                time_run "$out" "$err" "$tally" ${configs[s]} run "$here/$k.tl" "$size"
            fi
            ns_list[$ki,$s]+="$elapsed_ns "
            rss_list[$ki,$s]+="$rss_kb "
            ms=$(awk -v n="$elapsed_ns" 'BEGIN { printf "%.1f", n / 1e6 }')
            mark=""
            if ((status != 0)); then
                mark=" FAIL (exit $status)"
                [[ $status_k == ok ]] && note="$label exited with status $status: $(clean 300 <"$err")"
                status_k=FAIL
            elif [[ ! -f $ref ]]; then
                cp "$out" "$ref"
            elif ! cmp -s "$out" "$ref"; then
                mark=" FAIL (output differs)"
                if [[ $status_k == ok ]]; then
                    note="output differs: $label printed '$(clean 160 <"$out")', C printed '$(clean 160 <"$ref")'"
                fi
                status_k=FAIL
            fi
            printf '%-20s %-22s run %d/%d  %10s ms%s\n' "$k $size" "$label" "$i" "$runs" "$ms" "$mark" >&2
        done
    done
    # quick mode: the C twin's output must also be the recorded one
    expected=$here/expected/$k.out
    if ((quick)) && [[ $size == "${test_size[$k]}" && -f $expected && -f $ref ]] \
        && ! cmp -s "$ref" "$expected"; then
        [[ $status_k == ok ]] && note="C output '$(clean 160 <"$ref")' differs from expected/$k.out"
        status_k=FAIL
    fi
    [[ $status_k == ok ]] || failed=1
    statuses+=("$status_k") notes+=("$note")
    med[$ki,c]=$(tr ' ' '\n' <<<"${ns_list[$ki,c]}" | grep . | median_ms)
    for ((ci = 0; ci < ncfg; ci++)); do
        med[$ki,$ci]=$(tr ' ' '\n' <<<"${ns_list[$ki,$ci]}" | grep . | median_ms)
        rat[$ki,$ci]=$(ratio "${med[$ki,$ci]}" "${med[$ki,c]}")
    done
done

if ((quick)); then
    for ki in "${!kernels[@]}"; do
        printf '%-13s %s  %s\n' "${kernels[ki]}" "${statuses[ki]}" "${notes[ki]}"
    done
    exit "$failed"
fi

# ---- the table --------------------------------------------------------------
ok=()
for ki in "${!kernels[@]}"; do
    [[ ${statuses[ki]} == ok ]] && ok+=("$ki")
done
geo=()
for ((ci = 0; ci < ncfg; ci++)); do
    geo+=("$(for ki in "${ok[@]}"; do echo "${rat[$ki,$ci]}"; done | geomean)")
done

echo
echo "median wall ms of $runs runs (start-up included); ratio = tally / C; RSS = largest peak MB"
for ((ci = 0; ci < ncfg; ci++)); do
    echo "  config $((ci + 1)): tally ${configs[ci]:-(no options)}"
done
hdr=$(printf '%-13s %9s %10s %7s' kernel size "C ms" "C RSS")
rule=$(printf '%-13s %9s %10s %7s' ------------- --------- ---------- -------)
for ((ci = 0; ci < ncfg; ci++)); do
    hdr+=$(printf ' %11s %7s %7s' "#$((ci + 1)) ms" "#$((ci + 1))/C" "RSS")
    rule+=$(printf ' %11s %7s %7s' ----------- ------- -------)
done
echo "$hdr  status"
echo "$rule  ------"
for ki in "${!kernels[@]}"; do
    line=$(printf '%-13s %9s %10s %7s' "${kernels[ki]}" "${sizes[ki]}" "${med[$ki,c]}" \
        "$(max_mb "${rss_list[$ki,c]}")")
    for ((ci = 0; ci < ncfg; ci++)); do
        line+=$(printf ' %11s %7s %7s' "${med[$ki,$ci]}" "${rat[$ki,$ci]}" \
            "$(max_mb "${rss_list[$ki,$ci]}")")
    done
    echo "$line  ${statuses[ki]}"
done
echo "$rule  ------"
line=$(printf '%-13s %9s %10s %7s' geomean "" "" "")
for ((ci = 0; ci < ncfg; ci++)); do
    line+=$(printf ' %11s %7s %7s' "" "${geo[ci]}" "")
done
echo "$line  (${#ok[@]} of ${#kernels[@]} kernels)"
for ki in "${!kernels[@]}"; do
    [[ -n ${notes[ki]} ]] && echo "${kernels[ki]}: ${notes[ki]}"
done

# ---- results.json -----------------------------------------------------------
jstr() { tr -d '\042\134\000-\037' <<<"$1"; }
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
ccver=$("$cc" --version 2>/dev/null | head -n 1)
{
    printf '{\n'
    printf '  "date": "%s",\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf '  "machine": {"cpu": "%s", "cores": %s, "kernel": "%s", "loadavg_at_end": "%s"},\n' \
        "$(jstr "$cpu")" "$(nproc 2>/dev/null || echo 0)" "$(jstr "$(uname -sr)")" "$(jstr "$load")"
    printf '  "tally": "%s",\n' "$(jstr "$tally")"
    printf '  "cc": "%s %s",\n' "$(jstr "$ccver")" "$cflags"
    printf '  "runs": %d,\n' "$runs"
    printf '  "configs": ['
    for ((ci = 0; ci < ncfg; ci++)); do
        ((ci)) && printf ', '
        printf '"%s"' "$(jstr "${configs[ci]}")"
    done
    printf '],\n'
    printf '  "kernels": [\n'
    for ki in "${!kernels[@]}"; do
        printf '    {"name": "%s", "size": %s, "status": "%s",\n' \
            "${kernels[ki]}" "${sizes[ki]}" "${statuses[ki]}"
        printf '     "c": {"median_ms": %s, "runs_ms": %s, "max_rss_kb": %s},\n' \
            "${med[$ki,c]}" "$(ms_array "${ns_list[$ki,c]}")" "$(json_array "${rss_list[$ki,c]}")"
        printf '     "tally": [\n'
        for ((ci = 0; ci < ncfg; ci++)); do
            sep=","
            ((ci == ncfg - 1)) && sep=""
            printf '       {"config": "%s", "median_ms": %s, "ratio": %s, "runs_ms": %s, "max_rss_kb": %s}%s\n' \
                "$(jstr "${configs[ci]}")" "${med[$ki,$ci]}" "${rat[$ki,$ci]}" \
                "$(ms_array "${ns_list[$ki,$ci]}")" "$(json_array "${rss_list[$ki,$ci]}")" "$sep"
        done
        sep=","
        ((ki == ${#kernels[@]} - 1)) && sep=""
        printf '     ],\n'
        printf '     "note": "%s"}%s\n' "$(jstr "${notes[ki]}")" "$sep"
    done
    printf '  ],\n'
    printf '  "geomean_ratio": {'
    for ((ci = 0; ci < ncfg; ci++)); do
        ((ci)) && printf ', '
        printf '"%s": %s' "$(jstr "${labels[ci]}")" "${geo[ci]}"
    done
    printf '},\n'
    printf '  "geomean_count": %d\n' "${#ok[@]}"
    printf '}\n'
} >"$json"
echo "wrote ${json#"$root"/}"

exit "$failed"
