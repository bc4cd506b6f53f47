#!/usr/bin/env bash
# tests/run.sh — every test of `make test`; the last line is "N passed, N failed".
#
# Suites, in order:
#   unit      C unit tests (build/unit-tests)
#   program   tests/vm/*.tla and tests/lang/*.tl with `// expect…` lines, on
#             every VM build, in the JIT's eager and sync modes, and from
#             the assembled/built .tlb too;
#             examples/*.tl against tests/lang/examples/*.expect
#   tiers     every program gives identical stdout, stderr and status on
#             every tier: switch and threaded interpreters, JIT eager and
#             JIT on (the default), with A/A bakeoffs (--audit=aa), with
#             code markers in every block (markers.everywhere), with
#             A/A bakeoffs timing loops (audit.timing=markers), and through
#             the code cache (jit.cache: link slots, entries shared by
#             programs)
#   gen       random programs (build/tlgen, seeds GEN_FIRST.. (1), GEN_COUNT
#             of them (200)) on every tier of the tiers suite: identical
#             stdout, stderr and status, no failed JIT compile, no timeout;
#             a pass per program (tests/gen/tiers.sh, without reduction);
#             the reduced programs of tests/gen/regressions/ replayed the
#             same way (a pass each); the reducer on a fake mismatch (a
#             pass per seed, tests/gen/reduce-test.sh)
#   verify    tests/verify/*.tla must be rejected with the exact message
#   catalog   every compile error message in lang/diag.def has its test
#   roundtrip asm → dis → asm gives identical bytes and identical text
#   cli       the command's own behaviour (tests/cli.sh)
#   report    `tally report` (tests/report.sh): bad inputs, the stats members
#             it draws, a report of two audited runs checked in headless
#             Chromium (no console error, its elements, a bakeoff section per
#             bakeoff: tests/report-dom.py) and its screenshot
#   lab       tally lab (tests/lab.sh): a 3 × 3 × 5 matrix with GNU
#             parallel (resumption, the merged table), --ssh through a
#             loginfile naming this host, and a Slurm job array on a
#             single-node Slurm the suite starts and stops
#   study     raw samples (-X audit.record), tools/tallysamples.py and
#             `tally study` (tests/study.sh)
#   cache     tests/cache.sh: the code cache (-X jit.cache): a second run
#             compiles nothing, a changed method or option set misses, a
#             damaged entry is recompiled, two writers at once, a directory
#             others may use refused, a failed write stores nothing
#   faults    tests/faults.sh: each fault point (vm/faults.def) × the
#             interpreter, the JIT and the auditor leaves stdout and the
#             status as they were and a valid stats file; signals too
#   mutate    ≥20,000 random mutations/truncations of valid modules end in
#             exit 0, 1 or 2, never a signal
#   regressions  every input make fuzz found (tests/fuzz/regressions/)
#             runs through `tally run --stats` (interpreted, with a step
#             budget) to exit 0, 1 or 2, never a signal, and what ran
#             leaves valid stats JSON
#   srcfuzz   ≥10,000 mutated .tl sources: the compiler never crashes, and
#             what it accepts always verifies
#   bench     bench/suite.sh --quick: every Are-We-Fast-Yet benchmark and CLBG
#             kernel at its test size verifies its result with the JIT off,
#             on and eager (kernels: output equal to the C twin's); all 14
#             AWFY files must exist (BENCH_REQUIRE_ALL=1)
#   peers     tests/peers.sh: bench/peers.sh --quick on two benchmarks with the
#             VMs installed (tally always; HotSpot and LuaJIT, or their
#             "skipped" lines): the table, results.json and results.md; a
#             size no VM can verify, a LuaJIT without its output and a
#             missing Lua 5.4 shown as FAILED and skipped; the curve mode
#   docs      tests/docs-check.sh: documents and code comments speak of the
#             product, not its history, and no link leaves the repository
#             (a pass per clean file, a failure per finding)
#   tour      tests/readme-tour.sh: every command of README.md's tour runs
#             in a fresh clone with the built binaries (a pass per command)
# Usage: tests/run.sh [suite...]   (default: all)
# Environment (tests/sanitize.sh sets them to run sanitized builds):
#   TALLY_BIN            the directory of tally and tally-switch (bin)
#   TALLY_UNIT           the unit tests' program (build/unit-tests)
#   TALLY_UNIT_ONLY      the unit tests to run: names' parts (all)
#   TALLY_TIMEOUT_SCALE  multiplies every timeout (1): sanitized code is slower
#   TALLY_TIERS          the tiers suite's tiers by name, the first the
#                        reference (all: switch off eager on audit markers loops cached)
set -u
cd "$(dirname "$0")/.."
B=${TALLY_BIN:-bin}
UNIT=${TALLY_UNIT:-build/unit-tests}
SCALE=${TALLY_TIMEOUT_SCALE:-1}
export TALLY_BIN=$B TALLY_TIMEOUT_SCALE=$SCALE  # for tests/cli.sh
secs() { echo $(($1 * SCALE)); }  # secs N: a timeout of N seconds, scaled

BUILDS=($B/tally $B/tally-switch)
# the expectation checks also run every program with every method compiled
# (eager) and with methods compiled on the hot path as soon as they are
# warm (sync: deterministic, unlike the background default)
CONFIGS=("${BUILDS[@]}" "$B/tally --jit=eager" "$B/tally --jit=sync -X vm.hot_threshold=2")
# tiers: the reference (switch interpreter) first (tests/tiers.sh, shared
# with the random programs of tests/gen/tiers.sh and tests/faults.sh)
source tests/tiers.sh
TMP=$(mktemp -d /tmp/tally-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
want() { [[ $# -eq 0 || " $* " == *" $SUITE "* ]]; }
SUITES=("$@")

# pass_fail_lines: counts the "PASS name" and "FAIL name: why" lines of a
# script's output (tests/cli.sh, tests/faults.sh); other lines are shown
pass_fail_lines() {
    local line
    while read -r line; do
        case $line in
            PASS*) ok ;;
            FAIL*) bad "${line#FAIL }" ;;
            *) echo "$line" ;;
        esac
    done
}

# directive FILE NAME: the values of "// NAME: value" lines, one per line
directive() { sed -n "s|^[[:space:]]*// $2: \{0,1\}||p" "$1"; }

# run_program "BIN [options]" FILE [extra file to run instead]: runs with the
# file's flags and args; leaves $TMP/out, $TMP/err, and the status in $status
run_program() {
    local bin=$1 file=$2 target=${3:-$2}
    local flags args
    flags=$(directive "$file" flags | tr '\n' ' ')
    args=$(directive "$file" args | tr '\n' ' ')
    # eager and sync compiles log (on the program's own thread, so whole
    # lines): the log is split off stderr, and its failed compiles are
    # kept, since a failed compile leaves the program in the interpreter
    # with the same output (a codegen bug would pass every other check)
    local log=()
    [[ $bin == *--jit=sync* || $bin == *--jit=eager* ]] && log=(-X jit.log=1)
    # shellcheck disable=SC2086
    timeout "$(secs 60)" $bin "${log[@]}" run $flags "$target" $args >"$TMP/out" 2>"$TMP/err_all" </dev/null
    status=$?
    grep -v '^\[[0-9.]*ms\] jit: ' "$TMP/err_all" >"$TMP/err"
    grep '^\[[0-9.]*ms\] jit: failed' "$TMP/err_all" >"$TMP/jit_failed"
}

# check_expect FILE LABEL: compares $TMP/out, $TMP/err, $status with the
# file's expectations
check_expect() {
    local file=$1 label=$2 want_status=0 msg
    if [[ -s $TMP/jit_failed ]]; then
        bad "$label: a JIT compile failed: $(head -1 "$TMP/jit_failed" | cut -c1-200)"
        return
    fi
    if grep -q '^[[:space:]]*// expect-error:' "$file"; then
        check_compile_errors "$file" "$label"
        return
    fi
    directive "$file" expect >"$TMP/want_out"
    if ! cmp -s "$TMP/want_out" "$TMP/out"; then
        bad "$label: stdout differs"
        diff "$TMP/want_out" "$TMP/out" | head -8
        return
    fi
    msg=$(directive "$file" expect-runtime-error)
    if [[ -n $msg ]]; then
        want_status=1
        if [[ "$(head -1 "$TMP/err")" != "error: $msg" ]]; then
            bad "$label: stderr starts with '$(head -1 "$TMP/err")', want 'error: $msg'"
            return
        fi
    fi
    if grep -q '^[[:space:]]*// expect-stderr:' "$file"; then
        directive "$file" expect-stderr >"$TMP/want_err"
        if ! cmp -s "$TMP/want_err" "$TMP/err"; then
            bad "$label: stderr differs"
            diff "$TMP/want_err" "$TMP/err" | head -8
            return
        fi
    elif [[ -z $msg && -s $TMP/err ]]; then
        bad "$label: unexpected stderr: $(head -3 "$TMP/err")"
        return
    fi
    local e
    e=$(directive "$file" expect-exit)
    [[ -n $e ]] && want_status=$e
    if [[ $status -ne $want_status ]]; then
        bad "$label: exit status $status, want $want_status"
        return
    fi
    ok
}

# check_compile_errors FILE LABEL: exit 2, and stderr holds exactly the
# expected `FILE:LINE:COL: error: MESSAGE` lines (and no other errors)
check_compile_errors() {
    local file=$1 label=$2 want n_want n_got
    if [[ $status -ne 2 ]]; then
        bad "$label: exit status $status, want 2 (compile error)"
        return
    fi
    while IFS= read -r want; do
        if ! grep -qxF -- "$file:$want" "$TMP/err"; then
            bad "$label: missing '$file:$want'; got: $(grep ': error: ' "$TMP/err" | head -3)"
            return
        fi
    done < <(directive "$file" expect-error | sed 's/^\([0-9]*:[0-9]*\): /\1: error: /')
    n_want=$(directive "$file" expect-error | wc -l)
    n_got=$(grep -c ': error: ' "$TMP/err")
    if [[ $n_got -ne $n_want ]]; then
        bad "$label: $n_got errors reported, want $n_want: $(grep ': error: ' "$TMP/err" | head -4)"
        return
    fi
    ok
}

# to_tlb FILE OUT: the module of a .tla or .tl program as a binary file
to_tlb() {
    if [[ $1 == *.tl ]]; then $B/tally build "$1" -o "$2"; else $B/tally asm "$1" -o "$2"; fi
}

PROGRAMS=(tests/vm/*.tla)
for f in tests/lang/*.tl; do [[ -f $f ]] && PROGRAMS+=("$f"); done

SUITE=unit
if want "${SUITES[@]}"; then
    echo "== unit"
    # shellcheck disable=SC2086
    $UNIT ${TALLY_UNIT_ONLY:-} >"$TMP/unit" 2>&1
    line=$(grep -E '^unit: [0-9]+ passed, [0-9]+ failed$' "$TMP/unit")
    if [[ -z $line ]]; then
        bad "unit tests did not finish"
        tail -20 "$TMP/unit"
    else
        grep -v '^unit:' "$TMP/unit" | head -40
        read -r p f < <(echo "$line" | awk '{print $2, $4}')
        pass=$((pass + p))
        fail=$((fail + f))
    fi
    # the auditor's sample buffers and analysis thread under ThreadSanitizer
    # (make tsan-audit): one test; any race report fails it (exit 66)
    if [[ ! -x build/tsan-audit ]]; then
        bad "build/tsan-audit is missing (make build/tsan-audit)"
    elif build/tsan-audit audit_ring >"$TMP/tsan" 2>&1 && grep -q '^unit: [1-9][0-9]* passed, 0 failed$' "$TMP/tsan"; then
        ok
    else
        bad "tsan-audit: $(grep -m3 -e WARNING -e FAIL -e '^unit:' "$TMP/tsan")"
    fi
fi

SUITE=program
if want "${SUITES[@]}"; then
    echo "== program (${#PROGRAMS[@]} programs × ${#CONFIGS[@]} configurations + .tlb)"
    for f in "${PROGRAMS[@]}"; do
        for b in "${CONFIGS[@]}"; do
            run_program "$b" "$f"
            check_expect "$f" "$f [$b]"
        done
        # the same program as a binary module
        tlb="$TMP/$(basename "$f").tlb"
        if to_tlb "$f" "$tlb" 2>"$TMP/asmerr" >/dev/null; then
            run_program $B/tally "$f" "$tlb"
            # traces name the source recorded in the module, so they match too
            check_expect "$f" "$f [.tlb]"
        elif [[ $(directive "$f" expect-exit) == 2 ]] || grep -q '// expect-error:' "$f"; then
            ok  # a load or compile error, also reported when building
        else
            bad "$f: building .tlb failed: $(head -2 "$TMP/asmerr")"
        fi
    done
    # examples: stdout against tests/lang/examples/NAME.expect (the first
    # lines, when the example also prints timings)
    for x in tests/lang/examples/*.expect; do
        [[ -f $x ]] || continue
        ex="examples/$(basename "$x" .expect).tl"
        timeout "$(secs 120)" $B/tally run "$ex" >"$TMP/out" 2>"$TMP/err" </dev/null
        status=$?
        n=$(wc -l <"$x")
        if [[ $status -ne 0 ]]; then
            bad "$ex: exit status $status: $(head -2 "$TMP/err")"
        elif ! head -n "$n" "$TMP/out" | cmp -s - "$x"; then
            bad "$ex: output differs from $x"
            head -n "$n" "$TMP/out" | diff "$x" - | head -6
        else
            ok
        fi
    done
fi

SUITE=tiers
if want "${SUITES[@]}"; then
    echo "== tiers (identical behaviour on: $(printf '[%s] ' "${TIERS[@]}"))"
    for f in "${PROGRAMS[@]}" examples/*.tla examples/*.tl; do
        [[ -f $f ]] || continue
        grep -q 'clock' "$f" && continue  # prints timings
        ref=""
        same=1
        for b in "${TIERS[@]}"; do
            run_program "$b" "$f"
            cur=$(cat "$TMP/out" "$TMP/err"; echo "status $status")
            if [[ -z $ref ]]; then ref=$cur; elif [[ $cur != "$ref" ]]; then same=0; break; fi
        done
        if [[ $same == 1 ]]; then ok; else bad "$f: tiers disagree ([${TIERS[0]}] vs [$b])"; fi
    done
fi

SUITE=gen
if want "${SUITES[@]}"; then
    echo "== gen (random programs on every tier: tests/gen/tiers.sh)"
    # one PASS/FAIL line per program; progress and the summary are information
    regs=()
    for f in tests/gen/regressions/*.tl; do [[ -f $f ]] && regs+=("$f"); done
    while IFS= read -r line; do
        case $line in
            PASS*) ok ;;
            FAIL*) bad "${line#FAIL }" ;;
            *) echo "$line" ;;
        esac
    done < <(GEN_VERBOSE=1 REDUCE=0 bash tests/gen/tiers.sh "${GEN_FIRST:-1}" "${GEN_COUNT:-200}" 2>&1
        [[ ${#regs[@]} -gt 0 ]] && GEN_VERBOSE=1 bash tests/gen/tiers.sh --replay "${regs[@]}" 2>&1
        bash tests/gen/reduce-test.sh 2>&1)
fi

SUITE=verify
if want "${SUITES[@]}"; then
    echo "== verify"
    for f in tests/verify/*.tla; do
        [[ -f $f ]] || continue
        msg=$(directive "$f" expect-error)
        if [[ -z $msg ]]; then
            bad "$f: no // expect-error: line"
            continue
        fi
        timeout "$(secs 20)" $B/tally run "$f" >"$TMP/out" 2>"$TMP/err"
        status=$?
        got=$(head -1 "$TMP/err")
        if [[ $status -ne 2 ]]; then
            bad "$f: exit status $status, want 2 ($got)"
        elif [[ $got != "error: $msg" ]]; then
            bad "$f: got '$got', want 'error: $msg'"
        elif [[ -s $TMP/out ]]; then
            bad "$f: printed output although it must not run"
        else
            ok
        fi
    done
fi

SUITE=catalog
if want "${SUITES[@]}"; then
    echo "== catalog (every compile error message in lang/diag.def has a test)"
    while read -r name; do
        t="tests/lang/err_$(tr 'A-Z' 'a-z' <<<"$name").tl"
        if [[ -f $t ]] && grep -q '// expect-error:' "$t"; then ok; else bad "no test $t for DIAG $name"; fi
    done < <(sed -n 's/^DIAG(\([A-Z_0-9]*\),.*/\1/p' lang/diag.def)
fi

SUITE=roundtrip
if want "${SUITES[@]}"; then
    echo "== roundtrip"
    mkdir -p "$TMP/rt"
    for f in tests/vm/*.tla tests/fixtures/format/*.tla bench/micro/*.tla examples/*.tla; do
        [[ -f $f ]] || continue
        n="$TMP/rt/$(basename "$f" .tla)"
        if ! $B/tally asm "$f" -o "$n.a.tlb" 2>"$TMP/err"; then
            [[ $(directive "$f" expect-exit) == 2 ]] && { ok; continue; }
            bad "$f: asm: $(head -1 "$TMP/err")"
            continue
        fi
        $B/tally dis "$n.a.tlb" >"$n.a.tla" &&
            $B/tally asm "$n.a.tla" -o "$n.b.tlb" &&
            $B/tally dis "$n.b.tlb" >"$n.b.tla"
        if [[ $? -ne 0 ]]; then
            bad "$f: disassembly does not reassemble"
        elif ! cmp -s "$n.a.tlb" "$n.b.tlb"; then
            bad "$f: asm(dis(m)) differs from m"
        elif ! cmp -s "$n.a.tla" "$n.b.tla"; then
            bad "$f: dis(asm(dis(m))) differs from dis(m)"
        else
            ok
        fi
    done
fi

SUITE=cli
if want "${SUITES[@]}"; then
    echo "== cli"
    pass_fail_lines < <(bash tests/cli.sh "$TMP/cli" 2>&1)
fi

SUITE=report
if want "${SUITES[@]}"; then
    echo "== report (tests/report.sh: tally report, rendered in headless Chromium)"
    pass_fail_lines < <(bash tests/report.sh "$TMP/report" 2>&1)
fi

SUITE=lab
if want "${SUITES[@]}"; then
    echo "== lab"
    pass_fail_lines < <(bash tests/lab.sh "$TMP/lab" 2>&1)
fi

SUITE=study
if want "${SUITES[@]}"; then
    echo "== study (tests/study.sh: -X audit.record, tools/tallysamples.py, tally study)"
    pass_fail_lines < <(bash tests/study.sh "$TMP/study" 2>&1)
fi

SUITE=cache
if want "${SUITES[@]}"; then
    echo "== cache (tests/cache.sh: -X jit.cache)"
    pass_fail_lines < <(bash tests/cache.sh "$TMP/cache" 2>&1)
fi

SUITE=faults
if want "${SUITES[@]}"; then
    echo "== faults"
    pass_fail_lines < <(bash tests/faults.sh "$TMP/faults" 2>&1)
fi

SUITE=mutate
if want "${SUITES[@]}"; then
    echo "== mutate"
    mkdir -p "$TMP/seeds"
    for f in tests/vm/*.tla tests/fixtures/format/*.tla; do
        [[ -f $f ]] || continue
        [[ $(directive "$f" expect-exit) == 2 ]] && continue
        grep -q 'gc.max_heap' "$f" && continue  # needs its flags to stay small
        $B/tally asm "$f" -o "$TMP/seeds/$(basename "$f" .tla).tlb" 2>/dev/null
    done
    for f in tests/lang/*.tl; do  # compiler output makes realistic seeds
        [[ -f $f ]] || continue
        grep -q -e '// expect-error:' -e 'gc.max_heap' "$f" && continue
        $B/tally build "$f" -o "$TMP/seeds/$(basename "$f" .tl).tl.tlb" 2>/dev/null
    done
    if build/mutate --runs "${MUTATE_RUNS:-20000}" --save build/mutants "$TMP"/seeds/*.tlb >"$TMP/mut" 2>&1; then
        ok
        tail -1 "$TMP/mut"
    else
        bad "mutation test: $(tail -3 "$TMP/mut")"
    fi
fi

SUITE=regressions
if want "${SUITES[@]}"; then
    echo "== regressions (tests/fuzz/regressions: inputs make fuzz found)"
    for f in tests/fuzz/regressions/*/*; do
        [[ -f $f ]] || continue
        case $f in
            *.tl | *.tla | *.tlb) ;;
            *) continue ;;  # replayed by make fuzz's harness only
        esac
        rm -f "$TMP/reg.json"
        timeout "$(secs 20)" $B/tally run --jit=off -X vm.max_steps=1000000 --stats="$TMP/reg.json" "$f" >"$TMP/reg.out" 2>&1 </dev/null
        st=$?
        # ends as a program, a run-time error (the step budget included)
        # or a rejected input; what ran leaves valid stats JSON
        if [[ $st != 0 && $st != 1 && $st != 2 ]]; then
            bad "regression $f: status $st: $(head -2 "$TMP/reg.out")"
        elif [[ -f $TMP/reg.json ]] && ! build/jsoncheck "$TMP/reg.json" >"$TMP/reg.jc" 2>&1; then
            bad "regression $f: invalid --stats JSON: $(head -1 "$TMP/reg.jc")"
        else
            ok
        fi
    done
fi

SUITE=srcfuzz
if want "${SUITES[@]}"; then
    echo "== srcfuzz"
    [[ -x build/srcfuzz ]] || bad "build/srcfuzz is missing (make build/srcfuzz)"
    seeds=()
    for f in tests/lang/*.tl examples/*.tl stdlib/*.tl; do
        [[ -f $f ]] || continue
        grep -q 'gc.max_heap' "$f" && continue
        seeds+=("$f")
    done
    if [[ ${#seeds[@]} -eq 0 ]]; then
        bad "srcfuzz: no seed sources"
    elif build/srcfuzz --runs "${SRCFUZZ_RUNS:-10000}" --save build/srcfuzz-found "${seeds[@]}" >"$TMP/sf" 2>&1; then
        ok
        tail -1 "$TMP/sf"
    else
        bad "source fuzz test: $(tail -3 "$TMP/sf")"
    fi
fi

SUITE=bench
if want "${SUITES[@]}"; then
    echo "== bench (bench/suite.sh --quick: test sizes, every tier)"
    # one PASS/FAIL line per program × tier; anything else is information
    BENCH_REQUIRE_ALL=1 bash bench/suite.sh --quick >"$TMP/bench" 2>&1
    bstatus=$?
    nbad=0
    while IFS= read -r line; do
        case $line in
            PASS*) ok ;;
            FAIL*) bad "bench: ${line#FAIL }"; nbad=$((nbad + 1)) ;;
            *) echo "$line" ;;
        esac
    done <"$TMP/bench"
    # a setup error (status 2) prints no FAIL line, and must not pass
    [[ $bstatus -ne 0 && $nbad -eq 0 ]] && bad "bench: bench/suite.sh --quick exited with status $bstatus"
fi

SUITE=peers
if want "${SUITES[@]}"; then
    echo "== peers (tests/peers.sh: bench/peers.sh --quick, a broken VM, the curves)"
    bash tests/peers.sh >"$TMP/peers" 2>&1
    pstatus=$?
    npbad=0
    while IFS= read -r line; do
        case $line in
            PASS*) ok ;;
            FAIL*) bad "${line#FAIL }"; npbad=$((npbad + 1)) ;;
            *) echo "$line" ;;
        esac
    done <"$TMP/peers"
    [[ $pstatus -ne 0 && $npbad -eq 0 ]] && bad "peers: tests/peers.sh exited with status $pstatus"
fi

SUITE=docs
if want "${SUITES[@]}"; then
    echo "== docs (tests/docs-check.sh)"
    bash tests/docs-check.sh >"$TMP/docs" 2>&1
    dstatus=$?
    while IFS= read -r line; do
        case $line in
            PASS*) ok ;;
            FAIL*) bad "${line#FAIL }" ;;
            *) echo "$line" ;;
        esac
    done <"$TMP/docs"
    # status 2: the check could not run (it prints no FAIL line)
    [[ $dstatus -eq 2 ]] && bad "docs: tests/docs-check.sh could not run"
fi

SUITE=tour
if want "${SUITES[@]}"; then
    echo "== tour (tests/readme-tour.sh: README.md's tour in a fresh clone)"
    bash tests/readme-tour.sh >"$TMP/tour" 2>&1
    tstatus=$?
    ntbad=0
    while IFS= read -r line; do
        case $line in
            PASS*) ok ;;
            FAIL*) bad "${line#FAIL }"; ntbad=$((ntbad + 1)) ;;
            *) echo "$line" ;;
        esac
    done <"$TMP/tour"
    [[ $tstatus -ne 0 && $ntbad -eq 0 ]] && bad "tour: tests/readme-tour.sh exited with status $tstatus"
fi

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
