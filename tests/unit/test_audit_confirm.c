/* tests/unit/test_audit_confirm.c — confirmation of winners and no-differences
 * (audit.confirm, research.confirm_fresh; au_stats_confirm in
 * audit/stats.c): the rule on hand-made results and on real sums, and
 * transients on synthetic streams (audit_sim.c). */
#include "audit.h"
#include "audit_sim.h"
#include "test.h"

#include <stdio.h>

/* Confirmation (audit.confirm): a winner stands only when it is the
 * winner again once its samples have grown by the factor. */
TEST(audit_confirm_rule)
{
    AuConfig cfg = sim_config();
    CHECK(sim_near(cfg.confirm, 2.0, 1e-12));
    AuStats st;   /* no windows: the rule on the counts alone (fresh samples: below) */
    if (!au_stats_init(&st, 2, &cfg)) {
        test_fail(__FILE__, __LINE__, "au_stats_init failed");
        return;
    }
    AuResult r = {.outcome = AU_WINNER, .nvariants = 2, .best = 1, .install = 1};
    AuConfirm c = {0};
    r.v[0].samples = r.v[1].samples = 10000;
    CHECK_INT(au_stats_confirm(&c, &st, &cfg, AU_TEST_SEQUENTIAL, 1.0, &r), AU_RUNNING);
    CHECK_INT(r.install, 0);
    r = (AuResult){.outcome = AU_WINNER, .nvariants = 2, .best = 1, .install = 1};
    r.v[0].samples = 19990, r.v[1].samples = 25000;   /* the fewest count */
    CHECK_INT(au_stats_confirm(&c, &st, &cfg, AU_TEST_SEQUENTIAL, 2.0, &r), AU_RUNNING);
    r.outcome = AU_WINNER, r.install = 1, r.v[0].samples = 20000;
    CHECK_INT(au_stats_confirm(&c, &st, &cfg, AU_TEST_SEQUENTIAL, 2.1, &r), AU_WINNER);
    CHECK_INT(r.install, 1);
    /* looks in between do not matter; the confirming look does: without
     * the winner, or with another one, it starts again */
    c = (AuConfirm){0};
    AuResult w = {.outcome = AU_WINNER, .nvariants = 2, .best = 1, .install = 1};
    w.v[0].samples = w.v[1].samples = 10000;
    r = w;
    au_stats_confirm(&c, &st, &cfg, AU_TEST_SEQUENTIAL, 1.0, &r);
    r = w, r.outcome = AU_RUNNING, r.install = 0, r.v[0].samples = r.v[1].samples = 15000;
    CHECK_INT(au_stats_confirm(&c, &st, &cfg, AU_TEST_SEQUENTIAL, 1.5, &r), AU_RUNNING);
    r = w, r.outcome = AU_RUNNING, r.install = 0, r.v[0].samples = r.v[1].samples = 20000;
    CHECK_INT(au_stats_confirm(&c, &st, &cfg, AU_TEST_SEQUENTIAL, 2.0, &r), AU_RUNNING);
    CHECK_INT(c.at, 0);
    r = w, r.v[0].samples = r.v[1].samples = 21000;
    CHECK_INT(au_stats_confirm(&c, &st, &cfg, AU_TEST_SEQUENTIAL, 2.1, &r), AU_RUNNING);
    CHECK_INT(c.at, 21000);
    r = w, r.best = r.install = 0, r.v[0].samples = r.v[1].samples = 42000;
    CHECK_INT(au_stats_confirm(&c, &st, &cfg, AU_TEST_SEQUENTIAL, 4.2, &r), AU_RUNNING);
    CHECK_INT(c.at, 42000);
    CHECK_INT(c.best, 0);
    r = w, r.best = r.install = 0, r.v[0].samples = r.v[1].samples = 84000;
    CHECK_INT(au_stats_confirm(&c, &st, &cfg, AU_TEST_SEQUENTIAL, 8.4, &r), AU_WINNER);
    CHECK_INT(r.install, 0);
    CHECK_INT(r.unconfirmed, 2);   /* at 20,000 (no winner) and at 42,000 (another) */
    CHECK_INT(r.fresh_disagreed, 0);
    /* the sample budget caps what is asked; the wall-time budget ends it */
    c = (AuConfirm){0};
    AuConfig small = cfg;
    small.max_samples = 15000;
    r = w;
    CHECK_INT(au_stats_confirm(&c, &st, &small, AU_TEST_SEQUENTIAL, 1.0, &r), AU_RUNNING);
    r = w, r.v[0].samples = r.v[1].samples = 15000;
    CHECK_INT(au_stats_confirm(&c, &st, &small, AU_TEST_SEQUENTIAL, 1.5, &r), AU_WINNER);
    c = (AuConfirm){0};
    r = w;
    CHECK_INT(au_stats_confirm(&c, &st, &cfg, AU_TEST_SEQUENTIAL, cfg.timeout, &r), AU_TIMEOUT);
    CHECK_INT(r.install, 0);
    /* a no-difference (research.confirm_nodiff) likewise; off, at once */
    CHECK(cfg.confirm_nodiff);
    AuResult nd = {.outcome = AU_NO_DIFFERENCE, .nvariants = 2, .best = 1, .install = 0};
    nd.v[0].samples = nd.v[1].samples = 10000;
    c = (AuConfirm){0}, r = nd;
    CHECK_INT(au_stats_confirm(&c, &st, &cfg, AU_TEST_SEQUENTIAL, 1.0, &r), AU_RUNNING);
    CHECK(r.confirming);
    r = w, r.v[0].samples = r.v[1].samples = 20000;   /* a winner then: it starts over */
    CHECK_INT(au_stats_confirm(&c, &st, &cfg, AU_TEST_SEQUENTIAL, 2.0, &r), AU_RUNNING);
    CHECK_INT(r.unconfirmed, 1);
    r = nd, r.v[0].samples = r.v[1].samples = 30000;   /* between: the winner's wait is replaced */
    CHECK_INT(au_stats_confirm(&c, &st, &cfg, AU_TEST_SEQUENTIAL, 3.0, &r), AU_RUNNING);
    CHECK_INT(c.at, 30000);
    r = nd, r.v[0].samples = r.v[1].samples = 60000;
    CHECK_INT(au_stats_confirm(&c, &st, &cfg, AU_TEST_SEQUENTIAL, 6.0, &r), AU_NO_DIFFERENCE);
    AuConfig once = cfg;
    once.confirm_nodiff = false;
    c = (AuConfirm){0}, r = nd;
    CHECK_INT(au_stats_confirm(&c, &st, &once, AU_TEST_SEQUENTIAL, 1.0, &r), AU_NO_DIFFERENCE);
    /* off, the paper test and the oracle: at once */
    AuConfig off = cfg;
    off.confirm = 0;
    c = (AuConfirm){0}, r = w;
    CHECK_INT(au_stats_confirm(&c, &st, &off, AU_TEST_SEQUENTIAL, 1.0, &r), AU_WINNER);
    c = (AuConfirm){0}, r = w;
    CHECK_INT(au_stats_confirm(&c, &st, &cfg, AU_TEST_PAPER, 1.0, &r), AU_WINNER);
    off = cfg;
    off.oracle = true;
    c = (AuConfirm){0}, r = w;
    CHECK_INT(au_stats_confirm(&c, &st, &off, AU_TEST_SEQUENTIAL, 1.0, &r), AU_WINNER);
    au_stats_free(&st);
}

/* research.confirm_fresh on real sums: the same decision at twice the
 * samples stands only if the samples since its first look agree. */
static AuOutcome confirm_after(const AuConfig *cfg, AuOutcome decided, double before0, double before1,
                               double after0, double after1, AuResult *r)
{
    sim_init();
    AuStats st;
    AuConfirm c = {0};
    if (!au_stats_init(&st, 2, cfg))
        return AU_RUNNING;
    AuRng g;
    au_rng_seed(&g, 11);
    for (int i = 0; i < 10000; i++)
        au_stats_add(&st, 0, sim_draw(&g, before0), 1), au_stats_add(&st, 1, sim_draw(&g, before1), 1);
    *r = (AuResult){.outcome = decided, .nvariants = 2, .best = 1, .install = decided == AU_WINNER};
    r->v[0].samples = r->v[1].samples = 10000;
    au_stats_confirm(&c, &st, cfg, AU_TEST_SEQUENTIAL, 1.0, r);
    for (int i = 0; i < 10000; i++)
        au_stats_add(&st, 0, sim_draw(&g, after0), 1), au_stats_add(&st, 1, sim_draw(&g, after1), 1);
    *r = (AuResult){.outcome = decided, .nvariants = 2, .best = 1, .install = decided == AU_WINNER};
    r->v[0].samples = r->v[1].samples = 20000;
    AuOutcome o = au_stats_confirm(&c, &st, cfg, AU_TEST_SEQUENTIAL, 2.0, r);
    au_stats_free(&st);
    return o;
}

TEST(audit_confirm_fresh_rule)
{
    AuConfig cfg = sim_config();
    AuResult r;
    /* variant 1 10% faster, then 2% faster: it stands */
    CHECK_INT(confirm_after(&cfg, AU_WINNER, 1, 0.9, 1, 0.98, &r), AU_WINNER);
    CHECK_INT(r.unconfirmed, 0);
    /* 10% faster, then 2% slower: the cumulative winner, not the fresh one */
    CHECK_INT(confirm_after(&cfg, AU_WINNER, 1, 0.9, 0.98, 1, &r), AU_RUNNING);
    CHECK_INT(r.unconfirmed, 1);
    CHECK_INT(r.fresh_disagreed, 1);
    CHECK_INT(r.install, 0);
    /* without the rule it stands */
    AuConfig off = cfg;
    off.confirm_fresh = false;
    CHECK_INT(confirm_after(&off, AU_WINNER, 1, 0.9, 0.98, 1, &r), AU_WINNER);
    CHECK_INT(r.fresh_disagreed, 0);
    /* a no-difference: the fresh samples must not have another variant
     * faster than the default by more than audit.equivalence (1%) */
    CHECK_INT(confirm_after(&cfg, AU_NO_DIFFERENCE, 1, 1, 1, 0.995, &r), AU_NO_DIFFERENCE);
    CHECK_INT(confirm_after(&cfg, AU_NO_DIFFERENCE, 1, 1, 0.995, 1, &r), AU_NO_DIFFERENCE);
    CHECK_INT(confirm_after(&cfg, AU_NO_DIFFERENCE, 1, 1, 1, 0.97, &r), AU_RUNNING);
    CHECK_INT(r.fresh_disagreed, 1);
    CHECK_INT(confirm_after(&off, AU_NO_DIFFERENCE, 1, 1, 1, 0.97, &r), AU_NO_DIFFERENCE);
}

/* What confirmation is for: a transient.  For the first `looks` looks
 * (1,000 samples of each variant a look; the first test comes at about
 * 11) variant 1 runs at `fast` — a phase of the program, a still-warming
 * copy — and after them variant 0 at `after` (1: the two alike).  Returns
 * how many of `runs` bakeoffs declare variant 1; *winners gets how many
 * declare any, *nodiff how many end no-difference (NULL: not asked). */
static int transient_run(const AuConfig *cfg, int runs, int looks, double fast, double after, int *winners,
                         int *nodiff)
{
    sim_init();
    int wrong = 0, nd = 0;
    *winners = 0;
    for (int run = 0; run < runs; run++) {
        AuRng r;
        au_rng_seed(&r, 0xc0f0 + (uint64_t)run);
        AuStats st;
        if (!au_stats_init(&st, 2, cfg))
            return -1;
        AuConfirm c = {0};
        AuResult res = {0};
        AuOutcome o = AU_RUNNING;
        for (int look = 1; look < 20000 && o == AU_RUNNING; look++) {
            double f[2] = {look > looks ? after : 1, look <= looks ? fast : 1};
            for (int k = 0; k < 2; k++)
                for (int i = 0; i < 1000; i++)
                    au_stats_add(&st, k, sim_draw(&r, f[k]), 1);
            au_stats_test(&st, AU_TEST_SEQUENTIAL, look * 0.010, &res);
            o = au_stats_confirm(&c, &st, cfg, AU_TEST_SEQUENTIAL, look * 0.010, &res);
        }
        *winners += o == AU_WINNER;
        wrong += o == AU_WINNER && res.install == 1;
        nd += o == AU_NO_DIFFERENCE;
        au_stats_free(&st);
    }
    if (nodiff)
        *nodiff = nd;
    return wrong;
}

/* Variant 1 8% faster for the first 8 looks, then the two alike: the
 * first test already sees the rest of the stream. */
TEST(audit_confirm_transient)
{
    AuConfig cfg = sim_config();
    cfg.min_effect = 0.02;   /* the default */
    AuConfig off = cfg;
    off.confirm = 0;
    int with, without;
    transient_run(&cfg, 50, 8, 0.92, 1, &with, NULL);
    transient_run(&off, 50, 8, 0.92, 1, &without, NULL);
    if (sim_verbose())
        printf("audit transient: winners of 50 with confirmation %d, without %d\n", with, without);
    CHECK(without >= 25);
    CHECK_INT(with, 0);
}

/* research.confirm_fresh: a transient as long as the first look.  Variant 1
 * is 15% faster for the first 14 looks, variant 0 5% faster after: at
 * twice the first look's samples the cumulative sums still have variant
 * 1 ahead by about 7%, the samples since the first look have it behind. */
TEST(audit_confirm_fresh_transient)
{
    AuConfig cfg = sim_config();
    cfg.min_effect = 0.02;
    CHECK(cfg.confirm_fresh);
    AuConfig cumulative = cfg;
    cumulative.confirm_fresh = false;
    int any_fresh, any_cumulative;
    int fresh = transient_run(&cfg, 50, 14, 0.85, 0.95, &any_fresh, NULL);
    int old = transient_run(&cumulative, 50, 14, 0.85, 0.95, &any_cumulative, NULL);
    if (sim_verbose())
        printf("audit long transient: variant 1 declared in %d of 50 with the fresh samples' check "
               "(%d winners), %d without (%d)\n", fresh, any_fresh, old, any_cumulative);
    CHECK(old >= 25);
    CHECK_INT(fresh, 0);
}

/* research.confirm_nodiff: the variants alike for the first 70 looks
 * (70,000 samples each; an A/A bakeoff here ends no-difference at a
 * median of 65,250 without the rule), variant 1 3% faster after — CD's
 * handleNewFrame$lambda1 in miniature (docs/auditing.md, "Confirmation").
 * Without the rule 41 of 50 end no-difference, wrong about the rest of
 * the run; with it the first looks' no-difference does not stand, and the
 * bakeoff samples on to the winner (50 of 50).  A change that comes
 * after the confirming look (alike for 140 looks) is not caught: 38 of 50
 * no-difference with the rule. */
TEST(audit_confirm_nodiff_transient)
{
    AuConfig cfg = sim_config();
    cfg.min_effect = 0.02;
    CHECK(cfg.confirm_nodiff);
    AuConfig off = cfg;
    off.confirm_nodiff = false;
    int any_with, any_without, nd_with, nd_without;
    int with = transient_run(&cfg, 50, 70, 1, 1.03, &any_with, &nd_with);
    int without = transient_run(&off, 50, 70, 1, 1.03, &any_without, &nd_without);
    if (sim_verbose())
        printf("audit no-difference transient: no-difference in %d of 50 with its confirmation (variant 1 "
               "declared in %d, %d winners), %d without (%d, %d)\n", nd_with, with, any_with, nd_without,
               without, any_without);
    CHECK(nd_without >= 10);
    CHECK_INT(nd_with, 0);
    CHECK_INT(any_with, with);   /* no wrong winner either */
    CHECK(with >= 45);
}
