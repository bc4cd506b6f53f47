/* tests/unit/test_audit_loops.c — loop timings' statistics (audit/loops.c):
 * the per-invocation estimate from marker events on synthetic calls, with
 * markers that stayed in the loop (an event per iteration) and markers gcc
 * hoisted (one event of weight n per call), a known difference decided,
 * A/A streams never given a winner, and the copy rule: a difference of
 * one copy (placement) never a winner.  Fixed seeds: every run checks the
 * same numbers.
 */
#include "audit.h"
#include "loops.h"
#include "test.h"

#include <math.h>

static AuConfig config(void)
{
    AuConfig cfg;
    au_config_default(&cfg);
    cfg.timeout = 0;
    return cfg;
}

/* Noise of one event: uniform in [1 − s, 1 + s]. */
static double noise(AuRng *r, double s)
{
    return 1 + s * (2 * au_rng_double(r) - 1);
}

/* One timed call of part c·N + k (copy c of variant k; with one copy,
 * variant k): `iters` iterations of `per_iter` cycles
 * (noise 20%) after `pre` cycles of set-up; hoisted: one event of weight
 * iters at the loop's end (its region holds the set-up too), else one
 * event per iteration (the first holds the set-up); then the call's end,
 * `post` cycles. */
static void call(AuLoops *l, AuRng *r, int part, bool hoisted, uint32_t iters, double pre, double per_iter, double post)
{
    if (hoisted) {
        double c = pre;
        for (uint32_t i = 0; i < iters; i++)
            c += per_iter * noise(r, 0.2);
        CHECK(au_loops_add(l, part, 2, (uint64_t)llround(c), iters));
    } else {
        for (uint32_t i = 0; i < iters; i++)
            CHECK(au_loops_add(l, part, 2, (uint64_t)llround((i ? 0 : pre) + per_iter * noise(r, 0.2)), 1));
    }
    CHECK(au_loops_add(l, part, 1, (uint64_t)(post * noise(r, 0.2)), 1));
}

TEST(audit_loops_estimate_hoisted_or_not)
{
    /* the same work timed per iteration (variant 0) and hoisted (variant
     * 1): the same cost per invocation, pre + iters·per_iter + post */
    AuLoops l;
    AuRng r;
    au_rng_seed(&r, 7);
    CHECK(au_loops_init(&l, 2, 1, 1, NULL));
    for (int c = 0; c < 20; c++) {
        call(&l, &r, 0, false, 5000, 3000, 40, 500);
        call(&l, &r, 1, true, 5000, 3000, 40, 500);
    }
    double want = 3000 + 5000 * 40 + 500;
    for (int k = 0; k < 2; k++) {
        AuEstimate e;
        uint64_t few = 0;
        CHECK(au_loops_estimate(&l, k, -1, &e, &few));
        CHECK(fabs(e.mean / want - 1) < 0.01);
        CHECK(e.var_mean > 0);
    }
    AuEstimate e1;
    uint64_t w1;
    au_loops_estimate(&l, 1, -1, &e1, &w1);
    CHECK(w1 >= 19 && w1 <= 21);   /* a hoisted event is a window of its own: one per call, ~20 df */
    au_loops_free(&l);
}

TEST(audit_loops_decides_few_calls)
{
    /* 12 calls a variant, variant 1 30% cheaper per iteration: a winner,
     * whether its marker stayed in the loop or was hoisted */
    for (int hoisted = 0; hoisted < 2; hoisted++) {
        AuConfig cfg = config();
        AuLoops l;
        AuRng r;
        au_rng_seed(&r, 11 + (uint64_t)hoisted);
        CHECK(au_loops_init(&l, 2, 1, 1, NULL));
        AuResult res;
        for (int c = 0; c < 12; c++) {
            call(&l, &r, 0, false, 20000, 2000, 50, 300);
            call(&l, &r, 1, hoisted, 20000, 2000, 35, 300);
        }
        CHECK_INT(au_loops_test(&l, &cfg, AU_TEST_SEQUENTIAL, 1.0, &res), AU_WINNER);
        CHECK_INT(res.install, 1);
        CHECK(res.rel < -0.2 && res.rel > -0.4);
        au_loops_free(&l);
    }
}

TEST(audit_loops_too_few_calls_wait)
{
    /* fewer than AU_LOOPS_MIN_WINDOWS calls of a hoisted variant: no
     * decision, however large the difference; a timeout at the budget */
    AuConfig cfg = config();
    cfg.timeout = 1;
    AuLoops l;
    AuRng r;
    au_rng_seed(&r, 3);
    CHECK(au_loops_init(&l, 2, 1, 1, NULL));
    for (int c = 0; c < AU_LOOPS_MIN_WINDOWS - 1; c++) {
        call(&l, &r, 0, true, 1000, 100, 50, 100);
        call(&l, &r, 1, true, 1000, 100, 10, 100);
    }
    AuResult res;
    CHECK_INT(au_loops_test(&l, &cfg, AU_TEST_SEQUENTIAL, 0.5, &res), AU_RUNNING);
    CHECK_INT(au_loops_test(&l, &cfg, AU_TEST_SEQUENTIAL, 1.5, &res), AU_TIMEOUT);
    au_loops_free(&l);
}

TEST(audit_loops_aa_no_winner)
{
    /* A/A: 200 bakeoffs of identical streams (per-iteration against
     * hoisted), looked at after every call for 30 calls: none may end with
     * a winner (the test's error rate is 1%: 200 tries without one is what
     * a valid test gives with probability ≥ 0.13 even at that rate) */
    int winners = 0;
    for (int t = 0; t < 200; t++) {
        AuConfig cfg = config();
        AuLoops l;
        AuRng r;
        au_rng_seed(&r, 1000 + (uint64_t)t);
        CHECK(au_loops_init(&l, 2, 1, 1, NULL));
        for (int c = 0; c < 30; c++) {
            call(&l, &r, 0, false, 400, 500, 40, 200);
            call(&l, &r, 1, t % 2 == 0, 400, 500, 40, 200);
            AuResult res;
            AuOutcome o = au_loops_test(&l, &cfg, AU_TEST_SEQUENTIAL, 0.1, &res);
            if (o != AU_RUNNING) {
                winners += o == AU_WINNER;
                break;
            }
        }
        au_loops_free(&l);
    }
    CHECK_INT(winners, 0);
    /* and with calls enough, an A/A ends no-difference */
    AuConfig cfg = config();
    AuLoops l;
    AuRng r;
    au_rng_seed(&r, 99);
    CHECK(au_loops_init(&l, 2, 1, 1, NULL));
    AuOutcome o = AU_RUNNING;
    int c = 0;
    for (; c < 3000 && o == AU_RUNNING; c++) {
        call(&l, &r, 0, false, 400, 500, 40, 200);
        call(&l, &r, 1, true, 400, 500, 40, 200);
        AuResult res;
        o = au_loops_test(&l, &cfg, AU_TEST_SEQUENTIAL, 0.1, &res);
    }
    CHECK_INT(o, AU_NO_DIFFERENCE);
    au_loops_free(&l);
}

TEST(audit_loops_regions_weighted_by_counts)
{
    /* two loops per call: region 2 runs 100 times a call at 10 cycles,
     * region 3 10 times at 1000; the call's cost is their sum weighted by
     * the counts, whatever the order of events */
    AuLoops l;
    CHECK(au_loops_init(&l, 2, 1, 2, NULL));
    for (int c = 0; c < 10; c++)
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < 100; i++)
                au_loops_add(&l, k, 2, 10 + (uint64_t)(i % 3), 1);
            au_loops_add(&l, k, 3, 10000 + (uint64_t)c, 10);
            au_loops_add(&l, k, 1, 50, 1);
        }
    AuEstimate e;
    uint64_t few;
    CHECK(au_loops_estimate(&l, 0, -1, &e, &few));
    CHECK(fabs(e.mean - (100 * 11 + 10 * 1000.45 + 50)) < 2);
    CHECK(!au_loops_add(&l, 2, 2, 1, 1));   /* no part 2: one copy of 2 variants */
    CHECK(!au_loops_add(&l, 0, 4, 1, 1));   /* no region 4 */
    CHECK(!au_loops_add(&l, 0, 2, 1, 0));   /* weight 0 */
    au_loops_free(&l);
}

TEST(audit_loops_region_costs)
{
    /* what a look reports μ is made of: per region its weight per call
     * (the same for every variant), each variant's cycles per unit of
     * weight, Σ n_r·R_r = μ and shares that sum to 1; nothing before a
     * call has ended, no share before an estimate */
    AuConfig cfg = config();
    AuLoops l;
    AuResult res;
    CHECK(!au_loops_init(&l, 2, 1, JIT_MAX_POINTS + 1, NULL));   /* more than AuRegionCosts holds */
    CHECK(au_loops_init(&l, 2, 1, 2, NULL));
    au_loops_test(&l, &cfg, AU_TEST_SEQUENTIAL, 0.1, &res);
    CHECK_INT((int)res.regions.nregions, 3);
    CHECK(isnan(res.regions.weight[0]) && isnan(res.regions.weight[1]));
    CHECK(isnan(res.regions.cycles[0][1]) && isnan(res.regions.share[1][2]));
    for (int c = 0; c < 10; c++)
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < 100; i++)
                au_loops_add(&l, k, 2, (uint64_t)(10 + 5 * k) + (uint64_t)(i % 3), 1);
            au_loops_add(&l, k, 3, 10000 + (uint64_t)c, 10);
            au_loops_add(&l, k, 1, 50, 1);
        }
    au_loops_test(&l, &cfg, AU_TEST_SEQUENTIAL, 0.1, &res);
    const AuRegionCosts *rc = &res.regions;
    CHECK(rc->weight[0] == 1 && fabs(rc->weight[1] - 100) < 1e-9 && fabs(rc->weight[2] - 10) < 1e-9);
    for (int k = 0; k < 2; k++) {
        double sum = 0, shares = 0;
        for (int r = 0; r < 3; r++) {
            sum += rc->weight[r] * rc->cycles[k][r];
            shares += rc->share[k][r];
        }
        CHECK(res.v[k].mean > 0);
        CHECK(fabs(sum / res.v[k].mean - 1) < 1e-6);
        CHECK(fabs(shares - 1) < 1e-6);
    }
    CHECK(fabs(rc->cycles[0][1] - 10.99) < 1e-4 && fabs(rc->cycles[1][1] - 15.99) < 1e-4);   /* i % 3: 0.99 on average */
    CHECK(fabs(rc->cycles[0][2] - 1000.45) < 0.01 && rc->cycles[0][0] == 50);
    au_loops_free(&l);
}

/* A/A bakeoffs whose every call runs in a slow or a fast stretch of the
 * machine (its iterations all ×0.8 or ×1.2): `trials` of them, seeds from
 * `seed`, `calls` calls a variant of `iters` iterations after `pre`
 * cycles, markers hoisted or not; looked at after every pair of calls
 * (each_look) or once at the end.  Returns the bakeoffs that showed a
 * winner. */
static int phased_aa_winners(int trials, uint64_t seed, int calls, bool hoisted, uint32_t iters, double pre,
                             bool each_look)
{
    int winners = 0;
    AuConfig cfg = config();
    for (int t = 0; t < trials; t++) {
        AuLoops l;
        AuRng r;
        au_rng_seed(&r, seed + (uint64_t)t);
        CHECK(au_loops_init(&l, 2, 1, 1, NULL));
        bool won = false;
        for (int c = 0; c < calls && !won; c++) {
            for (int k = 0; k < 2; k++) {
                double phase = au_rng_double(&r) < 0.5 ? 0.8 : 1.2;
                call(&l, &r, k, hoisted, iters, pre, 40 * phase, 100);
            }
            AuResult res;
            if (each_look || c == calls - 1)
                won = au_loops_test(&l, &cfg, AU_TEST_SEQUENTIAL, 0.1, &res) == AU_WINNER;
        }
        winners += won;
        au_loops_free(&l);
    }
    return winners;
}

TEST(audit_loops_calls_are_the_unit)
{
    /* per-iteration events within a call are not independent: the
     * variance between calls keeps the test honest, none of 100 bakeoffs
     * of 40 calls may end with a winner */
    CHECK_INT(phased_aa_winners(100, 5000, 40, false, 300, 200, false), 0);
}

/* Calls dealt out over the copies in turn (call i runs copy i mod 2, as
 * the policy rotates its arms), `ncopies` of them kept apart (1: the same
 * stream merged): variant 0 the same on both copies, variant 1's loop
 * slow0 and slow1 times as slow on copy 0 and 1.  Looked at after every
 * pair of calls until an outcome or `max` pairs; *winners: the looks
 * that showed a winner. */
static AuOutcome copies_run(int ncopies, double slow0, double slow1, int max, int *winners, AuResult *res)
{
    AuConfig cfg = config();
    AuLoops l;
    AuRng r;
    au_rng_seed(&r, 21);
    CHECK(au_loops_init(&l, 2, ncopies, 1, NULL));
    AuOutcome o = AU_RUNNING;
    *winners = 0;
    for (int i = 0; i < max && o == AU_RUNNING; i++) {
        int c = i % 2, part = (c % ncopies) * 2;
        call(&l, &r, part, false, 400, 500, 40, 200);
        call(&l, &r, part + 1, false, 400, 500, 40 * (c ? slow1 : slow0), 200);
        o = au_loops_test(&l, &cfg, AU_TEST_SEQUENTIAL, 0.1, res);
        *winners += o == AU_WINNER;
    }
    au_loops_free(&l);
    return o;
}

TEST(audit_loops_copy_rule_placement)
{
    /* variant 1's loop 10% faster on copy 0 only: a difference of where
     * its code sits.  Merged (one copy) it reads ~5% faster: a winner */
    int winners;
    AuResult res;
    CHECK_INT(copies_run(1, 0.90, 1.0, 3000, &winners, &res), AU_WINNER);
    CHECK_INT(res.install, 1);
    /* per copy: no winner at any look, and once copy 1's gap falls short
     * of the rule past doubt, a futile timeout as placement */
    CHECK_INT(copies_run(2, 0.90, 1.0, 3000, &winners, &res), AU_TIMEOUT);
    CHECK_INT(winners, 0);
    CHECK(res.futile && res.placement);
    CHECK_INT(res.install, 0);
    /* the copies' μ, and their timed calls dealt out in turn */
    CHECK(fabs(res.v[1].copy_mean[0] / res.v[0].copy_mean[0] - 0.905) < 0.01);
    CHECK(fabs(res.v[1].copy_mean[1] / res.v[0].copy_mean[1] - 1) < 0.01);
    CHECK(res.v[1].copy_samples[0] >= AU_LOOPS_MIN_WINDOWS);
    CHECK(res.v[1].copy_samples[0] - res.v[1].copy_samples[1] <= 1);
    /* 10% slower on copy 0 only: never a winner either; the default,
     * best, is kept as a no-difference (variant 1 shown slower than it)
     * before the rule is judged past doubt */
    CHECK_INT(copies_run(2, 1.10, 1.0, 3000, &winners, &res), AU_NO_DIFFERENCE);
    CHECK_INT(winners, 0);
    CHECK_INT(res.install, 0);
}

TEST(audit_loops_copy_rule_real_difference)
{
    /* variant 1 10% slower, or faster, on both copies: the rule does not
     * block it */
    int winners;
    AuResult res;
    CHECK_INT(copies_run(2, 1.10, 1.10, 3000, &winners, &res), AU_WINNER);
    CHECK_INT(res.install, 0);
    CHECK(!res.placement);
    CHECK(res.v[1].copy_samples[1] > 0);
    /* at the deciding look, a copy has had a few calls */
    CHECK(fabs(res.v[1].copy_mean[1] / res.v[0].copy_mean[1] - 1.095) < 0.03);
    CHECK_INT(copies_run(2, 0.90, 0.90, 3000, &winners, &res), AU_WINNER);
    CHECK_INT(res.install, 1);
    /* parts beyond the copies are refused */
    AuLoops l;
    CHECK(!au_loops_init(&l, 2, 0, 1, NULL));
    CHECK(!au_loops_init(&l, 2, JIT_MAX_COPIES + 1, 1, NULL));
    CHECK(au_loops_init(&l, 2, 2, 1, NULL));
    CHECK(au_loops_add(&l, 3, 1, 1, 1));
    CHECK(!au_loops_add(&l, 4, 1, 1, 1));
    AuEstimate e;
    uint64_t w;
    CHECK(!au_loops_estimate(&l, 0, 2, &e, &w));
    au_loops_free(&l);
}

TEST(audit_loops_few_calls_aa)
{
    /* A/A from the fewest calls on: 1,000 bakeoffs of up to 12 calls a
     * variant, in slow and fast stretches (the worst case for a variance
     * from few windows), a hoisted marker (one window a call), looked at
     * after every pair of calls.  The t widening keeps the bakeoffs that
     * ever show a winner within α (1%). */
    CHECK(phased_aa_winners(1000, 90000, 12, true, 2000, 300, true) <= 10);
}
