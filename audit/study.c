/* audit/study.c — `tally study convergence|quality|accuracy` (study.h).
 *
 * Input: samples files written by -X audit.record (read with
 * au_record_load), the study's options, -X audit.* tunables for the
 * decision tests.  Output: tables on stdout; with -o DIR, CSV files in DIR
 * and the SVG plots tools/study-plot.py draws from them.
 *
 * Invariants:
 * - The decision tests are the auditor's own: each trial feeds an AuStats
 *   (au_stats_add: its trimming, sums and pairing) and looks at it with
 *   au_stats_test and, for the sequential test, au_stats_confirm, as the
 *   analysis thread does (analysis.c, look()).  The scores are
 *   au_score_add/_converge/_perturb, as the analysis keeps them.
 * - Everything random comes from AuRng seeded by --seed, the difference's
 *   index and the trial's: the same file and options give the same
 *   tables, byte for byte.
 */
#include "auditor_api.h"
#include "record.h"
#include "study.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXIT_USAGE 2
#define MAX_LIST 16
/* B's timings are A's scaled by 1/(1 + X): in units of 1/SCALE cycle, so
 * that rounding to the integer cycles AuStats takes costs < 0.002%. */
#define SCALE 1024.0

void au_study_usage(FILE *out)
{
    fputs("usage: tally study convergence FILE.smp [options]   thesis III.B.4, Fig. III.4\n"
          "       tally study quality FILE.smp... [-o DIR]     converge and perturb scores (III.C.3)\n"
          "       tally study accuracy [bench/audit-eval arguments]   Fig. III.13\n"
          "convergence options:\n"
          "  --method=NAME        the method whose timings are split (default: the one with most)\n"
          "  --variant=K          its variant whose timings are used (default 0)\n"
          "  --diffs=1,2,5,10,20  how much faster B is made, percent\n"
          "  --sizes=10,100,1000,10000   fixed sample sizes of the misprediction rate\n"
          "  --thresholds=0.8,0.99,0.9999   confidence levels of the paper test\n"
          "  --trials=100         random splits per point\n"
          "  --step=100           samples added to each side between two looks\n"
          "  --seed=1             seed of the splits\n"
          "  -X audit.NAME=VALUE  a tunable of the tests (audit.confidence: the sequential test's level)\n"
          "  -o DIR               also write CSV files and SVG plots to DIR\n"
          "  --no-plot            with -o: CSV only\n",
          out);
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs("tally study: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\ntry 'tally study --help'\n", stderr);
    return EXIT_USAGE;
}

/* "1,2,5" → up to MAX_LIST positive numbers; false on anything else. */
static bool parse_list(const char *s, double *out, int *n, bool integers)
{
    *n = 0;
    while (*s) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || errno || !(v > 0) || !isfinite(v) || (integers && v != floor(v)) || *n == MAX_LIST)
            return false;
        out[(*n)++] = v;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return false;
    }
    return *n > 0;
}

static bool parse_count(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool make_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode);
    return mkdir(dir, 0777) == 0;
}

static FILE *open_csv(const char *dir, const char *name, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "tally study: cannot write '%s': %s\n", path, strerror(errno));
    return f;
}

static bool close_csv(FILE *f, const char *path)
{
    bool bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "tally study: cannot write '%s'\n", path);
        return false;
    }
    return true;
}

/* Runs argv (argv[0] a path) and waits: its exit status, or 2 when it
 * could not run. */
static int run(char *const argv[])
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "tally study: cannot run %s: %s\n", argv[0], strerror(errno));
        return EXIT_USAGE;
    }
    if (pid == 0) {
        execv(argv[0], argv);
        fprintf(stderr, "tally study: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return EXIT_USAGE;
    if (WIFEXITED(st))
        return WEXITSTATUS(st) == 127 ? EXIT_USAGE : WEXITSTATUS(st);
    return 128 + WTERMSIG(st);
}

/* tools/study-plot.py KIND DIR: the SVG plots of DIR's CSV files. */
static int plot(const char *root, const char *kind, const char *dir)
{
    char script[4096];
    snprintf(script, sizeof script, "%s/tools/study-plot.py", root);
    if (access(script, R_OK) != 0) {
        fprintf(stderr, "tally study: no %s to draw the plots (--no-plot writes CSV only)\n", script);
        return EXIT_USAGE;
    }
    char *argv[] = {"/usr/bin/python3", script, (char *)kind, (char *)dir, NULL};
    int st = run(argv);
    if (st)
        fprintf(stderr, "tally study: the plots were not drawn (tools/study-plot.py: status %d; --no-plot writes CSV only)\n", st);
    return st ? EXIT_USAGE : 0;
}

/* ---- convergence ------------------------------------------------------------- */

typedef struct Pool {
    double *c, *w;                 /* one timing and its weight per sample */
    size_t n;
} Pool;

/* Timings of the method's variant: whole calls, received, not warm-up. */
static bool pick(const AuRecFile *f, const char *method, int variant, Pool *p)
{
    p->c = malloc((f->nsamples ? f->nsamples : 1) * sizeof *p->c);
    p->w = malloc((f->nsamples ? f->nsamples : 1) * sizeof *p->w);
    p->n = 0;
    if (!p->c || !p->w)
        return false;
    const AuRecBakeoff *last = NULL;
    for (size_t i = 0; i < f->nsamples; i++) {
        const AuRecSample *s = &f->samples[i];
        if (AU_REC_STATUS(s->flags) != AU_REC_RECEIVED || (s->flags & AU_REC_WARMUP) || s->region ||
            s->variant != variant || s->weight == 0)
            continue;
        if (!last || last->analysis != s->bakeoff)
            last = au_record_find(f, s->bakeoff);
        if (!last || strcmp(last->method, method))
            continue;
        p->c[p->n] = (double)s->cycles;
        p->w[p->n] = s->weight;
        p->n++;
    }
    return true;
}

/* The method with the most variant-`variant` timings. */
static const char *busiest(const AuRecFile *f, int variant)
{
    const char *best = NULL;
    size_t most = 0;
    for (size_t b = 0; b < f->nbakeoffs; b++) {
        const char *m = f->bakeoffs[b].method;
        bool seen = false;
        for (size_t e = 0; e < b; e++)
            seen |= !strcmp(f->bakeoffs[e].method, m);
        if (seen)
            continue;
        Pool p;
        size_t n = pick(f, m, variant, &p) ? p.n : 0;
        free(p.c), free(p.w);
        if (n > most)
            most = n, best = m;
    }
    return best;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct TestSpec {
    AuTest test;
    double confidence;
    char name[32];
} TestSpec;

typedef struct Tally {
    int trials, correct, wrong, nodiff, undecided;
    double *samples;               /* per converged trial: samples per side */
    double cycles;                 /* Σ cycles of both sides at convergence (unscaled) */
} Tally;

typedef struct Convergence {
    AuConfig cfg;
    const char *method;
    int variant;
    double diffs[MAX_LIST], sizes[MAX_LIST], thresholds[MAX_LIST];
    int ndiffs, nsizes, nthresholds;
    long long trials, step, seed;
    const char *dir;
    bool plot;
} Convergence;

static void shuffle(size_t *idx, size_t n, AuRng *rng)
{
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(au_rng_double(rng) * (double)i);
        if (j >= i)
            j = i - 1;
        size_t t = idx[i - 1];
        idx[i - 1] = idx[j];
        idx[j] = t;
    }
}

/* One trial of one test: A = idx[0..half), B = idx[half..2·half) made
 * `x` faster, `step` samples a side between looks, until a decision or
 * the half is used up.  The auditor's look (analysis.c): the test, then
 * the sequential test's confirmation. */
static void trial(const Convergence *cv, const TestSpec *t, const Pool *p, const size_t *idx, size_t half,
                  double x, Tally *out)
{
    AuConfig cfg = cv->cfg;
    cfg.confidence = t->confidence;
    cfg.test = t->test;
    cfg.alpha = 1 - t->confidence;
    AuStats st;
    if (!au_stats_init(&st, 2, &cfg)) {
        out->undecided++;
        return;
    }
    AuConfirm confirm;
    memset(&confirm, 0, sizeof confirm);
    AuResult r;
    double cycles = 0;
    size_t i = 0;
    AuOutcome o = AU_RUNNING;
    while (o == AU_RUNNING && i < half) {
        size_t end = i + (size_t)cv->step < half ? i + (size_t)cv->step : half;
        for (; i < end; i++) {
            size_t a = idx[i], b = idx[half + i];
            au_stats_add(&st, 0, (uint64_t)llround(p->c[a] * SCALE), (uint32_t)p->w[a]);
            au_stats_add(&st, 1, (uint64_t)llround(p->c[b] * SCALE / (1 + x)), (uint32_t)p->w[b]);
            cycles += p->c[a] + p->c[b] / (1 + x);
        }
        o = au_stats_test(&st, t->test, 0, &r);
        o = au_stats_confirm(&confirm, &st, &cfg, t->test, 0, &r);
    }
    au_stats_free(&st);
    out->trials++;
    if (o == AU_WINNER && r.install == 1)
        out->correct++;
    else if (o == AU_WINNER)
        out->wrong++;
    else if (o == AU_NO_DIFFERENCE)
        out->nodiff++;
    else {
        out->undecided++;
        return;
    }
    out->samples[out->correct + out->wrong + out->nodiff - 1] = (double)i;
    out->cycles += cycles;
}

/* Misprediction: the thesis drops the slowest 10% of the timings first
 * (here by cycles per unit of weight), then compares plain means. */
static bool mispredicted(const Pool *p, const size_t *idx, size_t half, size_t n, double x, double cut)
{
    double ca = 0, wa = 0, cb = 0, wb = 0;
    size_t ka = 0, kb = 0;
    for (size_t i = 0; i < half && (ka < n || kb < n); i++) {
        size_t a = idx[i], b = idx[half + i];
        if (ka < n && p->c[a] / p->w[a] <= cut)
            ca += p->c[a], wa += p->w[a], ka++;
        if (kb < n && p->c[b] / p->w[b] <= cut)
            cb += p->c[b] / (1 + x), wb += p->w[b], kb++;
    }
    return !(cb / wb < ca / wa);
}

static int convergence(Convergence *cv, const AuRecFile *f, const char *path, const char *root)
{
    const char *method = cv->method ? cv->method : busiest(f, cv->variant);
    if (!method) {
        fprintf(stderr, "tally study: %s has no timings of a whole call of variant %d\n", path, cv->variant);
        return EXIT_USAGE;
    }
    Pool p;
    if (!pick(f, method, cv->variant, &p)) {
        fprintf(stderr, "tally study: out of memory\n");
        return EXIT_USAGE;
    }
    size_t half = p.n / 2;
    if (p.n == 0) {
        fprintf(stderr, "tally study: %s has no timings of a whole call of %s's variant %d\n", path, method, cv->variant);
        free(p.c), free(p.w);
        return EXIT_USAGE;
    }
    if (half < 2 * (size_t)cv->step) {
        fprintf(stderr, "tally study: %s has %zu timings of %s (variant %d): too few to split (at least %lld)\n", path,
                p.n, method, cv->variant, 4 * cv->step);
        free(p.c), free(p.w);
        return EXIT_USAGE;
    }
    /* the slowest 10% (the misprediction rate's trim) */
    double *cw = malloc(p.n * sizeof *cw);
    size_t *idx = malloc(p.n * sizeof *idx);
    TestSpec tests[MAX_LIST + 1];
    int ntests = 0;
    for (int k = 0; k < cv->nthresholds; k++) {
        tests[ntests] = (TestSpec){AU_TEST_PAPER, cv->thresholds[k], ""};
        snprintf(tests[ntests].name, sizeof tests[ntests].name, "paper@%g%%", 100 * cv->thresholds[k]);
        ntests++;
    }
    tests[ntests] = (TestSpec){AU_TEST_SEQUENTIAL, cv->cfg.confidence, ""};
    snprintf(tests[ntests].name, sizeof tests[ntests].name, "sequential@%g%%", 100 * cv->cfg.confidence);
    ntests++;
    Tally *tally = calloc((size_t)(cv->ndiffs * ntests), sizeof *tally);
    double *misses = calloc((size_t)(cv->ndiffs * cv->nsizes), sizeof *misses);
    bool ok = cw && idx && tally && misses;
    for (int k = 0; ok && k < cv->ndiffs * ntests; k++)
        ok = (tally[k].samples = malloc((size_t)cv->trials * sizeof(double))) != NULL;
    if (!ok) {
        fprintf(stderr, "tally study: out of memory\n");
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < p.n; i++)
        cw[i] = p.c[i] / p.w[i];
    qsort(cw, p.n, sizeof *cw, cmp_double);
    double cut = cw[(size_t)floor(0.9 * (double)(p.n - 1))];
    for (int d = 0; d < cv->ndiffs; d++) {
        double x = cv->diffs[d] / 100;
        for (long long t = 0; t < cv->trials; t++) {
            AuRng rng;
            au_rng_seed(&rng, (uint64_t)cv->seed * 1000003u + (uint64_t)d * 7919u + (uint64_t)t);
            shuffle(idx, p.n, &rng);
            for (int s = 0; s < cv->nsizes; s++)
                if ((size_t)cv->sizes[s] <= half)
                    misses[d * cv->nsizes + s] += mispredicted(&p, idx, half, (size_t)cv->sizes[s], x, cut);
            for (int k = 0; k < ntests; k++)
                trial(cv, &tests[k], &p, idx, half, x, &tally[d * ntests + k]);
        }
    }

    printf("convergence study (thesis III.B.4): %s, variant %d: %zu timings, %zu a side; %lld trials a point, "
           "seed %lld\n", method, cv->variant, p.n, half, cv->trials, cv->seed);
    printf("tests: trim %lld of %lld, min_samples %lld, min_effect %g%%, equivalence %g%%, confirm %g%%, step %lld\n",
           (long long)cv->cfg.trim_drop, (long long)cv->cfg.trim_window, (long long)cv->cfg.min_samples,
           100 * cv->cfg.min_effect, 100 * cv->cfg.equivalence, 100 * cv->cfg.confirm, cv->step);
    printf("\nmisprediction rate (mean(B) not below mean(A), slowest 10%% dropped)\n%-8s", "faster");
    for (int s = 0; s < cv->nsizes; s++)
        printf(" %9.0f", cv->sizes[s]);
    putchar('\n');
    for (int d = 0; d < cv->ndiffs; d++) {
        char pct[32];
        snprintf(pct, sizeof pct, "%g%%", cv->diffs[d]);
        printf("%-8s", pct);
        for (int s = 0; s < cv->nsizes; s++) {
            if ((size_t)cv->sizes[s] > half)
                printf(" %9s", "-");
            else
                printf(" %8.1f%%", 100 * misses[d * cv->nsizes + s] / (double)cv->trials);
        }
        putchar('\n');
    }
    printf("\ndecisions (B is faster: a winner B is correct, a winner A wrong)\n");
    printf("%-18s %7s %10s %8s %6s %8s %10s %14s %14s\n", "test", "faster", "converged", "correct", "wrong",
           "no-diff", "undecided", "mean samples", "median samples");
    for (int k = 0; k < ntests; k++)
        for (int d = 0; d < cv->ndiffs; d++) {
            Tally *y = &tally[d * ntests + k];
            int conv = y->correct + y->wrong + y->nodiff;
            double mean = 0, median = NAN;
            for (int i = 0; i < conv; i++)
                mean += y->samples[i] / conv;
            if (conv) {
                qsort(y->samples, (size_t)conv, sizeof(double), cmp_double);
                median = conv % 2 ? y->samples[conv / 2] : (y->samples[conv / 2 - 1] + y->samples[conv / 2]) / 2;
            }
            printf("%-18s %6g%% %9.1f%% %8d %6d %8d %10d %14.0f %14.0f\n", tests[k].name, cv->diffs[d],
                   100.0 * conv / y->trials, y->correct, y->wrong, y->nodiff, y->undecided, conv ? mean : NAN,
                   median);
        }

    int status = 0;
    if (cv->dir) {
        char path1[4096], path2[4096];
        FILE *m = open_csv(cv->dir, "misprediction.csv", path1, sizeof path1);
        FILE *c = m ? open_csv(cv->dir, "decisions.csv", path2, sizeof path2) : NULL;
        if (!m || !c) {
            if (m)
                fclose(m);
            status = EXIT_USAGE;
        } else {
            fprintf(m, "method,variant,faster_pct,size,trials,mispredicted,rate\n");
            for (int d = 0; d < cv->ndiffs; d++)
                for (int s = 0; s < cv->nsizes; s++)
                    if ((size_t)cv->sizes[s] <= half)
                        fprintf(m, "%s,%d,%g,%.0f,%lld,%.0f,%.6g\n", method, cv->variant, cv->diffs[d], cv->sizes[s],
                                cv->trials, misses[d * cv->nsizes + s], misses[d * cv->nsizes + s] / (double)cv->trials);
            fprintf(c, "method,variant,test,confidence,faster_pct,trials,converged,correct,wrong,no_difference,"
                       "undecided,median_samples,mean_cycles\n");
            for (int k = 0; k < ntests; k++)
                for (int d = 0; d < cv->ndiffs; d++) {
                    Tally *y = &tally[d * ntests + k];
                    int conv = y->correct + y->wrong + y->nodiff;
                    double median = conv ? (conv % 2 ? y->samples[conv / 2]
                                                     : (y->samples[conv / 2 - 1] + y->samples[conv / 2]) / 2)
                                         : NAN;
                    fprintf(c, "%s,%d,%s,%g,%g,%d,%d,%d,%d,%d,%d,", method, cv->variant, au_test_name(tests[k].test),
                            tests[k].confidence, cv->diffs[d], y->trials, conv, y->correct, y->wrong, y->nodiff,
                            y->undecided);
                    if (conv)
                        fprintf(c, "%.0f,%.6g\n", median, y->cycles / conv);
                    else
                        fputs(",\n", c);
                }
            bool good = close_csv(m, path1);
            good &= close_csv(c, path2);
            if (!good)
                status = EXIT_USAGE;
            else if (cv->plot)
                status = plot(root, "convergence", cv->dir);
        }
    }
    for (int k = 0; k < cv->ndiffs * ntests; k++)
        free(tally[k].samples);
    free(tally), free(misses), free(cw), free(idx), free(p.c), free(p.w);
    return status;
}

/* ---- quality ----------------------------------------------------------------- */

static const char *const mode_names[] = {"method", "markers", "naive"};

typedef struct Quality {
    char method[AU_NAME_MAX];
    int mode;
    AuScore score;
} Quality;

static int quality(int nfiles, char **paths, const char *dir, bool plots, const char *root)
{
    Quality *rows = NULL;
    size_t nrows = 0, cap = 0;
    FILE *per = NULL;
    char perpath[4096], path[4096];
    if (dir && !(per = open_csv(dir, "quality-bakeoffs.csv", perpath, sizeof perpath)))
        return EXIT_USAGE;
    if (per)
        fprintf(per, "file,id,analysis,method,client,mode,timings,converge,perturb\n");
    int status = 0;
    for (int i = 0; i < nfiles && !status; i++) {
        AuRecFile f;
        VmError err = {{0}};
        if (!au_record_load(paths[i], &f, &err)) {
            fprintf(stderr, "tally study: %s\n", err.msg);
            status = EXIT_USAGE;
            break;
        }
        /* the analysis's scores (analysis.c, route): per bakeoff and mode */
        AuScore *sc = calloc(f.nbakeoffs * 2 + 1, sizeof *sc);
        if (!sc) {
            au_record_unload(&f);
            status = EXIT_USAGE;
            break;
        }
        for (size_t k = 0; k < f.nsamples; k++) {
            const AuRecSample *s = &f.samples[k];
            if (AU_REC_STATUS(s->flags) != AU_REC_RECEIVED || (s->flags & AU_REC_WARMUP))
                continue;
            const AuRecBakeoff *b = au_record_find(&f, s->bakeoff);
            if (b)
                au_score_add(&sc[2 * (size_t)(b - f.bakeoffs) + (s->region ? 1 : 0)], (double)s->cycles,
                             f.min_timing);
        }
        for (size_t b = 0; b < f.nbakeoffs; b++)
            for (int m = 0; m < 2; m++) {
                const AuScore *s = &sc[2 * b + m];
                if (!s->n)
                    continue;
                int mode = m == 0 ? 0 : f.timing == AU_TIMING_NAIVE ? 2 : 1;
                const AuRecBakeoff *bk = &f.bakeoffs[b];
                if (per)
                    fprintf(per, "%s,%u,%u,%s,%s,%s,%" PRIu64 ",%.10g,%.10g\n", paths[i], bk->id, bk->analysis,
                            bk->method, bk->client, mode_names[mode], s->n, au_score_converge(s),
                            au_score_perturb(s));
                size_t r = 0;
                while (r < nrows && !(rows[r].mode == mode && !strcmp(rows[r].method, bk->method)))
                    r++;
                if (r == nrows) {
                    if (nrows == cap) {
                        Quality *q = realloc(rows, (cap = cap ? 2 * cap : 16) * sizeof *q);
                        if (!q) {
                            status = EXIT_USAGE;
                            break;
                        }
                        rows = q;
                    }
                    memset(&rows[nrows], 0, sizeof *rows);
                    snprintf(rows[nrows].method, sizeof rows[nrows].method, "%s", bk->method);
                    rows[nrows++].mode = mode;
                }
                rows[r].score.n += s->n, rows[r].score.sum += s->sum;
                rows[r].score.sumsq += s->sumsq, rows[r].score.inv += s->inv;
            }
        free(sc);
        au_record_unload(&f);
    }
    if (status) {
        if (per)
            fclose(per);
        free(rows);
        return status;
    }
    printf("timing quality (thesis III.C.3): converge = timings / variance (higher is better), "
           "perturb = mean of 100 / (timing - MIN_TIMING + 0.1) (lower is better, <= 1 acceptable)\n");
    printf("%-40s %-8s %10s %14s %10s\n", "method", "timing", "timings", "converge", "perturb");
    for (size_t r = 0; r < nrows; r++)
        printf("%-40s %-8s %10" PRIu64 " %14.6g %10.4g\n", rows[r].method, mode_names[rows[r].mode], rows[r].score.n,
               au_score_converge(&rows[r].score), au_score_perturb(&rows[r].score));
    if (!nrows)
        printf("(no timings)\n");
    if (per) {
        FILE *q = open_csv(dir, "quality.csv", path, sizeof path);
        if (q) {
            fprintf(q, "method,mode,timings,converge,perturb\n");
            for (size_t r = 0; r < nrows; r++)
                fprintf(q, "%s,%s,%" PRIu64 ",%.10g,%.10g\n", rows[r].method, mode_names[rows[r].mode], rows[r].score.n,
                        au_score_converge(&rows[r].score), au_score_perturb(&rows[r].score));
        }
        bool good = close_csv(per, perpath);
        good = q && close_csv(q, path) && good;
        status = !good ? EXIT_USAGE : plots ? plot(root, "quality", dir) : 0;
    }
    free(rows);
    return status;
}

/* ---- the command --------------------------------------------------------------- */

static int accuracy(int argc, char **argv, const char *root)
{
    char script[4096];
    snprintf(script, sizeof script, "%s/bench/audit-eval", root);
    if (access(script, X_OK) != 0) {
        fprintf(stderr, "tally study: no %s (the accuracy study is bench/audit-eval)\n", script);
        return EXIT_USAGE;
    }
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args)
        return EXIT_USAGE;
    args[0] = "/bin/bash";
    args[1] = script;
    for (int i = 1; i < argc; i++)
        args[i + 1] = argv[i];
    int st = run(args);
    free(args);
    return st;
}

int au_study_main(int argc, char **argv, const char *root)
{
    static const char *const studies[] = {"convergence", "quality", "accuracy"};
    if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
        au_study_usage(argc < 1 ? stderr : stdout);
        return argc < 1 ? EXIT_USAGE : 0;
    }
    const char *name = argv[0];
    if (!strcmp(name, "accuracy"))
        return accuracy(argc, argv, root);
    if (strcmp(name, "convergence") && strcmp(name, "quality")) {
        const char *s = vm_suggest(name, studies, 3);
        fprintf(stderr, "tally study: unknown study '%s'", name);
        if (s)
            fprintf(stderr, " (did you mean '%s'?)", s);
        fputs(" (one of: convergence, quality, accuracy)\ntry 'tally study --help'\n", stderr);
        return EXIT_USAGE;
    }
    Convergence cv = {.variant = 0, .trials = 100, .step = 100, .seed = 1, .plot = true};
    au_config_default(&cv.cfg);
    /* the study's own defaults: no wall clock, one copy, any difference
     * may be shown; -X overrides them */
    cv.cfg.timeout = 0;
    cv.cfg.futility = 0;
    cv.cfg.min_effect = 0;
    cv.cfg.min_samples = 0;
    cv.cfg.max_samples = 0;
    parse_list("1,2,5,10,20", cv.diffs, &cv.ndiffs, false);
    parse_list("10,100,1000,10000", cv.sizes, &cv.nsizes, true);
    parse_list("0.8,0.99,0.9999", cv.thresholds, &cv.nthresholds, false);
    VmTunSet set = {{&au_tun_group}, {&cv.cfg}, 1};
    char *files[256];
    int nfiles = 0;
    bool conv = !strcmp(name, "convergence");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = strchr(a, '=') ? strchr(a, '=') + 1 : "";
        long long n;
        if (!strcmp(a, "-o")) {
            if (i + 1 >= argc)
                return usage_error("-o needs a directory%s", "");
            cv.dir = argv[++i];
        } else if (!strncmp(a, "-X", 2)) {
            const char *t = a[2] ? a + 2 : i + 1 < argc ? argv[++i] : NULL;
            VmError err = {{0}};
            if (!t)
                return usage_error("-X needs name=value%s", "");
            if (!vm_tun_set(&set, t, &err))
                return usage_error("%s", err.msg);
        } else if (!strcmp(a, "--no-plot")) {
            cv.plot = false;
        } else if (conv && !strncmp(a, "--method=", 9) && *v) {
            cv.method = v;
        } else if (conv && !strncmp(a, "--variant=", 10)) {
            if (!parse_count(v, 0, JIT_MAX_VARIANTS - 1, &n))
                return usage_error("--variant must be a variant number, 0 to 7, got '%s'", v);
            cv.variant = (int)n;
        } else if (conv && !strncmp(a, "--diffs=", 8)) {
            if (!parse_list(v, cv.diffs, &cv.ndiffs, false))
                return usage_error("--diffs must be a list of positive percentages (1,2,5), got '%s'", v);
        } else if (conv && !strncmp(a, "--sizes=", 8)) {
            if (!parse_list(v, cv.sizes, &cv.nsizes, true))
                return usage_error("--sizes must be a list of positive sample counts (10,100), got '%s'", v);
        } else if (conv && !strncmp(a, "--thresholds=", 13)) {
            if (!parse_list(v, cv.thresholds, &cv.nthresholds, false))
                return usage_error("--thresholds must be a list of confidences in (0.5, 1), got '%s'", v);
            for (int k = 0; k < cv.nthresholds; k++)
                if (!(cv.thresholds[k] > 0.5 && cv.thresholds[k] < 1))
                    return usage_error("--thresholds must be a list of confidences in (0.5, 1), got '%s'", v);
        } else if (conv && !strncmp(a, "--trials=", 9)) {
            if (!parse_count(v, 1, 1000000, &cv.trials))
                return usage_error("--trials must be a count of 1 or more, got '%s'", v);
        } else if (conv && !strncmp(a, "--step=", 7)) {
            if (!parse_count(v, 1, 100000000, &cv.step))
                return usage_error("--step must be a count of 1 or more, got '%s'", v);
        } else if (conv && !strncmp(a, "--seed=", 7)) {
            if (!parse_count(v, 0, INT64_MAX, &cv.seed))
                return usage_error("--seed must be a number, got '%s'", v);
        } else if (a[0] == '-' && a[1]) {
            char msg[160];
            snprintf(msg, sizeof msg, "unknown option '%%s' for the %s study", name);
            return usage_error(msg, a);
        } else if (nfiles < 256) {
            files[nfiles++] = argv[i];
        }
    }
    VmError err = {{0}};
    if (!au_config_check(&cv.cfg, &err))
        return usage_error("%s", err.msg);
    if (nfiles == 0)
        return usage_error("the %s study needs a samples file (-X audit.record=FILE writes one)", name);
    if (conv && nfiles > 1)
        return usage_error("the convergence study takes one samples file, got '%s' too", files[1]);
    if (cv.dir && !make_dir(cv.dir)) {
        fprintf(stderr, "tally study: cannot make the directory '%s'\n", cv.dir);
        return EXIT_USAGE;
    }
    if (!conv)
        return quality(nfiles, files, cv.dir, cv.plot, root);
    AuRecFile f;
    if (!au_record_load(files[0], &f, &err)) {
        fprintf(stderr, "tally study: %s\n", err.msg);
        return EXIT_USAGE;
    }
    int st = convergence(&cv, &f, files[0], root);
    au_record_unload(&f);
    return fflush(stdout) == 0 ? st : EXIT_USAGE;
}
