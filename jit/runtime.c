/* jit/runtime.c — the run-time helpers compiled code calls (by address,
 * never by symbol, so the host needs no -rdynamic).
 *
 * Input: the running thread, whose top frame is the compiled method's own
 * (compiled code keeps t->fp there outside calls), and a JitWhere naming
 * the instruction.  Output: errors raised with the interpreter's exact
 * messages and stack traces, interface dispatch, and allocation from
 * inlined code with the inline chain visible to the trace of its errors.
 * Invariants: every raise first makes the frame stack look like the
 * interpreter's at that instruction: the compiled frame's pc at the
 * outermost inlined call, then one frame per inlined level (method, pc,
 * and an empty register window at the compiled frame's top: inlined code
 * keeps its locals on the C stack).  Helpers that return pop the
 * synthetic frames again.
 */
#include "jit_int.h"

#include <string.h>

static const VmInsn *pc_of(VmMethod *m, uint32_t pc)
{
    return m->code && pc < m->ncode ? &m->code[pc] : m->code;
}

void jit_rt_push_chain(VmThread *t, const JitWhere *w)
{
    VmFrame *fp = t->fp;
    fp->pc = pc_of(w->lv[0].m, w->lv[0].pc);
    for (uint32_t k = 1; k < w->n; k++) {
        VmMethod *m = w->lv[k].m;
        VmValue *base = fp->top;
        if (fp + 1 >= t->frames_end)
            vm_raise(t, "stack overflow");
        fp++;
        fp->m = m;
        fp->base = fp->top = base;
        fp->pc = pc_of(m, w->lv[k].pc);
        t->fp = fp;
    }
}

void jit_rt_raise_null(VmThread *t, const JitWhere *w)
{
    jit_rt_push_chain(t, w);
    vm_raise(t, "null dereference");
}

void jit_rt_raise_div0(VmThread *t, const JitWhere *w)
{
    jit_rt_push_chain(t, w);
    vm_raise(t, "division by zero");
}

void jit_rt_raise_bounds(VmThread *t, const JitWhere *w, int64_t i, int64_t n)
{
    jit_rt_push_chain(t, w);
    vm_raise(t, "index out of bounds: index %lld, length %lld", (long long)i, (long long)n);
}

void jit_rt_raise_f2i(VmThread *t, const JitWhere *w, double d)
{
    char buf[64];
    vm_format_float(d, buf, sizeof buf);
    jit_rt_push_chain(t, w);
    vm_raise(t, "float to int: %s is out of range", buf);
}

void jit_rt_raise_cast(VmThread *t, const JitWhere *w, const void *obj, const VmType *ty)
{
    char name[256];
    /* the type belongs to the module of the instruction's method */
    const VmModule *mod = w->lv[w->n - 1].m->module;
    vm_type_format(mod, (uint32_t)(ty - mod->types), name, sizeof name);
    const VmClass *c = ((const VmObject *)obj)->cls;
    jit_rt_push_chain(t, w);
    vm_raise(t, "failed cast: %s to %s", c && c->name ? c->name : "?", name);
}

void jit_rt_raise_overflow(VmThread *t)
{
    vm_raise(t, "stack overflow");
}

int64_t jit_rt_seq(const VmString *a, const VmString *b)
{
    return a == b || (a && b && vm_string_equal(a, b));
}

int64_t jit_rt_instance_of(const void *obj, const VmType *ty)
{
    return vm_instance_of(obj, ty);
}

/* Allocation from inlined code: a quiet attempt first; only when it fails
 * are the inline frames pushed and the raising variant called, which
 * raises with the interpreter's message and trace (or succeeds, if memory
 * was freed meanwhile, and the frames are popped again).  Pushing the
 * chain on every allocation cost more than many allocations themselves. */
#define ALLOC_AT(t, w, try_expr, raise_expr)                                  \
    do {                                                                      \
        void *p_ = (try_expr);                                                \
        if (p_)                                                               \
            return p_;                                                        \
        VmFrame *fp_ = (t)->fp;                                               \
        jit_rt_push_chain((t), (w));                                          \
        p_ = (raise_expr);                                                    \
        (t)->fp = fp_;                                                        \
        return p_;                                                            \
    } while (0)

void *jit_rt_new_object_at(VmThread *t, const JitWhere *w, VmClass *c)
{
    ALLOC_AT(t, w, vm_try_new_object(t, c), vm_new_object(t, c));
}

void *jit_rt_new_array_at(VmThread *t, const JitWhere *w, VmType *ty, int64_t n)
{
    ALLOC_AT(t, w, vm_try_new_array(t, ty, n), vm_new_array(t, ty, n));
}

void *jit_rt_concat_at(VmThread *t, const JitWhere *w, VmString *a, VmString *b)
{
    ALLOC_AT(t, w, vm_try_string_concat(t, a, b), vm_string_concat(t, a, b));
}

void *jit_rt_closure_at(VmThread *t, const JitWhere *w, VmMethod *lam, const VmValue *caps)
{
    ALLOC_AT(t, w, vm_try_new_closure(t, lam, caps), vm_new_closure(t, lam, caps));
}
