/* ir/inline.c — the inliner.
 *
 * Input: an IrFunc after ir_cfg (block counts set), and the request's
 * IrOptions.  Output: call insns replaced by the callee's IR, spliced in
 * (see ir.h "Guarded inlining"), one IrDecision per call considered;
 * virtual and interface calls left where one method can run become a null
 * check (NCHK) and a direct CALL.
 * Breaks: succs/preds, RPO, dominators, loops, frequencies (rerun ir_cfg,
 * ir_loops, ir_frequencies).
 *
 * Policy, in order of the checks (the first that fails gives the reason):
 * - CALLN (natives) are never inlined; CALLF (closures) only when the
 *   closure local's value is known to come from a CLOS of this function
 *   (through copies, and through a generic adapter's capture: see
 *   closure_of), behind a GUARD_FN on the closure's lambda;
 * - the call's inline depth + 1 must not exceed max_depth; a forwarder
 *   (a trivial callee whose one call is a closure call: a generic
 *   adapter) takes no level, neither itself nor for the call in it;
 * - CALL: the callee is the named method (static or non-virtual);
 *   CALLV/CALLI where the module's classes hold one method for the site
 *   (ir_call_targets: a program is one module, so no class comes later):
 *   that method, profile or not, with no guard but the receiver's null
 *   check (NCHK); other CALLV/CALLI: the site's receiver profile must be covered by at most
 *   poly_ways classes — the fewest of the most frequent that together
 *   hold ≥ mono_percent % of the receivers seen, and no `other`
 *   receivers (1 class: monomorphic) — and the callee is what the most
 *   frequent class not yet guarded dispatches to; a GUARD_CLASS keeps the
 *   real call as the fallback, which becomes a candidate again while a
 *   class of the set is left (its insn's cc holds the ways guarded so
 *   far; cleared when inlining ends);
 * - the callee must have code (not abstract) and not be a lambda, unless
 *   called as a closure;
 * - callee size (bytecode instructions) ≤ max_callee_size, or at a hot
 *   site (it runs ≥ IR_HOT_SITE_RATIO times per entry of the function,
 *   by the profile: it is in a loop) ≤ hot_callee_size if larger — a call
 *   in a loop costs its frame on every iteration, as HotSpot's
 *   FreqInlineSize assumes;
 * - growth: the function's IR insns after the splice must stay within
 *   max_growth % of its insns before inlining (400 = 4×), or within
 *   IR_MIN_BUDGET insns if that is more (4× a small method does not hold
 *   one callee with its calls), or at a hot site IR_HOT_BUDGET (a small
 *   loop around its work, main calling advance, would never inline it
 *   otherwise) —
 *   unless max_growth forbids growth — and within IR_MAX_INSNS whatever
 *   the options say.  A trivial callee (≤ IR_TRIVIAL_SIZE bytecode
 *   instructions: a constructor storing its fields, a getter) may take the
 *   function to 1.5× that cap: its body is about the size of the call it
 *   replaces, and a constructor left out keeps its object on the heap
 *   (ir/escape.c), while the budget often runs out on bigger callees first.
 * - a recursive call (its callee on the chain of inlined calls that leads
 *   to it, or the function itself) is inlined while fewer than
 *   max_recursive copies of that callee were spliced into recursions of
 *   it in this function: a chain of recursion (one recursive call, in a
 *   loop: Storage.buildTreeDepth) unrolls to max_depth, a tree of them
 *   (fib's two calls) stops before gcc's time multiplies;
 * Recursive calls are decided last (a recursive call popped first goes
 * back behind every other candidate) and max_depth bounds them too.
 * Otherwise the hottest call sites (by block count) are decided first, so
 * the growth budget goes where the time goes; calls inside inlined bodies become
 * candidates too (at depth + 1).  Callee block counts are scaled by
 * (count of the call reaching the inlined body) / (callee's calls).
 * Each callee's IR is built once per request and copied at every site.
 */
#include "ir.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void decide(IrFunc *f, const IrInsn *call, VmMethod *callee, bool yes, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void decide(IrFunc *f, const IrInsn *call, VmMethod *callee, bool yes, const char *fmt, ...)
{
    f->decisions = ir_grow(f, f->decisions, f->ndecisions, &f->capdecisions, sizeof *f->decisions);
    IrDecision *d = &f->decisions[f->ndecisions++];
    d->caller = call->origin;
    d->callee = callee;
    d->name = callee ? callee->name
            : call->op == IR_CALLN && call->aux ? ((VmNative *)call->aux)->name
            : call->op == IR_CALLF ? "closure" : "?";
    d->pc = call->pc;
    d->depth = call->depth;
    d->op = (uint8_t)call->op;
    d->yes = yes;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->reason, sizeof d->reason, fmt, ap);
    va_end(ap);
}

static bool is_call(uint16_t op)
{
    return op < IR_OP_COUNT && (ir_op_info[op].flags & IR_OPF_CALL);
}

static bool recursive(const IrFunc *f, const IrInsn *call, const VmMethod *callee)
{
    if (callee == f->method)
        return true;
    for (const IrInline *s = call->site; s; s = s->parent)
        if (s->callee == callee)
            return true;
    return false;
}

/* The copies of m spliced so far into recursions of m: inline sites of m
 * inside the function m or inside another site of m. */
static uint32_t recursive_copies(const IrFunc *f, const VmMethod *m)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->ninlines; i++) {
        const IrInline *s = f->inlines[i];
        bool rec = s->callee == m && f->method == m;
        for (const IrInline *p = s->parent; p && s->callee == m && !rec; p = p->parent)
            rec = p->callee == m;
        n += rec;
    }
    return n;
}

/* The class to guard for at a CALLV/CALLI site whose ways in `done` (a
 * bit per VmCallSite.seen way) are guarded already: the most frequent
 * other way of the fewest most frequent ways holding ≥ mono_percent % of
 * the receivers, if they are at most poly_ways and no `other` receiver was
 * seen; NULL and a reason otherwise.  *way gets its way, *share its count,
 * *left the receivers of the ways not in done, *more whether a way of the
 * set is left after this one. */
static VmClass *guard_class(const VmCallSite *s, const IrOptions *o, unsigned done, int *way, uint64_t *share,
                            uint64_t *left, bool *more, char *why, size_t nwhy)
{
    /* the program's thread writes the profile meanwhile: each read once */
    uint64_t other = VM_PROF_GET(s->other), total = other, count[VM_SITE_WAYS];
    VmClass *seen[VM_SITE_WAYS];
    int order[VM_SITE_WAYS], ways = 0;
    for (int i = 0; i < VM_SITE_WAYS; i++) {
        seen[i] = VM_PROF_GET(s->seen[i].cls);
        count[i] = seen[i] ? VM_PROF_GET(s->seen[i].count) : 0;
        if (!seen[i])
            continue;
        total += count[i];
        int k = ways++;   /* insertion sort, most frequent first */
        for (; k > 0 && count[order[k - 1]] < count[i]; k--)
            order[k] = order[k - 1];
        order[k] = i;
    }
    if (!total || !ways) {
        snprintf(why, nwhy, "no receiver profile");
        return NULL;
    }
    if (other) {
        snprintf(why, nwhy, "megamorphic (%d classes + %" PRIu64 " other receivers)", ways, other);
        return NULL;
    }
    /* the fewest ways covering mono_percent; doubles, so huge counts cannot overflow */
    int need = 0;
    uint64_t covered = 0;
    while (need < ways && (double)covered * 100.0 < (double)o->mono_percent * (double)total)
        covered += count[order[need++]];
    if (need > o->poly_ways) {
        snprintf(why, nwhy, "polymorphic (%d classes, top %.1f%%)", ways, 100.0 * (double)count[order[0]] / (double)total);
        return NULL;
    }
    *left = total;
    int pick = -1;
    for (int k = 0; k < ways; k++) {
        if (done & (1u << order[k]))
            *left -= count[order[k]];
        else if (pick < 0 && k < need)
            pick = k;
    }
    if (pick < 0) {
        snprintf(why, nwhy, "guarded for its %d classes", need);
        return NULL;
    }
    *more = false;
    for (int k = pick + 1; k < need; k++)
        *more |= !(done & (1u << order[k]));
    *way = order[pick];
    *share = count[order[pick]];
    return seen[order[pick]];
}

/* What `cls` runs for the site's named method. */
static VmMethod *dispatch(const VmCallSite *s, VmClass *cls, uint16_t op)
{
    VmMethod *t = s->target;
    if (!t || !cls || t->slot < 0)
        return NULL;
    if (op == IR_CALLV)
        return cls->vt && (uint32_t)t->slot < cls->nvtable ? cls->vt[t->slot] : NULL;
    for (int i = 0; i < VM_SITE_WAYS; i++) {
        VmMethod *m = VM_PROF_GET(s->seen[i].m);
        if (VM_PROF_GET(s->seen[i].cls) == cls && m)
            return m;
    }
    return t->ownerc ? vm_itable_lookup(cls, t->ownerc, t->slot) : NULL;
}

/* The one block whose terminator targets b (targets are exact while
 * inlining, preds are not); NULL if none or several. */
static const IrBlock *sole_jumper(const IrFunc *f, const IrBlock *b)
{
    const IrBlock *from = NULL;
    for (uint32_t i = 0; i < f->nblocks; i++) {
        const IrInsn *t = ir_terminator(f->blocks[i]);
        if (t && (t->target[0] == b || t->target[1] == b)) {
            if (from)
                return NULL;
            from = f->blocks[i];
        }
    }
    return from;
}

/* The CLOS whose closure local l most likely holds at insn `at` of b: the
 * last write of l before it in b or in the chain of blocks that alone jump
 * to it, else l's one write in the function
 * (ZERO/LDNULL aside: null fails the guard), followed through MOV/CAST
 * copies and through LDCAP of a capture of such a closure (a generic
 * adapter's closure captures the lambda's).  NULL when there is no such
 * write or the chain is longer than CLOSURE_CHAIN.  A guess (the CFG is
 * stale while inlining): GUARD_FN checks it at run time. */
enum { CLOSURE_CHAIN = 8 };

static const IrInsn *closure_of(const IrFunc *f, const IrBlock *b, uint32_t at, int32_t l, int depth,
                                const IrBlock **where, uint32_t *where_at)
{
    if (l < 0 || depth > CLOSURE_CHAIN)
        return NULL;
    const IrInsn *def = NULL;
    for (int hops = 0; b && !def && hops < CLOSURE_CHAIN; hops++) {
        for (uint32_t k = at; k-- > 0 && !def;)
            if (b->insns[k].dst == l)
                def = &b->insns[k], at = k;
        if (!def) {   /* on into the one block that jumps here, if one */
            b = sole_jumper(f, b);
            at = b ? b->ninsns : 0;
        }
    }
    if (!def) {
        b = NULL;
        for (uint32_t i = 0; i < f->nblocks; i++)
            for (uint32_t k = 0; k < f->blocks[i]->ninsns; k++) {
                const IrInsn *in = &f->blocks[i]->insns[k];
                if (in->dst != l || in->op == IR_ZERO || in->op == IR_LDNULL)
                    continue;
                if (def)
                    return NULL;
                def = in, b = f->blocks[i], at = k;
            }
    }
    if (!def)
        return NULL;
    switch (def->op) {
    case IR_CLOS:
        *where = b, *where_at = at;
        return def;
    case IR_MOV: case IR_CAST:
        return closure_of(f, b, at, def->src[0], depth + 1, where, where_at);
    case IR_LDCAP: {   /* the captured value, as it was where the closure was made */
        const IrBlock *cb;
        uint32_t cat;
        const IrInsn *c = closure_of(f, b, at, def->src[0], depth + 1, &cb, &cat);
        return c && def->imm.i >= 0 && def->imm.i < c->imm.i && c->src[0] >= 0
                   ? closure_of(f, cb, cat, c->src[0] + (int32_t)def->imm.i, depth + 1, where, where_at)
                   : NULL;
    }
    default:
        return NULL;
    }
}

static uint64_t scale(uint64_t count, uint64_t num, uint64_t den)
{
    if (!den)
        return 0;
    return (uint64_t)((double)count * (double)num / (double)den + 0.5);
}

/* IR insns a splice adds (callee insns, argument moves and zeroing, the
 * return moves and jumps, the guard and its fallback or the null check)
 * minus the call. */
static uint32_t splice_size(const IrFunc *cf, uint32_t checks)
{
    uint32_t n = ir_count_insns(cf) + cf->nlocals + 1;   /* moves/zeros + JMP in */
    for (uint32_t i = 0; i < cf->nblocks; i++) {
        const IrInsn *t = ir_terminator(cf->blocks[i]);
        n += t && t->op == IR_RET;                        /* MOV dst, x */
    }
    return n - 1 + checks;   /* the call itself; GUARD_CLASS, fallback call + JMP, or NCHK */
}

/* ---- the worklist: undecided calls, hottest first ------------------------
 * A binary max-heap on (block count, then lowest serial), so ties go in
 * the order calls were found (block order, then splice order).  Each
 * undecided call insn carries its serial in IrInsn.mark (0 = decided or
 * not a call); an entry is stale when its (block, index) no longer holds
 * the insn with its serial — a splice moved it to the continuation block
 * and pushed a fresh entry there.  Every step is O(log n), so the growth
 * budget, not a rescan, bounds the work. */
typedef struct Cand {
    uint64_t count;
    uint32_t serial, idx;
    IrBlock *b;
    bool late;                 /* a recursive call, put back behind the rest */
} Cand;

typedef struct Work {
    IrFunc *f;
    Cand *heap;
    uint32_t n, cap, serial;
    IrFunc **built;            /* callee IR built so far, reused per site */
    uint32_t nbuilt, capbuilt;
} Work;

static bool before_in(const Cand *a, const Cand *b)
{
    if (a->late != b->late)
        return !a->late;
    return a->count != b->count ? a->count > b->count : a->serial < b->serial;
}

static void push_entry(Work *w, IrBlock *b, uint32_t idx, uint32_t serial, bool late)
{
    w->heap = ir_grow(w->f, w->heap, w->n, &w->cap, sizeof *w->heap);
    uint32_t i = w->n++;
    w->heap[i] = (Cand){.count = b->count, .serial = serial, .idx = idx, .b = b, .late = late};
    while (i && before_in(&w->heap[i], &w->heap[(i - 1) / 2])) {
        Cand t = w->heap[i];
        w->heap[i] = w->heap[(i - 1) / 2];
        w->heap[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

/* A new candidate: b->insns[idx] is an undecided call. */
static void push_call(Work *w, IrBlock *b, uint32_t idx)
{
    b->insns[idx].mark = ++w->serial;
    push_entry(w, b, idx, w->serial, false);
}

static bool pop(Work *w, IrBlock **bp, uint32_t *ip, bool *late)
{
    while (w->n) {
        Cand top = w->heap[0];
        w->heap[0] = w->heap[--w->n];
        for (uint32_t i = 0;;) {
            uint32_t l = 2 * i + 1, r = l + 1, m = i;
            if (l < w->n && before_in(&w->heap[l], &w->heap[m]))
                m = l;
            if (r < w->n && before_in(&w->heap[r], &w->heap[m]))
                m = r;
            if (m == i)
                break;
            Cand t = w->heap[i];
            w->heap[i] = w->heap[m];
            w->heap[m] = t;
            i = m;
        }
        if (top.idx < top.b->ninsns && top.b->insns[top.idx].mark == top.serial &&
            is_call(top.b->insns[top.idx].op)) {
            *bp = top.b;
            *ip = top.idx;
            *late = top.late;
            return true;
        }
    }
    return false;
}

/* A forwarder: a trivial callee whose one call is a closure call (the
 * adapter a generic call wraps around a lambda: cast, CALLF the captured
 * closure, cast back).  It takes no level of max_depth, neither itself nor
 * for the calls in it: it does nothing of its own, and counting it left
 * out the lambda behind it exactly where forEach was inlined. */
static bool forwarder(const VmMethod *m)
{
    if (!m || !m->code || m->ncode > IR_TRIVIAL_SIZE)
        return false;
    uint32_t calls = 0, closure_calls = 0;
    for (uint32_t i = 0; i < m->ncode; i++) {
        uint32_t op = m->code[i].op;
        calls += op == VM_OP_CALL || op == VM_OP_CALLV || op == VM_OP_CALLI || op == VM_OP_CALLF ||
                 op == VM_OP_CALLN;
        closure_calls += op == VM_OP_CALLF;
    }
    return calls == 1 && closure_calls == 1;
}

/* The levels of max_depth inlining callee at call takes: 0 for a forwarder
 * (never a recursive one: a method inlined into itself goes deeper). */
static uint32_t levels(const IrFunc *f, const IrInsn *call, const VmMethod *callee)
{
    return forwarder(callee) && !recursive(f, call, callee) ? 0u : 1u;
}

/* Replaces b->insns[idx] (a call) by cf's body; guard: the receiver class
 * (GUARD_CLASS) or the closure's lambda (GUARD_FN) for a guarded inline,
 * NULL for a direct one; inl_count: executions that reach the body;
 * again: nonzero when the fallback call is a candidate once more, with
 * this as its guarded ways (cc). */
static void splice(Work *w, IrBlock *b, uint32_t idx, IrFunc *cf, IrOp gop, void *guard, uint64_t inl_count,
                   unsigned again)
{
    IrFunc *f = w->f;
    IrInsn call = b->insns[idx];
    VmMethod *callee = cf->method;
    /* depth: what max_depth counts (levels); nesting: the inline chain */
    uint32_t depth = call.depth + levels(f, &call, callee);
    uint32_t nesting = (call.site ? call.site->depth : 0u) + 1u;

    /* the continuation takes the rest of the block */
    IrBlock *cont = ir_block_new(f, b->origin, UINT32_MAX);
    cont->depth = b->depth;
    cont->count = b->count;
    cont->edge_count[0] = b->edge_count[0];
    cont->edge_count[1] = b->edge_count[1];
    for (uint32_t k = idx + 1; k < b->ninsns; k++) {
        IrInsn src = b->insns[k];
        IrInsn *x = ir_append(f, cont, (IrOp)src.op);
        *x = src;
        if (x->mark)   /* an undecided call moves: its entry moves too */
            push_entry(w, cont, cont->ninsns - 1, x->mark, false);
    }
    b->ninsns = idx;

    IrInline *site = ir_alloc(f, sizeof *site);
    *site = (IrInline){.callee = callee, .caller = call.origin, .call_pc = call.pc,
                       .parent = call.site, .depth = nesting, .first_local = f->nlocals,
                       .guard = gop == IR_GUARD_CLASS ? guard : NULL};
    f->inlines = ir_grow(f, f->inlines, f->ninlines, &f->capinlines, sizeof *f->inlines);
    f->inlines[f->ninlines++] = site;
    int32_t base = (int32_t)f->nlocals;
    for (uint32_t r = 0; r < cf->nlocals; r++)
        ir_local_new(f, cf->locals[r].type, callee, r);

    /* synthetic insns at the call carry the call's origin, pc and chain */
#define AT_CALL(x) ((x)->origin = call.origin, (x)->pc = call.pc, (x)->site = call.site, \
                    (x)->depth = call.depth)
    IrBlock *in = b;
    if (guard) {
        IrBlock *slow = ir_block_new(f, b->origin, UINT32_MAX);
        in = ir_block_new(f, b->origin, UINT32_MAX);
        slow->depth = in->depth = b->depth;
        in->count = inl_count;
        slow->count = b->count > inl_count ? b->count - inl_count : 0;
        IrInsn *g = ir_append(f, b, gop);
        AT_CALL(g);
        g->src[0] = call.src[0];
        g->aux = guard;
        g->target[0] = in;
        g->target[1] = slow;
        b->edge_count[0] = in->count;
        b->edge_count[1] = slow->count;
        IrInsn *c = ir_append(f, slow, (IrOp)call.op);
        *c = call;
        c->mark = 0;                   /* the fallback is decided */
        if (again) {                   /* or guards for the site's next class */
            c->cc = (uint8_t)again;
            push_call(w, slow, slow->ninsns - 1);
        }
        IrInsn *j = ir_append(f, slow, IR_JMP);
        AT_CALL(j);
        j->target[0] = cont;
        slow->edge_count[0] = slow->count;
    }
    if (callee == f->method) {
        /* the method's own entry counts its calls (jit/codegen.c); an
         * unrolled level counts the call it replaces, so that prof.calls
         * (and a bakeoff's weights: jit/variants.c) are the same whatever
         * the recursion's unrolling */
        IrInsn *x = ir_append(f, in, IR_COUNT);
        AT_CALL(x);
        x->aux = &callee->prof.calls;
    }
    if (!guard && (call.op == IR_CALLV || call.op == IR_CALLI)) {
        IrInsn *x = ir_append(f, in, IR_NCHK);   /* the call's null check stays */
        AT_CALL(x);
        x->src[0] = call.src[0];
    }
    for (uint32_t r = 0; r < cf->nlocals; r++) {
        IrInsn *x = ir_append(f, in, r < cf->nparams ? IR_MOV : IR_ZERO);
        AT_CALL(x);
        x->dst = base + (int32_t)r;
        if (r < cf->nparams)
            x->src[0] = call.src[0] + (int32_t)r;
    }

    /* the callee's blocks, locals shifted, counts scaled */
    IrBlock **map = ir_alloc(f, cf->nblocks * sizeof *map);
    uint64_t calls = VM_PROF_GET(callee->prof.calls);
    for (uint32_t i = 0; i < cf->nblocks; i++) {
        IrBlock *cb = cf->blocks[i];
        IrBlock *nb = ir_block_new(f, callee, cb->pc);
        nb->depth = depth;
        nb->count = scale(cb->count, inl_count, calls);
        nb->edge_count[0] = scale(cb->edge_count[0], inl_count, calls);
        nb->edge_count[1] = scale(cb->edge_count[1], inl_count, calls);
        map[i] = nb;
    }
    IrInsn *j = ir_append(f, in, IR_JMP);
    AT_CALL(j);
    j->target[0] = map[0];
    in->edge_count[0] = in->count;
    if (!guard)
        in->edge_count[1] = 0;
    for (uint32_t i = 0; i < cf->nblocks; i++) {
        IrBlock *cb = cf->blocks[i], *nb = map[i];
        for (uint32_t k = 0; k < cb->ninsns; k++) {
            IrInsn src = cb->insns[k];
            if (src.op == IR_RET || src.op == IR_RETV) {
                if (src.op == IR_RET && call.dst != IR_NONE) {
                    IrInsn *mv = ir_append(f, nb, IR_MOV);
                    *mv = src;
                    mv->op = IR_MOV;
                    mv->dst = call.dst;
                    mv->src[0] = base + src.src[0];
                    mv->site = site;
                    mv->depth = (uint8_t)depth;
                }
                IrInsn *x = ir_append(f, nb, IR_JMP);
                *x = src;
                x->op = IR_JMP;
                x->src[0] = IR_NONE;
                x->target[0] = cont;
                x->target[1] = NULL;
                x->site = site;
                x->depth = (uint8_t)depth;
                nb->edge_count[0] = nb->count;
                continue;
            }
            IrInsn *x = ir_append(f, nb, (IrOp)src.op);
            *x = src;
            if (x->dst != IR_NONE)
                x->dst += base;
            for (int s = 0; s < 3; s++)
                if (x->src[s] != IR_NONE)
                    x->src[s] += base;
            for (int t = 0; t < 2; t++)
                if (x->target[t])
                    x->target[t] = map[x->target[t]->id];
            x->site = site;
            x->depth = (uint8_t)depth;
            x->mark = 0;
            if (is_call(x->op))       /* calls of the callee: candidates */
                push_call(w, nb, nb->ninsns - 1);
        }
    }
#undef AT_CALL
}

/* The one method a virtual or interface call left in f can run (class
 * hierarchy), or NULL. */
static VmMethod *only_target(const IrFunc *f, const IrInsn *in)
{
    VmMethod *t[2];
    uint32_t n = 0;
    if ((in->op != IR_CALLV && in->op != IR_CALLI) || !ir_call_targets(f, in, t, 2, &n) || n != 1)
        return NULL;
    return t[0]->code && t[0]->ncode ? t[0] : NULL;
}

/* Each call left virtual where one method can run becomes a null check of
 * its receiver and a direct call: no vtable or itable load, and the
 * callee's own code when it is this method. */
static void direct_calls(IrFunc *f)
{
    for (uint32_t i = 0; i < f->nblocks; i++) {
        IrBlock *b = f->blocks[i];
        bool virt = false;
        for (uint32_t k = 0; k < b->ninsns && !virt; k++)
            virt = b->insns[k].op == IR_CALLV || b->insns[k].op == IR_CALLI;
        if (!virt)
            continue;
        uint32_t nold = b->ninsns;
        IrInsn *old = ir_alloc(f, nold * sizeof *old);
        memcpy(old, b->insns, nold * sizeof *old);
        b->ninsns = 0;
        for (uint32_t k = 0; k < nold; k++) {
            VmMethod *t = only_target(f, &old[k]);
            if (t) {
                IrInsn *x = ir_append(f, b, IR_NCHK);
                x->origin = old[k].origin, x->pc = old[k].pc, x->site = old[k].site, x->depth = old[k].depth;
                x->src[0] = old[k].src[0];
            }
            IrInsn *x = ir_append(f, b, (IrOp)old[k].op);
            *x = old[k];
            if (t) {
                x->op = IR_CALL;
                x->aux = t;
            }
        }
    }
}

/* The callee's IR (build + cfg), built once per ir_inline and spliced as
 * often as needed; it lives in f's arena.  NULL + err if it cannot be built. */
static IrFunc *callee_ir(Work *w, VmMethod *callee, VmError *err)
{
    for (uint32_t i = 0; i < w->nbuilt; i++)
        if (w->built[i]->method == callee) {
            if (!w->built[i]->nblocks)
                vm_fail(err, "%s failed before", callee->name);
            return w->built[i]->nblocks ? w->built[i] : NULL;
        }
    IrFunc *cf = ir_alloc(w->f, sizeof *cf);
    cf->method = callee;
    cf->module = callee->module;
    cf->arena_of = w->f;
    w->built = ir_grow(w->f, w->built, w->nbuilt, &w->capbuilt, sizeof *w->built);
    w->built[w->nbuilt++] = cf;
    if (!ir_build(cf, err)) {
        cf->nblocks = 0;   /* remembered as unbuildable */
        return NULL;
    }
    ir_cfg(cf);
    return cf;
}

void ir_inline(IrFunc *f, const IrOptions *o)
{
    Work w = {.f = f};
    for (uint32_t i = 0; i < f->nblocks; i++)
        for (uint32_t k = 0; k < f->blocks[i]->ninsns; k++) {
            f->blocks[i]->insns[k].mark = 0;
            if (is_call(f->blocks[i]->insns[k].op))
                push_call(&w, f->blocks[i], k);
        }
    /* clamps keep the arithmetic and IrInsn.depth (8 bits) in range */
    IrOptions opt = *o;
    if (opt.max_depth > IR_MAX_INLINE_DEPTH)
        opt.max_depth = IR_MAX_INLINE_DEPTH;
    o = &opt;
    uint64_t before = ir_count_insns(f), size = before;
    int64_t growth = o->max_growth < 100 ? 100 : o->max_growth > 1000000 ? 1000000 : o->max_growth;
    uint64_t limit = before * (uint64_t)growth / 100;
    uint64_t entries = f->nblocks && f->blocks[0]->count ? f->blocks[0]->count : 1;
    IrBlock *b;
    uint32_t idx;
    bool late;
    while (pop(&w, &b, &idx, &late)) {
        IrInsn *call = &b->insns[idx];
        call->mark = 0;
        VmMethod *callee = NULL;
        void *guard = NULL;
        IrOp gop = IR_GUARD_CLASS;
        uint64_t inl_count = b->count;
        unsigned guarded = 0, again = 0;   /* VmCallSite.seen ways: guard_class */
        char why[96];
        switch (call->op) {
        case IR_CALLN:
            decide(f, call, NULL, false, "native %s", call->aux ? ((VmNative *)call->aux)->name : "?");
            continue;
        case IR_CALLF: {
            const IrBlock *cb;
            uint32_t cat;
            const IrInsn *c = closure_of(f, b, idx, call->src[0], 0, &cb, &cat);
            if (!c) {
                decide(f, call, NULL, false, "closure call, no known lambda");
                continue;
            }
            callee = guard = c->aux;
            gop = IR_GUARD_FN;
            break;
        }
        case IR_CALL:
            callee = call->aux;
            break;
        default: {   /* CALLV, CALLI */
            VmCallSite *s = call->aux;
            uint64_t share = 0, left = 0;
            int way = 0;
            bool more = false;
            if (call->depth + 1 > o->max_depth) {
                decide(f, call, s->target, false, "depth limit (max_depth %" PRId64 ")", o->max_depth);
                continue;
            }
            VmMethod *only[2];
            uint32_t nonly = 0;
            if (!call->cc && ir_call_targets(f, call, only, 2, &nonly) && nonly == 1) {
                callee = only[0];   /* one method can run here: no guard (splice) */
                break;
            }
            guard = guard_class(s, o, call->cc, &way, &share, &left, &more, why, sizeof why);
            if (!guard) {
                decide(f, call, s->target, false, "%s", why);
                continue;
            }
            callee = dispatch(s, guard, call->op);
            /* b is the previous guard's slow side for a later class: its
             * count is the receivers left */
            inl_count = scale(b->count, share, left);
            guarded = call->cc | 1u << way;
            again = more ? guarded : 0;
            break;
        }
        }
        /* a recursive call waits until every other call has been decided:
         * unrolling recursion spends the budget its callees' leaf calls
         * would put to better use (Queens.placeQueen) */
        if (!late && callee && recursive(f, call, callee)) {
            push_entry(&w, b, idx, call->mark = ++w.serial, true);
            continue;
        }
        /* max_depth 0 is no inlining at all, forwarders included */
        if (o->max_depth == 0 || call->depth + levels(f, call, callee) > o->max_depth) {
            decide(f, call, callee, false, "%sdepth limit (max_depth %" PRId64 ")",
                   callee && recursive(f, call, callee) ? "recursive, " : "", o->max_depth);
            continue;
        }
        bool rec = callee && recursive(f, call, callee);
        uint32_t copies = rec ? recursive_copies(f, callee) : 0;
        if (rec && (int64_t)copies >= o->max_recursive) {
            decide(f, call, callee, false, "recursive, %u copies (max_recursive %" PRId64 ")", copies,
                   o->max_recursive);
            continue;
        }
        if (!callee || (callee->flags & VM_M_ABSTRACT) || !callee->code || !callee->ncode) {
            decide(f, call, callee, false, "abstract");
            continue;
        }
        if ((callee->flags & VM_M_LAMBDA) && call->op != IR_CALLF) {
            decide(f, call, callee, false, "lambda");
            continue;
        }
        bool hot = inl_count / entries >= IR_HOT_SITE_RATIO;   /* no profile: 0, cold */
        int64_t max_size = hot && o->hot_callee_size > o->max_callee_size ? o->hot_callee_size : o->max_callee_size;
        if ((int64_t)callee->ncode > max_size) {
            decide(f, call, callee, false, "too big (%u > %s %" PRId64 ")", callee->ncode,
                   max_size == o->max_callee_size ? "max_callee_size" : "hot_callee_size", max_size);
            continue;
        }
        VmError err;
        IrFunc *cf = callee_ir(&w, callee, &err);
        if (!cf) {
            decide(f, call, callee, false, "cannot build: %.60s", err.msg);
            continue;
        }
        uint32_t add = splice_size(cf, guard ? 3 : call->op != IR_CALL && call->op != IR_CALLF);
        uint64_t floor = growth <= 100 ? 0 : hot ? IR_HOT_BUDGET : IR_MIN_BUDGET;
        uint64_t cap = limit < floor ? floor : limit;
        bool trivial = callee->ncode <= IR_TRIVIAL_SIZE && growth > 100;
        if (trivial)
            cap += cap / 2;
        if (size + add > cap || size + add > IR_MAX_INSNS) {
            decide(f, call, callee, false, "growth limit (%" PRIu64 " > %" PRIu64 " insns, max_growth %" PRId64 "%%)",
                   size + add, cap < IR_MAX_INSNS ? cap : (uint64_t)IR_MAX_INSNS, growth);
            continue;
        }
        if (gop == IR_GUARD_FN)
            decide(f, call, callee, true, "closure made here%s%s", rec ? ", recursive" : "",
                   max_size > o->max_callee_size ? ", hot site" : "");
        else if (guard && (call->cc || again))
            decide(f, call, callee, true, "polymorphic, class %u: %s%s%s", (unsigned)__builtin_popcount(guarded),
                   ((VmClass *)guard)->name ? ((VmClass *)guard)->name : "?", rec ? ", recursive" : "",
                   max_size > o->max_callee_size ? ", hot site" : "");
        else if (guard)
            decide(f, call, callee, true, "monomorphic %s%s%s", ((VmClass *)guard)->name ? ((VmClass *)guard)->name : "?",
                   rec ? ", recursive" : "", max_size > o->max_callee_size ? ", hot site" : "");
        else if (call->op != IR_CALL)
            decide(f, call, callee, true, "only %s in the class hierarchy%s%s", callee->name ? callee->name : "?",
                   rec ? ", recursive" : "", max_size > o->max_callee_size ? ", hot site" : "");
        else
            decide(f, call, callee, true, "%s%s%s", (callee->flags & VM_M_STATIC) ? "static" : "non-virtual",
                   rec ? ", recursive" : "", max_size > o->max_callee_size ? ", hot site" : "");
        splice(&w, b, idx, cf, gop, guard, inl_count, again);
        size += add;
    }
    direct_calls(f);
    /* the guarded ways were the inliner's scratch: calls compare equal
     * (ir_same_code) whatever guards led to them */
    for (uint32_t i = 0; i < f->nblocks; i++)
        for (uint32_t k = 0; k < f->blocks[i]->ninsns; k++)
            if (is_call(f->blocks[i]->insns[k].op))
                f->blocks[i]->insns[k].cc = 0;
}
