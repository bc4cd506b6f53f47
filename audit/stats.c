/* audit/stats.c — the statistics of one bakeoff: trimming, running sums,
 * per-weight estimates, and the two decision tests.
 *
 * Input: samples (variant, cycles, weight) in arrival order.  Output, per
 * look: an AuResult (estimates, relative differences with intervals,
 * confidence, outcome).
 *
 * Invariants:
 * - Trimming is the same for every variant: each variant's samples are cut
 *   into windows of cfg.trim_window in arrival order, and the trim_drop
 *   slowest of each window (by cycles per unit of weight; ties broken by
 *   cycles, then weight, so the dropped set is unique) are discarded —
 *   with weights, the slowest of each weight class, in proportion to the
 *   class's share of the window (trim), so that trimming does not change
 *   the mix of weights kept; a class too rare in the window for a share,
 *   against its own recent past.  A window counts only once complete,
 *   and only if it kept a sample.
 * - Nothing stores samples beyond one window (but each weight class's
 *   last trim_window values of c/w, for trimming it where it is rare):
 *   the estimate comes from the running sums alone.  The unit of the variance is the window (its kept
 *   samples are not independent of each other; windows are).
 * - au_stats_test is pure; every look is a fresh, valid test (the
 *   sequential test's error rate holds over all looks; docs/auditing.md).
 */
#include "audit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *au_outcome_name(AuOutcome o)
{
    static const char *const names[] = {
#define X(e, s) s,
        AU_OUTCOMES(X)
#undef X
    };
    return (unsigned)o < sizeof names / sizeof names[0] ? names[o] : "?";
}

const char *au_test_name(AuTest t)
{
    static const char *const names[] = {
#define X(e, s) s,
        AU_TESTS(X)
#undef X
    };
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

int au_test_parse(const char *s)
{
#define X(e, name) if (s && !strcmp(s, name)) return e;
    AU_TESTS(X)
#undef X
    return -1;
}

/* ---- normal distribution ------------------------------------------------- */

double au_normal_cdf(double z)
{
    return 0.5 * erfc(-z / M_SQRT2);
}

/* Acklam's rational approximation (relative error 1.2e-9), polished by one
 * Halley step on erfc. */
double au_normal_quantile(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                               2.445134137142996e+00, 3.754408661907416e+00};
    if (!(p > 0))
        return -INFINITY;
    if (!(p < 1))
        return INFINITY;
    double x;
    if (p < 0.02425) {
        double q = sqrt(-2 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p <= 1 - 0.02425) {
        double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    } else {
        double q = sqrt(-2 * log1p(-p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    double e = au_normal_cdf(x) - p;
    double u = e * sqrt(2 * M_PI) * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

/* Student's t quantile for df > 0 degrees of freedom (real df: Welch's):
 * exact for df 1 and 2, else Hill's approximation (CACM algorithm 396, as
 * in R's qt), within 1e-3 relative for df ≥ 3 at the tails the tests use. */
double au_t_quantile(double p, double df)
{
    if (!(p > 0) || !(p < 1) || !(df > 0))
        return NAN;
    if (p < 0.5)
        return -au_t_quantile(1 - p, df);
    if (p == 0.5)
        return 0;
    if (isinf(df) || df > 1e7)
        return au_normal_quantile(p);
    if (df == 1)
        return tan(M_PI * (p - 0.5));
    double P = 2 * (1 - p);   /* two-sided */
    if (df == 2)
        return sqrt(2 / (P * (2 - P)) - 2);
    double a = 1 / (df - 0.5), b = 48 / (a * a), c = ((20700 * a / b - 98) * a - 16) * a + 96.36;
    double d = ((94.5 / (b + c) - 3) / b + 1) * sqrt(a * M_PI_2) * df;
    double y = pow(d * P, 2 / df);
    if (y > 0.05 + a) {   /* the expansion about the normal */
        double x = au_normal_quantile(0.5 * P);
        y = x * x;
        if (df < 5)
            c += 0.3 * (df - 4.5) * (x + 0.6);
        c = (((0.05 * d * x - 5) * x - 7) * x - 2) * x + b + c;
        y = (((((0.4 * y + 6.3) * y + 36) * y + 94.5) / c - y - 3) / b + 1) * x;
        y = expm1(a * y * y);
    } else {
        y = ((1 / (((df + 6) / (df * y) - 0.089 * d - 0.822) * (df + 2) * 3) + 0.5 / (df + 4)) * y - 1) *
                (df + 1) / (df + 2) +
            1 / y;
    }
    return sqrt(df * y);
}

/* ---- random numbers ------------------------------------------------------ */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void au_rng_seed(AuRng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t au_rng_next(AuRng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double au_rng_double(AuRng *r)
{
    return (double)(au_rng_next(r) >> 11) * 0x1.0p-53;
}

/* ---- trimming and sums --------------------------------------------------- */

bool au_stats_init(AuStats *st, int nvariants, const AuConfig *cfg)
{
    memset(st, 0, sizeof *st);
    if (nvariants < 2 || nvariants > JIT_MAX_VARIANTS || cfg->trim_window < 1 ||
        cfg->trim_window > AU_MAX_TRIM_WINDOW || cfg->trim_drop >= cfg->trim_window)
        return false;
    st->nvariants = nvariants;
    st->cfg = *cfg;
    for (int i = 0; i < nvariants; i++) {
        st->v[i].win = malloc(cfg->trim_window * sizeof(AuObs));
        bool ok = st->v[i].win != NULL;
        for (int c = 0; c < JIT_MAX_COPIES; c++)
            ok = ok && (st->v[i].copy[c].win = malloc(cfg->trim_window * sizeof(AuObs)));
        if (!ok) {
            au_stats_free(st);
            return false;
        }
    }
    return true;
}

static void free_recent(AuRecent *recent)
{
    for (int c = 0; c < AU_WEIGHT_CLASSES; c++) {
        free(recent[c].cw);
        recent[c] = (AuRecent){0};
    }
}

void au_stats_free(AuStats *st)
{
    for (int i = 0; i < JIT_MAX_VARIANTS; i++) {
        free(st->v[i].win);
        st->v[i].win = NULL;
        free_recent(st->v[i].recent);
        for (int c = 0; c < JIT_MAX_COPIES; c++) {
            free(st->v[i].copy[c].win);
            st->v[i].copy[c].win = NULL;
            free_recent(st->v[i].copy[c].recent);
        }
    }
}

/* Total order "a is slower than b": by c/w (exact, in 128 bits), then c, w. */
static bool slower(const AuObs *a, const AuObs *b)
{
    unsigned __int128 x = (unsigned __int128)a->c * b->w, y = (unsigned __int128)b->c * a->w;
    if (x != y)
        return x > y;
    if (a->c != b->c)
        return a->c > b->c;
    return a->w > b->w;
}

static void swap_obs(AuObs *a, AuObs *b)
{
    AuObs t = *a;
    *a = *b;
    *b = t;
}

/* Reorders w[0..n) so that w[0..k) are the k fastest (quickselect with a
 * median-of-three pivot: deterministic, linear on average). */
static void select_fastest(AuObs *w, uint32_t n, uint32_t k)
{
    uint32_t lo = 0, hi = n;          /* the boundary k lies in [lo, hi) */
    while (hi - lo > 1 && k > lo && k < hi) {
        uint32_t mid = lo + (hi - lo) / 2, last = hi - 1;
        if (slower(&w[lo], &w[mid]))
            swap_obs(&w[lo], &w[mid]);
        if (slower(&w[mid], &w[last]))
            swap_obs(&w[mid], &w[last]);
        if (slower(&w[lo], &w[mid]))
            swap_obs(&w[lo], &w[mid]);
        swap_obs(&w[mid], &w[last]);  /* pivot (the median) to the end */
        AuObs pivot = w[last];
        uint32_t store = lo;
        for (uint32_t i = lo; i < last; i++)
            if (slower(&pivot, &w[i]))
                swap_obs(&w[i], &w[store++]);
        swap_obs(&w[store], &w[last]);
        /* now w[lo..store) are faster than the pivot, w[store] is it, the rest slower */
        if (store == k)
            return;
        if (store < k)
            lo = store + 1;
        else
            hi = store;
    }
}

/* Window (x, w) of variant k into the pairing; complete rounds into the
 * paired sums. */
static void pair_window(AuStats *st, int k, double x, double w)
{
    AuPaired *p = &st->pair;
    if (p->npending[k] == AU_PAIR_PENDING) {   /* far ahead of another variant */
        p->head[k] = (p->head[k] + 1) % AU_PAIR_PENDING;
        p->npending[k]--;
    }
    uint32_t at = (p->head[k] + p->npending[k]) % AU_PAIR_PENDING;
    p->px[k][at] = x;
    p->pw[k][at] = w;
    p->npending[k]++;
    int n = st->nvariants;
    for (int i = 0; i < n; i++)
        if (!p->npending[i])
            return;
    double xs[JIT_MAX_VARIANTS], ws[JIT_MAX_VARIANTS];
    for (int i = 0; i < n; i++) {
        xs[i] = p->px[i][p->head[i]];
        ws[i] = p->pw[i][p->head[i]];
        p->head[i] = (p->head[i] + 1) % AU_PAIR_PENDING;
        p->npending[i]--;
        p->sx[i] += xs[i];
        p->sw[i] += ws[i];
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            p->xx[i][j] += xs[i] * xs[j];
            p->xw[i][j] += xs[i] * ws[j];
            p->ww[i][j] += ws[i] * ws[j];
        }
    p->rounds++;
}

/* A sample's weight class: ⌊log2 w⌋ (0 for weight 1). */
static int weight_class(uint32_t w)
{
    return 31 - __builtin_clz(w);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The (n − drop)-th fastest c/w of the class's last n samples; −INFINITY
 * (drop all) until it has n. */
static double recent_limit(const AuRecent *r, uint32_t n, uint32_t drop)
{
    if (!r->cw || r->n < n)
        return -INFINITY;
    double sorted[AU_MAX_TRIM_WINDOW];
    memcpy(sorted, r->cw, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_double);
    return sorted[n - drop - 1];
}

/* Adds the window's samples to their classes' recent pasts (rings of n).
 * Only windows of more than one class are remembered (a one-class
 * window takes the early return in trim): a class is rare only in mixed
 * windows, so its past is its samples in windows like those. */
static void remember(AuRecent *recent, const AuObs *win, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        AuRecent *r = &recent[weight_class(win[i].w)];
        if (!r->cw && !(r->cw = malloc(n * sizeof *r->cw)))
            continue;              /* without memory: dropped where rare */
        r->cw[r->at] = (double)win[i].c / win[i].w;
        r->at = (r->at + 1) % n;
        if (r->n < n)
            r->n++;
    }
}

/* Trims a full window win[0..n): the kept samples to win[0..keep), keep
 * returned.  With every weight 1, the drop slowest.  With weights, each
 * weight class gives up its share of the drop (largest remainders; ties
 * to the lower class), its slowest by c/w.  Why by class: a recursive
 * method's timed calls weigh from 1 to thousands, and c/w depends on w (a
 * timed call's fixed cost weighs most on a small one; a deep recursion
 * may cost more per call): the slowest by c/w over the whole window are
 * mostly of some weights, and which depends on the variant, so trimming
 * over the window alone can make a difference of its own (6% on a
 * recursive method); by class the kept mix is the received one.
 *
 * A class too rare in the window for a share (1 or 2 timed calls in 100)
 * is trimmed against its own recent past instead: a sample slower by c/w
 * than the (n − drop)-th fastest of the class's last n samples (recent,
 * kept per variant and per copy) is dropped, and so is every such sample
 * until the class has n samples: the first ones would otherwise stay
 * untrimmed in the sums for good.  Why: a rare weight class can carry
 * most of a method's cycles (a recursion's top call), and without a
 * share of its own a garbage collection inside one (30 times its cycles)
 * is never dropped and widens the interval past any decision.  Past its first
 * n samples such a class keeps n − drop of every n on average, its
 * share; a class that never has n samples is left out of the estimate,
 * alike for every variant. */
static uint32_t trim(AuObs *win, uint32_t n, uint32_t drop, AuRecent *recent)
{
    uint32_t count[AU_WEIGHT_CLASSES] = {0};
    int classes = 0;
    for (uint32_t i = 0; i < n; i++)
        if (count[weight_class(win[i].w)]++ == 0)
            classes++;
    if (classes == 1 || drop == 0) {
        select_fastest(win, n, n - drop);
        return n - drop;
    }
    uint32_t quota[AU_WEIGHT_CLASSES], rem[AU_WEIGHT_CLASSES], given = 0;
    for (int c = 0; c < AU_WEIGHT_CLASSES; c++) {
        quota[c] = count[c] * drop / n;
        rem[c] = count[c] * drop % n;
        given += quota[c];
    }
    for (; given < drop; given++) {
        int best = 0;
        for (int c = 1; c < AU_WEIGHT_CLASSES; c++)
            if (rem[c] > rem[best])
                best = c;
        quota[best]++;
        rem[best] = 0;
    }
    double limit[AU_WEIGHT_CLASSES];   /* for a class without a share */
    for (int c = 0; c < AU_WEIGHT_CLASSES; c++)
        limit[c] = count[c] && !quota[c] ? recent_limit(&recent[c], n, drop) : INFINITY;
    remember(recent, win, n);
    AuObs grouped[AU_MAX_TRIM_WINDOW];
    uint32_t start[AU_WEIGHT_CLASSES], at = 0;
    for (int c = 0; c < AU_WEIGHT_CLASSES; c++) {
        start[c] = at;
        at += count[c];
    }
    uint32_t fill[AU_WEIGHT_CLASSES];
    memcpy(fill, start, sizeof fill);
    for (uint32_t i = 0; i < n; i++)
        grouped[fill[weight_class(win[i].w)]++] = win[i];
    uint32_t keep = 0;
    for (int c = 0; c < AU_WEIGHT_CLASSES; c++) {
        if (!count[c])
            continue;
        AuObs *g = grouped + start[c];
        if (!quota[c]) {
            for (uint32_t i = 0; i < count[c]; i++)
                if (!((double)g[i].c / g[i].w > limit[c]))
                    win[keep++] = g[i];
            continue;
        }
        uint32_t kc = count[c] - quota[c];
        select_fastest(g, count[c], kc);
        memcpy(win + keep, g, kc * sizeof *win);
        keep += kc;
    }
    return keep;
}

/* Trims a full window (trim) and adds its kept samples' Σc, Σw to *c, *w;
 * returns how many it kept. */
static uint32_t trim_sum(AuObs *win, AuRecent *recent, const AuConfig *cfg, double *c, double *w)
{
    uint32_t keep = trim(win, cfg->trim_window, cfg->trim_drop, recent);
    for (uint32_t i = 0; i < keep; i++) {
        *c += (double)win[i].c;
        *w += win[i].w;
    }
    return keep;
}

static void flush_window(AuStats *st, int k)
{
    AuVariantStats *v = &st->v[k];
    const AuConfig *cfg = &st->cfg;
    double c = 0, w = 0;
    uint32_t keep = trim_sum(v->win, v->recent, cfg, &c, &w);
    v->trimmed += cfg->trim_window - keep;
    v->nwin = 0;
    if (!keep)
        return;                  /* all rare, no past yet (a small window): no window */
    AuSums *s = &v->sums;
    if (s->windows == 0)
        s->shift = c / w;        /* the first kept window's mean */
    double x = c - s->shift * w;
    s->windows++;
    s->sx += x;
    s->sxx += x * x;
    s->sw += w;
    s->sww += w * w;
    s->sxw += x * w;
    for (uint32_t i = 0; i < keep; i++) {
        double y = (double)v->win[i].c / v->win[i].w - s->shift;
        s->sy += y;
        s->syy += y * y;
    }
    s->samples += keep;
    pair_window(st, k, x, w);
}

bool au_stats_add(AuStats *st, int variant, uint64_t cycles, uint32_t weight)
{
    return au_stats_add_copy(st, variant, 0, cycles, weight);
}

bool au_stats_add_copy(AuStats *st, int variant, int copy, uint64_t cycles, uint32_t weight)
{
    if (variant < 0 || variant >= st->nvariants || copy < 0 || copy >= JIT_MAX_COPIES || weight == 0)
        return false;
    AuVariantStats *v = &st->v[variant];
    v->received++;
    v->win[v->nwin++] = (AuObs){cycles, weight};
    if (v->nwin == st->cfg.trim_window)
        flush_window(st, variant);
    AuCopySums *cp = &v->copy[copy];
    cp->win[cp->nwin++] = (AuObs){cycles, weight};
    if (cp->nwin == st->cfg.trim_window) {
        cp->samples += trim_sum(cp->win, cp->recent, &st->cfg, &cp->sc, &cp->sw);
        cp->nwin = 0;
    }
    return true;
}

bool au_stats_add_warmup(AuStats *st, int variant, uint64_t cycles)
{
    if (variant < 0 || variant >= st->nvariants)
        return false;
    st->v[variant].warmups++;
    st->v[variant].warmup_cycles += (double)cycles;
    return true;
}

/* The ratio estimator R = ΣC/ΣW over windows, and its delta-method
 * variance Var(R) ≈ Σ(C_j − R·W_j)² / ((m − 1)·m·W̄²) for m windows; with
 * w = 1 and window 1, the sample mean and s²/n. */
void au_stats_estimate(const AuStats *st, int variant, AuEstimate *e)
{
    const AuSums *s = &st->v[variant].sums;
    memset(e, 0, sizeof *e);
    e->n = s->samples;
    e->windows = s->windows;
    if (s->windows == 0 || s->sw <= 0)
        return;
    double r = s->sx / s->sw;                    /* R − shift */
    e->mean = s->shift + r;
    e->cycles = (s->sx + s->shift * s->sw) / (double)s->samples;
    if (s->windows < 2)
        return;
    double d2 = s->sxx - 2 * r * s->sxw + r * r * s->sww;
    if (d2 < 0)
        d2 = 0;
    double m = (double)s->windows, wbar = s->sw / m;
    e->var_mean = d2 / ((m - 1) * m * wbar * wbar);
    double n = (double)s->samples, ss = s->syy - s->sy * s->sy / n;
    e->stddev = n > 1 && ss > 0 ? sqrt(ss / (n - 1)) : 0;
}

/* ---- confirmation -------------------------------------------------------- */

/* Why: the sequential test's guarantee rests on the windows' normal
 * approximation, and that is weakest at the first looks (the fewest
 * windows, the variance least known, a heavy-tailed or still-warming
 * method), and the false winners of A/A bakeoffs come at the first look.
 * Asking the winner to be the winner again once its samples have doubled
 * can only remove decisions, never add one: the error rate stays within
 * the test's, and a real difference costs twice the samples. */
/* Why the fresh samples too: the cumulative sums at the confirming look
 * still hold the first look's, so a difference that lasts about as long
 * as the first look (a phase of the program, a still-warming copy) keeps
 * its winner the winner at twice the samples.  Asked only for its
 * direction, the half since then costs a real difference almost nothing
 * (the synthetic 1%–10% detections of tests/unit: none of 800 lost, none
 * later), and an identical pair can only lose winners.  A safeguard
 * against a first look taken in a passing phase (docs/auditing.md,
 * "Confirmation"). */
/* Whether the fresh samples (since c's first look) agree with c's
 * decision, by its direction only: a winner the fastest; a no-difference
 * with no variant faster than the default (0) by more than the
 * equivalence margin.  A variant without a complete window since then:
 * not judged on them. */
static bool fresh_agrees(const AuConfirm *c, const AuStats *st)
{
    double mean[JIT_MAX_VARIANTS];
    for (int k = 0; k < st->nvariants; k++) {
        const AuSums *s = &st->v[k].sums;
        double dw = s->sw - c->sw[k];
        if (!(dw > 0))
            return true;
        mean[k] = s->shift + (s->sx - c->sx[k]) / dw;
    }
    for (int k = 0; k < st->nvariants; k++)
        if (c->outcome == AU_WINNER ? k != c->best && !(mean[c->best] < mean[k])
                                    : !(mean[k] > mean[0] * (1 - st->cfg.equivalence)))
            return false;
    return true;
}

/* Why no-differences too (research.confirm_nodiff): they are a claim as
 * well (the variants alike within ±equivalence), and the wrong ones
 * found in their own process (audit.verify) are of first looks at the
 * margin's edge, which more samples show apart.  Held
 * back, such a bakeoff samples on; it installs the default whether it
 * ends no-difference or timeout. */
static bool held(const AuConfig *cfg, AuOutcome o)
{
    return o == AU_WINNER || (o == AU_NO_DIFFERENCE && cfg->confirm_nodiff);
}

/* Whether r is the decision c waits for: the same outcome, and for a
 * winner the same variant. */
static bool same_decision(const AuConfirm *c, const AuResult *r)
{
    return r->outcome == c->outcome && (c->outcome != AU_WINNER || r->best == c->best);
}

AuOutcome au_stats_confirm(AuConfirm *c, const AuStats *st, const AuConfig *cfg, AuTest test,
                           double elapsed, AuResult *r)
{
    if (test != AU_TEST_SEQUENTIAL || cfg->oracle || !(cfg->confirm > 0))
        return r->outcome;
    uint64_t n = UINT64_MAX;
    for (int k = 0; k < r->nvariants; k++)
        if (r->v[k].samples < n)
            n = r->v[k].samples;
    if (c->at) {
        double need = ceil(cfg->confirm * (double)c->at);
        if (cfg->max_samples && need > (double)cfg->max_samples)
            need = (double)cfg->max_samples;
        if ((double)n >= need) {
            bool same = same_decision(c, r);
            bool fresh = !same || !cfg->confirm_fresh || fresh_agrees(c, st);
            c->at = 0;
            c->unconfirmed += !(same && fresh);
            c->fresh_disagreed += !fresh;
            r->unconfirmed = c->unconfirmed;
            r->fresh_disagreed = c->fresh_disagreed;
            if (same && fresh)
                return r->outcome;   /* confirmed */
        }
    }
    r->unconfirmed = c->unconfirmed;
    r->fresh_disagreed = c->fresh_disagreed;
    if (!held(cfg, r->outcome))
        return r->outcome;
    if (!c->at || !same_decision(c, r)) {
        c->at = n;
        c->outcome = r->outcome;
        c->best = r->best;
        for (int k = 0; k < st->nvariants; k++)
            c->sx[k] = st->v[k].sums.sx, c->sw[k] = st->v[k].sums.sw;
    }
    r->outcome = cfg->timeout > 0 && elapsed >= cfg->timeout ? AU_TIMEOUT : AU_RUNNING;
    r->confirming = r->outcome == AU_RUNNING;
    r->install = 0;
    return r->outcome;
}

/* ---- tests --------------------------------------------------------------- */

/* Below this the variance of θ̂ is treated as this (identical samples). */
#define MIN_VAR 1e-30
/* Windows per variant before a test: the variance is estimated from them. */
#define MIN_WINDOWS 30

/* θ = ln(mean_a / mean_b), v = Var(θ̂) by the delta method.
 *
 * Sequential (mixture SPRT, Johari et al.; the normal-mixture confidence
 * sequence of Howard et al.): with a N(0, τ²) mixture over θ, the
 * likelihood ratio of θ̂ against θ = θ0 is
 *   Λ_τ(θ0) = √(v / (v + τ²)) · exp(τ² (θ̂ − θ0)² / (2 v (v + τ²)))
 * and, for one scale τ, {θ0 : Λ_τ(θ0) < 1/α} is the interval
 *   θ̂ ± √(2 v (v + τ²) / τ² · ln(√((v + τ²) / v) / α)).
 * One scale is tight only where √v is near τ: far above it the
 * half-width grows as v/τ, not √v (at τ = 0.01 and √v = 5%, ±78% against
 * ±13% for one look).  So the mixture is over K scales, τ_k = τ·√10^k up
 * to audit.mixture_max, with weights 1/K: Λ = Σ Λ_τk / K is again a
 * nonnegative martingale of mean 1 under θ0, the interval
 * {θ0 : Λ(θ0) < 1/α} covers θ at every look at once with probability
 * ≥ 1 − α (asymptotically; Ville's inequality), and it is found by
 * bisection.  Its price is at most ln K added to ln(1/α) at any one
 * scale.  Confidence = 1 − 1/Λ(0) (0 when Λ(0) ≤ 1), the complement of
 * the always-valid p-value; the interval excludes 0 exactly when it is
 * ≥ 1 − α.  The caller applies the N-way correction.
 *
 * Paper (thesis III.B.5): confidence = Φ(|mean_a − mean_b| / √(var_a + var_b))
 * on the raw means; its interval is θ̂ ± Φ⁻¹(1 − α)·√v, the one-sided
 * quantile the thesis's threshold amounts to. */

/* The mixture's scales τ_k², k < AU_MAX_SCALES; returns K ≥ 1. */
static int mixture_scales(double tau, double tau_max, double t2[AU_MAX_SCALES])
{
    int k = 0;
    for (double t = tau; k < AU_MAX_SCALES && (k == 0 || t <= tau_max * (1 + 1e-9)); t *= sqrt(10.0))
        t2[k++] = t * t;
    return k;
}

/* ln Λ(θ0) at distance d = |θ̂ − θ0| (log-sum-exp over the scales). */
static double mixture_lnlr(double d, double v, int K, const double *t2)
{
    double l[AU_MAX_SCALES], top = -INFINITY, sum = 0;
    for (int k = 0; k < K; k++) {
        l[k] = 0.5 * log(v / (v + t2[k])) + t2[k] * d * d / (2 * v * (v + t2[k]));
        top = fmax(top, l[k]);
    }
    for (int k = 0; k < K; k++)
        sum += exp(l[k] - top);
    return top + log(sum / K);
}

/* One scale's half-width at level a. */
static double scale_halfwidth(double v, double a, double t2)
{
    return sqrt(2 * v * (v + t2) / t2 * (0.5 * log((v + t2) / v) - log(a)));
}

/* The half-width of the interval of the mixture over t2[0..K) at
 * variance v.  Λ grows with
 * the distance, and lies between the scales' at level α (every Λ_τk
 * below 1/α) and at α/K (one alone reaches K/α): the root is bracketed. */
static double scales_halfwidth(double v, double alpha, int K, const double *t2)
{
    double lo = INFINITY, hi = INFINITY;
    for (int k = 0; k < K; k++) {
        lo = fmin(lo, scale_halfwidth(v, alpha, t2[k]));
        hi = fmin(hi, scale_halfwidth(v, alpha / K, t2[k]));
    }
    if (K == 1)
        return lo;
    double target = -log(alpha);
    for (int i = 0; i < 60 && hi - lo > 1e-7 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (mixture_lnlr(mid, v, K, t2) < target)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The same over audit.mixture .. audit.mixture_max. */
static double mixture_halfwidth(double v, double alpha, double tau, double tau_max)
{
    double t2[AU_MAX_SCALES];
    int K = mixture_scales(tau, tau_max, t2);
    return scales_halfwidth(v, alpha, K, t2);
}

/* The mixture interval of θ from θ̂ and v (sequential test). */
static void mixture_interval(double theta, double v, double alpha, double tau, double tau_max, AuCompare *out)
{
    double t2[AU_MAX_SCALES];
    int K = mixture_scales(tau, tau_max, t2);
    double lnlr = mixture_lnlr(fabs(theta), v, K, t2);
    double h = scales_halfwidth(v, alpha, K, t2);
    out->theta = theta;
    out->confidence = lnlr > 0 ? -expm1(-lnlr) : 0;
    out->lo = theta - h;
    out->hi = theta + h;
    out->v = v;
}

/* Fixed-sample (oracle) comparison: one look, a two-sided normal interval. */
static void fixed_interval(double theta, double v, double alpha, AuCompare *out)
{
    double z = fabs(theta) / sqrt(v);
    double h = au_normal_quantile(1 - alpha / 2) * sqrt(v);
    out->theta = theta;
    out->confidence = 1 - 2 * au_normal_cdf(-z);
    out->lo = theta - h;
    out->hi = theta + h;
    out->v = v;
}

/* θ̂ = ln(R_a/R_b) and v from the per-variant (independent) variances. */
static double theta_unpaired(const AuEstimate *a, const AuEstimate *b, double *v)
{
    *v = a->var_mean / (a->mean * a->mean) + b->var_mean / (b->mean * b->mean);
    if (!(*v > MIN_VAR))
        *v = MIN_VAR;
    return log(a->mean / b->mean);
}

void au_stats_compare(const AuEstimate *a, const AuEstimate *b, AuTest test,
                      double alpha, double mixture, double mixture_max, AuCompare *out)
{
    double v, theta = theta_unpaired(a, b, &v);
    if (test != AU_TEST_PAPER) {
        mixture_interval(theta, v, alpha, mixture, mixture_max, out);
        return;
    }
    double se = sqrt(a->var_mean + b->var_mean);
    double z = se > 0 ? fabs(a->mean - b->mean) / se : (a->mean == b->mean ? 0 : INFINITY);
    double h = au_normal_quantile(1 - alpha) * sqrt(v);
    out->theta = theta;
    out->confidence = au_normal_cdf(z);
    out->lo = theta - h;
    out->hi = theta + h;
    out->v = v;
}

/* θ̂ = ln(R_a/R_b) over the complete rounds of paired windows, and its
 * delta-method variance with the round as the unit: with A = ΣC = R·ΣW
 * and e_j = C_j − R·W_j per variant,
 *   v = m/(m − 1) · Σ_j (e_aj/A_a − e_bj/A_b)²
 *     = m/(m − 1) · (Σe_a²/A_a² + Σe_b²/A_b² − 2·Σe_a·e_b/(A_a·A_b)),
 * which for independent variants is the sum of the per-variant variances
 * and is smaller by the common part when both slow down together.  False
 * when there are fewer than MIN_WINDOWS rounds, or research.paired is off. */
static bool theta_paired(const AuStats *st, int a, int b, double *theta, double *v)
{
    const AuPaired *p = &st->pair;
    if (!st->cfg.paired || p->rounds < MIN_WINDOWS || !(p->sw[a] > 0) || !(p->sw[b] > 0))
        return false;
    double ra = p->sx[a] / p->sw[a], rb = p->sx[b] / p->sw[b];      /* R − shift */
    double Aa = p->sx[a] + st->v[a].sums.shift * p->sw[a];
    double Ab = p->sx[b] + st->v[b].sums.shift * p->sw[b];
    if (!(Aa > 0 && Ab > 0))
        return false;
    double eaa = p->xx[a][a] - 2 * ra * p->xw[a][a] + ra * ra * p->ww[a][a];
    double ebb = p->xx[b][b] - 2 * rb * p->xw[b][b] + rb * rb * p->ww[b][b];
    double eab = p->xx[a][b] - rb * p->xw[a][b] - ra * p->xw[b][a] + ra * rb * p->ww[a][b];
    double m = (double)p->rounds;
    *v = m / (m - 1) * (eaa / (Aa * Aa) + ebb / (Ab * Ab) - 2 * eab / (Aa * Ab));
    if (!(*v > MIN_VAR))
        *v = MIN_VAR;
    *theta = log((Aa / p->sw[a]) / (Ab / p->sw[b]));
    return true;
}

/* Variant a against b.  The sequential and oracle tests use the paired
 * variance once there are MIN_WINDOWS rounds (before that, or for the
 * paper test, the thesis's independent variances). */
static void compare(const AuStats *st, AuTest test, const AuEstimate *e, int a, int b, AuCompare *out)
{
    /* Bonferroni over the N − 1 comparisons that involve the true best;
     * the paper test is the thesis's, uncorrected */
    double alpha = st->cfg.alpha;
    if (test == AU_TEST_SEQUENTIAL || st->cfg.oracle)
        alpha /= st->nvariants - 1;
    double theta, v;
    if (test == AU_TEST_PAPER && !st->cfg.oracle) {
        au_stats_compare(&e[a], &e[b], test, alpha, st->cfg.mixture, st->cfg.mixture_max, out);
    } else {
        if (!theta_paired(st, a, b, &theta, &v))
            theta = theta_unpaired(&e[a], &e[b], &v);
        if (st->cfg.oracle)
            fixed_interval(theta, v, alpha, out);
        else
            mixture_interval(theta, v, alpha, st->cfg.mixture, st->cfg.mixture_max, out);
    }
    if (test == AU_TEST_SEQUENTIAL || st->cfg.oracle) {
        /* confidence of the corrected test: 1 − (N−1)·p */
        double p = (1 - out->confidence) * (st->nvariants - 1);
        out->confidence = p < 1 ? 1 - p : 0;
    }
}

static void set_rel(double *rel, double *lo, double *hi, const AuCompare *c)
{
    *rel = expm1(c->theta);
    *lo = expm1(c->lo);
    *hi = expm1(c->hi);
}

/* The samples n would grow to by the end of the wall-time budget at their
 * rate so far (INFINITY without a budget or before any time has passed). */
static double at_wall_budget(const AuConfig *cfg, double n, double elapsed)
{
    return cfg->timeout > 0 && elapsed > 0 ? n * cfg->timeout / elapsed : INFINITY;
}

/* Futility (sequential test only): ends a bakeoff that cannot decide
 * within its budget, so that its slot goes to the next one.  The least
 * conclusive comparison c (the runner-up against the best) needs its
 * half-width, on the log scale, below ln(1 + equivalence) to end in
 * no-difference (were θ̂ to move to 0) or below |θ̂| − ln(1 + min_effect)
 * to end in a winner; the wider of the two is the best case.  The samples
 * at the end of the budget are projected at their rate so far (n per
 * second of sampling, capped by max_samples) and v as 1/n.  If even then
 * the half-width would exceed cfg->futility times the best case, the
 * bakeoff ends as a timeout now.  A timeout installs the default and
 * declares nothing, so stopping for futility cannot add a wrong decision:
 * α is untouched.  What it can misjudge: a method called more often later
 * than so far (a new phase), and v itself, which the first looks of a
 * heavy-tailed method (a recursion timed from any depth) overestimate
 * several times over.  Hence the factor (2: 4× the samples) and no
 * judgement before a tenth of the budget is spent. */
static bool futile(const AuConfig *cfg, const AuCompare *c, double alpha, uint64_t n, double elapsed)
{
    if (!(cfg->futility > 0) || n == 0 || !(c->v > 0))
        return false;
    double n_end = cfg->max_samples ? (double)cfg->max_samples : INFINITY;
    n_end = fmin(n_end, at_wall_budget(cfg, (double)n, elapsed));
    if (!isfinite(n_end) || n_end <= (double)n || (double)n < n_end / 10)
        return false;
    double h_end = mixture_halfwidth(c->v * (double)n / n_end, alpha, cfg->mixture, cfg->mixture_max);
    double best_case = fmax(log1p(cfg->equivalence), fabs(c->theta) - log1p(cfg->min_effect));
    return h_end > cfg->futility * best_case;
}

/* au_stats_to_decide: sampling time (seconds) until the first look at
 * which the look's least conclusive comparison (the runner-up against the
 * best) decides, were θ̂ to stay and v to shrink as 1/n with
 * the samples coming at their rate so far (n in `elapsed`).  A winner
 * needs the half-width below |θ̂| − ln(1 + min_effect); no-difference
 * below ln(1 + equivalence) − |θ̂|, or below |θ̂| when the default is the
 * best (the others shown slower); neither before `need` samples.  The
 * bakeoff thread gives a bakeoff that decides within its next turns
 * those turns (audit.extend); nothing here decides.  INFINITY when no
 * look within 10⁴ times the samples so far would, and while the copy rule
 * withholds a winner the interval already shows: the interval foresees
 * nothing then, and where the copies sit does not change with more
 * samples (extending such a bakeoff would hold the slot for seconds
 * while others wait in the queue). */
double au_stats_to_decide(const AuConfig *cfg, const AuResult *r)
{
    const AuForesight *f = &r->foresight;
    double v = f->v, alpha = f->alpha, elapsed = f->elapsed;
    uint64_t n = f->n, need = f->need;
    bool default_best = f->default_best;
    if (!(v > 0) || n == 0 || !(elapsed > 0) || f->withheld)
        return INFINITY;
    double th = fabs(f->theta);
    double h = fmax(th - log1p(cfg->min_effect), log1p(cfg->equivalence) - th);
    if (default_best)
        h = fmax(h, th);
    if (!(h > 0))
        return INFINITY;
    double lo = fmax((double)n, (double)need), hi = lo;
    while (mixture_halfwidth(v * (double)n / hi, alpha, cfg->mixture, cfg->mixture_max) > h) {
        lo = hi;
        hi *= 2;
        if (hi > 1e4 * (double)n)
            return INFINITY;
    }
    for (int i = 0; i < 30 && hi - lo > 1; i++) {   /* the half-width falls with the samples */
        double mid = 0.5 * (lo + hi);
        if (mixture_halfwidth(v * (double)n / mid, alpha, cfg->mixture, cfg->mixture_max) > h)
            lo = mid;
        else
            hi = mid;
    }
    return (hi - (double)n) * elapsed / (double)n;
}

double au_rate_judged_from(const AuConfig *cfg)
{
    double from = cfg->timeout / 10;
    if (cfg->quantum > 0 && 0.9 * cfg->quantum < from)
        from = 0.9 * cfg->quantum;
    return from;
}

uint64_t au_result_timed_calls(const AuResult *r)
{
    uint64_t n = 0;
    for (int k = 0; k < r->nvariants && k < JIT_MAX_VARIANTS; k++)
        n += r->v[k].received + r->v[k].warmups;
    return n;
}

bool au_rate_futile(const AuConfig *cfg, double calls_per_s, int nvariants, double margin, double *kept)
{
    if (cfg->test != AU_TEST_SEQUENTIAL || cfg->oracle || !(cfg->futility > 0) || !(cfg->timeout > 0) ||
        cfg->sample_every <= 0 || nvariants < 1 || cfg->burst < 1 || cfg->trim_window < 1)
        return false;
    double per_s = calls_per_s / cfg->sample_every / nvariants * (double)(cfg->burst - cfg->warmup) / cfg->burst *
                   (1 - (double)cfg->trim_drop / cfg->trim_window);
    double n = margin * per_s * cfg->timeout;
    if (kept)
        *kept = n;
    return n * cfg->futility < (double)cfg->min_samples;
}

/* Futility by rate (sequential test only): once au_rate_judged_from() of
 * sampling time is spent, the samples so far, projected to the end of
 * the budget at their rate and multiplied by cfg->futility, stay below
 * the `need` a test takes.  A method called too rarely to be timed
 * (thesis: most of its timeouts) would hold its slot for the whole budget
 * and then time out anyway; with turns (audit.quantum_ms) it would take a
 * turn in every round of them, hence judged before its first turn ends.
 * The samples so far: the fewest any variant received, times the share
 * trimming keeps (the kept count, AuEstimate.n, counts whole trimming
 * windows only: 0 until 100 came, which at 250 a second read as futile
 * from 1.2 s on).  From RATE_EARLY on, before that, the same with an
 * upper bound of the count received, r + z√r + z² with z = 3 (above a
 * Poisson count's one-sided 99.8% bound for every r: 6.2 at r = 0).  A
 * method whose calls stop with the phase that called it would otherwise
 * hold the one slot for most of a turn with a handful of timed calls. */
#define RATE_EARLY 0.3
#define RATE_Z 3.0

static bool too_slow(const AuConfig *cfg, uint64_t received, uint64_t need, double elapsed)
{
    if (!(cfg->futility > 0) || !(cfg->timeout > 0) || cfg->trim_window < 1)
        return false;
    double count = (double)received;
    if (elapsed < au_rate_judged_from(cfg)) {
        if (elapsed < RATE_EARLY)
            return false;
        count += RATE_Z * sqrt(count) + RATE_Z * RATE_Z;
    }
    count *= 1 - (double)cfg->trim_drop / cfg->trim_window;
    return at_wall_budget(cfg, count, elapsed) * cfg->futility < (double)need;
}

/* ln(mean_k / mean_b) on copy c: the variants compared at copy c's
 * place in the page (jit/variants.c: part_offset), where every variant's
 * copy c sits; NAN without samples of both. */
static double copy_gap(const AuResult *r, int k, int b, int c)
{
    const AuVariantResult *vk = &r->v[k], *vb = &r->v[b];
    if (!vk->copy_samples[c] || !vb->copy_samples[c] || !(vk->copy_mean[c] > 0) || !(vb->copy_mean[c] > 0))
        return NAN;
    return log(vk->copy_mean[c] / vb->copy_mean[c]);
}

/* How far apart the copies' gaps are: how much the variants' difference
 * itself moved with where their code sits in this process. */
static double gap_spread(const AuResult *r, int k, int b)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int c = 0; c < JIT_MAX_COPIES; c++) {
        double g = copy_gap(r, k, b, c);
        if (!isnan(g)) {
            lo = fmin(lo, g);
            hi = fmax(hi, g);
        }
    }
    return hi > lo ? hi - lo : 0;
}

/* With copies of the variants' code (audit.copies): whether k is slower
 * than b on every copy by more than margin, or by more than the spread
 * of those copies' gaps where that is larger, on their point estimates
 * (margin 0: only their order).  True without copies (a copy without
 * samples).  Why: the variants' difference depends on where their code
 * sits, by up to a few percent between two offsets in the page
 * (docs/auditing.md, "Copies").  A difference of the code shows at every
 * place, and by more than the places moved it; one of placement, at
 * one: a copy slowed where it was loaded moves the gap of its copy alone.  Only removes
 * decisions: α is unchanged. */
bool au_stats_copies_agree(const AuResult *r, int k, int b, double margin)
{
    if (!r->v[k].copy_samples[1] || !r->v[b].copy_samples[1])
        return true;
    double need = margin > 0 ? fmax(log1p(margin), gap_spread(r, k, b)) : 0;
    for (int c = 0; c < JIT_MAX_COPIES; c++) {
        double g = copy_gap(r, k, b, c);
        if (!isnan(g) && !(g > need))
            return false;
    }
    return true;
}

/* ln-scale variance of copy c's mean of variant x: the variant's, for
 * the share of its samples the copy has (the copies' samples are one
 * stream dealt out in turn, so their spread is the variant's). */
static double copy_var(const AuResult *r, const AuEstimate *e, int x, int c)
{
    const AuVariantResult *v = &r->v[x];
    if (!v->copy_samples[c] || !(e[x].mean > 0))
        return INFINITY;
    return e[x].var_mean / (e[x].mean * e[x].mean) * (double)e[x].n / (double)v->copy_samples[c];
}

/* Whether au_stats_copies_agree() fails for k against b by more than
 * PLACEMENT_Z standard errors on some copy: the variants' difference
 * moved with the place of their code by more than it is, and more
 * samples would only confirm it, since where a copy was loaded does not
 * change while it runs.  Such a bakeoff can never have a winner, and
 * riding its turns (audit.extend foresees the interval alone) would hold
 * the slot for seconds (docs/auditing.md, "Copies apart").  Z is large
 * because it is judged at every look: a block at the edge must not end a
 * bakeoff by crossing it once. */
enum { PLACEMENT_Z = 5 };

bool au_stats_copies_apart(const AuResult *r, const AuEstimate *e, int k, int b, double margin)
{
    if (!(margin > 0) || !r->v[k].copy_samples[1] || !r->v[b].copy_samples[1])
        return false;
    double gvar[JIT_MAX_COPIES], all = 0;
    for (int c = 0; c < JIT_MAX_COPIES; c++)
        all += gvar[c] = copy_var(r, e, k, c) + copy_var(r, e, b, c);
    /* the terms a gap must exceed: the margin, the gaps' spread (its
     * variance taken as the gaps' summed, independent of g's, as the
     * pairings' rule took it: for the smaller gap, which the spread
     * contains, that is low by up to half, and Z leaves room for it) */
    double term[2] = {log1p(margin), gap_spread(r, k, b)}, tvar[2] = {0, all};
    for (int c = 0; c < JIT_MAX_COPIES; c++) {
        double g = copy_gap(r, k, b, c);
        for (int t = 0; t < 2 && !isnan(g); t++)
            if (term[t] - g > PLACEMENT_Z * sqrt(gvar[c] + tvar[t]))
                return true;
    }
    return false;
}

/* Whether no variant can be a winner (sequential test): for each some
 * other one is shown within min_effect of it (the interval of
 * ln(mean_k/mean_j) below ln(1 + min_effect)).  The intervals hold at
 * every look, so more samples can end the bakeoff only in a
 * no-difference or a timeout, and both install the default.  With
 * min_effect at or below equivalence a no-difference comes first. */
static bool no_winner_left(const AuStats *st, AuTest test, const AuEstimate *e)
{
    int n = st->nvariants;
    double m = log1p(st->cfg.min_effect);
    for (int j = 0; j < n; j++) {
        bool within = false;
        for (int k = 0; k < n && !within; k++) {
            AuCompare c;
            if (k == j)
                continue;
            compare(st, test, e, k, j, &c);
            within = c.hi < m;
        }
        if (!within)
            return false;
    }
    return true;
}

/* Whether some variant is shown faster than the default by more than
 * equivalence: no no-difference can be reached.  With no_winner_left()
 * the difference lies between the two margins and only a timeout is left
 * (between): more samples would only reach the budget (30 s of the one
 * slot, turn after turn: audit.extend foresees no decision for them
 * either). */
static bool default_beaten(const AuStats *st, AuTest test, const AuEstimate *e)
{
    double q = log1p(-st->cfg.equivalence);
    for (int k = 1; k < st->nvariants; k++) {
        AuCompare c;
        compare(st, test, e, k, 0, &c);
        if (c.hi < q)
            return true;
    }
    return false;
}

/* The counts a look needs of every variant: the fewest kept samples,
 * samples received and trimming windows (0 windows if some mean is not
 * positive: no ratio to test). */
typedef struct Fewest {
    uint64_t n, received, windows;
} Fewest;

/* Fills out->v[] from each variant's estimate e[k]. */
static Fewest fill_variants(const AuStats *st, AuEstimate *e, AuResult *out)
{
    Fewest f = {UINT64_MAX, UINT64_MAX, UINT64_MAX};
    for (int k = 0; k < st->nvariants; k++) {
        au_stats_estimate(st, k, &e[k]);
        AuVariantResult *vr = &out->v[k];
        vr->samples = e[k].n;
        vr->received = st->v[k].received;
        vr->trimmed = st->v[k].trimmed;
        vr->mean = e[k].mean;
        vr->stddev = e[k].stddev;
        vr->cycles = e[k].cycles;
        vr->weight = st->v[k].sums.sw;
        vr->warmups = st->v[k].warmups;
        vr->warmup_cycles = vr->warmups ? st->v[k].warmup_cycles / (double)vr->warmups : 0;
        for (int c = 0; c < JIT_MAX_COPIES; c++) {
            const AuCopySums *cp = &st->v[k].copy[c];
            vr->copy_samples[c] = cp->samples;
            vr->copy_mean[c] = cp->sw > 0 ? cp->sc / cp->sw : 0;
        }
        if (e[k].n < f.n)
            f.n = e[k].n;
        if (st->v[k].received < f.received)
            f.received = st->v[k].received;
        if (e[k].windows < f.windows)
            f.windows = e[k].windows;
        if (!(e[k].mean > 0))
            f.windows = 0;
    }
    return f;
}

/* Whether a no-difference holds: the default is not shown slower than
 * the best, and every other variant's interval against the default lies
 * inside ±equivalence or above 0. */
static bool equivalent(const AuStats *st, AuTest test, const AuEstimate *e, const AuResult *out)
{
    if (out->best != 0 && out->v[0].slower)
        return false;
    double lo = log1p(-st->cfg.equivalence), hi = log1p(st->cfg.equivalence);
    for (int k = 1; k < st->nvariants; k++) {
        AuCompare c;
        compare(st, test, e, k, 0, &c);
        if (!((c.lo > lo && c.hi < hi) || c.lo > 0))
            return false;
    }
    return true;
}

/* Decision rules (both tests; N variants, b the lowest mean):
 * - winner b: every other variant k is shown slower than b by more than
 *   min_effect (the interval of ln(mean_k/mean_b) lies above
 *   ln(1 + min_effect); the paper test: Φ(z) ≥ 1 − α and the estimate
 *   above it).  Two compiled copies of one method differ by up to about
 *   2% on the machines measured (docs/auditing.md): a smaller difference
 *   says nothing about the variants' code;
 *   With audit.copies, online: also on every pairing of b's copies with
 *   k's, by more than copy_margin and than either one's copies differ
 *   (au_stats_copies_agree);
 * - no-difference (sequential and oracle only): the default (variant 0) is
 *   not shown slower than b, and for every other k the interval of
 *   mean_k/mean_0 − 1 lies inside ±equivalence or above 0 (k slower than
 *   the default) — installing the default then costs less than the margin;
 * - timeout: otherwise, once every variant has max_samples, or elapsed ≥
 *   timeout, or (sequential) sooner when too_slow() or futile() says it
 *   cannot decide within that budget, au_stats_copies_apart() that no budget
 *   would do (placement), no_winner_left() and default_beaten() that
 *   only a timeout is left (between), or, from au_rate_judged_from() of
 *   sampling on (research.no_winner), no_winner_left() alone: a
 *   no-difference still could be reached, but installs what this timeout
 *   does (no_winner).  A wrong winner or a wrong
 *   no-difference needs one of the N−1 intervals that involve the true
 *   best to miss, so with the α/(N−1) correction the error rate of the
 *   whole bakeoff is ≤ α. */
AuOutcome au_stats_test(const AuStats *st, AuTest test, double elapsed, AuResult *out)
{
    const AuConfig *cfg = &st->cfg;
    int n = st->nvariants;
    AuEstimate e[JIT_MAX_VARIANTS];
    memset(out, 0, sizeof *out);
    out->outcome = AU_RUNNING;
    out->test = test;
    out->nvariants = n;
    out->best = out->runner_up = -1;
    Fewest few = fill_variants(st, e, out);
    bool wall = cfg->timeout > 0 && elapsed >= cfg->timeout;
    bool spent = cfg->max_samples && few.n >= (uint64_t)cfg->max_samples;
    bool seq = test == AU_TEST_SEQUENTIAL && !cfg->oracle;
    bool early = seq && !wall && !spent;     /* a futile stop may end it now */
    uint64_t need = cfg->oracle ? cfg->max_samples : cfg->min_samples;
    if (need < 2)
        need = 2;
    if (early && too_slow(cfg, few.received, need, elapsed))
        out->futile = true;
    if (few.windows < 2) {
        if (wall || spent || out->futile)
            out->outcome = AU_TIMEOUT;
        return out->outcome;
    }
    int b = 0;
    for (int k = 1; k < n; k++)
        if (e[k].mean < e[b].mean)
            b = k;
    out->best = b;
    /* every variant against the best */
    bool all_slower = true, apart = false;   /* apart: au_stats_copies_apart() for some k */
    bool withheld = false;                   /* the copy rule withheld some k's "slower" */
    AuCompare least = {0};
    out->confidence = 1;
    for (int k = 0; k < n; k++) {
        AuVariantResult *vr = &out->v[k];
        if (k == b)
            continue;
        AuCompare c;
        compare(st, test, e, k, b, &c);
        set_rel(&vr->rel, &vr->rel_lo, &vr->rel_hi, &c);
        double m = log1p(cfg->min_effect);
        vr->slower = test == AU_TEST_PAPER && !cfg->oracle ? c.confidence >= 1 - cfg->alpha && c.theta > m
                                                            : c.lo > m;
        if (vr->slower && !cfg->oracle && !au_stats_copies_agree(out, k, b, cfg->copy_margin)) {
            vr->slower = false;
            withheld = true;
            apart |= seq && au_stats_copies_apart(out, e, k, b, cfg->copy_margin);
        }
        if (!vr->slower)
            all_slower = false;
        if (out->runner_up < 0 || c.confidence < out->confidence) {
            out->runner_up = k;
            out->confidence = c.confidence;
            least = c;
            /* the headline is the best against the runner-up: −θ */
            AuCompare r = {-c.theta, -c.hi, -c.lo, c.confidence, c.v};
            set_rel(&out->rel, &out->rel_lo, &out->rel_hi, &r);
        }
    }
    if (seq && out->runner_up >= 0)
        out->foresight = (AuForesight){least.theta, least.v, cfg->alpha / (n - 1), elapsed, few.n, need, b == 0,
                                       withheld};
    if (few.n < need || few.windows < MIN_WINDOWS) {
        if (wall || (spent && !cfg->oracle) || out->futile)
            out->outcome = AU_TIMEOUT;
        return out->outcome;
    }
    if (all_slower) {
        out->outcome = AU_WINNER;
        out->install = b;
        return out->outcome;
    }
    if ((test == AU_TEST_SEQUENTIAL || cfg->oracle) && equivalent(st, test, e, out)) {
        out->outcome = AU_NO_DIFFERENCE;
        out->install = 0;
        return out->outcome;
    }
    /* the N−1 comparisons with the default first: the N² of
     * no_winner_left() only where they could end the bakeoff */
    bool beaten = early && cfg->futility > 0 && !apart && default_beaten(st, test, e);
    bool late = early && cfg->futility > 0 && !apart && cfg->no_winner && elapsed >= au_rate_judged_from(cfg);
    if ((beaten || late) && no_winner_left(st, test, e)) {
        out->futile = out->no_winner = true;
        out->between = beaten;
    } else if (early && (apart || futile(cfg, &least, cfg->alpha / (n - 1), few.n, elapsed))) {
        out->futile = true;
        out->placement = apart;
    }
    if (wall || spent || out->futile)
        out->outcome = AU_TIMEOUT;
    return out->outcome;
}
