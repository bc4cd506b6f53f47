/* ir/func.c — IR storage: the op tables, the per-function arena, block and
 * insn construction, the invariant checker and the cost model.
 *
 * Input: calls from the passes.  Output: memory owned by one IrFunc.
 * Invariants: every allocation comes from the function's arena and dies
 * with ir_free; allocation failure never returns NULL to a pass, it
 * longjmps to f->oom (set by ir_compile), so passes need no error paths
 * for memory.  Growable arrays double and copy (the old copy stays in the
 * arena until ir_free: IR functions are small and short-lived).
 */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

const IrOpInfo ir_op_info[IR_OP_COUNT] = {
#define IROP(op_, nd, ns, cost_, flags_, summary_) \
    [IR_##op_] = {.name = #op_, .ndst = nd, .nsrc = ns, .cost = cost_, .flags = flags_, .summary = summary_},
#include "ops.def"
#undef IROP
};

const IrCondInfo ir_cond_info[IR_CC_COUNT] = {
#define IROP(...)
#define IRCC(name_, neg, ns, summary_) \
    [IR_CC_##name_] = {.name = #name_, .negation = IR_CC_##neg, .nsrc = ns, .summary = summary_},
#include "ops.def"
#undef IRCC
#undef IROP
};

/* ---- arena --------------------------------------------------------------- */

struct IrChunk {
    IrChunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

#define CHUNK_SIZE (64 * 1024)

void *ir_alloc(IrFunc *f, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    while (f->arena_of)
        f = f->arena_of;
    IrChunk *c = f->arena;
    if (!c || c->size - c->used < size) {
        size_t want = size > CHUNK_SIZE ? size : CHUNK_SIZE;
        c = vm_fault(VM_FAULT_ALLOC) ? NULL : malloc(sizeof *c + want);
        if (!c) {
            if (f->oom)
                longjmp(*f->oom, 1);
            abort();  /* unreachable: ir_compile always sets f->oom */
        }
        c->size = want;
        c->used = 0;
        c->next = f->arena;
        f->arena = c;
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

void *ir_grow(IrFunc *f, void *arr, uint32_t n, uint32_t *cap, size_t elem)
{
    if (n < *cap)
        return arr;
    uint32_t nc = *cap ? *cap * 2 : 8;
    void *p = ir_alloc(f, nc * elem);
    if (arr)
        memcpy(p, arr, n * elem);
    *cap = nc;
    return p;
}

IrFunc *ir_func_new(VmMethod *m)
{
    IrFunc *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->method = m;
    f->module = m ? m->module : NULL;
    return f;
}

void ir_free(IrFunc *f)
{
    if (!f)
        return;
    for (IrChunk *c = f->arena, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(f);
}

IrBlock *ir_block_new(IrFunc *f, VmMethod *origin, uint32_t pc)
{
    IrBlock *b = ir_alloc(f, sizeof *b);
    b->origin = origin;
    b->pc = pc;
    f->blocks = ir_grow(f, f->blocks, f->nblocks, &f->capblocks, sizeof *f->blocks);
    b->id = f->nblocks;
    f->blocks[f->nblocks++] = b;
    return b;
}

IrInsn *ir_append(IrFunc *f, IrBlock *b, IrOp op)
{
    b->insns = ir_grow(f, b->insns, b->ninsns, &b->capinsns, sizeof *b->insns);
    IrInsn *in = &b->insns[b->ninsns++];
    memset(in, 0, sizeof *in);
    in->op = op;
    in->dst = in->src[0] = in->src[1] = in->src[2] = IR_NONE;
    in->origin = b->origin;
    in->pc = UINT32_MAX;
    in->depth = (uint8_t)b->depth;
    return in;
}

uint32_t ir_local_new(IrFunc *f, VmType *type, VmMethod *origin, uint32_t reg)
{
    f->locals = ir_grow(f, f->locals, f->nlocals, &f->caplocals, sizeof *f->locals);
    f->locals[f->nlocals] = (IrLocal){.type = type, .origin = origin, .reg = reg};
    return f->nlocals++;
}

/* Used by cfg.c: appends p to b's predecessor list. */
void ir_add_pred(IrFunc *f, IrBlock *b, IrBlock *p);
void ir_add_pred(IrFunc *f, IrBlock *b, IrBlock *p)
{
    b->preds = ir_grow(f, b->preds, b->npreds, &b->cappreds, sizeof *b->preds);
    b->preds[b->npreds++] = p;
}

IrInsn *ir_terminator(const IrBlock *b)
{
    if (!b->ninsns)
        return NULL;
    IrInsn *in = &b->insns[b->ninsns - 1];
    return in->op < IR_OP_COUNT && (ir_op_info[in->op].flags & IR_OPF_TERM) ? in : NULL;
}

uint32_t ir_count_insns(const IrFunc *f)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->nblocks; i++)
        n += f->blocks[i]->ninsns;
    return n;
}

bool ir_dominates(const IrBlock *a, const IrBlock *b)
{
    /* walk b's idom chain; ids fall along it (RPO order), so it ends */
    for (const IrBlock *x = b; x; x = x->idom) {
        if (x == a)
            return true;
        if (x->idom == x || (x->idom && x->idom->id >= x->id))
            break;  /* the entry, or a malformed chain (ir_check reports it) */
    }
    return false;
}

/* ---- invariants ---------------------------------------------------------- */

static uint32_t count_ptr(IrBlock *const *arr, uint32_t n, const IrBlock *p)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        k += arr[i] == p;
    return k;
}

bool ir_check(const IrFunc *f, VmError *err)
{
    const char *name = f->method ? f->method->name : "?";
    if (!f->nblocks)
        return vm_fail(err, "%s: no blocks", name);
    if (f->blocks[0]->npreds)
        return vm_fail(err, "%s: entry block has predecessors", name);
    if (f->blocks[0]->idom != f->blocks[0])
        return vm_fail(err, "%s: idom of entry is not entry", name);
    uint64_t total = 0;
    double fsum = 0;
    for (uint32_t i = 0; i < f->nblocks; i++) {
        const IrBlock *b = f->blocks[i];
        if (b->id != i)
            return vm_fail(err, "%s: b%u has id %u", name, i, b->id);
        for (uint32_t k = 0; k < b->ninsns; k++) {
            const IrInsn *in = &b->insns[k];
            if (in->op >= IR_OP_COUNT)
                return vm_fail(err, "%s: b%u insn %u: bad op", name, i, k);
            bool term = ir_op_info[in->op].flags & IR_OPF_TERM;
            if (term != (k + 1 == b->ninsns))
                return vm_fail(err, "%s: b%u insn %u: %s", name, i, k,
                               term ? "terminator before the end" : "block does not end in a terminator");
            const IrOpInfo *oi = &ir_op_info[in->op];
            int32_t locs[4] = {in->dst, in->src[0], in->src[1], in->src[2]};
            for (int j = 0; j < 4; j++)
                if (locs[j] != IR_NONE && (locs[j] < 0 || (uint32_t)locs[j] >= f->nlocals))
                    return vm_fail(err, "%s: b%u insn %u: local %d out of range", name, i, k, locs[j]);
            if (oi->ndst && in->dst == IR_NONE && !(oi->flags & IR_OPF_CALL))
                return vm_fail(err, "%s: b%u insn %u: %s without dst", name, i, k, oi->name);
            if (in->op == IR_BR && in->cc >= IR_CC_COUNT)
                return vm_fail(err, "%s: b%u: bad condition code", name, i);
            if ((oi->flags & IR_OPF_ARGS) && in->src[0] != IR_NONE &&
                (in->imm.i < 0 || (uint64_t)in->src[0] + (uint64_t)in->imm.i > f->nlocals))
                return vm_fail(err, "%s: b%u insn %u: arguments out of range", name, i, k);
        }
        const IrInsn *t = ir_terminator(b);
        if (!t)
            return vm_fail(err, "%s: b%u has no terminator", name, i);
        uint32_t want = t->op == IR_JMP ? 1 : (t->op == IR_BR || t->op == IR_GUARD_CLASS || t->op == IR_GUARD_FN) ? 2 : 0;
        if (b->nsuccs != want)
            return vm_fail(err, "%s: b%u: %u succs, terminator has %u", name, i, b->nsuccs, want);
        for (uint32_t s = 0; s < b->nsuccs; s++) {
            const IrBlock *x = b->succs[s];
            if (x != t->target[s])
                return vm_fail(err, "%s: b%u: succ %u differs from the terminator's target", name, i, s);
            if (!x || x->id >= f->nblocks || f->blocks[x->id] != x)
                return vm_fail(err, "%s: b%u: succ %u is not a block of the function", name, i, s);
            if (count_ptr(x->preds, x->npreds, b) != count_ptr(b->succs, b->nsuccs, x))
                return vm_fail(err, "%s: b%u -> b%u: preds and succs disagree", name, i, x->id);
        }
        for (uint32_t p = 0; p < b->npreds; p++) {
            const IrBlock *x = b->preds[p];
            if (!x || x->id >= f->nblocks || f->blocks[x->id] != x ||
                count_ptr(x->succs, x->nsuccs, b) != count_ptr(b->preds, b->npreds, x))
                return vm_fail(err, "%s: b%u: pred %u and succs disagree", name, i, p);
        }
        if (i && (!b->idom || b->idom == b || b->idom->id >= i))
            return vm_fail(err, "%s: b%u: bad idom", name, i);
        for (uint32_t p = 0; p < b->npreds; p++)
            if (i && !ir_dominates(b->idom, b->preds[p]))
                return vm_fail(err, "%s: b%u: idom b%u does not dominate pred b%u", name, i,
                               b->idom->id, b->preds[p]->id);
        total += b->count;
        fsum += b->freq;
    }
    for (uint32_t l = 0; l < f->nloops; l++) {
        const IrLoop *lp = f->loops[l];
        if (lp->id != l || !lp->nblocks || lp->blocks[0] != lp->header)
            return vm_fail(err, "%s: loop %u malformed", name, l);
        if (l && lp->depth < f->loops[l - 1]->depth)
            return vm_fail(err, "%s: loop %u listed before an outer loop", name, l);
        if (lp->depth != (lp->parent ? lp->parent->depth + 1 : 1))
            return vm_fail(err, "%s: loop %u: depth %u disagrees with its parent", name, l, lp->depth);
        for (uint32_t k = 0; k < lp->nblocks; k++)
            if (!ir_dominates(lp->header, lp->blocks[k]))
                return vm_fail(err, "%s: loop %u: header b%u does not dominate b%u", name, l,
                               lp->header->id, lp->blocks[k]->id);
    }
    if (total && (fsum < 1 - 1e-9 || fsum > 1 + 1e-9))
        return vm_fail(err, "%s: frequencies sum to %.12g", name, fsum);
    return true;
}

/* ---- cost ---------------------------------------------------------------- */

static uint64_t block_cost(const IrBlock *b)
{
    uint64_t c = 0;
    for (uint32_t k = 0; k < b->ninsns; k++)
        if (b->insns[k].op < IR_OP_COUNT)
            c += ir_op_info[b->insns[k].op].cost;
    return c;
}

double ir_cost(const IrFunc *f)
{
    double c = 0;
    for (uint32_t i = 0; i < f->nblocks; i++)
        c += f->blocks[i]->freq * (double)block_cost(f->blocks[i]);
    return c;
}

uint64_t ir_static_cost(const IrFunc *f)
{
    uint64_t c = 0;
    for (uint32_t i = 0; i < f->nblocks; i++)
        c += block_cost(f->blocks[i]);
    return c;
}

bool ir_cost_bound(const IrFunc *f, uint64_t *bound)
{
    if (f->nloops)
        return false;
    for (uint32_t i = 0; i < f->nblocks; i++)
        for (uint32_t k = 0; k < f->blocks[i]->ninsns; k++) {
            IrOp op = f->blocks[i]->insns[k].op;
            if (op >= IR_OP_COUNT || (ir_op_info[op].flags & (IR_OPF_CALL | IR_OPF_VAR)))
                return false;
        }
    *bound = ir_static_cost(f);
    return true;
}

/* An inline chain's content: the error descriptors codegen makes of it. */
static bool same_site(const IrInline *a, const IrInline *b)
{
    for (; a && b; a = a->parent, b = b->parent)
        if (a->callee != b->callee || a->caller != b->caller || a->call_pc != b->call_pc || a->depth != b->depth ||
            a->first_local != b->first_local || a->guard != b->guard)
            return false;
    return a == b;   /* both NULL */
}

static bool same_target(const IrBlock *a, const IrBlock *b)
{
    return a && b ? a->id == b->id : a == b;
}

static bool same_insn(const IrInsn *a, const IrInsn *b)
{
    return a->op == b->op && a->cc == b->cc && a->depth == b->depth && a->dst == b->dst &&
           a->src[0] == b->src[0] && a->src[1] == b->src[1] && a->src[2] == b->src[2] &&
           !memcmp(&a->imm, &b->imm, sizeof a->imm) && a->aux == b->aux && same_target(a->target[0], b->target[0]) &&
           same_target(a->target[1], b->target[1]) && a->origin == b->origin && a->pc == b->pc &&
           same_site(a->site, b->site);
}

bool ir_same_code(const IrFunc *a, const IrFunc *b)
{
    if (a->method != b->method || a->nparams != b->nparams || a->nlocals != b->nlocals || a->nslots != b->nslots ||
        a->nblocks != b->nblocks)
        return false;
    for (uint32_t i = 0; i < a->nlocals; i++)
        if (a->locals[i].type != b->locals[i].type || a->locals[i].origin != b->locals[i].origin ||
            a->locals[i].reg != b->locals[i].reg)
            return false;
    for (uint32_t i = 0; i < a->nblocks; i++) {
        const IrBlock *x = a->blocks[i], *y = b->blocks[i];
        if (x->id != y->id || x->origin != y->origin || x->pc != y->pc || x->depth != y->depth ||
            x->nsuccs != y->nsuccs || x->ninsns != y->ninsns)
            return false;
        for (uint32_t k = 0; k < x->nsuccs; k++)
            if (!same_target(x->succs[k], y->succs[k]))
                return false;
        for (uint32_t k = 0; k < x->ninsns; k++)
            if (!same_insn(&x->insns[k], &y->insns[k]))
                return false;
    }
    return true;
}
