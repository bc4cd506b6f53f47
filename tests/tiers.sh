# tests/tiers.sh — the tiers every program must agree on, written once.
# Sourced (bash) by tests/run.sh (suite tiers) and tests/gen/tiers.sh
# (random programs) and tests/faults.sh; defines TIERS, an array of
# "BIN [options]" strings, the reference (switch interpreter) first, with
# the binaries of $TALLY_BIN (bin), and TIER_NAMES; $TALLY_TIERS (names)
# keeps only those tiers, in its order.
B=${TALLY_BIN:-bin}
#
# The auditor's tier: every method compiled at its second call gets an A/A
# bakeoff at once (sync: its dispatcher is installed before the program
# goes on), sampled every other call, decided or timed out within 50 ms,
# and the chosen clean code installed while the program runs; tiny
# methods too (audit.min_cost=0), which by default are never audited.
AUDIT_TIER="$B/tally --jit=sync -X vm.hot_threshold=2 --audit=aa -X audit.hot_threshold=0 -X audit.concurrent=4"
AUDIT_TIER+=" -X audit.sample_every=2 -X audit.burst=2 -X audit.min_samples=30 -X audit.trim_window=4"
AUDIT_TIER+=" -X audit.trim_drop=1 -X audit.timeout_ms=50 -X audit.interval_ms=1 -X audit.min_cost=0"
# code markers: one in every block of every compiled method, deleted
# from the optimized code (markers.everywhere); and the auditor's tier
# with loop timings, every audited method with a loop getting timed
# marker code (audit.timing=markers, markers.min_cost=0: any loop)
MARKERS_TIER="$B/tally --jit=eager -X markers.everywhere=blocks"
LOOPS_TIER="$AUDIT_TIER -X audit.timing=markers -X markers.min_cost=0"
# the code cache: every method compiled with link slots, and loaded from
# the cache when an earlier program (or run) compiled it to the same code
# (the standard library's methods, the same program run again)
TIER_CACHE=${TALLY_TIER_CACHE:-${TMPDIR:-/tmp}/tally-tier-cache-$(id -u)}
CACHE_TIER="$B/tally --jit=eager -X jit.cache=$TIER_CACHE -X jit.cache_max=64M"
# and, run right after it, the background JIT with the same cache: it
# preloads, before the program starts, the code the cached tier's run of
# the same program compiled or loaded (jit.preload)
PRELOAD_TIER="$B/tally -X jit.cache=$TIER_CACHE -X jit.cache_max=64M"
# shellcheck disable=SC2034  # used by the scripts that source this file
TIERS=("$B/tally-switch --jit=off" "$B/tally --jit=off" "$B/tally --jit=eager" "$B/tally" "$AUDIT_TIER"
    "$MARKERS_TIER" "$LOOPS_TIER" "$CACHE_TIER" "$PRELOAD_TIER")
TIER_NAMES=(switch off eager on audit markers loops cached preloaded)
if [[ -n ${TALLY_TIERS:-} ]]; then
    chosen=()
    for name in $TALLY_TIERS; do
        for i in "${!TIER_NAMES[@]}"; do [[ ${TIER_NAMES[$i]} == "$name" ]] && chosen+=("${TIERS[$i]}"); done
    done
    TIERS=("${chosen[@]}")
fi
