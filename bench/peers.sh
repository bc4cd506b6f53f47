#!/usr/bin/env bash
# bench/peers.sh — tally against HotSpot and LuaJIT (`make bench-peers`): the
# 14 Are-We-Fast-Yet benchmarks at the suite's standard sizes, each in tally's
# JIT and interpreter (bench/awfy/NAME.tl) and in the suite's own Java and
# Lua implementations (bench/peers/awfy/, kept unmodified) run by their own
# harnesses.
#
# Input: bin/tally (or TALLY); java and javac, luajit, lua5.4 from PATH (or
# JAVA, JAVAC, LUAJIT, LUA54). The Java sources are compiled with javac into
# OUT/java when a source is newer than the last compile. Every VM prints
# "NAME: iterations=1 runtime: <N>us" per outer iteration and a closing
# "NAME: iterations=OUTER average: ..." line, and exits non-zero when its
# result does not verify.
# Protocol: RUNS repetitions; in each, every benchmark, and for it every VM
# in turn (so load drift on the shared machine hits every VM alike). A
# process runs OUTER iterations; its value is the median of its iterations
# after the first W (the warm ones); a VM's value per benchmark is the
# median over its processes, in ms per iteration. Ratios are time ratios
# (tally / HotSpot: < 1 means tally is faster); their geometric means are
# over the benchmarks where both VMs have a value.
# Output: a progress line per process on stderr; on stdout the table, the
# geometric means, failures and skipped VMs; OUT/results.json (every
# process's iterations and max RSS) and OUT/results.md (the table in
# Markdown). In curve mode also each benchmark's per-iteration curve per VM
# (per iteration, the median over the runs), its drift and max RSS, and
# OUT/curves.png when /usr/bin/python3 has matplotlib (bench/peers-plot.py).
# Invariants: a VM that exits non-zero, times out or prints other than OUTER
# iterations and the closing line is FAILED for that benchmark (its later
# runs are skipped), never a number, and the other runs go on; a VM that is
# not installed is skipped with one line. Exit status: 0 when nothing
# failed, 1 when something did, 2 on bad usage.
#
# Usage: bench/peers.sh [options] [NAME[=INNER]...]
#   NAME     a benchmark (default: all 14); =INNER overrides its inner
#            iterations (the problem size; some verify only certain sizes)
# Options (defaults in brackets; a full default run takes about 16 minutes
# on a 2-core machine shared with other work, up to 25 under more load):
#   --runs=N                processes per VM and benchmark [3]
#   --iterations=N          outer iterations of tally JIT and HotSpot [60]
#   --warmup=N              of these, the first dropped [40; with
#                           --iterations=N alone, the smaller of 40 and N/2]
#   --lj-iterations=N       outer iterations of LuaJIT [10]
#   --lj-warmup=N           of these, the first dropped [3]
#   --interp-iterations=N   outer iterations of tally --jit=off and Lua 5.4 [4]
#   --interp-warmup=N       of these, the first dropped [1]
#   --vms=LIST              comma-separated, of tally,interp,java,luajit,lua54
#                           [tally,interp,java,luajit]
#   --lua54                 add Lua 5.4 (slow: about 2-4 s per iteration)
#   --curves                per-iteration curves, drift and max RSS per VM,
#                           and the plot; on by itself when --iterations=N
#                           with N >= 20 is given
#   --quick                 tiny sizes (the smallest that verify), 3
#                           iterations (1 dropped), 1 run: for the test
#   --timeout=S             seconds before a process is killed [600; quick 120]
#   --out=DIR               where the results go [build/peers]
#   -h, --help              this text
# Environment: TALLY, JAVA, JAVAC, LUAJIT, LUA54 (the commands), JAVA_OPTS
# (options for java, none by default).
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
awfydir=$here/awfy
peerdir=$here/peers/awfy

# ---- the benchmarks -----------------------------------------------------------
# name, standard and quick inner iterations: bench/awfy-sizes.txt
bench_table=$(cat "$here/awfy-sizes.txt")

# the VMs: id, label, class (jit: --iterations; lj: --lj-*; interp:
# --interp-*)
vm_table="
tally   tally-JIT     jit
interp  tally-interp  interp
java    HotSpot       jit
luajit  LuaJIT        lj
lua54   Lua-5.4       interp
"

usage() {
    sed -n '/^# Usage:/,/^set -u/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
}

die() {
    echo "bench/peers.sh: $*" >&2
    exit 2
}

# ---- options --------------------------------------------------------------------
runs="" iters="" warm="" lj_iters="" lj_warm="" in_iters="" in_warm=""
vms_opt="" lua54=0 curves=0 quick=0 timeout_s="" out=$root/build/peers
args=()
num() {  # OPTION VALUE: VALUE must be a non-negative integer
    [[ $2 =~ ^[0-9]+$ ]] || die "$1 needs a number, not '$2'"
    echo "$2"
}
while (($#)); do
    case $1 in
        --runs=*) runs=$(num --runs "${1#*=}") || exit 2 ;;
        --iterations=*) iters=$(num --iterations "${1#*=}") || exit 2 ;;
        --warmup=*) warm=$(num --warmup "${1#*=}") || exit 2 ;;
        --lj-iterations=*) lj_iters=$(num --lj-iterations "${1#*=}") || exit 2 ;;
        --lj-warmup=*) lj_warm=$(num --lj-warmup "${1#*=}") || exit 2 ;;
        --interp-iterations=*) in_iters=$(num --interp-iterations "${1#*=}") || exit 2 ;;
        --interp-warmup=*) in_warm=$(num --interp-warmup "${1#*=}") || exit 2 ;;
        --vms=*) vms_opt=${1#*=} ;;
        --lua54) lua54=1 ;;
        --curves) curves=1 ;;
        --quick) quick=1 ;;
        --timeout=*) timeout_s=$(num --timeout "${1#*=}") || exit 2 ;;
        --out=*) out=${1#*=} ;;
        -h | --help)
            usage
            exit 0
            ;;
        -*) die "unknown option '$1' (see --help)" ;;
        *) args+=("$1") ;;
    esac
    shift
done
# an explicit --iterations=N with N >= 20 asks for the curves
[[ -n $iters ]] && ((iters >= 20)) && curves=1
# with --iterations=N alone, half of N (at most 40) is warm-up
[[ -n $iters && -z $warm ]] && warm=$((iters / 2 < 40 ? iters / 2 : 40))
if ((quick)); then
    runs=${runs:-1} timeout_s=${timeout_s:-120}
    iters=${iters:-3} warm=${warm:-1} lj_iters=${lj_iters:-3} lj_warm=${lj_warm:-1}
    in_iters=${in_iters:-3} in_warm=${in_warm:-1}
else
    runs=${runs:-3} timeout_s=${timeout_s:-600}
    iters=${iters:-60} warm=${warm:-40} lj_iters=${lj_iters:-10} lj_warm=${lj_warm:-3}
    in_iters=${in_iters:-4} in_warm=${in_warm:-1}
fi
((runs >= 1)) || die "--runs must be at least 1"
((timeout_s >= 1)) || die "--timeout must be at least 1"
for v in "$iters:$warm:--iterations/--warmup" "$lj_iters:$lj_warm:--lj-iterations/--lj-warmup" \
    "$in_iters:$in_warm:--interp-iterations/--interp-warmup"; do
    IFS=: read -r n w what <<<"$v"
    ((n >= 1 && w < n)) || die "$what: need at least 1 iteration and fewer warm-up iterations than iterations ($n, $w)"
done

declare -A vm_label vm_class
vm_all=()
while read -r id lab cls; do
    [[ -n $id ]] || continue
    vm_all+=("$id") vm_label[$id]=${lab//-/ } vm_class[$id]=$cls
done <<<"$vm_table"
vms=()
if [[ -n $vms_opt ]]; then
    IFS=, read -r -a sel <<<"$vms_opt"
    for v in "${sel[@]}"; do
        [[ -n ${vm_label[$v]+set} ]] || die "unknown VM '$v' in --vms (${vm_all[*]})"
        [[ " ${vms[*]} " == *" $v "* ]] || vms+=("$v")
    done
else
    vms=(tally interp java luajit)
fi
((lua54)) && [[ " ${vms[*]} " != *" lua54 "* ]] && vms+=(lua54)
((${#vms[@]})) || die "--vms names no VM"
# outer iterations and warm-up of a VM
vm_outer() { case ${vm_class[$1]} in jit) echo "$iters" ;; lj) echo "$lj_iters" ;; *) echo "$in_iters" ;; esac; }
vm_warm() { case ${vm_class[$1]} in jit) echo "$warm" ;; lj) echo "$lj_warm" ;; *) echo "$in_warm" ;; esac; }

declare -A b_std b_quick
b_all=()
while read -r n i q; do
    [[ -n $n && $n != \#* ]] || continue
    b_all+=("$n") b_std[$n]=$i b_quick[$n]=$q
done <<<"$bench_table"
bnames=() binner=()
add_bench() { bnames+=("$1") binner+=("$2"); }
if ((${#args[@]} == 0)); then
    for n in "${b_all[@]}"; do
        if ((quick)); then add_bench "$n" "${b_quick[$n]}"; else add_bench "$n" "${b_std[$n]}"; fi
    done
else
    for a in "${args[@]}"; do
        n=${a%%=*}
        [[ -n ${b_std[$n]+set} ]] || die "unknown benchmark '$n' (${b_all[*]})"
        if [[ $a == *=* ]]; then
            [[ ${a#*=} =~ ^[1-9][0-9]*$ ]] || die "bad size in '$a' (NAME=INNER)"
            add_bench "$n" "${a#*=}"
        elif ((quick)); then
            add_bench "$n" "${b_quick[$n]}"
        else
            add_bench "$n" "${b_std[$n]}"
        fi
    done
fi
nb=${#bnames[@]}

[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install time, or make setup)"
[[ -d $peerdir/Java/src && -f $peerdir/Lua/harness.lua ]] || die "$peerdir is incomplete"
if ! mkdir -p "$out"; then die "cannot create $out"; fi
rm -rf "$out/failures"  # a previous run's failures
out=$(cd "$out" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tally-peers.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
t_start=$(date +%s%N)
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)

# ---- which VMs exist ---------------------------------------------------------------
tally=${TALLY:-$root/bin/tally}
java=${JAVA:-java} javac=${JAVAC:-javac} luajit=${LUAJIT:-luajit} lua54_cmd=${LUA54:-lua5.4}
java_opts=()
read -r -a java_opts <<<"${JAVA_OPTS:-}"
declare -A skip vm_version
have() { command -v "$1" >/dev/null 2>&1; }
for v in "${vms[@]}"; do
    case $v in
        tally | interp)
            if [[ -x $tally ]]; then vm_version[$v]=$("$tally" --version 2>&1 | head -n 1)
            else skip[$v]="$tally not found (make bin/tally)"; fi
            ;;
        java)
            if ! have "$java"; then skip[$v]="$java not found"
            elif ! have "$javac"; then skip[$v]="$javac not found"
            else vm_version[$v]=$("$java" -version 2>&1 | head -n 2 | tr '\n' ' '); fi
            ;;
        luajit)
            if ! have "$luajit"; then skip[$v]="$luajit not found"
            else vm_version[$v]=$("$luajit" -v 2>&1 | head -n 1); fi
            ;;
        lua54)
            if ! have "$lua54_cmd"; then skip[$v]="$lua54_cmd not found"
            else vm_version[$v]=$("$lua54_cmd" -v 2>&1 | head -n 1); fi
            ;;
    esac
    if [[ -n ${skip[$v]:-} ]]; then
        echo "bench/peers.sh: ${vm_label[$v]} is not installed ($(tr -d '\n' <<<"${skip[$v]}")): skipped (tools/setup.sh peers installs it)" >&2
    fi
done
# the Lua harness times by the wall clock only with lua-socket
declare -A lua_clock
for v in luajit lua54; do
    [[ " ${vms[*]} " == *" $v "* && -z ${skip[$v]:-} ]] || continue
    cmd=$luajit
    [[ $v == lua54 ]] && cmd=$lua54_cmd
    if "$cmd" -e 'require "socket"' >/dev/null 2>&1; then
        lua_clock[$v]=wall
    else
        lua_clock[$v]=cpu
        echo "bench/peers.sh: ${vm_label[$v]} has no lua-socket: its harness times by process CPU time (os.clock)" >&2
    fi
done

# the Java classes, compiled when a source is newer than the last compile; a
# failed compile fails every Java run (its output is kept)
classes=$out/java
java_bad=""
if [[ " ${vms[*]} " == *" java "* && -z ${skip[java]:-} ]]; then
    stamp=$classes/.compiled
    if [[ ! -f $stamp ]] || [[ -n $(find "$peerdir/Java/src" -name '*.java' -newer "$stamp" | head -n 1) ]]; then
        echo "bench/peers.sh: compiling the Java sources into ${classes#"$root"/}" >&2
        rm -rf "$classes"
        mkdir -p "$classes"
        if find "$peerdir/Java/src" -name '*.java' -print0 | xargs -0 "$javac" -nowarn -d "$classes" >"$out/javac.log" 2>&1; then
            touch "$stamp"
        else
            java_bad="javac failed (output in ${out#"$root"/}/javac.log)"
        fi
    fi
fi

# ---- helpers -------------------------------------------------------------------------
source "$(dirname "${BASH_SOURCE[0]}")/summaries.sh"   # median, ratio, geomean, max_mb, json_array, jstr, clean

# iterations NAME OUTER FILE: the per-iteration runtimes (us, rounded) of a
# process's output; status 1 unless there are exactly OUTER and the closing
# line (the three harnesses print the same lines)
iterations() {
    awk -v name="$1" -v outer="$2" '
        index($0, name ": iterations=1 runtime: ") == 1 && $NF ~ /^[0-9.]+us$/ {
            v = $NF; sub(/us$/, "", v); s = s (n++ ? " " : "") sprintf("%.0f", v); next
        }
        index($0, name ": iterations=" outer " average: ") == 1 { closed = 1 }
        END { print s; exit !(closed && n == outer) }' "$3"
}

# warm_value LIST W: the median (us) of the iterations after the first W
warm_value() {
    median "$(awk -v list="$1" -v w="$2" 'BEGIN {
        n = split(list, v, " "); if (w > n - 1) w = n - 1
        for (i = w + 1; i <= n; i++) printf "%s ", v[i] }')" 1
}

# run_vm B V TAG: one process of benchmark B (index) in VM V; files in
# $tmp/TAG.*. Sets status, rss_kb, value (warm median, us), its (the
# iteration list) and fail (empty, or why it failed).
run_vm() {
    local b=$1 v=$2 tag=$3 name=${bnames[$1]} inner=${binner[$1]}
    local outer o=$tmp/$tag.out e=$tmp/$tag.err r=$tmp/$tag.rss cmd
    outer=$(vm_outer "$v")
    fail="" value=null its="" rss_kb=null
    case $v in
        tally) cmd=("$tally" run "$awfydir/$name.tl" "$outer" "$inner") ;;
        interp) cmd=("$tally" --jit=off run "$awfydir/$name.tl" "$outer" "$inner") ;;
        java) cmd=("$java" "${java_opts[@]}" -cp "$classes" Harness "$name" "$outer" "$inner") ;;
        luajit) cmd=(env -C "$peerdir/Lua" "$luajit" harness.lua "$name" "$outer" "$inner") ;;
        lua54) cmd=(env -C "$peerdir/Lua" "$lua54_cmd" harness.lua "$name" "$outer" "$inner") ;;
    esac
    if [[ $v == java && -n $java_bad ]]; then
        fail=$java_bad
        return
    fi
    /usr/bin/time -f '%M' -o "$r" timeout "$timeout_s" "${cmd[@]}" >"$o" 2>"$e" </dev/null
    status=$?
    rss_kb=$(tail -n 1 "$r" 2>/dev/null)
    [[ $rss_kb =~ ^[0-9]+$ ]] || rss_kb=null
    if ((status == 124)); then
        fail="timed out after $timeout_s s"
    elif ((status != 0)); then
        fail="exit status $status: $({ grep -a -h -m2 -v -e ': iterations=' -e '^Starting ' "$o"; grep -a -v '^[[:space:]]*at ' "$e" | head -n 3; } | clean 240)"
    elif ! its=$(iterations "$name" "$outer" "$o"); then
        fail="output is not $outer iterations and a closing line: '$(clean 160 <"$o")'"
    fi
    if [[ -n $fail ]]; then
        # what a failed process printed, kept: a failure seen once must be readable
        local keep=$out/failures/$name.$v
        mkdir -p "$out/failures" && cp "$o" "$keep.out" && cp "$e" "$keep.err" &&
            fail+=" (output in ${keep#"$root"/}.out, .err)"
        return
    fi
    value=$(warm_value "$its" "$(vm_warm "$v")")
}

# ---- the runs ---------------------------------------------------------------------------
# per benchmark B and VM V: vals[B,V] the processes' warm medians (us),
# rss[B,V] their max RSS (KB), itl[B,V] their iteration lists joined by ';',
# bad[B,V] why it failed (later runs skipped)
declare -A vals rss itl bad
loads=""  # the 1-minute load average as each process started
active=()
for v in "${vms[@]}"; do [[ -z ${skip[$v]:-} ]] && active+=("$v"); done
total=$((runs * nb * ${#active[@]}))
k=0
for ((r = 1; r <= runs; r++)); do
    for ((b = 0; b < nb; b++)); do
        for v in "${active[@]}"; do
            k=$((k + 1))
            prefix=$(printf '[%d/%d] %s %s run %d/%d:' "$k" "$total" "${bnames[b]}" "${vm_label[$v]}" "$r" "$runs")
            if [[ -n ${bad[$b,$v]:-} ]]; then
                echo "$prefix skipped (failed before)" >&2
                continue
            fi
            loads+="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null) "
            run_vm "$b" "$v" "$b.$v.$r"
            rss[$b,$v]+="$rss_kb "
            if [[ -n $fail ]]; then
                bad[$b,$v]=$fail
                echo "$prefix FAILED: $fail" >&2
                continue
            fi
            vals[$b,$v]+="$value "
            itl[$b,$v]+="${itl[$b,$v]:+;}$its"
            echo "$prefix $(awk -v x="$value" 'BEGIN { printf "%.2f", x / 1000 }') ms/iter, $(max_mb "$rss_kb") MB" >&2
        done
    done
done

# ---- medians, ratios, geometric means ----------------------------------------------------------
# med[B,V]: ms per iteration (3 decimals), FAILED, skipped or "-" (not
# selected); rat[B,PAIR] for the pairs below
pairs=("tally java" "tally luajit" "interp lua54")
pair_id() { echo "${1% *}/${1#* }"; }
sel() { [[ " ${vms[*]} " == *" $1 "* ]]; }
declare -A med rat geo geon cur_stats  # cur_stats[B,V]: curve_stats of the curve
failed=0
for ((b = 0; b < nb; b++)); do
    for v in "${vm_all[@]}"; do
        if ! sel "$v"; then med[$b,$v]="-"
        elif [[ -n ${skip[$v]:-} ]]; then med[$b,$v]=skipped
        elif [[ -n ${bad[$b,$v]:-} ]]; then med[$b,$v]=FAILED failed=1
        else
            m=$(median "${vals[$b,$v]:-}" 1)
            med[$b,$v]=$(awk -v m="$m" 'BEGIN { if (m == "null") print "FAILED"; else printf "%.3f\n", m / 1000 }')
        fi
    done
    for pr in "${pairs[@]}"; do rat[$b,$(pair_id "$pr")]=$(ratio "${med[$b,${pr% *}]}" "${med[$b,${pr#* }]}"); done
done
shown_pairs=()
for pr in "${pairs[@]}"; do
    sel "${pr% *}" && sel "${pr#* }" && shown_pairs+=("$pr")
done
for pr in "${shown_pairs[@]}"; do
    id=$(pair_id "$pr")
    read -r g n < <(for ((b = 0; b < nb; b++)); do echo "${rat[$b,$id]}"; done | geomean)
    geo[$id]=$g geon[$id]=$n
done
secs=$(awk -v a="$t_start" -v b="$(date +%s%N)" 'BEGIN { printf "%.0f", (b - a) / 1e9 }')
load_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
# the load the processes started under: "min median max"
load_range=$(awk -v list="$loads" 'BEGIN {
    n = split(list, v, " "); if (n == 0) { print "- - -"; exit }
    for (i = 2; i <= n; i++) { x = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
    printf "%s %s %s\n", v[1], (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, v[n] }')

# ---- curves ----------------------------------------------------------------------------------------
# curve B V: per iteration, the median over the VM's processes (ms, 2
# decimals), space-separated
curve() {
    awk -v runs="${itl[$1,$2]:-}" 'BEGIN {
        nr = split(runs, rl, ";"); len = 0
        for (r = 1; r <= nr; r++) { n[r] = split(rl[r], x, " "); for (i = 1; i <= n[r]; i++) v[r, i] = x[i]; if (n[r] > len) len = n[r] }
        for (i = 1; i <= len; i++) {
            m = 0
            for (r = 1; r <= nr; r++) if (i <= n[r]) y[++m] = v[r, i] + 0
            for (a = 2; a <= m; a++) { t = y[a]; for (c = a - 1; c >= 1 && y[c] > t; c--) y[c + 1] = y[c]; y[c + 1] = t }
            printf "%s%.2f", (i > 1 ? " " : ""), ((m % 2) ? y[(m + 1) / 2] : (y[m / 2] + y[m / 2 + 1]) / 2) / 1000
        }
        print ""
    }'
}
# curve_stats LIST W: "first warm last drift_pct": the first iteration, the
# median after W, the last, and the drift: the median of the last 10 over
# the median of iterations W+1..W+10, minus 1, in percent
curve_stats() {
    awk -v list="$1" -v w="$2" '
        function med(a, b,   m, i, j, t, y) {
            m = 0
            for (i = a; i <= b; i++) y[++m] = v[i]
            for (i = 2; i <= m; i++) { t = y[i]; for (j = i - 1; j >= 1 && y[j] > t; j--) y[j + 1] = y[j]; y[j + 1] = t }
            return (m % 2) ? y[(m + 1) / 2] : (y[m / 2] + y[m / 2 + 1]) / 2
        }
        BEGIN {
            n = split(list, v, " "); if (n == 0) { print "- - - -"; exit }
            if (w > n - 1) w = n - 1
            e = w + 10; if (e > n) e = n
            s = n - 9; if (s < 1) s = 1
            base = med(w + 1, e); last = med(s, n)
            printf "%.2f %.2f %.2f %s\n", v[1], med(w + 1, n), v[n], (base > 0 ? sprintf("%+.1f", (last / base - 1) * 100) : "-")
        }'
}
# groups LIST: the values in groups of 5, separated by " | "
groups() {
    awk -v list="$1" 'BEGIN {
        n = split(list, v, " ")
        for (i = 1; i <= n; i++) {
            x = v[i] + 0
            s = s (i == 1 ? "" : ((i - 1) % 5 == 0 ? " | " : " ")) (x >= 100 ? sprintf("%.0f", x) : sprintf("%.3g", x))
        }
        print s
    }'
}

# ---- the table ---------------------------------------------------------------------------------------
cellw() { printf ' %13s' "$1"; }
echo
echo "Are-We-Fast-Yet against peers: ms per iteration; per process the median of the iterations"
echo "after the warm-up, then the median over $runs run(s); $(nproc 2>/dev/null) cores, 1-minute load average"
read -r lmin lmed lmax <<<"$load_range"
echo "at the processes' starts $lmin-$lmax (median $lmed). Iterations (warm-up dropped):"
for v in "${vms[@]}"; do
    echo "  ${vm_label[$v]}: $(vm_outer "$v") ($(vm_warm "$v"))${skip[$v]:+ — skipped: ${skip[$v]}}"
done
h=$(printf '%-11s %7s' benchmark inner)
for v in "${vms[@]}"; do h+=$(cellw "${vm_label[$v]}"); done
# a ratio's column head: t = tally JIT, i = tally interpreter
pair_head() { pair_id "$1" | sed 's/tally/t/; s/interp/i/; s/java/HotSpot/; s/luajit/LuaJIT/; s/lua54/Lua54/'; }
for pr in "${shown_pairs[@]}"; do h+=$(printf ' %14s' "$(pair_head "$pr")"); done
echo "$h"
for ((b = 0; b < nb; b++)); do
    l=$(printf '%-11s %7s' "${bnames[b]}" "${binner[b]}")
    for v in "${vms[@]}"; do l+=$(cellw "${med[$b,$v]}"); done
    for pr in "${shown_pairs[@]}"; do
        x=${rat[$b,$(pair_id "$pr")]}
        l+=$(printf ' %14s' "${x/null/-}")
    done
    echo "$l"
done
if ((${#shown_pairs[@]})); then
    l=$(printf '%-19s' "geomean")
    for v in "${vms[@]}"; do l+=$(cellw ""); done
    for pr in "${shown_pairs[@]}"; do
        id=$(pair_id "$pr")
        l+=$(printf ' %14s' "${geo[$id]/null/-} (${geon[$id]})")
    done
    echo "$l"
    echo "(ratios are time ratios: t = tally JIT, i = tally interpreter; < 1: tally is faster;"
    echo " geomean over the benchmarks where both have a value, their count in parentheses)"
fi
echo
for ((b = 0; b < nb; b++)); do
    for v in "${vms[@]}"; do
        [[ -n ${bad[$b,$v]:-} ]] && echo "FAILED ${bnames[b]} [${vm_label[$v]}]: ${bad[$b,$v]}"
    done
done
for v in "${vms[@]}"; do
    [[ -n ${skip[$v]:-} ]] && echo "skipped ${vm_label[$v]}: not installed (${skip[$v]})"
done

if ((curves)); then
    echo
    echo "Per-iteration curves (ms; per iteration the median over the runs; groups of 5):"
    echo "drift = median of the last 10 iterations / median of the 10 after the warm-up - 1"
    : >"$tmp/curves.tsv"
    for ((b = 0; b < nb; b++)); do
        for v in "${vms[@]}"; do
            [[ -n ${itl[$b,$v]:-} ]] || continue
            c=$(curve "$b" "$v")
            read -r cf cw cl cd <<<"$(curve_stats "$c" "$(vm_warm "$v")")"
            cur_stats[$b,$v]="$cf $cw $cl $cd"
            printf '%-11s %-13s %s\n' "${bnames[b]}" "${vm_label[$v]}" "$(groups "$c")"
            printf '%-25s first %s, warm %s, last %s ms; drift %s%%; max RSS %s MB\n' "" "$cf" "$cw" "$cl" "$cd" "$(max_mb "${rss[$b,$v]:-}")"
            awk -v b="${bnames[b]}" -v vm="${vm_label[$v]}" -v list="$c" 'BEGIN {
                n = split(list, x, " "); for (i = 1; i <= n; i++) printf "%s\t%s\t%d\t%s\n", b, vm, i, x[i] }' >>"$tmp/curves.tsv"
        done
    done
    if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
        if /usr/bin/python3 "$here/peers-plot.py" "$tmp/curves.tsv" "$out/curves.png" 2>"$tmp/plot.err"; then
            echo "wrote ${out#"$root"/}/curves.png"
        else
            echo "the plot failed: $(clean 200 <"$tmp/plot.err")"
        fi
    else
        echo "no plot: /usr/bin/python3 has no matplotlib"
    fi
fi

# ---- results.md: the table in Markdown, ready for docs/results.md ------------------------------------
mdcell() {  # a value: FAILED and skipped in words, numbers with 1 decimal
    case $1 in
        FAILED | skipped | -) echo "$1" ;;
        *) awk -v x="$1" 'BEGIN { printf (x >= 100 ? "%.0f" : (x >= 10 ? "%.1f" : "%.2f")), x }' ;;
    esac
}
{
    h="| benchmark | inner |"
    s="|---|---:|"
    for v in "${vms[@]}"; do h+=" ${vm_label[$v]} ms |"; s+="---:|"; done
    for pr in "${shown_pairs[@]}"; do
        id=$(pair_id "$pr")
        h+=" ${vm_label[${pr% *}]} / ${vm_label[${pr#* }]} |"
        s+="---:|"
    done
    echo "$h"
    echo "$s"
    for ((b = 0; b < nb; b++)); do
        l="| ${bnames[b]} | ${binner[b]} |"
        for v in "${vms[@]}"; do l+=" $(mdcell "${med[$b,$v]}") |"; done
        for pr in "${shown_pairs[@]}"; do
            x=${rat[$b,$(pair_id "$pr")]}
            l+=" ${x/null/-} |"
        done
        echo "$l"
    done
    if ((${#shown_pairs[@]})); then
        l="| **geomean** | |"
        for v in "${vms[@]}"; do l+=" |"; done
        for pr in "${shown_pairs[@]}"; do
            id=$(pair_id "$pr")
            if [[ ${geo[$id]} == null ]]; then l+=" - |"; else l+=" **${geo[$id]}** |"; fi
        done
        echo "$l"
    fi
    if ((curves)); then
        echo
        echo "| benchmark | VM | first ms | warm ms | last ms | drift | max RSS MB |"
        echo "|---|---|---:|---:|---:|---:|---:|"
        for ((b = 0; b < nb; b++)); do
            for v in "${vms[@]}"; do
                [[ -n ${cur_stats[$b,$v]:-} ]] || continue
                read -r cf cw cl cd <<<"${cur_stats[$b,$v]}"
                echo "| ${bnames[b]} | ${vm_label[$v]} | $(mdcell "$cf") | $(mdcell "$cw") | $(mdcell "$cl") | $cd % | $(max_mb "${rss[$b,$v]:-}") |"
            done
        done
    fi
} >"$out/results.md"

# ---- results.json ------------------------------------------------------------------------------------
json_iters() {  # B V: the processes' iteration lists (us), an array of arrays
    local s="[" first=1 one
    local IFS=';'
    for one in ${itl[$1,$2]:-}; do
        ((first)) || s+=", "
        first=0
        s+=$(IFS=' ' json_array "$one")
    done
    echo "$s]"
}
json_ms() {  # a list of us values as a JSON array of ms
    awk -v list="$1" 'BEGIN {
        n = split(list, v, " "); s = "["
        for (i = 1; i <= n; i++) s = s (i > 1 ? ", " : "") sprintf("%.3f", v[i] / 1000)
        print s "]"
    }'
}
json_num() { if [[ $1 =~ ^[0-9.+-]+$ ]]; then echo "$1"; else echo null; fi; }
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
dirty=false
[[ -n $(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null) ]] && dirty=true
{
    printf '{\n'
    printf '  "date": "%s", "wall_seconds": %s,\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$secs"
    printf '  "machine": {"cpu": "%s", "nproc": %s, "kernel": "%s", "loadavg_at_start": "%s", "loadavg_at_end": "%s",\n' \
        "$(jstr "$cpu")" "$(nproc 2>/dev/null || echo 0)" "$(jstr "$(uname -sr)")" "$(jstr "$load_start")" "$(jstr "$load_end")"
    printf '              "load_1min_at_process_starts": %s},\n' "$(json_array "$loads")"
    printf '  "git": {"commit": "%s", "dirty": %s},\n' "$(jstr "$commit")" "$dirty"
    printf '  "runs": %d, "quick": %s, "curves": %s,\n' "$runs" "$( ((quick)) && echo true || echo false)" "$( ((curves)) && echo true || echo false)"
    printf '  "vms": [\n'
    sep=""
    for v in "${vms[@]}"; do
        printf '%s    {"id": "%s", "label": "%s", "outer": %d, "warmup": %d, "version": "%s", "skipped": "%s"%s}' \
            "$sep" "$v" "${vm_label[$v]}" "$(vm_outer "$v")" "$(vm_warm "$v")" "$(jstr "${vm_version[$v]:-}")" \
            "$(jstr "${skip[$v]:-}")" "${lua_clock[$v]:+, \"lua_clock\": \"${lua_clock[$v]}\"}"
        sep=$',\n'
    done
    printf '\n  ],\n'
    printf '  "benchmarks": [\n'
    sep=""
    for ((b = 0; b < nb; b++)); do
        printf '%s    {"name": "%s", "inner": %s, "ratios": {' "$sep" "${bnames[b]}" "${binner[b]}"
        s2=""
        for pr in "${shown_pairs[@]}"; do
            id=$(pair_id "$pr")
            printf '%s"%s": %s' "$s2" "$id" "${rat[$b,$id]}"
            s2=", "
        done
        printf '},\n     "vms": {\n'
        s2=""
        for v in "${vms[@]}"; do
            m=${med[$b,$v]}
            st=ok
            case $m in FAILED) st=failed ;; skipped) st=skipped ;; esac
            printf '%s       "%s": {"status": "%s", "median_ms_per_iteration": %s, "runs_ms_per_iteration": %s,\n' \
                "$s2" "$v" "$st" "$(json_num "$m")" "$(json_ms "${vals[$b,$v]:-}")"
            rl=${rss[$b,$v]:-}
            printf '              "max_rss_kb": %s, "failure": "%s", "iterations_us": %s' \
                "$(json_array "${rl//null/}")" "$(jstr "${bad[$b,$v]:-}")" "$(json_iters "$b" "$v")"
            if [[ -n ${cur_stats[$b,$v]:-} ]]; then
                read -r cf cw cl cd <<<"${cur_stats[$b,$v]}"
                printf ',\n              "curve": {"first_ms": %s, "warm_ms": %s, "last_ms": %s, "drift_pct": %s}' \
                    "$(json_num "$cf")" "$(json_num "$cw")" "$(json_num "$cl")" "$(json_num "${cd#+}")"
            fi
            printf '}'
            s2=$',\n'
        done
        printf '\n     }}'
        sep=$',\n'
    done
    printf '\n  ],\n'
    printf '  "geomean": {'
    s2=""
    for pr in "${shown_pairs[@]}"; do
        id=$(pair_id "$pr")
        printf '%s"%s": {"value": %s, "count": %s}' "$s2" "$id" "${geo[$id]}" "${geon[$id]}"
        s2=", "
    done
    printf '}\n}\n'
} >"$out/results.json"
echo "wrote ${out#"$root"/}/results.json and ${out#"$root"/}/results.md; $k processes in $secs s"
exit "$failed"
