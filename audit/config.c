/* audit/config.c — the audit.* tunables (vm/tunables.def) as an AuConfig.
 *
 * Input: VmTunables (integers: fractions in basis points, times in ms).
 * Output: AuConfig in natural units, or false and a message naming the
 * tunable when a value makes no sense.  The defaults live in the tunables
 * table only.
 */
#include "audit.h"
#include "vm.h"

bool au_config_from_tunables(AuConfig *cfg, const VmTunables *tun, VmError *err)
{
    int test = au_test_parse(tun->audit_test);
    if (test < 0)
        return vm_fail(err, "tunable 'audit.test' expects \"sequential\" or \"paper\", got '%s'",
                       tun->audit_test ? tun->audit_test : "");
    if (tun->audit_confidence < 5000 || tun->audit_confidence >= 10000)
        return vm_fail(err, "tunable 'audit.confidence' must be in 5000..9999 (basis points), got %lld",
                       (long long)tun->audit_confidence);
    if (tun->audit_equivalence < 1 || tun->audit_equivalence >= 10000)
        return vm_fail(err, "tunable 'audit.equivalence' must be in 1..9999 (basis points), got %lld",
                       (long long)tun->audit_equivalence);
    if (tun->audit_mixture < 1 || tun->audit_mixture > 100000)
        return vm_fail(err, "tunable 'audit.mixture' must be in 1..100000 (basis points), got %lld",
                       (long long)tun->audit_mixture);
    if (tun->audit_mixture_max < 0 || tun->audit_mixture_max > 100000)
        return vm_fail(err, "tunable 'audit.mixture_max' must be in 0..100000 (basis points), got %lld",
                       (long long)tun->audit_mixture_max);
    if (tun->audit_trim_window < 1 || tun->audit_trim_window > AU_MAX_TRIM_WINDOW)
        return vm_fail(err, "tunable 'audit.trim_window' must be in 1..%d, got %lld",
                       AU_MAX_TRIM_WINDOW, (long long)tun->audit_trim_window);
    if (tun->audit_trim_drop >= tun->audit_trim_window)
        return vm_fail(err, "tunable 'audit.trim_drop' must be less than audit.trim_window (%lld), got %lld",
                       (long long)tun->audit_trim_window, (long long)tun->audit_trim_drop);
    if (tun->audit_oracle && tun->audit_max_samples < 2)
        return vm_fail(err, "tunable 'audit.oracle' needs audit.max_samples ≥ 2");
    if (tun->audit_verify && tun->audit_oracle)
        return vm_fail(err, "tunable 'audit.verify' samples on after the online test's decision; audit.oracle makes none: give one of them");
    if (tun->audit_verify && tun->audit_max_samples < 2)
        return vm_fail(err, "tunable 'audit.verify' needs audit.max_samples ≥ 2");
    if (tun->audit_quantum_ms < 0 || tun->audit_quantum_ms > 3600000)
        return vm_fail(err, "tunable 'audit.quantum_ms' must be in 0..3600000, got %lld",
                       (long long)tun->audit_quantum_ms);
    if (tun->audit_interval_ms < 1 || tun->audit_interval_ms > 60000)
        return vm_fail(err, "tunable 'audit.interval_ms' must be in 1..60000, got %lld",
                       (long long)tun->audit_interval_ms);
    if (tun->audit_sample_every > 1000000 || tun->audit_burst < 1 || tun->audit_burst > 1000000)
        return vm_fail(err, "tunables 'audit.sample_every' (0..1000000) and 'audit.burst' (1..1000000) out of range");
    if (tun->audit_warmup < 0 || tun->audit_warmup > 1000000)
        return vm_fail(err, "tunable 'audit.warmup' must be in 0..1000000, got %lld", (long long)tun->audit_warmup);
    if (tun->audit_copies < 1 || tun->audit_copies > JIT_MAX_COPIES)
        return vm_fail(err, "tunable 'audit.copies' must be in 1..%d, got %lld", JIT_MAX_COPIES,
                       (long long)tun->audit_copies);
    if (tun->audit_copy_margin < 0 || tun->audit_copy_margin >= 10000)
        return vm_fail(err, "tunable 'audit.copy_margin' must be in 0..9999 (basis points), got %lld",
                       (long long)tun->audit_copy_margin);
    if (!tun->audit_prologue && tun->audit_sample_every != 0)
        return vm_fail(err, "tunable 'audit.prologue=0' needs audit.sample_every=0: a dispatcher without its "
                            "countdown test never times a call");
    if (tun->audit_jitter > 100)
        return vm_fail(err, "tunable 'audit.jitter' must be in 0..100 (percent), got %lld",
                       (long long)tun->audit_jitter);
    if (tun->audit_buffer_slots < 16 || tun->audit_buffer_slots > (1 << 24))
        return vm_fail(err, "tunable 'audit.buffer_slots' must be in 16..16777216, got %lld",
                       (long long)tun->audit_buffer_slots);
    if (tun->audit_min_effect < 0 || tun->audit_min_effect >= 10000)
        return vm_fail(err, "tunable 'audit.min_effect' must be in 0..9999 (basis points), got %lld",
                       (long long)tun->audit_min_effect);
    if (tun->audit_max_overhead < 0 || tun->audit_max_overhead >= 10000)
        return vm_fail(err, "tunable 'audit.max_overhead' must be in 0..9999 (basis points), got %lld",
                       (long long)tun->audit_max_overhead);
    if (tun->audit_timed_cost < 1 || tun->audit_timed_cost > 1000000)
        return vm_fail(err, "tunable 'audit.timed_cost' must be in 1..1000000 (cycles), got %lld",
                       (long long)tun->audit_timed_cost);
    if (tun->audit_cut < 0 || tun->audit_cut > 100)
        return vm_fail(err, "tunable 'audit.cut' must be in 0..100 (percent of a turn), got %lld",
                       (long long)tun->audit_cut);
    if (tun->audit_extend < 0 || tun->audit_extend > 1000)
        return vm_fail(err, "tunable 'audit.extend' must be in 0..1000 (turns), got %lld",
                       (long long)tun->audit_extend);
    if (tun->audit_futility < 0 || tun->audit_futility > 100000)
        return vm_fail(err, "tunable 'audit.futility' must be in 0..100000 (percent), got %lld",
                       (long long)tun->audit_futility);
    if (tun->audit_confirm != 0 && (tun->audit_confirm < 100 || tun->audit_confirm > 100000))
        return vm_fail(err, "tunable 'audit.confirm' must be 0 or in 100..100000 (percent), got %lld",
                       (long long)tun->audit_confirm);
    *cfg = (AuConfig){
        .test = (AuTest)test,
        .alpha = 1 - tun->audit_confidence / 10000.0,
        .equivalence = tun->audit_equivalence / 10000.0,
        .min_effect = tun->audit_min_effect / 10000.0,
        .mixture = tun->audit_mixture / 10000.0,
        .mixture_max = tun->audit_mixture_max / 10000.0,
        .min_samples = (uint64_t)tun->audit_min_samples,
        .max_samples = (uint64_t)tun->audit_max_samples,
        .timeout = tun->audit_timeout_ms / 1000.0,
        .quantum = tun->audit_quantum_ms / 1000.0,
        .trim_window = (uint32_t)tun->audit_trim_window,
        .trim_drop = (uint32_t)tun->audit_trim_drop,
        .interval = tun->audit_interval_ms / 1000.0,
        .sample_every = (int32_t)tun->audit_sample_every,
        .burst = (int32_t)tun->audit_burst,
        .warmup = (int32_t)(tun->audit_warmup < tun->audit_burst ? tun->audit_warmup : tun->audit_burst - 1),
        .copies = (int32_t)tun->audit_copies,
        .copy_margin = tun->audit_copy_margin / 10000.0,
        .prologue = tun->audit_prologue != 0,
        .jitter = (int32_t)tun->audit_jitter,
        .seed = (uint64_t)tun->audit_seed,
        .buffer_slots = (uint32_t)tun->audit_buffer_slots,
        .oracle = tun->audit_oracle != 0,
        .verify = tun->audit_verify != 0,
        .restart = tun->audit_restart != 0,
        .wait_jit = tun->audit_wait_jit != 0,
        .hurry_jit = tun->audit_hurry_jit != 0,
        .min_cycles = (double)tun->audit_min_cycles,
        .paired = tun->audit_paired != 0,
        .max_overhead = tun->audit_max_overhead / 10000.0,
        .timed_cost = (double)tun->audit_timed_cost,
        .futility = tun->audit_futility / 100.0,
        .confirm = tun->audit_confirm / 100.0,
        .confirm_fresh = tun->audit_confirm_fresh != 0,
        .confirm_nodiff = tun->audit_confirm_nodiff != 0,
        .no_winner = tun->audit_no_winner != 0,
    };
    return true;
}
