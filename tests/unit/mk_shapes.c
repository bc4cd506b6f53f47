/* tests/unit/mk_shapes.c — the marker shapes of mk_shapes.h, as gccjit
 * functions and as C.
 *
 * Input: a gccjit context and a shape.  Output: the shape's function (and
 * its markers, INTERNAL globals) in the context; or, in C, its result and
 * how often each marker's `+= 1` runs.  Invariant: the two agree — a
 * test compares what the jitted code computes and counts with the C.
 */
#include "mk_shapes.h"

#include <stdio.h>

/* A function under construction: its types, parameters and current block. */
typedef struct B {
    gcc_jit_context *c;
    gcc_jit_type *t_long, *t_lptr, *t_cb, *t_void, *t_int, *t_bool;
    gcc_jit_function *f;
    gcc_jit_param *a, *n, *flag, *cb;
    gcc_jit_block *cur;
    unsigned nblocks;
    const char *name;
} B;

typedef struct Loop {
    gcc_jit_block *head, *exit;
    gcc_jit_lvalue *i;
} Loop;

static const char *const names[MK_NSHAPES] = {"sum", "sum_yield", "sum_call", "big", "addr", "pinned"};
static const unsigned nmarkers[MK_NSHAPES] = {1, 1, 2, MK_BIG_LOOPS, 2, 1};

const char *mk_shape_name(MkShape s)
{
    return names[s];
}

unsigned mk_shape_markers(MkShape s)
{
    return nmarkers[s];
}

static gcc_jit_rvalue *lit(B *b, long v)
{
    return gcc_jit_context_new_rvalue_from_long(b->c, b->t_long, v);
}

static gcc_jit_rvalue *bin(B *b, enum gcc_jit_binary_op op, gcc_jit_rvalue *x, gcc_jit_rvalue *y)
{
    return gcc_jit_context_new_binary_op(b->c, NULL, op, b->t_long, x, y);
}

static gcc_jit_block *block(B *b)
{
    char nm[32];
    snprintf(nm, sizeof nm, "b%u", b->nblocks++);
    return gcc_jit_function_new_block(b->f, nm);
}

static gcc_jit_lvalue *marker(B *b, unsigned k)
{
    char nm[64];
    snprintf(nm, sizeof nm, "%s_mk%u", b->name, k);
    return gcc_jit_context_new_global(b->c, NULL, GCC_JIT_GLOBAL_INTERNAL, b->t_long, nm);
}

static void bump(B *b, gcc_jit_lvalue *mk)
{
    gcc_jit_block_add_assignment_op(b->cur, NULL, mk, GCC_JIT_BINARY_OP_PLUS, lit(b, 1));
}

/* for (i = 0; i < limit; i++) — the body goes into b->cur until loop_end;
 * with mk, `mk += 1` heads the loop, before its exit test. */
static Loop loop_begin_at(B *b, gcc_jit_lvalue *i, gcc_jit_rvalue *limit, gcc_jit_lvalue *mk)
{
    Loop l = {block(b), block(b), i};
    gcc_jit_block *body = block(b);
    gcc_jit_block_add_assignment(b->cur, NULL, i, lit(b, 0));
    gcc_jit_block_end_with_jump(b->cur, NULL, l.head);
    if (mk)
        gcc_jit_block_add_assignment_op(l.head, NULL, mk, GCC_JIT_BINARY_OP_PLUS, lit(b, 1));
    gcc_jit_rvalue *lt = gcc_jit_context_new_comparison(b->c, NULL, GCC_JIT_COMPARISON_LT,
                                                        gcc_jit_lvalue_as_rvalue(i), limit);
    gcc_jit_block_end_with_conditional(l.head, NULL, lt, body, l.exit);
    b->cur = body;
    return l;
}

static Loop loop_begin(B *b, gcc_jit_lvalue *i, gcc_jit_rvalue *limit)
{
    return loop_begin_at(b, i, limit, NULL);
}

static void loop_end(B *b, Loop *l)
{
    gcc_jit_block_add_assignment_op(b->cur, NULL, l->i, GCC_JIT_BINARY_OP_PLUS, lit(b, 1));
    gcc_jit_block_end_with_jump(b->cur, NULL, l->head);
    b->cur = l->exit;
}

/* if (__builtin_expect(__atomic_load_8(flag, RELAXED) != 0, 0)) cb(a) */
static void yieldpoint(B *b)
{
    gcc_jit_function *load = gcc_jit_context_get_builtin_function(b->c, "__atomic_load_8");
    gcc_jit_function *expect = gcc_jit_context_get_builtin_function(b->c, "__builtin_expect");
    gcc_jit_type *pt = gcc_jit_rvalue_get_type(gcc_jit_param_as_rvalue(gcc_jit_function_get_param(load, 0)));
    gcc_jit_rvalue *la[2] = {
        gcc_jit_context_new_cast(b->c, NULL, gcc_jit_param_as_rvalue(b->flag), pt),
        gcc_jit_context_new_rvalue_from_int(b->c, b->t_int, __ATOMIC_RELAXED),
    };
    gcc_jit_rvalue *v = gcc_jit_context_new_cast(b->c, NULL, gcc_jit_context_new_call(b->c, NULL, load, 2, la),
                                                 b->t_long);
    gcc_jit_rvalue *ne = gcc_jit_context_new_comparison(b->c, NULL, GCC_JIT_COMPARISON_NE, v, lit(b, 0));
    gcc_jit_rvalue *ea[2] = {gcc_jit_context_new_cast(b->c, NULL, ne, b->t_long), lit(b, 0)};
    gcc_jit_rvalue *e = gcc_jit_context_new_call(b->c, NULL, expect, 2, ea);
    gcc_jit_block *cold = block(b), *join = block(b);
    gcc_jit_block_end_with_conditional(
        b->cur, NULL, gcc_jit_context_new_comparison(b->c, NULL, GCC_JIT_COMPARISON_NE, e, lit(b, 0)), cold, join);
    gcc_jit_rvalue *arg = gcc_jit_param_as_rvalue(b->a);
    gcc_jit_block_add_eval(cold, NULL,
                           gcc_jit_context_new_call_through_ptr(b->c, NULL, gcc_jit_param_as_rvalue(b->cb), 1, &arg));
    gcc_jit_block_end_with_jump(cold, NULL, join);
    b->cur = join;
}

static gcc_jit_lvalue *elem(B *b, gcc_jit_lvalue *i)
{
    return gcc_jit_context_new_array_access(b->c, NULL, gcc_jit_param_as_rvalue(b->a), gcc_jit_lvalue_as_rvalue(i));
}

static void begin(B *b, gcc_jit_context *c, const char *name)
{
    b->c = c;
    b->name = name;
    b->nblocks = 0;
    b->t_long = gcc_jit_context_get_type(c, GCC_JIT_TYPE_LONG);
    b->t_int = gcc_jit_context_get_type(c, GCC_JIT_TYPE_INT);
    b->t_bool = gcc_jit_context_get_type(c, GCC_JIT_TYPE_BOOL);
    b->t_void = gcc_jit_context_get_type(c, GCC_JIT_TYPE_VOID);
    b->t_lptr = gcc_jit_type_get_pointer(b->t_long);
    b->t_cb = gcc_jit_context_new_function_ptr_type(c, NULL, b->t_void, 1, &b->t_lptr, 0);
    b->a = gcc_jit_context_new_param(c, NULL, b->t_lptr, "a");
    b->n = gcc_jit_context_new_param(c, NULL, b->t_long, "n");
    b->flag = gcc_jit_context_new_param(c, NULL, b->t_lptr, "flag");
    b->cb = gcc_jit_context_new_param(c, NULL, b->t_cb, "cb");
    gcc_jit_param *ps[4] = {b->a, b->n, b->flag, b->cb};
    b->f = gcc_jit_context_new_function(c, NULL, GCC_JIT_FUNCTION_EXPORTED, b->t_long, name, 4, ps, 0);
    b->cur = block(b);
}

/* static long <name>_mix(long x, long k) { for (j < k) { mk += 1; x = x * 31 + j; } return x; } */
static gcc_jit_function *build_mix(B *b, gcc_jit_lvalue *mk)
{
    char nm[64];
    snprintf(nm, sizeof nm, "%s_mix", b->name);
    gcc_jit_param *x = gcc_jit_context_new_param(b->c, NULL, b->t_long, "x");
    gcc_jit_param *k = gcc_jit_context_new_param(b->c, NULL, b->t_long, "k");
    gcc_jit_param *ps[2] = {x, k};
    gcc_jit_function *f = gcc_jit_context_new_function(b->c, NULL, GCC_JIT_FUNCTION_INTERNAL, b->t_long, nm, 2, ps, 0);
    B m = *b;
    m.f = f;
    m.cur = block(&m);
    gcc_jit_lvalue *j = gcc_jit_function_new_local(f, NULL, b->t_long, "j");
    Loop l = loop_begin(&m, j, gcc_jit_param_as_rvalue(k));
    bump(&m, mk);
    gcc_jit_block_add_assignment(
        m.cur, NULL, gcc_jit_param_as_lvalue(x),
        bin(&m, GCC_JIT_BINARY_OP_PLUS, bin(&m, GCC_JIT_BINARY_OP_MULT, gcc_jit_param_as_rvalue(x), lit(&m, 31)),
            gcc_jit_lvalue_as_rvalue(j)));
    loop_end(&m, &l);
    gcc_jit_block_end_with_return(m.cur, NULL, gcc_jit_param_as_rvalue(x));
    return f;
}

void mk_shape_build(gcc_jit_context *c, MkShape shape)
{
    B b;
    begin(&b, c, names[shape]);
    gcc_jit_lvalue *s = gcc_jit_function_new_local(b.f, NULL, b.t_long, "s");
    gcc_jit_lvalue *i = gcc_jit_function_new_local(b.f, NULL, b.t_long, "i");
    gcc_jit_rvalue *n = gcc_jit_param_as_rvalue(b.n), *si = gcc_jit_lvalue_as_rvalue(s);
    gcc_jit_rvalue *iv = gcc_jit_lvalue_as_rvalue(i);
    gcc_jit_block_add_assignment(b.cur, NULL, s, lit(&b, 0));
    switch (shape) {
    case MK_SUM:
    case MK_SUM_YIELD:
    case MK_PINNED: {
        gcc_jit_lvalue *mk = marker(&b, 0);
        Loop l = loop_begin(&b, i, n);
        if (shape == MK_PINNED) {
            gcc_jit_extended_asm *e = gcc_jit_block_add_extended_asm(b.cur, NULL, "addq $1, %0");
            gcc_jit_extended_asm_set_volatile_flag(e, 1);
            gcc_jit_extended_asm_add_output_operand(e, NULL, "+m", mk);
        } else {
            bump(&b, mk);
        }
        if (shape == MK_SUM_YIELD)
            yieldpoint(&b);
        gcc_jit_block_add_assignment_op(b.cur, NULL, s, GCC_JIT_BINARY_OP_PLUS,
                                        gcc_jit_lvalue_as_rvalue(elem(&b, i)));
        loop_end(&b, &l);
        break;
    }
    case MK_SUM_CALL: {
        gcc_jit_lvalue *mk0 = marker(&b, 0), *mk1 = marker(&b, 1);
        gcc_jit_function *mix = build_mix(&b, mk1);
        Loop l = loop_begin(&b, i, n);
        bump(&b, mk0);
        gcc_jit_rvalue *x = gcc_jit_lvalue_as_rvalue(elem(&b, i));
        gcc_jit_rvalue *args[2] = {x, bin(&b, GCC_JIT_BINARY_OP_BITWISE_AND, x, lit(&b, 7))};
        gcc_jit_block_add_assignment_op(b.cur, NULL, s, GCC_JIT_BINARY_OP_PLUS,
                                        gcc_jit_context_new_call(c, NULL, mix, 2, args));
        loop_end(&b, &l);
        break;
    }
    case MK_BIG: {
        gcc_jit_lvalue *x = gcc_jit_function_new_local(b.f, NULL, b.t_long, "x");
        gcc_jit_lvalue *t = gcc_jit_function_new_local(b.f, NULL, b.t_long, "t");
        gcc_jit_rvalue *xv = gcc_jit_lvalue_as_rvalue(x);
        for (unsigned j = 0; j < MK_BIG_LOOPS; j++) {
            gcc_jit_lvalue *mk = marker(&b, j);
            Loop l = loop_begin_at(&b, i, bin(&b, GCC_JIT_BINARY_OP_MINUS, n, lit(&b, (long)j)), mk);
            if (j % 4 != 3)
                yieldpoint(&b);
            gcc_jit_block_add_assignment(b.cur, NULL, x, gcc_jit_lvalue_as_rvalue(elem(&b, i)));
            gcc_jit_block_add_assignment(
                b.cur, NULL, t,
                bin(&b, GCC_JIT_BINARY_OP_PLUS, bin(&b, GCC_JIT_BINARY_OP_MULT, si, lit(&b, 7)), iv));
            gcc_jit_block_add_assignment_op(
                b.cur, NULL, s, GCC_JIT_BINARY_OP_PLUS,
                bin(&b, GCC_JIT_BINARY_OP_BITWISE_AND, gcc_jit_lvalue_as_rvalue(t), lit(&b, 255)));
            gcc_jit_block_add_assignment_op(b.cur, NULL, s, GCC_JIT_BINARY_OP_BITWISE_XOR,
                                            bin(&b, GCC_JIT_BINARY_OP_LSHIFT, xv, lit(&b, (long)(j & 3))));
            gcc_jit_block *yes = block(&b), *no = block(&b), *join = block(&b);
            gcc_jit_rvalue *bit = bin(&b, GCC_JIT_BINARY_OP_BITWISE_AND, xv, lit(&b, 1L << j));
            gcc_jit_block_end_with_conditional(
                b.cur, NULL, gcc_jit_context_new_comparison(c, NULL, GCC_JIT_COMPARISON_NE, bit, lit(&b, 0)), yes,
                no);
            gcc_jit_block_add_assignment_op(
                yes, NULL, s, GCC_JIT_BINARY_OP_PLUS,
                bin(&b, GCC_JIT_BINARY_OP_BITWISE_XOR, bin(&b, GCC_JIT_BINARY_OP_MULT, xv, lit(&b, 3)),
                    lit(&b, (long)j)));
            gcc_jit_block_end_with_jump(yes, NULL, join);
            gcc_jit_block_add_assignment_op(no, NULL, s, GCC_JIT_BINARY_OP_MINUS,
                                            bin(&b, GCC_JIT_BINARY_OP_RSHIFT, xv, lit(&b, 1)));
            gcc_jit_block_end_with_jump(no, NULL, join);
            b.cur = join;
            loop_end(&b, &l);
        }
        break;
    }
    case MK_ADDR: {
        gcc_jit_lvalue *mk0 = marker(&b, 0), *mk1 = marker(&b, 1);
        Loop l = loop_begin(&b, i, n);
        bump(&b, mk0);
        gcc_jit_block_add_assignment_op(b.cur, NULL, s, GCC_JIT_BINARY_OP_PLUS,
                                        gcc_jit_lvalue_as_rvalue(elem(&b, i)));
        loop_end(&b, &l);
        gcc_jit_rvalue *addr = gcc_jit_lvalue_get_address(mk0, NULL);
        gcc_jit_block_add_eval(b.cur, NULL,
                               gcc_jit_context_new_call_through_ptr(c, NULL, gcc_jit_param_as_rvalue(b.cb), 1, &addr));
        l = loop_begin(&b, i, n);
        bump(&b, mk1);
        gcc_jit_block_add_assignment_op(b.cur, NULL, s, GCC_JIT_BINARY_OP_BITWISE_XOR,
                                        gcc_jit_lvalue_as_rvalue(elem(&b, i)));
        loop_end(&b, &l);
        break;
    }
    default:
        break;
    }
    gcc_jit_block_end_with_return(b.cur, NULL, si);
}

static long ref_mix(long x, long k, unsigned long *count)
{
    for (long j = 0; j < k; j++) {
        ++*count;
        x = x * 31 + j;
    }
    return x;
}

long mk_shape_ref(MkShape shape, long *a, long n, long *flag, void (*cb)(long *), unsigned long *counts)
{
    unsigned long dummy[MK_BIG_LOOPS] = {0};
    unsigned long *cnt = counts ? counts : dummy;
    for (unsigned k = 0; k < nmarkers[shape]; k++)
        cnt[k] = 0;
    long s = 0;
    switch (shape) {
    case MK_SUM:
    case MK_SUM_YIELD:
    case MK_PINNED:
        for (long i = 0; i < n; i++) {
            cnt[0]++;
            if (shape == MK_SUM_YIELD && __atomic_load_n(flag, __ATOMIC_RELAXED))
                cb(a);
            s += a[i];
        }
        break;
    case MK_SUM_CALL:
        for (long i = 0; i < n; i++) {
            cnt[0]++;
            s += ref_mix(a[i], a[i] & 7, &cnt[1]);
        }
        break;
    case MK_BIG:
        for (unsigned j = 0; j < MK_BIG_LOOPS; j++)
            for (long i = 0;; i++) {
                cnt[j]++;
                if (i >= n - (long)j)
                    break;
                if (j % 4 != 3 && __atomic_load_n(flag, __ATOMIC_RELAXED))
                    cb(a);
                long x = a[i];
                long t = s * 7 + i;
                s += t & 255;
                s ^= x << (j & 3);
                if (x & (1L << j))
                    s += (x * 3) ^ (long)j;
                else
                    s -= x >> 1;
            }
        break;
    case MK_ADDR:
        for (long i = 0; i < n; i++) {
            cnt[0]++;
            s += a[i];
        }
        cb(NULL);
        for (long i = 0; i < n; i++) {
            cnt[1]++;
            s ^= a[i];
        }
        break;
    default:
        break;
    }
    return s;
}
