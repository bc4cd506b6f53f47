/* ir/deadstore.c — field stores overwritten before anything can read them,
 * and the allocations only such stores held.
 *
 * Input: IR after inlining and cfg (succs/preds).  Output: dead PUTFs and
 * unread NEW/NEWA insns removed, each logged in f->dead (for the dumps);
 * blocks, edges, loops and locals are unchanged.
 *
 * Why: one bytecode class has one constructor, so a library written for
 * it builds a default and replaces it: `let v = Vector(); v.storage = new
 * E[n]` allocates the default 50-slot array only to drop it.  Once both
 * constructors are inlined, the first store is visibly overwritten and
 * its array is garbage from birth; removing the pair spares the heap and
 * the collector the array (Havlak's sets, DeltaBlue's sized vectors).
 *
 * How: along each trace (a block, then the JMP targets that have it as
 * their only predecessor), locals get value numbers (MOV copies one, a
 * GETF of a field stored or read earlier on the trace gives the value
 * seen there), and a store is *pending* until something may read its
 * field.  A PUTF to the same field of the same value number kills the
 * pending one: nothing read it in between, so no execution can tell it
 * happened.  What may read a field of slot s: a GETF of slot s (of any
 * object, unless both are distinct allocations of the trace) and any
 * call; a trace's end makes every pending store live.  Only stores into
 * an object allocated on the trace (NEW) are removed, so a removed store
 * never hides a null check.  Run-time errors are fatal in tally, so a
 * raise between the two stores observes nothing.  Then a NEW, or a NEWA
 * of a non-negative constant length (it cannot raise), whose local no
 * insn reads is removed.
 * Invariants: every insn removed is a PUTF or an allocation; what the
 * program can observe (its output, its errors, where they are raised) is
 * unchanged.
 */
#include "ir.h"

#include <string.h>

enum { MAX_PENDING = 32, MAX_MEM = 32 };

typedef struct Pending {
    IrInsn *in;                /* the PUTF */
    int32_t obj;               /* value number of its object */
    int64_t slot;
} Pending;

typedef struct Mem {
    int32_t obj, val;          /* obj.fields[slot] holds val */
    int64_t slot;
} Mem;

typedef struct Dse {
    IrFunc *f;
    int32_t *vn;               /* per local: its value number on the trace, */
    uint32_t *seen;            /*   valid when seen[l] is the trace's number */
    uint32_t trace;
    uint8_t *fresh;            /* per value number: a NEW of this trace */
    int64_t *konst;            /* per value number: LDI's value, or -1 */
    int32_t next;              /* next value number */
    Pending pend[MAX_PENDING];
    uint32_t npend;
    Mem mem[MAX_MEM];
    uint32_t nmem;
} Dse;

static void log_dead(IrFunc *f, const IrInsn *in, const IrInsn *by)
{
    f->dead = ir_grow(f, f->dead, f->ndead, &f->capdead, sizeof *f->dead);
    IrDead *d = &f->dead[f->ndead++];
    *d = (IrDead){.op = in->op, .origin = in->origin, .pc = in->pc,
                  .by_origin = by ? by->origin : NULL, .by_pc = by ? by->pc : 0};
    if (in->op == IR_PUTF)
        d->what = in->aux ? ((VmField *)in->aux)->name : "?";
    else
        d->what = in->op == IR_NEW && in->aux ? ((VmClass *)in->aux)->name : "array";
}

static int32_t fresh_vn(Dse *d)
{
    int32_t v = d->next++;
    d->fresh[v] = 0;
    d->konst[v] = -1;
    return v;
}

/* A local's value number; one the trace has not met yet is its own. */
static int32_t vn_of(Dse *d, int32_t l)
{
    if (d->seen[l] != d->trace) {
        d->seen[l] = d->trace;
        d->vn[l] = fresh_vn(d);
    }
    return d->vn[l];
}

static void set_vn(Dse *d, int32_t l, int32_t v)
{
    d->seen[l] = d->trace;
    d->vn[l] = v;
}

/* Two value numbers that may be one object. */
static bool may_alias(const Dse *d, int32_t a, int32_t b)
{
    return a == b || !(d->fresh[a] && d->fresh[b]);
}

/* Something reads field `slot` of object `obj` (obj < 0: of any object). */
static void observe(Dse *d, int32_t obj, int64_t slot)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < d->npend; i++)
        if (!(d->pend[i].slot == slot && (obj < 0 || may_alias(d, obj, d->pend[i].obj))))
            d->pend[k++] = d->pend[i];
    d->npend = k;
}

static int32_t mem_find(const Dse *d, int32_t obj, int64_t slot)
{
    for (uint32_t i = 0; i < d->nmem; i++)
        if (d->mem[i].obj == obj && d->mem[i].slot == slot)
            return d->mem[i].val;
    return -1;
}

static void mem_put(Dse *d, int32_t obj, int64_t slot, int32_t val)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < d->nmem; i++)   /* what may alias obj.slot is stale */
        if (!(d->mem[i].slot == slot && may_alias(d, obj, d->mem[i].obj)))
            d->mem[k++] = d->mem[i];
    d->nmem = k;
    if (d->nmem < MAX_MEM)
        d->mem[d->nmem++] = (Mem){obj, val, slot};
}

static void insn(Dse *d, IrInsn *in)
{
    const IrOpInfo *oi = &ir_op_info[in->op];
    switch (in->op) {
    case IR_GETF: {
        int32_t obj = vn_of(d, in->src[0]);
        observe(d, obj, in->imm.i);
        int32_t v = mem_find(d, obj, in->imm.i);
        if (v < 0) {
            v = fresh_vn(d);
            mem_put(d, obj, in->imm.i, v);
        }
        set_vn(d, in->dst, v);
        return;
    }
    case IR_PUTF: {
        int32_t obj = vn_of(d, in->src[0]);
        if (d->fresh[obj]) {
            for (uint32_t i = 0; i < d->npend; i++)
                if (d->pend[i].obj == obj && d->pend[i].slot == in->imm.i) {
                    log_dead(d->f, d->pend[i].in, in);
                    d->pend[i].in->mark = 1;
                    d->pend[i] = d->pend[--d->npend];
                    break;
                }
            if (d->npend < MAX_PENDING)
                d->pend[d->npend++] = (Pending){in, obj, in->imm.i};
        }
        mem_put(d, obj, in->imm.i, vn_of(d, in->src[1]));
        return;
    }
    case IR_MOV:
        set_vn(d, in->dst, vn_of(d, in->src[0]));
        return;
    case IR_NEW:
        set_vn(d, in->dst, fresh_vn(d));
        d->fresh[d->vn[in->dst]] = 1;
        return;
    case IR_LDI:
        set_vn(d, in->dst, fresh_vn(d));
        d->konst[d->vn[in->dst]] = in->imm.i >= 0 ? in->imm.i : -1;
        return;
    case IR_NEWA:
        in->mark = d->konst[vn_of(d, in->src[0])] >= 0 ? 2 : 0;   /* cannot raise */
        break;
    default:
        break;
    }
    if (oi->flags & IR_OPF_CALL)   /* a trace's end (RET, BR, ...) is its head's reset */
        d->npend = d->nmem = 0;
    if (oi->ndst && in->dst >= 0)
        set_vn(d, in->dst, fresh_vn(d));
}

/* A trace's next block: the JMP target that has b as its only predecessor. */
static IrBlock *trace_next(IrBlock *b)
{
    IrInsn *t = ir_terminator(b);
    IrBlock *s = t && t->op == IR_JMP ? t->target[0] : NULL;
    return s && s != b && s->npreds == 1 && s->preds[0] == b ? s : NULL;
}

static void mark_reads(const IrInsn *in, uint8_t *read)
{
    const IrOpInfo *oi = &ir_op_info[in->op];
    if (oi->flags & IR_OPF_ARGS) {
        for (int64_t a = 0; in->src[0] >= 0 && a < in->imm.i; a++)
            read[in->src[0] + a] = 1;
        return;
    }
    for (int s = 0; s < 3; s++)
        if (in->src[s] >= 0)
            read[in->src[s]] = 1;
}

void ir_dead_stores(IrFunc *f)
{
    if (!f->nlocals)
        return;
    uint32_t total = ir_count_insns(f);
    Dse d = {.f = f};
    d.vn = ir_alloc(f, f->nlocals * sizeof *d.vn);
    d.seen = ir_alloc(f, f->nlocals * sizeof *d.seen);
    d.fresh = ir_alloc(f, ((size_t)f->nlocals + total) * sizeof *d.fresh);
    d.konst = ir_alloc(f, ((size_t)f->nlocals + total) * sizeof *d.konst);
    for (uint32_t i = 0; i < f->nblocks; i++) {
        f->blocks[i]->mark = 0;
        for (uint32_t k = 0; k < f->blocks[i]->ninsns; k++)
            f->blocks[i]->insns[k].mark = 0;
    }
    for (uint32_t i = 0; i < f->nblocks; i++)   /* trace members are marked */
        for (IrBlock *s = trace_next(f->blocks[i]); s && !s->mark; s = trace_next(s))
            s->mark = 1;

    for (uint32_t i = 0; i < f->nblocks; i++) {
        if (f->blocks[i]->mark)
            continue;
        d.trace++;   /* every local its own value again */
        d.next = 0;
        d.npend = d.nmem = 0;
        for (IrBlock *b = f->blocks[i]; b; b = trace_next(b))
            for (uint32_t k = 0; k < b->ninsns; k++)
                insn(&d, &b->insns[k]);
    }

    /* removed stores no longer read their values: drop the allocations
     * nothing reads any more */
    uint8_t *read = ir_alloc(f, f->nlocals);
    for (uint32_t i = 0; i < f->nblocks; i++)
        for (uint32_t k = 0; k < f->blocks[i]->ninsns; k++) {
            const IrInsn *in = &f->blocks[i]->insns[k];
            if (!(in->op == IR_PUTF && in->mark == 1))
                mark_reads(in, read);
        }
    for (uint32_t i = 0; i < f->nblocks; i++) {
        IrBlock *b = f->blocks[i];
        uint32_t n = 0;
        for (uint32_t k = 0; k < b->ninsns; k++) {
            IrInsn *in = &b->insns[k];
            bool drop = in->op == IR_PUTF && in->mark == 1;
            if ((in->op == IR_NEW || (in->op == IR_NEWA && in->mark == 2)) && in->dst >= 0 && !read[in->dst]) {
                log_dead(f, in, NULL);
                drop = true;
            }
            in->mark = 0;
            if (!drop)
                b->insns[n++] = *in;
        }
        b->ninsns = n;
        b->mark = 0;
    }
}
