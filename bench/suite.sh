#!/usr/bin/env bash
# bench/suite.sh — the benchmark suite's harness (`make bench`, `make
# bench-quick`): the 14 Are-We-Fast-Yet benchmarks (bench/awfy/) and the six
# CLBG kernels with C twins (bench/kernels/), in every tally configuration.
#
# Input: bench/awfy/NAME.tl for each benchmark of the size table below (a
# program of bench/awfy/harness.tl: `tally OPTIONS run NAME.tl OUTER INNER`
# prints "NAME: iterations=1 runtime: <N>us" per outer iteration, then
# "NAME: iterations=OUTER average: ... total: ...", and exits 1 when its
# result does not verify); bench/kernels/NAME.tl and their C twins (the
# kernel list and sizes come from `bench/kernels/kernels.sh --list`, which also
# compiles the twins with --build); bin/tally.
#
# Full mode (default): RUNS rounds (default 3); each round runs every
# program once in every configuration of BENCH_CONFIGS (kernels: the C twin
# first), so the configurations alternate and machine noise hits them alike.
#   AWFY: a run's value is the median of its per-iteration runtimes after
#     dropping the benchmark's first warm-up iterations (the JIT compiles
#     during them); a benchmark's value per configuration is the median of
#     its runs' values, in ms per iteration.
#   Kernels: a run's value is the wall time of the whole process (start-up
#     included), its output must equal the C twin's byte for byte; the value
#     per configuration is the median over runs.
#   Every run's peak RSS comes from /usr/bin/time -f %M.
# Output: a progress line per run on stderr; on stdout the table (value per
# configuration, each configuration's time ratio to the first, kernels also
# to C, geometric means per group, largest RSS); everything, with every
# run's values, in bench/results.json.
#
# Quick mode (--quick): test sizes, QUICK_OUTER outer iterations, one run of
# every program in every tier of BENCH_QUICK_CONFIGS (off, on, eager:
# eager compiles every method, so compiled code must verify the result);
# kernels at their test sizes against the C twin and expected/NAME.out. A
# PASS/FAIL line per program × tier, then "bench-quick: N passed, N failed".
# Runs BENCH_JOBS programs at a time (default 2): it checks results only.
#
# Invariants: a failed verification, crash, timeout or wrong output marks the
# program FAILED and makes the exit status 1, but every other program still
# runs; a benchmark whose file does not exist yet is listed as missing and
# is a failure only when BENCH_REQUIRE_ALL=1. Bad usage or setup: exit 2.
# Needs only bash, awk, coreutils, /usr/bin/time (package `time`) and gcc
# (for the twins): no python, so it runs on a fresh Debian 12.
#
# Usage: bench/suite.sh [--quick] [NAME[=SIZE]...]
#   NAME: an AWFY benchmark or kernel (default: all); SIZE overrides the
#   table: OUTER:INNER for an AWFY benchmark (any bench/awfy/NAME.tl, in the
#   table or not), the size argument for a kernel.
# Environment:
#   RUNS                 process runs per configuration (default 3)
#   BENCH_CONFIGS        ';'-separated option lists (default "--jit=off; --jit=on");
#                        the first is the baseline of the ratios
#   BENCH_QUICK_CONFIGS  the tiers of quick mode (default "--jit=off; --jit=on; --jit=eager")
#   WARMUP               warm-up iterations dropped from each AWFY run (default:
#                        the table's; for NAME=OUTER:INNER, a third of OUTER)
#   QUICK_OUTER          outer iterations in quick mode (default 2)
#   BENCH_TIMEOUT        seconds before a run is killed and FAILED (default 600; quick 120)
#   BENCH_JOBS           parallel runs in quick mode (default 2; full mode is always 1)
#   BENCH_REQUIRE_ALL=1  a missing benchmark file is a failure
#   BENCH_AWFY_DIR (default bench/awfy), TALLY (default bin/tally),
#   BENCH_JSON (default bench/results.json)
# The output of every failed run is kept in build/bench-failures/.
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
tally=${TALLY:-$root/bin/tally}
awfydir=${BENCH_AWFY_DIR:-$here/awfy}
json=${BENCH_JSON:-$here/results.json}
kernels_sh=$here/kernels/kernels.sh
kbindir=$root/build/kernels
faildir=$root/build/bench-failures   # the output of failed runs

# ---- the sizes --------------------------------------------------------------
# One line per AWFY benchmark, in the order they run (the macro benchmarks
# first, as in the suite; Havlak, the longest, first of all, so that quick
# mode's parallel jobs end together):
#   test:   inner iterations in quick mode (the smallest size that verifies)
#   outer:  outer iterations of a `make bench` run
#   warmup: of these, the first ones dropped (the JIT compiles meanwhile)
#   inner:  inner iterations of a `make bench` run (the problem size)
#   suite:  the suite's own inner iterations (rebench.conf of
#           smarr/are-we-fast-yet), for reference only
# Mandelbrot (500, 750, 1), NBody (250000, 1), CD (1000, 500, 250, 100, 10)
# and Havlak (15000, 1500, 150, 15, 1) verify only the sizes the suite has
# results for; the others verify any. The sizes make an interpreter
# iteration take about 0.2-0.4 s of CPU (NBody and Havlak: their smallest
# full size that verifies takes longer, so they run fewer iterations), and
# `make bench` (2 configurations, RUNS=3) about 10 minutes on 2 cores; see
# bench/README.md.
awfy_table="
#            test  outer warmup    inner    suite
Havlak          1     12      8        1     1500
CD             10     50     35      100      250
DeltaBlue       1     60     45    10000    12000
Json            1     50     35       50      100
Richards        1    100     75       10      100
Bounce          1     30     15     1500     1500
List            1     35     20      600     1500
Mandelbrot      1     25     10      500      500
NBody           1     14     10   250000   250000
Permute         1     25     10      500     1000
Queens          1     30     15      800     1000
Sieve           1     25     10     3000     3000
Storage         1     25     10      800     1000
Towers          1     30     15      250      600
"

usage() {
    sed -n '/^# Usage:/,/^set -u/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
}

die() {
    echo "bench/suite.sh: $*" >&2
    exit 2
}

# ---- options ----------------------------------------------------------------
quick=0
args=()
while (($#)); do
    case $1 in
        --quick) quick=1 ;;
        -h | --help)
            usage
            exit 0
            ;;
        -*) die "unknown option '$1' (--quick, --help)" ;;
        *) args+=("$1") ;;
    esac
    shift
done

runs=${RUNS:-3}
warmup=${WARMUP:-}
quick_outer=${QUICK_OUTER:-2}
jobs=${BENCH_JOBS:-2}
if ((quick)); then
    timeout_s=${BENCH_TIMEOUT:-120}
    runs=1
else
    timeout_s=${BENCH_TIMEOUT:-600}
    jobs=1
fi
for v in runs:"$runs" WARMUP:"${warmup:-0}" QUICK_OUTER:"$quick_outer" \
    BENCH_TIMEOUT:"$timeout_s" BENCH_JOBS:"$jobs"; do
    [[ ${v#*:} =~ ^[0-9]+$ ]] || die "${v%%:*} must be a number, not '${v#*:}'"
done
((runs >= 1)) || die "RUNS must be at least 1"
((quick_outer >= 1 && jobs >= 1 && timeout_s >= 1)) || die "QUICK_OUTER, BENCH_JOBS and BENCH_TIMEOUT must be at least 1"
[[ -x $tally ]] || die "$tally not found or not executable (make bin/tally)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install time, or make setup)"
[[ -f $kernels_sh ]] || die "$kernels_sh not found"

# configurations: ';'-separated option lists; blanks trimmed and squeezed
if ((quick)); then
    cfg_spec=${BENCH_QUICK_CONFIGS-"--jit=off; --jit=on; --jit=eager"}
else
    cfg_spec=${BENCH_CONFIGS-"--jit=off; --jit=on"}
fi
configs=()
IFS=';' read -r -a parts <<<"$cfg_spec"
for p in "${parts[@]}"; do
    read -r -a words <<<"$p"
    configs+=("${words[*]}")
done
((${#configs[@]})) || configs=("")
ncfg=${#configs[@]}
label() { local c=${configs[$1]}; echo "${c:-(no options)}"; }

# ---- the programs -------------------------------------------------------------
declare -A awfy_test awfy_outer awfy_warm awfy_inner kern_test kern_size
awfy_all=() kern_all=()
while read -r n t o w i _; do
    [[ -n $n && $n != \#* ]] || continue
    awfy_all+=("$n") awfy_test[$n]=$t awfy_outer[$n]=$o awfy_warm[$n]=$w awfy_inner[$n]=$i
done <<<"$awfy_table"
ktable=$(bash "$kernels_sh" --list) || die "$kernels_sh --list failed"
while read -r n t s; do
    [[ -n $n ]] || continue
    kern_all+=("$n") kern_test[$n]=$t kern_size[$n]=$s
done <<<"$ktable"

# prog_* arrays: one entry per program to run, AWFY first
prog_name=() prog_kind=() prog_outer=() prog_inner=() prog_warm=()
missing=()
add_awfy() {  # NAME OUTER INNER WARMUP (WARMUP, when set, overrides the last)
    if [[ ! -f $awfydir/$1.tl ]]; then
        missing+=("$1")
        return
    fi
    prog_name+=("$1") prog_kind+=(awfy) prog_outer+=("$2") prog_inner+=("$3") prog_warm+=("${warmup:-$4}")
}
add_kernel() {  # NAME SIZE
    prog_name+=("$1") prog_kind+=(kernel) prog_outer+=(1) prog_inner+=("$2") prog_warm+=(0)
}
if ((${#args[@]} == 0)); then
    for n in "${awfy_all[@]}"; do
        if ((quick)); then add_awfy "$n" "$quick_outer" "${awfy_test[$n]}" 0
        else add_awfy "$n" "${awfy_outer[$n]}" "${awfy_inner[$n]}" "${awfy_warm[$n]}"; fi
    done
    for n in "${kern_all[@]}"; do
        if ((quick)); then add_kernel "$n" "${kern_test[$n]}"
        else add_kernel "$n" "${kern_size[$n]}"; fi
    done
else
    kernel_args=()
    for a in "${args[@]}"; do
        n=${a%%=*} size=""
        [[ $a == *=* ]] && size=${a#*=}
        if [[ -n ${kern_test[$n]+set} ]]; then
            [[ -z $size || $size =~ ^[0-9]+$ ]] || die "bad kernel size in '$a' (NAME=SIZE)"
            if ((quick)); then size=${size:-${kern_test[$n]}}; else size=${size:-${kern_size[$n]}}; fi
            kernel_args+=("$n" "$size")
        elif [[ -n $size ]]; then
            [[ $size =~ ^[1-9][0-9]*:[1-9][0-9]*$ ]] || die "bad size in '$a' (NAME=OUTER:INNER)"
            add_awfy "$n" "${size%%:*}" "${size#*:}" $((${size%%:*} / 3))
        elif [[ -n ${awfy_test[$n]+set} ]]; then
            if ((quick)); then add_awfy "$n" "$quick_outer" "${awfy_test[$n]}" 0
            else add_awfy "$n" "${awfy_outer[$n]}" "${awfy_inner[$n]}" "${awfy_warm[$n]}"; fi
        else
            die "unknown benchmark '$n' (AWFY: ${awfy_all[*]}; kernels: ${kern_all[*]}; or NAME=OUTER:INNER for another bench/awfy/NAME.tl)"
        fi
    done
    for ((k = 0; k < ${#kernel_args[@]}; k += 2)); do
        add_kernel "${kernel_args[k]}" "${kernel_args[k + 1]}"
    done
fi
nprog=${#prog_name[@]}
has_kernels=0
for k in "${prog_kind[@]}"; do [[ $k == kernel ]] && has_kernels=1; done
if ((has_kernels)); then
    bash "$kernels_sh" --build || die "the C twins do not compile"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tally-bench.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
t_start=$(date +%s%N)

# ---- helpers --------------------------------------------------------------------
source "$(dirname "${BASH_SOURCE[0]}")/summaries.sh"   # median, ratio, geomean, max_mb, json_array, jstr, clean

# run_timed OUT ERR CMD...: runs CMD (killed after timeout_s) with stdout and
# stderr to OUT and ERR; sets status, wall_ns and rss_kb (peak resident set,
# or "null").
run_timed() {
    local out=$1 err=$2 rssf=$1.rss t0 t1
    shift 2
    t0=$(date +%s%N)
    /usr/bin/time -f '%M' -o "$rssf" timeout "$timeout_s" "$@" >"$out" 2>"$err" </dev/null
    status=$?
    t1=$(date +%s%N)
    wall_ns=$((t1 - t0))
    # the last line is %M; a line before it may say the command failed
    rss_kb=$(tail -n 1 "$rssf" 2>/dev/null)
    [[ $rss_kb =~ ^[0-9]+$ ]] || rss_kb=null
}

# awfy_iterations NAME OUTER OUT: the per-iteration runtimes (us) of a run's
# output, space separated; status 1 unless there are exactly OUTER of them
# and the closing "iterations=OUTER average" line.
awfy_iterations() {
    awk -v name="$1" -v outer="$2" '
        index($0, name ": iterations=1 runtime: ") == 1 && $NF ~ /^[0-9]+us$/ {
            v = $NF; sub(/us$/, "", v); s = s (n++ ? " " : "") v; next
        }
        index($0, name ": iterations=" outer " average: ") == 1 { closed = 1 }
        END { print s; exit !(closed && n == outer) }' "$3"
}

# warm_value LIST W: the median (us) of the iterations after the first W;
# when a run has no more than W iterations, of its last one.
warm_value() {
    awk -v list="$1" -v w="$2" 'BEGIN {
        n = split(list, v, " ")
        if (n == 0) { print "null"; exit }
        if (w > n - 1) w = n - 1
        m = 0
        for (i = w + 1; i <= n; i++) x[++m] = v[i] + 0
        for (i = 2; i <= m; i++) {
            y = x[i]
            for (j = i - 1; j >= 1 && x[j] > y; j--) x[j + 1] = x[j]
            x[j + 1] = y
        }
        printf "%.1f\n", (m % 2) ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
    }'
}

# jit_settle ITERS W LOG: whether a run's JIT had caught up by the end of
# its warm-up, from its --log=jit lines (LOG) and its iteration runtimes
# (ITERS, us). Iteration i ended at the summary line's time minus the
# runtimes after it. Of the compiles queued before warm-up iteration W
# ended, prints the iteration during which the last one landed (0: none
# was queued; OUTER+1: it landed after the last iteration, or was still
# queued at exit), or "-" without a summary line (the run did not start the
# JIT). A method that first gets hot later (one called once per iteration)
# is a new event, not a backlog, and does not count.
jit_settle() {
    awk -v list="$1" -v w="$2" '
        match($0, /^\[[0-9.]+ms\] jit: /) {
            t = substr($0, 2, index($0, "ms]") - 2) + 0
            if ($3 == "queued") queued[$4] = t
            else if ($3 == "compiled" || $3 == "failed" || $3 == "dropped") { ev++; et[ev] = t; eid[ev] = $4; ek[ev] = $3 }
            else if ($3 == "summary") end = t
        }
        END {
            if (end == "") { print "-"; exit }
            n = split(list, v, " ")
            if (w > n) w = n
            tail = 0
            for (i = n; i >= 1; i--) { stop[i] = end - tail / 1000; tail += v[i] }
            wend = w >= 1 ? stop[w] : end - tail / 1000
            k = 0
            for (e = 1; e <= ev; e++) {
                if (!(eid[e] in queued) || queued[eid[e]] > wend) continue
                if (ek[e] == "dropped") { k = n + 1; continue }
                for (i = 1; i <= n && stop[i] < et[e]; i++) ;
                if (i > k) k = i
            }
            print k
        }' "$3"
}

# run_program P SIDE TAG: one run of program P (index) in configuration
# SIDE (an index of configs, or "c" for a kernel's C twin), files in
# $tmp/TAG.*. Sets status, rss_kb, value (AWFY: warm median in us; kernel:
# wall ms), iters (AWFY: the iteration list), settle (AWFY: jit_settle's
# K), jitfail (the run's failed JIT compiles, counted), fail (empty, or why
# it failed). Every tally run logs its JIT events (-X jit.log=1) into
# TAG.jit, apart from its own stderr (TAG.err). A kernel's output must
# equal $tmp/P.ref (the C twin's; written by the C run).
run_program() {
    local p=$1 side=$2 tag=$3 name=${prog_name[$1]} kind=${prog_kind[$1]}
    local out=$tmp/$tag.out err=$tmp/$tag.err log=$tmp/$tag.jit
    fail="" value=null iters="" settle=- jitfail=0
    if [[ $side == c ]]; then
        run_timed "$out" "$err" "$kbindir/$name" "${prog_inner[p]}"
    elif [[ $kind == kernel ]]; then
        # the configuration's options are words on purpose
        # shellcheck disable=SC2086
        run_timed "$out" "$err" "$tally" ${configs[side]} -X jit.log=1 run "$root/bench/kernels/$name.tl" "${prog_inner[p]}"
    else
        # shellcheck disable=SC2086
        run_timed "$out" "$err" "$tally" ${configs[side]} -X jit.log=1 run "$awfydir/$name.tl" \
            "${prog_outer[p]}" "${prog_inner[p]}"
    fi
    if [[ $side != c ]]; then
        grep -a -E '^\[[0-9.]+ms\] jit: ' "$err" >"$log"
        grep -a -v -E '^\[[0-9.]+ms\] jit: ' "$err" >"$err.rest"
        mv "$err.rest" "$err"
        jitfail=$(grep -c -E '^\[[0-9.]+ms\] jit: failed ' "$log")
    fi
    if ((status == 124)); then
        fail="timed out after ${timeout_s} s"
    elif ((status != 0)); then
        fail="exit status $status: $({ grep -h -m2 -v -e ': iterations=' "$out"; head -n 3 "$err"; } | clean 240)"
    elif [[ $kind == kernel ]]; then
        if [[ $side == c ]]; then
            [[ -f $tmp/$p.ref ]] || cp "$out" "$tmp/$p.ref"
        elif [[ ! -f $tmp/$p.ref ]]; then
            fail="no C twin output to compare with"
        elif ! cmp -s "$out" "$tmp/$p.ref"; then
            fail="output differs from the C twin: '$(clean 120 <"$out")' vs '$(clean 120 <"$tmp/$p.ref")'"
        fi
        value=$(awk -v n="$wall_ns" 'BEGIN { printf "%.1f\n", n / 1e6 }')
    else
        if ! iters=$(awfy_iterations "$name" "${prog_outer[p]}" "$out"); then
            fail="output is not ${prog_outer[p]} iterations and a total: '$(clean 160 <"$out")'"
        fi
        value=$(warm_value "$iters" "${prog_warm[p]}")
        settle=$(jit_settle "$iters" "${prog_warm[p]}" "$log")
    fi
    if [[ -z $fail ]] && ((quick && jitfail > 0)); then
        fail="$jitfail failed JIT compile(s): $(grep -m1 ' jit: failed ' "$log" | clean 200)"
    fi
    if [[ -n $fail ]]; then
        # keep what a failed run printed: a failure seen once must be readable
        local keep lab=C
        [[ $side == c ]] || lab=${configs[side]:-plain}
        keep=$faildir/$name.$(tr -c 'A-Za-z0-9=._-' '_' <<<"$lab" | sed 's/_*$//')
        if mkdir -p "$faildir" && cp "$out" "$keep.out" && cp "$err" "$keep.err" &&
            { [[ ! -f $log ]] || cp "$log" "$keep.jit"; }; then
            fail+=" (output in ${keep#"$root"/}.out, .err, .jit)"
        fi
    fi
}

# ---- quick mode -----------------------------------------------------------------
# quick_one P SIDE: one checked run; prints the PASS/FAIL line (also into
# $tmp/q.P.SIDE for the count).
quick_one() {
    local p=$1 side=$2 lab line t
    if [[ $side == c ]]; then lab="C twin"; else lab=$(label "$side"); fi
    run_program "$p" "$side" "q.$p.$side"
    t=$(awk -v n="$wall_ns" 'BEGIN { printf "%.2f", n / 1e9 }')
    if [[ -z $fail ]]; then
        line=$(printf 'PASS %-13s %-16s %6s s' "${prog_name[p]}" "[$lab]" "$t")
    else
        line="FAIL ${prog_name[p]} [$lab]: $fail"
    fi
    echo "$line" >"$tmp/q.$p.$side.line"
    echo "$line"
}

if ((quick)); then
    running=0
    for ((p = 0; p < nprog; p++)); do
        [[ ${prog_kind[p]} == kernel ]] || continue
        # the C twin first: the reference of its kernel's runs; at the test
        # size it must also print the recorded expected/NAME.out
        quick_one "$p" c
        exp=$here/kernels/expected/${prog_name[p]}.out
        if [[ -f $tmp/$p.ref && ${prog_inner[p]} == "${kern_test[${prog_name[p]}]}" && -f $exp ]] &&
            ! cmp -s "$tmp/$p.ref" "$exp"; then
            echo "FAIL ${prog_name[p]} [C twin]: output differs from kernels/expected/${prog_name[p]}.out" |
                tee "$tmp/q.$p.c.line"
        fi
    done
    for ((p = 0; p < nprog; p++)); do
        for ((ci = 0; ci < ncfg; ci++)); do
            if ((running >= jobs)); then
                wait -n
                running=$((running - 1))
            fi
            quick_one "$p" "$ci" &
            running=$((running + 1))
        done
    done
    wait
    npass=0 nfail=0
    for f in "$tmp"/q.*.line; do
        [[ -f $f ]] || continue
        case $(head -c 4 "$f") in
            PASS) npass=$((npass + 1)) ;;
            *) nfail=$((nfail + 1)) ;;
        esac
    done
    for n in "${missing[@]}"; do
        if [[ ${BENCH_REQUIRE_ALL:-0} == 1 ]]; then
            echo "FAIL $n: ${awfydir#"$root"/}/$n.tl is missing"
            nfail=$((nfail + 1))
        else
            echo "MISSING $n: ${awfydir#"$root"/}/$n.tl does not exist yet (a failure with BENCH_REQUIRE_ALL=1)"
        fi
    done
    secs=$(awk -v a="$t_start" -v b="$(date +%s%N)" 'BEGIN { printf "%.0f", (b - a) / 1e9 }')
    msg="bench-quick: $npass passed, $nfail failed"
    ((${#missing[@]})) && msg+=", ${#missing[@]} missing (${missing[*]})"
    echo "$msg; $nprog programs × $ncfg tiers in $secs s"
    ((nfail == 0))
    exit
fi

# ---- full mode: the runs ------------------------------------------------------------
# per program P and side S (config index, or c): vals[P,S] the runs' values
# (AWFY: warm median us; kernels: wall ms), rss[P,S] their peak RSS (KB),
# its[P,S] the AWFY runs' iteration lists separated by ';', stl[P,S] the
# AWFY runs' jit_settle values, jf[P,S] their failed JIT compiles, bad[P,S]
# why the configuration failed (its later runs are skipped).
declare -A vals rss its stl jf bad
total=0
for ((p = 0; p < nprog; p++)); do
    total=$((total + runs * ncfg))
    [[ ${prog_kind[p]} == kernel ]] && total=$((total + runs))
done
((nprog)) || echo "bench/suite.sh: no benchmark to run" >&2
done_runs=0
for ((r = 1; r <= runs; r++)); do
    for ((p = 0; p < nprog; p++)); do
        sides=()
        [[ ${prog_kind[p]} == kernel ]] && sides=(c)
        for ((ci = 0; ci < ncfg; ci++)); do sides+=("$ci"); done
        for s in "${sides[@]}"; do
            done_runs=$((done_runs + 1))
            if [[ $s == c ]]; then lab=C; else lab=$(label "$s"); fi
            prefix=$(printf '[%d/%d] %s %s run %d/%d:' "$done_runs" "$total" "${prog_name[p]}" "$lab" "$r" "$runs")
            if [[ -n ${bad[$p,$s]:-} ]]; then
                echo "$prefix skipped (failed before)" >&2
                continue
            fi
            run_program "$p" "$s" "f.$p.$s"
            rss[$p,$s]+="$rss_kb "
            mb=$(max_mb "$rss_kb")
            if [[ -n $fail ]]; then
                bad[$p,$s]=$fail
                echo "$prefix FAILED: $fail" >&2
                continue
            fi
            vals[$p,$s]+="$value "
            jf[$p,$s]=$((${jf[$p,$s]:-0} + jitfail))
            if [[ ${prog_kind[p]} == awfy ]]; then
                its[$p,$s]+="${its[$p,$s]:+;}$iters"
                stl[$p,$s]+="$settle "
                case $settle in
                    -) note="" ;;
                    0) note=", nothing queued in the warm-up" ;;
                    *) ((settle > ${prog_outer[p]})) && note=", the warm-up's compiles still queued at the end" ||
                        note=", the warm-up's last compile in iteration $settle" ;;
                esac
                echo "$prefix $(awk -v v="$value" 'BEGIN { printf "%.2f", v / 1000 }') ms/iter, $mb MB$note" >&2
            else
                echo "$prefix $value ms, $mb MB" >&2
            fi
        done
    done
done

# ---- medians and ratios ------------------------------------------------------------
# med[P,S]: AWFY ms per iteration (3 decimals), kernels ms; "null" if failed.
# rfirst[P,C]: config C / config 0; rc[P,C]: config C / the C twin.
declare -A med rfirst rc
pstatus=()
for ((p = 0; p < nprog; p++)); do
    st=ok
    sides=()
    [[ ${prog_kind[p]} == kernel ]] && sides=(c)
    for ((ci = 0; ci < ncfg; ci++)); do sides+=("$ci"); done
    for s in "${sides[@]}"; do
        if [[ -n ${bad[$p,$s]:-} ]]; then
            med[$p,$s]=null st=FAILED
        elif [[ ${prog_kind[p]} == awfy ]]; then
            m=$(median "${vals[$p,$s]:-}" 1)
            med[$p,$s]=$(awk -v m="$m" 'BEGIN { if (m == "null") print m; else printf "%.3f\n", m / 1000 }')
        else
            med[$p,$s]=$(median "${vals[$p,$s]:-}" 1)
        fi
    done
    for ((ci = 0; ci < ncfg; ci++)); do
        rfirst[$p,$ci]=$(ratio "${med[$p,$ci]}" "${med[$p,0]}")
        [[ ${prog_kind[p]} == kernel ]] && rc[$p,$ci]=$(ratio "${med[$p,$ci]}" "${med[$p,c]}")
    done
    pstatus+=("$st")
done

# unsettled P C: true when a run of P in config C was still compiling after
# its warm-up iterations (its measured iterations include code that changed)
unsettled() {
    local k
    for k in ${stl[$1,$2]:-}; do
        [[ $k != - ]] && ((k > ${prog_warm[$1]})) && return 0
    done
    return 1
}

# geo_of KIND ARRAY C: geometric mean of ARRAY[P,C] over the programs of KIND
geo_of() {
    local kind=$1 c=$3 p
    local -n arr=$2
    for ((p = 0; p < nprog; p++)); do
        [[ ${prog_kind[p]} == "$kind" && ${pstatus[p]} == ok ]] && echo "${arr[$p,$c]}"
    done | geomean | cut -d' ' -f1
}
declare -A geo_awfy geo_kfirst geo_kc
for ((ci = 0; ci < ncfg; ci++)); do
    geo_awfy[$ci]=$(geo_of awfy rfirst "$ci")
    geo_kfirst[$ci]=$(geo_of kernel rfirst "$ci")
    geo_kc[$ci]=$(geo_of kernel rc "$ci")
done
n_awfy_ok=0 n_awfy=0 n_k_ok=0 n_k=0 failed=0
for ((p = 0; p < nprog; p++)); do
    if [[ ${prog_kind[p]} == awfy ]]; then
        n_awfy=$((n_awfy + 1))
        [[ ${pstatus[p]} == ok ]] && n_awfy_ok=$((n_awfy_ok + 1))
    else
        n_k=$((n_k + 1))
        [[ ${pstatus[p]} == ok ]] && n_k_ok=$((n_k_ok + 1))
    fi
    [[ ${pstatus[p]} == ok ]] || failed=1
done
[[ ${BENCH_REQUIRE_ALL:-0} == 1 ]] && ((${#missing[@]})) && failed=1
secs=$(awk -v a="$t_start" -v b="$(date +%s%N)" 'BEGIN { printf "%.0f", (b - a) / 1e9 }')

# ---- the table ----------------------------------------------------------------------
cell() { if [[ $1 == null ]]; then echo "${2:-FAILED}"; else echo "$1"; fi; }
rss_cells() {  # P SIDES...: the largest RSS of each side, joined by '/'
    local p=$1 s out=""
    shift
    for s in "$@"; do out+="${out:+/}$(max_mb "${rss[$p,$s]:-}")"; done
    echo "$out"
}
allc=()
for ((ci = 0; ci < ncfg; ci++)); do allc+=("$ci"); done
any_unsettled=0

echo
echo "configurations (time ratios are to #1; < 1 is faster):"
for ((ci = 0; ci < ncfg; ci++)); do echo "  #$((ci + 1)): tally $(label "$ci")"; done
if ((n_awfy)); then
    echo
    echo "Are-We-Fast-Yet: ms per iteration; per run the median of the iterations after the first 'warm',"
    echo "then the median over $runs runs"
    h=$(printf '%-11s %5s %4s %6s' benchmark outer warm inner)
    for ((ci = 0; ci < ncfg; ci++)); do h+=$(printf ' %10s' "#$((ci + 1)) ms"); done
    for ((ci = 1; ci < ncfg; ci++)); do h+=$(printf ' %7s' "#$((ci + 1))/#1"); done
    h+=$(printf '  %-16s %s' "max RSS MB" status)
    echo "$h"
    for ((p = 0; p < nprog; p++)); do
        [[ ${prog_kind[p]} == awfy ]] || continue
        l=$(printf '%-11s %5s %4s %6s' "${prog_name[p]}" "${prog_outer[p]}" "${prog_warm[p]}" "${prog_inner[p]}")
        for ((ci = 0; ci < ncfg; ci++)); do
            v=$(cell "${med[$p,$ci]}")
            unsettled "$p" "$ci" && v+="*" && any_unsettled=1
            l+=$(printf ' %10s' "$v")
        done
        for ((ci = 1; ci < ncfg; ci++)); do l+=$(printf ' %7s' "$(cell "${rfirst[$p,$ci]}" -)"); done
        l+=$(printf '  %-16s %s' "$(rss_cells "$p" "${allc[@]}")" "${pstatus[p]}")
        echo "$l"
    done
    l=$(printf '%-29s' "geomean ($n_awfy_ok ok)")
    for ((ci = 0; ci < ncfg; ci++)); do l+=$(printf ' %10s' ""); done
    for ((ci = 1; ci < ncfg; ci++)); do l+=$(printf ' %7s' "$(cell "${geo_awfy[$ci]}" -)"); done
    echo "$l"
    if ((any_unsettled)); then
        echo "* methods hot before the end of the warm-up were still being compiled after it (per run, the"
        echo "  iteration in which the last of them arrived; > outer: not by the end), so the value"
        echo "  includes iterations that ran without their code:"
        for ((p = 0; p < nprog; p++)); do
            for ((ci = 0; ci < ncfg; ci++)); do
                unsettled "$p" "$ci" || continue
                echo "  ${prog_name[p]} [$(label "$ci")]: ${stl[$p,$ci]% } (warm-up ${prog_warm[p]})"
            done
        done
    fi
fi
if ((n_k)); then
    echo
    echo "CLBG kernels: wall ms of the whole process (start-up included), median over $runs runs; C = gcc -O2"
    h=$(printf '%-13s %8s %8s' kernel size "C ms")
    for ((ci = 0; ci < ncfg; ci++)); do h+=$(printf ' %9s %6s' "#$((ci + 1)) ms" "#$((ci + 1))/C"); done
    for ((ci = 1; ci < ncfg; ci++)); do h+=$(printf ' %7s' "#$((ci + 1))/#1"); done
    h+=$(printf '  %-20s %s' "max RSS MB C/#1.." status)
    echo "$h"
    for ((p = 0; p < nprog; p++)); do
        [[ ${prog_kind[p]} == kernel ]] || continue
        l=$(printf '%-13s %8s %8s' "${prog_name[p]}" "${prog_inner[p]}" "$(cell "${med[$p,c]}")")
        for ((ci = 0; ci < ncfg; ci++)); do
            l+=$(printf ' %9s %6s' "$(cell "${med[$p,$ci]}")" "$(cell "${rc[$p,$ci]}" -)")
        done
        for ((ci = 1; ci < ncfg; ci++)); do l+=$(printf ' %7s' "$(cell "${rfirst[$p,$ci]}" -)"); done
        l+=$(printf '  %-20s %s' "$(rss_cells "$p" c "${allc[@]}")" "${pstatus[p]}")
        echo "$l"
    done
    l=$(printf '%-31s' "geomean ($n_k_ok ok)")
    for ((ci = 0; ci < ncfg; ci++)); do l+=$(printf ' %9s %6s' "" "$(cell "${geo_kc[$ci]}" -)"); done
    for ((ci = 1; ci < ncfg; ci++)); do l+=$(printf ' %7s' "$(cell "${geo_kfirst[$ci]}" -)"); done
    echo "$l"
fi
echo
for ((p = 0; p < nprog; p++)); do
    [[ ${pstatus[p]} == ok ]] && continue
    for s in c "${allc[@]}"; do
        [[ -n ${bad[$p,$s]:-} ]] || continue
        if [[ $s == c ]]; then lab=C; else lab=$(label "$s"); fi
        echo "FAILED ${prog_name[p]} [$lab]: ${bad[$p,$s]}"
    done
done
((${#missing[@]})) && echo "missing (no ${awfydir#"$root"/}/NAME.tl yet): ${missing[*]}"
for ((p = 0; p < nprog; p++)); do
    for ((ci = 0; ci < ncfg; ci++)); do
        ((${jf[$p,$ci]:-0})) &&
            echo "note: ${prog_name[p]} [$(label "$ci")]: ${jf[$p,$ci]} failed JIT compile(s) over its runs (the method stayed in its previous tier)"
    done
done

# ---- results.json -------------------------------------------------------------------------
json_cfgs() {  # the configurations as a JSON array of strings
    local ci s="["
    for ((ci = 0; ci < ncfg; ci++)); do
        ((ci)) && s+=", "
        s+="\"$(jstr "${configs[ci]}")\""
    done
    echo "$s]"
}
json_geo() {  # ARRAY-NAME: {"config": geomean, ...}
    local -n g=$1
    local ci s="{"
    for ((ci = 0; ci < ncfg; ci++)); do
        ((ci)) && s+=", "
        s+="\"$(jstr "${configs[ci]}")\": ${g[$ci]}"
    done
    echo "$s}"
}
json_runs_iters() {  # P C: the AWFY runs' iteration lists as an array of arrays
    local s="[" first=1 run
    local IFS=';'
    for run in ${its[$1,$2]:-}; do
        ((first)) || s+=", "
        first=0
        s+=$(IFS=' ' json_array "$run")
    done
    echo "$s]"
}
json_runs_ms() {  # P C: the AWFY runs' values (us) in ms
    awk -v list="${vals[$1,$2]:-}" 'BEGIN {
        n = split(list, v, " "); s = "["
        for (i = 1; i <= n; i++) s = s (i > 1 ? ", " : "") sprintf("%.3f", v[i] / 1000)
        print s "]"
    }'
}
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
dirty=false
[[ -n $(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null) ]] && dirty=true
{
    printf '{\n'
    printf '  "date": "%s",\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    printf '  "machine": {"cpu": "%s", "nproc": %s, "kernel": "%s", "loadavg_at_end": "%s"},\n' \
        "$(jstr "$cpu")" "$(nproc 2>/dev/null || echo 0)" "$(jstr "$(uname -sr)")" \
        "$(jstr "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)")"
    printf '  "git": {"commit": "%s", "dirty": %s},\n' "$(jstr "$commit")" "$dirty"
    printf '  "tally": "%s",\n' "$(jstr "$tally")"
    printf '  "cc": "%s -O2 -ffp-contract=off",\n' "$(jstr "$(gcc --version 2>/dev/null | head -n 1)")"
    printf '  "runs": %d, "wall_seconds": %s,\n' "$runs" "$secs"
    printf '  "configs": %s,\n' "$(json_cfgs)"
    printf '  "missing": %s,\n' "$(json_array "$(for n in "${missing[@]}"; do printf '"%s" ' "$n"; done)")"
    printf '  "awfy": [\n'
    sep=""
    for ((p = 0; p < nprog; p++)); do
        [[ ${prog_kind[p]} == awfy ]] || continue
        printf '%s    {"name": "%s", "outer": %s, "warmup": %s, "inner": %s, "status": "%s", "configs": [\n' \
            "$sep" "${prog_name[p]}" "${prog_outer[p]}" "${prog_warm[p]}" "${prog_inner[p]}" "${pstatus[p]}"
        for ((ci = 0; ci < ncfg; ci++)); do
            printf '      {"config": "%s", "median_ms_per_iteration": %s, "ratio_to_first": %s,\n' \
                "$(jstr "${configs[ci]}")" "${med[$p,$ci]}" "${rfirst[$p,$ci]}"
            printf '       "runs_ms_per_iteration": %s, "max_rss_kb": %s, "failure": "%s",\n' \
                "$(json_runs_ms "$p" "$ci")" "$(json_array "${rss[$p,$ci]:-}")" "$(jstr "${bad[$p,$ci]:-}")"
            printf '       "warmup_compiles_done_in_iteration": %s, "failed_compiles": %s,\n' \
                "$(json_array "$(tr -- '-' 0 <<<"${stl[$p,$ci]:-}")")" "${jf[$p,$ci]:-0}"
            printf '       "iterations_us": %s}%s\n' "$(json_runs_iters "$p" "$ci")" "$( ((ci < ncfg - 1)) && echo ,)"
        done
        printf '    ]}'
        sep=$',\n'
    done
    printf '\n  ],\n'
    printf '  "kernels": [\n'
    sep=""
    for ((p = 0; p < nprog; p++)); do
        [[ ${prog_kind[p]} == kernel ]] || continue
        printf '%s    {"name": "%s", "size": %s, "status": "%s",\n' "$sep" "${prog_name[p]}" "${prog_inner[p]}" "${pstatus[p]}"
        printf '     "c": {"median_ms": %s, "runs_ms": %s, "max_rss_kb": %s, "failure": "%s"},\n' \
            "${med[$p,c]}" "$(json_array "${vals[$p,c]:-}")" "$(json_array "${rss[$p,c]:-}")" "$(jstr "${bad[$p,c]:-}")"
        printf '     "configs": [\n'
        for ((ci = 0; ci < ncfg; ci++)); do
            printf '       {"config": "%s", "median_ms": %s, "ratio_to_c": %s, "ratio_to_first": %s, "runs_ms": %s, "max_rss_kb": %s, "failure": "%s"}%s\n' \
                "$(jstr "${configs[ci]}")" "${med[$p,$ci]}" "${rc[$p,$ci]}" "${rfirst[$p,$ci]}" \
                "$(json_array "${vals[$p,$ci]:-}")" "$(json_array "${rss[$p,$ci]:-}")" \
                "$(jstr "${bad[$p,$ci]:-}")" "$( ((ci < ncfg - 1)) && echo ,)"
        done
        printf '     ]}'
        sep=$',\n'
    done
    printf '\n  ],\n'
    printf '  "geomean": {"awfy_ratio_to_first": %s, "awfy_count": %d,\n' "$(json_geo geo_awfy)" "$n_awfy_ok"
    printf '              "kernels_ratio_to_c": %s, "kernels_ratio_to_first": %s, "kernels_count": %d}\n' \
        "$(json_geo geo_kc)" "$(json_geo geo_kfirst)" "$n_k_ok"
    printf '}\n'
} >"$json"
echo "wrote ${json#"$root"/}; $total runs in $secs s"
exit "$failed"
