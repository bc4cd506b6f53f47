/* audit/policy.c — the dispatch policy (thesis Fig. III.9) in plain C; the
 * generated dispatcher mirrors au_policy_next.
 *
 * Input: a thread's VmAuditSlot for the bakeoff's slot and the shared
 * AuPolicyParams.  Output: per call, "clean" or "timed variant k".
 *
 * Per thread the calls cycle through: a gap of about `reset` clean calls,
 * then a burst of `burst` timed calls to one variant, then the next
 * variant (rotation among the N).  Bursts keep a rarely-run variant's code
 * warm for the calls that are measured.  reset is burst·(sample_every − 1)
 * on average, so 1 call in sample_every is timed whatever the burst
 * length; the analysis thread re-draws both with a random ε every round
 * so sampling cannot lock onto a periodic pattern of the program.
 *
 * The rotation's order is drawn anew for every cycle of it (each variant
 * once, never one twice in a row, across cycles too), from the thread's
 * generator.  A fixed order 0, 1, …, N−1 would give every variant the
 * same predecessor every time, and what runs just before a burst changes
 * it (a copy can run 1.5% slower after the burst of the other variant's
 * copy at the same page offset), enough for A/A bakeoffs to declare
 * "winners".  A drawn order gives every variant the same
 * distribution of predecessors, whatever the processor does with them.
 *
 * With a jitter, each gap is also drawn anew, uniform in reset ± spread
 * (spread = reset: 0 … 2·reset, the same mean), from a per-thread
 * xorshift32.  The round's ε alone would leave a round's gaps equal, and
 * in a program whose calls repeat with a period (a recursion's call tree,
 * a loop over a fixed structure) the bursts of variant a would fall at one
 * position of the period and those of b at another for the whole round:
 * a systematic difference per round, e.g. in which depth of a recursion
 * a timed call starts, enough for A/A bakeoffs of recursive methods to
 * declare winners.  A gap drawn per burst puts every variant's bursts at
 * independent positions.
 *
 * Invariants: the fast path is one decrement and one test of a
 * thread-local counter; the shared parameters are read only on the slow
 * path, with relaxed loads (a stale value is harmless); a state from any
 * earlier parameters (or all zeros) is valid.
 */
#include "audit.h"

#include <stdint.h>

_Static_assert(JIT_MAX_VARIANTS * JIT_MAX_COPIES < 32, "VmAuditSlot.done: one bit per variant copy");

static __thread VmAuditSlot policy_tls[VM_AUDIT_SLOTS];

VmAuditSlot *au_policy_state(int slot)
{
    return slot >= 0 && slot < VM_AUDIT_SLOTS ? &policy_tls[slot] : NULL;
}

/* The thread's xorshift32, seeded from p->seed at its first use. */
static uint32_t draw(VmAuditSlot *st, const AuPolicyParams *p)
{
    uint32_t x = st->rng ? st->rng : (p->seed ? p->seed : 1);
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return st->rng = x;
}

/* reset ± spread, uniform, never below 0. */
static int32_t gap(VmAuditSlot *st, const AuPolicyParams *p, int32_t reset)
{
    int32_t spread = __atomic_load_n(&p->spread, __ATOMIC_RELAXED);
    if (spread <= 0 || spread > reset)
        return reset;
    uint32_t x = draw(st, p);
    int64_t g = reset - spread + (int64_t)(((uint64_t)x * (uint64_t)(2 * (int64_t)spread + 1)) >> 32);
    return g < 0 ? 0 : (int32_t)g;
}

/* The variant after k's burst: one not yet timed in this cycle of the
 * rotation (st->done; a new cycle once all were), at random, never k
 * itself (n ≥ 2).  A zero state is a fresh cycle. */
static int next_variant(VmAuditSlot *st, const AuPolicyParams *p, int k, int n)
{
    uint32_t all = (1u << n) - 1, self = 1u << k;
    uint32_t done = ((uint32_t)st->done & all) | self;
    if (done == all)
        done = 0;
    uint32_t may = all & ~done & ~self;
    int i = (int)(((uint64_t)draw(st, p) * (uint64_t)__builtin_popcount(may)) >> 32);
    while (i-- > 0)
        may &= may - 1;                    /* drop the lowest set bit */
    st->done = (int32_t)done;
    return __builtin_ctz(may);
}

int au_policy_next(VmAuditSlot *st, const AuPolicyParams *p, int nvariants)
{
    if (--st->countdown >= 0)
        return AU_CLEAN;
    int32_t reset = __atomic_load_n(&p->reset, __ATOMIC_RELAXED);
    int32_t burst = __atomic_load_n(&p->burst, __ATOMIC_RELAXED);
    if (reset < 0 || nvariants < 1) {      /* sampling off */
        st->countdown = INT32_MAX;
        return AU_CLEAN;
    }
    if (burst < 1)
        burst = 1;
    int k = st->variant;
    if (k < 0 || k >= nvariants)
        k = 0;
    if (st->countdown <= -burst) {         /* the burst's last timed call */
        st->countdown = gap(st, p, reset);
        st->variant = nvariants > 31 ? (k + 1) % nvariants   /* more than VmAuditSlot.done holds */
                      : nvariants > 1 ? next_variant(st, p, k, nvariants) : 0;
    } else {
        st->variant = k;
    }
    return k;
}

/* A uniform ε in [−jitter, +jitter] percent of x, rounded. */
static int64_t jittered(int64_t x, int32_t jitter, AuRng *rng)
{
    double u = 2 * au_rng_double(rng) - 1;
    return x + (int64_t)(x * (jitter / 100.0) * u + (u < 0 ? -0.5 : 0.5));
}

void au_policy_perturb(AuPolicyParams *p, int32_t sample_every, int32_t burst,
                       int32_t jitter, AuRng *rng)
{
    int64_t b = burst < 1 ? 1 : burst, r = -1;
    if (sample_every > 0) {
        b = jittered(b, jitter, rng);
        if (b < 1)
            b = 1;
        if (b > INT32_MAX / 4)
            b = INT32_MAX / 4;
        r = jittered(b * (int64_t)(sample_every - 1), jitter, rng);
        if (r < 0)
            r = 0;
        if (r > INT32_MAX / 2)
            r = INT32_MAX / 2;
    }
    __atomic_store_n(&p->burst, (int32_t)b, __ATOMIC_RELAXED);
    __atomic_store_n(&p->spread, jitter > 0 && r > 0 ? (int32_t)r : 0, __ATOMIC_RELAXED);
    __atomic_store_n(&p->reset, (int32_t)r, __ATOMIC_RELAXED);
}
