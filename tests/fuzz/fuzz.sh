#!/usr/bin/env bash
# tests/fuzz/fuzz.sh [--engine=afl|libfuzzer] [SECONDS [HARNESS...]] —
# coverage-guided fuzzing of each harness in tests/fuzz/harness/ (or only
# those named: module, source, asmtext, markers_scan) for SECONDS (default
# 60) on both cores, one harness after the other.  `make fuzz` builds the
# harnesses: with AFL++ (afl-clang-fast; build/afl/fuzz_NAME, run as a
# main and a secondary afl-fuzz instance) or with libFuzzer (clang;
# build/fuzz/fuzz_NAME, run with -fork=2), both with AddressSanitizer and
# UndefinedBehaviorSanitizer.
#
# Input: the built harnesses and bin/tally (to build .tlb seeds).  Seed
# corpora come from the repository (tests, examples, benchmarks, the
# markers' assembly fixtures); what an engine finds grows in its folder
# (build/fuzz/corpus/NAME, build/afl/out/NAME) from run to run;
# dictionaries are made from the tables (lang/tokens.def, vm/opcodes.def).
# Each harness first replays its regressions (tests/fuzz/regressions/NAME/)
# under the sanitizers.  Output: one line per harness: executions,
# coverage (edges), corpus size, crashes, hangs and (libFuzzer) leaks.
# Each crashing input is kept in build/ENGINE/crashes/NAME/ with a
# minimized copy beside it (min-*), ready to become a regression.  Exit
# status 1 if a harness found something, 2 on bad use.  Runs from the
# repository's root (the source harness imports stdlib/).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
engine=libfuzzer
case ${1:-} in
    --engine=afl | --engine=libfuzzer) engine=${1#--engine=}; shift ;;
    --engine=*) echo "tests/fuzz/fuzz.sh: unknown engine '${1#--engine=}' (afl or libfuzzer)" >&2; exit 2 ;;
esac
secs=${1:-60}
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "tests/fuzz/fuzz.sh: seconds must be a positive number, not '$secs'" >&2; exit 2; }
only=("${@:2}")
B=build/fuzz                # seeds and dictionaries, shared by both engines
H=build/fuzz                # the engine's harnesses, crashes and corpora
[[ $engine == afl ]] && H=build/afl
mkdir -p "$B/dict" "$B/seeds"

# dictionaries, from the tables
sed -n 's/^KW([A-Z_]*, *\("[^"]*"\)).*/\1/p; s/^TOK([A-Z_]*, *"'"'"'\(.*\)'"'"'").*/"\1"/p' lang/tokens.def >"$B/dict/source.dict"
sed -n 's/^OP(\([A-Z_0-9]*\),.*/"\1"/p' vm/opcodes.def >"$B/dict/asmtext.dict"
printf '"method"\n"end"\n"regs"\n"class"\n"native"\n"main"\n' >>"$B/dict/asmtext.dict"
printf '"movq"\n"addq"\n"(%%rip)"\n".comm"\n".text"\n"jmp"\n"jne"\n".L"\n"_mk0"\n".type"\n"@function"\n' >"$B/dict/markers_scan.dict"

# seeds: sources, assembly texts, modules built from the sources, gcc's asm
seed_dir() {   # NAME: the seed folder of a harness, filled once
    local d=$B/seeds/$1
    [[ -d $d ]] && { echo "$d"; return; }
    mkdir -p "$d"
    case $1 in
        source) find tests/lang examples bench -name '*.tl' -size -64k -exec cp -t "$d" {} + 2>/dev/null ;;
        asmtext) find tests -name '*.tla' -size -64k -exec cp -t "$d" {} + 2>/dev/null ;;
        markers_scan) cp tests/fixtures/markers/*.s "$d" 2>/dev/null ;;
        module)
            local f n=0
            for f in tests/lang/*.tl; do
                bin/tally build -o "$d/$((n++)).tlb" "$f" >/dev/null 2>&1 || true
                ((n < 200)) || break
            done ;;
    esac
    echo "$d"
}

# field NAME FILE...: the sum of an afl-fuzz statistic over its instances
field() {
    local name=$1
    shift
    awk -v k="$name" '$1 == k { n += $3 } END { print n + 0 }' "$@"
}

# libfuzzer NAME HARNESS CORPUS CRASHES DICT...: one campaign; its line of counts
libfuzzer() {
    local name=$1 h=$2 corpus=$3 crashes=$4
    shift 4
    local before log=$H/$name.log
    before=$(find "$corpus" -type f | wc -l)
    # -close_fd_mask=3: the programs' output and run-time errors go nowhere
    # (the sanitizers' reports still reach the log)
    "$h" -fork=2 -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -ignore_crashes=1 -ignore_timeouts=1 \
        -ignore_ooms=1 -close_fd_mask=3 -artifact_prefix="$crashes/" "$@" "$corpus" "$(seed_dir "$name")" >"$log" 2>&1
    local execs runs cov after
    execs=$(grep -o 'exec/s:\? [0-9]*' "$log" | tail -1)
    runs=$(sed -n 's/.*#\([0-9]*\).*/\1/p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    after=$(find "$corpus" -type f | wc -l)
    for c in "$crashes"/crash-* "$crashes"/leak-*; do
        [[ -f $c && ! -f $crashes/min-${c##*/} ]] || continue
        "$h" -minimize_crash=1 -max_total_time=60 -exact_artifact_path="$crashes/min-${c##*/}" "$c" >>"$log" 2>&1
    done
    printf '%-14s executions %-10s %-12s %-11s corpus %d (+%d), crashes %d, hangs %d, leaks %d\n' \
        "$name" "${runs:-0}" "(${execs:-exec/s: 0})" "${cov:-cov: 0}" "$after" $((after - before)) \
        "$(find "$crashes" -name 'crash-*' | wc -l)" "$(find "$crashes" -name 'timeout-*' | wc -l)" \
        "$(find "$crashes" -name 'leak-*' | wc -l)"
    return $(($(find "$crashes" -name 'crash-*' -o -name 'leak-*' | wc -l) > 0))
}

# afl NAME HARNESS CRASHES DICT...: a main and a secondary afl-fuzz (one
# per core) for secs; its line of counts
afl() {
    local name=$1 h=$2 crashes=$3
    shift 3
    local out=$H/out/$name log=$H/$name.log
    # Boehm reserves address space (-m none); afl's -i seeds are read
    # again on a resumed run (AFL_AUTORESUME)
    local -x AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1 \
        AFL_AUTORESUME=1 AFL_SUPPRESS_HANG_CHECK=1
    local dict=()
    [[ -n ${1:-} ]] && dict=(-x "${1#-dict=}")
    local inst pids=() execs0=0 secs0=0 old=("$out"/*/fuzzer_stats)
    mkdir -p "$H/out"
    # a resumed campaign's statistics go on from the last one's: this run's are the difference
    if [[ -f ${old[0]} ]]; then
        execs0=$(field execs_done "${old[@]}")
        secs0=$(awk '$1 == "run_time" { print $3; exit }' "${old[@]}")
    fi
    for inst in main:-M second:-S; do
        afl-fuzz "${inst#*:}" "${inst%%:*}" -V "$secs" -t 1000+ -m none "${dict[@]}" -i "$(seed_dir "$name")" \
            -o "$out" -- "$h" >"$log.${inst%%:*}" 2>&1 &
        pids+=($!)
    done
    wait "${pids[@]}"
    local stats=("$out"/*/fuzzer_stats)
    if [[ ! -f ${stats[0]} ]]; then
        echo "$name: afl-fuzz did not start: $(grep -m1 -E 'PROGRAM ABORT|ERROR' "$log.main" | sed 's/\x1b\[[0-9;]*m//g')"
        return 1
    fi
    local c n=0
    for c in "$out"/*/crashes/id:*; do
        [[ -f $c ]] || continue
        local keep=$crashes/$(basename "$(dirname "$(dirname "$c")")")-${c##*/crashes/}
        keep=${keep//[:,]/_}
        [[ -f $keep ]] && continue
        cp "$c" "$keep"
        afl-tmin -m none -t 5000 -i "$keep" -o "$crashes/min-${keep##*/}" -- "$h" >>"$log" 2>&1 || true
    done
    n=$(find "$crashes" -type f ! -name 'min-*' | wc -l)
    local execs secs_run
    execs=$(($(field execs_done "${stats[@]}") - execs0))
    secs_run=$(($(awk '$1 == "run_time" { print $3; exit }' "${stats[@]}") - secs0))
    printf '%-14s executions %-10s (exec/s: %d) cov: %-6s corpus %d, crashes %d, hangs %d\n' \
        "$name" "$execs" $((execs / (secs_run > 0 ? secs_run : 1))) \
        "$(awk '$1 == "edges_found" { if ($3 > m) m = $3 } END { print m + 0 }' "${stats[@]}")" \
        "$(awk '$1 == "corpus_count" { if ($3 > m) m = $3 } END { print m + 0 }' "${stats[@]}")" \
        "$n" "$(field saved_hangs "${stats[@]}")"
    return $((n > 0))
}

for name in "${only[@]}"; do
    [[ -x $H/fuzz_$name ]] || { echo "tests/fuzz/fuzz.sh: no harness '$name' (module, source, asmtext, markers_scan)" >&2; exit 2; }
done
found=0
for h in "$H"/fuzz_*; do
    [[ -x $h ]] || continue
    name=${h##*/fuzz_}
    [[ ${#only[@]} -eq 0 || " ${only[*]} " == *" $name "* ]] || continue
    corpus=$H/corpus/$name crashes=$H/crashes/$name
    mkdir -p "$crashes"
    [[ $engine == libfuzzer ]] && mkdir -p "$corpus"
    dict=()
    [[ -f $B/dict/$name.dict ]] && dict=(-dict="$B/dict/$name.dict")
    # the inputs found before, once each under the sanitizers
    regs=(tests/fuzz/regressions/"$name"/*)
    if [[ -f ${regs[0]} ]] && ! "$h" "${regs[@]}" >"$H/$name.replay.log" 2>&1; then
        echo "$name: a regression fails again (tests/fuzz/regressions/$name/; log $H/$name.replay.log)"
        found=1
    fi
    if [[ $engine == afl ]]; then
        afl "$name" "$h" "$crashes" "${dict[@]}" || found=1
    else
        libfuzzer "$name" "$h" "$corpus" "$crashes" "${dict[@]}" || found=1
    fi
done
((found)) && echo "inputs that crashed or leaked are in $H/crashes/ (min-*: minimized)" && exit 1
exit 0
