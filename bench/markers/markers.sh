#!/usr/bin/env bash
# bench/markers/markers.sh — what code markers cost the optimizer and what
# loop timings buy the auditor, in four parts, each runnable alone:
#
#   cost      every AWFY benchmark (bench/awfy/, the sizes of bench/suite.sh)
#             and CLBG kernel (bench/kernels/, their benchmark sizes), JIT on,
#             in five configurations interleaved per round (base, control,
#             loops, blocks, pinned; --runs rounds):
#               base     no markers
#               control  no markers again: the A/A noise floor of the ratios
#               loops    -X markers.everywhere=loops (a marker in every loop
#                        header of every compiled method, removed after gcc)
#               blocks   -X markers.everywhere=blocks (every block)
#               pinned   loops with -X markers.kind=pinned
#             the marker configurations also dump their marker maps
#             (-X jit.dump=markers, on the JIT thread) so that the table
#             shows how many markers and write sites the runs removed.
#             A value: AWFY, the median of a run's per-iteration runtimes
#             (the benchmark's own "runtime: Nus" lines) after its warm-up
#             iterations; kernels, the wall time of the whole process.  Per
#             benchmark and configuration the median over rounds of the
#             round's ratio to base; the mean over benchmarks (with a
#             t-interval) and the worst.
#   converge  the loop programs (table below: tests/fixtures/loops/rare-loop.tl
#             and the kernels) audited by `--audit=custom -X audit.custom=PAIR`
#             (default "-O1;-O2") with audit.timing=method, =markers, and
#             =markers with markers.kind=pinned (audit.hot_threshold=20 in
#             every mode), --cruns runs each; per
#             bakeoff, from --stats: how it ended, the time to its decision
#             (duration), timed samples, the timings the thesis's converge
#             score counts; the ratio of times to decision, method/markers
#   reach     the 14 AWFY benchmarks at the suite's inner sizes with 20 outer
#             iterations (Havlak 6), once with --audit=optlevel and once with
#             --audit=inline (audit.timing=auto); how every bakeoff ended
#   accuracy  for the loop programs' bakeoffs: the direction of the decision
#             under markers, pinned markers and naive timers (audit.timing=
#             naive; --cruns runs each, shared with converge) against the
#             whole program run with each variant forced (-X jit.optset=OPTION,
#             --runs rounds of the pair interleaved; wall time), for the
#             programs where some bakeoff sampled
#
# Input: bin/tally (TALLY), the benchmark files, bench/suite.sh's size table,
# bench/kernels/kernels.sh --list.  Output: the tables on stdout, each with
# its protocol above it; a progress line per run on stderr.  Every run's
# files stay in a work directory (--keep=DIR, else a temporary one that is
# removed) as DIR/PART/NAME.CONFIG.K.{out,err,ms,st,json}; a run whose .st
# file exists is not run again (an interrupted --keep run resumes), and
# --from=DIR prints the tables of such a directory without running anything.
# Invariants: a failed run (non-zero status, a timeout, a result that does
# not verify, a kernel whose output differs from its base run's) is listed
# and has no value, every other run still runs, and the exit status is 1;
# bad usage exits 2.  Needs bash, awk, coreutils and timeout only.
#
# Usage: bench/markers/markers.sh [options] PART [NAME...]
#   PART           cost, converge, reach, accuracy or all
#   NAME           benchmarks to run (default all): AWFY names and kernels
#                  for cost and reach; loop programs for converge, accuracy
#   --runs=N       cost rounds and accuracy's forced rounds (default 5)
#   --cruns=N      runs per timing mode in converge and accuracy (default 3)
#   --pair=A;B     the custom client's option sets (default "-O1;-O2")
#   --quick        test sizes, 3 outer iterations, one run of everything: a
#                  smoke test of the script, not a measurement
#   --keep=DIR     keep (and resume) the runs' files in DIR
#   --from=DIR     no runs: the tables of DIR (as --keep wrote it)
#   -h, --help
# Environment: TALLY (default bin/tally), MARKERS_TIMEOUT (seconds per run,
# default 300).
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
tally=${TALLY:-$root/bin/tally}
awfydir=$root/bench/awfy
kdir=$root/bench/kernels

usage() {
    sed -n '/^# Usage:/,/^set -u/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
}
die() {
    echo "bench/markers/markers.sh: $*" >&2
    exit 2
}

runs=5 cruns=3 pair="-O1;-O2" quick=0 keep="" from="" part=""
names=()
while (($#)); do
    case $1 in
        --runs=*) runs=${1#*=} ;;
        --runs) runs=${2:-} && shift ;;
        --cruns=*) cruns=${1#*=} ;;
        --cruns) cruns=${2:-} && shift ;;
        --pair=*) pair=${1#*=} ;;
        --quick) quick=1 ;;
        --keep=*) keep=${1#*=} ;;
        --from=*) from=${1#*=} ;;
        -h | --help)
            usage
            exit 0
            ;;
        -*) die "unknown option '$1' (try --help)" ;;
        *) if [[ -z $part ]]; then part=$1; else names+=("$1"); fi ;;
    esac
    shift
done
timeout_s=${MARKERS_TIMEOUT:-300}
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "runs must be a positive number, not '$runs'"
[[ $cruns =~ ^[1-9][0-9]*$ ]] || die "cruns must be a positive number, not '$cruns'"
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || die "MARKERS_TIMEOUT must be a positive number, not '$timeout_s'"
[[ $pair == *\;* ]] || die "pair must be two option sets separated by ';', not '$pair'"
case $part in
    cost | converge | reach | accuracy | all) ;;
    "") die "which part? cost, converge, reach, accuracy or all (try --help)" ;;
    *) die "unknown part '$part' (cost, converge, reach, accuracy or all)" ;;
esac
quick_audit=""
if ((quick)); then
    runs=1 cruns=1
    quick_audit="-X audit.hot_threshold=20"   # test sizes: few calls
fi
pair_a=${pair%%;*} pair_b=${pair#*;}
if [[ -n $from ]]; then
    [[ -d $from ]] || die "no directory $from"
    dir=$from
else
    [[ -x $tally ]] || die "$tally not found or not executable (make bin/tally)"
    if [[ -n $keep ]]; then
        mkdir -p "$keep" || die "cannot create $keep"
        dir=$keep
    else
        dir=$(mktemp -d "${TMPDIR:-/tmp}/tally-markers.XXXXXX") || exit 2
        trap 'rm -rf "$dir"' EXIT
    fi
fi
failed=0
exec 3>&1   # the report (stdout) of functions whose stdout goes to a file

# ---- the programs -------------------------------------------------------------
# AWFY: NAME TEST OUTER WARMUP INNER from bench/suite.sh's table
declare -A a_test a_outer a_warm a_inner k_test k_size
awfy_all=() kern_all=()
while read -r n t o w i _; do
    awfy_all+=("$n") a_test[$n]=$t a_outer[$n]=$o a_warm[$n]=$w a_inner[$n]=$i
done < <(sed -n '/^awfy_table="/,/^"/p' "$root/bench/suite.sh" | sed '1d;$d' | awk '$1 !~ /^#/ && NF >= 5')
while read -r n t s; do
    [[ -n $n ]] && kern_all+=("$n") k_test[$n]=$t k_size[$n]=$s
done < <(bash "$kdir/kernels.sh" --list 2>/dev/null)
((${#awfy_all[@]} && ${#kern_all[@]})) || die "cannot read the sizes of bench/suite.sh and bench/kernels/kernels.sh"

# The loop programs of converge and accuracy: NAME|FILE|ARGS|QUICK ARGS|FLAGS.
# rare-loop: a method called a few hundred times, its time all in a loop;
# spectralnorm-mc50: spectralnorm with markers.min_cost=50, whose
# multiplyAv/multiplyAtv loops are "too tight" for the default 100.
loop_table="rare-loop|tests/fixtures/loops/rare-loop.tl|200 200|60 100|"
for n in "${kern_all[@]}"; do loop_table+=$'\n'"$n|bench/kernels/$n.tl|${k_size[$n]}|${k_test[$n]}|"; done
loop_table+=$'\n'"spectralnorm-mc50|bench/kernels/spectralnorm.tl|${k_size[spectralnorm]}|${k_test[spectralnorm]}|-X markers.min_cost=50"
declare -A l_file l_args l_flags
loop_all=()
while IFS='|' read -r n f a q x; do
    loop_all+=("$n") l_file[$n]=$f l_flags[$n]=$x
    if ((quick)); then l_args[$n]=$q; else l_args[$n]=$a; fi
done <<<"$loop_table"

is_awfy() { [[ -n ${a_test[$1]+set} ]]; }
is_kernel() { [[ -n ${k_test[$1]+set} ]]; }
is_loop() { [[ -n ${l_file[$1]+set} ]]; }

# pick KIND: the names asked for that are of KIND (awfy+kernel, awfy, loop)
pick() {
    local n out=()
    if ((${#names[@]} == 0)); then
        case $1 in
            bench) out=("${awfy_all[@]}" "${kern_all[@]}") ;;
            awfy) out=("${awfy_all[@]}") ;;
            loop) out=("${loop_all[@]}") ;;
        esac
    else
        for n in "${names[@]}"; do
            case $1 in
                bench) { is_awfy "$n" || is_kernel "$n"; } && out+=("$n") ;;
                awfy) is_awfy "$n" && out+=("$n") ;;
                loop) is_loop "$n" && out+=("$n") ;;
            esac
        done
    fi
    echo "${out[*]}"
}
if ((${#names[@]})); then
    for n in "${names[@]}"; do
        is_awfy "$n" || is_kernel "$n" || is_loop "$n" ||
            die "unknown benchmark '$n' (AWFY: ${awfy_all[*]}; kernels: ${kern_all[*]}; loop programs: ${loop_all[*]})"
    done
fi

# ---- running --------------------------------------------------------------------
nrun=0
# run BASE -- COMMAND...: runs it once (unless BASE.st exists), stdout to
# BASE.out, stderr to BASE.err, wall ms to BASE.ms, status to BASE.st
run() {
    local base=$1 t0 t1 st
    shift 2
    [[ -e $base.st ]] && return
    mkdir -p "$(dirname "$base")"
    t0=$(date +%s%N)
    timeout "$timeout_s" "$@" >"$base.out" 2>"$base.err" </dev/null
    st=$?
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000)) >"$base.ms"
    echo "$st" >"$base.st"
    nrun=$((nrun + 1))
    echo "[${base#"$dir"/}] status $st, $(cat "$base.ms") ms" >&2
}

# bench_args NAME: the program and its arguments (AWFY: OUTER INNER)
bench_args() {
    if is_awfy "$1"; then
        if ((quick)); then echo "$awfydir/$1.tl 3 ${a_test[$1]}"; else echo "$awfydir/$1.tl ${a_outer[$1]} ${a_inner[$1]}"; fi
    elif ((quick)); then
        echo "$kdir/$1.tl ${k_test[$1]}"
    else
        echo "$kdir/$1.tl ${k_size[$1]}"
    fi
}
bench_warm() { if ((quick)); then echo 1; else echo "${a_warm[$1]}"; fi; }

cost_cfgs="base control loops blocks pinned"
cost_flags() {
    ((quick)) && echo "--jit=eager"   # test sizes make nothing hot: compile everything
    case $1 in
        base | control) echo "" ;;
        loops) echo "-X markers.everywhere=loops -X jit.dump=markers" ;;
        blocks) echo "-X markers.everywhere=blocks -X jit.dump=markers" ;;
        pinned) echo "-X markers.everywhere=loops -X markers.kind=pinned -X jit.dump=markers" ;;
    esac
}

run_cost() {
    local r n c
    # shellcheck disable=SC2046
    for ((r = 1; r <= runs; r++)); do
        for n in $(pick bench); do
            for c in $cost_cfgs; do
                # shellcheck disable=SC2086
                run "$dir/cost/$n.$c.$r" -- "$tally" $(cost_flags "$c") run $(bench_args "$n")
            done
        done
    done
}

# mode flags of the converge and accuracy runs
mode_flags() {
    case $1 in
        method) echo "-X audit.timing=method" ;;
        markers) echo "-X audit.timing=markers" ;;
        pinned) echo "-X audit.timing=markers -X markers.kind=pinned" ;;
        naive) echo "-X audit.timing=naive" ;;
    esac
}
# run_loop NAME MODE K: one audited run of a loop program.  audit.hot_threshold
# is low in every mode: by default a method's work counts its loops'
# iterations only with loop timings, so under method timings a method called
# a few hundred times would never get a bakeoff to compare
run_loop() {
    local base=$dir/loop/$1.$2.$3
    # shellcheck disable=SC2086
    run "$base" -- "$tally" --audit=custom -X "audit.custom=$pair" -X audit.hot_threshold=20 $(mode_flags "$2") ${l_flags[$1]} \
        --stats="$base.json" run "$root/${l_file[$1]}" ${l_args[$1]}
}
run_converge() {
    local k n m
    for ((k = 1; k <= cruns; k++)); do
        for n in $(pick loop); do
            for m in method markers pinned; do run_loop "$n" "$m" "$k"; done
        done
    done
}
run_accuracy() {
    local k n m r sampled=()
    for ((k = 1; k <= cruns; k++)); do
        for n in $(pick loop); do
            for m in markers pinned naive; do run_loop "$n" "$m" "$k"; done
        done
    done
    # forced runs only for programs where some bakeoff sampled
    for n in $(pick loop); do
        grep -q '"t_sampling":[0-9]' "$dir/loop/$n".*.json 2>/dev/null && sampled+=("$n")
    done
    for ((r = 1; r <= runs; r++)); do
        for n in "${sampled[@]}"; do
            for m in a b; do
                local opt=$pair_a
                [[ $m == b ]] && opt=$pair_b
                # shellcheck disable=SC2086
                run "$dir/forced/$n.$m.$r" -- "$tally" -X "jit.optset=$opt" ${l_flags[$n]} run "$root/${l_file[$n]}" ${l_args[$n]}
            done
        done
    done
}
run_reach() {
    local n cl outer
    for n in $(pick awfy); do
        for cl in optlevel inline; do
            outer=20
            [[ $n == Havlak ]] && outer=6
            local inner=${a_inner[$n]}
            ((quick)) && outer=3 inner=${a_test[$n]}
            # shellcheck disable=SC2086
            run "$dir/reach/$n.$cl.1" -- "$tally" --audit="$cl" $quick_audit --stats="$dir/reach/$n.$cl.1.json" \
                run "$awfydir/$n.tl" "$outer" "$inner"
        done
    done
}

# ---- shared awk ----------------------------------------------------------------
AWK_LIB='
function median(a, n,    i, j, x) {      # a[1..n], sorted in place
    if (n == 0) return ""
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function t975(df) {                     # two-sided 95% t quantile
    split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086", tq, " ")
    return df <= 20 ? tq[df] : (df <= 30 ? 2.042 : 1.960)
}
# jv(s, key): the first value of "key": on the line (strings unquoted)
function jv(s, key,    m) {
    if (!match(s, "\"" key "\":(\"([^\"\\\\]|\\\\.)*\"|[^],}]*)")) return ""
    m = substr(s, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
    if (m ~ /^"/) m = substr(m, 2, length(m) - 2)
    return m
}
# jsum(s, key): the sum of every numeric "key": on the line after "variants":[
function jall(s, key, out,    n, t) {
    n = 0
    while (match(s, "\"" key "\":-?[0-9.eE+]+")) {
        out[++n] = substr(s, RSTART + length(key) + 3, RLENGTH - length(key) - 3) + 0
        s = substr(s, RSTART + RLENGTH)
    }
    return n
}
function pct(x) { return sprintf("%+.2f%%", 100 * x) }
function fmt(x, f) { return x == "" || x == "null" ? "-" : sprintf(f, x) }
'

# status_ok BASE: the run exited 0
status_ok() { [[ -e $1.st && $(cat "$1.st") == 0 ]]; }

# ---- cost: the table ----------------------------------------------------------------
report_cost() {
    local n c r base v out
    local vals=$dir/cost.values
    : >"$vals"
    for n in $(pick bench); do
        for ((r = 1; r <= runs; r++)); do
            for c in $cost_cfgs; do
                base=$dir/cost/$n.$c.$r
                [[ -e $base.st ]] || continue
                if ! status_ok "$base"; then
                    echo "FAILED cost $n [$c] run $r: status $(cat "$base.st") ($(head -c 200 "$base.err" | tr '\n' ' '))"
                    failed=1
                    continue
                fi
                if is_awfy "$n"; then
                    v=$(awk -v warm="$(bench_warm "$n")" "$AWK_LIB"'
                        / iterations=1 runtime: [0-9]+us/ { t = $4; sub(/us.*/, "", t); k++; if (k > warm) a[++m] = t / 1000 }
                        / result verification failed/ { bad = 1 }
                        END { if (!bad && m) { lo = a[1]; for (i = 2; i <= m; i++) if (a[i] < lo) lo = a[i]; print median(a, m), lo } }' "$base.out")
                    kind=awfy
                else
                    v=""
                    if cmp -s "$base.out" "$dir/cost/$n.base.1.out"; then v="$(cat "$base.ms") $(cat "$base.ms")"; fi
                    kind=kernel
                fi
                if [[ -z $v ]]; then
                    echo "FAILED cost $n [$c] run $r: no value (a result that did not verify, or output unlike base run 1)"
                    failed=1
                    continue
                fi
                out=$(awk '/^marker /{m++} /^  site line/{s++} /cannot be removed/{x++} END {printf "%d %d %d", m, s, x}' "$base.err")
                echo "$n $kind $c $r $v $out" >>"$vals"
            done
        done
    done
    echo
    echo "== Marker cost on optimization (markers inserted before gcc, removed after it) =="
    echo "Protocol: JIT on (background compiles), each benchmark at its normal size; per round the"
    echo "configurations run one after another (base control loops blocks pinned), $runs rounds."
    echo "AWFY value: median of the run's own per-iteration times after its warm-up iterations"
    echo "(bench/suite.sh's outer/warm-up/inner); kernel value: wall time of the whole process"
    echo "(start-up and compiles included), output equal to base run 1's. Ratio: per round config/base,"
    echo "median over rounds. control = base again (the A/A noise floor). loops/blocks: a marker in every"
    echo "loop header / block of every compiled method (-X markers.everywhere); pinned: loops with"
    echo "markers.kind=pinned. markers/sites: what the marker configurations' dumps removed (run 1)."
    echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
    cost_table 5 0 "$vals"
    echo
    echo "the same with each AWFY run's fastest iteration after its warm-up as its value (kernels as above):"
    cost_table 6 1 "$vals"
}

# cost_table COLUMN SUMMARY-ONLY VALUES: the cost table of one value column
cost_table() {
    awk -v cfgs="$cost_cfgs" -v col="$1" -v only="$2" "$AWK_LIB"'
    { key = $1; if (!(key in seen)) { seen[key] = 1; b[++nb] = key; kind[key] = $2 }
      v[$1, $3, $4] = $col; if ($4 == 1) { mk[$1, $3] = $7; st[$1, $3] = $8 }; if ($4 > nr) nr = $4 }
    END {
        nc = split(cfgs, c, " ")
        if (only) out = "/dev/null"; else out = "/dev/stdout"
        printf "%-13s %-6s %10s %7s", "benchmark", "kind", "base", "spread" > out
        for (j = 2; j <= nc; j++) printf " %8s", c[j] > out
        printf "   %s\n", "markers/sites (loops, blocks, pinned)" > out
        for (i = 1; i <= nb; i++) {
            n = b[i]; m = 0
            for (r = 1; r <= nr; r++) if ((n, "base", r) in v) a[++m] = v[n, "base", r]
            if (m == 0) continue
            lo = hi = a[1]; for (r = 1; r <= m; r++) { if (a[r] < lo) lo = a[r]; if (a[r] > hi) hi = a[r] }
            med = median(a, m); delete a
            printf "%-13s %-6s %8.2fms %6.1f%%", n, kind[n], med, 100 * (hi - lo) / med > out
            for (j = 2; j <= nc; j++) {
                q = 0
                for (r = 1; r <= nr; r++) if (((n, c[j], r) in v) && ((n, "base", r) in v)) a[++q] = v[n, c[j], r] / v[n, "base", r]
                if (q) { x = median(a, q); ratio[n, c[j]] = x; printf " %8.4f", x > out } else printf " %8s", "-" > out
                delete a
            }
            printf "   %s/%s, %s/%s, %s/%s\n", mk[n, "loops"], st[n, "loops"], mk[n, "blocks"], st[n, "blocks"], mk[n, "pinned"], st[n, "pinned"] > out
        }
        if (!only) { print ""; print "per configuration, over the benchmarks (change = ratio - 1; + is slower):" }
        for (j = 2; j <= nc; j++) {
            q = 0; s1 = 0; s2 = 0; sa = 0; worst = ""; wb = ""; slow = ""; sb = ""
            for (i = 1; i <= nb; i++) {
                n = b[i]; if (!((n, c[j]) in ratio)) continue
                x = ratio[n, c[j]] - 1; q++; s1 += x; s2 += x * x; sa += (x < 0 ? -x : x)
                if (worst == "" || (x < 0 ? -x : x) > (worst < 0 ? -worst : worst)) { worst = x; wb = n }
                if (slow == "" || x > slow) { slow = x; sb = n }
            }
            if (q == 0) continue
            mean = s1 / q; sd = q > 1 ? sqrt((s2 - q * mean * mean) / (q - 1)) : 0
            hw = q > 1 ? t975(q - 1) * sd / sqrt(q) : 0
            printf "  %-8s mean %s (95%% t-interval over %d benchmarks [%s, %s]), mean |change| %s, largest |change| %s (%s), largest slowdown %s (%s)\n",
                c[j], pct(mean), q, pct(mean - hw), pct(mean + hw), pct(sa / q), pct(worst), wb, pct(slow), sb
            if (c[j] == "control") { aa = sa / q; aaw = worst < 0 ? -worst : worst }
            if (c[j] == "loops" || c[j] == "blocks") {
                # met or not only where the interval (the control, for the worst) says so
                vm = mean + hw <= 0.004 ? "met" : mean - hw > 0.004 ? "NOT met" : "not shown either way (its interval straddles +0.40%)"
                vw = slow <= 0.01 ? "met" : (aaw != "" && slow <= aaw) ? "not shown either way (the control moves as much)" : "NOT met"
                printf "  %-8s goal mean <= +0.40%%: %s; largest slowdown <= +1.00%%: %s\n", "", vm, vw
            }
        }
        if (aa != "")
            printf "  the control (identical runs) moves by %s on average: changes below that are noise\n", pct(aa)
    }' "$vals"
}

# ---- converge and accuracy: per bakeoff lines ---------------------------------------
# loop_rows MODES: "name mode k method outcome winner best rel lo hi duration
# sampled samples_min timing mk_timings mk_conv me_timings me_conv in_loop
# at_exit reason" per bakeoff of each run (fields with blanks as _)
loop_rows() {
    local n m k base
    for n in $(pick loop); do
        for m in $1; do
            for ((k = 1; k <= cruns; k++)); do
                base=$dir/loop/$n.$m.$k
                [[ -e $base.st ]] || continue
                if ! status_ok "$base"; then
                    echo "FAILED $n [$m] run $k: status $(cat "$base.st") ($(head -c 200 "$base.err" | tr '\n' ' '))" >&3
                    failed=1
                    continue
                fi
                if [[ $n != rare-loop ]] && ! cmp -s "$base.out" "$(ls "$dir"/loop/"$n".*.1.out | head -1)"; then
                    echo "FAILED $n [$m] run $k: output differs from the program's other runs" >&3
                    failed=1
                fi
                [[ -e $base.json ]] || continue
                awk -v n="$n" -v m="$m" -v k="$k" "$AWK_LIB"'
                /^\{"id":/ {
                    ph = jv($0, "phase"); oc = jv($0, "outcome"); fl = jv($0, "failure")
                    if (ph == "failed") { oc = "failed" }
                    else if (ph != "done") oc = (ph == "queued" || ph == "ready" || ph == "compiling") ? "queued" : "running"
                    rest = substr($0, index($0, "\"variants\":["))
                    ns = jall(rest, "samples", smp); sm = ""
                    for (i = 1; i <= ns; i++) if (sm == "" || smp[i] < sm) sm = smp[i]
                    il = 0; ae = 0
                    q = jall(rest, "in_loop", t); for (i = 1; i <= q; i++) il += t[i]
                    q = jall(rest, "at_exit", t); for (i = 1; i <= q; i++) ae += t[i]
                    sc = substr($0, index($0, "\"scores\":"))
                    me = substr(sc, 1, index(sc, "\"markers\":")); mk = substr(sc, index(sc, "\"markers\":"))
                    iv = jv($0, "relative_difference_interval")
                    lo = hi = "null"
                    if (match($0, /"relative_difference_interval":\[[^]]*\]/)) {
                        s = substr($0, RSTART + 32, RLENGTH - 33); split(s, p, ","); lo = p[1]; hi = p[2]
                    }
                    why = fl != "null" && fl != "" ? fl : jv($0, "timing_reason")
                    sub(/ \(.*/, "", why); sub(/:.*/, "", why); gsub(/ /, "_", why); if (why == "" || why == "null") why = "-"
                    print n, m, k, jv($0, "method"), oc, jv($0, "winner"), jv($0, "best"), jv($0, "relative_difference"),
                        lo, hi, jv($0, "duration"), jv($0, "sampled"), (sm == "" ? "null" : sm), jv($0, "timing"),
                        jv(mk, "timings"), jv(mk, "converge"), jv(me, "timings"), jv(me, "converge"), il, ae, why
                }' "$base.json"
            done
        done
    done
}

report_converge() {
    local rows=$dir/converge.rows
    loop_rows "method markers pinned" >"$rows"
    echo
    echo "== Convergence: loop timings against method timings =="
    echo "Protocol: --audit=custom -X 'audit.custom=$pair' (variant 0 = $pair_a), default tunables but"
    echo "the timing mode: method (audit.timing=method), markers (audit.timing=markers, plain markers:"
    echo "gcc may hoist one out of a call-free loop, one event standing for its iterations), pinned"
    echo "(markers with markers.kind=pinned: an event per iteration); $cruns run(s) per mode, in rounds;"
    echo "audit.hot_threshold=20 in every mode (by default only loop timings count a method's iterations"
    echo "towards it, so a method called a few hundred times gets no bakeoff under method timings)."
    echo "From --stats at exit, per bakeoff: ends (w winner, n no-difference, t timeout, r running at"
    echo "exit, f failed/screened), time to decision (duration, s, median of the decided runs),"
    echo "samples (fewest of a variant, median), timings and converge score (timings / their variance,"
    echo "the thesis's metric) of the mode's own timings; where = marker write sites in a loop /"
    echo "after it (hoisted), summed over the variants. Program sizes: loop table of this script."
    echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
    awk "$AWK_LIB"'
    {
        key = $1 SUBSEP $4; if (!(key in seen)) { seen[key] = 1; row[++nrow] = key }
        km = key SUBSEP $2; runs[km]++
        o = $5; e = o == "winner" ? "w" : o == "no-difference" ? "n" : o == "timeout" ? "t" : o == "failed" ? "f" : "r"
        ends[km] = ends[km] e
        if (o == "winner" || o == "no-difference") { nd[km]++; d[km, nd[km]] = $11; if (o == "winner") win[km] = $6 }
        if ($13 != "null") { ns[km]++; s[km, ns[km]] = $13 }
        if ($12 != "null") { nsa[km]++; sa[km, nsa[km]] = $12 }
        if ($2 == "method") { tm = $17; cv = $18 } else { tm = $15; cv = $16 }
        nt[km]++; tt[km, nt[km]] = tm + 0; if (cv != "null" && cv != "") { nc[km]++; cc[km, nc[km]] = cv + 0 }
        timing[km] = $14; where[km] = $19 "/" $20; why[km] = $21
        if ($2 != "method" && $16 != "null" && $18 != "null" && $18 + 0 > 0) { nx[km]++; xr[km, nx[km]] = $16 / $18 }
    }
    function med(arr, km, n,    i, a) { for (i = 1; i <= n; i++) a[i] = arr[km, i]; return median(a, n) }
    END {
        if (nrow == 0) { print "(no bakeoffs)"; exit }
        printf "%-18s %-22s %-7s %-7s %-6s %-9s %8s %9s %9s %10s %11s  %s\n", "program", "method", "mode", "timing", "where",
            "ends", "decided", "time s", "samples", "timings", "converge", "why no markers / failure"
        for (i = 1; i <= nrow; i++) {
            split(row[i], p, SUBSEP)
            for (j = 1; j <= 3; j++) {
                md = j == 1 ? "method" : j == 2 ? "markers" : "pinned"; km = row[i] SUBSEP md
                if (!(km in runs)) continue
                dec = nd[km] + 0
                printf "%-18s %-22s %-7s %-7s %-6s %-9s %8s %9s %9s %10s %11s  %s\n", p[1], p[2], md, timing[km],
                    timing[km] == "markers" ? where[km] : "-", ends[km], dec "/" runs[km] (win[km] != "" ? " " win[km] : ""),
                    dec ? sprintf("%.3f", med(d, km, dec)) : "-",
                    ns[km] ? sprintf("%d", med(s, km, ns[km])) : "-",
                    sprintf("%d", med(tt, km, nt[km])), nc[km] ? sprintf("%.3g", med(cc, km, nc[km])) : "-",
                    (timing[km] == "markers" ? "-" : why[km])
            }
        }
        print ""
        print "per bakeoff, markers (plain, pinned) against method timings: time to decision method/markers"
        print "(medians of decided runs), and the thesis converge score markers/method of the same runs"
        for (i = 1; i <= nrow; i++) {
            split(row[i], p, SUBSEP); me = row[i] SUBSEP "method"
            for (j = 2; j <= 3; j++) {
                md = j == 2 ? "markers" : "pinned"; km = row[i] SUBSEP md
                if (!(km in runs) || timing[km] != "markers") continue
                if (nd[km] && nd[me]) r = sprintf("%.3gx faster to a decision", med(d, me, nd[me]) / med(d, km, nd[km]))
                else if (nd[km] && !runs[me]) r = sprintf("decides (%d/%d runs); no bakeoff under method timings", nd[km], runs[km])
                else if (nd[km]) r = sprintf("decides (%d/%d runs) where method timings never do (0/%d)", nd[km], runs[km], runs[me])
                else if (nd[me]) r = "method timings decide, markers never do"
                else r = "neither decides"
                cr = nx[km] ? sprintf("%.3gx", med(xr, km, nx[km])) : "-"
                printf "  %-18s %-22s %-7s %s; converge score %s\n", p[1], p[2], md, r, cr
            }
        }
    }' "$rows"
}

report_accuracy() {
    local rows=$dir/accuracy.rows n r
    loop_rows "markers pinned naive" >"$rows"
    local forced=$dir/accuracy.forced
    : >"$forced"
    for n in $(pick loop); do
        for ((r = 1; r <= runs; r++)); do
            local a=$dir/forced/$n.a.$r b=$dir/forced/$n.b.$r
            [[ -e $a.st && -e $b.st ]] || continue
            if status_ok "$a" && status_ok "$b"; then
                echo "$n $r $(cat "$a.ms") $(cat "$b.ms")" >>"$forced"
            else
                echo "FAILED forced $n run $r"
                failed=1
            fi
        done
    done
    echo
    echo "== Accuracy: the direction of loop-timed decisions against forced variants =="
    echo "Protocol: the truth per program is the whole program run with one variant forced on every"
    echo "compile (-X jit.optset='$pair_a' vs '$pair_b', no auditing), interleaved, $runs round(s): wall time,"
    echo "per round $pair_b/$pair_a; their geometric mean with a 95% t-interval on the logs (a variant"
    echo "is the truth when the interval excludes 1; '~': it does not)."
    echo "Beside it, each bakeoff's decision in the audited runs ($cruns per mode, shared with converge):"
    echo "markers, pinned and naive (audit.timing=naive: real timer calls put in before gcc optimizes)."
    echo "A decision's direction is its winner ($pair_a or $pair_b; a no-difference keeps $pair_a and"
    echo "claims no direction); 'lean' is the best variant at exit of an undecided run, with its"
    echo "difference. Only programs with a bakeoff that sampled get forced runs."
    echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
    awk -v A="$pair_a" -v B="$pair_b" "$AWK_LIB"'
    FILENAME ~ /forced$/ { nf[$1]++; fr[$1, nf[$1]] = $4 / $3; next }
    {
        key = $1 SUBSEP $4; if (!(key in seen)) { seen[key] = 1; row[++nrow] = key }
        km = key SUBSEP $2; o = $5
        if (o == "winner") { txt[km] = txt[km] " " $6; if ($6 == B) vb[km]++; else va[km]++ }
        else if (o == "no-difference") { txt[km] = txt[km] " nodiff"; vn[km]++ }
        else if ($7 != "null" && $7 != "") { txt[km] = txt[km] sprintf(" lean:%s(%s)", $7, fmt($8 * 100, "%+.1f%%")) }
        else txt[km] = txt[km] " " o
    }
    END {
        printf "%-18s %-22s %-26s %s\n", "program", "method", "forced " B "/" A " [95%]", "decisions per run: markers | pinned | naive"
        for (i = 1; i <= nrow; i++) {
            split(row[i], p, SUBSEP); n = p[1]
            if (nf[n] > 1) {
                # the geometric mean of the ratios of the rounds, a t-interval on their logs
                s1 = s2 = 0; q = nf[n]
                for (j = 1; j <= q; j++) { x = log(fr[n, j]); s1 += x; s2 += x * x }
                mu = s1 / q; sd = sqrt((s2 - q * mu * mu) / (q - 1)); hw = t975(q - 1) * sd / sqrt(q)
                lo = exp(mu - hw); hi = exp(mu + hw)
                truth = sprintf("%.3f [%.3f, %.3f]%s", exp(mu), lo, hi, hi < 1 ? " " B : lo > 1 ? " " A : " ~")
                best = hi < 1 ? B : lo > 1 ? A : ""
            } else { truth = nf[n] ? sprintf("%.3f (one round)", fr[n, 1]) : "(no forced runs)"; best = "" }
            line = ""
            for (j = 1; j <= 3; j++) {
                md = j == 1 ? "markers" : j == 2 ? "pinned" : "naive"; km = row[i] SUBSEP md
                t = txt[km]; sub(/^ /, "", t); if (t == "") t = "-"
                line = line (j > 1 ? " | " : "") t
                if (best != "") { agree[md] += (best == B ? vb[km] : va[km]); against[md] += (best == B ? va[km] : vb[km]) }
                nodiff[md] += vn[km]
            }
            printf "%-18s %-22s %-26s %s\n", n, p[2], truth, line
        }
        print ""
        print "decisions whose program has a sure truth: agreeing / against it (no-differences apart)"
        for (j = 1; j <= 3; j++) {
            md = j == 1 ? "markers" : j == 2 ? "pinned" : "naive"
            printf "  %-8s %d agree, %d against, %d no-difference (all programs)\n", md, agree[md], against[md], nodiff[md]
        }
    }' "$forced" "$rows"
}

report_reach() {
    local rows=$dir/reach.rows n cl base
    : >"$rows"
    for n in $(pick awfy); do
        for cl in optlevel inline; do
            base=$dir/reach/$n.$cl.1
            [[ -e $base.st ]] || continue
            if ! status_ok "$base" || grep -q "result verification failed" "$base.out"; then
                echo "FAILED reach $n [$cl]: status $(cat "$base.st") ($(head -c 200 "$base.err" | tr '\n' ' '))"
                failed=1
            fi
            [[ -e $base.json ]] || continue
            awk -v n="$n" -v cl="$cl" "$AWK_LIB"'
            /^\{"id":/ {
                ph = jv($0, "phase"); oc = jv($0, "outcome"); fl = jv($0, "failure")
                if (ph == "done") e = oc == "winner" ? "winner" : oc == "no-difference" ? (jv($0, "same_code") == "true" ? "same" : "nodiff") : "timeout"
                else if (ph == "failed") e = fl ~ /^too cheap to time/ ? "cheap" : (fl ~ /not called through its entry/ || fl ~ /not compiled$/) ? "screened" : "failed"
                else if (ph == "queued" || ph == "ready" || ph == "compiling") e = "queued"
                else e = "running"
                why = jv($0, "timing_reason"); sub(/ \(.*/, "", why); gsub(/ /, "_", why)
                if (why == "") why = "(not_planned:_never_left_the_queue)"
                print cl, n, e, jv($0, "timing"), (jv($0, "timing") == "markers" ? "-" : why)
            }' "$base.json" >>"$rows"
        done
    done
    echo
    echo "== Reach: how every bakeoff ends (audit.timing=auto) =="
    echo "Protocol: each AWFY benchmark once per client (--audit=optlevel, --audit=inline), the suite's"
    echo "inner size, 20 outer iterations (Havlak 6), default tunables; every bakeoff in --stats at exit."
    echo "Ends: winner; no-diff (timed; same = untimed, its variants compiled to the same code); timeout;"
    echo "cheap (screened as too cheap to time); screened (other screening: not called through its"
    echo "entry often enough, ...); failed (other failures); queued (never sampled: queued, compiling or"
    echo "compiled ahead) and running (sampling or paused) at exit. decided = winner + no-diff + same;"
    echo "share = decided / (all - cheap). 'markers': bakeoffs timed by loop timings."
    echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
    awk "$AWK_LIB"'
    { c[$1, $3]++; t[$1]++; if ($4 == "markers") { mk[$1]++; mkc[$1, $3]++ }; c[$1, $2, $3]++; t[$1, $2]++
      if ($5 != "-") { w = $5; gsub(/_/, " ", w); if (!(w in wseen)) { wseen[w] = 1; wl[++nw] = w }; wc[w]++ }
      if (!($2 in sb)) { sb[$2] = 1; b[++nb] = $2 } }
    END {
        split("winner nodiff same timeout cheap screened failed queued running", e, " ")
        split("optlevel inline", cls, " ")
        for (k = 1; k <= 2; k++) {
            cl = cls[k]; if (!t[cl]) { printf "%s: no bakeoffs\n", cl; continue }
            printf "\n%s\n%-11s %5s", cl, "benchmark", "all"
            for (j = 1; j <= 9; j++) printf " %8s", e[j]
            printf "\n"
            for (i = 1; i <= nb; i++) {
                if (!t[cl, b[i]]) continue
                printf "%-11s %5d", b[i], t[cl, b[i]]
                for (j = 1; j <= 9; j++) printf " %8d", c[cl, b[i], e[j]]
                printf "\n"
            }
            printf "%-11s %5d", "all", t[cl]
            for (j = 1; j <= 9; j++) printf " %8d", c[cl, e[j]]
            dec = c[cl, "winner"] + c[cl, "nodiff"] + c[cl, "same"]; base = t[cl] - c[cl, "cheap"]
            printf "\n%-11s %5d", "markers", mk[cl]
            for (j = 1; j <= 9; j++) printf " %8d", mkc[cl, e[j]]
            printf "\n%s: %d of %d bakeoffs not screened as too cheap end decided (%s); goal >= 90%%: %s\n", cl, dec, base,
                base ? sprintf("%.0f%%", 100 * dec / base) : "-", (base && dec >= 0.9 * base) ? "met" : "NOT met"
            left = base - c[cl, "queued"]
            printf "%s: of those that left the queue before the program ended, %d of %d (%s) end decided, %d timed\n", cl, dec, left,
                left ? sprintf("%.0f%%", 100 * dec / left) : "-", c[cl, "winner"] + c[cl, "nodiff"]
            T += t[cl]; D += dec; B += base
        }
        if (B) printf "\nboth clients: %d of %d (%.0f%%) end decided; goal >= 90%%: %s\n", D, B, 100 * D / B, (D >= 0.9 * B) ? "met" : "NOT met"
        if (nw) print "\nwhy bakeoffs got method timings (both clients):"
        for (i = 1; i <= nw; i++) printf "  %4d  %s\n", wc[wl[i]], wl[i]
    }' "$rows"
}

# ---- main -------------------------------------------------------------------------------
t_start=$(date +%s)
if [[ -n $from ]]; then
    echo "tables of $from; its runs began:"
    sed 's/^/  /' "$from/log" 2>/dev/null
else {
    echo "bench/markers/markers.sh $part: $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)," \
        "$(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
    ((quick)) && echo "quick mode: test sizes, one run: a smoke test, not a measurement"
} | tee -a "$dir/log" 2>/dev/null; fi
if [[ -z $from ]]; then
    case $part in
        cost) run_cost ;;
        converge) run_converge ;;
        reach) run_reach ;;
        accuracy) run_accuracy ;;
        all) run_cost && run_converge && run_accuracy && run_reach ;;
    esac
fi
case $part in
    cost) report_cost ;;
    converge) report_converge ;;
    reach) report_reach ;;
    accuracy) report_accuracy ;;
    all) report_cost; report_converge; report_accuracy; report_reach ;;
esac
echo
echo "$nrun runs in $(($(date +%s) - t_start)) s; load average at the end $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
exit "$failed"
