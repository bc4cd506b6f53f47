#!/usr/bin/env bash
# tests/cli.sh DIR — the `tally` command's behaviour: help, version, bad
# usage (exit 2 with a suggestion), load errors, outputs never half-written,
# --stats, --sandbox and its limits.  Prints one "PASS name" or "FAIL name: why" line per check.
set -u
D=${1:-/tmp/tally-cli}
mkdir -p "$D"
# TALLY_BIN: the directory of the tally to test (tests/sanitize.sh points
# it at a sanitized build); TALLY_TIMEOUT_SCALE multiplies the waits
T=${TALLY_BIN:-bin}/tally
SCALE=${TALLY_TIMEOUT_SCALE:-1}

# excerpt FILE: what a failing check shows of its output: the first two
# lines, or of an audit log (--log=audit) the bakeoffs' events past
# "queued", which say how each one ended
excerpt() {
    if grep -qE 'audit: (deferred|compiled|failed|decided|cut)' "$1"; then
        grep -E 'audit: (deferred|compiled|sampling|failed|decided|cut|timeout)' "$1" | head -6
    else
        head -2 "$1"
    fi
}

source tests/check.sh

# check_timed NAME WANT_STATUS WANT_TEXT -- command...: as check, for a
# run whose outcome hangs on this machine's timings (a probe reading
# against a threshold set from an earlier run, a call rate): passes when
# one of three runs does.  A broken feature fails all three.
check_timed() {
    local name=$1 i
    for i in 1 2 3; do
        check "$@" >"$D/check" || true
        if grep -q '^PASS' "$D/check"; then cat "$D/check"; return; fi
    done
    echo "$(cat "$D/check") (3 runs)"
}

# lowest_reading FILE: the lowest probe reading of method a in an audit
# log: what its deferred or compiled line says (probe=Ncycles) or the
# probe's own too-cheap verdict (reads N cycles); empty if none
lowest_reading() {
    sed -n 's/.*audit: [a-z]* #[0-9]* a client=aa.* \(probe=\|reads \)\([0-9]*\) *cycles.*/\2/p' "$1" |
        sort -n | head -1
}

# probe_lowest N command...: the lowest lowest_reading over N runs of the
# command (which sets research.defer=0 and audit.min_cycles=0); empty if no
# run read one
probe_lowest() {
    local n=$1 i
    shift
    for ((i = 0; i < n; i++)); do
        "$@" >"$D/probe.out" 2>&1 </dev/null
        lowest_reading "$D/probe.out"
    done | sort -n | head -1
}

cat >"$D/ok.tla" <<'EOF'
native println_int (int) : void = builtin "println_int"
main main
method main () : void static
  regs int
  LDI r0, 42
  CALLN _, r0, println_int
  RETV
end
EOF
printf 'main main\nmethod main () : void static\n  BOGUS r0\nend\n' >"$D/bad.tla"

check help 0 "vm.hot_threshold" -- $T --help=tunables
check help-lists-commands 0 "tally [options] run FILE" -- $T --help
check help-points-to-tunables 0 "--help=tunables" -- $T --help
check help-cache-command 0 "cache stats|clear" -- $T --help
# the tunables' listing and docs/tunables.md come from the same rows: the
# page is what the rows generate today, and every listed name is on it
check help-tunables-owners 0 "research.paired" -- $T --help=tunables
check help-topic-bad 2 "unknown help topic 'bogus'" -- $T --help=bogus
check tunable-range 2 "tunable 'audit.concurrent' must be in 1..16 (bakeoffs), got 0" -- $T -X audit.concurrent=0 run "$D/ok.tla"
check tunable-current-value 0 "audit.burst                int     = 8  (default 4)" -- $T -X audit.burst=8 --help=tunables
if bash tools/tunables-doc.sh "$T" | diff -q - docs/tunables.md >/dev/null; then
    echo "PASS tunables-doc-generated"
else
    echo "FAIL tunables-doc-generated: docs/tunables.md differs from the rows (make docs)"
fi
missing=$($T --help=tunables | sed -n 's/^  \([a-z_]*\.[a-z_]*\) .*/\1/p' | while read -r n; do
    grep -qF "\`$n\`" docs/tunables.md || echo "$n"; done)
if [[ -z $missing && $($T --help=tunables | grep -c '^  [a-z]') -gt 60 ]]; then
    echo "PASS tunables-doc-lists-all"
else
    echo "FAIL tunables-doc-lists-all: not in docs/tunables.md: $missing"
fi
check version 0 "tally 0." -- $T --version
check no-command 2 "usage:" -- $T
check unknown-command 2 "did you mean 'run'" -- $T rn x.tla
check unknown-option 2 "did you mean '--stats'" -- $T --stat=x.json run "$D/ok.tla"
check unknown-tunable 2 "did you mean 'vm.hot_threshold'" -- $T -X vm.hot_treshold=5 run "$D/ok.tla"
check bad-tunable-value 2 "expects an integer" -- $T -X vm.hot_threshold=abc run "$D/ok.tla"
check tunable-size 0 "42" -- $T -X gc.max_heap=512M run "$D/ok.tla"
check tunable-after-command 0 "42" -- $T run -X vm.hot_threshold=2 "$D/ok.tla"
check missing-file 2 "No such file" -- $T run "$D/nope.tla"
check not-a-module 2 "not a tally module" -- $T run /etc/hostname
printf 'fn main() {\n    let x: int = "s";\n}\n' >"$D/typeerr.tl"
printf 'fn main() { println(6 * 7); }\n' >"$D/good.tl"
check source-missing 2 "cannot read" -- $T run "$D/x.tl"
check source-type-error 2 "typeerr.tl:2:18: error: type mismatch" -- $T run "$D/typeerr.tl"
check build-type-error 2 "typeerr.tl:2:18:" -- $T build "$D/typeerr.tl" -o "$D/typeerr.tlb"
[[ -e $D/typeerr.tlb ]] && echo "FAIL build-error-writes-nothing" || echo "PASS build-error-writes-nothing"
check build-ok 0 "" -- $T build "$D/good.tl" -o "$D/good.tlb"
check run-built 0 "42" -- $T run "$D/good.tlb"
check run-source 0 "42" -- $T run "$D/good.tl"
# vm.max_steps: interpreted calls + back edges end in a run-time error
printf 'fn main() {\n    var i = 0;\n    while true { i = i + 1; }\n}\n' >"$D/forever.tl"
check steps-loop 1 "error: step budget exhausted: 100000 interpreted calls and back edges" -- $T run --jit=off -X vm.max_steps=100000 "$D/forever.tl"
check steps-loop-line 1 "at main ($D/forever.tl:3)" -- $T run --jit=off -X vm.max_steps=100000 "$D/forever.tl"
check steps-calls 1 "at fib (" -- $T run --jit=off -X vm.max_steps=5000 examples/fib.tl 25
check steps-enough 0 "fib(15) = 610" -- $T run --jit=off -X vm.max_steps=5000 examples/fib.tl 15
check dis-source 0 "CALLN _, r" -- $T dis "$D/good.tl"
check build-needs-output 2 "-o" -- $T build "$D/good.tl"
check asm-error-line 2 "bad.tla:3:" -- $T asm "$D/bad.tla" -o "$D/bad.tlb"
[[ -e $D/bad.tlb ]] && echo "FAIL asm-error-writes-nothing" || echo "PASS asm-error-writes-nothing"
check asm-needs-output 2 "-o" -- $T asm "$D/ok.tla"
check asm-ok 0 "" -- $T asm "$D/ok.tla" -o "$D/ok.tlb"
check run-tlb 0 "42" -- $T run "$D/ok.tlb"
check dis 0 "CALLN _, r0, println_int" -- $T dis "$D/ok.tlb"
head -c 20 "$D/ok.tlb" >"$D/trunc.tlb"
check truncated-tlb 2 "trunc.tlb" -- $T run "$D/trunc.tlb"
check stats 0 "42" -- $T run --stats="$D/s.json" "$D/ok.tla"
if grep -q '"name":"main"' "$D/s.json" 2>/dev/null && grep -q '"calls":1' "$D/s.json"; then
    echo "PASS stats-json"
else
    echo "FAIL stats-json: $(head -c 300 "$D/s.json" 2>&1)"
fi
check dis-source-lines 0 '// 6: println("Hello, world!");' -- $T dis examples/hello.tl

# the JIT's modes and its event log
printf 'fn sq(x: int): int { return x * x; }\nfn main() {\n    var s = 0;\n    for i in 0..10 { s = s + sq(i); }\n    println(s);\n}\n' >"$D/jitloop.tl"
check help-jit 0 "--jit=MODE" -- $T --help
check jit-bogus 2 "unknown JIT mode 'bogus' (one of: off, on, eager, sync)" -- $T --jit=bogus run "$D/ok.tla"
check jit-typo 2 "did you mean 'sync'?" -- $T --jit=snc run "$D/ok.tla"
check jit-empty 2 "unknown JIT mode ''" -- $T --jit= run "$D/ok.tla"
check log-bogus 2 "unknown log topic 'jt' (did you mean 'jit'?" -- $T --log=jt run "$D/ok.tla"
for mode in off on eager sync; do
    check "jit-$mode" 0 "285" -- $T --jit=$mode run "$D/jitloop.tl"
done
# one line per event, each "[<ms>ms] jit: <event> #<id> ...", ids stable
log_lines() {  # log_lines NAME REGEX -- command...: some stderr line matches, none is malformed
    local name=$1 re=$2
    shift 3
    "$@" >"$D/out" 2>"$D/err" </dev/null
    local st=$?
    if [[ $st -ne 0 || $(cat "$D/out") != 285 ]]; then
        echo "FAIL $name: status $st, stdout '$(head -c 100 "$D/out")': $(head -2 "$D/err")"
    elif ! grep -qE "$re" "$D/err"; then
        echo "FAIL $name: no line matches '$re': $(head -3 "$D/err")"
    elif grep -vqE '^\[[0-9]+\.[0-9]{3}ms\] jit: (queued|compiled|failed|dropped|deferred|hastened|summary) ' "$D/err"; then
        echo "FAIL $name: malformed line: $(grep -vE '^\[[0-9]+\.[0-9]{3}ms\] jit: ' "$D/err" | head -2)"
    else
        echo "PASS $name"
    fi
}
# log_then NAME STDOUT FIRST THEN -- command...: the run prints STDOUT, a
# line of its stderr matches FIRST, and that line or a later one THEN
log_then() {
    local name=$1 want=$2 first=$3 then=$4
    shift 5
    "$@" >"$D/out" 2>"$D/err" </dev/null
    local st=$?
    if [[ $st -ne 0 || $(cat "$D/out") != "$want" ]]; then
        echo "FAIL $name: status $st, stdout '$(head -c 40 "$D/out")', stderr: $(head -2 "$D/err")"
    elif ! grep -qE -- "$first" "$D/err"; then
        echo "FAIL $name: no line matches '$first': $(grep -v ' queued ' "$D/err" | head -4 | tr '\n' ' ')"
    elif ! awk -v re="$first" 'found || $0 ~ re { found = 1; print }' "$D/err" | grep -qE -- "$then"; then
        echo "FAIL $name: no line matches '$then' from there on: $(grep -v ' queued ' "$D/err" | head -5 | tr '\n' ' ')"
    else
        echo "PASS $name"
    fi
}
log_lines log-jit-compiled '^\[[0-9]+\.[0-9]{3}ms\] jit: compiled #1 main optset=O2 bytecode=[0-9]+ queue=[0-9]+us ir=[0-9]+us compile=[0-9]+us assemble=[0-9]+us code=[0-9]+B osr@[0-9]+$' \
    -- $T --log=jit --jit=sync -X vm.hot_threshold=2 run "$D/jitloop.tl"
# (main's loop moves to compiled code at once: sq not inlined, so it is called)
log_lines log-jit-compiled-sq '^\[[0-9.]+ms\] jit: compiled #2 sq optset=O2 ' \
    -- $T --log=jit --jit=sync -X vm.hot_threshold=2 -X inline.max_depth=0 run "$D/jitloop.tl"
log_lines log-jit-queued '^\[[0-9.]+ms\] jit: queued #[12] sq prio=[0-9]+$' \
    -- $T --log=jit -X vm.hot_threshold=2 run "$D/jitloop.tl"
log_lines log-jit-summary '^\[[0-9.]+ms\] jit: summary queued=[23] compiled=[0-3] failed=0 dropped=[0-3] units=[0-3] osr_compiled=[01] osr_entries=[01]$' \
    -- $T --log=jit -X vm.hot_threshold=2 -X vm.osr_threshold=2 run "$D/jitloop.tl"
log_lines log-jit-injected '^\[[0-9.]+ms\] jit: failed #1 main: injected failure$' \
    -- $T --log=jit --jit=sync -X vm.hot_threshold=2 -X jit.fail_every=1 run "$D/jitloop.tl"
log_lines log-jit-optset '^\[[0-9.]+ms\] jit: compiled #1 main optset=O3 ' \
    -- $T --log=jit --jit=eager -X jit.optset=O3 run "$D/jitloop.tl"
check log-jit-quiet 0 "" -- $T --jit=sync -X vm.hot_threshold=2 run "$D/jitloop.tl"
# a frame array (52 ints, kept in the frame by escape analysis) is cleared
# by vector stores, not `rep stos` (jit/options.c: -mmemset-strategy);
# a raw option set can still ask for the string instruction
printf 'fn work(n: int): int {\n    var s = 0;\n    for i in 0..n {\n        let a = new int[52];\n        a[i %% 52] = i;\n        s += a[(i * 7) %% 52];\n    }\n    return s;\n}\nfn main() { println(work(1000)); }\n' >"$D/framearr.tl"
check jit-frame-array-vector-clear 0 "19266 rep=0" -- sh -c "echo \$($T --jit=eager -X jit.dump=asm run $D/framearr.tl 2>$D/framearr.asm) rep=\$(grep -c 'rep stos' $D/framearr.asm)"
check jit-frame-array-rep-override 0 "rep stos" -- sh -c "$T --jit=eager -X 'jit.optset=-O2 -mmemset-strategy=rep_8byte:-1:noalign' -X jit.dump=asm run $D/framearr.tl 2>&1 | grep -o 'rep stos' | head -1"
# a hot lambda hastens the method making its closures: sum runs 4 times
# (never hot by its own count) but its lambda 12000 times in Bag.forEach,
# which cannot inline it; sum, compiled at its next call, inlines both
printf 'class Acc { total: int; }\nclass Bag {\n    items: int[];\n    fn forEach(f: fn(int)) {\n        for i in 0..self.items.length { f(self.items[i]); }\n    }\n}\nfn sum(b: Bag): int {\n    let acc = Acc();\n    b.forEach(fn(x: int) { acc.total += x; });\n    return acc.total;\n}\nfn fill(b: Bag) {\n    b.items = new int[3000];\n    for i in 0..3000 { b.items[i] = i; }\n}\nfn main() {\n    let b = Bag();\n    fill(b);\n    var t = 0;\n    for r in 0..4 { t += sum(b); }\n    println(t);\n}\n' >"$D/maker.tl"
log_then jit-hasten-maker 17994000 ' jit: hastened sum: makes hot sum[$]lambda1$' ' jit: compiled #[0-9]+ sum optset=' \
    -- $T --jit=sync --log=jit run "$D/maker.tl"
# a method entered once when it got hot gets OSR code only; its ordinary
# entry is requested when a later call comes back through that OSR code
# (its back edges use up the countdown, so the call itself may not ask)
# (the first call is long enough for its OSR code to arrive during it)
printf 'fn work(n: int): int {\n    var s = 0;\n    for i in 0..n { s = s + i %% 7; }\n    return s;\n}\nfn main() {\n    var t = work(50000000);\n    for k in 0..40 { t = t + work(300000); }\n    println(t);\n}\n' >"$D/again.tl"
log_then log-jit-entry-after-osr 185999877 ' jit: deferred #[0-9]+ work: ' ' jit: queued #[0-9]+ work prio=[0-9]+$' \
    -- $T --log=jit run "$D/again.tl"
# a compile id names one method in every line: twelve methods get hot at
# once (queued while the thread compiles the first), then a loop's OSR
# request outranks them all and moves up the queue
{
    for i in $(seq 1 12); do printf 'fn f%d(x: int): int { return x + %d; }\n' "$i" "$i"; done
    printf 'fn spin(n: int): int { var s = 0; for i in 0..n { s = s + i %% 7; } return s; }\n'
    printf 'fn main() {\n    var s = 0;\n    for i in 0..3 {\n'
    for i in $(seq 1 12); do printf '        s = f%d(s);\n' "$i"; done
    printf '    }\n    s = s + spin(200000);\n    println(s);\n}\n'
} >"$D/ids.tl"
$T --log=jit -X vm.hot_threshold=2 -X vm.osr_threshold=50 run "$D/ids.tl" >"$D/out" 2>"$D/err"
st=$?
ids_bad=$(grep -oE 'jit: [a-z]+ #[0-9]+ [^ :]+' "$D/err" |
    awk '$2 == "queued" { q[$3] = $4; next }
         !($3 in q) { print $2 " " $3 " " $4 " never queued" }
         ($3 in q) && q[$3] != $4 { print $3 " queued as " q[$3] ", " $2 " as " $4 }')
nq=$(grep -c ' jit: queued #' "$D/err")
if [[ $st -ne 0 || $(cat "$D/out") != 600228 ]]; then
    echo "FAIL log-jit-ids: status $st, stdout '$(head -c 40 "$D/out")', stderr: $(head -2 "$D/err")"
elif ((nq < 13)); then
    echo "FAIL log-jit-ids: $nq queued lines, expected 13 or more"
elif [[ -n $ids_bad ]]; then
    echo "FAIL log-jit-ids: $(head -3 <<<"$ids_bad")"
else
    echo "PASS log-jit-ids"
fi
# jit.dump=units keeps each unit's directory (for perf) and names it; the
# loaded object in it has the compiled method's symbol
$T --jit=sync -X vm.hot_threshold=2 -X inline.max_depth=0 -X jit.dump=units run "$D/jitloop.tl" >"$D/out" 2>"$D/err"
st=$?
udirs=$(sed -n 's/^=== jit unit: .*: \(\/.*\)$/\1/p' "$D/err")
if [[ $st -ne 0 || $(cat "$D/out") != 285 || -z $udirs ]]; then
    echo "FAIL jit-dump-units: status $st, stdout '$(head -c 40 "$D/out")', stderr: $(head -2 "$D/err")"
elif ! for u in $udirs; do [[ -f $u/unit.so ]] || exit 1; done; then
    echo "FAIL jit-dump-units: no unit.so in $udirs"
elif ! grep -q 'tj[0-9]*_sq' <(for u in $udirs; do nm -D "$u/unit.so"; done); then
    echo "FAIL jit-dump-units: sq's code not in the kept objects"
else
    echo "PASS jit-dump-units"
fi
for u in $udirs; do [[ $u == */tally-jit-* ]] && rm -rf "$u"; done
[[ -s $D/out && $(cat "$D/out") == 285 ]] && echo "PASS jit-no-log-by-default" || echo "FAIL jit-no-log-by-default: $(head -2 "$D/out")"

# ---- --stats while the program runs, and on signals (docs/stats.md) ----
# Every file must be one valid JSON document: build/jsoncheck (the unit
# tests' strict checker; make test has no python).
J=build/jsoncheck
[[ -x $J ]] && echo "PASS stats-jsoncheck-build" || echo "FAIL stats-jsoncheck-build: make build/jsoncheck"
json_ok() { "$J" "$1" >"$D/jc.out" 2>&1; }
# the interpreter's back-edge count of main (it grows while main loops)
main_backedges() { grep -o '^{"name":"main","calls":[0-9]*,"backedges":[0-9]*' "$1" 2>/dev/null | sed 's/.*"backedges"://'; }
wait_file() {  # wait_file FILE SECONDS: until FILE exists
    local k
    for ((k = 0; k < $2 * 10; k++)); do
        [[ -e $1 ]] && return 0
        sleep 0.1
    done
    return 1
}

if json_ok "$D/s.json"; then echo "PASS stats-valid-json"; else echo "FAIL stats-valid-json: $(cat "$D/jc.out")"; fi
check stats-jit 0 "285" -- $T --jit=sync -X vm.hot_threshold=2 run --stats="$D/s2.json" "$D/jitloop.tl"
if ! json_ok "$D/s2.json"; then
    echo "FAIL stats-layout: $(cat "$D/jc.out")"
elif [[ $(head -1 "$D/s2.json") != '{"version":1,"module":"jitloop","methods":[' ]]; then
    echo "FAIL stats-layout: first line '$(head -1 "$D/s2.json" | head -c 80)'"
elif [[ $(grep -c '^{"name":"' "$D/s2.json") -ne $(grep -o '{"name":"' "$D/s2.json" | wc -l) ]] ||
    ! grep -q '^{"name":"sq","calls":[0-9]*,' "$D/s2.json"; then
    echo "FAIL stats-layout: not one method per line: $(head -c 300 "$D/s2.json")"
else
    echo "PASS stats-layout"
fi
[[ -z $(compgen -G "$D/s2.json.tmp*") ]] && echo "PASS stats-no-tmp" || echo "FAIL stats-no-tmp: $(compgen -G "$D/s2.json.tmp*") left behind"
# the collector's counters: a program that allocates 64 MB in 16-byte
# objects makes the collector run, and every byte is counted
printf 'class P { a: int; init(a: int) { self.a = a; } }\nfn main() {\n    var s = 0;\n    for i in 0..4000000 { let p = P(i); s = s + p.a %% 3; }\n    println(s);\n}\n' >"$D/alloc.tl"
check stats-gc-run 0 "3999999" -- $T --jit=off run --stats="$D/s3.json" "$D/alloc.tl"
gc_line=$(grep -o '"gc":{[^}]*}' "$D/s3.json" 2>/dev/null)
if ! json_ok "$D/s3.json"; then
    echo "FAIL stats-gc: $(cat "$D/jc.out")"
elif [[ ! $gc_line =~ \"collections\":([0-9]+),\"bytes_allocated\":([0-9]+),\"heap_bytes\":([0-9]+),\"collect_ms\":([0-9]+),\"mark_us\":([0-9]+),\"reclaim_us\":([0-9]+) ]]; then
    echo "FAIL stats-gc: no gc member: '$gc_line'"
elif ((BASH_REMATCH[1] < 1 || BASH_REMATCH[2] < 4000000 * 16 || BASH_REMATCH[3] < 1)); then
    echo "FAIL stats-gc: counters too small: '$gc_line'"
elif ((BASH_REMATCH[5] + BASH_REMATCH[6] < 1 || (BASH_REMATCH[5] + BASH_REMATCH[6]) / 1000 > BASH_REMATCH[4] + BASH_REMATCH[1])); then
    # the phases are parts of the collections' time (collect_ms rounds
    # down: at most 1 ms per collection)
    echo "FAIL stats-gc: mark_us + reclaim_us not a part of collect_ms: '$gc_line'"
else
    echo "PASS stats-gc"
fi
# gc.min_alloc: the same 64 MB with at least 32 MB between collections
# takes at most 2 collections (and fewer than without it)
check gc-min-alloc-run 0 "3999999" -- $T --jit=off -X gc.min_alloc=32M run --stats="$D/s4.json" "$D/alloc.tl"
few=$(grep -o '"gc":{"collections":[0-9]*' "$D/s4.json" 2>/dev/null | grep -o '[0-9]*$')
many=$(grep -o '"gc":{"collections":[0-9]*' "$D/s3.json" 2>/dev/null | grep -o '[0-9]*$')
if [[ -n $few && -n $many ]] && ((few >= 1 && few <= 2 && few < many)); then
    echo "PASS gc-min-alloc"
else
    echo "FAIL gc-min-alloc: ${few:-?} collections with gc.min_alloc=32M, ${many:-?} without"
fi
check stats-unwritable 2 "cannot write '/nonexistent-dir/s.json': No such file or directory" -- \
    $T run --stats=/nonexistent-dir/s.json "$D/ok.tla"
[[ $(head -1 "$D/out") == 42 ]] && echo "PASS stats-unwritable-runs" || echo "FAIL stats-unwritable-runs: $(head -2 "$D/out")"

# --stats and -o to what is not a regular file, all made here (never the
# system's /dev): written in place as a stream, never replaced
O=$D/targets
rm -rf "$O" && mkdir -p "$O"
mkfifo "$O/fifo"
cat "$O/fifo" >"$O/fifo.out" &
reader=$!
check stats-fifo 0 "42" -- $T run --stats="$O/fifo" "$D/ok.tla"
wait $reader
if [[ -p $O/fifo ]] && grep -q '"version":1' "$O/fifo.out" && [[ $(grep -c '"version"' "$O/fifo.out") == 1 ]]; then
    echo "PASS stats-fifo-kept"
else
    echo "FAIL stats-fifo-kept: $(ls -l "$O/fifo"), reader got '$(head -c 80 "$O/fifo.out")'"
fi
echo '{}' >"$O/target.json"
ln -s target.json "$O/link"
check stats-symlink 0 "42" -- $T run --stats="$O/link" "$D/ok.tla"
if [[ -L $O/link ]] && grep -q '"version":1' "$O/target.json"; then
    echo "PASS stats-symlink-kept"
else
    echo "FAIL stats-symlink-kept: $(ls -l "$O")"
fi
ln -s nowhere.json "$O/dangling"
check stats-dangling 2 "cannot write '$O/dangling': No such file or directory" -- $T run --stats="$O/dangling" "$D/ok.tla"
[[ ! -e $O/nowhere.json ]] && echo "PASS stats-dangling-not-created" || echo "FAIL stats-dangling-not-created"
check stats-directory 2 "cannot write '$O': it is a directory" -- $T run --stats="$O" "$D/ok.tla"
check stats-stdout 0 '{"version":1,"module":' -- $T run --stats=- "$D/ok.tla"
# a full device of our own (mknod needs root: skipped without it)
if mknod "$O/full" c 1 7 2>/dev/null; then
    check stats-full-device 2 "cannot write '$O/full': No space left on device" -- $T run --stats="$O/full" "$D/ok.tla"
    check asm-full-device 2 "cannot write '$O/full': No space left on device" -- $T asm -o "$O/full" "$D/ok.tla"
    [[ -c $O/full ]] && echo "PASS stats-device-kept" || echo "FAIL stats-device-kept: $(ls -l "$O/full")"
fi
check asm-out-fifo-dir 2 "cannot write '$O': it is a directory" -- $T asm -o "$O" "$D/ok.tla"
[[ -z $(compgen -G "$O/*.tmp*") ]] && echo "PASS outfile-no-tmp" || echo "FAIL outfile-no-tmp: $(ls "$O")"

# A long loop in the interpreter (main's back edges grow): the file appears
# while it runs, is rewritten with growing counters, and is written again
# on SIGTERM (removed just before the signal: it must come back), after
# which tally ends by the signal (status 143).
printf 'fn main() {\n    var s = 0;\n    for i in 0..4000000000 { s = s + i %% 3; }\n    println(s);\n}\n' >"$D/long.tl"
rm -f "$D/long.json" "$D/long.json.tmp"
timeout $((120 * SCALE)) $T --jit=off run --stats="$D/long.json" "$D/long.tl" >"$D/long.out" 2>&1 </dev/null &
pid=$!
if ! wait_file "$D/long.json" $((20 * SCALE)); then
    echo "FAIL stats-periodic: no file after $((20 * SCALE)) s while the program runs"
    kill -KILL $pid 2>/dev/null
    wait $pid 2>/dev/null
else
    json_ok "$D/long.json" && ok1=1 || ok1=0
    b1=$(main_backedges "$D/long.json")
    sleep 2.2
    json_ok "$D/long.json" && ok2=1 || ok2=0
    b2=$(main_backedges "$D/long.json")
    rm -f "$D/long.json"
    kill -TERM $pid
    wait $pid
    st=$?
    if ((ok1 && ok2)) && [[ $b1 =~ ^[0-9]+$ && $b2 =~ ^[0-9]+$ ]] && ((b2 > b1)); then
        echo "PASS stats-periodic"
    else
        echo "FAIL stats-periodic: valid $ok1 $ok2, main backedges '$b1' then '$b2'"
    fi
    b3=$(main_backedges "$D/long.json")
    if [[ $st -ne 143 ]]; then
        echo "FAIL stats-sigterm: status $st, want 143: $(head -2 "$D/long.out")"
    elif ! json_ok "$D/long.json"; then
        echo "FAIL stats-sigterm: $(cat "$D/jc.out")"
    elif ! [[ $b3 =~ ^[0-9]+$ ]] || ((b3 < b2)); then
        echo "FAIL stats-sigterm: main backedges '$b3' after '$b2'"
    elif [[ -e $D/long.json.tmp ]]; then
        echo "FAIL stats-sigterm: long.json.tmp left behind"
    else
        echo "PASS stats-sigterm"
    fi
fi
# SIGINT likewise (status 130); job control on, or bash would start the
# background job with SIGINT ignored
rm -f "$D/int.json"
st=$(bash -c 'set -m
    timeout $((120 * $4)) "$1" --jit=off run --stats="$2" "$3" >/dev/null 2>&1 </dev/null &
    pid=$!
    for ((k = 0; k < 200 * $4; k++)); do [[ -e $2 ]] && break; sleep 0.1; done
    rm -f "$2"
    kill -INT $pid
    wait $pid
    echo $?' _ "$T" "$D/int.json" "$D/long.tl" "$SCALE" 2>/dev/null)
if [[ $st != 130 ]]; then
    echo "FAIL stats-sigint: status '$st', want 130"
elif ! json_ok "$D/int.json"; then
    echo "FAIL stats-sigint: $(cat "$D/jc.out")"
else
    echo "PASS stats-sigint"
fi
# without --stats a signal is not caught
timeout $((120 * SCALE)) $T --jit=off run "$D/long.tl" >/dev/null 2>&1 </dev/null &
pid=$!
sleep 0.5
kill -TERM $pid
wait $pid
st=$?
[[ $st -eq 143 ]] && echo "PASS sigterm-without-stats" || echo "FAIL sigterm-without-stats: status $st"

# The JIT's temporary files (libgccjit's and the units') live in one
# directory of the process, gone after a normal end, a run-time error,
# SIGTERM in the middle of a compile (with and without --stats: the
# stats writer's path and the JIT's own handler) and the time limit; a
# unit kept by jit.dump=units stays, in $TMPDIR itself.  Each run has a
# TMPDIR of its own, which must be empty (or hold only the kept unit).
printf 'fn sq(x: int): int { return x * x %% 7; }
fn main() {
    var s = 0;
    for i in 0..4000000000 { s = s + sq(i); }
    println(s);
}
' >"$D/jitlong.tl"
tmp_left() { find "$1" -mindepth 1 | head -3 | tr '\n' ' '; }
for how in plain stats; do
    TD="$D/tmp-$how"
    rm -rf "$TD" && mkdir -p "$TD"
    extra=()
    [[ $how == stats ]] && extra=(--stats="$D/tmp-$how.json")
    TMPDIR="$TD" timeout $((120 * SCALE)) $T --log=jit "${extra[@]}" run "$D/jitlong.tl" >/dev/null 2>"$D/tmp-$how.err" </dev/null &
    pid=$!
    # the signal while gcc compiles: right after the first request
    for ((k = 0; k < 200 * SCALE; k++)); do grep -q 'jit: queued' "$D/tmp-$how.err" && break; sleep 0.05; done
    kill -TERM $pid
    wait $pid
    st=$?
    if [[ $st -ne 143 ]]; then
        echo "FAIL jit-tmp-sigterm-$how: status $st: $(head -2 "$D/tmp-$how.err")"
    elif [[ -n $(tmp_left "$TD") ]]; then
        echo "FAIL jit-tmp-sigterm-$how: left in TMPDIR: $(tmp_left "$TD")"
    else
        echo "PASS jit-tmp-sigterm-$how"
    fi
done
TD="$D/tmp-end" && rm -rf "$TD" && mkdir -p "$TD"
TMPDIR="$TD" $T --jit=eager run "$D/jitloop.tl" >/dev/null 2>&1
printf 'fn at(a: int[], i: int): int { return a[i]; }\nfn main() {\n    let a = new int[2];\n    println(at(a, 1));\n    println(at(a, 5));\n}\n' >"$D/oob.tl"
TMPDIR="$TD" $T --jit=eager run "$D/oob.tl" >/dev/null 2>&1
[[ -z $(tmp_left "$TD") ]] && echo "PASS jit-tmp-end" || echo "FAIL jit-tmp-end: left in TMPDIR: $(tmp_left "$TD")"
TD="$D/tmp-limit" && rm -rf "$TD" && mkdir -p "$TD"
TMPDIR="$TD" $T -X vm.max_time=1 run "$D/jitlong.tl" >/dev/null 2>&1
st=$?
[[ $st -eq 3 && -z $(tmp_left "$TD") ]] && echo "PASS jit-tmp-time-limit" ||
    echo "FAIL jit-tmp-time-limit: status $st, left in TMPDIR: $(tmp_left "$TD")"
TD="$D/tmp-units" && rm -rf "$TD" && mkdir -p "$TD"
TMPDIR="$TD" $T --jit=sync -X vm.hot_threshold=2 -X inline.max_depth=0 -X jit.dump=units run "$D/jitloop.tl" >/dev/null 2>"$D/tmp-units.err"
kept=$(sed -n 's/^=== jit unit: .*: \(\/.*\)$/\1/p' "$D/tmp-units.err")
left=$(find "$TD" -mindepth 1 -maxdepth 1 | sort | tr '\n' ' ')
if [[ -z $kept ]] || [[ $left != "$(printf '%s\n' $kept | sort | tr '\n' ' ')" ]]; then
    echo "FAIL jit-tmp-units-kept: kept '$kept', in TMPDIR '$left'"
else
    echo "PASS jit-tmp-units-kept"
fi
# a run's directory that kill -9 left behind is swept up by the next run
# that compiles: only a dead process's, and only by that name
TD="$D/tmp-stale" && rm -rf "$TD" && mkdir -p "$TD"
true &
dead=$!
wait $dead
mkdir -p "$TD/tally-$dead-abcdef/libgccjit-x" "$TD/tally-$$-ghijkl" "$TD/tally-jit-other"
touch "$TD/tally-$dead-abcdef/libgccjit-x/fake.s" "$TD/tally-$$-ghijkl/f"
TMPDIR="$TD" $T --jit=eager run "$D/jitloop.tl" >/dev/null 2>&1
left=$(cd "$TD" && ls | tr '\n' ' ')
[[ $left == "tally-$$-ghijkl tally-jit-other " ]] && echo "PASS jit-tmp-stale-swept" ||
    echo "FAIL jit-tmp-stale-swept: left '$left'"

# ---- --sandbox: natives, heap and time limits (docs/security.md) ----
# A module declaring a C function outside the standard library's allow-list
# is refused at load (exit 2, naming library and symbol), as source and as
# .tlb alike; accepted with vm.natives=all (the default)
printf 'extern fn getpid(): int = "libc.so.6";\nfn main() {\n    println("ran");\n    println(getpid() > 0);\n}\n' >"$D/getpid.tl"
refused="extern 'getpid' from 'libc.so.6' refused: vm.natives=builtin allows only the standard library's C functions"
check sandbox-refuses-source 2 "error: getpid: native getpid: $refused" -- $T --sandbox run "$D/getpid.tl"
grep -q '^ran' "$D/out" && echo "FAIL sandbox-refuses-before-running: main ran" || echo "PASS sandbox-refuses-before-running"
check sandbox-build 0 "" -- $T build "$D/getpid.tl" -o "$D/getpid.tlb"
check sandbox-refuses-tlb 2 "$refused" -- $T --sandbox run "$D/getpid.tlb"
check natives-builtin-refuses-tlb 2 "$refused" -- $T -X vm.natives=builtin --jit=eager run "$D/getpid.tlb"
check natives-all-accepts-tlb 0 "true" -- $T -X vm.natives=all run "$D/getpid.tlb"
check natives-default-all 0 "true" -- $T --jit=eager run "$D/getpid.tl"
check sandbox-natives-override 0 "true" -- $T --sandbox -X vm.natives=all run "$D/getpid.tlb"
check natives-none-stdlib 2 "extern 'sin' from 'libm.so.6' refused: vm.natives=none allows no C function" -- \
    $T -X vm.natives=none run examples/nbody.tl 10
check natives-bad-value 2 "vm.natives: 'libc' is none of none, builtin, all" -- $T -X vm.natives=libc run "$D/ok.tla"
check sandbox-help 0 "--sandbox          run a module you did not write" -- $T --help
check sandbox-settings 0 'vm.max_time                int     = 60  (default 0)' -- $T --sandbox --help=tunables
grep -qF 'vm.natives                 string  = "builtin"' "$D/out" && grep -qF 'gc.max_heap                size    = 1073741824' "$D/out" &&
    echo "PASS sandbox-settings-all" || echo "FAIL sandbox-settings-all: $(grep -E 'vm.natives |gc.max_heap ' "$D/out")"
check sandbox-settings-given 0 'gc.max_heap                size    = 67108864' -- $T -X gc.max_heap=64M --sandbox --help=tunables

# imports read only regular files (a FIFO would never end), and under
# --sandbox only those in the program's directory or the standard library
# (a compile error shows the lines of the file it read)
mkdir -p "$D/imp/sub"
rm -f "$D/imp/fifo.tl" && mkfifo "$D/imp/fifo.tl"
printf 'import "fifo.tl";\nfn main() { println(1); }\n' >"$D/imp/fifo-import.tl"
check import-fifo 2 "fifo.tl': not a regular file" -- timeout 20 $T run "$D/imp/fifo-import.tl"
printf 'fn two(): int { return 2; }\n' >"$D/imp/sub/two.tl"
printf 'import "sub/two.tl";\nimport "math";\nfn main() { println(two()); }\n' >"$D/imp/inside.tl"
check sandbox-import-inside 0 "2" -- $T --sandbox run "$D/imp/inside.tl"
printf 'import "../two.tl";\nfn main() { println(two()); }\n' >"$D/imp/sub/up.tl"
printf 'fn two(): int { return 2; }\n' >"$D/imp/two.tl"
check sandbox-import-outside 2 "/../two.tl': outside the program's directory and the standard library (--sandbox)" -- \
    $T --sandbox run "$D/imp/sub/up.tl"
check import-outside-without-sandbox 0 "2" -- $T run "$D/imp/sub/up.tl"

# the standard library's own tests run under --sandbox, interpreted and
# every method compiled (its natives called straight from compiled code)
for f in tests/lang/stdlib_*.tl; do
    want_st=0
    grep -q '// expect-runtime-error:' "$f" && want_st=1
    sed -n 's|^[[:space:]]*// expect: \{0,1\}||p' "$f" >"$D/sb.want"
    res=PASS
    for mode in off eager; do
        timeout 120 $T --jit=$mode --sandbox run "$f" >"$D/sb.out" 2>"$D/sb.err" </dev/null
        st=$?
        if [[ $st -ne $want_st ]] || ! cmp -s "$D/sb.want" "$D/sb.out"; then
            res="FAIL"
            echo "FAIL sandbox-$(basename "$f" .tl) [--jit=$mode]: status $st, want $want_st: $(head -2 "$D/sb.err")"
        fi
    done
    [[ $res == PASS ]] && echo "PASS sandbox-$(basename "$f" .tl)"
done

# an allocation bomb under --sandbox with a 64 MB heap ends with the
# run-time error, not a crash or an abort in the collector
printf 'class Node {\n    next: Node;\n    data: int[];\n    init(n: Node) { self.next = n; self.data = new int[1000]; }\n}\nfn main() {\n    var head: Node = null;\n    while true { head = Node(head); }\n}\n' >"$D/bomb.tl"
for mode in off on eager; do
    check sandbox-oom-$mode 1 "error: out of memory" -- timeout 120 $T --jit=$mode --sandbox -X gc.max_heap=64M run "$D/bomb.tl"
done

# an endless loop under vm.max_time=1 ends with the time limit's message
# and status 3 (its output so far flushed), interpreted and in compiled
# code (eager: compiled before its first call), and --stats is still
# written whole; a run inside its limit ends as usual
printf 'fn spin(): int {\n    var s = 0;\n    var i = 0;\n    while true { s = s + i %% 7; i = i + 1; }\n    return s;\n}\nfn main() {\n    println("start");\n    println(spin());\n}\n' >"$D/spin.tl"
limit="error: time limit exceeded: the run took more than vm.max_time=1 s"
for mode in off eager; do
    rm -f "$D/spin-$mode.json"
    check time-limit-$mode 3 "$limit" -- timeout 120 $T --jit=$mode -X jit.log=1 -X vm.max_time=1 run --stats="$D/spin-$mode.json" "$D/spin.tl"
    if ! grep -qx start "$D/out"; then
        echo "FAIL time-limit-$mode-output: $(head -2 "$D/out")"
    elif [[ $mode == eager ]] && { ! grep -q 'jit: compiled #[0-9]* main ' "$D/out" || grep -q 'jit: failed' "$D/out"; }; then
        # main is compiled before it runs, spin's loop inlined into it
        echo "FAIL time-limit-$mode-output: main was not compiled: $(grep -m2 'jit:' "$D/out")"
    else
        echo "PASS time-limit-$mode-output"
    fi
    if ! json_ok "$D/spin-$mode.json"; then
        echo "FAIL time-limit-$mode-stats: $(cat "$D/jc.out")"
    elif ! grep -q '^{"name":"spin",' "$D/spin-$mode.json" || [[ -n $(compgen -G "$D/spin-$mode.json.tmp*") ]]; then
        echo "FAIL time-limit-$mode-stats: $(head -c 200 "$D/spin-$mode.json")"
    else
        echo "PASS time-limit-$mode-stats"
    fi
done
check time-limit-sandbox-on 3 "$limit" -- timeout 120 $T --sandbox -X vm.max_time=1 run "$D/spin.tl"
check time-limit-not-reached 0 "42" -- timeout 120 $T -X vm.max_time=100 run --stats="$D/quick.json" "$D/ok.tla"

# --log takes a comma list; audit is a topic
check log-audit-topic 0 "285" -- $T --log=jit,audit run "$D/jitloop.tl"
check log-audit-typo 2 "unknown log topic 'audt' (did you mean 'audit'?" -- $T --log=audt run "$D/ok.tla"
check log-audit-tunable 0 "42" -- $T -X audit.log=1 run "$D/ok.tla"
check help-log-audit 0 "audit (bakeoff events)" -- $T --help
check audit-max-overhead-range 2 "tunable 'audit.max_overhead' must be in 0..9999 (basis points), got 10000" -- \
    $T --audit=aa -X audit.max_overhead=10000 run "$D/ok.tla"
check audit-timed-cost-range 2 "tunable 'audit.timed_cost' must be in 1..1000000 (cycles), got 0" -- \
    $T --audit=aa -X audit.timed_cost=0 run "$D/ok.tla"
check help-audit-max-overhead 0 "audit.max_overhead" -- $T --help=tunables
check audit-futility-range 2 "tunable 'audit.futility' must be in 0..100000 (percent), got 100001" -- \
    $T --audit=aa -X audit.futility=100001 run "$D/ok.tla"
check help-audit-futility 0 "audit.futility" -- $T --help=tunables
check audit-confirm-range 2 "tunable 'audit.confirm' must be 0 or in 100..100000 (percent), got 50" -- \
    $T --audit=aa -X audit.confirm=50 run "$D/ok.tla"
check help-audit-confirm 0 "audit.confirm" -- $T --help=tunables
check help-audit-confirm-fresh 0 "research.confirm_fresh" -- $T --help=tunables
check help-audit-confirm-nodiff 0 "research.confirm_nodiff" -- $T --help=tunables
check help-audit-no-winner 0 "research.no_winner" -- $T --help=tunables
check audit-warmup-range 2 "tunable 'audit.warmup' must be in 0..1000000, got 2000000" -- \
    $T --audit=aa -X audit.warmup=2000000 run "$D/ok.tla"
check help-audit-warmup 0 "audit.warmup" -- $T --help=tunables
check audit-copies-range 2 "tunable 'audit.copies' must be in 1..2, got 3" -- \
    $T --audit=aa -X audit.copies=3 run "$D/ok.tla"
check audit-copies-zero 2 "tunable 'audit.copies' must be in 1..2, got 0" -- \
    $T --audit=aa -X audit.copies=0 run "$D/ok.tla"
check help-audit-copies 0 "audit.copies" -- $T --help=tunables
check audit-prologue-sampling 2 "tunable 'research.prologue=0' needs audit.sample_every=0" -- \
    $T --audit=aa -X research.prologue=0 run "$D/ok.tla"
check audit-prologue-off 0 "42" -- $T --audit=aa -X research.prologue=0 -X audit.sample_every=0 run "$D/ok.tla"
check help-audit-prologue 0 "research.prologue" -- $T --help=tunables

# turns (audit.quantum_ms): the bakeoffs of f, g and main share the one
# slot in 5 ms turns while the program runs (inlining off, so that f and
# g are called through their entries; nothing decides or gives up), and
# the output stays right
printf 'fn f(n: int): int { var s = 0; for i in 0..n { s = s + i %% 7; } return s; }\n' >"$D/turns.tl"
printf 'fn g(n: int): int { var s = 0; for i in 0..n { s = s + i %% 5; } return s; }\n' >>"$D/turns.tl"
printf 'fn main() {\n    var t = 0;\n    for k in 0..2000000 { t = t + f(200) + g(200); }\n    println(t);\n}\n' >>"$D/turns.tl"
TURNS="$T --jit=sync -X vm.hot_threshold=2 -X inline.max_depth=0 --audit=aa -X audit.hot_threshold=0"
TURNS+=" -X audit.quantum_ms=5 -X audit.futility=0 -X audit.min_samples=1000000 -X audit.min_cycles=0 -X audit.min_cost=0"
check audit-turns-output 0 "1988000000" -- $TURNS run "$D/turns.tl"
check audit-turns-resumed 0 "audit: resumed #1 f client=aa turn=2 " -- $TURNS --log=audit run "$D/turns.tl"
check audit-quantum-range 2 "tunable 'audit.quantum_ms' must be in 0..3600000 (ms), got 3600001" -- \
    $T --audit=aa -X audit.quantum_ms=3600001 run "$D/ok.tla"
check help-audit-quantum 0 "audit.quantum_ms" -- $T --help=tunables
# research.same_code: f and g call nothing, so the inline client's two
# inliner settings build the same IR for them: each bakeoff, unprobed,
# compiles variant 0 alone (research.same_ir) and ends, a no-difference,
# the default installed; with research.same_ir=0 both variants compile to
# the same code and it ends the same way; with research.same_code=0 they
# sample as before; the aa client's variants are alike on purpose and
# sample (audit-turns-resumed above)
SAME="${TURNS/--audit=aa/--audit=inline} --log=audit"
check audit-same-ir 0 "outcome=no-difference winner=- installed=default best=- confidence=- rel=- ci=[-,-] samples=0,0 test=sequential same-code same-ir" -- \
    $SAME run "$D/turns.tl"
check audit-same-ir-stats 0 "1988000000" -- $SAME --stats="$D/same.json" run "$D/turns.tl"
if grep -q '"method":"f",.*"installed":"default",.*"probe_cycles":null,.*"same_code":true,"same_ir":true,' "$D/same.json"; then
    echo "PASS audit-same-ir-json"
else
    echo "FAIL audit-same-ir-json: $(grep -o '"method":"f".\{0,200\}' "$D/same.json" | head -1)"
fi
check audit-same-code 0 "outcome=no-difference winner=- installed=default best=- confidence=- rel=- ci=[-,-] samples=0,0 test=sequential same-code" -- \
    $SAME -X research.same_ir=0 run "$D/turns.tl"
check audit-same-ir-off 0 "count=0" -- sh -c "echo count=\$($SAME -X research.same_ir=0 run $D/turns.tl 2>&1 | grep -c same-ir)"
check audit-same-code-output 0 "1988000000" -- $SAME run "$D/turns.tl"
check audit-same-code-off 0 "audit: sampling #1 f client=inline" -- $SAME -X research.same_code=0 run "$D/turns.tl"
# a variant of a recursive method calls itself directly (a timed call's
# recursion stays in its variant); compiled alone for an untimed end
# (research.same_ir) it calls itself through its entry, as the JIT's code
# does (direct self-calls cost a compare and branch each)
printf 'fn fib(n: int): int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }\n' >"$D/fib.tl"
printf 'fn main() {\n    var t = 0;\n    for k in 0..3000 { t = t + fib(12); }\n    println(t);\n}\n' >>"$D/fib.tl"
check audit-same-ir-self-calls 0 "direct=0" -- sh -c "echo direct=\$($SAME -X jit.dump=asm run $D/fib.tl 2>&1 | grep -cE 'call[[:space:]]+ta[0-9]+_v0_fib')"
# the same holds where the variants turn out the same code only once all
# compiled (research.same_ir=0): variant 0, recursive, compiles again untimed
check audit-same-code-self-calls 0 "direct=0 fib=1" -- sh -c "out=\$($SAME -X research.same_ir=0 -X jit.dump=asm run $D/fib.tl 2>&1); echo direct=\$(echo \"\$out\" | grep -cE 'call[[:space:]]+ta[0-9]+_v0_fib') fib=\$(echo \"\$out\" | grep -c 'decided #[0-9]* fib .* same-code')"
check audit-timed-self-calls 0 "timed direct" -- sh -c "$SAME -X research.same_code=0 -X jit.dump=asm run $D/fib.tl 2>&1 | grep -qE 'call[[:space:]]+ta[0-9]+_v0_fib' && echo timed direct"
check help-audit-same-code 0 "research.same_code" -- $T --help=tunables
check help-audit-same-ir 0 "research.same_ir" -- $T --help=tunables
# extended turns (audit.extend): the aa bakeoff above foresees no
# decision (min_samples 10⁶), so it is paused, not extended; the
# extension itself is unit-tested (audit_bakeoff_extend)
check audit-extend-field 0 '"extended":0' -- sh -c "$TURNS --stats=$D/turns.json run $D/turns.tl >/dev/null && cat $D/turns.json"
check audit-extend-range 2 "tunable 'audit.extend' must be in 0..1000 (turns), got 1001" -- \
    $T --audit=aa -X audit.extend=1001 run "$D/ok.tla"
check help-audit-extend 0 "audit.extend" -- $T --help=tunables
# audit.methods: only the named methods get bakeoffs; a name the program
# lacks is an error on every tier
check audit-methods-only 0 "f=0 g=1" -- \
    sh -c "out=\$($TURNS -X audit.methods=g --log=audit run $D/turns.tl 2>&1 >/dev/null); echo f=\$(echo \"\$out\" | grep -c 'queued #[0-9]* f ') g=\$(echo \"\$out\" | grep -c 'queued #[0-9]* g ')"
check audit-methods-unknown 2 "tunable 'audit.methods': the program has no method 'h'" -- \
    $TURNS -X audit.methods=g,h run "$D/turns.tl"
check audit-methods-unknown-jit-off 2 "tunable 'audit.methods': the program has no method 'h'" -- \
    $T --jit=off --audit=aa -X audit.methods=h run "$D/turns.tl"
check help-audit-methods 0 "audit.methods" -- $T --help=tunables
# the sequential test's mixture scales (audit.mixture .. audit.mixture_max)
check audit-mixture-max-range 2 "tunable 'audit.mixture_max' must be in 0..100000 (basis points), got 100001" -- \
    $T --audit=aa -X audit.mixture_max=100001 run "$D/ok.tla"
check help-audit-mixture-max 0 "audit.mixture_max" -- $T --help=tunables

# variants of the same IR options share one IR, built once from one read
# of the profile (jit/variants.c, ir_options_same): aa's two variants one, inline's
# (4x the callee size) two, both built even where they turn out the same
# code (research.same_ir then compiles variant 0 alone; off here)
check audit-ir-shared 0 "count=1" -- \
    sh -c "echo count=\$($TURNS -X jit.dump=ir run $D/turns.tl 2>&1 >/dev/null | grep -c 'jit ir: f (bakeoff #1,')"
check audit-ir-own 0 "count=2" -- \
    sh -c "echo count=\$(${TURNS/--audit=aa/--audit=inline} -X research.same_ir=0 -X jit.dump=ir run $D/turns.tl 2>&1 >/dev/null | grep -c 'jit ir: f (bakeoff #1,')"

# compiling ahead (research.ahead): without turns f's bakeoff keeps the one
# slot to the end, and g's, next in line, compiles meanwhile and waits
# ready (main's, after it, waits queued: one ahead at a time); off, g's
# stays queued
AHEAD="${TURNS/audit.quantum_ms=5/audit.quantum_ms=0} --stats=$D/ahead.json"
check audit-ahead-ready 0 '"id":2,"method":"g","client":"aa","phase":"ready"' -- \
    sh -c "$AHEAD run $D/turns.tl >/dev/null && cat $D/ahead.json"
check audit-ahead-one 0 '"id":3,"method":"main","client":"aa","phase":"queued"' -- cat "$D/ahead.json"
check audit-ahead-off 0 '"id":2,"method":"g","client":"aa","phase":"queued"' -- \
    sh -c "$AHEAD -X research.ahead=0 run $D/turns.tl >/dev/null && cat $D/ahead.json"
check help-audit-ahead 0 "research.ahead" -- $T --help=tunables

# probes (audit.probe): h's installed code is timed before anything
# compiles and its bakeoff ends there, too cheap; the output stays right
# (h has a loop, so the static bound of audit.min_cost does not judge it;
# audit.min_cycles=1000 keeps a loaded machine's slower cycles far from the
# verdict's limit, 450)
printf 'fn h(n: int): int { var s = 1; for i in 0..n { s = s + i; } return s; }\n' >"$D/probe.tl"
printf 'fn main() {\n    var t = 0;\n    for k in 0..40000000 { t = t + h(1); }\n    println(t);\n}\n' >>"$D/probe.tl"
PROBE="$T -X inline.max_depth=0 --audit=aa -X audit.hot_threshold=1000 -X audit.min_cycles=1000 --log=audit"
check audit-probe-cheap 0 "audit: failed #1 h client=aa: too cheap to time: the installed code's timed call reads" -- \
    $PROBE run "$D/probe.tl"
check audit-probe-output 0 "40000000" -- $PROBE run "$D/probe.tl"
check audit-probe-off 0 "audit: compiled #1 h client=aa" -- $PROBE -X audit.probe=0 run "$D/probe.tl"
check audit-probe-range 2 "tunable 'audit.probe' must be in 0..1024, got 1025" -- \
    $T --audit=aa -X audit.probe=1025 run "$D/ok.tla"
check help-audit-probe 0 "audit.probe" -- $T --help=tunables

# a method called too rarely to decide ends before compiling: r gets hot
# (audit.hot_threshold 2000 of its compiled calls) in its phase of
# ~1,000 calls/s, and its probe counts them for 0.5 s;
# audit.min_samples=100000 puts the limit at ~49,000 calls/s, far above
# any machine's rate here.  With audit.futility=0 nothing is futile, so
# it compiles.
printf 'fn r(n: int): int { var s = 0; for i in 0..n { s = s + i %% 3; } return s; }\n' >"$D/rare.tl"
printf 'fn main() {\n    var t = 0;\n    for k in 0..20000 { t = t + r(10); }\n' >>"$D/rare.tl"
printf '    for k in 0..3000 { t = t + r(1000000); }\n    println(t);\n}\n' >>"$D/rare.tl"
RARE="$T -X inline.max_depth=0 --audit=aa -X audit.hot_threshold=2000 -X audit.min_samples=100000 --log=audit"
check audit-rarely-called 0 "audit: failed #1 r client=aa: not called through its entry often enough: " -- \
    $RARE run "$D/rare.tl"
check audit-rarely-called-output 0 "3000177000" -- $RARE run "$D/rare.tl"
check audit-rarely-called-no-futility 0 "audit: compiled #1 r client=aa" -- $RARE -X audit.futility=0 run "$D/rare.tl"

# research.defer: a and b get hot together; the first one probed reads below
# audit.min_cycles (but above 0.45 × it, the probe's own verdict) and
# goes back into the queue behind the other, which compiles first; then
# it compiles too (nothing else waits), and both end too cheap to time.
# min_cycles is 2 × the lowest probe reading of a seen so far (five runs
# with the deferral off, then each try's own), so the window
# [0.45 × min_cycles, min_cycles) is [0.9, 2) × that reading.  The
# readings are bimodal here: most at one value (Intel: 109 cycles), some
# 1.4-1.7 × it, in streaks and more often on a loaded machine; the window
# holds both, but only when set from the low one, which a try that ended
# too cheap reports.  (1.5 × the median of three would fail whenever two
# of the three are slow: the fast readings fall below the window.)
printf 'fn a(n: int): int { var s = 1; for i in 0..n { s = s + i %% 3; } return s; }\n' >"$D/defer.tl"
printf 'fn b(n: int): int { var s = 2; for i in 0..n { s = s + i %% 5; } return s; }\n' >>"$D/defer.tl"
printf 'fn main() {\n    var t = 0;\n    for k in 0..4000000 { t = t + a(40) + b(40); }\n    println(t);\n}\n' >>"$D/defer.tl"
DEFER="$T -X inline.max_depth=0 --audit=aa -X audit.hot_threshold=1000 --log=audit"
read_probe=$(probe_lowest 5 $DEFER -X research.defer=0 -X audit.min_cycles=0 run "$D/defer.tl")
if [[ -n $read_probe && $read_probe -gt 0 ]]; then
    for try in 1 2 3 4; do
        DM=$((read_probe * 2))
        $DEFER -X audit.min_cycles=$DM run "$D/defer.tl" >"$D/out" 2>&1 </dev/null
        grep -q "audit: deferred #1 a client=aa probe=" "$D/out" &&
            grep -q "audit: compiled #1 a client=aa" "$D/out" && break
        r=$(lowest_reading "$D/out")
        [[ -n $r && $r -gt 0 && $r -lt $read_probe ]] && read_probe=$r
    done
    if grep -q "audit: deferred #1 a client=aa probe=" "$D/out"; then echo "PASS audit-defer"
    else echo "FAIL audit-defer: a not deferred in 4 runs (min_cycles $DM): $(excerpt "$D/out")"; fi
    if grep -q "audit: compiled #1 a client=aa" "$D/out"; then echo "PASS audit-defer-then-compiled"
    else echo "FAIL audit-defer-then-compiled: a not compiled in 4 runs (min_cycles $DM): $(excerpt "$D/out")"; fi
    check audit-defer-output 0 "488000000" -- $DEFER -X audit.min_cycles=$DM run "$D/defer.tl"
    $DEFER -X research.defer=0 -X audit.min_cycles=$DM run "$D/defer.tl" >"$D/out" 2>&1
    if grep -q "audit: deferred" "$D/out"; then echo "FAIL audit-defer-off: deferred with research.defer=0"; else echo "PASS audit-defer-off"; fi
else
    echo "FAIL audit-defer: no probe reading for a: $($DEFER -X research.defer=0 -X audit.min_cycles=0 run "$D/defer.tl" 2>&1 | head -3)"
fi
check help-audit-defer 0 "research.defer" -- $T --help=tunables

# audit.cut: s1 and s2 are each called some 5,000 times a second (1 in 20
# timed), far too few for audit.min_samples within a 0.4 s turn or the
# longest extended one; so a quarter into its turn each gives the slot to
# the other ("cut") instead of sampling out the turn.
printf 'fn s1(n: int): int { var s = 1; for i in 0..n { s = s + i %% 3; } return s; }\n' >"$D/cut.tl"
printf 'fn s2(n: int): int { var s = 2; for i in 0..n { s = s + i %% 5; } return s; }\n' >>"$D/cut.tl"
printf 'fn main() {\n    var t = 0;\n    for k in 0..10000 { t = t + s1(100000) + s2(100000); }\n    println(t);\n}\n' >>"$D/cut.tl"
CUT="$T -X inline.max_depth=0 --audit=aa -X audit.hot_threshold=1000 -X audit.min_samples=2000 -X audit.quantum_ms=400 --log=audit"
# (the rates are this machine's: one of three runs must cut)
for try in 1 2 3; do
    $CUT run "$D/cut.tl" >"$D/out" 2>&1
    grep -qE 'audit: cut #[12] s[12] client=aa turn=1 sampled=0\.[0-9]+s samples=' "$D/out" && break
done
if grep -qE 'audit: cut #[12] s[12] client=aa turn=1 sampled=0\.[0-9]+s samples=' "$D/out"; then echo "PASS audit-cut"
else echo "FAIL audit-cut: no turn cut in 3 runs: $(grep -E 'audit: (sampling|paused|cut|decided|failed)' "$D/out" | head -4)"; fi
check audit-cut-output 0 "3000020000" -- $CUT run "$D/cut.tl"
$CUT -X audit.cut=0 run "$D/cut.tl" >"$D/out" 2>&1
if grep -q "audit: cut" "$D/out"; then echo "FAIL audit-cut-off: cut with audit.cut=0"; else echo "PASS audit-cut-off"; fi
check audit-cut-range 2 "tunable 'audit.cut' must be in 0..100 (percent of a turn), got 101" -- \
    $T --audit=aa -X audit.cut=101 run "$D/ok.tla"
check help-audit-cut 0 "audit.cut" -- $T --help=tunables

# idle turns: with audit.hot_threshold=0 p's bakeoff starts as p is
# compiled, at its first call (--jit=eager); then p is not called for 1 s,
# and then called to 2.5 s.  So its first turn gets no timed call; 0.3 s
# in, it is paused ("idle") instead of failed, waits, the slot free,
# until p is called again, resumes and decides.  Without turns it fails
# as before.
printf 'fn p(n: int): int { var s = 1; for i in 0..n { s = s + i %% 3; } return s; }\n' >"$D/idle.tl"
printf 'fn q(n: int): int { var s = 2; for i in 0..n { s = s + i %% 5; } return s; }\n' >>"$D/idle.tl"
printf 'fn main() {\n    var t = p(1);\n    let t0 = clock();\n' >>"$D/idle.tl"
printf '    while clock() - t0 < 1.0 { t = t + q(40); }\n    while clock() - t0 < 2.5 { t = t + p(40); }\n' >>"$D/idle.tl"
printf '    println(t > 0);\n}\n' >>"$D/idle.tl"
IDLE="$T --jit=eager -X inline.max_depth=0 --audit=aa -X audit.methods=p -X audit.hot_threshold=0 -X audit.probe=0 -X audit.min_samples=2000 --log=audit"
check_timed audit-idle-turn 0 "audit: idle #1 p client=aa turn=1 sampled=0." -- $IDLE run "$D/idle.tl"
check_timed audit-idle-then-decided 0 " idled=1" -- $IDLE run "$D/idle.tl"
check_timed audit-idle-no-turns 0 "audit: failed #1 p client=aa: not called through its entry in 0." -- \
    $IDLE -X audit.quantum_ms=0 run "$D/idle.tl"
$IDLE --stats="$D/idle.json" run "$D/idle.tl" >"$D/out" 2>&1
if grep -q '"idled":[0-9]' "$D/idle.json"; then echo "PASS audit-idle-stats"; else echo "FAIL audit-idle-stats: no idled count in --stats"; fi
# it resumed once p was called again (1 s after the clock started), not
# as soon as the slot was free
resumed=$(sed -n 's/^\[\([0-9]*\)\.[0-9]*ms\] audit: resumed #1 p .*/\1/p' "$D/out" | head -1)
if [[ -n $resumed && $resumed -ge 1000 ]]; then echo "PASS audit-idle-waits"
else echo "FAIL audit-idle-waits: resumed at '${resumed}' ms: $(grep -E 'audit: (idle|resumed)' "$D/out" | head -2)"; fi

# The queue puts a paused bakeoff that foresees no decision within the
# longest turn it could get (s1 and s2, cut as above; windows of 10
# samples, so that they foresee at all) after a deferred one (a, hot once
# they take turns, its probe below audit.min_cycles, 2 × the lowest
# reading seen, as for research.defer above): a compiles while s1 and s2
# still take turns, rather than s1 and s2 taking turns to the end and
# a, deferred, never compiling.  (When s1 and s2 are both hopeless as a
# is probed, nothing goes before a and it is not deferred at all.)
head -2 "$D/cut.tl" >"$D/hopeless.tl"
printf 'fn a(n: int): int { var s = 1; for i in 0..n { s = s + i %% 7; } return s; }\n' >>"$D/hopeless.tl"
printf 'fn main() {\n    var t = 0;\n    for k in 0..10000 {\n        t = t + s1(100000) + s2(100000);\n' >>"$D/hopeless.tl"
printf '        if k >= 2000 { for j in 0..20 { t = t + a(40); } }\n    }\n    println(t);\n}\n' >>"$D/hopeless.tl"
read_probe=$(probe_lowest 3 $CUT -X research.defer=0 -X audit.min_cycles=0 run "$D/hopeless.tl")
if [[ -n $read_probe && $read_probe -gt 0 ]]; then
    for try in 1 2 3; do
        $CUT -X audit.trim_window=10 -X audit.trim_drop=1 -X audit.min_cycles=$((read_probe * 2)) \
            run "$D/hopeless.tl" >"$D/out" 2>&1
        grep -qE 'audit: compiled #[0-9]+ a client=aa' "$D/out" && break
        r=$(lowest_reading "$D/out")
        [[ -n $r && $r -gt 0 && $r -lt $read_probe ]] && read_probe=$r
    done
    if ! grep -qE 'audit: compiled #[0-9]+ a client=aa' "$D/out"; then
        echo "FAIL audit-hopeless-after-deferred: a never compiled in 3 runs: $(grep -E 'audit: (cut|compiled|deferred)' "$D/out" | head -6)"
    else
        echo "PASS audit-hopeless-after-deferred"
    fi
else
    echo "FAIL audit-hopeless-after-deferred: no probe reading for a"
fi

# bench/audit-eval's parsing and counting, on hand-written stats files
# (tests/fixtures/audit-eval/README.md says what each method's runs should count as)
bash bench/audit-eval --from=tests/fixtures/audit-eval >"$D/eval.out" 2>&1
if diff -u tests/fixtures/audit-eval/expected.txt "$D/eval.out" >"$D/eval.diff"; then
    echo "PASS audit-eval-from"
else
    echo "FAIL audit-eval-from: $(head -c 400 "$D/eval.diff")"
fi
# --pin: run K of each kind gets -X vm.cpu=(K−1) mod nproc, read from
# the arguments a stand-in for tally records (one line a run)
printf '#!/bin/sh\n[ "$1" = --help ] && { echo "--audit"; exit 0; }\necho "$*" >>"%s"\n' "$D/pin.args" >"$D/fake-tally"
chmod +x "$D/fake-tally"
rm -f "$D/pin.args"
TALLY=$D/fake-tally bash bench/audit-eval --clients=inline --runs=2 --oracle-runs=2 --pin Towers=1:1 >/dev/null 2>&1
# (oracle runs 1 and 2, then online runs 1 and 2)
c1=$((1 % $(nproc)))
pins=$(sed 's/.*-X vm\.cpu=\([0-9]*\) .*/\1/; t; s/.*/none/' "$D/pin.args" 2>/dev/null | tr '\n' ' ')
if [[ $pins == "0 $c1 0 $c1 " && $(grep -c 'audit.oracle=1' "$D/pin.args") == 2 && $(head -2 "$D/pin.args" | grep -c 'audit.oracle=1') == 2 ]]; then
    echo "PASS audit-eval-pin"
else
    echo "FAIL audit-eval-pin: $(head -c 400 "$D/pin.args" 2>/dev/null)"
fi
check audit-eval-runs-none 2 "runs nothing" -- bash bench/audit-eval --runs=0 --no-oracle Fake
check audit-eval-runs-bad 2 "runs must be a number" -- bash bench/audit-eval --runs=-1 Fake
# H.few's one oracle estimate (180 samples a variant) is the truth only
# when --oracle-min lets it be
check audit-eval-oracle-min 0 "true difference >= 5%: 11 bakeoffs, 8 decided (73%), 5 correct (45%), 2 no-difference keeping the true best; 1 still queued at exit (decided of those that started: 80%); 1 run without a bakeoff of the method (decided of all the runs: 67%)" -- \
    bash bench/audit-eval --from=tests/fixtures/audit-eval --oracle-min=100
# --truth=pooled: L.near's two oracle runs (-5.5% narrow, -3.8% wide)
# pool to -4.7% [-6.8%, -2.6%], not >= 5% (by hand: DerSimonian-Laird)
check audit-eval-truth-pooled 0 "L.near                       -4.7% [-6.8%, -2.6%]           -                  inline4x      3       2     0        0       1       0     0" -- \
    bash bench/audit-eval --from=tests/fixtures/audit-eval --truth=pooled
check audit-eval-truth-pooled-count 0 "true difference >= 5%: 6 bakeoffs, 4 decided (67%)" -- bash bench/audit-eval --from=tests/fixtures/audit-eval --truth=pooled
check audit-eval-truth-bad 2 "truth must be narrowest or pooled" -- bash bench/audit-eval --truth=median Fake
check audit-eval-oracle-min-bad 2 "oracle-min must be a positive number" -- bash bench/audit-eval --oracle-min=x Fake
# --verify's judging: tests/fixtures/audit-eval/custom's verify runs (README.md)
check audit-eval-verify 0 "verify custom: 4 winners: 1 correct, 1 wrong, 1 where the interval after includes 0, 1 unjudged" -- \
    bash bench/audit-eval --from=tests/fixtures/audit-eval
check audit-eval-verify-nodiff 0 "verify custom: 2 no-difference: 1 correct, 1 wrong, 0 where it straddles -1%, 0 unjudged" -- \
    bash bench/audit-eval --from=tests/fixtures/audit-eval
# bench/audit-overhead's reading of runs and its statistics, on
# hand-written harness outputs (tests/fixtures/audit-overhead/README.md)
bash bench/audit-overhead --from=tests/fixtures/audit-overhead >"$D/ovh.out" 2>&1
if diff -u tests/fixtures/audit-overhead/expected.txt "$D/ovh.out" >"$D/ovh.diff"; then
    echo "PASS audit-overhead-from"
else
    echo "FAIL audit-overhead-from: $(head -c 400 "$D/ovh.diff")"
fi
# its runs: each configuration's options, rounds pinned, a failed run
# reported and left out; a stand-in for tally records its arguments and
# prints two iterations (it fails the runs whose options hold $FAKE_FAIL)
cat >"$D/fake-tally-ovh" <<EOF
#!/bin/sh
[ "\$1" = --help=tunables ] && { echo "research.prologue"; exit 0; }
echo "\$*" >>"$D/ovh.args"
case "\$*" in *"\${FAKE_FAIL:-none}"*) exit 3 ;; esac
echo "Towers: iterations=1 runtime: 100us"; echo "Towers: iterations=1 runtime: 100us"
EOF
chmod +x "$D/fake-tally-ovh"
rm -f "$D/ovh.args"
TALLY=$D/fake-tally-ovh bash bench/audit-overhead --rounds=2 --pin --configs=A,B0,B,S Towers=1:1 >"$D/ovh.out" 2>&1
st=$?
a=$D/ovh.args c1=$((1 % $(nproc)))
if [[ $st == 0 && $(grep -c . "$a") == 8 && $(grep -c -- '--jit=sync' "$a") == 8 && $(grep -c 'research.prologue=0' "$a") == 2 &&
    $(grep -c 'research.prologue=0.*audit.sample_every=0\|audit.sample_every=0.*research.prologue=0' "$a") == 2 &&
    $(grep -c 'audit.oracle=1' "$a") == 2 && $(grep -c -- '--audit=aa' "$a") == 6 &&
    $(grep -c "vm.cpu=0 " "$a") == 4 && $(grep -c "vm.cpu=$c1 " "$a") == 4 && $(head -4 "$a" | grep -c "vm.cpu=0 ") == 4 ]] &&
    grep -q '^dispatcher, sampling off (B/B0): geomean 1.000, .* 1 benchmarks, 2 rounds$' "$D/ovh.out"; then
    echo "PASS audit-overhead-runs"
else
    echo "FAIL audit-overhead-runs: status $st: $(head -c 300 "$a" 2>/dev/null) $(tail -3 "$D/ovh.out")"
fi
FAKE_FAIL=audit.oracle=1 TALLY=$D/fake-tally-ovh bash bench/audit-overhead --rounds=1 --configs=B,S Towers=1:1 >"$D/ovh.out" 2>&1
st=$?
if [[ $st == 1 ]] && grep -q 'FAILED S Towers round 1: status 3' "$D/ovh.out" && grep -q '^Towers *- *$' "$D/ovh.out" &&
    ! grep -q 'S/B)' "$D/ovh.out"; then
    echo "PASS audit-overhead-failed-run"
else
    echo "FAIL audit-overhead-failed-run: status $st: $(tail -4 "$D/ovh.out")"
fi
# bench/audit-sampling's shares, on hand-written per-symbol counts
# (tests/fixtures/audit-sampling/README.md); a failed run makes the status 1
bash bench/audit-sampling --from=tests/fixtures/audit-sampling >"$D/smp.out" 2>"$D/smp.err"
st=$?
if [[ $st == 1 ]] && diff -u tests/fixtures/audit-sampling/expected.txt "$D/smp.out" >"$D/smp.diff" &&
    grep -q 'failed run (no samples): tests/fixtures/audit-sampling/aa/X.1.syms' "$D/smp.err"; then
    echo "PASS audit-sampling-from"
else
    echo "FAIL audit-sampling-from: status $st: $(head -c 400 "$D/smp.diff") $(head -2 "$D/smp.err")"
fi
# its runs: a stand-in for perf runs the command and gives canned samples
# (the program thread's, tally-run, and the compile thread's, which do
# not count); a stand-in for tally records its arguments, leaves a unit
# directory as -X jit.dump=units does, and fails when its options hold
# $FAKE_FAIL.  Each run's units are removed once perf has named them.
cat >"$D/fake-perf" <<'EOF'
#!/bin/sh
case "$1" in
record)
    while [ "$1" != -- ]; do shift; done
    shift
    exec "$@" ;;
script)
    printf '%s\n' '       tally-run 7/9  41 tj1_T_run' '       tally-run 7/9  42 tj1_T_run' \
        '       tally-run 7/9  43 tj1_T_run' '       tally-run 7/9  44 ta2_t_T_run' \
        '       tally-jit 7/8  45 ta2_t_T_run' '           tally 7/7  46 main' ;;
esac
EOF
cat >"$D/fake-tally-smp" <<EOF
#!/bin/sh
echo "\$*" >>"$D/smp.args"
mkdir -p "$D/tally-jit-unit\$\$"
echo "=== jit unit: T.run (#1): $D/tally-jit-unit\$\$" >&2
case "\$*" in *"\${FAKE_FAIL:-none}"*) exit 3 ;; esac
echo "Towers: iterations=1 runtime: 100us"
EOF
chmod +x "$D/fake-perf" "$D/fake-tally-smp"
rm -rf "$D/smp.args" "$D"/tally-jit-unit*
FAKE_FAIL=--audit=aa PERF=$D/fake-perf TALLY=$D/fake-tally-smp bash bench/audit-sampling --clients=inline,aa --runs=2 \
    Towers=1:1 >"$D/smp.out" 2>"$D/smp.err"
st=$?
a=$D/smp.args
if [[ $st == 1 && $(grep -c . "$a") == 4 && $(grep -c -- '-X jit.dump=units --audit=inline run .*Towers.tl 1 1$' "$a") == 2 &&
    $(grep -c -- '--audit=aa' "$a") == 2 ]] && ! ls -d "$D"/tally-jit-unit* >/dev/null 2>&1 &&
    grep -q '^Towers  *25.00% (25.00-25.00) 25.00%, 4  *failed *$' "$D/smp.out" &&
    grep -q 'FAILED aa Towers run 2: status 3' "$D/smp.err" &&
    grep -q '^inline: mean over 1 benchmark: timing 25.00%, .* (goal <= 1%: not within)$' "$D/smp.out"; then
    echo "PASS audit-sampling-runs"
else
    echo "FAIL audit-sampling-runs: status $st: $(head -c 300 "$a" 2>/dev/null) $(tail -3 "$D/smp.out") $(tail -2 "$D/smp.err")"
fi
check audit-sampling-no-perf 2 "no '/nonexistent/perf' (Debian: apt-get install linux-perf; or set PERF)" -- \
    env PERF=/nonexistent/perf bash bench/audit-sampling Towers
check audit-sampling-runs-bad 2 "runs must be a positive number" -- bash bench/audit-sampling --runs=0 Towers
check audit-sampling-clients-bad 2 "bad --clients 'In-line'" -- bash bench/audit-sampling --clients=In-line Towers
check audit-sampling-unknown 2 "bench/awfy/Nope.tl" -- bash bench/audit-sampling Nope=1:1
check audit-overhead-rounds-bad 2 "rounds must be a positive number" -- bash bench/audit-overhead --rounds=0 Towers
check audit-overhead-configs-bad 2 "bad --configs 'A,C'" -- bash bench/audit-overhead --configs=A,C Towers
check audit-overhead-unknown 2 "no benchmark bench/awfy/Nope.tl" -- bash bench/audit-overhead Nope
check audit-verify-oracle 2 "tunable 'audit.verify' samples on after the online test's decision; audit.oracle makes none" -- \
    $T --audit=aa -X audit.verify=1 -X audit.oracle=1 run "$D/ok.tla"
check help-audit-verify 0 "audit.verify" -- $T --help=tunables
# the threads are named (perf report --sort comm, top -H, gdb): the
# program's, the compile thread, with --audit the auditor's two and
# with --stats its writer
printf 'fn main() {\n    var t = 0;\n    for k in 0..4000000000 { t = t + k %% 7; }\n    println(t);\n}\n' >"$D/spin.tl"
$T --audit=aa --stats="$D/spin.json" run "$D/spin.tl" >/dev/null 2>&1 </dev/null &
spin=$!
names=""
for i in $(seq $((50 * SCALE))); do
    sleep 0.1
    names=$(cat /proc/$spin/task/*/comm 2>/dev/null | sort | tr '\n' ' ')
    [[ $names == *tally-analysis*tally-bakeoff*tally-jit*tally-run*tally-stats* ]] && break
done
kill $spin 2>/dev/null
wait $spin 2>/dev/null
if [[ $names == *tally-analysis*tally-bakeoff*tally-jit*tally-run*tally-stats* ]]; then echo "PASS thread-names"
else echo "FAIL thread-names: threads named '$names'"; fi

# With auditing: bakeoffs[] in the stats file (one per line, valid JSON)
# and one --log=audit line per event, ids matching
$T --audit=aa --log=audit --jit=sync -X vm.hot_threshold=2 -X audit.hot_threshold=0 \
    run --stats="$D/aa.json" "$D/jitloop.tl" >"$D/out" 2>"$D/err" </dev/null
st=$?
if [[ $st -ne 0 || $(cat "$D/out") != 285 ]]; then
    echo "FAIL audit-stats-log: status $st, stdout '$(head -c 80 "$D/out")': $(head -2 "$D/err")"
elif ! json_ok "$D/aa.json"; then
    echo "FAIL audit-stats-log: $(cat "$D/jc.out")"
elif ! grep -qE '^\{"id":1,"method":"(main|sq)","client":"aa","phase":"[a-z]+","outcome":"[a-z-]+",.*,"variants":\[\{"name":"a",.*\}\],"timing":"(method|markers)",.*\}$' "$D/aa.json" ||
    ! grep -q '^"bakeoffs":\[$' "$D/aa.json"; then
    echo "FAIL audit-stats-log: no bakeoff line: $(grep -A2 bakeoffs "$D/aa.json" | head -c 300)"
elif ! grep -qE '^\[[0-9]+\.[0-9]{3}ms\] audit: queued #1 (main|sq) client=aa variants=a,b$' "$D/err"; then
    echo "FAIL audit-stats-log: no queued line: $(head -3 "$D/err")"
elif grep -vqE '^\[[0-9]+\.[0-9]{3}ms\] audit: (queued|compiled|sampling|decided|failed|cancelled) #[0-9]+ [^ ]+ client=aa( |:|$)' "$D/err"; then
    echo "FAIL audit-stats-log: malformed line: $(grep -vE '^\[[0-9.]+ms\] audit: ' "$D/err" | head -2)"
else
    echo "PASS audit-stats-log"
fi

# vm.cpu pins the program's thread alone (vm/vm.c): in a run that loops,
# one thread may run on CPU 0 only and the others keep every CPU
check vm-cpu-bad 2 "tunable 'vm.cpu' expects a CPU number, got 'x'" -- $T -X vm.cpu=x run "$D/ok.tla"
check vm-cpu-absent 2 "tunable 'vm.cpu': CPU 1000 is not one this process may run on" -- $T -X vm.cpu=1000 run "$D/ok.tla"
check help-vm-cpu 0 "vm.cpu" -- $T --help=tunables
printf 'fn main() {\n    var t = 0;\n    while t >= 0 { t = (t + 1) %% 1000; }\n}\n' >"$D/forever.tl"
for jit in on off; do
    others=2   # the main thread, waiting, and the JIT's (--jit=off: none)
    [[ $jit == off || $(nproc) == 1 ]] && others=0
    $T --jit=$jit -X vm.cpu=0 run "$D/forever.tl" >/dev/null 2>&1 </dev/null &
    pid=$! pinned=0 all=0
    # a watchdog: a run this script fails to kill still ends
    (sleep $((20 * SCALE)); kill $pid) >/dev/null 2>&1 &
    for i in $(seq $((50 * SCALE))); do
        sleep 0.1
        pinned=$(grep -l '^Cpus_allowed_list:[[:space:]]*0$' /proc/$pid/task/*/status 2>/dev/null | wc -l)
        all=$(grep -L '^Cpus_allowed_list:[[:space:]]*0$' /proc/$pid/task/*/status 2>/dev/null | wc -l)
        ((pinned == 1 && all >= others)) && break
    done
    kill $pid 2>/dev/null
    wait $pid 2>/dev/null
    if ((pinned == 1 && all >= others)); then
        echo "PASS vm-cpu-pins-jit-$jit"
    else
        echo "FAIL vm-cpu-pins-jit-$jit: $pinned threads on CPU 0 alone, $all others"
    fi
done

# loop timings (code markers): `kernel` runs 240 times, its time all in its
# loop; with markers its -O0/-O2 bakeoff decides -O2, with method
# timings it never gets a timed call to decide on
LOOPY=tests/fixtures/loops/rare-loop.tl
LOOPY_RUN=($T --audit=custom -X 'audit.custom=-O0;-O2' -X audit.hot_threshold=20 --log=audit)
check_timed loops-markers-decide 0 "audit: decided #1 kernel client=custom outcome=winner winner=-O2" -- \
    "${LOOPY_RUN[@]}" -X audit.timing=markers run $LOOPY 240 200
"${LOOPY_RUN[@]}" -X audit.timing=method run $LOOPY 240 200 >"$D/out" 2>&1 </dev/null
if grep -q 'audit: queued #1 kernel' "$D/out" && ! grep -q 'audit: decided' "$D/out"; then
    echo "PASS loops-method-undecided"
else
    echo "FAIL loops-method-undecided: $(excerpt "$D/out")"
fi
"${LOOPY_RUN[@]}" -X audit.timing=markers --stats="$D/loops.json" run $LOOPY 60 200 >"$D/out" 2>&1 </dev/null
if grep -q '"timing":"markers"' "$D/loops.json" && grep -q '"markers":\[{"point":0,"pc":[0-9]*,"line":[0-9]*,"variants":\[{"sites":[1-9]' "$D/loops.json" &&
    grep -q '"scores":{"method":{"timings":[0-9]*,"converge":' "$D/loops.json"; then
    echo "PASS loops-stats"
else
    echo "FAIL loops-stats: $(grep -o '"timing":[^,]*,"timing_reason":[^,]*' "$D/loops.json" | head -2)"
fi
# two such methods called in turn, 40 calls each: both sample at once
# (research.beside) and each decides -O2 within the run (not under a
# sanitizer, TALLY_TIMEOUT_SCALE > 1: compiling the variants then takes
# most of the run)
both=0
((SCALE > 1)) && both=skip
for i in 1 2 3; do
    [[ $both == skip ]] && break
    "${LOOPY_RUN[@]}" -X audit.timing=markers run tests/fixtures/loops/two-loops.tl 40 300 >"$D/out" 2>&1 </dev/null
    if grep -q 'audit: decided #[12] smooth .*outcome=winner winner=-O2' "$D/out" &&
        grep -q 'audit: decided #[12] mix .*outcome=winner winner=-O2' "$D/out"; then
        both=1 && break
    fi
done
if [[ $both == skip ]]; then
    echo "skipped loops-beside-both-decide: its outcome hangs on timings"
elif ((both)); then
    echo "PASS loops-beside-both-decide"
else
    echo "FAIL loops-beside-both-decide (3 runs): $(excerpt "$D/out")"
fi
# method timings said so: the reason is in the statistics (2000 calls: the
# run must outlast the variants' compile, up to 200 ms on a slow host)
"${LOOPY_RUN[@]}" -X audit.timing=method --stats="$D/loops.json" run $LOOPY 2000 10 >/dev/null 2>&1 </dev/null
check loops-method-reason 0 '"timing":"method","timing_reason":"audit.timing=method"' -- cat "$D/loops.json"
check audit-timing-bad 2 "tunable 'audit.timing' expects \"auto\", \"method\", \"markers\" or \"naive\", got 'loops'" -- \
    $T --audit=aa -X audit.timing=loops run "$D/ok.tla"
check markers-kind-bad 2 "tunable 'markers.kind' expects \"plain\" or \"pinned\", got 'x'" -- $T -X markers.kind=x run "$D/ok.tla"
check markers-everywhere-bad 2 "tunable 'markers.everywhere' expects \"off\", \"loops\" or \"blocks\", got 'all'" -- \
    $T -X markers.everywhere=all run "$D/ok.tla"
check help-markers 0 "markers.min_cost" -- $T --help=tunables
# markers everywhere, removed after optimization: the same output, the map dumped
check markers-everywhere-blocks 0 "285" -- $T --jit=eager -X markers.everywhere=blocks run "$D/jitloop.tl"
check markers-everywhere-dump 0 "marker tj" -- $T --jit=eager -X markers.everywhere=loops -X jit.dump=markers run "$D/jitloop.tl"
# A/A with loop timings: identical variants never get a winner (3 runs)
for i in 1 2 3; do
    $T --audit=aa -X audit.timing=markers -X audit.hot_threshold=20 --log=audit run $LOOPY 60 200 >"$D/out" 2>&1 </dev/null
    if grep -q 'audit: compiled #1 kernel client=aa variants=2 .*markers=1' "$D/out" && ! grep -q 'outcome=winner' "$D/out"; then
        echo "PASS loops-aa-no-winner-$i"
    else
        echo "FAIL loops-aa-no-winner-$i: $(excerpt "$D/out")"
    fi
done

# Clean code writes no marker.  mk_writes FILE: one line per instruction
# of an assembly dump that writes a code marker (a store, add or inc with
# <fn>_mk<K>(%rip) as its destination, the last operand): "FUNCTION
# SYMBOL NEXT", NEXT the instruction after it ("call X" or "-")
mk_writes() {
    awk '
        pending != "" { n = ($1 == "call") ? "call " $2 : "-"; print pending, n; pending = "" }
        /^[A-Za-z_][A-Za-z0-9_.]*:/ { fn = substr($1, 1, length($1) - 1); next }
        /^[[:space:]]+[a-z]/ && $1 !~ /^(cmp|test|bt|push)/ &&
            match($0, /[A-Za-z0-9_.]*_mk[0-9]+\(%rip\)[[:space:]]*$/) {
            sym = substr($0, RSTART, RLENGTH); sub(/\(%rip\).*/, "", sym); pending = fn " " sym
        }
        END { if (pending != "") print pending, "-" }' "$1"
}
# it finds what gcc made of markers: 7 write sites of one marker in an
# unrolled loop with its remainder, the store after a loop behind a flag
n=$(mk_writes tests/fixtures/markers/sum_yield.unroll4.s | grep -c '^sum_yield sum_yield_mk0 -$')
n2=$(mk_writes tests/fixtures/markers/sum_call.O2.s | grep -c '^sum_call sum_call_mk[01] -$')
if [[ $n == 7 && $n2 == 2 ]]; then echo "PASS markers-writes-found"; else echo "FAIL markers-writes-found: $n of 7, $n2 of 2"; fi
printf '%s\n' 'fn kernel(a: int[], reps: int): int {' '    var s = 0;' '    for r in 0..reps {' \
    '        for i in 0..a.length { s = s + a[i] * (r + 3) / (1 + (i & 7)) - (s >> 9); }' '    }' \
    '    var k = 0;' '    while k < a.length { if a[k] > 990 { break; } k += 1; }' '    return s + k;' '}' \
    'fn main() {' '    let a = new int[500];' '    for i in 0..a.length { a[i] = (i * 7919) % 1000; }' \
    '    var total = 0;' '    for c in 0..40 { total = total + kernel(a, 10); }' '    println(total);' '}' >"$D/mkloops.tl"
# markers.everywhere: every unit's assembly, after the edit, has lost every
# marker write its map found (plain markers at three option sets, pinned
# ones at O3); the output is the interpreter's
for prog in "$D/mkloops.tl" tests/lang/stmt_break_continue.tl "bench/kernels/fannkuch.tl 5"; do
    $T --jit=off run $prog >"$D/mk.want" 2>&1 </dev/null
    for set in O0 O2 unroll pinned; do
        name="markers-clean-$(basename "${prog%% *}" .tl)-$set"
        opts=(-X jit.optset=$set)
        [[ $set == pinned ]] && opts=(-X jit.optset=O3 -X markers.kind=pinned)
        $T --jit=eager "${opts[@]}" -X markers.everywhere=blocks -X jit.dump=asm,markers run $prog \
            >"$D/mk.out" 2>"$D/mk.asm" </dev/null
        sites=$(sed -n 's/^marker tj[0-9]*_.*: \([0-9]*\) sites\{0,1\}$/\1/p' "$D/mk.asm" | awk '{ n += $1 } END { print n + 0 }')
        mk_writes "$D/mk.asm" >"$D/mk.writes"
        if ! cmp -s "$D/mk.out" "$D/mk.want"; then
            echo "FAIL $name: output differs: $(diff "$D/mk.want" "$D/mk.out" | head -3)"
        elif ((sites == 0)); then
            echo "FAIL $name: the marker maps list no write site: $(grep -m2 '^marker' "$D/mk.asm")"
        elif [[ -s $D/mk.writes ]]; then
            echo "FAIL $name: loaded code writes a marker: $(head -2 "$D/mk.writes")"
        else
            echo "PASS $name"
        fi
    done
done
# loop timings in a bakeoff: the dispatcher (ta<id>_d_...) and the clean
# variants (ta<id>_v<k>_..., copies ta<id>_c<c>v<k>_...) write no marker;
# each write of the timed copies (ta<id>_m<c>v<k>_...) is followed by a
# call of its marker's stub
$T --jit=sync -X vm.hot_threshold=2 --audit=aa -X audit.hot_threshold=0 -X audit.timing=markers \
    -X markers.min_cost=0 -X jit.dump=asm run "$D/mkloops.tl" >"$D/mk.out" 2>"$D/mk.asm" </dev/null
$T --jit=off run "$D/mkloops.tl" >"$D/mk.want" 2>&1 </dev/null
mk_writes "$D/mk.asm" >"$D/mk.writes"
timed=$(grep -cE '^ta[0-9]+_m[0-9]+v[0-9]+_' "$D/mk.writes")
unstubbed=$(grep -E '^ta[0-9]+_m[0-9]+v[0-9]+_' "$D/mk.writes" | awk '$3 != "call" || $4 != $2 "_stub"' | head -2)
clean=$(grep -vE '^ta[0-9]+_m[0-9]+v[0-9]+_' "$D/mk.writes" | head -2)
if ! cmp -s "$D/mk.out" "$D/mk.want"; then
    echo "FAIL markers-bakeoff-clean: output differs: $(diff "$D/mk.want" "$D/mk.out" | head -3)"
elif ! grep -qE '^ta[0-9]+_d_' "$D/mk.asm" || ! grep -qE '^ta[0-9]+_v0_' "$D/mk.asm"; then
    echo "FAIL markers-bakeoff-clean: no bakeoff with a dispatcher in the dump: $(grep -m2 '^===' "$D/mk.asm")"
elif ((timed == 0)); then
    echo "FAIL markers-bakeoff-clean: the timed copies write no marker"
elif [[ -n $unstubbed ]]; then
    echo "FAIL markers-bakeoff-clean: a timed write without its stub's call: $unstubbed"
elif [[ -n $clean ]]; then
    echo "FAIL markers-bakeoff-clean: clean code writes a marker: $clean"
else
    echo "PASS markers-bakeoff-clean"
fi
# bench/markers/markers.sh: a quick run of its cost part (test sizes, every
# method compiled) ends with the table and the markers its runs removed
bash bench/markers/markers.sh --quick cost Towers nbody >"$D/mk.out" 2>"$D/mk.err" </dev/null
st=$?
if ((st == 0)) && grep -q '^Towers  *awfy ' "$D/mk.out" && grep -q '^nbody  *kernel ' "$D/mk.out" &&
    grep -q '^  blocks   mean ' "$D/mk.out" && grep -Eq '^Towers .* [1-9][0-9]*/[1-9][0-9]*, [1-9][0-9]*/[1-9]' "$D/mk.out"; then
    echo "PASS markers-bench-quick"
else
    echo "FAIL markers-bench-quick: status $st: $(grep -m2 -E 'FAILED|^Towers|markers.sh' "$D/mk.out" "$D/mk.err")"
fi
check markers-bench-part-bad 2 "unknown part 'speed'" -- bash bench/markers/markers.sh speed
check markers-bench-runs-bad 2 "runs must be a positive number" -- bash bench/markers/markers.sh --runs=0 cost
check markers-bench-unknown 2 "unknown benchmark 'Nope'" -- bash bench/markers/markers.sh --quick cost Nope
# bench/startup.sh awfy: the first iteration each harness prints, per
# configuration, with stand-ins for java (2 ms) and tally (1 ms cold or
# without a cache, 0.5 ms with the warm cache, which the stand-in finds
# filled by the three runs before the rounds)
mkdir -p "$D/su-classes" && touch "$D/su-classes/Harness.class"
printf '#!/bin/sh\necho "$4: iterations=1 runtime: 2000us"\necho "$4: iterations=1 average: 2000us"\n' >"$D/su-java"
cat >"$D/su-tally" <<'SH'
#!/bin/bash
cache="" prog=""
for a in "$@"; do
    case $a in jit.cache=*) cache=${a#jit.cache=} ;; *.tl) prog=$(basename "$a" .tl) ;; esac
done
us=1000
if [[ -n $cache ]]; then
    mkdir -p "$cache"
    [[ $(ls "$cache" | wc -l) -ge 3 ]] && us=500
    touch "$cache/run-$RANDOM$RANDOM"
fi
echo "$prog: iterations=1 runtime: ${us}us"
echo "$prog: iterations=1 average: ${us}us"
SH
chmod +x "$D/su-java" "$D/su-tally"
TALLY=$D/su-tally JAVA=$D/su-java JAVAC=false JAVA_CLASSES=$D/su-classes bash bench/startup.sh --runs=2 awfy \
    >"$D/su.out" 2>"$D/su.err" </dev/null
st=$?
if ((st == 0)) && grep -qx '| Bounce | 1500 | 2 | 1 | 1 | 0.5 | 0.50 | 0.25 |' "$D/su.out" &&
    (($(grep -c '^| [A-Z][A-Za-z]* | [0-9]* | 2 | 1 | 1 | 0.5 |' "$D/su.out") == 14)) &&
    grep -qx 'geometric mean, first iteration / HotSpot: no cache 0.50, warm cache 0.25' "$D/su.out"; then
    echo "PASS startup-awfy-first-iteration"
else
    echo "FAIL startup-awfy-first-iteration: status $st: $(grep -m3 -E 'Bounce|geometric|startup.sh' "$D/su.out" "$D/su.err")"
fi

# every load route (jit.load) runs the same compiled code: elf (the object
# linked in-process), as (ld + dlopen), gccjit; each compiles every method
# and prints what the interpreter prints
"$T" --jit=off run examples/shapes.tl >"$D/routes-ref.out" 2>&1 </dev/null
for route in elf as gccjit; do
    "$T" --jit=eager -X jit.load=$route --log=jit run examples/shapes.tl >"$D/routes.out" 2>"$D/routes.err" </dev/null
    if ! cmp -s "$D/routes-ref.out" "$D/routes.out" || grep -q ' jit: failed' "$D/routes.err" ||
        ! grep -q ' jit: compiled #' "$D/routes.err"; then
        echo "FAIL jit-load-route-$route: $(grep -m1 -E 'jit: (failed|compiled)' "$D/routes.err")"
    else
        echo "PASS jit-load-route-$route"
    fi
done
"$T" -X jit.load=ldd run examples/hello.tl >"$D/routes.out" 2>&1 </dev/null
st=$?
if [[ $st == 2 ]] && grep -q "tunable 'jit.load': 'ldd' is not a load route (elf, as, gccjit)" "$D/routes.out"; then
    echo "PASS jit-load-route-unknown"
else
    echo "FAIL jit-load-route-unknown: status $st: $(head -1 "$D/routes.out")"
fi
