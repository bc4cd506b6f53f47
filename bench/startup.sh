#!/usr/bin/env bash
# bench/startup.sh — short runs with a cold and a warm code cache
# (-X jit.cache, docs/design.md#the-code-cache): whole-process wall time,
# start-up and compiles included.
#
# Rows: fib(32) (examples/fib.tl) against the interpreter; the CLBG
# kernels at sizes where their C twins (gcc -O2) take about 0.3 s, against
# those twins.  Configurations, interleaved in each round: the reference
# (the interpreter, or the C twin), tally with no cache, with a cold cache
# (emptied before the run: the run fills it) and with a warm one (filled
# by three runs before the rounds: a method compiled at another point of
# its profile is other code, under another key, so one run may not have
# stored what the next asks for).  Every tally run's output must equal the
# reference's.
# Output: a progress line per round on stderr; on stdout a table of median
# ms per configuration and the ratios to the reference.  The compile
# latency of cold and warm runs comes from --log=jit (median ms of the
# compiled lines' compile + assemble, one run each).
# Usage: bench/startup.sh [--runs=N] [ROW...]   (default 5 rounds; rows:
#        fib nbody spectralnorm mandelbrot fannkuch)
# Environment: TALLY (default bin/tally).
set -u
RUNS=5
ROWS=()
for a in "$@"; do
    case $a in
        --runs=*) RUNS=${a#--runs=} ;;
        --help | -h) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "startup.sh: unknown option $a" >&2; exit 2 ;;
        *) ROWS+=("$a") ;;
    esac
done
[[ ${#ROWS[@]} -gt 0 ]] || ROWS=(fib nbody spectralnorm mandelbrot fannkuch)
T=${TALLY:-bin/tally}
[[ -x $T ]] || { echo "startup.sh: $T not built (make)" >&2; exit 2; }
bash bench/kernels/kernels.sh --build >/dev/null || { echo "startup.sh: the C twins do not build" >&2; exit 2; }
D=$(mktemp -d /tmp/tally-startup.XXXXXX)
trap 'rm -rf "$D"' EXIT

declare -A SIZE=([fib]=32 [nbody]=3000000 [spectralnorm]=2000 [mandelbrot]=2000 [fannkuch]=10)

# the row's program and arguments; its reference command
prog() { [[ $1 == fib ]] && echo "examples/fib.tl ${SIZE[fib]}" || echo "bench/kernels/$1.tl ${SIZE[$1]}"; }
ref() { [[ $1 == fib ]] && echo "$T --jit=off run examples/fib.tl ${SIZE[fib]}" || echo "build/kernels/$1 ${SIZE[$1]}"; }

# ms of one run of the command; its stdout (fib: without the time line) in $D/out
timed() {
    local s e
    s=$(date +%s%N)
    "$@" 2>/dev/null | grep -v '^time: ' >"$D/out"
    e=$(date +%s%N)
    echo $(((e - s) / 1000000))
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# median ms of the compiled lines' compile + assemble (--log=jit) of one run
latency() {
    "$@" 2>&1 >/dev/null | grep -o 'compile=[0-9]*us assemble=[0-9]*us' | tr -dc '0-9 \n' |
        awk '{print ($1 + $2) / 1000}' | median
}

status=0
printf '| row | size | reference ms | no cache ms | cold ms | warm ms | warm / reference | cold compile ms | warm load ms |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for row in "${ROWS[@]}"; do
    [[ -n ${SIZE[$row]:-} ]] || { echo "startup.sh: unknown row $row" >&2; exit 2; }
    read -r -a P <<<"$(prog "$row")"
    read -r -a R <<<"$(ref "$row")"
    warm="$D/warm-$row"
    for k in 1 2 3; do "$T" -X jit.cache="$warm" run "${P[@]}" >/dev/null 2>&1; done
    declare -A ms=()
    for ((r = 1; r <= RUNS; r++)); do
        ms[ref]+=" $(timed "${R[@]}")"
        cp "$D/out" "$D/want"
        ms[none]+=" $(timed "$T" run "${P[@]}")"
        cmp -s "$D/want" "$D/out" || { echo "startup.sh: $row: output differs (no cache)" >&2; status=1; }
        rm -rf "$D/cold"
        ms[cold]+=" $(timed "$T" -X jit.cache="$D/cold" run "${P[@]}")"
        cmp -s "$D/want" "$D/out" || { echo "startup.sh: $row: output differs (cold)" >&2; status=1; }
        ms[warm]+=" $(timed "$T" -X jit.cache="$warm" run "${P[@]}")"
        cmp -s "$D/want" "$D/out" || { echo "startup.sh: $row: output differs (warm)" >&2; status=1; }
        echo "startup: $row round $r/$RUNS: ref${ms[ref]##* } none${ms[none]##* } cold${ms[cold]##* } warm${ms[warm]##* } ms" >&2
    done
    rm -rf "$D/cold"
    lc=$(latency "$T" --log=jit -X jit.cache="$D/cold" run "${P[@]}")
    lw=$(latency "$T" --log=jit -X jit.cache="$warm" run "${P[@]}")
    mr=$(median <<<"${ms[ref]}") mn=$(median <<<"${ms[none]}") mc=$(median <<<"${ms[cold]}") mw=$(median <<<"${ms[warm]}")
    printf '| %s | %s | %s | %s | %s | %s | %.2f | %s | %s |\n' "$row" "${SIZE[$row]}" "$mr" "$mn" "$mc" "$mw" \
        "$(echo "$mw / $mr" | bc -l)" "$lc" "$lw"
    unset ms
done
exit $status
