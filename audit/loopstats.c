/* audit/loopstats.c — loop timings' statistics: the events of one
 * bakeoff's timed calls by region and part, the per-invocation cost
 * estimate per variant (its copies merged, or per copy), and the look
 * that decides on it (au_loops_test, the counterpart of au_stats_test
 * for bakeoffs with code markers, copy rule included).
 *
 * Input: events (part c·N + k: copy c of variant k, region ≥ 1, cycles,
 * weight) in each thread's order, as the analysis thread routes them.
 * Output: AuEstimate per variant and per copy, and an AuResult per look
 * (with its regions' weights, cycles per unit of weight and shares).
 * The estimator and its assumptions are in audit/loops.c's header and
 * docs/auditing.md ("Loop timings").
 *
 * Invariants: a window is one timed call's events of one region (region
 * 1, the call's end, closes every open window of its part: a call runs
 * one part).  Why the call: the events within a call are not independent
 * (a call runs in a fast or a slow stretch of the machine as a whole),
 * and with chunks of a call as windows, A/A bakeoffs with a marker in the
 * loop found differences of 5-18% between identical variants.  Sums are
 * kept per part and added up to merge copies, so both estimates come
 * from one estimator.
 */
#include "loops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool au_loops_init(AuLoops *l, int nvariants, int ncopies, uint32_t npoints, const AuLoopCode *code)
{
    memset(l, 0, sizeof *l);
    if (nvariants < 1 || nvariants > JIT_MAX_VARIANTS || ncopies < 1 || ncopies > JIT_MAX_COPIES ||
        npoints > JIT_MAX_POINTS)
        return false;
    l->nvariants = nvariants;
    l->ncopies = ncopies;
    l->code = code;
    l->nregions = (int)npoints + 1;   /* region 1 (the call's end) and 2 + K */
    l->r = calloc((size_t)l->nregions * (size_t)(nvariants * ncopies), sizeof *l->r);
    return l->r != NULL;
}

void au_loops_free(AuLoops *l)
{
    free(l->r);
    memset(l, 0, sizeof *l);
}

static AuRegionSums *sums(const AuLoops *l, int region, int part)
{
    return &l->r[(size_t)(region - 1) * (size_t)(l->nvariants * l->ncopies) + (size_t)part];
}

static void close_window(AuRegionSums *s)
{
    if (!s->open_n)
        return;
    s->windows++;
    s->sc += s->open_c;
    s->sw += s->open_w;
    s->scc += s->open_c * s->open_c;
    s->sww += s->open_w * s->open_w;
    s->scw += s->open_c * s->open_w;
    s->open_c = s->open_w = 0;
    s->open_n = 0;
}

bool au_loops_add(AuLoops *l, int part, int region, uint64_t cycles, uint32_t weight)
{
    if (part < 0 || part >= l->nvariants * l->ncopies || region < 1 || region > l->nregions || !weight)
        return false;
    AuRegionSums *s = sums(l, region, part);
    s->events++;
    s->open_c += (double)cycles;
    s->open_w += weight;
    s->open_n++;
    s->weight += weight;
    if (region == 1) {   /* the call's end: every window of the part closes */
        l->calls[part]++;
        for (int r = 1; r <= l->nregions; r++)
            close_window(sums(l, r, part));
    }
    return true;
}

/* Variant k's complete windows of region r on copy c, or on its copies
 * (c < 0): the sums are additive, so merged copies are their sum. */
static AuRegionSums variant_sums(const AuLoops *l, int r, int k, int c)
{
    AuRegionSums m = {0};
    for (int i = c < 0 ? 0 : c; i < (c < 0 ? l->ncopies : c + 1); i++) {
        const AuRegionSums *s = sums(l, r, i * l->nvariants + k);
        m.events += s->events;
        m.windows += s->windows;
        m.weight += s->weight;
        m.sc += s->sc;
        m.sw += s->sw;
        m.scc += s->scc;
        m.sww += s->sww;
        m.scw += s->scw;
    }
    return m;
}

/* n_r: the region's source-level weight per timed call, over every
 * variant: from the code's exact counts (the call's end has weight 1), or
 * without them the events received; NaN before a call has ended. */
static double per_call(const AuLoops *l, int region)
{
    const AuLoopCode *c = l->code;
    if (c && region == 1)
        return 1;
    if (c && region >= 2 && (uint32_t)(region - 2) < c->npoints) {
        double total = 0, calls = 0;
        for (int p = 0; p < c->nparts; p++) {
            total += (double)__atomic_load_n(&c->total[(size_t)p * c->npoints + (size_t)(region - 2)], __ATOMIC_RELAXED);
            calls += (double)__atomic_load_n(&c->calls[p], __ATOMIC_RELAXED);
        }
        return calls > 0 ? total / calls : NAN;
    }
    double w = 0, calls = 0;
    for (int p = 0; p < l->nvariants * l->ncopies; p++) {
        w += sums(l, region, p)->weight;
        calls += (double)l->calls[p];
    }
    return calls > 0 ? w / calls : NAN;
}

/* Every region's n_r, read once for a look: the program thread moves the
 * exact counts meanwhile, and the variants and copies are compared (and
 * their costs reported) at one workload. */
static void per_call_all(const AuLoops *l, double n[AU_REGIONS_MAX])
{
    for (int r = 1; r <= l->nregions; r++)
        n[r - 1] = per_call(l, r);
}

/* au_loops_estimate at the regions' weights n[] (per_call_all). */
static bool estimate(const AuLoops *l, const double *nr, int k, int c, AuEstimate *e, uint64_t *windows)
{
    memset(e, 0, sizeof *e);
    if (k < 0 || k >= l->nvariants || c < -1 || c >= l->ncopies)
        return false;
    double mean = 0, var = 0, df_den = 0;
    uint64_t calls = 0;
    bool any = false;
    for (int r = 1; r <= l->nregions; r++) {
        AuRegionSums s = variant_sums(l, r, k, c);
        double n = nr[r - 1];   /* every copy's: the copies compared at one workload */
        if (!(n > 0))
            continue;   /* a region no call reached */
        if (s.windows < 2 || !(s.sw > 0))
            return false;
        double R = s.sc / s.sw, J = (double)s.windows;
        /* Σ (C_j − R·W_j)², expanded */
        double ss = s.scc - 2 * R * s.scw + R * R * s.sww;
        double v = n * n * (ss > 0 ? ss : 0) * J / (J - 1) / (s.sw * s.sw);
        mean += n * R;
        var += v;
        df_den += v * v / (J - 1);
        if (r == 1)
            calls = s.windows;
        any = true;
    }
    if (!any || !(mean > 0))
        return false;
    /* Welch–Satterthwaite: the degrees of freedom of the regions' summed
     * variance, each region's by its windows, weighted by its share */
    double df = df_den > 0 ? var * var / df_den : 1e9;
    e->n = calls;   /* the unit of the copy rule's shares (au_stats_copies_apart) */
    e->windows = (uint64_t)(df + 1);
    e->mean = mean;
    e->var_mean = var;
    e->stddev = sqrt(var * (df + 1));
    e->cycles = mean;
    *windows = e->windows;
    return true;
}

bool au_loops_estimate(const AuLoops *l, int k, int c, AuEstimate *e, uint64_t *windows)
{
    double n[AU_REGIONS_MAX];
    per_call_all(l, n);
    return estimate(l, n, k, c, e, windows);
}

/* What variant k's μ (mean, 0: none) is made of, at the weights nr[]:
 * R_r of its merged copies (as estimate computes it) and its shares. */
static void region_costs(const AuLoops *l, const double *nr, int k, double mean, AuRegionCosts *out)
{
    for (int r = 1; r <= l->nregions; r++) {
        AuRegionSums s = variant_sums(l, r, k, -1);
        double R = s.sw > 0 ? s.sc / s.sw : NAN, n = nr[r - 1];
        out->cycles[k][r - 1] = (float)R;
        out->share[k][r - 1] = !(mean > 0) || isnan(n) ? NAN : n > 0 ? (float)(n * R / mean) : 0;
    }
}

/* μ's variance widened so that the normal interval the tests draw at
 * level alpha is as wide as Student's t at μ's degrees of freedom (its
 * effective windows − 1, rounded down): with a few calls the variance is
 * itself a rough estimate, whose error a normal interval would ignore. */
static void t_widen(AuEstimate *e, double alpha)
{
    double df = (double)e->windows - 1;
    double t = df >= 1 ? au_t_quantile(1 - alpha / 2, df) : INFINITY, z = au_normal_quantile(1 - alpha / 2);
    e->var_mean *= t * t / (z * z);
}

/* A look (au_stats_test's rules on μ): a winner b needs every other
 * variant shown slower by more than min_effect and, with copies, on every
 * copy's μ by the copy rule (au_stats_copies_agree; the oracle does not
 * apply it); the sequential test ends a bakeoff the rule blocks past
 * doubt (au_stats_copies_apart) as a futile timeout, `placement`.  The
 * copy rule's unit is the timed call: copy_samples are a copy's calls,
 * as e[k].n are the variant's. */
AuOutcome au_loops_test(const AuLoops *l, const AuConfig *cfg, AuTest test, double elapsed, AuResult *out)
{
    int n = l->nvariants;
    AuEstimate e[JIT_MAX_VARIANTS];
    memset(out, 0, sizeof *out);
    out->outcome = AU_RUNNING;
    out->test = test;
    out->nvariants = n;
    out->best = out->runner_up = -1;
    bool wall = cfg->timeout > 0 && elapsed >= cfg->timeout;
    bool seq = test == AU_TEST_SEQUENTIAL && !cfg->oracle;
    uint64_t few = UINT64_MAX;
    bool ready = true;
    double nr[AU_REGIONS_MAX];
    per_call_all(l, nr);
    out->regions.nregions = (uint32_t)l->nregions;
    memcpy(out->regions.weight, nr, (size_t)l->nregions * sizeof *nr);
    for (int k = 0; k < n; k++) {
        uint64_t w = 0;
        AuVariantResult *v = &out->v[k];
        for (int r = 1; r <= l->nregions; r++) {
            AuRegionSums s = variant_sums(l, r, k, -1);
            v->received += s.events;
            v->weight += s.weight;
        }
        v->samples = v->received;
        for (int c = 0; c < l->ncopies; c++) {
            AuEstimate ec;
            uint64_t wc;
            v->copy_samples[c] = l->calls[c * n + k];
            v->copy_mean[c] = estimate(l, nr, k, c, &ec, &wc) ? ec.mean : 0;
        }
        if (!estimate(l, nr, k, -1, &e[k], &w)) {
            region_costs(l, nr, k, 0, &out->regions);
            ready = false;
            few = 0;
            continue;
        }
        region_costs(l, nr, k, e[k].mean, &out->regions);
        t_widen(&e[k], cfg->alpha / (n - 1));
        v->mean = v->cycles = e[k].mean;
        v->stddev = e[k].stddev;
        few = w < few ? w : few;
    }
    if (!ready || few < AU_LOOPS_MIN_WINDOWS) {
        if (wall)
            out->outcome = AU_TIMEOUT;
        return out->outcome;
    }
    int b = 0;
    for (int k = 1; k < n; k++)
        if (e[k].mean < e[b].mean)
            b = k;
    out->best = b;
    double alpha = cfg->alpha / (n - 1), m = log1p(cfg->min_effect);
    bool all_slower = true, apart = false, withheld = false;
    out->confidence = 1;
    for (int k = 0; k < n; k++) {
        if (k == b)
            continue;
        AuCompare cmp, *c = &cmp;
        au_stats_compare(&e[k], &e[b], test, alpha, cfg->mixture, cfg->mixture_max, c);
        AuVariantResult *v = &out->v[k];
        v->rel = expm1(c->theta), v->rel_lo = expm1(c->lo), v->rel_hi = expm1(c->hi);
        v->slower = test == AU_TEST_PAPER ? c->confidence >= 1 - cfg->alpha && c->theta > m : c->lo > m;
        if (v->slower && !cfg->oracle && !au_stats_copies_agree(out, k, b, cfg->copy_margin)) {
            v->slower = false;
            withheld = true;
            apart |= seq && au_stats_copies_apart(out, e, k, b, cfg->copy_margin);
        }
        all_slower &= v->slower;
        if (out->runner_up < 0 || c->confidence < out->confidence) {
            out->runner_up = k;
            out->confidence = c->confidence;
            out->rel = expm1(-c->theta), out->rel_lo = expm1(-c->hi), out->rel_hi = expm1(-c->lo);
        }
    }
    if (seq)
        out->foresight.withheld = withheld;
    if (all_slower) {
        out->outcome = AU_WINNER;
        out->install = b;
        return out->outcome;
    }
    /* no-difference: the default not shown slower, every other variant
     * within ±equivalence of it or slower (as au_stats_test) */
    if (test == AU_TEST_SEQUENTIAL && !(b != 0 && out->v[0].slower)) {
        double lo = log1p(-cfg->equivalence), hi = log1p(cfg->equivalence);
        bool same = true;
        for (int k = 1; k < n && same; k++) {
            AuCompare c;
            au_stats_compare(&e[k], &e[0], test, alpha, cfg->mixture, cfg->mixture_max, &c);
            same = (c.lo > lo && c.hi < hi) || c.lo > 0;
        }
        if (same) {
            out->outcome = AU_NO_DIFFERENCE;
            out->install = 0;
            return out->outcome;
        }
    }
    /* the copies apart past doubt: more calls would only confirm it */
    if (apart && !wall)
        out->futile = out->placement = true;
    if (wall || out->futile)
        out->outcome = AU_TIMEOUT;
    return out->outcome;
}
