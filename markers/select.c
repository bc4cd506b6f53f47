/* markers/select.c — where a method's loops are timed: timing-point
 * selection (thesis Fig. III.15), the markers.everywhere plans, and the
 * static-cost distances between blocks that selection measures work by.
 *
 * Input: an IrFunc after ir_compile (blocks in reverse postorder with
 * counts and normalized frequencies, succs/preds, loops outermost first
 * with their nesting) and the MkTunables.  Output: an MkPlan, its points
 * ordered by block id so that marker K names the same point however the
 * plan is printed or compared; or no point and the reason.
 *
 * mk_select:
 * 1. No point for a method without a loop ("no loop"), without a profile
 *    ("no profile": its frequencies say nothing), or, unless forced, whose
 *    entry block's frequency is at least markers.entry_freq ("called
 *    often for its loops' work": method timings already come often).
 * 2. target = markers.target.  The loop tree is walked depth first:
 *    outermost loops in header order, each loop before its children.
 *    Only loops whose header is one of the method's own blocks count, and
 *    only own blocks are candidates: inline depth 0, origin the method, a
 *    bytecode pc (not a block the inliner made up) and a non-zero
 *    frequency.  Every variant of a bakeoff has those blocks whatever it
 *    inlines, so point K is the same source point in each.  A loop
 *    qualifies while its header's frequency exceeds the remaining target;
 *    then, among its candidate blocks (inner loops' blocks included), the
 *    one closest in frequency to the target (ties: the lower id) is
 *    chosen if its shortest cycle (mk_cost_distance(f, b, b)) and, for
 *    every point already chosen, the shorter of the distances to and from
 *    it are at least markers.min_cost; a block that fails is refused for
 *    good (the checks only grow stricter as points are added) and the
 *    next closest tried.  A choice subtracts its frequency from the
 *    target.  The walk ends when the target is met (≤ 0), max_points are
 *    chosen or the tree is done.
 *    Children are visited whether or not their parent qualified: an outer
 *    loop entered rarely, each entry running a long inner loop, has a
 *    cold header and a hot inner loop, and the inner loop is where the
 *    time goes.
 *    A point's loop is its block's innermost loop: a timing from one of
 *    its events to the next runs around that loop.
 * 3. No point although the method has loops: "every loop too tight" when
 *    some loop qualified but no candidate's cycle reached min_cost (the
 *    reason gives the longest shortest cycle seen), "no loop is hot
 *    enough" when none qualified (the hottest own header's frequency), "no
 *    loop of its own" when every loop came with inlined code.
 * Frequencies in reasons are in basis points, the tunables' unit.
 *
 * mk_cost_distance: Dijkstra over the CFG with the static cost of a block
 * (Σ ir_op_info[op].cost of its insns) paid on leaving it; edge counts
 * are ignored.  A binary heap with lazy deletion: each block has at most
 * two successors, so at most E + 1 ≤ 2·nblocks + 1 entries are pushed.
 * Selection runs it once per block it checks; the distances from each
 * chosen point are kept, so both directions between a candidate and a
 * point cost no further run.  Selection only asks whether a distance
 * reaches min_cost, so its runs stop there (a distance at or beyond the
 * bound reads UINT64_MAX) and explore only the blocks near the start,
 * however big the function.  Out of memory, mk_cost_distance answers
 * UINT64_MAX (no path found).
 *
 * Invariants: f is only read (no scratch marks), so plans may be made on
 * an IR that other threads read too; nothing here outlives a call but the
 * plan.
 */
#include "markers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- static-cost distances ---------------------------------------------- */

typedef struct MkHeapItem {
    uint64_t d;
    uint32_t v;
} MkHeapItem;

typedef struct MkGraph {
    const IrFunc *f;
    uint64_t *cost;            /* per block id: Σ static op costs */
    MkHeapItem *heap;          /* Dijkstra's queue, room for E + 1 */
    uint32_t nheap;
} MkGraph;

static bool graph_init(MkGraph *g, const IrFunc *f)
{
    memset(g, 0, sizeof *g);
    g->f = f;
    uint32_t nedges = 0;
    for (uint32_t i = 0; i < f->nblocks; i++)
        nedges += f->blocks[i]->nsuccs;
    g->cost = calloc(f->nblocks ? f->nblocks : 1, sizeof *g->cost);
    g->heap = malloc(((size_t)nedges + 1) * sizeof *g->heap);
    if (!g->cost || !g->heap)
        return false;
    for (uint32_t i = 0; i < f->nblocks; i++) {
        const IrBlock *b = f->blocks[i];
        for (uint32_t k = 0; k < b->ninsns; k++)
            g->cost[i] += b->insns[k].op < IR_OP_COUNT ? ir_op_info[b->insns[k].op].cost : 0;
    }
    return true;
}

static void graph_free(MkGraph *g)
{
    free(g->cost);
    free(g->heap);
    g->cost = NULL;
    g->heap = NULL;
}

static void heap_push(MkGraph *g, uint64_t d, uint32_t v)
{
    uint32_t i = g->nheap++;
    while (i > 0) {
        uint32_t up = (i - 1) / 2;
        if (g->heap[up].d <= d)
            break;
        g->heap[i] = g->heap[up];
        i = up;
    }
    g->heap[i] = (MkHeapItem){d, v};
}

static MkHeapItem heap_pop(MkGraph *g)
{
    MkHeapItem top = g->heap[0], last = g->heap[--g->nheap];
    uint32_t i = 0, n = g->nheap;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && g->heap[c + 1].d < g->heap[c].d)
            c++;
        if (last.d <= g->heap[c].d)
            break;
        g->heap[i] = g->heap[c];
        i = c;
    }
    if (n)
        g->heap[i] = last;
    return top;
}

/* dist[v] = the cost of the shortest path src → v, blocks left on the
 * way counted, v's not; 0 at src, UINT64_MAX where there is no path of
 * cost below bound.  A path's prefixes cost no more than it, so every
 * distance below the bound is exact. */
static void dijkstra(MkGraph *g, uint32_t src, uint64_t bound, uint64_t *dist)
{
    const IrFunc *f = g->f;
    for (uint32_t i = 0; i < f->nblocks; i++)
        dist[i] = UINT64_MAX;
    dist[src] = 0;
    g->nheap = 0;
    heap_push(g, 0, src);
    while (g->nheap) {
        MkHeapItem it = heap_pop(g);
        if (it.d > dist[it.v])
            continue;   /* a stale entry: v was reached cheaper since */
        const IrBlock *b = f->blocks[it.v];
        for (uint32_t k = 0; k < b->nsuccs; k++) {
            const IrBlock *w = b->succs[k];
            uint64_t d = it.d + g->cost[it.v];
            if (d < dist[w->id] && d < bound) {
                dist[w->id] = d;
                heap_push(g, d, w->id);
            }
        }
    }
}

/* The shortest cycle through a, given dist = forward distances from a:
 * back into a from any predecessor, paying that predecessor's cost. */
static uint64_t cycle_from(const MkGraph *g, uint32_t a, const uint64_t *dist)
{
    const IrBlock *b = g->f->blocks[a];
    uint64_t best = UINT64_MAX;
    for (uint32_t k = 0; k < b->npreds; k++) {
        uint32_t p = b->preds[k]->id;
        if (dist[p] != UINT64_MAX && dist[p] + g->cost[p] < best)
            best = dist[p] + g->cost[p];
    }
    return best;
}

uint64_t mk_cost_distance(const IrFunc *f, uint32_t a, uint32_t b)
{
    if (a >= f->nblocks || b >= f->nblocks)
        return UINT64_MAX;
    MkGraph g;
    uint64_t *dist = malloc(f->nblocks * sizeof *dist);
    uint64_t r = UINT64_MAX;
    if (graph_init(&g, f) && dist) {
        dijkstra(&g, a, UINT64_MAX, dist);
        r = a == b ? cycle_from(&g, a, dist) : dist[b];
    }
    graph_free(&g);
    free(dist);
    return r;
}

/* ---- selection ------------------------------------------------------------ */

enum { MK_OPEN, MK_CHOSEN, MK_REFUSED };

typedef struct MkSel {
    MkGraph g;
    uint64_t min_cost;
    uint32_t max_points;
    uint8_t *state;            /* per block: MK_OPEN, MK_CHOSEN, MK_REFUSED */
    uint64_t *dist;            /* distances from the block being checked */
    uint64_t **from;           /* per point k: distances from it */
    double target;             /* what remains of markers.target */
    bool own_loops;            /* some loop has an own header */
    bool qualified;            /* some loop's header beat the target */
    uint64_t longest_cycle;    /* the longest shortest cycle below min_cost */
    double hottest;            /* the hottest own header's frequency */
    MkPlan *out;
} MkSel;

static bool own_block(const IrFunc *f, const IrBlock *b)
{
    return b->depth == 0 && b->origin == f->method && b->pc != UINT32_MAX;
}

static bool sel_done(const MkSel *s)
{
    return s->target <= 0 || s->out->n >= s->max_points;
}

/* Whether b passes the distance checks: its own cycle and, both ways, the
 * points chosen so far.  Leaves the distances from b in s->dist. */
static bool far_enough(MkSel *s, const IrBlock *b)
{
    dijkstra(&s->g, b->id, s->min_cost, s->dist);
    uint64_t cyc = cycle_from(&s->g, b->id, s->dist);
    if (cyc < s->min_cost) {
        if (cyc > s->longest_cycle)
            s->longest_cycle = cyc;
        return false;
    }
    for (uint32_t k = 0; k < s->out->n; k++) {
        uint64_t there = s->dist[s->out->v[k].block], back = s->from[k][b->id];
        if ((there < back ? there : back) < s->min_cost)
            return false;
    }
    return true;
}

/* One choice in lp: 1 chosen, 0 none qualifies, -1 out of memory. */
static int pick(MkSel *s, const IrLoop *lp)
{
    for (;;) {
        const IrBlock *best = NULL;
        double best_gap = 0;
        for (uint32_t k = 0; k < lp->nblocks; k++) {
            const IrBlock *b = lp->blocks[k];
            double gap = fabs(b->freq - s->target);
            if (s->state[b->id] == MK_OPEN && (!best || gap < best_gap || (gap == best_gap && b->id < best->id))) {
                best = b;
                best_gap = gap;
            }
        }
        if (!best)
            return 0;
        if (!far_enough(s, best)) {
            s->state[best->id] = MK_REFUSED;
            continue;
        }
        uint32_t k = s->out->n;
        s->from[k] = malloc(s->g.f->nblocks * sizeof **s->from);
        if (!s->from[k])
            return -1;
        memcpy(s->from[k], s->dist, s->g.f->nblocks * sizeof *s->dist);
        s->state[best->id] = MK_CHOSEN;
        s->out->v[s->out->n++] = (MkPoint){best->id, best->pc, best->depth,
                                           best->loop ? (int32_t)best->loop->id : (int32_t)lp->id, best->freq};
        s->target -= best->freq;
        return 1;
    }
}

static bool walk(MkSel *s, const IrLoop *lp)
{
    if (sel_done(s))
        return true;
    const IrFunc *f = s->g.f;
    if (own_block(f, lp->header)) {
        s->own_loops = true;
        if (lp->header->freq > s->hottest)
            s->hottest = lp->header->freq;
        while (!sel_done(s) && lp->header->freq > s->target) {
            s->qualified = true;
            int r = pick(s, lp);
            if (r < 0)
                return false;
            if (r == 0)
                break;
        }
    }
    for (uint32_t c = 0; c < lp->nchildren; c++)
        if (!walk(s, lp->children[c]))
            return false;
    return true;
}

static int cmp_points(const void *x, const void *y)
{
    const MkPoint *a = x, *b = y;
    return a->block < b->block ? -1 : a->block > b->block;
}

static void sel_free(MkSel *s)
{
    for (uint32_t k = 0; s->from && k < s->max_points; k++)
        free(s->from[k]);
    free(s->from);
    free(s->state);
    free(s->dist);
    graph_free(&s->g);
}

/* Walks f's loop tree into out (whose v has room for s->max_points). */
static bool select_points(MkSel *s, const IrFunc *f)
{
    uint32_t n = f->nblocks;
    s->state = malloc(n);
    s->dist = malloc(n * sizeof *s->dist);
    s->from = calloc(s->max_points, sizeof *s->from);
    if (!graph_init(&s->g, f) || !s->state || !s->dist || !s->from)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        const IrBlock *b = f->blocks[i];
        s->state[i] = own_block(f, b) && b->freq > 0 ? MK_OPEN : MK_REFUSED;
    }
    for (uint32_t i = 0; i < f->nloops; i++)
        if (!f->loops[i]->parent && !walk(s, f->loops[i]))
            return false;
    return true;
}

bool mk_select(const IrFunc *f, const MkTunables *tun, bool forced, MkPlan *out)
{
    memset(out, 0, sizeof *out);
    out->entry_freq = f->nblocks ? f->blocks[0]->freq : 0;
    if (!f->nloops) {
        snprintf(out->reason, sizeof out->reason, "no loop");
        return true;
    }
    if (!f->has_counts) {
        snprintf(out->reason, sizeof out->reason, "no profile");
        return true;
    }
    if (!forced && out->entry_freq >= tun->entry_freq) {
        snprintf(out->reason, sizeof out->reason,
                 "called often for its loops' work (entry frequency %.4g bp ≥ markers.entry_freq %.4g bp)",
                 out->entry_freq * 1e4, tun->entry_freq * 1e4);
        return true;
    }
    /* max_points within its row's bounds (markers_tunables.def), whoever set it */
    MkSel s = {
        .min_cost = tun->min_cost > 0 ? (uint64_t)tun->min_cost : 0,
        .max_points = tun->max_points < 1 ? 1 : tun->max_points > 64 ? 64 : (uint32_t)tun->max_points,
        .target = tun->target,
        .out = out,
    };
    out->v = calloc(s.max_points, sizeof *out->v);
    bool ok = out->v && select_points(&s, f);
    sel_free(&s);
    if (!ok) {
        mk_plan_free(out);
        snprintf(out->reason, sizeof out->reason, "out of memory");
        return false;
    }
    qsort(out->v, out->n, sizeof *out->v, cmp_points);
    if (out->n)
        return true;
    if (s.qualified)
        snprintf(out->reason, sizeof out->reason, "every loop too tight (shortest cycle %llu < markers.min_cost %llu)",
                 (unsigned long long)s.longest_cycle, (unsigned long long)s.min_cost);
    else if (s.own_loops)
        snprintf(out->reason, sizeof out->reason,
                 "no loop is hot enough (header frequency %.4g bp ≤ markers.target %.4g bp)", s.hottest * 1e4,
                 tun->target * 1e4);
    else
        snprintf(out->reason, sizeof out->reason, "no loop of its own (every loop is inlined code)");
    return true;
}

/* ---- markers.everywhere --------------------------------------------------- */

bool mk_select_every(const IrFunc *f, bool blocks, MkPlan *out)
{
    memset(out, 0, sizeof *out);
    out->entry_freq = f->nblocks ? f->blocks[0]->freq : 0;
    out->v = calloc(f->nblocks ? f->nblocks : 1, sizeof *out->v);
    if (!out->v) {
        snprintf(out->reason, sizeof out->reason, "out of memory");
        return false;
    }
    for (uint32_t i = 0; i < f->nblocks; i++) {
        const IrBlock *b = f->blocks[i];
        bool header = b->loop && b->loop->header == b;
        if (!blocks && !header)
            continue;
        int32_t loop = b->loop ? (int32_t)b->loop->id : -1;
        out->v[out->n++] = (MkPoint){b->id, b->pc, b->depth, loop, b->freq};
    }
    if (!out->n)
        snprintf(out->reason, sizeof out->reason, "no loop");
    return true;
}

void mk_plan_free(MkPlan *p)
{
    free(p->v);
    p->v = NULL;
    p->n = 0;
}
