/* ir/cfg.c — control-flow facts: edges, order, dominators, loops, freqs.
 *
 * Input: an IrFunc whose blocks end in terminators (build or inline left
 * them so).  Output:
 *   ir_cfg          succs/preds from the terminators, unreachable blocks
 *                   dropped, blocks[] in reverse postorder (id = RPO
 *                   index), idom by Cooper–Harvey–Kennedy ("A Simple,
 *                   Fast Dominance Algorithm", 2001): iterate
 *                   idom(b) = intersect(processed preds) over RPO to a
 *                   fixed point; on RPO numbers it needs no other data.
 *   ir_loops        natural loops: a back edge t→h has h dominating t; the
 *                   loop is h plus every block reaching t without passing
 *                   h; back edges sharing a header make one loop.  Nesting
 *                   by containment (the parent is the smallest loop holding
 *                   the header).  Retreating edges that are not back edges
 *                   (irreducible flow, possible in bytecode) form no loop;
 *                   they only set f->irreducible.
 *   ir_frequencies  freq = count / Σ counts.
 * Invariants: everything is recomputed from the terminators, so any pass
 * that edits blocks just reruns ir_cfg; scratch marks are reset here.
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

void ir_add_pred(IrFunc *f, IrBlock *b, IrBlock *p);

/* Postorder DFS from the entry, iterative (bytecode can be deep). */
static uint32_t postorder(IrFunc *f, IrBlock **out)
{
    uint32_t n = f->nblocks, np = 0, sp = 0;
    IrBlock **stack = ir_alloc(f, (n + 1) * sizeof *stack);
    uint32_t *next = ir_alloc(f, (n + 1) * sizeof *next);
    for (uint32_t i = 0; i < n; i++)
        f->blocks[i]->mark = 0;
    stack[sp] = f->blocks[0];
    next[sp++] = 0;
    f->blocks[0]->mark = 1;
    while (sp) {
        IrBlock *b = stack[sp - 1];
        if (next[sp - 1] < b->nsuccs) {
            IrBlock *s = b->succs[next[sp - 1]++];
            if (!s->mark) {
                s->mark = 1;
                stack[sp] = s;
                next[sp++] = 0;
            }
        } else {
            out[np++] = b;
            sp--;
        }
    }
    return np;
}

static IrBlock *intersect(IrBlock *a, IrBlock *b)
{
    while (a != b) {
        while (a->id > b->id)
            a = a->idom;
        while (b->id > a->id)
            b = b->idom;
    }
    return a;
}

static void dominators(IrFunc *f)
{
    for (uint32_t i = 0; i < f->nblocks; i++)
        f->blocks[i]->idom = NULL;
    IrBlock *entry = f->blocks[0];
    entry->idom = entry;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 1; i < f->nblocks; i++) {
            IrBlock *b = f->blocks[i], *d = NULL;
            for (uint32_t p = 0; p < b->npreds; p++) {
                IrBlock *x = b->preds[p];
                if (x->idom)
                    d = d ? intersect(x, d) : x;
            }
            if (d != b->idom) {
                b->idom = d;
                changed = true;
            }
        }
    }
}

void ir_cfg(IrFunc *f)
{
    if (!f->nblocks)
        return;
    for (uint32_t i = 0; i < f->nblocks; i++) {
        IrBlock *b = f->blocks[i];
        IrInsn *t = ir_terminator(b);
        uint32_t ns = !t ? 0 : t->op == IR_JMP ? 1 : (t->op == IR_BR || t->op == IR_GUARD_CLASS || t->op == IR_GUARD_FN) ? 2 : 0;
        b->nsuccs = ns;
        for (uint32_t s = 0; s < ns; s++)
            b->succs[s] = t->target[s];
        b->npreds = 0;
        b->loop = NULL;
    }
    IrBlock **po = ir_alloc(f, f->nblocks * sizeof *po);
    uint32_t np = postorder(f, po);
    /* reverse postorder; unreachable blocks (mark 0) drop out here */
    for (uint32_t i = 0; i < np; i++) {
        IrBlock *b = po[np - 1 - i];
        f->blocks[i] = b;
        b->id = i;
    }
    f->nblocks = np;
    for (uint32_t i = 0; i < np; i++) {
        IrBlock *b = f->blocks[i];
        for (uint32_t s = 0; s < b->nsuccs; s++)
            ir_add_pred(f, b->succs[s], b);
    }
    dominators(f);
    f->nloops = 0;
    f->loops = NULL;
}

/* ---- loops --------------------------------------------------------------- */

static int cmp_loops(const void *x, const void *y)
{
    const IrLoop *a = *(IrLoop *const *)x, *b = *(IrLoop *const *)y;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    return a->header->id < b->header->id ? -1 : a->header->id > b->header->id;
}

static int cmp_size_desc(const void *x, const void *y)
{
    const IrLoop *a = *(IrLoop *const *)x, *b = *(IrLoop *const *)y;
    if (a->nblocks != b->nblocks)
        return a->nblocks > b->nblocks ? -1 : 1;
    return a->header->id < b->header->id ? -1 : a->header->id > b->header->id;
}

void ir_loops(IrFunc *f)
{
    uint32_t n = f->nblocks;
    f->nloops = 0;
    f->loops = NULL;
    f->irreducible = false;
    if (!n)
        return;
    /* headers: blocks with a back edge into them */
    uint32_t nl = 0;
    IrLoop **loops = ir_alloc(f, n * sizeof *loops);
    bool **member = ir_alloc(f, n * sizeof *member);   /* per loop, by block id */
    IrBlock **work = ir_alloc(f, n * sizeof *work);
    for (uint32_t i = 0; i < n; i++) {
        IrBlock *h = f->blocks[i];
        h->loop = NULL;
        uint32_t nlatch = 0;
        for (uint32_t p = 0; p < h->npreds; p++) {
            IrBlock *t = h->preds[p];
            if (t->id < h->id)
                continue;
            if (ir_dominates(h, t))
                nlatch++;
            else
                f->irreducible = true;   /* retreating, not a back edge */
        }
        if (!nlatch)
            continue;
        IrLoop *lp = ir_alloc(f, sizeof *lp);
        bool *in = ir_alloc(f, n * sizeof *in);
        lp->header = h;
        lp->latches = ir_alloc(f, nlatch * sizeof *lp->latches);
        in[h->id] = true;
        uint32_t sp = 0;
        for (uint32_t p = 0; p < h->npreds; p++) {
            IrBlock *t = h->preds[p];
            if (t->id < h->id || !ir_dominates(h, t))
                continue;
            bool dup = false;
            for (uint32_t k = 0; k < lp->nlatches; k++)
                dup |= lp->latches[k] == t;
            if (!dup)
                lp->latches[lp->nlatches++] = t;
            if (!in[t->id]) {
                in[t->id] = true;
                work[sp++] = t;
            }
        }
        while (sp) {  /* everything reaching a latch without passing h */
            IrBlock *b = work[--sp];
            for (uint32_t p = 0; p < b->npreds; p++) {
                IrBlock *x = b->preds[p];
                if (!in[x->id]) {
                    in[x->id] = true;
                    work[sp++] = x;
                }
            }
        }
        uint32_t cnt = 0;
        for (uint32_t k = 0; k < n; k++)
            cnt += in[k];
        lp->blocks = ir_alloc(f, cnt * sizeof *lp->blocks);
        for (uint32_t k = 0; k < n; k++)     /* header first: it has the lowest id */
            if (in[k])
                lp->blocks[lp->nblocks++] = f->blocks[k];
        member[nl] = in;
        loops[nl++] = lp;
    }
    if (!nl)
        return;
    /* nesting: bigger loops first, so a loop's parent is settled before it */
    bool **mem_by_loop = member;
    for (uint32_t i = 0; i < nl; i++)
        loops[i]->id = i;   /* temporary: index into member[] */
    IrLoop **bysize = ir_alloc(f, nl * sizeof *bysize);
    memcpy(bysize, loops, nl * sizeof *bysize);
    qsort(bysize, nl, sizeof *bysize, cmp_size_desc);
    for (uint32_t i = 0; i < nl; i++) {
        IrLoop *lp = bysize[i];
        IrLoop *parent = NULL;
        for (uint32_t k = 0; k < i; k++) {   /* the smallest earlier loop holding the header */
            IrLoop *q = bysize[k];
            if (mem_by_loop[q->id][lp->header->id] && (!parent || q->nblocks < parent->nblocks))
                parent = q;
        }
        lp->parent = parent;
        lp->depth = parent ? parent->depth + 1 : 1;
        if (parent)
            parent->nchildren++;
        for (uint32_t k = 0; k < lp->nblocks; k++)   /* inner loops come later */
            lp->blocks[k]->loop = lp;
    }
    for (uint32_t i = 0; i < nl; i++) {
        IrLoop *lp = loops[i];
        if (lp->nchildren) {
            lp->children = ir_alloc(f, lp->nchildren * sizeof *lp->children);
            lp->nchildren = 0;
        }
    }
    /* exits: edges from inside to outside */
    for (uint32_t i = 0; i < nl; i++) {
        IrLoop *lp = loops[i];
        bool *in = mem_by_loop[lp->id];
        uint32_t ne = 0;
        for (uint32_t k = 0; k < lp->nblocks; k++)
            for (uint32_t s = 0; s < lp->blocks[k]->nsuccs; s++)
                ne += !in[lp->blocks[k]->succs[s]->id];
        lp->exits = ne ? ir_alloc(f, ne * sizeof *lp->exits) : NULL;
        for (uint32_t k = 0; k < lp->nblocks; k++)
            for (uint32_t s = 0; s < lp->blocks[k]->nsuccs; s++)
                if (!in[lp->blocks[k]->succs[s]->id])
                    lp->exits[lp->nexits++] = (IrEdge){lp->blocks[k], lp->blocks[k]->succs[s]};
    }
    qsort(loops, nl, sizeof *loops, cmp_loops);
    for (uint32_t i = 0; i < nl; i++) {
        loops[i]->id = i;
        if (loops[i]->parent)
            loops[i]->parent->children[loops[i]->parent->nchildren++] = loops[i];
    }
    f->loops = loops;
    f->nloops = nl;
}

void ir_frequencies(IrFunc *f)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < f->nblocks; i++)
        total += f->blocks[i]->count;
    f->has_counts = total != 0;
    for (uint32_t i = 0; i < f->nblocks; i++)
        f->blocks[i]->freq = total ? (double)f->blocks[i]->count / (double)total : 0.0;
}
