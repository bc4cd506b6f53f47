/* audit/audit.h — the performance auditor (prefix au_ / Au): the parts
 * that do not depend on generated code.
 *
 * A *bakeoff* lets N ≥ 2 differently-optimized variants of one method
 * compete at run time; the auditor decides, with a controlled error rate,
 * which one is faster on this program, input and machine.
 *
 *   client (inline, optlevel, aa, custom…) names N variants
 *        │ au_analysis_begin(): bakeoff id, stats, policy slot
 *        ▼
 *   JIT: N timed variants + 1 dispatcher in one unit, one entry store
 *        │ every call of the method
 *        ▼
 *   dispatcher prologue: countdown-- ; < 0 → slow path = au_policy_next()
 *        │ clean (1 − 1/audit.sample_every)      │ timed variant k
 *        ▼                                        ▼  (bursts, rotation)
 *   clean body                timed body: cycle counter at entry and at
 *                             every exit, callees included
 *                                     │ au_sample_push(buf, id, k, cycles, w)
 *                                     ▼
 *                  per-thread ring buffer (AuSampleBuffer): one producer,
 *                  no locks; the consumer zeroes what it read
 *                                     │ every audit.interval_ms
 *                                     ▼
 *                  analysis thread (AuAnalysis): route by bakeoff id,
 *                  trim per window, running sums (AuStats), test;
 *                  re-randomizes the policy (AuPolicyParams, ε)
 *                                     │ winner | no-difference | timeout
 *                                     ▼
 *                  AuDecideFn callback, on the analysis thread
 *                                     ▼
 *                  install: the chosen variant's clean code, one store
 *
 * Extension points for the JIT side:
 * - Timed code appends samples with au_sample_push() on the buffer of
 *   au_samples_thread(), or calls au_sample_record(), which does both.
 *   Weights (w) let loop timings stand for several source iterations;
 *   method timings use w = 1.
 * - The generated dispatcher mirrors au_policy_next() on the state of
 *   au_policy_state(slot) and the slot's AuPolicyParams from
 *   au_analysis_policy(slot); both live as long as the AuAnalysis.
 * - The decision arrives through the AuDecideFn given to
 *   au_analysis_new(); AuResult.install names the variant to install.
 *
 * Statistics, the default test and its guarantee: docs/auditing.md.
 */
#ifndef TALLY_AUDIT_H
#define TALLY_AUDIT_H

#include "jit.h"
#include "markers.h"
#include "vm.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AU_MAX_TRIM_WINDOW 4096
#define AU_PROBE_MAX 1024      /* timed calls a probe keeps (audit.probe) */

/* ---- outcomes and tests (tables) ----------------------------------------- */

#define AU_OUTCOMES(X)                                                         \
    X(AU_RUNNING, "running")             /* keep sampling */                   \
    X(AU_WINNER, "winner")               /* one variant is faster than all */  \
    X(AU_NO_DIFFERENCE, "no-difference") /* within ±audit.equivalence */       \
    X(AU_TIMEOUT, "timeout")             /* sample or wall-time budget spent */

typedef enum AuOutcome {
#define X(e, s) e,
    AU_OUTCOMES(X)
#undef X
} AuOutcome;

#define AU_TESTS(X)                                                            \
    X(AU_TEST_SEQUENTIAL, "sequential") /* mixture SPRT: anytime-valid */     \
    X(AU_TEST_PAPER, "paper")           /* the thesis's Φ(|Δ|/σ) test */

typedef enum AuTest {
#define X(e, s) e,
    AU_TESTS(X)
#undef X
} AuTest;

const char *au_outcome_name(AuOutcome o);
const char *au_test_name(AuTest t);
/* The test named s, or -1. */
int au_test_parse(const char *s);

/* ---- configuration (the audit.* tunables, in natural units) -------------- */

/* What a timed call measures (audit.timing). */
typedef enum AuTiming { AU_TIMING_AUTO, AU_TIMING_METHOD, AU_TIMING_MARKERS, AU_TIMING_NAIVE } AuTiming;


/* The auditor's settings: a field per row of audit/audit_tunables.def (in
 * natural units: BP and PCT rows as fractions, MS rows in seconds), then
 * what au_config_check derives from them. */
typedef struct AuConfig {
#define TUNABLE(field, name, kind, deflt, min, max, unit, help) VM_TUN_CTYPE_##kind field;
#define TUNABLE_STR(field, name, deflt, help) const char *field;
#include "audit_tunables.def"
#undef TUNABLE
#undef TUNABLE_STR
    AuTest test;              /* audit.test, parsed */
    double alpha;             /* 1 − audit.confidence: error rate of a decision */
    double cycles_hz;         /* the cycle counter's rate; 0 = measured (tests set it) */
    AuTiming timing_mode;     /* audit.timing, parsed */
    MkTunables markers;       /* the markers' tunables (the command copies its own in) */
} AuConfig;

/* A bakeoff whose fastest variant's timed call (AuVariantResult.cycles:
 * a recursive method's timed call weighs more than 1) is below AuConfig.min_cycles once
 * every variant has this many kept samples is reported to the AuDecideFn
 * at once, still AU_RUNNING, by the analysis thread: its samples measure
 * the timer, and the auditor ends it (audit/lifecycle.c). */
#define AU_CHEAP_SAMPLES 1000
/* Scales of the sequential test's mixture at most (audit.mixture to
 * audit.mixture_max, √10 apart). */
#define AU_MAX_SCALES 8
/* The lowest sampling rate audit.max_overhead picks: 1 call in this many. */
#define AU_MAX_EVERY 100000

/* The cycle counter after every earlier instruction has completed, as
 * the timed wrappers read it (jit/codegen.c, read_cycles). */
static inline uint64_t au_cycles(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return (uint64_t)hi << 32 | lo;
}

/* The table's defaults, derived fields included (audit/config.c). */
extern const VmTunGroup au_tun_group;
void au_config_default(AuConfig *cfg);
/* Checks what the rows' ranges cannot (two tunables together, audit.test)
 * and fills the derived fields; false with a message naming the tunable. */
struct VmError;
bool au_config_check(AuConfig *cfg, struct VmError *err);

/* ---- random numbers (xoshiro256**, seeded by splitmix64) ----------------- */

typedef struct AuRng {
    uint64_t s[4];
} AuRng;

void au_rng_seed(AuRng *r, uint64_t seed);
uint64_t au_rng_next(AuRng *r);
double au_rng_double(AuRng *r);             /* uniform in [0, 1) */

/* ---- statistics of one bakeoff (stats.c) --------------------------------- */

/* Running sums of one variant.  The unit of the variance is the trimming
 * window: per complete window j, C_j and W_j are the sums of the cycles and
 * weights it keeps; windows are independent where samples within one are
 * not (trimming ties them together, and so may a burst).  Sums are of
 * x_j = C_j − shift·W_j, the shift (the first window's mean) keeping Σx²
 * free of cancellation.  With w = 1 and no trimming (window 1) these are
 * exactly count, Σc, Σc² of the samples about the shift. */
typedef struct AuSums {
    uint64_t windows;          /* complete windows summed */
    uint64_t samples;          /* samples kept in them */
    double shift;
    double sx, sxx, sw, sww, sxw;   /* over windows: Σx, Σx², ΣW, ΣW², ΣxW */
    double sy, syy;            /* over kept samples: y = c/w − shift (spread) */
} AuSums;

/* One sample waiting in a trimming window. */
typedef struct AuObs {
    uint64_t c;
    uint32_t w;
} AuObs;

/* A weight class's last trim_window samples (c/w), for trimming its
 * samples where the class is too rare in a window to have a share of the
 * drop (see trim in audit/stats.c).  The ring is allocated at its first
 * sample; until it holds trim_window samples (or without memory for it),
 * the class's samples in such windows are dropped. */
#define AU_WEIGHT_CLASSES 32   /* ⌊log2 w⌋ of a 32-bit weight */
typedef struct AuRecent {
    double *cw;
    uint32_t n, at;
} AuRecent;

/* One copy's samples (audit.copies), trimmed in windows of its own as a
 * variant's are (in the variant's windows, mixed, a slower copy would
 * lose more of its samples to the trimming, and read faster than it is):
 * Σc and Σw of the kept ones, for the copy's own mean. */
typedef struct AuCopySums {
    uint64_t samples;
    double sc, sw;
    uint32_t nwin;
    AuObs *win;                /* trim_window entries */
    AuRecent recent[AU_WEIGHT_CLASSES];
} AuCopySums;

typedef struct AuVariantStats {
    AuSums sums;
    uint64_t received;         /* samples added (weight > 0) */
    uint64_t trimmed;          /* dropped as the slowest of their window */
    uint64_t warmups;          /* warm-up calls' samples: counted, not estimated */
    double warmup_cycles;      /* their Σ cycles */
    AuCopySums copy[JIT_MAX_COPIES];
    uint32_t nwin;             /* samples in the current, incomplete window */
    AuObs *win;                /* trim_window entries */
    AuRecent recent[AU_WEIGHT_CLASSES];
} AuVariantStats;

/* Windows paired across variants: round j is the j-th complete window of
 * every variant.  The policy alternates bursts among the variants, so a
 * round's windows were timed over about the same stretch of time, and a
 * slowdown of the whole machine (another process, frequency, a program
 * phase) raises them alike: in the paired variance of ln(R_a/R_b) it
 * cancels, where per-variant variances add it up twice.  A window waits
 * (at most AU_PAIR_PENDING per variant, else the oldest is left unpaired)
 * until every variant has one.  Sums over complete rounds, of the same
 * shifted x_j = C_j − shift·W_j as AuSums, per pair of variants (k, l):
 * Σx_k·x_l, Σx_k·W_l, ΣW_k·W_l (the diagonal: Σx², ΣxW, ΣW²). */
#define AU_PAIR_PENDING 64
typedef struct AuPaired {
    uint64_t rounds;
    double sx[JIT_MAX_VARIANTS], sw[JIT_MAX_VARIANTS];
    double xx[JIT_MAX_VARIANTS][JIT_MAX_VARIANTS];
    double xw[JIT_MAX_VARIANTS][JIT_MAX_VARIANTS];
    double ww[JIT_MAX_VARIANTS][JIT_MAX_VARIANTS];
    uint32_t head[JIT_MAX_VARIANTS], npending[JIT_MAX_VARIANTS];
    double px[JIT_MAX_VARIANTS][AU_PAIR_PENDING], pw[JIT_MAX_VARIANTS][AU_PAIR_PENDING];
} AuPaired;

typedef struct AuStats {
    int nvariants;
    AuConfig cfg;
    AuVariantStats v[JIT_MAX_VARIANTS];
    AuPaired pair;             /* the sequential and oracle tests' variances */
} AuStats;

/* Per-unit-of-weight estimate of one variant: the ratio of sums Σc/Σw and
 * its delta-method variance. */
typedef struct AuEstimate {
    uint64_t n;                /* samples kept */
    uint64_t windows;
    double mean;               /* cycles per unit of weight */
    double var_mean;           /* variance of `mean` as an estimator */
    double stddev;             /* of one sample's cycles per unit of weight */
    double cycles;             /* cycles per sample (per timed call), whatever its weight */
} AuEstimate;

/* One comparison of variant a against b, on θ = ln(mean_a / mean_b). */
typedef struct AuCompare {
    double theta, lo, hi;      /* estimate and interval of θ */
    double confidence;         /* that the sign of θ is right (see docs) */
    double v;                  /* the variance of θ̂ behind the interval */
} AuCompare;

typedef struct AuVariantResult {
    uint64_t samples;          /* kept */
    uint64_t received;
    uint64_t trimmed;          /* outliers dropped */
    double mean, stddev;       /* cycles per unit of weight */
    double cycles;             /* cycles per timed call (= mean at weight 1) */
    double weight;             /* Σ weight of the kept samples (= samples at weight 1) */
    uint64_t warmups;          /* warm-up calls timed, not estimated */
    double warmup_cycles;      /* their mean cycles a call (0 without any) */
    uint64_t copy_samples[JIT_MAX_COPIES];   /* kept, per copy of its code */
    double copy_mean[JIT_MAX_COPIES];        /* cycles per unit of weight, per copy */
    double rel, rel_lo, rel_hi; /* mean / mean(best) − 1, with interval */
    bool slower;               /* shown slower than the best at this look */
} AuVariantResult;

/* The least conclusive comparison of a look (the runner-up against the
 * best) and its sample counts: the inputs of au_stats_to_decide. */
typedef struct AuForesight {
    double theta, v;           /* θ̂ and its variance; v = 0: nothing to foresee */
    double alpha;              /* its level, corrected for N − 1 comparisons */
    double elapsed;            /* seconds of sampling so far */
    uint64_t n, need;          /* the fewest kept samples of a variant; the test's minimum */
    bool default_best;         /* the default has the lowest mean */
    bool withheld;             /* the interval shows a winner the copy rule withholds */
} AuForesight;

/* audit.verify: the online test's decision, after which the bakeoff
 * sampled on from fresh sums as the oracle (analysis.c).  The estimate
 * of those later samples is the same code's truth in the same process;
 * an oracle run's is another process's, whose code may differ. */
typedef struct AuOnline {
    AuOutcome outcome;         /* AU_RUNNING: no decision yet (or not verifying) */
    int install;               /* the variant it would have installed */
    double rel, rel_lo, rel_hi; /* its headline difference (AuResult.rel) */
    double elapsed;            /* sampling seconds at the decision */
    uint64_t samples;          /* the fewest kept samples of a variant then */
} AuOnline;

/* The thesis's timing-quality metrics (III.C.3) over one timing mode's
 * samples: converge score = timings / variance of timings (higher: fewer
 * timings to converge); perturb score = mean of 100 / (timing −
 * (MIN_TIMING − 0.1)), MIN_TIMING the cycles of two back-to-back counter
 * reads (lower: the timer weighs less; ≤ 1 acceptable). */
typedef struct AuScore {
    uint64_t n;
    double sum, sumsq, inv;    /* Σ timing, Σ timing², Σ 100/(timing − MIN_TIMING + 0.1) */
} AuScore;
void au_score_add(AuScore *s, double cycles, double min_timing);
double au_score_converge(const AuScore *s);   /* NAN below two timings */
double au_score_perturb(const AuScore *s);    /* NAN without timings */
/* Timing modes the scores are kept for: method timings (whole calls) and
 * loop timings (marker events). */
enum { AU_SCORE_METHOD, AU_SCORE_MARKERS, AU_SCORES };

/* The decision's trajectory: the analysis's looks at a bakeoff (analysis.c),
 * each its estimate and interval against its samples.  Bounded: at most
 * AU_TRAJECTORY_MAX looks are kept, thinned evenly when full (every other
 * one goes and one look in twice as many is kept from then on), and the
 * latest look is kept apart, so the decision's own look is always there.
 * Floats: a plot's precision, in a record copied at every look. */
#define AU_TRAJECTORY_MAX 200
typedef struct AuLook {
    float t;                   /* seconds of sampling (since the last restart) */
    uint32_t n;                /* the fewest kept samples of a variant */
    int8_t best, runner_up;    /* variant indexes */
    float rel, lo, hi;         /* mean(best) / mean(runner_up) − 1 and its interval */
} AuLook;
typedef struct AuTrajectory {
    uint64_t looks;            /* looks with an estimate, in all */
    uint32_t every;            /* look[] keeps 1 look in this many (a power of two; 0 = 1) */
    uint32_t n;                /* kept in look[] */
    AuLook last;               /* the latest look (looks > 0) */
    AuLook look[AU_TRAJECTORY_MAX];
} AuTrajectory;

/* Loop timings' cost by region (au_loops_test), index r − 1 of region r:
 * [0] the call's end (the code outside any timed loop), [1 + K] timing
 * point K.  weight: n_r, the region's events' source-level weight per
 * timed call, every variant's (NaN: no call ended); cycles[k]: R_r,
 * variant k's cycles per unit of weight (NaN: no events); share[k]:
 * n_r·R_r / μ_k, its part of the variant's mean (NaN: no μ_k), so a
 * variant's shares sum to 1.  Per variant floats, a plot's precision
 * (6e-8 relative): the result is copied at every look. */
#define AU_REGIONS_MAX (JIT_MAX_POINTS + 1)
typedef struct AuRegionCosts {
    uint32_t nregions;         /* 0: method timings, none */
    double weight[AU_REGIONS_MAX];
    float cycles[JIT_MAX_VARIANTS][AU_REGIONS_MAX];
    float share[JIT_MAX_VARIANTS][AU_REGIONS_MAX];
} AuRegionCosts;

typedef struct AuResult {
    AuOutcome outcome;
    AuTest test;
    int nvariants;
    int best;                  /* lowest mean; −1 until every variant has samples */
    int runner_up;             /* the least clearly beaten other variant */
    int install;               /* what to install: winner, equivalent default, or 0 */
    double confidence;         /* best beats runner-up (corrected for N−1 comparisons) */
    double rel, rel_lo, rel_hi; /* mean(best) / mean(runner_up) − 1, with interval */
    int32_t sample_every;      /* its sampling rate at this look (analysis.c; 0 from au_stats_test) */
    bool futile;               /* a timeout before the budget: it could not decide within it */
    bool placement;            /* futile because a variant's copies are further apart than the
                                * variants, past doubt (au_stats_copies_apart) */
    bool between;              /* futile because the difference lies between audit.equivalence
                                * and audit.min_effect: only a timeout is left (stats.c) */
    bool no_winner;            /* futile because no variant can be a winner (stats.c:
                                * no_winner_left; between too, or research.no_winner) */
    bool confirming;           /* running: a decision waits for audit.confirm's samples */
    int unconfirmed;           /* confirming looks the decision did not stand at (AuConfirm's) */
    int fresh_disagreed;       /* of them, refused by the samples since its first look alone */
    int restarted;             /* times its samples started over at a JIT install (research.restart) */
    uint64_t timed_before;     /* timed calls it had before its last restart (not in v[]) */
    int held;                  /* looks whose decision waited for a callee queued in the JIT
                                * (research.wait_jit) */
    AuForesight foresight;     /* sequential test: what au_stats_to_decide needs */
    double to_decide;          /* au_stats_to_decide's answer where a caller stored it (the
                                * bakeoff thread, for audit.extend's log line); 0 otherwise */
    AuOnline online;           /* audit.verify: the decision this result's samples came after */
    bool loops;                /* decided on loop timings (audit/loops.c) */
    AuRegionCosts regions;     /* loops: what μ is made of (au_loops_test) */
    AuScore score[AU_SCORES];  /* its samples' timing quality, per mode (AU_SCORE_*) */
    double min_timing;         /* MIN_TIMING of the scores: cycles */
    AuVariantResult v[JIT_MAX_VARIANTS];
    AuTrajectory trajectory;   /* the looks up to this one (analysis.c; empty from au_stats_test) */
} AuResult;

/* Running, sequential test: seconds of sampling until r's first deciding
 * look, were θ̂ and n·v to hold and the samples to come at their rate so
 * far (INFINITY: not foreseen; the paper test and the oracle never are).
 * On demand, not at every look: it solves the mixture's half-width some
 * forty times. */
double au_stats_to_decide(const AuConfig *cfg, const AuResult *r);

/* Sampling time (seconds) from which futility by rate judges a bakeoff:
 * a tenth of audit.timeout_ms, or 90% of a turn (audit.quantum_ms) if
 * that is sooner.  The analysis tests each bakeoff once past it. */
double au_rate_judged_from(const AuConfig *cfg);

/* Futility by rate before any sample (the bakeoff thread asks before it
 * compiles a bakeoff): whether a method called calls_per_s times a
 * second, at `margin` times that, would give each of nvariants variants
 * too few kept samples for the rule of too_slow (stats.c): 1 call in
 * audit.sample_every timed, shared among the variants, less warm-up
 * calls and the trimmed share, projected over audit.timeout_ms, times
 * audit.futility, below audit.min_samples.  *kept (if not NULL): that
 * projection before the futility factor.  False wherever futility does
 * not judge (the paper test, the oracle, no time budget, futility or
 * sampling off). */
bool au_rate_futile(const AuConfig *cfg, double calls_per_s, int nvariants, double margin, double *kept);

/* The timed calls a result counts: every variant's received samples and
 * warm-up calls. */
uint64_t au_result_timed_calls(const AuResult *r);

/* false on nvariants outside 2..JIT_MAX_VARIANTS, a bad trim window, or
 * no memory. */
bool au_stats_init(AuStats *st, int nvariants, const AuConfig *cfg);
void au_stats_free(AuStats *st);
/* One sample of `variant` (weight 0 or a bad variant: ignored, false). */
bool au_stats_add(AuStats *st, int variant, uint64_t cycles, uint32_t weight);
/* The same, timed on copy `copy` of the variant's code (0..JIT_MAX_COPIES). */
bool au_stats_add_copy(AuStats *st, int variant, int copy, uint64_t cycles, uint32_t weight);
/* A burst's warm-up call of variant: only counted (AuVariantResult.warmup_cycles). */
bool au_stats_add_warmup(AuStats *st, int variant, uint64_t cycles);
void au_stats_estimate(const AuStats *st, int variant, AuEstimate *e);
/* One look: the decision with `test` after `elapsed` seconds.  Pure: the
 * caller stops at the first outcome other than AU_RUNNING. */
AuOutcome au_stats_test(const AuStats *st, AuTest test, double elapsed, AuResult *out);

/* A decision waiting for confirmation (audit.confirm). */
typedef struct AuConfirm {
    uint64_t at;               /* fewest samples of a variant at its first look; 0 = none */
    AuOutcome outcome;         /* the decision then: AU_WINNER or AU_NO_DIFFERENCE */
    int best;                  /* the winner then */
    double sx[JIT_MAX_VARIANTS], sw[JIT_MAX_VARIANTS];  /* each variant's sums then (AuSums) */
    int unconfirmed;           /* confirming looks at which the decision did not stand */
    int fresh_disagreed;       /* of them, only because of the samples since its first look */
} AuConfirm;
/* Confirmation of a look's result r at st (au_stats_test's, sequential
 * test, not the oracle; c zeroed at the start): a winner stands when it
 * is the winner again at the first look where the samples have grown to
 * cfg->confirm × what they were when it first was (or to
 * cfg->max_samples) and, with cfg->confirm_fresh, the samples taken since
 * then alone have it the fastest too (a variant without a complete window
 * since then: not judged on them); if that look shows no winner, or
 * another, or the fresh samples disagree, it starts over.  With
 * cfg->confirm_nodiff a no-difference likewise: found again, and the
 * fresh samples have no variant faster than the default by more than
 * cfg->equivalence.  Until then r becomes AU_RUNNING, or AU_TIMEOUT (the
 * default installed) at the wall-time budget.  r gets c's counts.
 * Returns r->outcome. */
AuOutcome au_stats_confirm(AuConfirm *c, const AuStats *st, const AuConfig *cfg, AuTest test,
                           double elapsed, AuResult *r);
/* The comparison behind au_stats_test, at level alpha (already corrected). */
void au_stats_compare(const AuEstimate *a, const AuEstimate *b, AuTest test,
                      double alpha, double mixture, double mixture_max, AuCompare *out);
/* The copy rule on a look's r->v[].copy_samples and copy_mean (stats.c;
 * docs/auditing.md, "The copy rule"): whether k is slower than b on every
 * copy by more than margin and than the copies' gaps spread (true without
 * a second copy); and whether that fails past doubt (PLACEMENT_Z standard
 * errors, from e[x].var_mean for copy c's share e[x].n / copy_samples[c]
 * of x's samples: both must count the same unit). */
bool au_stats_copies_agree(const AuResult *r, int k, int b, double margin);
bool au_stats_copies_apart(const AuResult *r, const AuEstimate *e, int k, int b, double margin);

double au_normal_cdf(double z);
double au_normal_quantile(double p);       /* 0 < p < 1 */
double au_t_quantile(double p, double df); /* Student's t, df > 0 */

/* ---- per-thread sample buffers (samples.c) ------------------------------- */

typedef struct AuSample {
    uint32_t bakeoff;
    uint32_t variant;
    uint64_t cycles;
    uint32_t weight;
    uint32_t thread;           /* the consumer's: its buffer's number (1, 2, ... as registered) */
    uint64_t seq;              /* the consumer's: its position in that buffer */
} AuSample;

/* A slot is free when seq == 0.  The producer writes only free slots: the
 * payload first, then seq = position + 1 with a release store; the consumer
 * reads seq with acquire, the payload, seq again, and frees the slot by
 * zeroing it (payload, then seq with release). */
typedef struct AuSlot {
    uint64_t seq;
    uint64_t cycles;
    uint64_t tag;              /* bakeoff << 32 | variant */
    uint64_t weight;
} AuSlot;

typedef struct AuSampleBuffer {
    /* the producer's (the program thread) */
    AuSlot *slots;
    uint64_t mask;             /* slots − 1 */
    uint64_t head;             /* samples written */
    uint64_t dropped;          /* samples lost to a full buffer (relaxed stores) */
    uint32_t warmup;           /* bakeoff whose next sample is a warm-up (0: none) */
    char pad_[28];
    /* the consumer's (the analysis thread) */
    uint64_t tail;             /* samples read */
    uint64_t dropped_seen;
    int retired;               /* set by the owner thread at exit (release) */
    uint32_t index;            /* 1, 2, ... in order of registration (AuSample.thread) */
    struct AuSampleBuffer *next;
} AuSampleBuffer;

/* Appends one sample; false (and counted as dropped) when the buffer is
 * full.  No locks and nothing stronger than a release store. */
static inline bool au_sample_push(AuSampleBuffer *b, uint32_t bakeoff, uint32_t variant,
                                  uint64_t cycles, uint32_t weight)
{
    AuSlot *s = &b->slots[b->head & b->mask];
    if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != 0) {
        __atomic_store_n(&b->dropped, b->dropped + 1, __ATOMIC_RELAXED);
        return false;
    }
    __atomic_store_n(&s->cycles, cycles, __ATOMIC_RELAXED);
    __atomic_store_n(&s->tag, (uint64_t)bakeoff << 32 | variant, __ATOMIC_RELAXED);
    __atomic_store_n(&s->weight, (uint64_t)weight, __ATOMIC_RELAXED);
    __atomic_store_n(&s->seq, ++b->head, __ATOMIC_RELEASE);
    return true;
}

/* Slots of buffers registered from now on (rounded up to a power of 2,
 * at least 16). */
void au_samples_configure(uint32_t slots);
/* The calling thread's buffer, registered on first use (NULL without
 * memory); retired automatically when the thread exits. */
AuSampleBuffer *au_samples_thread(void);
/* au_sample_push on the calling thread's buffer; the sample of a warm-up
 * call (au_sample_warmup) goes with AU_SAMPLE_WARMUP in its variant. */
bool au_sample_record(uint32_t bakeoff, uint32_t variant, uint64_t cycles, uint32_t weight);
/* The calling thread's next sample of `bakeoff` (0: none) is a burst's
 * warm-up call; returns the previous setting, for a nested timed call of
 * another bakeoff to restore. */
uint32_t au_sample_warmup(uint32_t bakeoff);
/* In a sample's variant: a warm-up call, counted but not estimated. */
#define AU_SAMPLE_WARMUP 0x80000000u
/* ... and its timing region (audit/loops.c): 0 a whole call, 1 the end of
 * a call with loop timings, 2 + K the events of marker K; the part
 * (c·N + k) in the low bits. */
#define AU_SAMPLE_REGION_SHIFT 16
#define AU_SAMPLE_PART(v) ((v) & 0xffffu)
#define AU_SAMPLE_REGION(v) (((v) & ~AU_SAMPLE_WARMUP) >> AU_SAMPLE_REGION_SHIFT)

typedef struct AuDrainCounts {
    uint64_t read;             /* valid samples handed to the callback */
    uint64_t dropped;          /* lost to full buffers (reported by producers) */
    uint64_t torn;             /* slots that changed while read: skipped */
    uint64_t bad;              /* slots out of sequence: skipped */
} AuDrainCounts;

typedef void (*AuSampleFn)(void *ctx, const AuSample *s);
/* Reads every registered buffer (at most one buffer length each), hands
 * each valid sample to fn, zeroes the slots read, frees buffers whose
 * thread has exited once empty.  One consumer at a time.  Adds to *counts. */
void au_samples_drain(AuSampleFn fn, void *ctx, AuDrainCounts *counts);
/* Buffers registered and not yet freed. */
int au_samples_count(void);

/* ---- dispatch policy (policy.c; thesis Fig. III.9) ----------------------- */

/* One per policy slot, shared by all threads: written by the analysis
 * thread every round (with its random ε and the slot's bakeoff's rate),
 * read by dispatchers on their slow path (relaxed). */
typedef struct AuPolicyParams {
    int32_t reset;             /* clean calls between bursts; < 0: never time */
    int32_t burst;             /* timed calls per burst, ≥ 1 */
    int32_t spread;            /* a burst's gap: reset ± spread, uniform */
    uint32_t seed;             /* of the threads' generators (0: 1) */
} AuPolicyParams;

/* The state per thread and per policy slot is a VmAuditSlot (vm/vm.h). */

#define AU_CLEAN (-1)

/* What this call runs: AU_CLEAN or the timed variant k (0 ≤ k < n).  The
 * fast path is `--countdown >= 0 → clean`, which the dispatcher inlines. */
int au_policy_next(VmAuditSlot *st, const AuPolicyParams *p, int nvariants);
/* The calling thread's state for a slot (0 ≤ slot < VM_AUDIT_SLOTS). */
VmAuditSlot *au_policy_state(int slot);
/* New reset and burst from the base values with a random ε of ±jitter %:
 * on average 1 timed call in sample_every. */
void au_policy_perturb(AuPolicyParams *p, int32_t sample_every, int32_t burst,
                       int32_t jitter, AuRng *rng);

/* ---- analysis thread (analysis.c) ---------------------------------------- */

typedef struct AuAnalysis AuAnalysis;

/* Called on the analysis thread (or in au_analysis_step's caller) once
 * per finished bakeoff, with no auditor lock held; r->outcome is
 * AU_RUNNING when the bakeoff is too cheap to time (AU_CHEAP_SAMPLES). */
typedef void (*AuDecideFn)(void *ctx, uint32_t bakeoff, const AuResult *r, double elapsed);

typedef struct AuCounters {
    uint64_t rounds;
    AuDrainCounts drain;
    uint64_t unknown;          /* samples of no running bakeoff (late, stray) */
    uint64_t invalid;          /* bad variant or zero weight */
} AuCounters;

/* NULL without memory.  Configures the sample buffers (cfg->buffer_slots). */
AuAnalysis *au_analysis_new(const AuConfig *cfg, AuDecideFn decide, void *ctx);
/* Starts the thread (false if it cannot be created). */
bool au_analysis_start(AuAnalysis *a);
/* Stops and joins the thread; idempotent. */
void au_analysis_stop(AuAnalysis *a);
/* Stops, then frees everything (running bakeoffs are dropped undecided). */
void au_analysis_free(AuAnalysis *a);
/* A new bakeoff of n variants sampled through policy slot `slot` (−1:
 * none, its rate goes nowhere); its id (≥ 1), or 0 when n is out of range
 * or no memory.  `now` in seconds (au_now). */
uint32_t au_analysis_begin(AuAnalysis *a, int nvariants, int slot, double now);
/* The bakeoff has loop timings from code (audit/loops.h: its markers and
 * their exact counts): it is decided on its regions' per-invocation
 * estimate, and every call through its dispatcher is timed.  False if
 * unknown or no memory. */
struct AuLoopCode;
bool au_analysis_loops(AuAnalysis *a, uint32_t id, const struct AuLoopCode *code);
/* Drops a running bakeoff without a decision; false if unknown. */
bool au_analysis_cancel(AuAnalysis *a, uint32_t id);
/* Between turns (audit.quantum_ms): a paused bakeoff keeps its samples
 * and is not tested; its elapsed time stops.  Stragglers still count.
 * Both false if the bakeoff is unknown — pause then means a decision is
 * already on its way to the AuDecideFn. */
bool au_analysis_pause(AuAnalysis *a, uint32_t id, double now);
bool au_analysis_resume(AuAnalysis *a, uint32_t id, double now);
/* The JIT installed compiled code for a method bakeoff `id` calls: with
 * cfg->restart, before its decision, its samples start over at its next
 * round (paused: at its first round after it resumes; analysis.c,
 * restart()).  Whether they will: false if the bakeoff is unknown,
 * decided (audit.verify samples on), or cfg->restart is off. */
bool au_analysis_code_changed(AuAnalysis *a, uint32_t id);
/* Whether a method bakeoff `id` calls is queued or compiling in the JIT
 * now: with cfg->wait_jit its decision waits meanwhile (analysis.c,
 * held()).  False if the bakeoff is unknown. */
bool au_analysis_jit_queued(AuAnalysis *a, uint32_t id, bool queued);
/* The current state of a running bakeoff; false if unknown or finished. */
bool au_analysis_result(AuAnalysis *a, uint32_t id, AuResult *out);
/* One round: drain, trim and sum, test each bakeoff, report decisions,
 * re-randomize the policy.  The thread calls it every cfg->interval. */
void au_analysis_step(AuAnalysis *a, double now);
/* The dispatch parameters of policy slot `slot` (NULL when out of range):
 * the base rate, or the rate of the bakeoff begun on it (audit.max_overhead). */
AuPolicyParams *au_analysis_policy(AuAnalysis *a, int slot);
void au_analysis_counters(AuAnalysis *a, AuCounters *out);
/* audit.record (audit/record.h): every sample drained from now on is
 * written to rec too, with what the analysis made of it; NULL = none.
 * Set before the thread starts; rec outlives the analysis's rounds. */
struct AuRecorder;
void au_analysis_record(AuAnalysis *a, struct AuRecorder *rec);
/* MIN_TIMING of the scores (AuScore): cycles. */
double au_analysis_min_timing(const AuAnalysis *a);
/* The cycle counter's rate, measured since the analysis began (0: too soon). */
double au_analysis_cycles_hz(const AuAnalysis *a);
/* CLOCK_MONOTONIC in seconds. */
double au_now(void);

#endif
