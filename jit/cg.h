/* jit/cg.h — what the code generator's files share (codegen.c: methods,
 * calls, checks, the prologue and bakeoff code; codegen_obj.c: allocation
 * and type tests): the per-function state and the small gccjit builders.
 * Internal to jit/codegen*.c.
 *
 * Invariant: every builder appends to g->cur (the block being filled) or
 * only builds an expression; none ends a block except end_fail.
 */
#ifndef TALLY_JIT_CG_H
#define TALLY_JIT_CG_H

#include "jit_int.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct JitCg {
    gcc_jit_context *c;
    IrFunc *f;
    VmMethod *m;
    VmError *err;
    bool failed;
    gcc_jit_function *fn;
    gcc_jit_type *t_int, *t_void, *t_long, *t_len, *t_ulong, *t_double, *t_vptr, *t_uchar, *t_uint, *t_bool, *t_charp;
    gcc_jit_type *t_value, *t_valuep, *t_entry;
    gcc_jit_field *fld_i, *fld_f, *fld_p;
    gcc_jit_rvalue *thread, *args;
    gcc_jit_lvalue **loc;
    gcc_jit_lvalue **slots;        /* NEWL/CLOSL frame slots, made on first use */
    const IrInsn **slot_insn;      /*   by insn (the OSR copy shares them) */
    uint32_t nslots;
    gcc_jit_lvalue *frame, *frame0, *argbuf, *ret, *tmp_m, *tmp_c;
    gcc_jit_block **bb;
    gcc_jit_block *cur;
    gcc_jit_rvalue *mparam;        /* the m parameter: NULL selects the OSR entry */
    gcc_jit_lvalue *anchor;        /* C stack probe */
    const IrBlock *osr_head;       /* OSR compiles: the loop header entered */
    bool osr_only;                 /*   and only the OSR entry is wanted */
    gcc_jit_block **bb_osr;        /* the OSR copy of each block, NULL if not copied */
    bool *to_main;                 /* headers of the loops around osr_head */
    bool in_osr;                   /* emitting the OSR copy */
    gcc_jit_function *expect;      /* __builtin_expect, NULL if unavailable */
    gcc_jit_function *sqrt;        /* __builtin_sqrt, NULL if unavailable */
    gcc_jit_function *memset;      /* __builtin_memset, NULL if unavailable */
    gcc_jit_function *prefetch;    /* __builtin_prefetch, NULL if unavailable */
    JitWhere **wheres;             /* owned until the compile succeeds */
    uint32_t nwheres, capwheres;
    uint32_t ntemps;
    const JitDispatch *disp;       /* a bakeoff's dispatcher: its prologue */
    bool self_direct;              /* a bakeoff's variant: calls of m itself call fn */
    gcc_jit_block *null_fail;      /* the function's one null-dereference raise, */
    gcc_jit_lvalue *null_where;    /*   made on first use, and its site */
    const JitMarks *marks;         /* code markers to insert (NULL: none) */
    gcc_jit_lvalue **mk;           /* marker K's global, made on first use */
    const char *fname;             /* the function's symbol (markers are named after it) */
    JitLinks *links;               /* the address constants' link slots (NULL: immediates) */
    gcc_jit_lvalue **link_g;       /*   slot k's global in this context */
    uint32_t *link_hash, link_hcap;/*   slot index + 1 by address (open addressing) */
} JitCg;

/* ---- small builders ------------------------------------------------------ */

static inline gcc_jit_rvalue *lng(JitCg *g, int64_t v)
{
    return gcc_jit_context_new_rvalue_from_long(g->c, g->t_long, (long)v);
}

/* The value of the address p in slot k of the function's link table
 * (codegen.c); NULL when out of memory. */
gcc_jit_rvalue *jit_cg_link(JitCg *g, const void *p);

/* An address constant: an immediate, or with link slots (g->links) a read
 * of the slot the loader fills, so that the code holds no address of this
 * process.  Small values are sentinels, not addresses: always immediate. */
static inline gcc_jit_rvalue *ptr(JitCg *g, const void *p)
{
    if (g->links && (uintptr_t)p >= 65536) {
        gcc_jit_rvalue *r = jit_cg_link(g, p);
        if (r)
            return r;
        g->failed = true;
    }
    return gcc_jit_context_new_rvalue_from_ptr(g->c, g->t_vptr, (void *)p);
}

static inline gcc_jit_rvalue *rv(gcc_jit_lvalue *l)
{
    return gcc_jit_lvalue_as_rvalue(l);
}

static inline gcc_jit_rvalue *R(JitCg *g, int32_t local)
{
    return rv(g->loc[local]);
}

static inline gcc_jit_rvalue *cast(JitCg *g, gcc_jit_rvalue *v, gcc_jit_type *t)
{
    return gcc_jit_context_new_cast(g->c, NULL, v, t);
}

/* (char *)p + off, as void * */
static inline gcc_jit_rvalue *ptr_add(JitCg *g, gcc_jit_rvalue *p, gcc_jit_rvalue *off)
{
    gcc_jit_lvalue *a = gcc_jit_context_new_array_access(g->c, NULL, cast(g, p, g->t_charp), off);
    return cast(g, gcc_jit_lvalue_get_address(a, NULL), g->t_vptr);
}

/* *(ty *)((char *)p + off) */
static inline gcc_jit_lvalue *mem(JitCg *g, gcc_jit_rvalue *p, size_t off, gcc_jit_type *ty)
{
    gcc_jit_rvalue *a = off ? ptr_add(g, p, lng(g, (int64_t)off)) : p;
    return gcc_jit_rvalue_dereference(cast(g, a, gcc_jit_type_get_pointer(ty)), NULL);
}

/* The length of the array or string at p (its field at off), as a long:
 * read as long long (t_len), the type every length is written with in
 * compiled code. */
static inline gcc_jit_rvalue *jit_cg_len(JitCg *g, gcc_jit_rvalue *p, size_t off)
{
    return cast(g, rv(mem(g, p, off, g->t_len)), g->t_long);
}

/* ((ty *)((char *)p + off))[idx] */
static inline gcc_jit_lvalue *elem(JitCg *g, gcc_jit_rvalue *p, size_t off, gcc_jit_type *ty, gcc_jit_rvalue *idx)
{
    gcc_jit_rvalue *a = cast(g, ptr_add(g, p, lng(g, (int64_t)off)), gcc_jit_type_get_pointer(ty));
    return gcc_jit_context_new_array_access(g->c, NULL, a, idx);
}

static inline gcc_jit_rvalue *cmp(JitCg *g, enum gcc_jit_comparison op, gcc_jit_rvalue *a, gcc_jit_rvalue *b)
{
    return gcc_jit_context_new_comparison(g->c, NULL, op, a, b);
}

static inline gcc_jit_rvalue *bin(JitCg *g, enum gcc_jit_binary_op op, gcc_jit_type *t, gcc_jit_rvalue *a,
                           gcc_jit_rvalue *b)
{
    return gcc_jit_context_new_binary_op(g->c, NULL, op, t, a, b);
}

/* long op long computed in unsigned long: wraps like the interpreter */
static inline gcc_jit_rvalue *wrap(JitCg *g, enum gcc_jit_binary_op op, gcc_jit_rvalue *a, gcc_jit_rvalue *b)
{
    return cast(g, bin(g, op, g->t_ulong, cast(g, a, g->t_ulong), cast(g, b, g->t_ulong)), g->t_long);
}

static inline gcc_jit_rvalue *null(JitCg *g)
{
    return gcc_jit_context_null(g->c, g->t_vptr);
}

static inline gcc_jit_rvalue *to_long(JitCg *g, gcc_jit_rvalue *b)
{
    return cast(g, b, g->t_long);
}

/* A call of the C function fn (by address). */
static inline gcc_jit_rvalue *call(JitCg *g, void *fn, gcc_jit_type *ret, int n, gcc_jit_type **pt, gcc_jit_rvalue **a)
{
    gcc_jit_type *ft = gcc_jit_context_new_function_ptr_type(g->c, NULL, ret, n, pt, 0);
    gcc_jit_rvalue *f = g->links ? cast(g, ptr(g, fn), ft) : gcc_jit_context_new_rvalue_from_ptr(g->c, ft, fn);
    return gcc_jit_context_new_call_through_ptr(g->c, NULL, f, n, a);
}

#define JIT_FN(f) ((void *)(f))

/* A fresh local (gccjit wants a name). */
static inline gcc_jit_lvalue *temp(JitCg *g, gcc_jit_type *t)
{
    char name[32];
    snprintf(name, sizeof name, "tmp%u", g->ntemps++);
    return gcc_jit_function_new_local(g->fn, NULL, t, name);
}

static inline gcc_jit_block *blk(JitCg *g)
{
    return gcc_jit_function_new_block(g->fn, NULL);
}

static inline void assign(JitCg *g, gcc_jit_lvalue *l, gcc_jit_rvalue *r)
{
    gcc_jit_block_add_assignment(g->cur, NULL, l, r);
}

static inline void eval(JitCg *g, gcc_jit_rvalue *r)
{
    gcc_jit_block_add_eval(g->cur, NULL, r);
}

static inline gcc_jit_rvalue *unlikely(JitCg *g, gcc_jit_rvalue *cond)
{
    if (!g->expect)
        return cond;
    gcc_jit_rvalue *a[2] = {to_long(g, cond), lng(g, 0)};
    return cmp(g, GCC_JIT_COMPARISON_NE, gcc_jit_context_new_call(g->c, NULL, g->expect, 2, a), lng(g, 0));
}

/* Branches to a new cold block when cond holds; the caller fills it and
 * closes it with end_fail.  Code continues in a fresh block. */
static inline gcc_jit_block *fail_if(JitCg *g, gcc_jit_rvalue *cond)
{
    gcc_jit_block *bad = blk(g), *ok = blk(g);
    gcc_jit_block_end_with_conditional(g->cur, NULL, unlikely(g, cond), bad, ok);
    g->cur = ok;
    return bad;
}

static inline void end_fail(JitCg *g, gcc_jit_block *bad, gcc_jit_rvalue *raise)
{
    gcc_jit_block_add_eval(bad, NULL, raise);
    gcc_jit_block_end_with_return(bad, NULL, rv(g->ret));
}

/* codegen.c */
gcc_jit_type *jit_cg_local_type(JitCg *g, int32_t local);
/* Where in is (its method, pc, inline chain), for traces. */
JitWhere *jit_cg_where(JitCg *g, const IrInsn *in);
/* Before in raises or calls out: the frame's pc, or the inline chain pushed. */
void jit_cg_out_begin(JitCg *g, const IrInsn *in);
/* argbuf[i] = locals first .. first+n-1; returns &argbuf[0]. */
gcc_jit_rvalue *jit_cg_marshal(JitCg *g, int32_t first, int64_t n);

/* codegen_obj.c */
gcc_jit_rvalue *jit_cg_alloc_call(JitCg *g, const IrInsn *in, void *fn_plain, void *fn_at, int n, gcc_jit_type **et,
                                  gcc_jit_rvalue **ea);
void jit_cg_emit_new(JitCg *g, const IrInsn *in);
void jit_cg_emit_newl(JitCg *g, const IrInsn *in);
void jit_cg_emit_newal(JitCg *g, const IrInsn *in);
void jit_cg_emit_closl(JitCg *g, const IrInsn *in);
void jit_cg_emit_newa(JitCg *g, const IrInsn *in);
void jit_cg_emit_clos(JitCg *g, const IrInsn *in);
void jit_cg_instance_test(JitCg *g, gcc_jit_lvalue *dst, gcc_jit_rvalue *o, const VmType *ty);
void jit_cg_emit_seq(JitCg *g, const IrInsn *in);

#endif
