/* ir/escape.c — objects that never leave the compiled call live in its
 * stack frame (NEW → NEWL, NEWA → NEWAL, CLOS → CLOSL).
 *
 * Input: IR after cfg, inline and loops (succs/preds, RPO; inlining done,
 * so a temporary built by an inlined constructor and read by inlined
 * getters, or a closure whose call was inlined, is visible as such).
 * Output: some NEW/NEWA/CLOS insns rewritten to NEWL/NEWAL/CLOSL,
 * f->nslots of them, and a verdict per site in f->sites (for the dumps);
 * nothing else changes.
 *
 * Why: on the object-heavy programs the collector takes 26-59% of the
 * compiled code's time, and an object that only lives during one call
 * need not come from the heap at all.  The back end gives each such insn
 * a fixed block of the C frame laid out as the heap object (header +
 * fields, elements or captures), so every other op (GETF, PUTF, AGET,
 * APUT, ALEN, LDCAP, guards, ISA, CAST, identity compares) works on it
 * unchanged, the collector scans it with the stack, and gcc's scalar
 * replacement can keep its fields in registers.
 *
 * The analysis is flow-sensitive over the reference locals.  Each NEW of
 * a small enough class, each NEWA of a constant length (an LDI, through
 * copies, earlier in its block or in the blocks that alone lead to it)
 * small enough, and each CLOS is a site (at most 63 per
 * function).  A forward dataflow gives, at every point, the sites each
 * local may hold, plus a HEAP bit for anything else (a parameter, a call's
 * result; every loop header adds HEAP to the method's own registers, as
 * an OSR entry carries the interpreter's objects in), and what the fields
 * and elements of each NEW/NEWA site's object may hold (one set for all of
 * them; a field read gives that set plus HEAP).  Then:
 * - A guard (GUARD_CLASS, GUARD_FN) sends the objects of its class, or the
 *   closures of its lambda, to the inlined side, so on the slow side the
 *   receiver and its copies made in the guard's block hold none of those
 *   sites: the real call there lets out only what it can really get.  When
 *   its receiver can then hold nothing at all, it is null: the call raises
 *   before the callee runs, reads no argument and returns nothing.  That
 *   is also the case when the receiver's declared class is the guard's
 *   and no class extends it.
 * - A site escapes when a local that may hold it is used other than as:
 *   the object of GETF/PUTF, the array of an element op or ALEN, the
 *   closure of LDCAP, a MOV/CAST source, an operand of REQ, RNE, ISA or a
 *   guard, a null test (BR NULL, NNULL), the value stored by PUTF/APUTR
 *   into frame objects only (it escapes with them), or an argument of a
 *   CALL, CALLV or CALLF that its callees' summaries (ir/argesc.c) say
 *   keep it and what it leads to for as many loads as the caller's frame
 *   objects go deep.  What a closure made here captures escapes only if
 *   the closure does, or its lambda lets it out when a callee calls it.
 * - One slot per site: when a site runs again, the object it made before
 *   must be dead, so no live local may reach it, directly or through the
 *   captures and fields of frame objects, just before it.  A NEW clears
 *   what its site's fields hold (the new object's are null) only when
 *   that holds; the sites where it does not are made weak and the
 *   analysis is run again, until no more are found.
 * Invariants: a frame object is referenced only from locals, from other
 * frame objects and from heap objects that themselves never escape, and
 * at most one object per slot is live; a failed check leaves the insn as
 * it was.  Run-time errors are fatal in tally (no handler sees the
 * locals).
 */
#include "ir.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SLOT_MAX_WORDS = 66,      /* larger objects stay on the heap (an
                                    array of 64 elements fits, as in C2) */
       FRAME_MAX_WORDS = 512,    /* at most 4 KB of slots per function */
       MAX_SITES = 63,           /* bit 63 is HEAP */
       MAX_STATE = 1 << 21,      /* blocks x (reference locals + sites), else give up */
       SAME_MAX = 16 };          /* copies of a guard's receiver followed */

#define HEAP (1ull << 63)

/* What a block ending in a guard passes to the guard's slow side, worked
 * out once (it depends on the block, not on the dataflow state). */
typedef struct SlowSide {
    bool known;
    bool null;                   /* the receiver can only be null there */
    uint32_t n;
    int32_t same[SAME_MAX];      /* the receiver and its copies */
} SlowSide;

typedef struct Esc {
    IrFunc *f;
    int32_t *dense;              /* local -> tracked index, -1 if not a reference */
    uint32_t ntracked, words;    /* liveness bitsets: 64-bit words */
    uint32_t nstate;             /* a state: the tracked locals, then per
                                    NEW/NEWA site what its fields hold */
    uint64_t weak;               /* sites whose NEW does not clear that */
    const IrInsn *site[MAX_SITES];
    uint32_t nsites;
    uint64_t *holds_in;          /* per block, a state: sites | HEAP */
    uint64_t *live_in;           /* per block: tracked locals live on entry */
    uint64_t escaped;
    const IrInsn *why[MAX_SITES];   /* the first insn letting a site out */
    struct SlowSide *slow;          /* per block: its guard's slow side */
    uint64_t *caps[MAX_SITES];      /* CLOS sites: what each capture may hold */
    uint64_t fld[MAX_SITES];        /* NEW, NEWA sites: what their fields or
                                       elements ever hold (all fields as one) */
    bool caps_grew;
} Esc;

static bool call_like(const IrInsn *in)
{
    return ir_op_info[in->op].flags & IR_OPF_ARGS;
}

/* Runs body with l = each local `in` reads and use_ = its operand index. */
#define FOR_USES(in, l, body)                                                        \
    do {                                                                             \
        if (call_like(in)) {                                                         \
            for (int64_t u_ = 0; (in)->src[0] >= 0 && u_ < (in)->imm.i; u_++) {      \
                int32_t l = (in)->src[0] + (int32_t)u_;                              \
                int use_ = (int)u_;                                                  \
                (void)use_;                                                          \
                body;                                                                \
            }                                                                        \
        } else {                                                                     \
            for (int use_ = 0; use_ < ir_op_info[(in)->op].nsrc; use_++) {           \
                int32_t l = (in)->src[use_];                                         \
                if (l < 0)                                                           \
                    continue;                                                        \
                (void)use_;                                                          \
                body;                                                                \
            }                                                                        \
        }                                                                            \
    } while (0)

static uint64_t held(const Esc *e, const uint64_t *h, int32_t l)
{
    return l >= 0 && (uint32_t)l < e->f->nlocals && e->dense[l] >= 0 ? h[e->dense[l]] : 0;
}

/* The sites in `m` not made as `c`: of another class (NEW), or closures
 * of another lambda (CLOS); what a guard for c sends to its slow side. */
static uint64_t not_made_as(const Esc *e, uint64_t m, const void *c)
{
    uint64_t r = 0;
    for (uint32_t s = 0; s < e->nsites; s++)
        if ((m >> s & 1) && e->site[s]->aux != c)
            r |= 1ull << s;
    return r;
}

/* The locals equal to the guard's receiver at the end of b: copies of
 * one value made in b (an inlined call's arguments are such copies),
 * found by numbering values along b's MOVs and CASTs.  Fills ss->same
 * (at most SAME_MAX: missing some only loses precision, never
 * correctness). */
static int64_t value_of(const int32_t *wl, const int64_t *wv, uint32_t nw, int32_t l)
{
    for (uint32_t i = nw; i-- > 0;)
        if (wl[i] == l)
            return wv[i];
    return l;   /* not written in b: its value on entry */
}

static void same_as_receiver(Esc *e, const IrBlock *b, int32_t recv, SlowSide *ss)
{
    IrFunc *f = e->f;
    int32_t *wl = ir_alloc(f, (b->ninsns + 1) * sizeof *wl);
    int64_t *wv = ir_alloc(f, (b->ninsns + 1) * sizeof *wv);
    uint32_t nw = 0;
    for (uint32_t k = 0; k < b->ninsns; k++) {
        const IrInsn *in = &b->insns[k];
        if (in->dst < 0)
            continue;
        bool copy = (in->op == IR_MOV || in->op == IR_CAST) && in->src[0] >= 0;
        wv[nw] = copy ? value_of(wl, wv, nw, in->src[0]) : (int64_t)f->nlocals + k;
        wl[nw++] = in->dst;
    }
    /* only recv itself and locals written in b can hold recv's value */
    int64_t v = value_of(wl, wv, nw, recv);
    ss->n = 0;
    ss->same[ss->n++] = recv;
    for (uint32_t i = 0; i < nw && ss->n < SAME_MAX; i++) {
        bool seen = false;
        for (uint32_t j = 0; j < ss->n; j++)
            seen |= ss->same[j] == wl[i];
        if (!seen && value_of(wl, wv, nw, wl[i]) == v)
            ss->same[ss->n++] = wl[i];
    }
}

/* A virtual or interface call whose receiver can only be null (a guard's
 * slow side took away every object it could hold): it raises before the
 * callee runs, so it reads no argument and returns nothing. */
static bool null_call(const Esc *e, const IrInsn *in, const uint64_t *h)
{
    return (in->op == IR_CALLV || in->op == IR_CALLI || in->op == IR_CALLF) && in->src[0] >= 0 &&
           e->dense[in->src[0]] >= 0 &&
           !h[e->dense[in->src[0]]];
}

/* What capture k of the closures in m may hold: HEAP for a closure not
 * made here. */
static uint64_t capture(const Esc *e, uint64_t m, int64_t k)
{
    uint64_t v = m & HEAP;
    for (uint32_t s = 0; s < e->nsites; s++)
        if ((m >> s & 1) && e->caps[s])
            v |= k >= 0 && k < e->site[s]->imm.i ? e->caps[s][k] : HEAP;
    return v;
}

/* The sites the objects in m may hold: in captures or fields. */
static uint64_t contents(const Esc *e, uint64_t m)
{
    uint64_t v = 0;
    for (uint32_t s = 0; s < e->nsites; s++)
        if (m >> s & 1) {
            v |= e->fld[s];
            for (int64_t k = 0; e->caps[s] && k < e->site[s]->imm.i; k++)
                v |= e->caps[s][k];
        }
    return v & ~HEAP;
}

/* m and every site reachable from it through captures and fields. */
static uint64_t reach(const Esc *e, uint64_t m)
{
    m &= ~HEAP;
    for (uint64_t prev = 0; prev != m;) {
        prev = m;
        m |= contents(e, m);
    }
    return m;
}

/* m and every site reachable from it at a point of state h. */
static uint64_t reach_at(const Esc *e, const uint64_t *h, uint64_t m)
{
    m &= ~HEAP;
    for (uint64_t prev = 0; prev != m;) {
        prev = m;
        for (uint32_t s = 0; s < e->nsites; s++)
            if (m >> s & 1) {
                if (!e->caps[s])
                    m |= h[e->ntracked + s] & ~HEAP;
                for (int64_t k = 0; e->caps[s] && k < e->site[s]->imm.i; k++)
                    m |= e->caps[s][k] & ~HEAP;
            }
    }
    return m;
}

/* What a field or element read from the objects in m may give: anything
 * from the heap, and the sites stored in them here. */
static uint64_t loaded(const Esc *e, const uint64_t *h, uint64_t m)
{
    uint64_t v = HEAP;
    for (uint32_t s = 0; s < e->nsites; s++)
        if ((m >> s & 1) && !e->caps[s])
            v |= h[e->ntracked + s];
    return v;
}

/* A store of v into the objects in m (a frame object's field or element). */
static void store(Esc *e, uint64_t *h, uint64_t m, uint64_t v)
{
    for (uint32_t s = 0; s < e->nsites; s++)
        if ((m >> s & 1) && !e->caps[s]) {
            h[e->ntracked + s] |= v;
            e->fld[s] |= v;
        }
}

/* h: the state before insn k of b; becomes the state after it.  A CLOS
 * site also records what its captures may hold (monotone: caps_grew). */
static void transfer(Esc *e, const IrBlock *b, uint32_t k, uint64_t *h)
{
    const IrInsn *in = &b->insns[k];
    if (in->op == IR_CLOS && in->mark && e->caps[in->mark - 1])
        for (int64_t c = 0; c < in->imm.i; c++) {
            uint64_t v = held(e, h, in->src[0] + (int32_t)c), *cap = &e->caps[in->mark - 1][c];
            if (v & ~*cap) {
                *cap |= v;
                e->caps_grew = true;
            }
        }
    if (in->op == IR_PUTF)
        store(e, h, held(e, h, in->src[0]) & ~HEAP, held(e, h, in->src[1]));
    else if (in->op == IR_APUTR)
        store(e, h, held(e, h, in->src[0]) & ~HEAP, held(e, h, in->src[2]));
    /* a new object's fields are null; the site's earlier object is dead
     * unless the site is weak (ir_escape) */
    if ((in->op == IR_NEW || in->op == IR_NEWA) && in->mark && !(e->weak >> (in->mark - 1) & 1))
        h[e->ntracked + in->mark - 1] = 0;
    if (in->dst < 0 || e->dense[in->dst] < 0)
        return;
    uint64_t v = HEAP;
    if ((in->op == IR_NEW || in->op == IR_CLOS || in->op == IR_NEWA) && in->mark)
        v = 1ull << (in->mark - 1);
    else if (in->op == IR_GETF || in->op == IR_AGETR)
        v = loaded(e, h, held(e, h, in->src[0]));
    else if (in->op == IR_LDCAP)
        v = capture(e, held(e, h, in->src[0]), in->imm.i);
    else if (in->op == IR_MOV || in->op == IR_CAST)
        v = held(e, h, in->src[0]);
    else if (in->op == IR_ZERO || in->op == IR_LDNULL || null_call(e, in, h))
        v = 0;
    h[e->dense[in->dst]] = v;
}

/* The sites in m that a callee keeping them `depth` loads deep, and
 * calling them as closures when `invoked`, may let out (ir/argesc.c). */
static uint64_t let_out(const Esc *e, uint64_t m, int depth, bool invoked, int nest)
{
    m &= ~HEAP;
    if (!m)
        return 0;
    if (depth <= 0 || nest > IR_ARGESC_DEPTH)
        return reach(e, m);
    uint64_t out = 0;
    for (uint32_t s = 0; invoked && s < e->nsites; s++) {
        if (!(m >> s & 1) || e->site[s]->op != IR_CLOS)
            continue;
        VmMethod *lam = e->site[s]->aux;
        const IrArgEsc *a = ir_argesc(e->f, lam);
        if (!a->known || a->norig < lam->nparams + lam->ncaps || a->depth[0] == 0) {
            out |= reach(e, 1ull << s);
            continue;
        }
        for (int64_t k = 0; k < e->site[s]->imm.i; k++) {
            uint32_t o = lam->nparams + (uint32_t)k;
            out |= let_out(e, e->caps[s][k], a->depth[o], a->invoked >> o & 1, nest + 1);
        }
    }
    return out | let_out(e, contents(e, m), depth - 1, false, nest + 1);
}

/* The sites a call not inlined may let out: each argument meets what its
 * callees' summaries say of their parameter (a closure called: of its
 * lambda); an argument of a callee not known escapes. */
static uint64_t call_escapes(const Esc *e, const IrInsn *in, const uint64_t *h)
{
    VmMethod *t[16];
    uint32_t n = 0, first = 0;
    bool known = false;
    uint64_t out = 0;
    if (in->op == IR_CALL || in->op == IR_CALLV || in->op == IR_CALLI) {
        known = ir_call_targets(e->f, in, t, 16, &n);
    } else if (in->op == IR_CALLF) {
        uint64_t c = held(e, h, in->src[0]);
        known = c && !(c & HEAP);
        for (uint32_t s = 0; s < e->nsites && known; s++)
            if (c >> s & 1) {
                known = e->site[s]->op == IR_CLOS && n < 16;
                if (known)
                    t[n++] = e->site[s]->aux;
            }
        out |= let_out(e, c, IR_ARGESC_DEPTH, true, 0);
        first = 1;
    }
    for (int64_t u = first; in->src[0] >= 0 && u < in->imm.i; u++) {
        uint64_t m = held(e, h, in->src[0] + (int32_t)u) & ~HEAP;
        if (!m)
            continue;
        int depth = 0;
        bool inv = false;
        if (!known || !ir_argesc_param(e->f, t, n, (uint32_t)u, &depth, &inv))
            depth = 0, inv = false;
        out |= let_out(e, m, depth, inv, 0);
    }
    return out;
}

/* The sites whose objects insn k of b may let out of the frame. */
static uint64_t escaping(const Esc *e, const IrBlock *b, uint32_t k, const uint64_t *h)
{
    const IrInsn *in = &b->insns[k];
    uint64_t out = 0;
    if (null_call(e, in, h))
        return 0;
    if (in->op == IR_CLOS && in->mark)
        return 0;   /* captured: escapes with the closure (ir_escape) */
    if (in->op == IR_CALL || in->op == IR_CALLV || in->op == IR_CALLI || in->op == IR_CALLF)
        return call_escapes(e, in, h);
    FOR_USES(in, l, {
        uint64_t m = held(e, h, l) & ~HEAP;
        switch (in->op) {
        case IR_MOV: case IR_CAST: case IR_GETF: case IR_LDCAP: case IR_ISA: case IR_REQ: case IR_RNE: case IR_NCHK:
        case IR_GUARD_CLASS: case IR_GUARD_FN:   /* the slow side's state has none of them */
        case IR_ALEN: case IR_AGETI: case IR_AGETF: case IR_AGETB: case IR_AGETR:
            break;
        case IR_PUTF:   /* into a frame object: escapes with it (ir_escape) */
            out |= use_ == 0 || !(held(e, h, in->src[0]) & HEAP) ? 0 : m;
            break;
        case IR_APUTI: case IR_APUTF: case IR_APUTB: case IR_APUTR:
            out |= use_ != 2 || !(held(e, h, in->src[0]) & HEAP) ? 0 : m;
            break;
        case IR_BR:
            out |= in->cc == IR_CC_NULL || in->cc == IR_CC_NNULL ? 0 : m;
            break;
        default:
            out |= m;
        }
    });
    return out;
}

/* Does local l's declared type admit only objects of exactly class c (a
 * class no class of the module extends) or null?  The verifier keeps a
 * local within its type, so a guard for c fails on it only for null. */
static bool exactly(const IrFunc *f, int32_t l, const VmClass *c)
{
    const VmType *t = f->locals[l].type;
    if (!t || t->kind != VM_T_CLASS || t->cls != c || !f->module)
        return false;
    for (uint32_t i = 0; i < f->module->nclasses; i++)
        if (f->module->classes[i].superc == c)
            return false;
    return true;
}

/* The state b passes to its successor s: on a class guard's slow side the
 * receiver and its copies hold no object of the guarded class, and
 * nothing at all (null) when their type admits nothing else. */
static const uint64_t *edge_state(Esc *e, const IrBlock *b, const IrBlock *s, const uint64_t *h, uint64_t *tmp)
{
    const IrInsn *g = ir_terminator(b);
    if (!g || (g->op != IR_GUARD_CLASS && g->op != IR_GUARD_FN) || g->target[1] != s || g->target[0] == s ||
        g->src[0] < 0)
        return h;
    SlowSide *ss = &e->slow[b->id];
    if (!ss->known) {
        same_as_receiver(e, b, g->src[0], ss);
        ss->null = g->op == IR_GUARD_CLASS && exactly(e->f, g->src[0], g->aux);
        ss->known = true;
    }
    memcpy(tmp, h, e->nstate * sizeof *tmp);
    for (uint32_t i = 0; i < ss->n; i++) {
        int32_t l = ss->same[i];
        if (e->dense[l] >= 0)
            tmp[e->dense[l]] &= ss->null ? 0 : HEAP | not_made_as(e, tmp[e->dense[l]] & ~HEAP, g->aux);
    }
    return tmp;
}

/* Forward "which sites may a local hold", a union over predecessors. */
static void holdings(Esc *e)
{
    e->caps_grew = true;
    IrFunc *f = e->f;
    uint32_t n = e->nstate;
    for (uint32_t l = 0; l < f->nparams && l < f->nlocals; l++)
        if (e->dense[l] >= 0)
            e->holds_in[(size_t)f->blocks[0]->id * n + e->dense[l]] = HEAP;
    uint32_t own = f->method ? f->method->nregs : 0;
    for (uint32_t i = 0; i < f->nloops; i++)
        for (uint32_t l = 0; l < own && l < f->nlocals; l++)
            if (e->dense[l] >= 0)
                e->holds_in[(size_t)f->loops[i]->header->id * n + e->dense[l]] |= HEAP;
    uint64_t *h = ir_alloc(f, n * sizeof *h), *tmp = ir_alloc(f, n * sizeof *tmp);
    for (bool changed = true; changed;) {
        changed = e->caps_grew;
        e->caps_grew = false;
        for (uint32_t i = 0; i < f->nblocks; i++) {
            const IrBlock *b = f->blocks[i];
            memcpy(h, &e->holds_in[(size_t)b->id * n], n * sizeof *h);
            for (uint32_t k = 0; k < b->ninsns; k++)
                transfer(e, b, k, h);
            for (uint32_t s = 0; s < b->nsuccs; s++) {
                uint64_t *in = &e->holds_in[(size_t)b->succs[s]->id * n];
                const uint64_t *x = edge_state(e, b, b->succs[s], h, tmp);
                for (uint32_t j = 0; j < n; j++)
                    if (x[j] & ~in[j]) {
                        in[j] |= x[j];
                        changed = true;
                    }
            }
        }
    }
}

static void bit_set(uint64_t *s, int32_t i) { s[i / 64] |= 1ull << (i % 64); }
static void bit_clear(uint64_t *s, int32_t i) { s[i / 64] &= ~(1ull << (i % 64)); }

/* Live tracked locals before insn `stop` of b, from live-out `live`. */
static void live_back(const Esc *e, const IrBlock *b, uint32_t stop, uint64_t *live)
{
    for (uint32_t k = b->ninsns; k-- > stop;) {
        const IrInsn *in = &b->insns[k];
        if (in->dst >= 0 && e->dense[in->dst] >= 0)
            bit_clear(live, e->dense[in->dst]);
        FOR_USES(in, l, {
            if (e->dense[l] >= 0)
                bit_set(live, e->dense[l]);
        });
    }
}

static void live_out(const Esc *e, const IrBlock *b, uint64_t *out)
{
    memset(out, 0, e->words * sizeof *out);
    for (uint32_t s = 0; s < b->nsuccs; s++)
        for (uint32_t j = 0; j < e->words; j++)
            out[j] |= e->live_in[(size_t)b->succs[s]->id * e->words + j];
}

/* Backward liveness of the tracked locals; blocks are in RPO, so going
 * through them in reverse converges in a few rounds. */
static void liveness(Esc *e)
{
    IrFunc *f = e->f;
    uint64_t *out = ir_alloc(f, e->words * sizeof *out);
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = f->nblocks; i-- > 0;) {
            const IrBlock *b = f->blocks[i];
            live_out(e, b, out);
            live_back(e, b, 0, out);
            uint64_t *in = &e->live_in[(size_t)b->id * e->words];
            if (memcmp(in, out, e->words * sizeof *out)) {
                memcpy(in, out, e->words * sizeof *out);
                changed = true;
            }
        }
    }
}

/* The constant length of NEWA insn k of b: set by an LDI, through copies,
 * earlier in b or in the blocks that alone lead to it (an inlined
 * factory's parameter); -1 if not known. */
enum { LENGTH_HOPS = 8 };

static int64_t const_length(const IrBlock *b, uint32_t k)
{
    int32_t l = b->insns[k].src[0];
    for (int hops = 0; b && l >= 0 && hops < LENGTH_HOPS; hops++) {
        for (uint32_t j = k; j-- > 0;) {
            const IrInsn *in = &b->insns[j];
            if (in->dst != l)
                continue;
            if (in->op == IR_LDI)
                return in->imm.i;
            if (in->op != IR_MOV)
                return -1;
            l = in->src[0];
        }
        /* a block with one predecessor runs only after it */
        b = b->npreds == 1 ? b->preds[0] : NULL;
        k = b ? b->ninsns : 0;
    }
    return -1;
}

/* The words of a site's object: NEW of a class, CLOS of a lambda, NEWA of
 * a constant length (len). */
static uint32_t words_of(const IrInsn *in, int64_t len)
{
    if (in->op == IR_NEWA && (len < 0 || len > SLOT_MAX_WORDS * (int64_t)sizeof(VmValue)))
        return UINT32_MAX;   /* too long for any slot */
    size_t bytes = in->op == IR_CLOS   ? vm_closure_size(in->aux)
                   : in->op == IR_NEWA ? vm_array_size(in->aux, len)
                                       : vm_object_size(in->aux);
    return (uint32_t)((bytes + sizeof(VmValue) - 1) / sizeof(VmValue));
}

void ir_escape(IrFunc *f)
{
    Esc e = {.f = f};
    uint32_t n = f->nlocals;
    if (!n)
        return;
    e.dense = ir_alloc(f, n * sizeof *e.dense);
    for (uint32_t l = 0; l < n; l++)
        e.dense[l] = f->locals[l].type && vm_type_is_ref(f->locals[l].type) ? (int32_t)e.ntracked++ : -1;

    /* the sites: mark = 1 + index, 0 for everything else */
    int64_t len[MAX_SITES];
    for (uint32_t i = 0; i < f->nblocks; i++)
        for (uint32_t k = 0; k < f->blocks[i]->ninsns; k++) {
            IrInsn *in = &f->blocks[i]->insns[k];
            in->mark = 0;
            int64_t n = in->op == IR_NEWA ? const_length(f->blocks[i], k) : 0;
            bool kind = in->op == IR_NEW || (in->op == IR_NEWA && n >= 0) ||
                        (in->op == IR_CLOS && in->aux && in->imm.i == (int64_t)((VmMethod *)in->aux)->ncaps);
            if (kind && in->aux && in->dst >= 0 && e.dense[in->dst] >= 0 && words_of(in, n) <= SLOT_MAX_WORDS &&
                e.nsites < MAX_SITES) {
                len[e.nsites] = n;
                if (in->op == IR_CLOS && in->imm.i > 0)
                    e.caps[e.nsites] = ir_alloc(f, (size_t)in->imm.i * sizeof(uint64_t));
                e.site[e.nsites] = in;
                in->mark = ++e.nsites;
            }
        }
    e.nstate = e.ntracked + e.nsites;
    if (!e.nsites || (uint64_t)f->nblocks * e.nstate > MAX_STATE)
        return;
    e.words = (e.ntracked + 63) / 64;
    e.holds_in = ir_alloc(f, (size_t)f->nblocks * e.nstate * sizeof *e.holds_in);
    e.slow = ir_alloc(f, (size_t)f->nblocks * sizeof *e.slow);
    e.live_in = ir_alloc(f, (size_t)f->nblocks * e.words * sizeof *e.live_in);
    liveness(&e);

    /* A site's NEW clears what its fields hold only where its earlier
     * object is dead; the sites found live again are made weak and the
     * analysis rerun, until no more are (they only grow). */
    uint64_t *h = ir_alloc(f, e.nstate * sizeof *h);
    uint64_t *live = ir_alloc(f, e.words * sizeof *live);
    uint64_t reused;   /* sites live again when they run */
    for (;;) {
        memset(e.holds_in, 0, (size_t)f->nblocks * e.nstate * sizeof *e.holds_in);
        memset(e.fld, 0, sizeof e.fld);
        for (uint32_t s = 0; s < e.nsites; s++)
            if (e.caps[s])
                memset(e.caps[s], 0, (size_t)e.site[s]->imm.i * sizeof(uint64_t));
        e.escaped = 0;
        reused = 0;
        holdings(&e);
        for (uint32_t i = 0; i < f->nblocks; i++) {
            const IrBlock *b = f->blocks[i];
            memcpy(h, &e.holds_in[(size_t)b->id * e.nstate], e.nstate * sizeof *h);
            for (uint32_t k = 0; k < b->ninsns; k++) {
                const IrInsn *in = &b->insns[k];
                uint64_t out = escaping(&e, b, k, h) & ~e.escaped;
                for (uint32_t s = 0; s < e.nsites; s++)
                    if (out >> s & 1)
                        e.why[s] = in;
                e.escaped |= out;
                if (in->mark) {
                    live_out(&e, b, live);
                    live_back(&e, b, k, live);
                    for (uint32_t j = 0; j < e.ntracked; j++)
                        if ((live[j / 64] >> (j % 64) & 1) && (h[j] & ~HEAP) &&
                            (reach_at(&e, h, h[j]) >> (in->mark - 1) & 1))
                            reused |= 1ull << (in->mark - 1);
                }
                transfer(&e, b, k, h);
            }
        }
        if (!(reused & ~e.weak))
            break;
        e.weak |= reused;
    }
    /* what an escaping closure captured, or an escaping object holds,
     * escapes with it */
    for (uint64_t prev = 0; prev != e.escaped;) {
        prev = e.escaped;
        for (uint32_t s = 0; s < e.nsites; s++)
            if (e.escaped >> s & 1) {
                uint64_t in = contents(&e, 1ull << s) & ~e.escaped;
                for (uint32_t t = 0; t < e.nsites; t++)
                    if (in >> t & 1)
                        e.why[t] = e.site[s];
                e.escaped |= in;
            }
    }

    uint32_t words = 0;
    f->sites = ir_alloc(f, e.nsites * sizeof *f->sites);
    f->nsites = e.nsites;
    for (uint32_t s = 0; s < e.nsites; s++) {
        IrInsn *in = (IrInsn *)e.site[s];
        IrSite *v = &f->sites[s];
        bool clos = in->op == IR_CLOS, arr = in->op == IR_NEWA;
        *v = (IrSite){.what = clos ? ((VmMethod *)in->aux)->name : arr ? "array" : ((VmClass *)in->aux)->name,
                      .closure = clos, .origin = in->origin, .pc = in->pc};
        in->mark = 0;
        const IrInsn *w = e.why[s];
        if (e.escaped >> s & 1)
            snprintf(v->reason, sizeof v->reason, "escapes: %s at %s@%u", ir_op_info[w->op].name,
                     w->origin ? w->origin->name : "?", w->pc);
        else if (reused >> s & 1)
            snprintf(v->reason, sizeof v->reason, "still live when it runs again");
        else if (words + words_of(in, len[s]) > FRAME_MAX_WORDS)
            snprintf(v->reason, sizeof v->reason, "frame full (%d words)", FRAME_MAX_WORDS);
        else {
            words += words_of(in, len[s]);
            in->op = clos ? IR_CLOSL : arr ? IR_NEWAL : IR_NEWL;
            if (arr) {
                in->imm.i = len[s];
                in->src[0] = IR_NONE;
            }
            v->stack = true;
            snprintf(v->reason, sizeof v->reason, "slot %u", f->nslots++);
        }
    }
}
