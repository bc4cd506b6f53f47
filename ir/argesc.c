/* ir/argesc.c — what a method that is called, not inlined, does with its
 * arguments: the summary ir/escape.c reads at a call, so an object the
 * caller keeps in its frame may be passed to a callee that only reads it.
 *
 * Input: a linked method (its IR is built here, without inlining).
 * Output: an IrArgEsc, memoized in the compiled function's arena: per
 * origin (each parameter; for a lambda, also each capture of its own
 * closure) the number of loads after which what it leads to may escape,
 * and whether the callee calls it as a closure.  Depth 0 means the
 * argument itself escapes; a Vector whose `storage` array is only read
 * and written, with its elements handed out, has depth 2.
 * Invariants: the analysis is flow-sensitive over the callee's blocks
 * and errs only towards "escapes": an origin reaching any use it does not
 * understand escapes at its depth, loads deeper than IR_ARGESC_DEPTH are
 * not followed (every origin escapes at that depth at the latest), a
 * method whose IR cannot be built is unknown, and a recursive method is
 * summarized under an assumption that is lowered until it holds
 * (summary()).
 *
 * What escapes: a value stored in a field, an array or a global, returned,
 * passed to a native or an interface call, or called with as an argument
 * of a closure whose lambda is not known here; the callees of CALL and
 * CALLV (every override in the module: class-hierarchy analysis) answer
 * for their own parameters, the lambdas of closures made here for their
 * captures.  A closure made here escapes with its captures unless it is
 * only called, here or by a callee that only calls it.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

enum { NONE = 0xff, MAX_TOKENS = 64, MAX_NEST = 6, MAX_ROUNDS = 8 };

/* Summaries of one compile, newest first: those made while a method was
 * being summarized are the ones in front of its entry. */
struct IrArgEscMemo {
    VmMethod *m;
    IrArgEsc s;
    IrArgEsc assumed;              /* what a recursive call sees meanwhile */
    bool busy, used;               /* being summarized; assumed was read */
    struct IrArgEscMemo *next;
};

/* What the locals may hold at one point: per reference local, the least
 * depth of each origin (NONE: not that origin), the closures made here,
 * and whether anything else. */
typedef struct State {
    uint8_t *dep;                  /* [local * norig + o] */
    uint64_t *tok;
    bool *other;
} State;

typedef struct Sum {
    IrFunc *f;                     /* the compiled function (arena, memo) */
    IrFunc *cf;                    /* the summarized method's IR, after cfg */
    uint32_t norig, nlocals;
    State *in;                     /* per block, on entry */
    State cur;                     /* at the insn being looked at */
    const IrInsn *clos[MAX_TOKENS];
    uint8_t *capdep[MAX_TOKENS];   /* what each capture held when made: */
    uint64_t *captok[MAX_TOKENS];  /*   [k * norig + o], per k */
    uint32_t ntok;
    uint64_t seen;                 /* tokens visited by the current flow */
    bool grew;                     /* a token's captures grew */
    IrArgEsc *out;
    int nest;
} Sum;

static const IrArgEsc unknown = {.known = false};

static const IrArgEsc *summary(IrFunc *f, VmMethod *m, int nest);

/* The origins of a lambda: its parameters, then its captures. */
static uint32_t origins_of(const VmMethod *m)
{
    return m->nparams + ((m->flags & VM_M_LAMBDA) ? m->ncaps : 0);
}

static uint8_t *dep(Sum *s, int32_t l)
{
    return &s->cur.dep[(size_t)l * s->norig];
}

/* Only references carry objects: an int read from a field is no origin. */
static bool valid(const Sum *s, int32_t l)
{
    return l >= 0 && (uint32_t)l < s->nlocals && s->cf->locals[l].type && vm_type_is_ref(s->cf->locals[l].type);
}

static State state_new(Sum *s)
{
    State t = {ir_alloc(s->f, (size_t)s->nlocals * s->norig + 1), ir_alloc(s->f, (s->nlocals + 1) * sizeof *t.tok),
               ir_alloc(s->f, (s->nlocals + 1) * sizeof *t.other)};
    memset(t.dep, NONE, (size_t)s->nlocals * s->norig + 1);
    return t;
}

static void state_copy(const Sum *s, State *to, const State *from)
{
    memcpy(to->dep, from->dep, (size_t)s->nlocals * s->norig);
    memcpy(to->tok, from->tok, s->nlocals * sizeof *to->tok);
    memcpy(to->other, from->other, s->nlocals * sizeof *to->other);
}

/* to |= from; true if it grew */
static bool state_merge(const Sum *s, State *to, const State *from)
{
    bool grew = false;
    for (size_t i = 0; i < (size_t)s->nlocals * s->norig; i++)
        if (from->dep[i] < to->dep[i]) {
            to->dep[i] = from->dep[i];
            grew = true;
        }
    for (uint32_t l = 0; l < s->nlocals; l++) {
        grew |= (from->tok[l] & ~to->tok[l]) || (from->other[l] && !to->other[l]);
        to->tok[l] |= from->tok[l];
        to->other[l] |= from->other[l];
    }
    return grew;
}

/* dst = what src holds, `loads` loads further on (src may be dst). */
static void assign_from(Sum *s, int32_t dst, int32_t src, int loads)
{
    uint8_t *d = dep(s, dst), tmp[IR_ARGESC_MAX];
    bool other = true;
    uint64_t tok = 0;
    memset(tmp, NONE, sizeof tmp);
    if (valid(s, src)) {
        const uint8_t *r = dep(s, src);
        for (uint32_t o = 0; o < s->norig; o++)
            if (r[o] != NONE && r[o] + loads < IR_ARGESC_DEPTH)
                tmp[o] = (uint8_t)(r[o] + loads);
        other = loads || s->cur.other[src];
        tok = loads ? 0 : s->cur.tok[src];
    }
    memcpy(d, tmp, s->norig);
    s->cur.tok[dst] = tok;
    s->cur.other[dst] = other;
}

/* The state after insn `in`, from the state before it (s->cur). */
static void transfer(Sum *s, const IrInsn *in)
{
    if (!valid(s, in->dst))
        return;
    int32_t d = in->dst;
    switch (in->op) {
    case IR_MOV: case IR_CAST:
        assign_from(s, d, in->src[0], 0);
        break;
    case IR_GETF: case IR_AGETR:
        assign_from(s, d, in->src[0], 1);
        break;
    case IR_LDCAP: {
        /* a lambda's own closure: capture k is origin nparams + k */
        const VmMethod *m = s->cf->method;
        bool own = (m->flags & VM_M_LAMBDA) && valid(s, in->src[0]) && dep(s, in->src[0])[0] == 0 &&
                   in->imm.i >= 0 && (uint64_t)in->imm.i < m->ncaps;
        assign_from(s, d, in->src[0], 1);
        if (own)
            dep(s, d)[m->nparams + (uint32_t)in->imm.i] = 0;
        break;
    }
    case IR_CLOS:
        if (in->mark)   /* the captures' values now, kept with the token */
            for (int64_t k = 0; k < in->imm.i; k++) {
                int32_t l = in->src[0] + (int32_t)k;
                uint8_t *cd = &s->capdep[in->mark - 1][(size_t)k * s->norig];
                uint64_t *ct = &s->captok[in->mark - 1][k];
                if (!valid(s, l))
                    continue;
                for (uint32_t o = 0; o < s->norig; o++)
                    if (dep(s, l)[o] < cd[o]) {
                        cd[o] = dep(s, l)[o];
                        s->grew = true;
                    }
                if (s->cur.tok[l] & ~*ct) {
                    *ct |= s->cur.tok[l];
                    s->grew = true;
                }
            }
        assign_from(s, d, IR_NONE, 0);
        if (in->mark) {
            s->cur.tok[d] = 1ull << (in->mark - 1);
            s->cur.other[d] = false;
        }
        break;
    default:
        assign_from(s, d, IR_NONE, 0);
    }
}

/* Forward, to a fixpoint over the blocks: what each local may hold. */
static void holdings(Sum *s)
{
    IrFunc *cf = s->cf;
    s->in = ir_alloc(s->f, cf->nblocks * sizeof *s->in);
    for (uint32_t i = 0; i < cf->nblocks; i++)
        s->in[i] = state_new(s);
    s->cur = state_new(s);
    State *entry = &s->in[cf->blocks[0]->id];
    for (uint32_t l = 0; l < s->nlocals; l++)
        entry->other[l] = l >= cf->nparams;   /* an inlined-style ZERO, or garbage never read */
    for (uint32_t p = 0; p < cf->nparams && p < s->nlocals; p++)
        if (valid(s, (int32_t)p))
            entry->dep[(size_t)p * s->norig + p] = 0;
    for (bool grew = true; grew;) {
        s->grew = false;
        for (uint32_t i = 0; i < cf->nblocks; i++) {
            const IrBlock *b = cf->blocks[i];
            state_copy(s, &s->cur, &s->in[b->id]);
            for (uint32_t k = 0; k < b->ninsns; k++)
                transfer(s, &b->insns[k]);
            for (uint32_t j = 0; j < b->nsuccs; j++)
                s->grew |= state_merge(s, &s->in[b->succs[j]->id], &s->cur);
        }
        grew = s->grew;
    }
}

static void flow_val(Sum *s, const uint8_t *d, uint64_t tok, int depth, bool invoked);

/* What a caller's argument passed to param `p` of the methods `t[0..n)`
 * (or to a closure of lambda t) may have done to it: the least depth and
 * whether any calls it.  False: unknown. */
static bool param_fate(IrFunc *f, VmMethod *const *t, uint32_t n, uint32_t p, int nest, int *depth, bool *inv)
{
    *depth = IR_ARGESC_DEPTH;
    *inv = false;
    for (uint32_t i = 0; i < n; i++) {
        const IrArgEsc *e = summary(f, t[i], nest);
        if (!e->known || p >= e->norig)
            return false;
        if (e->depth[p] < *depth)
            *depth = e->depth[p];
        *inv |= e->invoked >> p & 1;
    }
    return true;
}

/* A closure made here (token c) handed to a place that keeps it at
 * `depth` and calls it when `invoked`: its captures meet its lambda. */
static void flow_token(Sum *s, uint32_t c, int depth, bool invoked)
{
    if (s->seen >> c & 1)
        return;
    s->seen |= 1ull << c;
    const IrInsn *in = s->clos[c];
    VmMethod *lam = in->aux;
    int d0, dk;
    bool inv0, invk;
    bool known = param_fate(s->f, &lam, 1, 0, s->nest, &d0, &inv0);
    for (int64_t k = 0; k < in->imm.i; k++) {
        const uint8_t *d = &s->capdep[c][(size_t)k * s->norig];
        uint64_t tok = s->captok[c][k];
        if (depth == 0 || (invoked && (!known || d0 == 0)))
            flow_val(s, d, tok, 0, false);
        else if (invoked && param_fate(s->f, &lam, 1, lam->nparams + (uint32_t)k, s->nest, &dk, &invk))
            flow_val(s, d, tok, dk, invk);
        else if (invoked)
            flow_val(s, d, tok, 0, false);
        /* kept, never called: the callee cannot read a closure's captures */
    }
}

/* A value (its origins' depths d, its tokens) goes where what is `depth`
 * loads away from it escapes, and is called as a closure there when
 * `invoked`. */
static void flow_val(Sum *s, const uint8_t *d, uint64_t tok, int depth, bool invoked)
{
    for (uint32_t o = 0; o < s->norig; o++) {
        if (d[o] == NONE)
            continue;
        int at = d[o] + depth;
        if (at < s->out->depth[o])
            s->out->depth[o] = (uint8_t)(at < IR_ARGESC_DEPTH ? at : IR_ARGESC_DEPTH);
        if (invoked)
            s->out->invoked |= d[o] == 0 ? 1u << o : 0;
        if (invoked && d[o] > 0 && d[o] < s->out->depth[o])
            s->out->depth[o] = d[o];   /* a closure read from it runs: unknown */
    }
    for (uint32_t c = 0; c < s->ntok; c++)
        if (tok >> c & 1)
            flow_token(s, c, depth, invoked);
}

static void flow(Sum *s, int32_t l, int depth, bool invoked)
{
    if (valid(s, l))
        flow_val(s, dep(s, l), s->cur.tok[l], depth, invoked);
}

static void flow_fresh(Sum *s, int32_t l, int depth, bool invoked)
{
    s->seen = 0;
    flow(s, l, depth, invoked);
}

/* The methods a CALL, CALLV or CALLI may run: every override of the named
 * method in the module's classes, every implementation of the interface's
 * (the bytecode is statically typed, and a program is one module).  False:
 * not known. */
bool ir_call_targets(const IrFunc *f, const IrInsn *in, VmMethod **t, uint32_t max, uint32_t *n)
{
    *n = 0;
    if (in->op == IR_CALL) {
        if (!in->aux || !max)
            return false;
        t[(*n)++] = in->aux;
        return true;
    }
    if ((in->op != IR_CALLV && in->op != IR_CALLI) || !in->aux)
        return false;
    VmMethod *m = ((const VmCallSite *)in->aux)->target;
    const VmModule *mod = f->module;
    if (!m || m->slot < 0 || !m->ownerc || !mod || m->module != mod)
        return false;
    VmClass *owner = m->ownerc;
    for (uint32_t i = 0; i < mod->nclasses; i++) {
        VmClass *c = &mod->classes[i];
        VmMethod *x;
        if (in->op == IR_CALLI) {
            x = vm_itable_lookup(c, owner, m->slot);
        } else {
            if (c->depth < owner->depth || !c->display || c->display[owner->depth] != owner)
                continue;
            if (!c->vt || (uint32_t)m->slot >= c->nvtable)
                return false;
            x = c->vt[m->slot];
        }
        if (!x || (x->flags & VM_M_ABSTRACT))
            continue;   /* an abstract class: no instance runs it */
        bool dup = false;
        for (uint32_t j = 0; j < *n; j++)
            dup |= t[j] == x;
        if (dup)
            continue;
        if (*n == max)
            return false;
        t[(*n)++] = x;
    }
    return *n > 0;
}

/* Does local l hold anything of an origin, or a closure made here? */
static bool carries(Sum *s, int32_t l)
{
    if (!valid(s, l))
        return false;
    for (uint32_t o = 0; o < s->norig; o++)
        if (dep(s, l)[o] != NONE)
            return true;
    return s->cur.tok[l] != 0;
}

/* A call's arguments meet their callees' summaries. */
static void call_args(Sum *s, const IrInsn *in)
{
    VmMethod *t[16];
    uint32_t n = 0;
    bool known = false;
    uint32_t first = 0;   /* CALLF: the closure itself is param 0 of its lambda */
    if (in->op == IR_CALL || in->op == IR_CALLV || in->op == IR_CALLI) {
        known = ir_call_targets(s->f, in, t, 16, &n);
    } else if (in->op == IR_CALLF && valid(s, in->src[0])) {
        /* closures made here, of lambdas known: their summaries; a
         * parameter called: the caller's lambda, which its caller checks */
        int32_t c = in->src[0];
        known = !s->cur.other[c];
        for (uint32_t o = 0; o < s->norig && known; o++)
            known = dep(s, c)[o] == NONE || dep(s, c)[o] == 0;
        bool from_param = false;
        for (uint32_t o = 0; o < s->norig; o++)
            from_param |= dep(s, c)[o] != NONE;
        for (uint32_t k = 0; k < s->ntok && known; k++)
            if (s->cur.tok[c] >> k & 1) {
                if (n == 16)
                    known = false;
                else
                    t[n++] = s->clos[k]->aux;
            }
        known &= !from_param;   /* an unknown lambda gets the arguments */
        flow_fresh(s, c, IR_ARGESC_DEPTH, true);
        first = 1;
    }
    for (int64_t u = first; in->src[0] >= 0 && u < in->imm.i; u++) {
        int32_t l = in->src[0] + (int32_t)u;
        int depth;
        bool inv;
        if (!carries(s, l))
            continue;   /* nothing of the caller's: no callee summary needed */
        if (known && param_fate(s->f, t, n, (uint32_t)u, s->nest, &depth, &inv))
            flow_fresh(s, l, depth, inv);
        else
            flow_fresh(s, l, 0, false);
    }
}

/* Every use of every local, with what it holds there. */
static void uses(Sum *s)
{
    IrFunc *cf = s->cf;
    for (uint32_t i = 0; i < cf->nblocks; i++) {
        state_copy(s, &s->cur, &s->in[cf->blocks[i]->id]);
        for (uint32_t k = 0; k < cf->blocks[i]->ninsns; k++) {
            const IrInsn *in = &cf->blocks[i]->insns[k];
            switch (in->op) {
            case IR_MOV: case IR_CAST: case IR_GETF: case IR_LDCAP: case IR_ISA: case IR_REQ: case IR_RNE: case IR_NCHK:
            case IR_ALEN: case IR_AGETI: case IR_AGETF: case IR_AGETB: case IR_AGETR:
            case IR_GUARD_CLASS: case IR_GUARD_FN:
                break;
            case IR_CLOS:   /* a token's captures go with it (flow_token) */
                for (int64_t u = 0; !in->mark && in->src[0] >= 0 && u < in->imm.i; u++)
                    flow_fresh(s, in->src[0] + (int32_t)u, 0, false);
                break;
            case IR_PUTF:
                flow_fresh(s, in->src[1], 0, false);
                break;
            case IR_APUTI: case IR_APUTF: case IR_APUTB: case IR_APUTR:
                flow_fresh(s, in->src[2], 0, false);
                break;
            case IR_BR:
                if (in->cc != IR_CC_NULL && in->cc != IR_CC_NNULL)
                    for (int u = 0; u < ir_op_info[in->op].nsrc; u++)
                        flow_fresh(s, in->src[u], 0, false);
                break;
            case IR_CALL: case IR_CALLV: case IR_CALLI: case IR_CALLF:
                call_args(s, in);
                break;
            default:
                if (ir_op_info[in->op].flags & IR_OPF_ARGS) {
                    for (int64_t u = 0; in->src[0] >= 0 && u < in->imm.i; u++)
                        flow_fresh(s, in->src[0] + (int32_t)u, 0, false);
                } else {
                    for (int u = 0; u < ir_op_info[in->op].nsrc; u++)
                        flow_fresh(s, in->src[u], 0, false);
                }
            }
            transfer(s, in);
        }
    }
}

static IrArgEsc *analyse(IrFunc *f, VmMethod *m, int nest, IrArgEsc *out)
{
    IrFunc *cf = ir_alloc(f, sizeof *cf);
    cf->method = m;
    cf->module = m->module;
    cf->arena_of = f;
    VmError err;
    if (!m->code || !ir_build(cf, &err))
        return NULL;
    ir_cfg(cf);
    if (!cf->nblocks)
        return NULL;
    Sum s = {.f = f, .cf = cf, .norig = origins_of(m), .nlocals = cf->nlocals, .out = out, .nest = nest};
    for (uint32_t i = 0; i < cf->nblocks; i++)
        for (uint32_t k = 0; k < cf->blocks[i]->ninsns; k++) {
            IrInsn *in = &cf->blocks[i]->insns[k];
            in->mark = 0;
            if (in->op == IR_CLOS && in->aux && in->imm.i == (int64_t)((VmMethod *)in->aux)->ncaps &&
                s.ntok < MAX_TOKENS) {
                s.clos[s.ntok] = in;
                size_t n = (size_t)(in->imm.i ? in->imm.i : 1);
                s.capdep[s.ntok] = ir_alloc(f, n * s.norig + 1);
                memset(s.capdep[s.ntok], NONE, n * s.norig + 1);
                s.captok[s.ntok] = ir_alloc(f, n * sizeof(uint64_t));
                in->mark = ++s.ntok;
            }
        }
    holdings(&s);
    uses(&s);
    return out;
}

static bool same(const IrArgEsc *a, const IrArgEsc *b)
{
    return a->known == b->known && a->invoked == b->invoked && !memcmp(a->depth, b->depth, sizeof a->depth);
}

/* a = what both a and b allow (the lesser depths, either's calls) */
static void meet(IrArgEsc *a, const IrArgEsc *b)
{
    a->known &= b->known;
    a->invoked |= b->invoked;
    for (uint32_t o = 0; o < IR_ARGESC_MAX; o++)
        a->depth[o] = b->depth[o] < a->depth[o] ? b->depth[o] : a->depth[o];
}

/* A recursive method is summarized optimistically: its recursive calls
 * see an assumption (nothing escapes, at first), and it is summarized
 * again under the meet of that and its result until the two agree;
 * every summary made under a wrong assumption is dropped with it. */
static const IrArgEsc *summary(IrFunc *f, VmMethod *m, int nest)
{
    if (!m || nest > MAX_NEST || origins_of(m) > IR_ARGESC_MAX)
        return &unknown;
    for (struct IrArgEscMemo *e = f->argesc; e; e = e->next)
        if (e->m == m) {
            if (!e->busy)
                return &e->s;
            e->used = true;
            return &e->assumed;
        }
    struct IrArgEscMemo *e = ir_alloc(f, sizeof *e);
    *e = (struct IrArgEscMemo){.m = m, .busy = true, .next = f->argesc};
    e->assumed.known = true;
    e->assumed.norig = origins_of(m);
    memset(e->assumed.depth, IR_ARGESC_DEPTH, sizeof e->assumed.depth);
    f->argesc = e;
    for (int round = 0;; round++) {
        IrArgEsc r = {.norig = origins_of(m)};
        memset(r.depth, IR_ARGESC_DEPTH, sizeof r.depth);
        e->used = false;
        r.known = analyse(f, m, nest + 1, &r) != NULL;
        if (!e->used || same(&r, &e->assumed)) {
            e->s = r;
            break;
        }
        f->argesc = e;   /* drop what was made under the wrong assumption */
        if (round == MAX_ROUNDS || !r.known) {
            e->s = unknown;
            break;
        }
        meet(&e->assumed, &r);
    }
    e->busy = false;
    return &e->s;
}

const IrArgEsc *ir_argesc(IrFunc *f, VmMethod *m)
{
    return summary(f->arena_of ? f->arena_of : f, m, 0);
}

bool ir_argesc_param(IrFunc *f, VmMethod *const *t, uint32_t n, uint32_t p, int *depth, bool *inv)
{
    return param_fate(f->arena_of ? f->arena_of : f, t, n, p, 0, depth, inv);
}
