/* jit/codegen.c — IR to gccjit functions with the VM's calling conventions
 * (unit.c turns a unit of them into loaded code).
 *
 * Input: a method's IR (after ir_compile) and a gccjit context shared by
 * the unit's methods; for an OSR compile, the IR block of a loop header.
 * Output: in the context, a function
 *     VmValue f(VmThread *t, VmMethod *m, VmValue *args)
 * that behaves exactly like the interpreter running the method: same
 * results, same run-time errors with the same messages and stack traces;
 * for an OSR compile also f_osr(t, m, regs) (VmOsrEntry), which calls f
 * with m == NULL: compiled code gets its method as a constant, so a NULL
 * m is free to select the OSR entry (see osr_plan).  An OSR-only compile
 * makes f_osr alone, without the code only the ordinary entry reaches
 * (gcc's time grows with the code: the OSR code is ready sooner).
 *
 * Invariants of the generated code:
 * - One gccjit local per IR local, typed: int and bool are `long`, float
 *   `double`, references `void *`; non-parameters start at zero.
 * - Entry counts the call (m->prof.calls++, as the interpreter counts the
 *   calls it runs), then pushes a VmFrame {m, pc, base, top} where
 *   vm_interp_entry would (base = the caller's top), after the same C
 *   stack and frame checks ("stack overflow" with the caller on top); every
 *   return pops it.  Outside calls t->fp is this frame.  Its register
 *   window is empty (top = base), and so is each inline chain frame's:
 *   compiled code keeps its locals in C, so there is no window to clear
 *   for the collector, which scans the register stack up to the top
 *   frame's top.
 * - The OSR entry pushes nothing: the interpreter's frame (t->fp) becomes
 *   the frame, its registers the locals, and every return pops it, as the
 *   interpreter's RET would.
 * - Before anything that can raise or call out, the frame's pc is the
 *   instruction's; inside inlined code a run-time helper (runtime.c)
 *   pushes one synthetic frame per inline level instead, so callees and
 *   traces see exactly the interpreter's frames.  Checks branch to cold
 *   blocks calling a raising helper.
 * - Int arithmetic wraps (done in unsigned long); DIV/MOD check zero and
 *   special-case -1; shifts mask the count with 63; F2I checks the range;
 *   float branches and comparisons are NaN-correct (no fast-math).
 * - VM data is reached by byte offsets computed here with offsetof (so the
 *   generated code agrees with the C structs by construction), functions
 *   by address constants (no symbol imports in the loaded object).
 * - Small pointer-holding objects, arrays of references and closures are
 *   allocated inline from the thread's free lists (vm/object.c's layout);
 *   only an empty list, or anything else, calls the runtime.
 * - Any op this file does not know fails the compile cleanly.
 * - The code is a function of what ir_same_code compares (and the gcc
 *   options): no profile count, frequency or other annotation of the IR
 *   steers it, so a bakeoff can tell from the IR alone that two variants
 *   would be the same machine code (research.same_ir).  Reading one here
 *   means comparing it there too.
 * Bakeoffs (jit/variants.c) also get here a dispatcher (the ordinary
 * function behind a countdown prologue that may hand the call to a slow
 * path), timed wrappers (cycle counter around a call of clean code) and
 * variants, ordinary functions but for their calls of the method itself,
 * which call the function directly (JitCg.self_direct).
 * Allocation and type tests are in codegen_obj.c; the state and builders
 * both use, in cg.h.
 */
#include "cg.h"

/* ---- types ----------------------------------------------------------------- */

static gcc_jit_type *ltype(JitCg *g, const VmType *t)
{
    switch (t->kind) {
    case VM_T_INT:
    case VM_T_BOOL:
        return g->t_long;
    case VM_T_FLOAT:
        return g->t_double;
    default:
        return g->t_vptr;
    }
}

gcc_jit_type *jit_cg_local_type(JitCg *g, int32_t local)
{
    return ltype(g, g->f->locals[local].type);
}

static gcc_jit_field *member(JitCg *g, const VmType *t)
{
    switch (t->kind) {
    case VM_T_INT:
    case VM_T_BOOL:
        return g->fld_i;
    case VM_T_FLOAT:
        return g->fld_f;
    default:
        return g->fld_p;
    }
}

static gcc_jit_field *local_member(JitCg *g, int32_t local)
{
    return member(g, g->f->locals[local].type);
}

static gcc_jit_rvalue *zero_of(JitCg *g, gcc_jit_type *t)
{
    if (t == g->t_vptr)
        return null(g);
    return gcc_jit_context_zero(g->c, t);
}

/* ---- where an instruction is (stack traces) ------------------------------- */

JitWhere *jit_cg_where(JitCg *g, const IrInsn *in)
{
    uint32_t n = 1;
    for (const IrInline *s = in->site; s; s = s->parent)
        n++;
    JitWhere *w = malloc(sizeof *w + n * sizeof w->lv[0]);
    if (!w || (g->nwheres == g->capwheres &&
               !(g->wheres = realloc(g->wheres, (g->capwheres = g->capwheres ? 2 * g->capwheres : 16) *
                                                    sizeof *g->wheres)))) {
        free(w);
        g->failed = true;
        vm_fail(g->err, "%s: out of memory", g->m->name);
        static JitWhere none = {0};
        return &none;
    }
    g->wheres[g->nwheres++] = w;
    w->n = n;
    /* innermost last: the insn itself, then each call site outward */
    uint32_t k = n - 1;
    w->lv[k].m = in->origin;
    w->lv[k].pc = in->pc;
    for (const IrInline *s = in->site; s; s = s->parent) {
        k--;
        w->lv[k].m = s->caller;
        w->lv[k].pc = s->call_pc;
    }
    return w;
}

/* fn(t, where, extra args…): a jit_rt_raise_* call. */
static gcc_jit_rvalue *raise_at(JitCg *g, void *fn, gcc_jit_rvalue *where, int nextra, gcc_jit_type **et,
                                gcc_jit_rvalue **ea)
{
    gcc_jit_type *pt[4] = {g->t_vptr, g->t_vptr};
    gcc_jit_rvalue *a[4] = {g->thread, where};
    for (int i = 0; i < nextra; i++) {
        pt[2 + i] = et[i];
        a[2 + i] = ea[i];
    }
    return call(g, fn, g->t_void, 2 + nextra, pt, a);
}

static gcc_jit_rvalue *raise_call(JitCg *g, void *fn, const IrInsn *in, int nextra, gcc_jit_type **et,
                                  gcc_jit_rvalue **ea)
{
    return raise_at(g, fn, ptr(g, jit_cg_where(g, in)), nextra, et, ea);
}

/* Closes a failed null check: every one of a function jumps to one shared
 * raise block with its site in a local.  A call and a return per check
 * would be most of the cold code (null checks are most raise sites), and
 * gcc's time grows with all the code it is given. */
static void fail_null(JitCg *g, gcc_jit_block *bad, const IrInsn *in)
{
    if (!g->null_fail) {
        g->null_where = gcc_jit_function_new_local(g->fn, NULL, g->t_vptr, "null_where");
        g->null_fail = blk(g);
        end_fail(g, g->null_fail, raise_at(g, JIT_FN(jit_rt_raise_null), rv(g->null_where), 0, NULL, NULL));
    }
    gcc_jit_block_add_assignment(bad, NULL, g->null_where, ptr(g, jit_cg_where(g, in)));
    gcc_jit_block_end_with_jump(bad, NULL, g->null_fail);
}

static void check_null(JitCg *g, const IrInsn *in, gcc_jit_rvalue *p)
{
    fail_null(g, fail_if(g, cmp(g, GCC_JIT_COMPARISON_EQ, p, null(g))), in);
}

static void check_index(JitCg *g, const IrInsn *in, gcc_jit_rvalue *idx, gcc_jit_rvalue *len)
{
    gcc_jit_block *bad = fail_if(g, cmp(g, GCC_JIT_COMPARISON_GE, cast(g, idx, g->t_ulong), cast(g, len, g->t_ulong)));
    gcc_jit_type *et[2] = {g->t_long, g->t_long};
    gcc_jit_rvalue *ea[2] = {idx, len};
    end_fail(g, bad, raise_call(g, JIT_FN(jit_rt_raise_bounds), in, 2, et, ea));
}

/* jit_rt_push_chain's pc_of, at compile time */
static gcc_jit_rvalue *pc_const(JitCg *g, const VmMethod *m, uint32_t pc)
{
    return ptr(g, m->code && pc < m->ncode ? &m->code[pc] : m->code);
}

static gcc_jit_rvalue *push_chain_call(JitCg *g, const JitWhere *w)
{
    gcc_jit_type *pt[2] = {g->t_vptr, g->t_vptr};
    gcc_jit_rvalue *a[2] = {g->thread, ptr(g, w)};
    return call(g, JIT_FN(jit_rt_push_chain), g->t_void, 2, pt, a);
}

enum { CHAIN_INLINE_MAX = 64 };   /* deeper chains (no inliner goes there) call the helper */

/* An empty asm that gcc must assume changes p: what is reached through p
 * after it is not known to be next to what was reached before. */
static void launder(JitCg *g, gcc_jit_lvalue *p)
{
    gcc_jit_extended_asm *x = gcc_jit_block_add_extended_asm(g->cur, NULL, "");
    gcc_jit_extended_asm_add_output_operand(x, NULL, "+r", p);
}

/* The frame at f: m, pc, and an empty register window at base.  With link
 * slots m and pc are stored one by one, f laundered between, or gcc's SLP
 * vectorizer would gather them and base/top into one 32-byte store (an
 * AVX-256 insert chain, a realigned stack and a vzeroupper on every
 * return); with immediates they become one constant 16-byte store. */
static void frame_fill(JitCg *g, gcc_jit_lvalue *f, const VmMethod *m, gcc_jit_rvalue *pc, gcc_jit_rvalue *base)
{
    assign(g, mem(g, rv(f), offsetof(VmFrame, m), g->t_vptr), ptr(g, m));
    if (g->links) {
        launder(g, f);
        assign(g, mem(g, rv(f), offsetof(VmFrame, pc), g->t_vptr), pc);
        launder(g, f);
    }
    assign(g, mem(g, rv(f), offsetof(VmFrame, base), g->t_vptr), base);
    assign(g, mem(g, rv(f), offsetof(VmFrame, top), g->t_vptr), base);
    if (!g->links)
        assign(g, mem(g, rv(f), offsetof(VmFrame, pc), g->t_vptr), pc);
}

/* Before a call out of compiled code: the frame's pc, or the inline chain.
 * The chain is pushed inline (what jit_rt_push_chain does, with every
 * method, pc and register offset a constant): calls from inlined code are
 * common, and the helper's call and loop cost more than the call they
 * prepare.  The levels' frames grow monotonically, so one check of the
 * last level tells whether any would overflow; then the helper runs
 * instead and raises where the interpreter would have.  Their register
 * windows are empty, at the compiled frame's top. */
void jit_cg_out_begin(JitCg *g, const IrInsn *in)
{
    if (!in->site) {
        assign(g, mem(g, rv(g->frame), offsetof(VmFrame, pc), g->t_vptr), pc_const(g, g->m, in->pc));
        return;
    }
    JitWhere *w = jit_cg_where(g, in);
    uint32_t n = w->n;
    if (g->failed || n < 2 || n > CHAIN_INLINE_MAX || w->lv[0].m != g->m) {
        eval(g, push_chain_call(g, w));
        return;
    }
    gcc_jit_rvalue *f0 = rv(g->frame);
    assign(g, mem(g, f0, offsetof(VmFrame, pc), g->t_vptr), pc_const(g, w->lv[0].m, w->lv[0].pc));
    gcc_jit_lvalue *base = temp(g, g->t_vptr);
    assign(g, base, rv(mem(g, f0, offsetof(VmFrame, top), g->t_vptr)));
    gcc_jit_rvalue *last = ptr_add(g, f0, lng(g, (int64_t)((n - 1) * sizeof(VmFrame))));
    gcc_jit_block *bad = fail_if(g, cmp(g, GCC_JIT_COMPARISON_GE, last,
                                        rv(mem(g, g->thread, offsetof(VmThread, frames_end), g->t_vptr))));
    end_fail(g, bad, push_chain_call(g, w));
    gcc_jit_lvalue *fk = temp(g, g->t_vptr);
    for (uint32_t k = 1; k < n; k++) {
        assign(g, fk, ptr_add(g, f0, lng(g, (int64_t)(k * sizeof(VmFrame)))));
        frame_fill(g, fk, w->lv[k].m, pc_const(g, w->lv[k].m, w->lv[k].pc), rv(base));
    }
    assign(g, mem(g, g->thread, offsetof(VmThread, fp), g->t_vptr), last);
}

static void out_end(JitCg *g, const IrInsn *in)
{
    if (in->site)
        assign(g, mem(g, g->thread, offsetof(VmThread, fp), g->t_vptr), rv(g->frame));
}

/* ---- the prologue ----------------------------------------------------------- */

/* C stack: the address of a local against t->cstack_limit */
static void cstack_check(JitCg *g)
{
    gcc_jit_rvalue *t = g->thread;
    assign(g, g->anchor, lng(g, 0));
    gcc_jit_rvalue *here = cast(g, gcc_jit_lvalue_get_address(g->anchor, NULL), g->t_vptr);
    gcc_jit_rvalue *limit = rv(mem(g, t, offsetof(VmThread, cstack_limit), g->t_vptr));
    gcc_jit_block *bad = fail_if(g, cmp(g, GCC_JIT_COMPARISON_LT, here, limit));
    gcc_jit_type *pt1[1] = {g->t_vptr};
    gcc_jit_rvalue *a1[1] = {t};
    end_fail(g, bad, call(g, JIT_FN(jit_rt_raise_overflow), g->t_void, 1, pt1, a1));
}

static void prologue(JitCg *g)
{
    VmMethod *m = g->m;
    gcc_jit_rvalue *t = g->thread;
    /* m->prof.calls++: compiled code counts its invocations as the
     * interpreter does (the auditor's trigger, and --stats); a plain add,
     * like the interpreter's, on the one thread that runs the program */
    gcc_jit_lvalue *calls = mem(g, ptr(g, &m->prof.calls), 0, g->t_ulong);
    assign(g, calls, bin(g, GCC_JIT_BINARY_OP_PLUS, g->t_ulong, rv(calls),
                         gcc_jit_context_new_rvalue_from_int(g->c, g->t_ulong, 1)));
    assign(g, gcc_jit_lvalue_access_field(g->ret, NULL, g->fld_i), lng(g, 0));
    cstack_check(g);
    gcc_jit_type *pt1[1] = {g->t_vptr};
    gcc_jit_rvalue *a1[1] = {t};
    gcc_jit_block *bad;

    /* base = fp->top (with no frame yet, fp is the sentinel below
     * t->frames, whose top is t->stack) */
    assign(g, g->frame0, rv(mem(g, t, offsetof(VmThread, fp), g->t_vptr)));
    gcc_jit_lvalue *base = gcc_jit_function_new_local(g->fn, NULL, g->t_vptr, "base");
    assign(g, base, rv(mem(g, rv(g->frame0), offsetof(VmFrame, top), g->t_vptr)));

    /* the frame stack, as vm_interp_entry checks it; the register stack
     * needs no check: the window is empty, and the caller's top is in it */
    gcc_jit_rvalue *next = ptr_add(g, rv(g->frame0), lng(g, sizeof(VmFrame)));
    gcc_jit_rvalue *fend = rv(mem(g, t, offsetof(VmThread, frames_end), g->t_vptr));
    bad = fail_if(g, cmp(g, GCC_JIT_COMPARISON_GE, next, fend));
    end_fail(g, bad, call(g, JIT_FN(jit_rt_raise_overflow), g->t_void, 1, pt1, a1));

    assign(g, g->frame, ptr_add(g, rv(g->frame0), lng(g, sizeof(VmFrame))));
    frame_fill(g, g->frame, m, ptr(g, m->code), rv(base));
    assign(g, mem(g, t, offsetof(VmThread, fp), g->t_vptr), rv(g->frame));

    /* parameters from args[], the other locals zero.  Each is read through
     * a pointer that an empty asm launders: the caller stored every
     * argument alone, and a 16-byte load that gcc's SLP vectorizer would
     * merge two of them into cannot be forwarded from those stores (a
     * store-forwarding stall on every call).  Volatile loads would do, but
     * libgccjit 12 drops the qualifier through a cast. */
    gcc_jit_lvalue *argp = gcc_jit_function_new_local(g->fn, NULL, g->t_valuep, "argp");
    assign(g, argp, g->args);
    for (uint32_t i = 0; i < g->f->nlocals; i++) {
        if (i < g->f->nparams) {
            if (i > 0)
                launder(g, argp);
            gcc_jit_lvalue *a = gcc_jit_context_new_array_access(g->c, NULL, rv(argp), lng(g, i));
            assign(g, g->loc[i], rv(gcc_jit_lvalue_access_field(a, NULL, local_member(g, (int32_t)i))));
        } else {
            assign(g, g->loc[i], zero_of(g, jit_cg_local_type(g, (int32_t)i)));
        }
    }
}

/* The OSR entry (m == NULL): the interpreter's frame of the method is
 * t->fp and args points at its registers.  They become the locals (an
 * inlined callee's locals start at zero: its ZERO insns re-zero them on
 * every entry anyway) and control goes to the OSR copy of the header.
 * The C stack check stays: the interpreter checked its own frame only. */
static void osr_prologue(JitCg *g)
{
    VmMethod *m = g->m;
    assign(g, gcc_jit_lvalue_access_field(g->ret, NULL, g->fld_i), lng(g, 0));
    cstack_check(g);
    assign(g, g->frame, rv(mem(g, g->thread, offsetof(VmThread, fp), g->t_vptr)));
    assign(g, g->frame0, ptr_add(g, rv(g->frame), lng(g, -(int64_t)sizeof(VmFrame))));
    for (uint32_t i = 0; i < g->f->nlocals; i++) {
        if (i < m->nregs) {
            gcc_jit_lvalue *a = gcc_jit_context_new_array_access(g->c, NULL, g->args, lng(g, i));
            assign(g, g->loc[i], rv(gcc_jit_lvalue_access_field(a, NULL, local_member(g, (int32_t)i))));
        } else {
            assign(g, g->loc[i], zero_of(g, jit_cg_local_type(g, (int32_t)i)));
        }
    }
    /* The registers are dead now: the frame becomes a compiled one, with an
     * empty window, so that they are no roots while the frame lives and
     * its callees' frames start at its base, as they would for a frame
     * the compiled entry pushed. */
    assign(g, mem(g, rv(g->frame), offsetof(VmFrame, top), g->t_vptr), cast(g, g->args, g->t_vptr));
    gcc_jit_block_end_with_jump(g->cur, NULL, g->bb_osr[g->osr_head->id]);
}

static void epilogue_return(JitCg *g)
{
    assign(g, mem(g, g->thread, offsetof(VmThread, fp), g->t_vptr), rv(g->frame0));
    gcc_jit_block_end_with_return(g->cur, NULL, rv(g->ret));
}

/* ---- calls ------------------------------------------------------------------ */

/* argbuf[i] = locals first .. first+n-1; returns &argbuf[0]. */
gcc_jit_rvalue *jit_cg_marshal(JitCg *g, int32_t first, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        gcc_jit_lvalue *slot = gcc_jit_context_new_array_access(g->c, NULL, rv(g->argbuf), lng(g, i));
        assign(g, gcc_jit_lvalue_access_field(slot, NULL, local_member(g, first + (int32_t)i)),
               R(g, first + (int32_t)i));
    }
    return gcc_jit_lvalue_get_address(gcc_jit_context_new_array_access(g->c, NULL, rv(g->argbuf), lng(g, 0)),
                                      NULL);
}

/* dst = the VmValue result r (or evaluate it for void callees). */
static void take_result(JitCg *g, const IrInsn *in, gcc_jit_rvalue *r)
{
    if (in->dst == IR_NONE) {
        eval(g, r);
        return;
    }
    gcc_jit_lvalue *tmp = temp(g, g->t_value);
    assign(g, tmp, r);
    assign(g, g->loc[in->dst], rv(gcc_jit_lvalue_access_field(tmp, NULL, local_member(g, in->dst))));
}

/* How a call may reach the compiled method itself (JitCg.self_direct). */
typedef enum Self { SELF_NO, SELF_YES, SELF_MAYBE } Self;

static void call_entry(JitCg *g, const IrInsn *in, gcc_jit_rvalue *cm, gcc_jit_rvalue **a)
{
    gcc_jit_rvalue *entry = rv(mem(g, cm, offsetof(VmMethod, entry), g->t_entry));
    take_result(g, in, gcc_jit_context_new_call_through_ptr(g->c, NULL, entry, 3, a));
}

/* Calls method cm (an rvalue) through its current entry; with
 * g->self_direct, a call of g->m itself (SELF_YES, or SELF_MAYBE when cm
 * turns out to be g->m at run time) calls this very function instead. */
static void invoke(JitCg *g, const IrInsn *in, gcc_jit_rvalue *cm, gcc_jit_rvalue *argp, Self self)
{
    jit_cg_out_begin(g, in);
    gcc_jit_rvalue *a[3] = {g->thread, cm, argp};
    if (!g->self_direct || self == SELF_NO) {
        call_entry(g, in, cm, a);
    } else if (self == SELF_YES) {
        take_result(g, in, gcc_jit_context_new_call(g->c, NULL, g->fn, 3, a));
    } else {
        gcc_jit_block *direct = blk(g), *through = blk(g), *join = blk(g);
        gcc_jit_block_end_with_conditional(g->cur, NULL, cmp(g, GCC_JIT_COMPARISON_EQ, cm, ptr(g, g->m)), direct,
                                           through);
        g->cur = direct;
        take_result(g, in, gcc_jit_context_new_call(g->c, NULL, g->fn, 3, a));
        gcc_jit_block_end_with_jump(g->cur, NULL, join);
        g->cur = through;
        call_entry(g, in, cm, a);
        gcc_jit_block_end_with_jump(g->cur, NULL, join);
        g->cur = join;
    }
    out_end(g, in);
}

/* The C type a scalar crosses the native boundary as (vm/native.c's
 * conversions: int int64_t, float double, bool int 0/1), or NULL when the
 * type needs the general path (strings, arrays: null checks, conversion). */
static gcc_jit_type *scalar_c_type(JitCg *g, uint32_t ti, bool is_ret)
{
    const VmModule *mod = g->m->module;
    if (!mod || ti >= mod->ntypes)
        return NULL;
    switch (mod->types[ti].kind) {
    case VM_T_INT:
        return g->t_long;
    case VM_T_FLOAT:
        return g->t_double;
    case VM_T_BOOL:
        return g->t_int;
    case VM_T_VOID:
        return is_ret ? g->t_void : NULL;
    default:
        return NULL;
    }
}

/* Natives that take and return only scalars are called directly with
 * their C prototype (the built-in sqrt becomes gcc's sqrt, one
 * instruction under -fno-math-errno) instead of through argument buffers
 * and libffi.  Such calls cannot raise, allocate or look at frames, so
 * they need no saved pc.  False: use the general path. */
static bool emit_scalar_native(JitCg *g, const IrInsn *in, const VmNative *nat)
{
    int64_t n = in->imm.i;
    bool is_sqrt = nat->builtin && nat->lib && !nat->lib[0] && nat->symbol && !strcmp(nat->symbol, "sqrt");
    if (!is_sqrt && (nat->builtin || !nat->fn))
        return false;
    if (n != (int64_t)nat->nparams || n > 16 || (n > 0 && in->src[0] < 0))
        return false;
    gcc_jit_type *rt = scalar_c_type(g, nat->ret, true);
    gcc_jit_type *pt[16];
    gcc_jit_rvalue *a[16];
    if (!rt)
        return false;
    for (int64_t i = 0; i < n; i++) {
        pt[i] = scalar_c_type(g, nat->params[i], false);
        if (!pt[i])
            return false;
        gcc_jit_rvalue *v = R(g, in->src[0] + (int32_t)i);
        a[i] = pt[i] == g->t_int ? cast(g, cmp(g, GCC_JIT_COMPARISON_NE, v, lng(g, 0)), g->t_int) : v;
    }
    gcc_jit_rvalue *r;
    if (is_sqrt) {
        if (n != 1 || rt != g->t_double || pt[0] != g->t_double || !g->sqrt)
            return false;
        r = gcc_jit_context_new_call(g->c, NULL, g->sqrt, 1, a);
    } else {
        r = call(g, nat->fn, rt, (int)n, pt, a);
    }
    if (rt == g->t_void || in->dst == IR_NONE) {
        eval(g, r);
        return true;
    }
    if (rt == g->t_int)
        r = to_long(g, cmp(g, GCC_JIT_COMPARISON_NE, r, gcc_jit_context_zero(g->c, g->t_int)));
    assign(g, g->loc[in->dst], r);
    return true;
}

static void emit_call(JitCg *g, const IrInsn *in)
{
    int64_t n = in->imm.i;
    switch (in->op) {
    case IR_CALL: {
        gcc_jit_rvalue *argp = jit_cg_marshal(g, in->src[0], n);
        invoke(g, in, ptr(g, in->aux), argp, in->aux == g->m ? SELF_YES : SELF_NO);
        return;
    }
    case IR_CALLV: {
        VmCallSite *s = in->aux;
        gcc_jit_rvalue *o = R(g, in->src[0]);
        check_null(g, in, o);
        gcc_jit_rvalue *cls = rv(mem(g, o, offsetof(VmObject, cls), g->t_vptr));
        gcc_jit_rvalue *vt = rv(mem(g, cls, offsetof(VmClass, vt), g->t_vptr));
        assign(g, g->tmp_m, rv(mem(g, vt, (size_t)s->target->slot * sizeof(void *), g->t_vptr)));
        gcc_jit_rvalue *argp = jit_cg_marshal(g, in->src[0], n);
        invoke(g, in, rv(g->tmp_m), argp, s->target == g->m ? SELF_MAYBE : SELF_NO);
        return;
    }
    case IR_CALLI: {
        VmCallSite *s = in->aux;
        gcc_jit_rvalue *o = R(g, in->src[0]);
        check_null(g, in, o);
        assign(g, g->tmp_c, rv(mem(g, o, offsetof(VmObject, cls), g->t_vptr)));
        gcc_jit_rvalue *sp = ptr(g, s);
        gcc_jit_rvalue *c0 = rv(mem(g, sp, offsetof(VmCallSite, seen[0].cls), g->t_vptr));
        gcc_jit_rvalue *m0 = rv(mem(g, sp, offsetof(VmCallSite, seen[0].m), g->t_vptr));
        gcc_jit_block *fast = blk(g), *slow = blk(g), *join = blk(g);
        gcc_jit_rvalue *hit = gcc_jit_context_new_binary_op(
            g->c, NULL, GCC_JIT_BINARY_OP_LOGICAL_AND, g->t_bool, cmp(g, GCC_JIT_COMPARISON_EQ, c0, rv(g->tmp_c)),
            cmp(g, GCC_JIT_COMPARISON_NE, m0, null(g)));
        gcc_jit_block_end_with_conditional(g->cur, NULL, hit, fast, slow);
        g->cur = fast;
        assign(g, g->tmp_m, m0);
        gcc_jit_lvalue *cnt = mem(g, sp, offsetof(VmCallSite, seen[0].count), g->t_ulong);
        assign(g, cnt, bin(g, GCC_JIT_BINARY_OP_PLUS, g->t_ulong, rv(cnt),
                           gcc_jit_context_one(g->c, g->t_ulong)));
        gcc_jit_block_end_with_jump(g->cur, NULL, join);
        g->cur = slow;
        jit_cg_out_begin(g, in);
        gcc_jit_type *pt[3] = {g->t_vptr, g->t_vptr, g->t_vptr};
        gcc_jit_rvalue *a[3] = {g->thread, sp, rv(g->tmp_c)};
        assign(g, g->tmp_m, call(g, JIT_FN(vm_iface_dispatch), g->t_vptr, 3, pt, a));
        out_end(g, in);
        gcc_jit_block_end_with_jump(g->cur, NULL, join);
        g->cur = join;
        gcc_jit_rvalue *argp = jit_cg_marshal(g, in->src[0], n);
        invoke(g, in, rv(g->tmp_m), argp, SELF_NO);
        return;
    }
    case IR_CALLF: {
        gcc_jit_rvalue *cl = R(g, in->src[0]);
        check_null(g, in, cl);
        assign(g, g->tmp_m, rv(mem(g, cl, offsetof(VmClosure, method), g->t_vptr)));
        gcc_jit_rvalue *argp = jit_cg_marshal(g, in->src[0], n);
        invoke(g, in, rv(g->tmp_m), argp, SELF_NO);
        return;
    }
    case IR_CALLN: {
        VmNative *nat = in->aux;
        if (emit_scalar_native(g, in, nat))
            return;
        gcc_jit_rvalue *argp = n > 0 ? jit_cg_marshal(g, in->src[0], n) : jit_cg_marshal(g, 0, 0);
        gcc_jit_rvalue *r;
        /* from inlined code too: the chain pushed inline, then the
         * builtin itself (a runtime helper pushing the chain in a loop,
         * then vm_native_call, would cost up to 7% of a program's time) */
        jit_cg_out_begin(g, in);
        if (nat->builtin) {
            gcc_jit_type *pt[2] = {g->t_vptr, g->t_valuep};
            gcc_jit_rvalue *a[2] = {g->thread, argp};
            r = call(g, JIT_FN(nat->builtin), g->t_value, 2, pt, a);
        } else {
            gcc_jit_type *pt[3] = {g->t_vptr, g->t_vptr, g->t_valuep};
            gcc_jit_rvalue *a[3] = {g->thread, ptr(g, nat), argp};
            r = call(g, JIT_FN(vm_native_call), g->t_value, 3, pt, a);
        }
        take_result(g, in, r);
        out_end(g, in);
        return;
    }
    default:
        return;
    }
}

/* ---- one instruction ------------------------------------------------------------ */

static bool emit_insn(JitCg *g, const IrInsn *in)
{
    gcc_jit_context *c = g->c;
    gcc_jit_lvalue *D = in->dst >= 0 ? g->loc[in->dst] : NULL;
    gcc_jit_rvalue *a = in->src[0] >= 0 ? R(g, in->src[0]) : NULL;
    gcc_jit_rvalue *b = in->src[1] >= 0 ? R(g, in->src[1]) : NULL;
    gcc_jit_rvalue *x = in->src[2] >= 0 ? R(g, in->src[2]) : NULL;
    uint32_t flags = in->op < IR_OP_COUNT ? ir_op_info[in->op].flags : 0;
    const IrOpInfo *info = in->op < IR_OP_COUNT ? &ir_op_info[in->op] : NULL;
    if (!info)
        return vm_fail(g->err, "%s: bad IR op %u", g->m->name, in->op);
    if ((info->ndst && in->dst < 0 && !(flags & IR_OPF_CALL)) || (info->nsrc >= 1 && !a && !(flags & IR_OPF_ARGS)) ||
        (info->nsrc >= 2 && !b && in->op != IR_BR) || (info->nsrc >= 3 && !x))
        return vm_fail(g->err, "%s: malformed %s", g->m->name, info->name);
    enum gcc_jit_comparison cop = GCC_JIT_COMPARISON_EQ;
    enum gcc_jit_binary_op bop = GCC_JIT_BINARY_OP_PLUS;
    switch (in->op) {
    case IR_MOV: assign(g, D, a); return true;
    case IR_ZERO: assign(g, D, zero_of(g, jit_cg_local_type(g, in->dst))); return true;
    case IR_LDI: assign(g, D, lng(g, in->imm.i)); return true;
    case IR_LDF: {
        /* through the bits: exact for NaN payloads and -0.0 */
        gcc_jit_rvalue *bits = lng(g, in->imm.i);
        assign(g, D, gcc_jit_context_new_bitcast(c, NULL, bits, g->t_double));
        return true;
    }
    case IR_LDNULL: assign(g, D, null(g)); return true;
    case IR_LDK: assign(g, D, ptr(g, in->aux)); return true;
    case IR_LDG: assign(g, D, rv(mem(g, ptr(g, in->aux), 0, jit_cg_local_type(g, in->dst)))); return true;
    case IR_STG: assign(g, mem(g, ptr(g, in->aux), 0, jit_cg_local_type(g, in->src[0])), a); return true;
    case IR_COUNT: {
        gcc_jit_lvalue *n = mem(g, ptr(g, in->aux), 0, g->t_ulong);
        assign(g, n, bin(g, GCC_JIT_BINARY_OP_PLUS, g->t_ulong, rv(n), gcc_jit_context_one(c, g->t_ulong)));
        return true;
    }

    case IR_ADD: assign(g, D, wrap(g, GCC_JIT_BINARY_OP_PLUS, a, b)); return true;
    case IR_SUB: assign(g, D, wrap(g, GCC_JIT_BINARY_OP_MINUS, a, b)); return true;
    case IR_MUL: assign(g, D, wrap(g, GCC_JIT_BINARY_OP_MULT, a, b)); return true;
    case IR_ADDK: assign(g, D, wrap(g, GCC_JIT_BINARY_OP_PLUS, a, lng(g, in->imm.i))); return true;
    case IR_NEG: assign(g, D, wrap(g, GCC_JIT_BINARY_OP_MINUS, lng(g, 0), a)); return true;
    case IR_AND: assign(g, D, bin(g, GCC_JIT_BINARY_OP_BITWISE_AND, g->t_long, a, b)); return true;
    case IR_OR: assign(g, D, bin(g, GCC_JIT_BINARY_OP_BITWISE_OR, g->t_long, a, b)); return true;
    case IR_XOR: assign(g, D, bin(g, GCC_JIT_BINARY_OP_BITWISE_XOR, g->t_long, a, b)); return true;
    case IR_BNOT:
        assign(g, D, gcc_jit_context_new_unary_op(c, NULL, GCC_JIT_UNARY_OP_BITWISE_NEGATE, g->t_long, a));
        return true;
    case IR_SHL:
    case IR_SHR:
    case IR_USHR: {
        gcc_jit_rvalue *n = bin(g, GCC_JIT_BINARY_OP_BITWISE_AND, g->t_long, b, lng(g, 63));
        if (in->op == IR_SHR)
            assign(g, D, bin(g, GCC_JIT_BINARY_OP_RSHIFT, g->t_long, a, n));
        else
            assign(g, D, cast(g, bin(g, in->op == IR_SHL ? GCC_JIT_BINARY_OP_LSHIFT : GCC_JIT_BINARY_OP_RSHIFT,
                                     g->t_ulong, cast(g, a, g->t_ulong), cast(g, n, g->t_ulong)),
                              g->t_long));
        return true;
    }
    case IR_DIV:
    case IR_MOD: {
        gcc_jit_block *bad = fail_if(g, cmp(g, GCC_JIT_COMPARISON_EQ, b, lng(g, 0)));
        end_fail(g, bad, raise_call(g, JIT_FN(jit_rt_raise_div0), in, 0, NULL, NULL));
        gcc_jit_block *m1 = blk(g), *norm = blk(g), *join = blk(g);
        gcc_jit_block_end_with_conditional(g->cur, NULL, cmp(g, GCC_JIT_COMPARISON_EQ, b, lng(g, -1)), m1, norm);
        g->cur = m1;
        /* MIN / -1 overflows in C: the wrapped quotient is -a, the remainder 0 */
        assign(g, D, in->op == IR_DIV ? wrap(g, GCC_JIT_BINARY_OP_MINUS, lng(g, 0), a) : lng(g, 0));
        gcc_jit_block_end_with_jump(g->cur, NULL, join);
        g->cur = norm;
        assign(g, D, bin(g, in->op == IR_DIV ? GCC_JIT_BINARY_OP_DIVIDE : GCC_JIT_BINARY_OP_MODULO, g->t_long, a, b));
        gcc_jit_block_end_with_jump(g->cur, NULL, join);
        g->cur = join;
        return true;
    }

    case IR_FADD: bop = GCC_JIT_BINARY_OP_PLUS; goto fbin;
    case IR_FSUB: bop = GCC_JIT_BINARY_OP_MINUS; goto fbin;
    case IR_FMUL: bop = GCC_JIT_BINARY_OP_MULT; goto fbin;
    case IR_FDIV: bop = GCC_JIT_BINARY_OP_DIVIDE; goto fbin;
    fbin:
        assign(g, D, bin(g, bop, g->t_double, a, b));
        return true;
    case IR_FNEG: assign(g, D, gcc_jit_context_new_unary_op(c, NULL, GCC_JIT_UNARY_OP_MINUS, g->t_double, a)); return true;
    case IR_I2F: assign(g, D, cast(g, a, g->t_double)); return true;
    case IR_F2I: {
        gcc_jit_rvalue *lo = gcc_jit_context_new_rvalue_from_double(c, g->t_double, -0x1p63);
        gcc_jit_rvalue *hi = gcc_jit_context_new_rvalue_from_double(c, g->t_double, 0x1p63);
        gcc_jit_rvalue *in_range = gcc_jit_context_new_binary_op(
            c, NULL, GCC_JIT_BINARY_OP_LOGICAL_AND, g->t_bool, cmp(g, GCC_JIT_COMPARISON_GE, a, lo),
            cmp(g, GCC_JIT_COMPARISON_LT, a, hi));
        gcc_jit_block *bad = fail_if(g, gcc_jit_context_new_unary_op(c, NULL, GCC_JIT_UNARY_OP_LOGICAL_NEGATE,
                                                                     g->t_bool, in_range));
        gcc_jit_type *et[1] = {g->t_double};
        gcc_jit_rvalue *ea[1] = {a};
        end_fail(g, bad, raise_call(g, JIT_FN(jit_rt_raise_f2i), in, 1, et, ea));
        assign(g, D, cast(g, a, g->t_long));
        return true;
    }

    case IR_EQ: case IR_FEQ: case IR_BEQ: case IR_REQ: cop = GCC_JIT_COMPARISON_EQ; goto compare;
    case IR_NE: case IR_FNE: case IR_BNE: case IR_RNE: cop = GCC_JIT_COMPARISON_NE; goto compare;
    case IR_LT: case IR_FLT: cop = GCC_JIT_COMPARISON_LT; goto compare;
    case IR_LE: case IR_FLE: cop = GCC_JIT_COMPARISON_LE; goto compare;
    compare:
        assign(g, D, to_long(g, cmp(g, cop, a, b)));
        return true;
    case IR_NOT: assign(g, D, to_long(g, cmp(g, GCC_JIT_COMPARISON_EQ, a, lng(g, 0)))); return true;
    case IR_SEQ: jit_cg_emit_seq(g, in); return true;

    case IR_SCAT: {
        gcc_jit_rvalue *either = gcc_jit_context_new_binary_op(
            c, NULL, GCC_JIT_BINARY_OP_LOGICAL_OR, g->t_bool, cmp(g, GCC_JIT_COMPARISON_EQ, a, null(g)),
            cmp(g, GCC_JIT_COMPARISON_EQ, b, null(g)));
        fail_null(g, fail_if(g, either), in);
        gcc_jit_type *et[2] = {g->t_vptr, g->t_vptr};
        gcc_jit_rvalue *ea[2] = {a, b};
        gcc_jit_rvalue *r = jit_cg_alloc_call(g, in, JIT_FN(vm_string_concat), JIT_FN(jit_rt_concat_at), 2, et, ea);
        assign(g, D, r);
        out_end(g, in);
        return true;
    }
    case IR_NCHK: check_null(g, in, a); return true;
    case IR_SLEN:
    case IR_ALEN:
        check_null(g, in, a);
        assign(g, D, jit_cg_len(g, a, in->op == IR_SLEN ? offsetof(VmString, length) : offsetof(VmArray, length)));
        return true;
    case IR_SGET:
        check_null(g, in, a);
        check_index(g, in, b, jit_cg_len(g, a, offsetof(VmString, length)));
        assign(g, D, cast(g, rv(elem(g, a, offsetof(VmString, bytes), g->t_uchar, b)), g->t_long));
        return true;

    case IR_NEW: jit_cg_emit_new(g, in); return true;
    case IR_NEWL: jit_cg_emit_newl(g, in); return true;
    case IR_NEWA: jit_cg_emit_newa(g, in); return true;
    case IR_NEWAL: jit_cg_emit_newal(g, in); return true;
    case IR_GETF:
        check_null(g, in, a);
        assign(g, D, rv(mem(g, a, offsetof(VmObject, fields) + (size_t)in->imm.i * sizeof(VmValue),
                            jit_cg_local_type(g, in->dst))));
        return true;
    case IR_PUTF:
        check_null(g, in, a);
        assign(g, mem(g, a, offsetof(VmObject, fields) + (size_t)in->imm.i * sizeof(VmValue),
                      jit_cg_local_type(g, in->src[1])),
               b);
        return true;
    case IR_AGETI:
    case IR_AGETF:
    case IR_AGETB:
    case IR_AGETR: {
        check_null(g, in, a);
        check_index(g, in, b, jit_cg_len(g, a, offsetof(VmArray, length)));
        gcc_jit_type *et = in->op == IR_AGETI ? g->t_long : in->op == IR_AGETF ? g->t_double
                         : in->op == IR_AGETB ? g->t_uchar : g->t_vptr;
        gcc_jit_rvalue *v = rv(elem(g, a, offsetof(VmArray, data), et, b));
        assign(g, D, in->op == IR_AGETB ? cast(g, v, g->t_long) : v);
        return true;
    }
    case IR_APUTI:
    case IR_APUTF:
    case IR_APUTB:
    case IR_APUTR: {
        check_null(g, in, a);
        check_index(g, in, b, jit_cg_len(g, a, offsetof(VmArray, length)));
        gcc_jit_type *et = in->op == IR_APUTI ? g->t_long : in->op == IR_APUTF ? g->t_double
                         : in->op == IR_APUTB ? g->t_uchar : g->t_vptr;
        assign(g, elem(g, a, offsetof(VmArray, data), et, b), in->op == IR_APUTB ? cast(g, x, g->t_uchar) : x);
        return true;
    }
    case IR_ISA: {
        /* the result goes through a temporary: dst may be src0's local */
        gcc_jit_lvalue *r = temp(g, g->t_long);
        gcc_jit_lvalue *o = temp(g, g->t_vptr);
        assign(g, o, a);
        assign(g, r, lng(g, 0));
        gcc_jit_block *nn = blk(g), *done = blk(g);
        gcc_jit_block_end_with_conditional(g->cur, NULL, cmp(g, GCC_JIT_COMPARISON_NE, rv(o), null(g)), nn, done);
        g->cur = nn;
        jit_cg_instance_test(g, r, rv(o), in->aux);
        gcc_jit_block_end_with_jump(g->cur, NULL, done);
        g->cur = done;
        assign(g, D, rv(r));
        return true;
    }
    case IR_CAST: {
        gcc_jit_lvalue *r = temp(g, g->t_long);
        gcc_jit_lvalue *o = temp(g, g->t_vptr);
        assign(g, o, a);
        gcc_jit_block *nn = blk(g), *done = blk(g);
        gcc_jit_block_end_with_conditional(g->cur, NULL, cmp(g, GCC_JIT_COMPARISON_NE, rv(o), null(g)), nn, done);
        g->cur = nn;
        jit_cg_instance_test(g, r, rv(o), in->aux);
        gcc_jit_block *bad = fail_if(g, cmp(g, GCC_JIT_COMPARISON_EQ, rv(r), lng(g, 0)));
        gcc_jit_type *et[2] = {g->t_vptr, g->t_vptr};
        gcc_jit_rvalue *ea[2] = {rv(o), ptr(g, in->aux)};
        end_fail(g, bad, raise_call(g, JIT_FN(jit_rt_raise_cast), in, 2, et, ea));
        gcc_jit_block_end_with_jump(g->cur, NULL, done);
        g->cur = done;
        assign(g, D, rv(o));
        return true;
    }

    case IR_CALL:
    case IR_CALLV:
    case IR_CALLI:
    case IR_CALLF:
    case IR_CALLN:
        emit_call(g, in);
        return true;
    case IR_CLOS: jit_cg_emit_clos(g, in); return true;
    case IR_CLOSL: jit_cg_emit_closl(g, in); return true;
    case IR_LDCAP:
        assign(g, D, rv(mem(g, a, offsetof(VmClosure, caps) + (size_t)in->imm.i * sizeof(VmValue),
                            jit_cg_local_type(g, in->dst))));
        return true;
    default:
        return vm_fail(g->err, "%s: IR op %s is not supported by the JIT", g->m->name, info->name);
    }
}

/* Allocation helpers of inlined code pop their own frames; plain ones need
 * nothing: out_end only matters after the raw call sequences. */

/* ---- terminators ------------------------------------------------------------------ */

static gcc_jit_rvalue *branch_cond(JitCg *g, const IrInsn *in)
{
    gcc_jit_rvalue *a = R(g, in->src[0]);
    gcc_jit_rvalue *b = in->src[1] >= 0 ? R(g, in->src[1]) : lng(g, in->imm.i);
    switch ((IrCond)in->cc) {
    case IR_CC_T: return cmp(g, GCC_JIT_COMPARISON_NE, a, lng(g, 0));
    case IR_CC_F: return cmp(g, GCC_JIT_COMPARISON_EQ, a, lng(g, 0));
    case IR_CC_NULL: return cmp(g, GCC_JIT_COMPARISON_EQ, a, null(g));
    case IR_CC_NNULL: return cmp(g, GCC_JIT_COMPARISON_NE, a, null(g));
    case IR_CC_EQ: case IR_CC_FEQ: return cmp(g, GCC_JIT_COMPARISON_EQ, a, b);
    case IR_CC_NE: case IR_CC_FNE: return cmp(g, GCC_JIT_COMPARISON_NE, a, b);
    case IR_CC_LT: case IR_CC_FLT: return cmp(g, GCC_JIT_COMPARISON_LT, a, b);
    case IR_CC_LE: case IR_CC_FLE: return cmp(g, GCC_JIT_COMPARISON_LE, a, b);
    case IR_CC_GT: return cmp(g, GCC_JIT_COMPARISON_GT, a, b);
    case IR_CC_GE: return cmp(g, GCC_JIT_COMPARISON_GE, a, b);
    case IR_CC_FNLT:
        return gcc_jit_context_new_unary_op(g->c, NULL, GCC_JIT_UNARY_OP_LOGICAL_NEGATE, g->t_bool,
                                            cmp(g, GCC_JIT_COMPARISON_LT, a, b));
    case IR_CC_FNLE:
        return gcc_jit_context_new_unary_op(g->c, NULL, GCC_JIT_UNARY_OP_LOGICAL_NEGATE, g->t_bool,
                                            cmp(g, GCC_JIT_COMPARISON_LE, a, b));
    default:
        return NULL;
    }
}

/* Where a jump to b goes: inside the OSR copy, to the copy of b unless b
 * heads a loop around the OSR header (osr_plan). */
static gcc_jit_block *jump_to(JitCg *g, const IrBlock *b)
{
    if (!b || b->id >= g->f->nblocks)
        return NULL;
    if (g->in_osr && !g->to_main[b->id] && g->bb_osr[b->id])
        return g->bb_osr[b->id];
    return g->bb[b->id];
}

/* A class guard whose slow side runs at most 1/GUARD_SKEW as often as its
 * inlined side is laid out for the inlined side. */
enum { GUARD_SKEW = 8 };

static bool emit_term(JitCg *g, const IrInsn *in)
{
    gcc_jit_block *t0 = jump_to(g, in->target[0]);
    gcc_jit_block *t1 = jump_to(g, in->target[1]);
    switch (in->op) {
    case IR_JMP:
        if (!t0)
            break;
        gcc_jit_block_end_with_jump(g->cur, NULL, t0);
        return true;
    case IR_BR: {
        if (!t0 || !t1 || in->src[0] < 0)
            break;
        gcc_jit_rvalue *cond = branch_cond(g, in);
        if (!cond)
            break;
        gcc_jit_block_end_with_conditional(g->cur, NULL, cond, t0, t1);
        return true;
    }
    case IR_GUARD_CLASS:
    case IR_GUARD_FN: {
        /* src0 non-null and its class (a closure's lambda) is aux */
        if (!t0 || !t1 || in->src[0] < 0)
            break;
        bool skew = in->target[1]->count <= in->target[0]->count / GUARD_SKEW;
        gcc_jit_rvalue *o = R(g, in->src[0]);
        gcc_jit_block *nn = blk(g);
        gcc_jit_rvalue *isnull = cmp(g, GCC_JIT_COMPARISON_EQ, o, null(g));
        gcc_jit_block_end_with_conditional(g->cur, NULL, skew ? unlikely(g, isnull) : isnull, t1, nn);
        g->cur = nn;
        size_t off = in->op == IR_GUARD_CLASS ? offsetof(VmObject, cls) : offsetof(VmClosure, method);
        gcc_jit_rvalue *what = rv(mem(g, o, off, g->t_vptr));
        gcc_jit_rvalue *miss = cmp(g, GCC_JIT_COMPARISON_NE, what, ptr(g, in->aux));
        gcc_jit_block_end_with_conditional(g->cur, NULL, skew ? unlikely(g, miss) : miss, t1, t0);
        return true;
    }
    case IR_RET:
        if (in->src[0] < 0)
            break;
        assign(g, gcc_jit_lvalue_access_field(g->ret, NULL, local_member(g, in->src[0])), R(g, in->src[0]));
        epilogue_return(g);
        return true;
    case IR_RETV:
        assign(g, gcc_jit_lvalue_access_field(g->ret, NULL, g->fld_i), lng(g, 0));
        epilogue_return(g);
        return true;
    default:
        break;
    }
    return vm_fail(g->err, "%s: malformed terminator %s", g->m->name,
                   in->op < IR_OP_COUNT ? ir_op_info[in->op].name : "?");
}

/* ---- the function ------------------------------------------------------------------ */

static void types(JitCg *g)
{
    gcc_jit_context *c = g->c;
    g->t_void = gcc_jit_context_get_type(c, GCC_JIT_TYPE_VOID);
    g->t_long = gcc_jit_context_get_type(c, GCC_JIT_TYPE_LONG);
    /* array and string lengths: long long, a type of its own to gcc's
     * alias analysis, so that no store of an int element or field (long)
     * can change a length as far as gcc knows, and a loop's length stays
     * in a register with the bounds checks it proves (jit_cg_len) */
    g->t_len = gcc_jit_context_get_type(c, GCC_JIT_TYPE_LONG_LONG);
    g->t_ulong = gcc_jit_context_get_type(c, GCC_JIT_TYPE_UNSIGNED_LONG);
    g->t_double = gcc_jit_context_get_type(c, GCC_JIT_TYPE_DOUBLE);
    g->t_vptr = gcc_jit_context_get_type(c, GCC_JIT_TYPE_VOID_PTR);
    g->t_uchar = gcc_jit_context_get_type(c, GCC_JIT_TYPE_UNSIGNED_CHAR);
    g->t_uint = gcc_jit_context_get_type(c, GCC_JIT_TYPE_UNSIGNED_INT);
    g->t_bool = gcc_jit_context_get_type(c, GCC_JIT_TYPE_BOOL);
    g->t_charp = gcc_jit_type_get_pointer(gcc_jit_context_get_type(c, GCC_JIT_TYPE_CHAR));
    g->fld_i = gcc_jit_context_new_field(c, NULL, g->t_long, "i");
    g->fld_f = gcc_jit_context_new_field(c, NULL, g->t_double, "f");
    g->fld_p = gcc_jit_context_new_field(c, NULL, g->t_vptr, "p");
    gcc_jit_field *fields[3] = {g->fld_i, g->fld_f, g->fld_p};
    g->t_value = gcc_jit_context_new_union_type(c, NULL, "VmValue", 3, fields);
    g->t_valuep = gcc_jit_type_get_pointer(g->t_value);
    gcc_jit_type *pt[3] = {g->t_vptr, g->t_vptr, g->t_valuep};
    g->t_entry = gcc_jit_context_new_function_ptr_type(c, NULL, g->t_value, 3, pt, 0);
    g->expect = gcc_jit_context_get_builtin_function(c, "__builtin_expect");
    g->sqrt = gcc_jit_context_get_builtin_function(c, "__builtin_sqrt");
    g->memset = gcc_jit_context_get_builtin_function(c, "__builtin_memset");
    g->prefetch = gcc_jit_context_get_builtin_function(c, "__builtin_prefetch");
    g->t_int = gcc_jit_context_get_type(c, GCC_JIT_TYPE_INT);
}

/* OSR compiles enter at the loop header osr_head.  Entering a loop
 * anywhere but at its header makes it irreducible, and gcc leaves
 * irreducible regions mostly unoptimized, so the OSR entry gets its own
 * copy of the blocks reachable from the header without passing the header
 * of a loop around it; from the copy, jumps to such a header go to the
 * ordinary blocks.  So every loop keeps a single entry: the copy holds
 * the header's own loop (entered at the header only) and the rest of the
 * current iterations of the loops around it; the ordinary blocks are
 * entered at the function's entry and at those loop headers.  The
 * registers of the method are its first locals (ir/build.c); checked. */
static bool osr_plan(JitCg *g)
{
    IrFunc *f = g->f;
    VmMethod *m = g->m;
    const IrBlock *h = g->osr_head;
    if (h->id >= f->nblocks || f->blocks[h->id] != h)
        return vm_fail(g->err, "%s: OSR header is not a block of the function", m->name);
    if (f->nlocals < m->nregs)
        return vm_fail(g->err, "%s: OSR: fewer locals than registers", m->name);
    for (uint32_t i = 0; i < m->nregs; i++)
        if (f->locals[i].origin != m || f->locals[i].reg != i)
            return vm_fail(g->err, "%s: OSR: local %u is not register %u", m->name, i, i);
    g->bb_osr = calloc(f->nblocks, sizeof *g->bb_osr);
    g->to_main = calloc(f->nblocks, sizeof *g->to_main);
    const IrBlock **stack = malloc(2 * f->nblocks * sizeof *stack);
    if (!g->bb_osr || !g->to_main || !stack) {
        free(stack);
        return vm_fail(g->err, "%s: out of memory", m->name);
    }
    const IrLoop *l = h->loop;
    if (l && l->header == h)
        l = l->parent;
    uint32_t sp = 0;
    char bname[32];
    for (; l; l = l->parent) {
        g->to_main[l->header->id] = true;
        if (g->osr_only && !g->bb[l->header->id]) {   /* the ordinary blocks the copy reaches */
            snprintf(bname, sizeof bname, "b%u", l->header->id);
            g->bb[l->header->id] = gcc_jit_function_new_block(g->fn, bname);
            stack[sp++] = l->header;
        }
    }
    while (sp) {
        const IrBlock *b = stack[--sp];
        for (uint32_t k = 0; k < b->nsuccs; k++) {
            const IrBlock *x = b->succs[k];
            if (x->id >= f->nblocks || g->bb[x->id])
                continue;
            snprintf(bname, sizeof bname, "b%u", x->id);
            g->bb[x->id] = gcc_jit_function_new_block(g->fn, bname);
            stack[sp++] = x;
        }
    }
    snprintf(bname, sizeof bname, "o%u", h->id);
    g->bb_osr[h->id] = gcc_jit_function_new_block(g->fn, bname);
    stack[sp++] = h;
    while (sp) {
        const IrBlock *b = stack[--sp];
        for (uint32_t k = 0; k < b->nsuccs; k++) {
            const IrBlock *x = b->succs[k];
            if (x->id >= f->nblocks || g->to_main[x->id] || g->bb_osr[x->id])
                continue;
            snprintf(bname, sizeof bname, "o%u", x->id);
            g->bb_osr[x->id] = gcc_jit_function_new_block(g->fn, bname);
            stack[sp++] = x;
        }
    }
    free(stack);
    return true;
}

/* The exported OSR entry: f(t, NULL, regs). */
static bool build_osr_entry(JitCg *g, const char *osr_name)
{
    gcc_jit_context *c = g->c;
    gcc_jit_param *pt = gcc_jit_context_new_param(c, NULL, g->t_vptr, "t");
    gcc_jit_param *pm = gcc_jit_context_new_param(c, NULL, g->t_vptr, "m");
    gcc_jit_param *pr = gcc_jit_context_new_param(c, NULL, g->t_valuep, "regs");
    gcc_jit_param *params[3] = {pt, pm, pr};
    gcc_jit_function *fn = gcc_jit_context_new_function(c, NULL, GCC_JIT_FUNCTION_EXPORTED, g->t_value, osr_name,
                                                        3, params, 0);
    if (!fn)
        return vm_fail(g->err, "%s: gccjit: %s", g->m->name, gcc_jit_context_get_first_error(c));
    gcc_jit_rvalue *a[3] = {gcc_jit_param_as_rvalue(pt), null(g), gcc_jit_param_as_rvalue(pr)};
    gcc_jit_block *b = gcc_jit_function_new_block(fn, "entry");
    gcc_jit_block_end_with_return(b, NULL, gcc_jit_context_new_call(c, NULL, g->fn, 3, a));
    return true;
}

/* Marker K's `+= 1` (markers/markers.h): plain, gcc may move, merge or
 * duplicate it and keeps the global right at every store; pinned, an asm
 * gcc must run where it stands, once per pass. */
static void emit_marker(JitCg *g, uint32_t k)
{
    if (g->marks->naive) {   /* a real timer call, which gcc optimizes around */
        gcc_jit_type *pt[1] = {g->t_uint};
        gcc_jit_rvalue *a[1] = {gcc_jit_context_new_rvalue_from_int(g->c, g->t_uint, (int)k)};
        eval(g, call(g, JIT_FN(g->marks->naive), g->t_void, 1, pt, a));
        return;
    }
    if (!g->mk[k]) {
        char name[192];
        snprintf(name, sizeof name, "%s_mk%u", g->fname, k);
        g->mk[k] = gcc_jit_context_new_global(g->c, NULL, GCC_JIT_GLOBAL_INTERNAL, g->t_long, name);
    }
    if (g->marks->pinned) {
        gcc_jit_extended_asm *a = gcc_jit_block_add_extended_asm(g->cur, NULL, "addq $1, %0");
        gcc_jit_extended_asm_set_volatile_flag(a, 1);
        gcc_jit_extended_asm_add_output_operand(a, NULL, "+m", g->mk[k]);
        gcc_jit_extended_asm_add_clobber(a, "cc");
    } else {
        gcc_jit_block_add_assignment_op(g->cur, NULL, g->mk[k], GCC_JIT_BINARY_OP_PLUS, lng(g, 1));
    }
}

/* The insns of IR block b into the gcc block gb. */
static bool emit_block(JitCg *g, const IrBlock *b, gcc_jit_block *gb)
{
    g->cur = gb;
    if (!b->ninsns)
        return vm_fail(g->err, "%s: empty block %u", g->m->name, b->id);
    if (g->marks && b->id < g->marks->n && g->marks->at[b->id] >= 0 &&
        (uint32_t)g->marks->at[b->id] < g->marks->nmarkers)
        emit_marker(g, (uint32_t)g->marks->at[b->id]);
    for (uint32_t k = 0; k + 1 < b->ninsns; k++)
        if (!emit_insn(g, &b->insns[k]))
            return false;
    if (!emit_term(g, &b->insns[b->ninsns - 1]))
        return false;
    return !g->failed;
}

static void dispatch_prologue(JitCg *g);

/* Builds f as function `name` in the context; with g->osr_head also its
 * OSR copy and `osr_name`, the OSR entry; with g->osr_only the latter alone
 * (the function is `osr_name` then, and only the blocks it reaches exist). */
static bool build_function(JitCg *g, const char *name, const char *osr_name)
{
    gcc_jit_context *c = g->c;
    IrFunc *f = g->f;
    gcc_jit_param *pt = gcc_jit_context_new_param(c, NULL, g->t_vptr, "t");
    gcc_jit_param *pm = gcc_jit_context_new_param(c, NULL, g->t_vptr, "m");
    gcc_jit_param *pa = gcc_jit_context_new_param(c, NULL, g->t_valuep, g->osr_only ? "regs" : "args");
    gcc_jit_param *params[3] = {pt, pm, pa};
    if (g->osr_only && !g->osr_head)
        return vm_fail(g->err, "%s: an OSR-only compile without a header", g->m->name);
    g->fn = gcc_jit_context_new_function(c, NULL, GCC_JIT_FUNCTION_EXPORTED, g->t_value,
                                         g->osr_only ? osr_name : name, 3, params, 0);
    if (!g->fn)
        return vm_fail(g->err, "%s: gccjit: %s", g->m->name, gcc_jit_context_get_first_error(c));
    g->thread = gcc_jit_param_as_rvalue(pt);
    g->mparam = gcc_jit_param_as_rvalue(pm);
    g->args = gcc_jit_param_as_rvalue(pa);
    g->fname = g->osr_only ? osr_name : name;
    if (g->marks && g->marks->nmarkers && !(g->mk = calloc(g->marks->nmarkers, sizeof *g->mk)))
        return vm_fail(g->err, "%s: out of memory", g->m->name);

    uint32_t maxargs = 1;
    for (uint32_t i = 0; i < f->nblocks; i++)
        for (uint32_t k = 0; k < f->blocks[i]->ninsns; k++) {
            const IrInsn *in = &f->blocks[i]->insns[k];
            bool takes = in->op < IR_OP_COUNT && (ir_op_info[in->op].flags & IR_OPF_ARGS);
            if (takes && in->imm.i > 0 && (uint64_t)in->imm.i > maxargs)
                maxargs = (uint32_t)in->imm.i;
            if (takes && in->imm.i > 0 && (in->src[0] < 0 || (uint64_t)in->src[0] + (uint64_t)in->imm.i > f->nlocals))
                return vm_fail(g->err, "%s: call arguments out of range", g->m->name);
        }
    g->loc = calloc(f->nlocals ? f->nlocals : 1, sizeof *g->loc);
    g->slots = calloc(f->nslots ? f->nslots : 1, sizeof *g->slots);
    g->slot_insn = calloc(f->nslots ? f->nslots : 1, sizeof *g->slot_insn);
    g->bb = calloc(f->nblocks ? f->nblocks : 1, sizeof *g->bb);
    if (!g->loc || !g->bb || !g->slots || !g->slot_insn)
        return vm_fail(g->err, "%s: out of memory", g->m->name);
    for (uint32_t i = 0; i < f->nlocals; i++) {
        char lname[32];
        snprintf(lname, sizeof lname, "l%u", i);
        g->loc[i] = gcc_jit_function_new_local(g->fn, NULL, jit_cg_local_type(g, (int32_t)i), lname);
    }
    g->frame = gcc_jit_function_new_local(g->fn, NULL, g->t_vptr, "frame");
    g->frame0 = gcc_jit_function_new_local(g->fn, NULL, g->t_vptr, "caller_frame");
    g->ret = gcc_jit_function_new_local(g->fn, NULL, g->t_value, "ret");
    g->tmp_m = gcc_jit_function_new_local(g->fn, NULL, g->t_vptr, "callee");
    g->tmp_c = gcc_jit_function_new_local(g->fn, NULL, g->t_vptr, "cls");
    g->anchor = gcc_jit_function_new_local(g->fn, NULL, g->t_long, "anchor");
    g->argbuf = gcc_jit_function_new_local(g->fn, NULL, gcc_jit_context_new_array_type(c, NULL, g->t_value, (int)maxargs),
                                           "argbuf");

    g->cur = gcc_jit_function_new_block(g->fn, "entry");   /* the first block is the entry */
    for (uint32_t i = 0; i < f->nblocks; i++) {
        if (f->blocks[i]->id != i)
            return vm_fail(g->err, "%s: block ids are not indices", g->m->name);
        if (g->osr_only)
            continue;   /* osr_plan makes the blocks the OSR code reaches */
        char bname[32];
        snprintf(bname, sizeof bname, "b%u", i);
        g->bb[i] = gcc_jit_function_new_block(g->fn, bname);
    }
    if (!f->nblocks)
        return vm_fail(g->err, "%s: no blocks", g->m->name);
    if (g->osr_head && !osr_plan(g))
        return false;
    if (g->osr_only) {
        osr_prologue(g);
    } else {
        if (g->osr_head) {
            gcc_jit_block *normal = blk(g), *osr = blk(g);
            gcc_jit_block_end_with_conditional(g->cur, NULL,
                                               unlikely(g, cmp(g, GCC_JIT_COMPARISON_EQ, g->mparam, null(g))), osr,
                                               normal);
            g->cur = osr;
            osr_prologue(g);
            g->cur = normal;
        }
        if (g->disp)
            dispatch_prologue(g);
        prologue(g);
        gcc_jit_block_end_with_jump(g->cur, NULL, g->bb[0]);
    }

    for (uint32_t i = 0; i < f->nblocks; i++)
        if (g->bb[i] && !emit_block(g, f->blocks[i], g->bb[i]))
            return false;
    if (g->osr_head) {
        g->in_osr = true;
        for (uint32_t i = 0; i < f->nblocks; i++)
            if (g->bb_osr[i] && !emit_block(g, f->blocks[i], g->bb_osr[i]))
                return false;
        g->in_osr = false;
        if (!g->osr_only && !build_osr_entry(g, osr_name))
            return false;
    }
    const char *e = gcc_jit_context_get_first_error(c);
    if (e)
        return vm_fail(g->err, "%s: gccjit: %s", g->m->name, e);
    return !g->failed;
}

/* ---- link slots ---------------------------------------------------------------- */

static uint32_t link_hash(const void *p, uint32_t mask)
{
    uint64_t x = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(x >> 32) & mask;
}

static bool link_rehash(JitCg *g)
{
    uint32_t cap = g->link_hcap ? 2 * g->link_hcap : 64;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return false;
    for (uint32_t k = 0; k < g->links->n; k++) {
        uint32_t i = link_hash(g->links->v[k], cap - 1);
        while (h[i])
            i = (i + 1) & (cap - 1);
        h[i] = k + 1;
    }
    free(g->link_hash);
    g->link_hash = h;
    g->link_hcap = cap;
    return true;
}

gcc_jit_rvalue *jit_cg_link(JitCg *g, const void *p)
{
    JitLinks *l = g->links;
    if (2 * (l->n + 1) > g->link_hcap && !link_rehash(g))
        return NULL;
    uint32_t mask = g->link_hcap - 1, i = link_hash(p, mask);
    for (; g->link_hash[i]; i = (i + 1) & mask)
        if (l->v[g->link_hash[i] - 1] == p)
            return rv(g->link_g[g->link_hash[i] - 1]);
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? 2 * l->cap : 32;
        const void **v = realloc(l->v, cap * sizeof *v);
        gcc_jit_lvalue **lg = v ? realloc(g->link_g, cap * sizeof *lg) : NULL;
        if (v)
            l->v = v;
        if (!lg)
            return NULL;
        g->link_g = lg;
        l->cap = cap;
    }
    char name[160];
    snprintf(name, sizeof name, "%s_L%u", l->sym, l->n);
    gcc_jit_lvalue *gl = gcc_jit_context_new_global(g->c, NULL, GCC_JIT_GLOBAL_INTERNAL, g->t_vptr, name);
    if (!gl)
        return NULL;
    g->link_g[l->n] = gl;
    l->v[l->n] = p;
    g->link_hash[i] = ++l->n;
    return rv(gl);
}

/* The exported `void <sym>_link(void **v)` that sets every slot: the
 * slots are static, so the code reads each with one RIP-relative load,
 * and written here, so gcc cannot take them for constants. */
static bool link_setter(JitCg *g)
{
    JitLinks *l = g->links;
    char name[160];
    snprintf(name, sizeof name, "%s_link", l->sym);
    gcc_jit_type *pp = gcc_jit_type_get_pointer(g->t_vptr);
    gcc_jit_param *pv = gcc_jit_context_new_param(g->c, NULL, pp, "v");
    gcc_jit_function *fn = gcc_jit_context_new_function(g->c, NULL, GCC_JIT_FUNCTION_EXPORTED, g->t_void, name, 1,
                                                       &pv, 0);
    if (!fn)
        return false;
    gcc_jit_block *b = gcc_jit_function_new_block(fn, "entry");
    for (uint32_t k = 0; k < l->n; k++) {
        gcc_jit_rvalue *i = gcc_jit_context_new_rvalue_from_int(g->c, g->t_int, (int)k);
        gcc_jit_block_add_assignment(
            b, NULL, g->link_g[k],
            rv(gcc_jit_context_new_array_access(g->c, NULL, gcc_jit_param_as_rvalue(pv), i)));
    }
    gcc_jit_block_end_with_void_return(b, NULL);
    return true;
}

void jit_links_free(JitLinks *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* ---- the unit's functions ------------------------------------------------------- */

struct JitCodegen {
    JitCg proto;   /* the context and its types; copied for each method */
};

void jit_codegen_marks(JitCodegen *cg, const JitMarks *marks)
{
    cg->proto.marks = marks;
}

void jit_codegen_links(JitCodegen *cg, JitLinks *links)
{
    if (links)
        links->n = 0;
    cg->proto.links = links;
}

JitCodegen *jit_codegen_new(gcc_jit_context *ctx)
{
    JitCodegen *cg = calloc(1, sizeof *cg);
    if (!cg)
        return NULL;
    cg->proto.c = ctx;
    types(&cg->proto);
    return cg;
}

void jit_codegen_free(JitCodegen *cg)
{
    free(cg);
}

bool jit_codegen_method(JitCodegen *cg, IrFunc *f, const IrBlock *osr_head, bool osr_only, const char *name,
                        const char *osr_name, JitWheres *wheres, VmError *err)
{
    JitCg g = cg->proto;
    g.f = f;
    g.m = f->method;
    g.err = err;
    g.osr_head = osr_head;
    g.osr_only = osr_only;
    if (g.links)
        snprintf(g.links->sym, sizeof g.links->sym, "%s", osr_only ? osr_name : name);
    bool ok = build_function(&g, name, osr_name);
    if (ok && g.links && !link_setter(&g))
        ok = vm_fail(err, "%s: gccjit: %s", g.m->name, gcc_jit_context_get_first_error(g.c));
    /* the descriptors go to the caller whatever happened: it frees them
     * unless the unit gets loaded */
    for (uint32_t i = 0; i < g.nwheres; i++) {
        if (wheres->n == wheres->cap) {
            uint32_t cap = wheres->cap ? 2 * wheres->cap : 64;
            JitWhere **v = realloc(wheres->v, cap * sizeof *v);
            if (!v) {
                free(g.wheres[i]);
                ok = ok ? vm_fail(err, "%s: out of memory", g.m->name) : false;
                continue;
            }
            wheres->v = v;
            wheres->cap = cap;
        }
        wheres->v[wheres->n++] = g.wheres[i];
    }
    free(g.wheres);
    free(g.loc);
    free(g.slots);
    free(g.slot_insn);
    free(g.bb);
    free(g.bb_osr);
    free(g.to_main);
    free(g.mk);
    free(g.link_g);
    free(g.link_hash);
    cg->proto.marks = NULL;
    cg->proto.links = NULL;
    return ok;
}

/* ---- bakeoffs: timed wrappers and the dispatcher ------------------------------ */

/* dst = the cycle counter, after every earlier instruction has completed
 * (lfence; rdtsc: the read cannot move up past the code it times). */
static void read_cycles(JitCg *g, gcc_jit_lvalue *dst)
{
    gcc_jit_lvalue *lo = temp(g, g->t_uint), *hi = temp(g, g->t_uint);
    gcc_jit_extended_asm *a = gcc_jit_block_add_extended_asm(g->cur, NULL, "lfence\n\trdtsc");
    gcc_jit_extended_asm_set_volatile_flag(a, 1);
    gcc_jit_extended_asm_add_output_operand(a, NULL, "=a", lo);
    gcc_jit_extended_asm_add_output_operand(a, NULL, "=d", hi);
    gcc_jit_extended_asm_add_clobber(a, "memory");
    gcc_jit_rvalue *h = bin(g, GCC_JIT_BINARY_OP_LSHIFT, g->t_ulong, cast(g, rv(hi), g->t_ulong),
                            gcc_jit_context_new_rvalue_from_int(g->c, g->t_ulong, 32));
    assign(g, dst, bin(g, GCC_JIT_BINARY_OP_BITWISE_OR, g->t_ulong, h, cast(g, rv(lo), g->t_ulong)));
}

bool jit_codegen_timed(JitCodegen *cg, const char *name, JitBakeoffTable *tab, VmMethod *m, uint32_t slot,
                       JitSampleFn sample, JitTimedEnter enter, void *enter_ctx, VmError *err)
{
    JitCg g0 = cg->proto, *g = &g0;
    gcc_jit_context *c = g->c;
    gcc_jit_param *pt = gcc_jit_context_new_param(c, NULL, g->t_vptr, "t");
    gcc_jit_param *pm = gcc_jit_context_new_param(c, NULL, g->t_vptr, "m");
    gcc_jit_param *pa = gcc_jit_context_new_param(c, NULL, g->t_valuep, "args");
    gcc_jit_param *params[3] = {pt, pm, pa};
    g->fn = gcc_jit_context_new_function(c, NULL, GCC_JIT_FUNCTION_EXPORTED, g->t_value, name, 3, params, 0);
    if (!g->fn)
        return vm_fail(err, "timed wrapper: gccjit: %s", gcc_jit_context_get_first_error(c));
    g->cur = gcc_jit_function_new_block(g->fn, "entry");
    gcc_jit_lvalue *c0 = temp(g, g->t_ulong), *c1 = temp(g, g->t_ulong), *r = temp(g, g->t_value);
    gcc_jit_lvalue *k = temp(g, g->t_int);
    /* the variant the slow path chose, from this thread's slot state */
    size_t off = offsetof(VmThread, audit) + slot * sizeof(VmAuditSlot) + offsetof(VmAuditSlot, timing);
    assign(g, k, rv(mem(g, gcc_jit_param_as_rvalue(pt), off, g->t_int)));
    /* its clean code through the table: a load gcc cannot see through */
    gcc_jit_rvalue *code = rv(elem(g, ptr(g, enter ? tab->marked : tab->clean), 0, g->t_entry, rv(k)));
    gcc_jit_rvalue *a[3] = {gcc_jit_param_as_rvalue(pt), gcc_jit_param_as_rvalue(pm), gcc_jit_param_as_rvalue(pa)};
    gcc_jit_lvalue *fn = temp(g, g->t_entry);
    assign(g, fn, code);
    /* the method's invocations during the call (its compiled code counts
     * them at entry), read outside the timed interval */
    gcc_jit_lvalue *calls = mem(g, ptr(g, &m->prof.calls), 0, g->t_ulong);
    gcc_jit_lvalue *n0 = temp(g, g->t_ulong), *n = temp(g, g->t_ulong), *w = temp(g, g->t_uint);
    assign(g, n0, rv(calls));
    if (enter) {   /* loop timings: the first region starts inside enter */
        gcc_jit_type *pt3[3] = {g->t_vptr, g->t_uint, g->t_uint};
        gcc_jit_rvalue *a3[3] = {ptr(g, enter_ctx), rv(mem(g, ptr(g, &tab->bakeoff), 0, g->t_uint)),
                                 cast(g, rv(k), g->t_uint)};
        eval(g, call(g, JIT_FN(enter), g->t_void, 3, pt3, a3));
    }
    read_cycles(g, c0);
    assign(g, r, gcc_jit_context_new_call_through_ptr(c, NULL, rv(fn), 3, a));
    read_cycles(g, c1);
    /* weight: 1, or for a recursive method (tab->weighted) the calls the
     * timed call made, itself included, when that count is sane */
    assign(g, n, bin(g, GCC_JIT_BINARY_OP_MINUS, g->t_ulong, rv(calls), rv(n0)));
    assign(g, w, gcc_jit_context_one(c, g->t_uint));
    gcc_jit_block *count = blk(g), *done = blk(g);
    gcc_jit_rvalue *sane = cmp(g, GCC_JIT_COMPARISON_LT,
                               bin(g, GCC_JIT_BINARY_OP_MINUS, g->t_ulong, rv(n), gcc_jit_context_one(c, g->t_ulong)),
                               gcc_jit_context_new_rvalue_from_long(c, g->t_ulong, (long)UINT32_MAX));
    gcc_jit_rvalue *weighted = cmp(g, GCC_JIT_COMPARISON_NE, rv(mem(g, ptr(g, &tab->weighted), 0, g->t_uint)),
                                   gcc_jit_context_zero(c, g->t_uint));
    gcc_jit_block_end_with_conditional(
        g->cur, NULL, gcc_jit_context_new_binary_op(c, NULL, GCC_JIT_BINARY_OP_LOGICAL_AND, g->t_bool, weighted, sane),
        count, done);
    g->cur = count;
    assign(g, w, cast(g, rv(n), g->t_uint));
    gcc_jit_block_end_with_jump(g->cur, NULL, done);
    g->cur = done;
    gcc_jit_type *pt4[4] = {g->t_uint, g->t_uint, g->t_ulong, g->t_uint};
    gcc_jit_rvalue *a4[4] = {
        rv(mem(g, ptr(g, &tab->bakeoff), 0, g->t_uint)),
        cast(g, rv(k), g->t_uint),
        bin(g, GCC_JIT_BINARY_OP_MINUS, g->t_ulong, rv(c1), rv(c0)),
        rv(w),
    };
    eval(g, call(g, JIT_FN(sample), g->t_bool, 4, pt4, a4));
    gcc_jit_block_end_with_return(g->cur, NULL, rv(r));
    const char *e = gcc_jit_context_get_first_error(c);
    return e ? vm_fail(err, "timed wrapper: gccjit: %s", e) : true;
}

/* The dispatcher's prologue (before the ordinary one, in the entry
 * block): --t->audit[slot].countdown; below zero, the slow path takes the call. */
static void dispatch_prologue(JitCg *g)
{
    const JitDispatch *d = g->disp;
    size_t off = offsetof(VmThread, audit) + d->slot * sizeof(VmAuditSlot) + offsetof(VmAuditSlot, countdown);
    gcc_jit_lvalue *cd = mem(g, g->thread, off, g->t_int);
    gcc_jit_lvalue *n = temp(g, g->t_int);
    assign(g, n, bin(g, GCC_JIT_BINARY_OP_MINUS, g->t_int, rv(cd), gcc_jit_context_new_rvalue_from_int(g->c, g->t_int, 1)));
    assign(g, cd, rv(n));
    gcc_jit_block *slow = blk(g), *fast = blk(g);
    gcc_jit_block_end_with_conditional(
        g->cur, NULL, unlikely(g, cmp(g, GCC_JIT_COMPARISON_LT, rv(n), gcc_jit_context_new_rvalue_from_int(g->c, g->t_int, 0))),
        slow, fast);
    g->cur = slow;
    gcc_jit_type *pt[4] = {g->t_vptr, g->t_vptr, g->t_valuep, g->t_vptr};
    gcc_jit_rvalue *a[4] = {g->thread, g->mparam, g->args, ptr(g, d->slow_ctx)};
    gcc_jit_block_end_with_return(g->cur, NULL, call(g, JIT_FN(d->slow), g->t_value, 4, pt, a));
    g->cur = fast;
}

bool jit_codegen_variant(JitCodegen *cg, IrFunc *f, const char *name, bool self_direct, JitWheres *wheres,
                         VmError *err)
{
    cg->proto.self_direct = self_direct;
    bool ok = jit_codegen_method(cg, f, NULL, false, name, NULL, wheres, err);
    cg->proto.self_direct = false;
    return ok;
}

bool jit_codegen_dispatcher(JitCodegen *cg, IrFunc *f, const JitDispatch *d, const char *name, JitWheres *wheres,
                            VmError *err)
{
    cg->proto.disp = d;
    bool ok = jit_codegen_method(cg, f, NULL, false, name, NULL, wheres, err);
    cg->proto.disp = NULL;
    return ok;
}

