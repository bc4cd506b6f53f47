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
# Row `awfy` (not run by default): the first iteration of each AWFY
# benchmark at the suite's standard size (bench/awfy-sizes.txt), as its
# harness prints it (one outer iteration, start-up and compiles of that
# iteration included, the VM's own start not), in HotSpot (the suite's
# Java code, bench/peers/awfy, compiled by javac into build/peers/java)
# and in tally with no cache, a cold and a warm one; per benchmark the
# medians of the rounds and warm / HotSpot, then geometric means.
# Usage: bench/startup.sh [--runs=N] [ROW...]   (default 5 rounds; rows:
#        fib nbody spectralnorm mandelbrot fannkuch; and awfy)
# Environment: TALLY (default bin/tally), JAVA, JAVAC, JAVA_CLASSES (the
# compiled Java suite, default build/peers/java).
set -u
RUNS=5
ROWS=()
for a in "$@"; do
    case $a in
        --runs=*) RUNS=${a#--runs=} ;;
        --help | -h) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
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

# median ms of the compiled lines' compile + assemble and of the preloaded
# lines' load (--log=jit) of one run
latency() {
    "$@" 2>&1 >/dev/null | grep -oE 'compile=[0-9]+us assemble=[0-9]+us|preloaded [^ ]+ load=[0-9]+us' |
        sed 's/preloaded [^ ]* //' | tr -dc '0-9 \n' | awk '{print ($1 + $2) / 1000}' | median
}

# the first iteration (ms) a harness printed in $D/out ("" if none)
first_ms() { awk '/: iterations=1 runtime: [0-9.]+us$/ { v = $NF; sub(/us$/, "", v); printf "%.1f\n", v / 1000; exit }' "$D/out"; }

# the awfy row: see the header
awfy() {
    local java=${JAVA:-java} javac=${JAVAC:-javac} classes=${JAVA_CLASSES:-build/peers/java} name inner
    if ! command -v "$java" >/dev/null || ! command -v "$javac" >/dev/null; then
        echo "startup.sh: awfy: no $java or $javac (tools/setup.sh peers)" >&2
        return 1
    fi
    if [[ ! -f $classes/Harness.class ]]; then
        mkdir -p "$classes"
        find bench/peers/awfy/Java/src -name '*.java' -print0 | xargs -0 "$javac" -nowarn -d "$classes" >/dev/null 2>&1 ||
            { echo "startup.sh: awfy: javac failed" >&2; return 1; }
    fi
    printf '\n| benchmark | inner | HotSpot ms | no cache ms | cold ms | warm ms | no cache / HotSpot | warm / HotSpot |\n'
    printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
    local rn="" rw=""
    while read -r name inner _; do
        local warm="$D/awfy-warm-$name" P=(run "bench/awfy/$name.tl" 1 "$inner") st=0
        for _ in 1 2 3; do "$T" -X jit.cache="$warm" "${P[@]}" >/dev/null 2>&1; done
        declare -A ms=()
        for ((r = 1; r <= RUNS; r++)); do
            timed "$java" -cp "$classes" Harness "$name" 1 "$inner" >/dev/null
            ms[java]+=" $(first_ms)"
            timed "$T" "${P[@]}" >/dev/null
            ms[none]+=" $(first_ms)"
            rm -rf "$D/cold"
            timed "$T" -X jit.cache="$D/cold" "${P[@]}" >/dev/null
            ms[cold]+=" $(first_ms)"
            timed "$T" -X jit.cache="$warm" "${P[@]}" >/dev/null
            ms[warm]+=" $(first_ms)"
            echo "startup: $name round $r/$RUNS: HotSpot${ms[java]##* } none${ms[none]##* } cold${ms[cold]##* } warm${ms[warm]##* } ms" >&2
        done
        for c in java none cold warm; do
            (($(wc -w <<<"${ms[$c]}") == RUNS)) || { echo "startup.sh: $name: a $c run printed no iteration" >&2; st=1; }
        done
        ((st == 0)) || { status=1; unset ms; continue; }
        local mj mn mc mw
        mj=$(median <<<"${ms[java]}") mn=$(median <<<"${ms[none]}") mc=$(median <<<"${ms[cold]}") mw=$(median <<<"${ms[warm]}")
        printf '| %s | %s | %s | %s | %s | %s | %.2f | %.2f |\n' "$name" "$inner" "$mj" "$mn" "$mc" "$mw" \
            "$(echo "$mn / $mj" | bc -l)" "$(echo "$mw / $mj" | bc -l)"
        rn+="$(echo "$mn / $mj" | bc -l)"$'\n' rw+="$(echo "$mw / $mj" | bc -l)"$'\n'
        unset ms
    done < <(grep -v '^#' bench/awfy-sizes.txt | grep .)
    printf '\ngeometric mean, first iteration / HotSpot: no cache %s, warm cache %s\n' \
        "$(awk '$1 > 0 { s += log($1); n++ } END { if (n) printf "%.2f", exp(s / n) }' <<<"$rn")" \
        "$(awk '$1 > 0 { s += log($1); n++ } END { if (n) printf "%.2f", exp(s / n) }' <<<"$rw")"
}

status=0
AWFY=0 head=0
for row in "${ROWS[@]}"; do
    [[ $row == awfy ]] && { AWFY=1; continue; }
    [[ -n ${SIZE[$row]:-} ]] || { echo "startup.sh: unknown row $row" >&2; exit 2; }
    if ((!head++)); then
        printf '| row | size | reference ms | no cache ms | cold ms | warm ms | warm / reference | cold compile ms | warm load ms |\n'
        printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'
    fi
    read -r -a P <<<"$(prog "$row")"
    read -r -a R <<<"$(ref "$row")"
    warm="$D/warm-$row"
    for _ in 1 2 3; do "$T" -X jit.cache="$warm" run "${P[@]}" >/dev/null 2>&1; done
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
((AWFY)) && { awfy || status=1; }
exit $status
