/* audit/loops.c — loop timings: code markers' events in, a per-invocation
 * cost estimate per variant out.
 *
 * Input: the events of timed calls with loop timings (markers/: a stub
 * after every marker write calls au_loops_event), framed by
 * au_loops_enter (the timed wrapper, before its first cycle-counter read)
 * and au_loops_exit (its JitSampleFn).  Output: samples in the thread's
 * ring (region ≥ 1 in AuSample.variant, AU_SAMPLE_REGION), which the
 * analysis thread routes into an AuLoops per bakeoff (audit/loopstats.c,
 * where au_loops_test decides as au_stats_test does).  Also which timing
 * a bakeoff gets (au_loops_plan) and the rewrite of its variants'
 * assembly (au_loops_rewrite).
 *
 * Regions: an event of marker K closes region 2 + K, the cycles since the
 * previous event of the call (or its start); the call's end closes region
 * 1 (since its last event, weight 1); region 0 is the whole call, as
 * method timings report it.  An event's weight is how many source-level
 * executions of K it stands for (1 for a marker gcc left in the loop, n
 * for a store gcc moved after a call-free loop).
 *
 * Estimator (docs/auditing.md, "Loop timings"): per region r and variant
 * k, the cost per unit of weight R_rk = ΣC/ΣW, over windows (a window:
 * the events of r in one timed call), with the delta-method variance
 * across windows.  The method's cost per invocation is μ_k = Σ_r n_r·R_rk,
 * where n_r = Σ weights of r / timed calls, over every variant: the same
 * source-level counts in each (exact: they come from the markers).  μ's
 * variance is Σ_r n_r²·var(R_rk), with its Welch–Satterthwaite degrees
 * of freedom ν; a look widens it to Student's t at ν (few windows give a
 * rough variance).  No trimming: a variant whose marker stayed in the loop has
 * per-iteration events where another's was hoisted, and trimming one but
 * not the other would bias the comparison.
 *
 * Invariants: the sink runs on the program thread inside compiled code,
 * between any two instructions: it uses general registers only
 * (target("general-regs-only")), takes no lock and calls nothing; the
 * frames are the thread's own.
 */
#include "loops.h"
#include "markers.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- which timing a bakeoff gets ----------------------------------------- */

void au_loops_plan(const AuConfig *cfg, VmMethod *m, const IrOptions *ir, AuLoopPlan *out)
{
    memset(out, 0, sizeof *out);
    if (cfg->timing_mode == AU_TIMING_METHOD) {
        snprintf(out->reason, sizeof out->reason, "audit.timing=method");
        return;
    }
    bool forced = cfg->timing_mode == AU_TIMING_MARKERS || cfg->timing_mode == AU_TIMING_NAIVE;
    VmError err = {{0}};
    IrFunc *f = ir_compile(m, ir, NULL, &err);
    if (!f) {
        snprintf(out->reason, sizeof out->reason, "no IR: %.100s", err.msg);
        return;
    }
    MkPlan p;
    if (!mk_select(f, &cfg->markers, forced, &p)) {
        snprintf(out->reason, sizeof out->reason, "%s", p.reason[0] ? p.reason : "out of memory");
    } else {
        out->entry_freq = p.entry_freq;
        for (uint32_t k = 0; k < p.n && out->n < JIT_MAX_POINTS; k++)
            if (p.v[k].depth == 0)   /* the same source point in every variant */
                out->pc[out->n++] = p.v[k].pc;
        snprintf(out->reason, sizeof out->reason, "%s", out->n ? "" : p.reason[0] ? p.reason : "no point chosen");
    }
    mk_plan_free(&p);
    ir_free(f);
}

/* ---- the program thread's side ------------------------------------------ */

enum {
    MAX_FRAMES = 8,
    AGGREGATE = 64,            /* a marker's consecutive events summed into one sample */
};

typedef struct Frame {
    AuLoopCode *code;          /* the bakeoff's, where the call's counts go at its end */
    uint32_t bakeoff;
    uint32_t part;             /* c·N + k: what the timed call runs */
    uint64_t weight[JIT_MAX_POINTS];   /* Σ weights of each marker's events in this call */
    uint64_t last;             /* cycle counter at the end of the previous event */
    /* consecutive events of one region not yet in the ring */
    uint32_t pend_region, pend_n;
    int64_t pend_c;
    uint64_t pend_w;
} Frame;

/* The thread's timed calls with loop timings, innermost last: an event
 * belongs to the innermost, if of its bakeoff (a recursive call runs in
 * its caller's variant, inside the same frame). */
static __thread Frame frames[MAX_FRAMES];
static __thread int depth;
static __thread AuSampleBuffer *ring;
/* Calibration (au_loops_calibrate): the frame's bakeoff while the
 * calibration loop runs, the regions it measured, and the result: the
 * cycles a stub adds to the region it closes, taken off every event. */
#define CALIBRATING UINT32_MAX
enum { CAL_EVENTS = 2001 };
static uint64_t cal[CAL_EVENTS];
static int ncal;
static int64_t stub_cycles;

static inline uint64_t tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return (uint64_t)hi << 32 | lo;
}

void au_loops_enter(void *ctx, uint32_t bakeoff, uint32_t part)
{
    if (!ring)
        ring = au_samples_thread();
    if (depth < MAX_FRAMES)
        frames[depth] = (Frame){.code = ctx, .bakeoff = bakeoff, .part = part};
    depth++;
    if (depth <= MAX_FRAMES)
        frames[depth - 1].last = tsc();
}

/* The frame's pending events as one sample; false (kept) if the ring is full. */
__attribute__((target("general-regs-only"))) static bool flush(Frame *f)
{
    if (!f->pend_n)
        return true;
    uint64_t w = f->pend_w > UINT32_MAX ? UINT32_MAX : f->pend_w;
    if (!au_sample_push(ring, f->bakeoff, f->part | f->pend_region << AU_SAMPLE_REGION_SHIFT,
                        f->pend_c > 0 ? (uint64_t)f->pend_c : 0, (uint32_t)w))
        return false;
    f->pend_n = 0;
    f->pend_c = 0;
    f->pend_w = 0;
    return true;
}

__attribute__((target("general-regs-only"))) void au_loops_event(const void *ctx, uint64_t weight, uint64_t now)
{
    const AuLoopPoint *p = ctx;
    if (depth < 1 || depth > MAX_FRAMES)
        return;
    Frame *f = &frames[depth - 1];
    uint32_t id = __atomic_load_n(p->bakeoff, __ATOMIC_RELAXED);
    if (f->bakeoff != id || weight == 0)
        return;   /* weight 0: a store that did not move the marker; its time goes on */
    uint64_t c = now - f->last;
    if (p->region >= 2 && p->region - 2u < JIT_MAX_POINTS)
        f->weight[p->region - 2] += weight;
    if (id == CALIBRATING) {
        if (ncal < CAL_EVENTS)
            cal[ncal++] = c;
    } else if (ring) {
        /* a full ring keeps the events pending (summed on): none is lost
         * unless another region's event comes first */
        if (f->pend_n && (f->pend_region != p->region || f->pend_n >= AGGREGATE) && !flush(f) &&
            f->pend_region != p->region) {
            f->pend_n = 0;
            f->pend_c = 0;
            f->pend_w = 0;
        }
        f->pend_region = p->region;
        f->pend_n++;
        f->pend_c += (int64_t)c - stub_cycles;
        f->pend_w += weight;
    }
    f->last = tsc();   /* the next region starts here: the sink's own time is no region's */
}

/* Naive timings: a plain C call gcc saw, with the point; one execution. */
void au_loops_naive(uint32_t point)
{
    uint64_t now = tsc();
    if (depth < 1 || depth > MAX_FRAMES || !ring)
        return;
    Frame *f = &frames[depth - 1];
    if (point < JIT_MAX_POINTS)
        f->weight[point]++;
    au_sample_push(ring, f->bakeoff, f->part | (2 + point) << AU_SAMPLE_REGION_SHIFT, now - f->last, 1);
    f->last = tsc();   /* the push is the timer's cost, not the region's */
}

bool au_loops_exit(uint32_t bakeoff, uint32_t variant, uint64_t cycles, uint32_t weight)
{
    uint64_t now = tsc();
    bool ok = true;
    if (depth >= 1 && depth <= MAX_FRAMES && frames[depth - 1].bakeoff == bakeoff && ring) {
        Frame *f = &frames[depth - 1];
        AuLoopCode *code = f->code;
        /* the call's exact counts, whatever the ring kept of its events */
        if (code && f->part < (uint32_t)code->nparts) {
            for (uint32_t k = 0; k < code->npoints && k < JIT_MAX_POINTS; k++) {
                uint64_t *t = &code->total[(size_t)f->part * code->npoints + k];
                __atomic_store_n(t, *t + f->weight[k], __ATOMIC_RELAXED);
            }
            __atomic_store_n(&code->calls[f->part], code->calls[f->part] + 1, __ATOMIC_RELAXED);
        }
        ok = flush(f);
        ok = au_sample_push(ring, bakeoff, variant | 1u << AU_SAMPLE_REGION_SHIFT, now - f->last, 1) && ok;
        ok = au_sample_push(ring, bakeoff, variant, cycles, weight) && ok;
    }
    if (depth > 0)
        depth--;
    return ok;
}

/* ---- calibration: a stub's cycles inside a region ------------------------ */

/* A loop of n marker events and nothing else, rewritten timed as every
 * bakeoff's code is: each of its regions is one stub's cycles outside
 * the sink (call, register saves, counter read before; the sink's return,
 * restores after), which a region of any marked code holds once. */
static const char cal_text[] = "\t.text\n\t.globl\ttally_mk_cal\n\t.type\ttally_mk_cal, @function\n"
                               "tally_mk_cal:\n.Lmkcal:\n\taddq\t$1, tally_mk_cal_mk0(%rip)\n\tsubq\t$1, %rdi\n"
                               "\tjne\t.Lmkcal\n\tret\n\t.size\ttally_mk_cal, .-tally_mk_cal\n"
                               "\t.local\ttally_mk_cal_mk0\n\t.comm\ttally_mk_cal_mk0,8,8\n";

static const uint32_t cal_id = CALIBRATING;
static const AuLoopPoint cal_point = {&cal_id, 0, 2};
static pthread_once_t cal_once = PTHREAD_ONCE_INIT;
static double overhead = -1;   /* cycles; −1: calibration failed */
static char cal_error[128];

static const void *cal_ctx(void *arg, const MkMap *map, uint32_t i)
{
    (void)arg, (void)map, (void)i;
    return &cal_point;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void calibrate(void)
{
    VmError err = {{0}};
    MkMap map;
    VmBuf text = {0};
    if (!mk_scan(cal_text, sizeof cal_text - 1, &map, &err)) {
        snprintf(cal_error, sizeof cal_error, "%.120s", err.msg);
        return;
    }
    MkStubSpec spec = {.sink = au_loops_event, .every = 1, .ctx_of = cal_ctx};   /* the full stub's cycles */
    bool ok = mk_rewrite_timed(cal_text, sizeof cal_text - 1, &map, &spec, &text, &err);
    mk_map_free(&map);
    void (*loop)(long) = ok ? (void (*)(long))jit_load_asm((const char *)text.data, text.len, "tally_mk_cal", &err) : NULL;
    vm_buf_free(&text);
    if (!loop) {
        snprintf(cal_error, sizeof cal_error, "%.120s", err.msg);
        return;
    }
    ncal = 0;
    au_loops_enter(NULL, CALIBRATING, 0);
    loop(CAL_EVENTS);
    depth--;
    if (ncal < 2) {
        snprintf(cal_error, sizeof cal_error, "calibration loop gave %d events", ncal);
        return;
    }
    /* the first region holds the call itself: the rest, by median */
    qsort(cal + 1, (size_t)ncal - 1, sizeof *cal, cmp_u64);
    overhead = (double)cal[1 + (ncal - 1) / 2];
    __atomic_store_n(&stub_cycles, (int64_t)overhead, __ATOMIC_RELAXED);
}

bool au_loops_calibrate(double *cycles, VmError *err)
{
    pthread_once(&cal_once, calibrate);
    *cycles = overhead > 0 ? overhead : 0;
    return overhead >= 0 ? true : vm_fail(err, "loop timings cannot be calibrated: %s", cal_error);
}

/* ---- the code: markers' points and the rewrite --------------------------- */

AuLoopCode *au_loops_code_new(const uint32_t *bakeoff, int nvariants, int copies, uint32_t npoints, bool dump)
{
    int nparts = nvariants * copies;
    AuLoopCode *c = calloc(1, sizeof *c + (size_t)nparts * npoints * sizeof(AuLoopPoint));
    if (!c)
        return NULL;
    c->map = calloc((size_t)nvariants * npoints, sizeof *c->map);
    c->total = calloc((size_t)nparts * npoints, sizeof *c->total);
    c->calls = calloc((size_t)nparts, sizeof *c->calls);
    if (!c->map || !c->total || !c->calls) {
        free(c->map);
        free(c->total);
        free(c->calls);
        free(c);
        return NULL;
    }
    c->nvariants = nvariants;
    c->nparts = nparts;
    c->npoints = npoints;
    c->dump = dump;
    for (int part = 0; part < nparts; part++)
        for (uint32_t k = 0; k < npoints; k++)
            c->point[(size_t)part * npoints + k] = (AuLoopPoint){bakeoff, (uint16_t)part, (uint16_t)(2 + k)};
    return c;
}

typedef struct Rewriting {
    AuLoopCode *code;
    int part;
} Rewriting;

static const void *ctx_of(void *arg, const MkMap *map, uint32_t i)
{
    Rewriting *rw = arg;
    const MkMarker *mk = &map->markers[i];
    if (mk->refused || mk->k >= rw->code->npoints || rw->part < 0 || rw->part >= rw->code->nparts)
        return NULL;
    return &rw->code->point[(size_t)rw->part * rw->code->npoints + mk->k];
}

bool au_loops_rewrite(void *ctx, int part, const char *text, size_t len, VmBuf *out, VmError *err)
{
    AuLoopCode *code = ctx;
    MkMap map;
    if (!mk_scan(text, len, &map, err))
        return false;
    for (uint32_t i = 0; i < map.nmarkers; i++) {
        code->sites += map.markers[i].nsites;
        code->refused += map.markers[i].refused;
        if (part >= 0 && part < code->nvariants && map.markers[i].k < code->npoints)
            code->map[(size_t)part * code->npoints + map.markers[i].k].refused = map.markers[i].refused;
    }
    for (uint32_t i = 0; i < map.nsites && part >= 0 && part < code->nvariants; i++) {
        const MkSite *site = &map.sites[i];
        uint32_t k = map.markers[site->marker].k;
        if (k >= code->npoints)
            continue;
        AuMarkerSites *m = &code->map[(size_t)part * code->npoints + k];
        m->sites++;
        m->in_loop += site->where == MK_IN_LOOP;
        m->at_exit += site->where == MK_LOOP_EXIT;
        m->straight += site->where == MK_STRAIGHT;
        m->guarded += site->guarded;
    }
    if (code->dump) {
        fprintf(stderr, "=== markers: part %d\n", part);
        mk_map_dump(&map, stderr);
    }
    Rewriting rw = {code, part};
    MkStubSpec spec = {.sink = au_loops_event, .every = code->every, .ctx_of = ctx_of, .arg = &rw};
    bool ok = mk_rewrite_timed(text, len, &map, &spec, out, err);
    mk_map_free(&map);
    return ok;
}
