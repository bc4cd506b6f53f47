#!/usr/bin/env bash
# bench/where.sh — where an AWFY benchmark's time goes in tally: compiled
# code, the interpreter, allocation, the collector's marking and eager
# sweep, the rest of the runtime, the kernel.
#
# Input: benchmark names (default: the object-heavy ones), each run once as
# `bin/tally --stats=… run bench/awfy/NAME.tl ITERATIONS INNER` under
# `perf record` (cpu-clock samples, the program's thread `tally-run` only:
# the compile thread's gcc is not the program's time).
# Output: one row per benchmark: the program thread's CPU ms per iteration
# and its shares in percent; also as JSON (--json FILE).
# How the shares are made:
#   compiled   samples in loaded units (dso unit.so)
#   interp     samples in vm_interp_entry (methods not compiled yet, or never)
#   mark       the collector's marking, timed by its own events
#              (--stats gc.mark_us: GC_EVENT_MARK_START..END)
#   sweep      the sweep's eager part at the end of a collection (gc.reclaim_us)
#   alloc      allocation: tally's allocation functions, and the collector's
#              and its lock's samples less mark and sweep (what remains of
#              them is refilling free lists and the lazy sweep)
#   runtime    the rest of bin/tally and libc (helpers, string and array
#              copies, dispatch out of compiled code)
#   kernel     page faults and system calls
# The whole run is measured, warm-up included: a benchmark whose methods
# compile late shows it as interpreter time.
# Usage: bench/where.sh [--iterations=N] [--json=FILE] [NAME[=OUTER:INNER]...]
set -u
cd "$(dirname "$0")/.."

iters=10
json=""
names=()
for a in "$@"; do
    case $a in
    --iterations=*) iters=${a#*=} ;;
    --json=*) json=${a#*=} ;;
    -h|--help)
        sed -n '/^# bench/,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0 ;;
    -*) echo "where.sh: unknown option $a (see --help)" >&2; exit 2 ;;
    *) names+=("$a") ;;
    esac
done
[[ $iters =~ ^[1-9][0-9]*$ ]] || { echo "where.sh: --iterations wants a positive integer" >&2; exit 2; }
((${#names[@]})) || names=(Havlak CD DeltaBlue Json Richards Storage List)
command -v perf >/dev/null || { echo "where.sh: needs perf (Debian's linux-perf)" >&2; exit 2; }
T=${TALLY:-bin/tally}
[[ -x $T ]] || { echo "where.sh: $T not built (make all)" >&2; exit 2; }

# the suite's own problem sizes (inner iterations): bench/awfy-sizes.txt
declare -A SIZE
while read -r n inner _; do
    [[ -n $n && $n != \#* ]] && SIZE[$n]=$inner
done <bench/awfy-sizes.txt

for spec in "${names[@]}"; do
    name=${spec%%=*}
    if [[ ! -f bench/awfy/$name.tl || ( -z ${SIZE[$name]:-} && $spec != *=*:* ) ]]; then
        echo "where.sh: no benchmark $name (or no size: give NAME=OUTER:INNER)" >&2
        exit 2
    fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows=()
printf '%-11s %5s %5s %9s  %8s %6s %6s %6s %6s %7s %6s\n' benchmark outer inner "ms/iter" compiled interp alloc mark sweep runtime kernel
for spec in "${names[@]}"; do
    name=${spec%%=*}
    outer=$iters inner=${SIZE[$name]:-}
    if [[ $spec == *=* ]]; then
        outer=${spec#*=}; inner=${outer#*:}; outer=${outer%%:*}
    fi
    echo "where.sh: $name $outer×$inner" >&2
    if ! perf record -q -F 1000 -e cpu-clock -o "$tmp/perf.data" -- \
        "$T" --stats="$tmp/stats.json" run "bench/awfy/$name.tl" "$outer" "$inner" >"$tmp/out" 2>"$tmp/err"; then
        echo "where.sh: $name failed: $(tail -2 "$tmp/err" "$tmp/out" | tr '\n' ' ')" >&2
        exit 1
    fi
    if ! grep -q "iterations=$outer average" "$tmp/out"; then
        echo "where.sh: $name: no result line (result verification failed?)" >&2
        exit 1
    fi
    # samples (1 ms each) by dso and symbol, the program's thread only
    perf report -i "$tmp/perf.data" --comm tally-run --no-children --sort dso,sym -F sample,dso,sym \
        --stdio 2>/dev/null | awk '$1 ~ /^[0-9]+$/' >"$tmp/samples"
    mark=$(grep -o '"mark_us":[0-9]*' "$tmp/stats.json" | cut -d: -f2)
    sweep=$(grep -o '"reclaim_us":[0-9]*' "$tmp/stats.json" | cut -d: -f2)
    row=$(awk -v mark_us="${mark:-0}" -v sweep_us="${sweep:-0}" -v outer="$outer" -v name="$name" -v inner="$inner" '
        {
            n = $1; dso = $2; sym = $NF; total += n
            if (dso ~ /unit\.so/) compiled += n
            else if (dso ~ /kernel/) kernel += n
            else if (dso ~ /libgc/ || sym ~ /pthread_mutex/) gc += n
            else if (sym ~ /^vm_interp/) interp += n
            else if (sym ~ /^(alloc|alloc_atomic_raw|fl_pop|new_object|new_array|vm_alloc|vm_new_|jit_rt_new)/) alloc += n
            else runtime += n
        }
        END {
            if (!total) { print "none"; exit }
            mark = mark_us / 1000; sweep = sweep_us / 1000
            # collections run on the allocating thread (gc.markers=1): their
            # samples are among the collector'\''s; the rest of those is allocation
            rest = gc - mark - sweep; if (rest < 0) rest = 0
            alloc += rest
            p = 100 / total
            printf "%s %d %d %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f\n", name, outer, inner, total / outer,
                compiled * p, interp * p, alloc * p, mark * p, sweep * p, runtime * p, kernel * p
        }' "$tmp/samples")
    if [[ $row == none ]]; then
        echo "where.sh: $name: perf recorded no samples of the program thread (perf_event_paranoid?)" >&2
        exit 1
    fi
    read -r n o i ms c ip al mk sw rt k <<<"$row"
    printf '%-11s %5s %5s %9s  %7s%% %5s%% %5s%% %5s%% %5s%% %6s%% %5s%%\n' "$n" "$o" "$i" "$ms" "$c" "$ip" "$al" "$mk" "$sw" "$rt" "$k"
    rows+=("{\"benchmark\":\"$n\",\"outer\":$o,\"inner\":$i,\"ms_per_iteration\":$ms,\"compiled\":$c,\"interp\":$ip,\"alloc\":$al,\"mark\":$mk,\"sweep\":$sw,\"runtime\":$rt,\"kernel\":$k}")
done
if [[ -n $json ]]; then
    { printf '{"commit":"%s","iterations":%s,"benchmarks":[' "$(git rev-parse --short HEAD 2>/dev/null)" "$iters"
      (IFS=,; printf '%s' "${rows[*]}"); printf ']}\n'; } >"$json.tmp" && mv "$json.tmp" "$json"
fi
