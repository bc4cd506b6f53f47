#!/usr/bin/env bash
# tests/faults.sh DIR — the fault matrix: every point of
# vm/faults.def made to fail (-X vm.faults=POINT) under the interpreter,
# the JIT (every method compiled) and the auditor (the audit tier of
# tests/tiers.sh), with --stats; then signals during a run on each tier.  Prints one
# "PASS name" or "FAIL name: why" line per check.
#
# On the audit tier a point fails every second time (POINT:2), so that
# methods compile and their bakeoffs' compiles are the ones that fail
# (the output file's write still fails every time).
# What must hold for each point × tier:
# - stdout and the exit status are the fault-free run's; a failed write of
#   the stats file is the exception: it ends with status 2 and "No space
#   left on device", and the file keeps its previous, complete version;
# - the stats file is one valid JSON document that counts the injected
#   faults (faults_injected), and on the JIT and audit tiers every point
#   is reached (its count is not 0) and said on stderr;
# - SIGTERM and SIGINT leave a valid final stats file (status 143, 130);
#   kill -9 leaves the last periodic one, valid.
set -u
D=${1:-/tmp/tally-faults}
source tests/tiers.sh   # $B (TALLY_BIN), AUDIT_TIER
mkdir -p "$D"
J=build/jsoncheck
PROG=("$D/prog.tl")
# calls and loops that get compiled, output that does not depend on time
cat >"$D/prog.tl" <<'EOF'
fn sq(x: int): int { return x * x; }
fn sum(n: int): int {
    var s = 0;
    for i in 0..n { s = s + sq(i) % 7; }
    return s;
}
fn main() {
    for k in 0..40 { println(sum(2000 + k)); }
}
EOF

declare -A TIER=([interp]="$B/tally --jit=off" [jit]="$B/tally --jit=eager" [audit]="$AUDIT_TIER")
# what a point's failure says on stderr (--log=jit,audit)
declare -A SAYS=([compile]="injected failure (vm.faults=compile)" [assemble]="injected failure (vm.faults=assemble)"
    [link]="injected failure (vm.faults=link)" [dlopen]="injected failure (vm.faults=dlopen)"
    [alloc]="out of memory building IR" [thread]="warning: cannot start" [write]="No space left on device")
points=$(sed -n 's/^FAULT([A-Z_]*, *"\([a-z]*\)".*/\1/p' vm/faults.def)
[[ -n $points ]] || echo "FAIL faults-table: no FAULT rows in vm/faults.def"

# injected POINT FILE: the count of POINT in the file's faults_injected
injected() { grep -o "\"faults_injected\":{[^}]*}" "$2" | grep -o "\"$1\":[0-9]*" | cut -d: -f2; }

for tier in interp jit audit; do
    # shellcheck disable=SC2086
    timeout 120 ${TIER[$tier]} run "${PROG[@]}" >"$D/ref.out" 2>/dev/null </dev/null
    ref_st=$?
    for p in $points; do
        # the code cache is off here; tests/cache.sh makes its writes fail
        [[ $p == cache ]] && continue
        name=fault-$p-$tier
        printf '{"previous":true}\n' >"$D/s.json"
        spec=$p
        [[ $tier == audit && $p != write ]] && spec=$p:2
        # shellcheck disable=SC2086
        timeout 120 ${TIER[$tier]} --log=jit,audit -X vm.faults=$spec --stats="$D/s.json" run "${PROG[@]}" \
            >"$D/out" 2>"$D/err" </dev/null
        st=$?
        n=$(injected "$p" "$D/s.json")
        if ! cmp -s "$D/ref.out" "$D/out"; then
            echo "FAIL $name: stdout differs: $(diff "$D/ref.out" "$D/out" | head -3 | tr '\n' ' ')"
        elif [[ $p == write ]]; then
            if [[ $st != 2 ]] || ! grep -qF "${SAYS[$p]}" "$D/err"; then
                echo "FAIL $name: status $st (want 2) or no '${SAYS[$p]}': $(tail -1 "$D/err")"
            elif [[ $(cat "$D/s.json") != '{"previous":true}' ]]; then
                echo "FAIL $name: the previous stats file was not kept: $(head -c 80 "$D/s.json")"
            elif compgen -G "$D/s.json.tmp*" >/dev/null; then
                echo "FAIL $name: a temporary file is left behind"
            else
                echo "PASS $name"
            fi
        elif [[ $st != "$ref_st" ]]; then
            echo "FAIL $name: status $st, want $ref_st: $(grep -v '^\[' "$D/err" | head -2 | tr '\n' ' ')"
        elif ! "$J" "$D/s.json" >"$D/jc" 2>&1; then
            echo "FAIL $name: $(cat "$D/jc")"
        elif [[ -z $n ]]; then
            echo "FAIL $name: no faults_injected count for $p in the stats file"
        elif [[ $tier != interp || $p == thread ]] && ((n == 0)); then
            echo "FAIL $name: the point was never reached (faults_injected $p = 0)"
        elif ((n > 0)) && ! grep -qF "${SAYS[$p]}" "$D/err"; then
            echo "FAIL $name: $n injected but nothing says '${SAYS[$p]}'"
        else
            echo "PASS $name"
        fi
    done
done

# The compile thread of the background JIT (--jit=on) cannot start: the
# program runs interpreted, with the same output.
$B/tally --jit=off run "${PROG[@]}" >"$D/ref.out" 2>/dev/null </dev/null
$B/tally -X vm.faults=thread run "${PROG[@]}" >"$D/out" 2>"$D/err" </dev/null
st=$?
if [[ $st != 0 ]] || ! cmp -s "$D/ref.out" "$D/out"; then
    echo "FAIL fault-thread-jit-on: status $st or stdout differs"
elif ! grep -q "running without the JIT" "$D/err"; then
    echo "FAIL fault-thread-jit-on: no warning: $(head -1 "$D/err")"
else
    echo "PASS fault-thread-jit-on"
fi

# The time limit's watchdog cannot start: the program is not run without
# the limit it asked for.
$B/tally -X vm.max_time=60 -X vm.faults=thread --jit=off run "${PROG[@]}" >"$D/out" 2>"$D/err" </dev/null
st=$?
if [[ $st == 2 && ! -s $D/out ]] && grep -q "does not run without its time limit" "$D/err"; then
    echo "PASS fault-thread-watchdog"
else
    echo "FAIL fault-thread-watchdog: status $st, stdout $(wc -c <"$D/out") bytes: $(head -1 "$D/err")"
fi

# Signals while main loops (in compiled code on the JIT and audit tiers).
printf 'fn main() {\n    var s = 0;\n    for i in 0..4000000000 { s = s + i %% 3; }\n    println(s);\n}\n' >"$D/long.tl"
for tier in jit audit; do
    for sig in TERM INT KILL; do
        name=fault-sig$sig-$tier
        rm -f "$D/sig.json"
        # job control on, or bash starts the background job with SIGINT
        # ignored; env restores SIGINT where the suite itself was started
        # with it ignored (a background job), which tally rightly keeps
        st=$(bash -c 'set -m
            env --default-signal=INT $1 run --stats="$2" "$3" >/dev/null 2>&1 </dev/null &
            pid=$!
            for ((k = 0; k < 300; k++)); do [[ -s $2 ]] && break; sleep 0.1; done
            # KILL: after a periodic rewrite or two; TERM, INT: the final
            # write must bring the file back
            if [[ $4 == KILL ]]; then sleep 1.5; else rm -f "$2"; fi
            kill -$4 $pid
            wait $pid
            echo $?' _ "${TIER[$tier]}" "$D/sig.json" "$D/long.tl" "$sig" 2>/dev/null)
        want=$((128 + $(kill -l "$sig")))
        if [[ $st != "$want" ]]; then
            echo "FAIL $name: status '$st', want $want"
        elif ! "$J" "$D/sig.json" >"$D/jc" 2>&1; then
            echo "FAIL $name: $(cat "$D/jc")"
        else
            echo "PASS $name"
        fi
    done
done
