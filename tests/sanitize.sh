#!/usr/bin/env bash
# tests/sanitize.sh asan|tsan [suite...] — suites of tests/run.sh against the sanitized
# builds in build/asan/ or build/tsan/ (make test-asan, make test-tsan).
# Input: build/SAN/bin/tally, build/SAN/bin/tally-switch, build/SAN/unit-tests
# (and build/tsan-audit for the unit suite).  Output: run.sh's lines, then
# one FAIL line per sanitizer report (each process writes its reports to a
# file of its own, so a report fails even where a test ignores stderr or
# the status), and the usual last line "N passed, N failed".
#   asan  unit, program, tiers and cli: AddressSanitizer + UBSan (build/asan)
#   tsan  the threaded parts (build/tsan): the unit tests (compile thread,
#         auditor lifecycle, rings); the tiers suite's JIT and auditor tiers
#         (off as reference, on: the compile thread, audit and loops: the
#         bakeoff and analysis threads); the cli suite (periodic --stats,
#         the writer thread, bakeoffs with --log=audit, thread names)
# Naming suites runs those instead (while fixing a finding).
# Settings and why: docs/design.md, Tests.
set -u
cd "$(dirname "$0")/.."
SAN=${1:-}
case $SAN in
    asan | tsan) ;;
    *) echo "usage: tests/sanitize.sh asan|tsan [suite...]" >&2; exit 2 ;;
esac
for f in build/$SAN/bin/tally build/$SAN/bin/tally-switch build/$SAN/unit-tests; do
    [[ -x $f ]] || { echo "$f is missing (make test-$SAN)" >&2; exit 2; }
done
LOGS=$(mktemp -d /tmp/tally-$SAN.XXXXXX)
trap 'rm -rf "$LOGS"' EXIT
export TALLY_BIN=build/$SAN/bin TALLY_UNIT=build/$SAN/unit-tests
# suppressions, each with its reason: only reports inside libraries
SUPP=$PWD/tests/sanitize-$SAN.supp
[[ -f $SUPP ]] && SUPP_OPT=":suppressions=$SUPP" || SUPP_OPT=""
if [[ $SAN == asan ]]; then
    # Fake stacks for use-after-return would hide the program's locals from
    # the collector's stack scan.  LeakSanitizer neither tracks the
    # collector's objects nor scans them, yet finds no malloc'ed block
    # reachable only through them; its suppressions are libgccjit's and
    # the compiled code's own (tests/sanitize-lsan.supp).  Status 66 tells
    # a report from a run-time error (1).
    export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=0:exitcode=66:log_path=$LOGS/report$SUPP_OPT"
    export LSAN_OPTIONS="suppressions=$PWD/tests/sanitize-lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=66:log_path=$LOGS/report"
    export TALLY_TIMEOUT_SCALE=${TALLY_TIMEOUT_SCALE:-4}
    SUITES=(unit program tiers cli)
else
    # the collector's marker threads (gc.markers, 1 by default) are not
    # instrumented: TSan sees only our threads
    export TSAN_OPTIONS="exitcode=66:log_path=$LOGS/report:second_deadlock_stack=1$SUPP_OPT"
    export TALLY_TIMEOUT_SCALE=${TALLY_TIMEOUT_SCALE:-10}
    export TALLY_TIERS="on audit loops"
    # the unit tests that start threads (the compile thread, the auditor's,
    # the rings' producers), less those whose outcome hangs on timings:
    # bakeoffs' turns in 50 ms quanta, a call rate read against a budget,
    # the compile queue's order between two methods of close rates (calls
    # a second since queued: jit_queue_work_before_calls, _hurried_first)
    export TALLY_UNIT_ONLY="audit_end_to_end_custom audit_end_to_end_verify audit_end_to_end_copies
        audit_end_to_end_recursive audit_bakeoff_queue audit_bakeoff_starts audit_bakeoff_concurrent
        audit_bakeoff_compile audit_bakeoff_cut audit_bakeoff_extend audit_bakeoff_injected
        audit_bakeoff_yields audit_bakeoff_idle audit_ring audit_policy jit_queue_hottest_first jit_bakeoff
        jit_program jit_fault jit_shutdown jit_osr_background jit_each gc_raw_thread"
    SUITES=(unit tiers cli)
fi

[[ $# -gt 1 ]] && SUITES=("${@:2}")
bash tests/run.sh "${SUITES[@]}" | tee "$LOGS/run.out"
last=$(tail -1 "$LOGS/run.out")
if [[ ! $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    echo "tests/run.sh did not finish: $last"
    echo "0 passed, 1 failed"
    exit 1
fi
pass=${BASH_REMATCH[1]}
fail=${BASH_REMATCH[2]}
# each report file: one failure, with its first finding
for r in "$LOGS"/report.*; do
    [[ -f $r ]] || continue
    fail=$((fail + 1))
    what=$(grep -m1 -E 'ERROR: |WARNING: |runtime error: ' "$r")
    where=$(grep -m1 -E '^ +#[0-9]+ .* in [a-z_]+ [^ ]*(vm|lang|ir|jit|markers|audit|cli|tests)/' "$r")
    echo "FAIL $SAN report (pid ${r##*.}): ${what:-$(head -1 "$r")}"
    [[ -n $where ]] && echo "    at$where"
    cp "$r" "build/$SAN/" 2>/dev/null  # kept for reading: build/SAN/report.PID
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
