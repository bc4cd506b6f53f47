#!/usr/bin/env bash
# tests/cli.sh DIR — the `tally` command's behaviour: help, version, bad
# usage (exit 2 with a suggestion), load errors, outputs never half-written,
# --stats.  Prints one "PASS name" or "FAIL name: why" line per check.
set -u
D=${1:-/tmp/tally-cli}
mkdir -p "$D"
T=bin/tally

# check NAME WANT_STATUS WANT_TEXT -- command...: the command exits with
# WANT_STATUS and its stdout+stderr contains WANT_TEXT
check() {
    local name=$1 want=$2 text=$3
    shift 4
    "$@" >"$D/out" 2>&1 </dev/null
    local st=$?
    if [[ $st -ne $want ]]; then
        echo "FAIL $name: status $st, want $want: $(head -2 "$D/out")"
    elif [[ -n $text ]] && ! grep -qF -- "$text" "$D/out"; then
        echo "FAIL $name: output lacks '$text': $(head -2 "$D/out")"
    else
        echo "PASS $name"
    fi
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

check help 0 "vm.hot_threshold" -- $T --help
check help-lists-commands 0 "tally [options] run FILE" -- $T --help
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
    elif grep -vqE '^\[[0-9]+\.[0-9]{3}ms\] jit: (queued|compiled|failed|dropped|summary) ' "$D/err"; then
        echo "FAIL $name: malformed line: $(grep -vE '^\[[0-9]+\.[0-9]{3}ms\] jit: ' "$D/err" | head -2)"
    else
        echo "PASS $name"
    fi
}
log_lines log-jit-compiled '^\[[0-9]+\.[0-9]{3}ms\] jit: compiled #1 main optset=O2 bytecode=[0-9]+ queue=[0-9]+us ir=[0-9]+us compile=[0-9]+us assemble=[0-9]+us code=[0-9]+B$' \
    -- $T --log=jit --jit=sync -X vm.hot_threshold=2 run "$D/jitloop.tl"
log_lines log-jit-compiled-sq '^\[[0-9.]+ms\] jit: compiled #2 sq optset=O2 ' \
    -- $T --log=jit --jit=sync -X vm.hot_threshold=2 run "$D/jitloop.tl"
log_lines log-jit-queued '^\[[0-9.]+ms\] jit: queued #[12] sq prio=[0-9]+$' \
    -- $T --log=jit -X vm.hot_threshold=2 run "$D/jitloop.tl"
log_lines log-jit-summary '^\[[0-9.]+ms\] jit: summary queued=2 compiled=[0-2] failed=0 dropped=[0-2]$' \
    -- $T --log=jit -X vm.hot_threshold=2 run "$D/jitloop.tl"
log_lines log-jit-injected '^\[[0-9.]+ms\] jit: failed #1 main: injected failure$' \
    -- $T --log=jit --jit=sync -X vm.hot_threshold=2 -X jit.fail_every=1 run "$D/jitloop.tl"
log_lines log-jit-optset '^\[[0-9.]+ms\] jit: compiled #1 main optset=O3 ' \
    -- $T --log=jit --jit=eager -X jit.optset=O3 run "$D/jitloop.tl"
check log-jit-quiet 0 "" -- $T --jit=sync -X vm.hot_threshold=2 run "$D/jitloop.tl"
[[ -s $D/out && $(cat "$D/out") == 285 ]] && echo "PASS jit-no-log-by-default" || echo "FAIL jit-no-log-by-default: $(head -2 "$D/out")"
