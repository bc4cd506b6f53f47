/* audit/loops.h — loop timings (audit/loops.c): the markers' events of
 * timed calls, their statistics per timing region, and the per-invocation
 * estimate the decision uses.  Internal to audit/.
 */
#ifndef TALLY_AUDIT_LOOPS_H
#define TALLY_AUDIT_LOOPS_H

#include "audit.h"

/* Fewest effective windows of a variant's estimate before a look can
 * decide (au_loops_estimate; a hoisted marker's event is a window: a
 * call). */
#define AU_LOOPS_MIN_WINDOWS 4

/* ---- which timing a bakeoff gets ----------------------------------------- */

typedef struct AuLoopPlan {
    uint32_t n;                /* timing points; 0: method timings */
    uint32_t pc[JIT_MAX_POINTS];   /* each a block start of the method's own bytecode */
    double entry_freq;         /* the entry block's share of the method's block counts */
    char reason[128];          /* n == 0: why */
} AuLoopPlan;
/* audit.timing for m, whose variant 0 is built with ir: method timings,
 * or loop timings at the points markers/select.c chooses on its IR
 * (forced with audit.timing=markers or naive: whatever m's entry
 * frequency). */
void au_loops_plan(const AuConfig *cfg, VmMethod *m, const IrOptions *ir, AuLoopPlan *out);

/* ---- the program thread's side: the timed wrapper and the stubs ---------- */

/* What a stub reports its events as (a marker of a part of a bakeoff). */
typedef struct AuLoopPoint {
    const uint32_t *bakeoff;   /* the table's id, set before the dispatcher is installed */
    uint16_t part;             /* c·N + k */
    uint16_t region;           /* 2 + K */
} AuLoopPoint;

/* JitTimedEnter (ctx: the bakeoff's AuLoopCode): a timed call with loop
 * timings begins. */
void au_loops_enter(void *ctx, uint32_t bakeoff, uint32_t part);
/* Cycles a stub adds to the region it closes (outside the sink: call,
 * register saves and restores, counter read): the median over a loop of
 * marker events and nothing else, measured once per process (the first
 * call assembles and runs it); from then on the sink takes it off every
 * event.  False + err if that fails. */
bool au_loops_calibrate(double *cycles, VmError *err);
/* JitNaiveTimer (audit.timing=naive): an event of point K, weight 1. */
void au_loops_naive(uint32_t point);
/* MkSink: an event (general registers only). */
void au_loops_event(const void *ctx, uint64_t weight, uint64_t tsc);
/* JitSampleFn of a bakeoff with loop timings: the call's end (region 1)
 * and the whole call (region 0). */
bool au_loops_exit(uint32_t bakeoff, uint32_t variant, uint64_t cycles, uint32_t weight);

/* A bakeoff's points, for its code's lifetime (never freed: a timed frame
 * can outlive the bakeoff).  Also the JitMarkRewrite's context. */
/* Where gcc left marker K in variant k (copy 0's timed code): the marker
 * map of the bakeoff (--stats "markers"). */
typedef struct AuMarkerSites {
    uint16_t sites, in_loop, at_exit, straight, guarded;
    bool refused;
} AuMarkerSites;

typedef struct AuLoopCode {
    int nvariants, nparts;
    uint32_t npoints;
    bool dump;                 /* -X jit.dump=markers */
    double overhead;           /* a stub's cycles in each region (au_loops_calibrate) */
    uint32_t every;            /* markers.every: a marker staying in its loop is timed every Nth iteration */
    uint32_t sites, refused;   /* marker write sites and refused markers the rewrites saw */
    AuMarkerSites *map;        /* [k · npoints + K] */
    /* Exact source-level counts of the timed calls that ended, written by
     * the program thread (au_loops_exit), read by the analysis thread,
     * both relaxed: Σ weights of marker K's events in part p's calls,
     * total[p · npoints + K], and those calls, calls[p]. */
    uint64_t *total;
    uint64_t *calls;
    AuLoopPoint point[];       /* [part · npoints + K] */
} AuLoopCode;
AuLoopCode *au_loops_code_new(const uint32_t *bakeoff, int nvariants, int copies, uint32_t npoints, bool dump);
/* JitMarkRewrite: mk_scan (the marker map, counted and kept), then
 * mk_rewrite_timed with au_loops_event as the sink. */
bool au_loops_rewrite(void *ctx, int part, const char *text, size_t len, VmBuf *out, VmError *err);

/* ---- the analysis thread's side ------------------------------------------ */

/* One region of one part (copy c of variant k): sums over complete
 * windows (one per timed call) of (C, W). */
typedef struct AuRegionSums {
    uint64_t events, windows;
    double weight;             /* Σ weights of its events */
    double sc, sw, scc, sww, scw;
    double open_c, open_w;     /* the window being filled */
    uint32_t open_n;
} AuRegionSums;

typedef struct AuLoops {
    int nvariants, ncopies, nregions;   /* parts c·N + k, c < ncopies; regions 1 .. nregions */
    const AuLoopCode *code;    /* the exact counts n_r come from (NULL: the events received) */
    uint64_t calls[JIT_MAX_VARIANTS * JIT_MAX_COPIES];   /* timed calls ended per part (region 1's events) */
    AuRegionSums *r;           /* [(region − 1) · nparts + part] */
} AuLoops;

/* False on nvariants outside 1..JIT_MAX_VARIANTS, ncopies outside
 * 1..JIT_MAX_COPIES, npoints above JIT_MAX_POINTS, or no memory. */
bool au_loops_init(AuLoops *l, int nvariants, int ncopies, uint32_t npoints, const AuLoopCode *code);
void au_loops_free(AuLoops *l);
/* One event of part c·N + k in region ≥ 1; false if invalid.  Region 1
 * (the call's end) closes the part's windows. */
bool au_loops_add(AuLoops *l, int part, int region, uint64_t cycles, uint32_t weight);
/* Variant k's cost per invocation μ_k and its variance, on copy c of its
 * code, or its copies merged (c = −1); false until every region a call
 * reached has two windows of them.  e->n: their timed calls.  *windows:
 * the effective windows behind the variance (Welch–Satterthwaite degrees
 * of freedom + 1: the regions' windows, each weighted by its share of the
 * variance). */
bool au_loops_estimate(const AuLoops *l, int k, int c, AuEstimate *e, uint64_t *windows);
/* One look, as au_stats_test: winner (with the copy rule), no-difference
 * or timeout (at the wall-time budget, or sequential: placement), on the
 * per-invocation estimates; out->regions: what each variant's μ is made
 * of, every region's n_r read once for the look (so equal across the
 * variants, and Σ_r n_r·R_r is v[k].mean). */
AuOutcome au_loops_test(const AuLoops *l, const AuConfig *cfg, AuTest test, double elapsed, AuResult *out);

#endif
