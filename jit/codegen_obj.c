/* jit/codegen_obj.c — compiled allocation and type tests.
 *
 * Input: an IR NEW / NEWA / CLOS / SEQ / INSTANCEOF-like instruction in the
 * function codegen.c is building (JitCg, cg.h).  Output: gccjit code that
 * allocates small pointer-holding objects, arrays of references and
 * closures from the thread's free list (t->gc_fl, vm/object.c's layout and
 * header), calling the runtime only when the list is empty or the object
 * is of another kind; type tests decided inline except for interfaces;
 * string equality decided inline for the cheap cases.
 * Invariants: an object popped from the free list is reachable at every
 * point (first from the list, a root; then from a local); the runtime's
 * allocation (and its "out of memory" with the interpreter's trace) is
 * the fallback of every fast path.
 */
#include "cg.h"

#include <inttypes.h>

/* Allocation: fn_plain(t, extra...) with the pc saved, or fn_at(t, where,
 * extra...) from inlined code. */
gcc_jit_rvalue *jit_cg_alloc_call(JitCg *g, const IrInsn *in, void *fn_plain, void *fn_at, int n,
                                  gcc_jit_type **et, gcc_jit_rvalue **ea)
{
    gcc_jit_type *pt[5] = {g->t_vptr};
    gcc_jit_rvalue *a[5] = {g->thread};
    int k = 1;
    if (in->site) {
        pt[k] = g->t_vptr;
        a[k++] = ptr(g, jit_cg_where(g, in));
    } else {
        jit_cg_out_begin(g, in);
    }
    for (int i = 0; i < n; i++) {
        pt[k] = et[i];
        a[k++] = ea[i];
    }
    return call(g, in->site ? fn_at : fn_plain, g->t_vptr, k, pt, a);
}

/* The inline fast path of vm_alloc for a small object: obj = the head of
 * t->gc_fl[idx] (t->gc_fl_atomic[idx] for a pointer-free one), which is
 * popped, or a jump to slow when the list holds no object (a head up to
 * VM_GC_FL_EMPTY; object.c's fl_pop, which refills it).  The
 * collector cleared every word of a pointer-holding object but the link
 * before listing it, and none of a pointer-free one (the caller clears
 * that); the caller writes the header over the link at once.  GC-safe at
 * every instruction: the object is reachable from the list (a root) until
 * the pop, from obj after it, and the link word it still holds until then
 * points into the list as well (the atomic lists' links are roots one by
 * one: vm/object.c).  Nothing raises here, so no pc is saved; the slow
 * block calls the runtime. */
static void alloc_pop(JitCg *g, gcc_jit_lvalue *obj, gcc_jit_rvalue *idx, gcc_jit_block *slow, bool atomic)
{
    gcc_jit_lvalue *head = elem(g, g->thread, atomic ? offsetof(VmThread, gc_fl_atomic) : offsetof(VmThread, gc_fl),
                                g->t_vptr, idx);
    assign(g, obj, rv(head));
    gcc_jit_block *ok = blk(g);
    gcc_jit_rvalue *empty = cmp(g, GCC_JIT_COMPARISON_LE, rv(obj), ptr(g, (void *)(uintptr_t)VM_GC_FL_EMPTY));
    gcc_jit_block_end_with_conditional(g->cur, NULL, unlikely(g, empty), slow, ok);
    g->cur = ok;
    gcc_jit_lvalue *next = temp(g, g->t_vptr);
    assign(g, next, rv(mem(g, rv(obj), 0, g->t_vptr)));
    assign(g, head, rv(next));
    /* the next object of this size comes from memory the sweep touched
     * long ago: fetch it now, while this one is being filled, or the next
     * pop waits for it (a count or NULL there does not fault) */
    if (g->prefetch) {
        gcc_jit_rvalue *a[2] = {rv(next), gcc_jit_context_new_rvalue_from_int(g->c, g->t_int, 1)};
        gcc_jit_block_add_eval(g->cur, NULL, gcc_jit_context_new_call(g->c, NULL, g->prefetch, 2, a));
    }
}

/* Ends an inline allocation: the fast path (g->cur, header written) and
 * the slow block (which assigns obj from the runtime call `call_slow`
 * emitted there) join; dst = obj. */
typedef gcc_jit_rvalue *(*SlowAlloc)(JitCg *g, const IrInsn *in);

static void alloc_join(JitCg *g, const IrInsn *in, gcc_jit_lvalue *obj, gcc_jit_block *slow, SlowAlloc call_slow)
{
    gcc_jit_block *join = blk(g);
    gcc_jit_block_end_with_jump(g->cur, NULL, join);
    g->cur = slow;
    assign(g, obj, call_slow(g, in));
    gcc_jit_block_end_with_jump(g->cur, NULL, join);
    g->cur = join;
    assign(g, g->loc[in->dst], rv(obj));
}

static gcc_jit_rvalue *slow_new(JitCg *g, const IrInsn *in)
{
    gcc_jit_type *et[1] = {g->t_vptr};
    gcc_jit_rvalue *ea[1] = {ptr(g, in->aux)};
    return jit_cg_alloc_call(g, in, JIT_FN(vm_new_object), JIT_FN(jit_rt_new_object_at), 1, et, ea);
}

static gcc_jit_rvalue *slow_newa(JitCg *g, const IrInsn *in)
{
    gcc_jit_type *et[2] = {g->t_vptr, g->t_long};
    gcc_jit_rvalue *ea[2] = {ptr(g, in->aux), R(g, in->src[0])};
    return jit_cg_alloc_call(g, in, JIT_FN(vm_new_array), JIT_FN(jit_rt_new_array_at), 2, et, ea);
}

static gcc_jit_rvalue *slow_clos(JitCg *g, const IrInsn *in)
{
    gcc_jit_rvalue *caps = in->imm.i > 0 ? jit_cg_marshal(g, in->src[0], in->imm.i) : jit_cg_marshal(g, 0, 0);
    gcc_jit_type *et[2] = {g->t_vptr, g->t_valuep};
    gcc_jit_rvalue *ea[2] = {ptr(g, in->aux), caps};
    return jit_cg_alloc_call(g, in, JIT_FN(vm_new_closure), JIT_FN(jit_rt_closure_at), 2, et, ea);
}

void jit_cg_emit_new(JitCg *g, const IrInsn *in)
{
    VmClass *c = in->aux;
    size_t size = vm_object_size(c);
    int idx = c->has_refs || size % sizeof(VmValue) == 0 ? vm_gc_fl_index(size) : -1;
    if (idx < 0) {
        assign(g, g->loc[in->dst], slow_new(g, in));
        return;
    }
    gcc_jit_lvalue *o = temp(g, g->t_vptr);
    gcc_jit_block *slow = blk(g);
    alloc_pop(g, o, lng(g, idx), slow, !c->has_refs);
    if (!c->has_refs)   /* its fields (Vector3D's three floats): zero */
        for (size_t off = sizeof(void *); off + sizeof(VmValue) <= size; off += sizeof(VmValue))
            assign(g, mem(g, rv(o), off, g->t_long), lng(g, 0));
    assign(g, mem(g, rv(o), offsetof(VmObject, cls), g->t_vptr), ptr(g, c));
    alloc_join(g, in, o, slow, slow_new);
}

/* An object in the frame (ir/escape.c): a block of words laid out as the
 * heap object, one per NEWL/CLOSL insn (its OSR copy shares it), reused
 * each time the insn runs.  The collector scans it with the C stack, so
 * references in it keep their objects alive; gcc sees every access at a
 * constant offset and may keep the fields in registers.  memset, not
 * typed stores, clears it: each field is then read and written only with
 * its own type, and gcc knows what memset leaves.  Returns its address. */
static gcc_jit_rvalue *frame_object(JitCg *g, const IrInsn *in, size_t bytes)
{
    size_t words = (bytes + sizeof(VmValue) - 1) / sizeof(VmValue);
    gcc_jit_lvalue *s = NULL;
    for (uint32_t i = 0; i < g->nslots && !s; i++)
        if (g->slot_insn[i] == in)
            s = g->slots[i];
    if (!s) {
        if (g->nslots >= g->f->nslots) {
            g->failed = true;
            vm_fail(g->err, "%s: more frame objects than the escape pass counted", g->m->name);
            return NULL;
        }
        char name[32];
        snprintf(name, sizeof name, "slot%u", g->nslots);
        s = gcc_jit_function_new_local(g->fn, NULL, gcc_jit_context_new_array_type(g->c, NULL, g->t_vptr, (int)words),
                                       name);
        g->slot_insn[g->nslots] = in;
        g->slots[g->nslots++] = s;
    }
    gcc_jit_rvalue *o = cast(g, gcc_jit_lvalue_get_address(s, NULL), g->t_vptr);
    /* size_t, not unsigned long: the builtin takes size_t, and gccjit may
     * tell the two apart (it failed such compiles under --jit=eager) */
    gcc_jit_type *t_size = gcc_jit_context_get_type(g->c, GCC_JIT_TYPE_SIZE_T);
    gcc_jit_rvalue *a[3] = {o, gcc_jit_context_zero(g->c, g->t_int),
                            gcc_jit_context_new_rvalue_from_long(g->c, t_size, (long)(words * sizeof(VmValue)))};
    if (g->memset) {
        eval(g, gcc_jit_context_new_call(g->c, NULL, g->memset, 3, a));
    } else {
        gcc_jit_type *pt[3] = {g->t_vptr, g->t_int, t_size};
        eval(g, call(g, JIT_FN(memset), g->t_vptr, 3, pt, a));
    }
    return o;
}

void jit_cg_emit_newl(JitCg *g, const IrInsn *in)
{
    VmClass *c = in->aux;
    gcc_jit_rvalue *o = frame_object(g, in, vm_object_size(c));
    if (!o)
        return;
    assign(g, mem(g, o, offsetof(VmObject, cls), g->t_vptr), ptr(g, c));
    assign(g, g->loc[in->dst], o);
}

void jit_cg_emit_newal(JitCg *g, const IrInsn *in)
{
    VmType *ty = in->aux;
    gcc_jit_rvalue *o = frame_object(g, in, vm_array_size(ty, in->imm.i));
    if (!o)
        return;
    assign(g, mem(g, o, offsetof(VmArray, cls), g->t_vptr), ptr(g, vm_array_class(ty)));
    assign(g, mem(g, o, offsetof(VmArray, length), g->t_len), gcc_jit_context_new_rvalue_from_long(g->c, g->t_len, in->imm.i));
    assign(g, g->loc[in->dst], o);
}

void jit_cg_emit_closl(JitCg *g, const IrInsn *in)
{
    VmMethod *lam = in->aux;
    if (in->imm.i != (int64_t)lam->ncaps) {
        g->failed = true;
        vm_fail(g->err, "%s: CLOSL of %s with %" PRId64 " captures", g->m->name, lam->name, in->imm.i);
        return;
    }
    gcc_jit_rvalue *o = frame_object(g, in, vm_closure_size(lam));
    if (!o)
        return;
    assign(g, mem(g, o, offsetof(VmClosure, cls), g->t_vptr), ptr(g, vm_closure_class(lam)));
    assign(g, mem(g, o, offsetof(VmClosure, method), g->t_vptr), ptr(g, lam));
    for (int64_t i = 0; i < in->imm.i; i++) {
        int32_t l = in->src[0] + (int32_t)i;
        assign(g, mem(g, o, offsetof(VmClosure, caps) + (size_t)i * sizeof(VmValue), jit_cg_local_type(g, l)), R(g, l));
    }
    assign(g, g->loc[in->dst], o);
}

/* Arrays of references with 1..maxn elements take the fast path; the
 * free-list index is computed from the length as vm_gc_fl_index does
 * (checked here for every length of the range). */
void jit_cg_emit_newa(JitCg *g, const IrInsn *in)
{
    VmType *ty = in->aux;
    bool refs;
    size_t esz = vm_array_elem_size(ty, &refs);
    size_t head = offsetof(VmArray, data);
    int64_t maxn = 0;
    while (refs && head + (size_t)(maxn + 1) * esz >= sizeof(VmArray)) {
        size_t size = head + (size_t)(maxn + 1) * esz;
        int idx = vm_gc_fl_index(size);
        if (idx < 0 || (size_t)idx != (size + VM_GC_SLACK) / VM_GC_GRANULE)
            break;
        maxn++;
    }
    if (maxn == 0) {
        assign(g, g->loc[in->dst], slow_newa(g, in));
        return;
    }
    gcc_jit_lvalue *n = temp(g, g->t_long), *o = temp(g, g->t_vptr);
    assign(g, n, R(g, in->src[0]));
    gcc_jit_block *slow = blk(g), *small = blk(g);
    gcc_jit_rvalue *fits = cmp(g, GCC_JIT_COMPARISON_LT, cast(g, wrap(g, GCC_JIT_BINARY_OP_MINUS, rv(n), lng(g, 1)), g->t_ulong),
                               gcc_jit_context_new_rvalue_from_long(g->c, g->t_ulong, maxn));
    gcc_jit_block_end_with_conditional(g->cur, NULL, fits, small, slow);
    g->cur = small;
    /* unsigned: the length is positive here, and the division a shift */
    gcc_jit_rvalue *bytes = wrap(g, GCC_JIT_BINARY_OP_PLUS, lng(g, (int64_t)(head + VM_GC_SLACK)),
                                 wrap(g, GCC_JIT_BINARY_OP_MULT, rv(n), lng(g, (int64_t)esz)));
    gcc_jit_rvalue *idx = bin(g, GCC_JIT_BINARY_OP_DIVIDE, g->t_ulong, cast(g, bytes, g->t_ulong),
                              gcc_jit_context_new_rvalue_from_long(g->c, g->t_ulong, VM_GC_GRANULE));
    alloc_pop(g, o, idx, slow, false);
    assign(g, mem(g, rv(o), offsetof(VmArray, cls), g->t_vptr), ptr(g, vm_array_class(ty)));
    assign(g, mem(g, rv(o), offsetof(VmArray, length), g->t_len), cast(g, rv(n), g->t_len));
    alloc_join(g, in, o, slow, slow_newa);
}

void jit_cg_emit_clos(JitCg *g, const IrInsn *in)
{
    VmMethod *lam = in->aux;
    int idx = vm_gc_fl_index(vm_closure_size(lam));
    if (idx < 0 || in->imm.i != (int64_t)lam->ncaps) {
        assign(g, g->loc[in->dst], slow_clos(g, in));
        return;
    }
    gcc_jit_lvalue *o = temp(g, g->t_vptr);
    gcc_jit_block *slow = blk(g);
    alloc_pop(g, o, lng(g, idx), slow, false);
    assign(g, mem(g, rv(o), offsetof(VmClosure, cls), g->t_vptr), ptr(g, vm_closure_class(lam)));
    assign(g, mem(g, rv(o), offsetof(VmClosure, method), g->t_vptr), ptr(g, lam));
    for (int64_t i = 0; i < in->imm.i; i++) {
        int32_t l = in->src[0] + (int32_t)i;
        assign(g, mem(g, rv(o), offsetof(VmClosure, caps) + (size_t)i * sizeof(VmValue), jit_cg_local_type(g, l)), R(g, l));
    }
    alloc_join(g, in, o, slow, slow_clos);
}

/* ---- type tests --------------------------------------------------------------- */

enum { IFACE_CLASSES = 4 };   /* compared inline; more: vm_instance_of */

/* The classes of module `mod` whose instances are of interface `iface`,
 * at most IFACE_CLASSES of them; false if more or not known.  Instances
 * are of the module's concrete classes, strings, arrays and closures, and
 * only the first implement interfaces. */
static bool iface_classes(const VmModule *mod, const VmClass *iface, VmClass **impl, uint32_t *n)
{
    *n = 0;
    if (!mod || !iface)
        return false;
    bool ours = false;
    for (uint32_t i = 0; i < mod->nclasses; i++)
        ours |= &mod->classes[i] == iface;
    if (!ours)
        return false;
    for (uint32_t i = 0; i < mod->nclasses; i++) {
        VmClass *c = &mod->classes[i];
        if (c->rkind != VM_RK_INSTANCE || (c->flags & (VM_C_ABSTRACT | VM_C_INTERFACE)))
            continue;
        bool has = false;
        for (uint32_t k = 0; k < c->nall_ifaces; k++)
            has |= c->all_ifaces[k] == iface;
        if (!has)
            continue;
        if (*n == IFACE_CLASSES)
            return false;
        impl[(*n)++] = c;
    }
    return true;
}

/* dst = (o is of type ty) as long; o non-null is established by the caller's
 * branch.  Class targets inline the display test of the interpreter. */
void jit_cg_instance_test(JitCg *g, gcc_jit_lvalue *dst, gcc_jit_rvalue *o, const VmType *ty)
{
    if (ty->kind == VM_T_CLASS && ty->cls) {
        VmClass *k = ty->cls;
        gcc_jit_block *has = blk(g), *deep = blk(g), *done = blk(g);
        assign(g, dst, lng(g, 0));
        assign(g, g->tmp_c, rv(mem(g, o, offsetof(VmObject, cls), g->t_vptr)));
        gcc_jit_rvalue *disp = rv(mem(g, rv(g->tmp_c), offsetof(VmClass, display), g->t_vptr));
        gcc_jit_block_end_with_conditional(g->cur, NULL, cmp(g, GCC_JIT_COMPARISON_NE, disp, null(g)), has, done);
        g->cur = has;
        gcc_jit_rvalue *depth = rv(mem(g, rv(g->tmp_c), offsetof(VmClass, depth), g->t_uint));
        gcc_jit_block_end_with_conditional(
            g->cur, NULL,
            cmp(g, GCC_JIT_COMPARISON_GE, depth, gcc_jit_context_new_rvalue_from_int(g->c, g->t_uint, (int)k->depth)),
            deep, done);
        g->cur = deep;
        gcc_jit_rvalue *at = rv(mem(g, disp, (size_t)k->depth * sizeof(void *), g->t_vptr));
        assign(g, dst, to_long(g, cmp(g, GCC_JIT_COMPARISON_EQ, at, ptr(g, k))));
        gcc_jit_block_end_with_jump(g->cur, NULL, done);
        g->cur = done;
        return;
    }
    /* vm_instance_of's other cases that need no search: the checked casts
     * of erased generics (an Object[] element to string, to T[]) are common */
    switch (ty->kind) {
    case VM_T_IFACE: {
        /* a program is one module: the classes that can have instances and
         * implement the interface are all known now (a dictionary's key
         * cast to CustomHash) */
        VmClass *impl[IFACE_CLASSES];
        uint32_t n;
        if (!iface_classes(g->f->module, ty->cls, impl, &n))
            break;
        assign(g, g->tmp_c, rv(mem(g, o, offsetof(VmObject, cls), g->t_vptr)));
        gcc_jit_rvalue *e = gcc_jit_context_new_rvalue_from_int(g->c, g->t_bool, 0);
        for (uint32_t i = 0; i < n; i++)
            e = gcc_jit_context_new_binary_op(g->c, NULL, GCC_JIT_BINARY_OP_LOGICAL_OR, g->t_bool, e,
                                              cmp(g, GCC_JIT_COMPARISON_EQ, rv(g->tmp_c), ptr(g, impl[i])));
        assign(g, dst, to_long(g, e));
        return;
    }
    case VM_T_OBJECT:
        assign(g, dst, to_long(g, cmp(g, GCC_JIT_COMPARISON_NE, rv(mem(g, o, offsetof(VmObject, cls), g->t_vptr)),
                                      null(g))));
        return;
    case VM_T_STRING: {
        gcc_jit_block *has = blk(g), *done = blk(g);
        assign(g, dst, lng(g, 0));
        assign(g, g->tmp_c, rv(mem(g, o, offsetof(VmObject, cls), g->t_vptr)));
        gcc_jit_block_end_with_conditional(g->cur, NULL, cmp(g, GCC_JIT_COMPARISON_NE, rv(g->tmp_c), null(g)), has,
                                           done);
        g->cur = has;
        gcc_jit_rvalue *rk = rv(mem(g, rv(g->tmp_c), offsetof(VmClass, rkind), g->t_uchar));
        assign(g, dst, to_long(g, cmp(g, GCC_JIT_COMPARISON_EQ, rk,
                                      gcc_jit_context_new_rvalue_from_int(g->c, g->t_uchar, VM_RK_STRING))));
        gcc_jit_block_end_with_jump(g->cur, NULL, done);
        g->cur = done;
        return;
    }
    case VM_T_ARRAY:
    case VM_T_FUNC: {
        const VmType *canon = ty->canon ? ty->canon : ty;
        if (!canon->cls)
            break;
        gcc_jit_rvalue *cls = rv(mem(g, o, offsetof(VmObject, cls), g->t_vptr));
        assign(g, dst, to_long(g, cmp(g, GCC_JIT_COMPARISON_EQ, cls, ptr(g, canon->cls))));
        return;
    }
    default:
        break;
    }
    gcc_jit_type *pt[2] = {g->t_vptr, g->t_vptr};
    gcc_jit_rvalue *a[2] = {o, ptr(g, ty)};
    assign(g, dst, call(g, JIT_FN(jit_rt_instance_of), g->t_long, 2, pt, a));
}

/* r = value and on to done when cond holds; code continues in a fresh
 * block otherwise. */
static void settle_if(JitCg *g, gcc_jit_rvalue *cond, gcc_jit_lvalue *r, int64_t value, gcc_jit_block *done)
{
    gcc_jit_block *hit = blk(g), *next = blk(g);
    gcc_jit_block_end_with_conditional(g->cur, NULL, cond, hit, next);
    gcc_jit_block_add_assignment(hit, NULL, r, lng(g, value));
    gcc_jit_block_end_with_jump(hit, NULL, done);
    g->cur = next;
}

/* String equality: the cases that decide most comparisons inline (the same
 * string, a null, different lengths, one-byte strings: a parser comparing
 * its current character with literals), the rest in the runtime
 * (vm_string_equal).  Kept short: there are many such sites. */
void jit_cg_emit_seq(JitCg *g, const IrInsn *in)
{
    gcc_jit_lvalue *x = temp(g, g->t_vptr), *y = temp(g, g->t_vptr), *r = temp(g, g->t_long);
    gcc_jit_lvalue *len = temp(g, g->t_long);
    gcc_jit_block *done = blk(g);
    assign(g, x, R(g, in->src[0]));
    assign(g, y, R(g, in->src[1]));
    settle_if(g, cmp(g, GCC_JIT_COMPARISON_EQ, rv(x), rv(y)), r, 1, done);
    settle_if(g,
              gcc_jit_context_new_binary_op(g->c, NULL, GCC_JIT_BINARY_OP_LOGICAL_OR, g->t_bool,
                                            cmp(g, GCC_JIT_COMPARISON_EQ, rv(x), null(g)),
                                            cmp(g, GCC_JIT_COMPARISON_EQ, rv(y), null(g))),
              r, 0, done);
    assign(g, len, jit_cg_len(g, rv(x), offsetof(VmString, length)));
    settle_if(g, cmp(g, GCC_JIT_COMPARISON_NE, rv(len), jit_cg_len(g, rv(y), offsetof(VmString, length))), r,
              0, done);
    gcc_jit_block *one = blk(g), *other = blk(g);
    gcc_jit_block_end_with_conditional(g->cur, NULL, cmp(g, GCC_JIT_COMPARISON_EQ, rv(len), lng(g, 1)), one, other);
    g->cur = one;
    assign(g, r, to_long(g, cmp(g, GCC_JIT_COMPARISON_EQ, rv(mem(g, rv(x), offsetof(VmString, bytes), g->t_uchar)),
                                rv(mem(g, rv(y), offsetof(VmString, bytes), g->t_uchar)))));
    gcc_jit_block_end_with_jump(g->cur, NULL, done);
    g->cur = other;
    gcc_jit_type *pt[2] = {g->t_vptr, g->t_vptr};
    gcc_jit_rvalue *args[2] = {rv(x), rv(y)};
    assign(g, r, call(g, JIT_FN(jit_rt_seq), g->t_long, 2, pt, args));
    gcc_jit_block_end_with_jump(g->cur, NULL, done);
    g->cur = done;
    assign(g, g->loc[in->dst], rv(r));
}
