/* tests/unit/test_audit_policy.c — the dispatch policy (audit/policy.c):
 * clean vs timed calls, burst lengths, rotation among variants in a drawn
 * order, the random ε of every analysis round, sampling off, per-thread
 * state. */
#include "audit.h"
#include "test.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

typedef struct Tally {
    long clean, timed, per_variant[JIT_MAX_VARIANTS];
    long bursts, burst_min, burst_max;
    int order[64];              /* variants of the first bursts */
    uint64_t hash;              /* of the whole call sequence */
} Tally;

/* Runs `calls` calls; every `perturb_every` calls (0: never) redraws the
 * parameters as the analysis thread would. */
static void run(Tally *t, VmAuditSlot *st, AuPolicyParams *p, int n, long calls,
                long perturb_every, AuRng *rng, int32_t every, int32_t burst, int32_t jitter)
{
    *t = (Tally){.burst_min = 1L << 30, .hash = 1469598103934665603ull};
    long run_len = 0;
    int run_variant = -1;
    for (long i = 0; i < calls; i++) {
        if (perturb_every && i % perturb_every == 0)
            au_policy_perturb(p, every, burst, jitter, rng);
        int k = au_policy_next(st, p, n);
        t->hash = (t->hash ^ (uint64_t)(k + 2)) * 1099511628211ull;
        if (k == AU_CLEAN) {
            t->clean++;
        } else {
            CHECK(k >= 0 && k < n);
            t->timed++;
            t->per_variant[k]++;
        }
        /* a burst: consecutive timed calls to one variant, ended by a clean
         * call or a change of variant */
        bool ends = run_len && (k != run_variant);
        if (ends) {
            if (t->bursts < 64)
                t->order[t->bursts] = run_variant;
            t->bursts++;
            if (run_len < t->burst_min)
                t->burst_min = run_len;
            if (run_len > t->burst_max)
                t->burst_max = run_len;
            run_len = 0;
        }
        if (k != AU_CLEAN) {
            run_variant = k;
            run_len++;
        }
    }
}

/* Fixed parameters: exactly 1 call in 20 timed, bursts of exactly 4,
 * variants in cycles of the rotation, the same count for each. */
TEST(audit_policy_counts)
{
    AuPolicyParams p;
    AuRng rng;
    au_rng_seed(&rng, 1);
    au_policy_perturb(&p, 20, 4, 0, &rng);   /* jitter 0: the base values */
    CHECK_INT(p.burst, 4);
    CHECK_INT(p.reset, 76);
    VmAuditSlot st = {0};
    Tally t;
    run(&t, &st, &p, 2, 80000, 0, &rng, 20, 4, 0);
    CHECK_INT(t.timed, 4000);
    CHECK_INT(t.clean, 76000);
    CHECK_INT(t.per_variant[0], 2000);
    CHECK_INT(t.per_variant[1], 2000);
    CHECK_INT(t.bursts, 1000);
    CHECK_INT(t.burst_min, 4);
    CHECK_INT(t.burst_max, 4);
    for (int i = 0; i < 64; i++)
        CHECK_INT(t.order[i], i % 2);

    /* three variants: every cycle of three bursts has each once, never
     * one twice in a row, and not always in one order */
    st = (VmAuditSlot){0};
    run(&t, &st, &p, 3, 60000, 0, &rng, 20, 4, 0);
    CHECK_INT(t.timed, 3000);
    for (int k = 0; k < 3; k++)
        CHECK_INT(t.per_variant[k], 1000);
    int orders = 0;
    for (int i = 0; i + 3 <= 63; i += 3) {
        CHECK_INT((1 << t.order[i]) | (1 << t.order[i + 1]) | (1 << t.order[i + 2]), 7);
        CHECK(t.order[i + 3] != t.order[i + 2]);
        orders |= 1 << (t.order[i] * 3 + t.order[i + 1]);
    }
    CHECK(__builtin_popcount(orders) >= 4);

    /* burst 1 and 1 timed call in 2 */
    au_policy_perturb(&p, 2, 1, 0, &rng);
    st = (VmAuditSlot){0};
    run(&t, &st, &p, 2, 1000, 0, &rng, 2, 1, 0);
    CHECK_INT(t.timed, 500);
    CHECK_INT(t.burst_max, 1);
}

/* Every call a burst of one, four variants (two variants, two copies):
 * each cycle of four has each once, never one twice in a row, and each
 * variant's predecessor is each other variant a third of the time, as
 * audit/policy.c wants: a fixed order gave variant 1 the predecessor at
 * its own page offset every time (0, 1, 2, 3: copies c·2 + k).  The same
 * seed gives the same order. */
TEST(audit_policy_order)
{
    enum { N = 4, CALLS = 120000 };
    AuPolicyParams p = {.reset = 0, .burst = 1, .seed = 5};
    VmAuditSlot st = {0};
    long after[N][N] = {{0}};
    uint64_t h = 0;
    int prev = -1, cycle = 0;
    for (int i = 0; i < CALLS; i++) {
        int k = au_policy_next(&st, &p, N);
        CHECK(k >= 0 && k < N && k != prev);
        cycle |= 1 << k;
        if (i % N == N - 1) {
            CHECK_INT(cycle, (1 << N) - 1);
            cycle = 0;
        }
        if (prev >= 0)
            after[k][prev]++;
        h = h * 31 + (uint64_t)k;
        prev = k;
    }
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            if (j != k) {   /* 30,000 bursts each: a third is 10,000, sd 82 */
                double share = (double)after[k][j] / (CALLS / N);
                CHECK(share > 1 / 3.0 - 0.02 && share < 1 / 3.0 + 0.02);
            }
    st = (VmAuditSlot){0};
    uint64_t h2 = 0;
    for (int i = 0; i < CALLS; i++)
        h2 = h2 * 31 + (uint64_t)au_policy_next(&st, &p, N);
    CHECK(h2 == h);
    /* more variants than the state's bits: in turn, never out of range */
    st = (VmAuditSlot){0};
    for (int i = 0; i < 100; i++) {
        int k = au_policy_next(&st, &p, 40);
        CHECK_INT(k, i % 40);
    }
    /* a state left by a bakeoff with more variants still gives cycles */
    st = (VmAuditSlot){.countdown = 0, .variant = 1, .done = 0x7f};
    cycle = 0;
    for (int i = 0; i < 2; i++)
        cycle |= 1 << au_policy_next(&st, &p, 2);
    CHECK_INT(cycle, 3);
}

/* With the ε redrawn every 10,000 calls (jitter 25%): bursts of 3–5, the
 * timed share still 1 in 20 on average, and the same seed gives the same
 * calls. */
TEST(audit_policy_jitter)
{
    AuPolicyParams p;
    AuRng rng;
    au_rng_seed(&rng, 42);
    VmAuditSlot st = {0};
    Tally t;
    run(&t, &st, &p, 2, 2000000, 10000, &rng, 20, 4, 25);
    double share = (double)t.timed / (t.timed + t.clean);
    CHECK(share > 0.0485 && share < 0.0515);
    CHECK_INT(t.burst_min, 3);
    CHECK_INT(t.burst_max, 5);
    CHECK(labs(t.per_variant[0] - t.per_variant[1]) <= t.timed / 100);
    uint64_t h = t.hash;
    au_rng_seed(&rng, 42);
    st = (VmAuditSlot){0};
    run(&t, &st, &p, 2, 2000000, 10000, &rng, 20, 4, 25);
    CHECK(t.hash == h);
    au_rng_seed(&rng, 43);
    st = (VmAuditSlot){0};
    run(&t, &st, &p, 2, 2000000, 10000, &rng, 20, 4, 25);
    CHECK(t.hash != h);
    /* the redrawn values vary around the base */
    int distinct = 0, last = -1;
    for (int i = 0; i < 100; i++) {
        au_policy_perturb(&p, 20, 4, 25, &rng);
        CHECK(p.burst >= 3 && p.burst <= 5);
        CHECK(p.reset >= p.burst * 19 * 3 / 4 - 1 && p.reset <= p.burst * 19 * 5 / 4 + 1);
        distinct += p.reset != last;
        last = p.reset;
    }
    CHECK(distinct > 50);
}

/* Sampling off (audit.sample_every=0): never a timed call, and a state
 * left by earlier parameters settles at once. */
TEST(audit_policy_off)
{
    AuPolicyParams p;
    AuRng rng;
    au_rng_seed(&rng, 1);
    au_policy_perturb(&p, 0, 4, 25, &rng);
    CHECK(p.reset < 0);
    VmAuditSlot st = {.countdown = -2, .variant = 7};
    Tally t;
    run(&t, &st, &p, 2, 1000000, 0, &rng, 0, 4, 25);
    CHECK_INT(t.timed, 0);
    /* a variant index from a bakeoff with more variants is not returned */
    au_policy_perturb(&p, 20, 4, 0, &rng);
    st = (VmAuditSlot){.countdown = 0, .variant = 7};
    CHECK_INT(au_policy_next(&st, &p, 2), 0);
}

static void *other_thread(void *arg)
{
    VmAuditSlot **out = arg;
    out[0] = au_policy_state(0);
    out[1] = au_policy_state(1);
    CHECK(out[0]->countdown == 0 && out[0]->variant == 0);   /* fresh per thread */
    return NULL;
}

/* Each thread has its own state per slot. */
TEST(audit_policy_state)
{
    VmAuditSlot *mine0 = au_policy_state(0), *mine1 = au_policy_state(1), *theirs[2];
    CHECK(mine0 && mine1 && mine0 != mine1);
    CHECK(au_policy_state(-1) == NULL && au_policy_state(VM_AUDIT_SLOTS) == NULL);
    mine0->countdown = 123;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, other_thread, theirs) == 0);
    pthread_join(th, NULL);
    CHECK(theirs[0] != mine0 && theirs[1] != mine1);
    CHECK_INT(mine0->countdown, 123);
    *mine0 = (VmAuditSlot){0};
}

/* Mean of a periodic cost seen by each variant's timed calls: call i costs
 * i mod period, as the depth where a recursion's call tree is entered
 * repeats with the tree. */
static void periodic(AuPolicyParams *p, int32_t period, double mean[2])
{
    VmAuditSlot st = {0};
    double sum[2] = {0};
    long n[2] = {0};
    for (long i = 0; i < 1600000; i++) {
        int k = au_policy_next(&st, p, 2);
        if (k != AU_CLEAN) {
            sum[k] += (double)(i % period);
            n[k]++;
        }
    }
    for (int k = 0; k < 2; k++)
        mean[k] = n[k] ? sum[k] / (double)n[k] : -1;
}

/* With a jitter every gap is drawn anew (0 … 2·reset, mean reset), so
 * within one round of fixed parameters the two variants' bursts do not
 * sit at fixed positions of a periodic program.  Without (jitter 0) they
 * do: a period of two cycles puts a at 0-3 and b at 80-83 every time. */
TEST(audit_policy_gaps)
{
    AuPolicyParams p;
    AuRng rng;
    au_rng_seed(&rng, 7);
    double m[2];
    au_policy_perturb(&p, 20, 4, 0, &rng);
    CHECK_INT(p.spread, 0);
    periodic(&p, 2 * (p.reset + p.burst), m);
    CHECK(m[1] - m[0] > 70);

    au_policy_perturb(&p, 20, 4, 25, &rng);   /* one round's values, kept */
    CHECK_INT(p.spread, p.reset);
    p.seed = 12345;
    int32_t period = 2 * (p.reset + p.burst);
    periodic(&p, period, m);
    double uniform = (period - 1) / 2.0;      /* sd 46 over 40,000 calls: se 0.23 */
    CHECK(fabs(m[0] - uniform) < 2 && fabs(m[1] - uniform) < 2);

    /* the gaps themselves: uniform over 0 … 2·reset, mean reset */
    VmAuditSlot st = {0};
    long gaps = 0, sum = 0, lo = 1L << 30, hi = -1, run = 0;
    for (long i = 0; i < 2000000; i++) {
        int k = au_policy_next(&st, &p, 2);
        if (k == AU_CLEAN) {
            run++;
        } else if (run) {
            gaps++, sum += run;
            lo = run < lo ? run : lo;
            hi = run > hi ? run : hi;
            run = 0;
        }
    }
    double mean = (double)sum / (double)gaps;
    CHECK(fabs(mean - p.reset) < p.reset * 0.02);
    CHECK(lo <= 2 && hi >= 2 * p.reset - 2 && hi <= 2 * p.reset);
}
