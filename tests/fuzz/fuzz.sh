#!/usr/bin/env bash
# tests/fuzz/fuzz.sh [SECONDS] — coverage-guided fuzzing of each harness in
# tests/fuzz/harness/ (built by `make fuzz` as build/fuzz/fuzz_NAME with
# libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer) for SECONDS
# (default 60) on both cores, one harness after the other.
#
# Input: the built harnesses and bin/tally (to build .tlb seeds).  Seed
# corpora come from the repository (tests, examples, benchmarks, the
# markers' assembly fixtures) and grow in build/fuzz/corpus/NAME between
# runs; dictionaries are made from the tables (lang/tokens.def,
# vm/opcodes.def).  Each harness first replays its regressions
# (tests/fuzz/regressions/NAME/) under the sanitizers.  Output: one line per harness: executions, coverage
# (edges), new corpus entries, crashes, hangs and leaks; any crash input
# is kept in build/fuzz/crashes/NAME/.  Exit status 1 if a harness found
# something, 2 on bad use.  Runs from the repository's root (the source
# harness imports stdlib/).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
secs=${1:-60}
[[ $secs =~ ^[1-9][0-9]*$ ]] || { echo "tests/fuzz/fuzz.sh: seconds must be a positive number, not '$secs'" >&2; exit 2; }
B=build/fuzz
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

found=0
for h in "$B"/fuzz_*; do
    [[ -x $h ]] || continue
    name=${h##*/fuzz_}
    corpus=$B/corpus/$name crashes=$B/crashes/$name
    mkdir -p "$corpus" "$crashes"
    dict=()
    [[ -f $B/dict/$name.dict ]] && dict=(-dict="$B/dict/$name.dict")
    # the inputs found before, once each under the sanitizers
    regs=(tests/fuzz/regressions/"$name"/*)
    if [[ -f ${regs[0]} ]] && ! "$h" "${regs[@]}" >"$B/$name.replay.log" 2>&1; then
        echo "$name: a regression fails again (tests/fuzz/regressions/$name/; log $B/$name.replay.log)"
        found=1
    fi
    before=$(find "$corpus" -type f | wc -l)
    log=$B/$name.log
    "$h" -fork=2 -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -ignore_crashes=1 -ignore_timeouts=1 \
        -ignore_ooms=1 -artifact_prefix="$crashes/" "${dict[@]}" "$corpus" "$(seed_dir "$name")" >"$log" 2>&1
    execs=$(grep -o 'exec/s:\? [0-9]*' "$log" | tail -1)
    runs=$(sed -n 's/.*#\([0-9]*\).*/\1/p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    after=$(find "$corpus" -type f | wc -l)
    nhang=$(find "$crashes" -name 'timeout-*' | wc -l)
    nleak=$(find "$crashes" -name 'leak-*' | wc -l)
    ncrash=$(find "$crashes" -name 'crash-*' | wc -l)
    printf '%-14s executions %-10s %-12s %-11s corpus +%d, crashes %d, hangs %d, leaks %d\n' \
        "$name" "${runs:-0}" "(${execs:-exec/s: 0})" "${cov:-cov: 0}" $((after - before)) "$ncrash" "$nhang" "$nleak"
    ((ncrash + nleak)) && found=1
done
((found)) && echo "inputs that crashed or leaked are in $B/crashes/" && exit 1
exit 0
