/* tests/gen/tlgen.c — a generator of random tally programs (Csmith-like).
 *
 * Input: a seed (and options); output: one program on stdout that is
 * well typed, terminates and is deterministic, so every tier must print
 * the same stdout and stderr and end with the same status (the runner
 * tests/gen/tiers.sh compares them).
 *
 * Invariants that make the programs legal and finite:
 *  - every callable (function, virtual method slot) has a level; a body
 *    calls only callables of a lower level, so there is no recursion but
 *    the explicit, depth-bounded `recN` functions;
 *  - lambdas call only "leaf" callables (the lowest levels, which never
 *    call a function value or Op.apply), so a closure cannot re-enter
 *    the code that called it;
 *  - every body has a cost estimate (statements × enclosing trip counts
 *    + callee costs); a call that would exceed the budget is not emitted,
 *    which bounds the run time of `main`;
 *  - loops have constant or masked (`& 7`) trip counts; a `while` has its
 *    counter increment on its header line, so removing lines (the
 *    reducer, tests/gen/tlreduce.c) cannot make it loop forever;
 *  - one statement per line, a block's `{` ends its header line and its
 *    `}` stands on a line of its own: the reducer works on lines.
 * Division: `x / (e | 1)` never divides by zero but reaches MIN / -1
 * (MIN, the language says) — deliberate run-time errors come from the
 * `trap` function at a chosen iteration of main's loop.
 * Floats: printed and hashed through str(), which the language defines
 * (shortest round-trip text; every NaN prints `nan`, so NaN signs and
 * payloads, which the language leaves open, never show).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../xorshift.h"

/* ---- random numbers (xorshift64*: the same stream on every machine) ---- */
static uint64_t rng_state;
static uint64_t rng_next(void)
{
    return xorshift64s(&rng_state);
}
static int rnd(int n) { return n <= 1 ? 0 : (int)(rng_next() % (uint64_t)n); }
static bool chance(int pct) { return rnd(100) < pct; }

/* ---- output buffers ---- */
typedef struct { char *p; size_t n, cap; } Buf;
static bool out_of_memory;   /* a failed realloc: main reports it and fails */
static void buf_vadd(Buf *b, const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int k = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (b->n + (size_t)k + 1 > b->cap) {
        size_t cap = (b->n + (size_t)k + 1) * 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            out_of_memory = true;
            return;
        }
        b->p = p, b->cap = cap;
    }
    vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
    b->n += (size_t)k;
}
static void buf_add(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vadd(b, fmt, ap);
    va_end(ap);
}
static char *buf_take(Buf *b) { char *p = b->p ? b->p : strdup(""); b->p = NULL; b->n = b->cap = 0; return p; }

/* ---- types ---- */
enum { TY_INT, TY_FLOAT, TY_BOOL, TY_STR, TY_IARR, TY_FARR, TY_FN, TY_OBJ, TY_OP, TY_VOID };
typedef struct { int k, cls; } Ty;   /* cls: the static class of TY_OBJ */
#define IARR_LEN 8                    /* every int[] has 8 elements */
#define FARR_LEN 4                    /* every float[] has 4 */

/* ---- classes: K0 is abstract, the others extend an earlier one ---- */
#define MAX_CLS 6
#define MAX_SLOTS 5
typedef struct {
    int parent;          /* -1 for K0 */
    bool decl_op;        /* says `implements Op` */
    bool extra;          /* has its own int field bN */
    bool over[MAX_SLOTS + 1]; /* defines slot s (index MAX_SLOTS: apply) */
} Cls;

/* ---- callables ---- */
#define MAX_PARAMS 4
typedef struct {
    char name[24];
    Ty ret;
    int np;
    Ty par[MAX_PARAMS];
    int level;
    long cost;           /* estimated work of one call */
    bool leaf;           /* callable from lambdas */
    bool is_slot;        /* a virtual method slot (name: mN / apply) */
} Callee;

/* ---- scopes ---- */
typedef struct { char name[16]; Ty ty; bool mut; int depth; } Var;

#define MAX_CALLEES 40
#define MAX_VARS 256
typedef struct {
    /* program shape */
    int ncls;
    Cls cls[MAX_CLS];
    int nslots;                       /* m0..m(nslots-1), then apply */
    Callee callee[MAX_CALLEES];
    int ncallee;
    int nleaf_levels;
    /* the body being generated */
    Var vars[MAX_VARS];
    int nvars;
    int depth;                        /* block depth (indentation) */
    int loop_depth;
    long mult;                        /* product of enclosing trip counts */
    long cost;                        /* cost so far of the body */
    long budget;
    int level;                        /* callables below this may be called */
    bool in_lambda;
    int self_cls;                     /* -1 outside methods */
    Ty ret;                           /* the body's result type */
    int counter;                      /* fresh names */
    Buf *out;
    int nrec;                         /* recursive functions rec0.. */
} Gen;

static Gen G;

static void line(const char *fmt, ...)
{
    for (int i = 0; i < G.depth; i++) buf_add(G.out, "    ");
    va_list ap;
    va_start(ap, fmt);
    buf_vadd(G.out, fmt, ap);
    va_end(ap);
    buf_add(G.out, "\n");
}

static const char *ty_name(Ty t)
{
    static char b[4][24];
    static int r;
    r = (r + 1) & 3;
    switch (t.k) {
    case TY_INT: return "int";
    case TY_FLOAT: return "float";
    case TY_BOOL: return "bool";
    case TY_STR: return "string";
    case TY_IARR: return "int[]";
    case TY_FARR: return "float[]";
    case TY_FN: return "fn(int): int";
    case TY_OP: return "Op";
    case TY_OBJ: snprintf(b[r], sizeof b[r], "K%d", t.cls); return b[r];
    }
    return "?";
}
static Ty ty(int k) { Ty t = { k, 0 }; return t; }
static bool ty_eq(Ty a, Ty b) { return a.k == b.k && (a.k != TY_OBJ || a.cls == b.cls); }
static bool is_sub(int c, int anc)
{
    for (; c >= 0; c = G.cls[c].parent)
        if (c == anc) return true;
    return false;
}
static bool cls_op(int c)
{
    for (; c >= 0; c = G.cls[c].parent)
        if (G.cls[c].decl_op) return true;
    return false;
}
/* can a value of type s be stored where t is wanted (as tally's rules) */
static bool assignable(Ty s, Ty t)
{
    if (s.k == TY_OBJ && t.k == TY_OBJ) return is_sub(s.cls, t.cls);
    if (s.k == TY_OBJ && t.k == TY_OP) return cls_op(s.cls);
    return ty_eq(s, t);
}

static Var *add_var(const char *prefix, Ty t, bool mut)
{
    Var *v = &G.vars[G.nvars++];
    snprintf(v->name, sizeof v->name, "%s%d", prefix, G.counter++);
    v->ty = t;
    v->mut = mut;
    v->depth = G.depth;
    return v;
}
static void pop_scope(int depth)
{
    while (G.nvars > 0 && G.vars[G.nvars - 1].depth > depth) G.nvars--;
}
/* a random visible variable assignable to t (mutable only if asked) */
static Var *pick_var(Ty t, bool want_mut, bool exact)
{
    int cand[MAX_VARS], n = 0;
    for (int i = 0; i < G.nvars; i++) {
        Var *v = &G.vars[i];
        if (want_mut && !v->mut) continue;
        if (exact ? ty_eq(v->ty, t) : assignable(v->ty, t)) cand[n++] = i;
    }
    return n ? &G.vars[cand[rnd(n)]] : NULL;
}

/* ---- expressions (written into a string, fully parenthesized) ---- */
static char *expr(Ty t, int d);
static char *emit_call(Callee *c, int d);

static const char *INT_CONSTS[] = {
    "0", "1", "-1", "2", "3", "7", "10", "63", "64", "255", "1000", "-17", "12345",
    "9223372036854775807", "-9223372036854775808", "0x7fffffff", "0xcbf29ce484222325",
    "-2147483648", "4611686018427387904", "0xff00ff00ff00ff00",
};
static const char *FLOAT_CONSTS[] = {
    "0.0", "1.0", "-1.0", "0.5", "2.5", "-3.75", "1e300", "1e-300", "3.0e10",
    "0.1", "-0.0", "123.456", "1e16", "1.5e-05", "6.02e23",
};
static const char *STR_CONSTS[] = { "\"\"", "\"a\"", "\"xyz\"", "\"tally\"", "\"0\"", "\"a\\tb\"", "\"\\xff\"", "\"-12\"" };

static char *sfmt(const char *fmt, ...)
{
    Buf b = { 0 };
    va_list ap;
    va_start(ap, fmt);
    buf_vadd(&b, fmt, ap);
    va_end(ap);
    return buf_take(&b);
}

/* a call of a callable whose result is t, within level and budget */
static char *call_expr(Ty t, int d)
{
    int cand[MAX_CALLEES], n = 0;
    for (int i = 0; i < G.ncallee; i++) {
        Callee *c = &G.callee[i];
        if (c->level >= G.level || !ty_eq(c->ret, t)) continue;
        if (G.in_lambda && !c->leaf) continue;
        if (G.cost + G.mult * c->cost > G.budget) continue;
        cand[n++] = i;
    }
    if (!n) return NULL;
    return emit_call(&G.callee[cand[rnd(n)]], d);
}

/* "(a, b, ...)": random arguments of c's parameter types */
static void add_args(Buf *b, const Callee *c, int d)
{
    buf_add(b, "(");
    for (int p = 0; p < c->np; p++) {
        char *a = expr(c->par[p], d + 1);
        buf_add(b, "%s%s", p ? ", " : "", a);
        free(a);
    }
    buf_add(b, ")");
}

/* the text of a call of c, with random arguments */
static char *emit_call(Callee *c, int d)
{
    G.cost += G.mult * c->cost;
    Buf b = { 0 };
    if (c->is_slot) {
        /* a virtual call on an object, or Op.apply on an Op */
        if (strcmp(c->name, "apply") == 0) {
            char *o = expr(ty(TY_OP), d + 1);
            char *a = expr(ty(TY_INT), d + 1);
            buf_add(&b, "%s.apply(%s)", o, a);
            free(o), free(a);
        } else {
            char *o = expr((Ty){ TY_OBJ, 0 }, d + 1);
            buf_add(&b, "%s.%s", o, c->name);
            free(o);
            add_args(&b, c, d);
        }
        return buf_take(&b);
    }
    buf_add(&b, "%s", c->name);
    add_args(&b, c, d);
    return buf_take(&b);
}

static char *var_or(Ty t, int d, char *(*alt)(Ty, int))
{
    Var *v = pick_var(t, false, false);
    if (v) return strdup(v->name);
    return alt(t, d);
}

static char *leaf_int(Ty t, int d)
{
    (void)t, (void)d;
    return strdup(INT_CONSTS[rnd((int)(sizeof INT_CONSTS / sizeof *INT_CONSTS))]);
}
static char *leaf_float(Ty t, int d)
{
    (void)t, (void)d;
    return strdup(FLOAT_CONSTS[rnd((int)(sizeof FLOAT_CONSTS / sizeof *FLOAT_CONSTS))]);
}

static char *lambda_expr(int d);

static char *expr_int(int d)
{
    bool deep = d >= 4;
    int r = rnd(deep ? 3 : 30);
    char *a = NULL, *b = NULL, *s;
    static const char *ops[] = { "+", "-", "*", "&", "|", "^", "+", "-" };
    static const char *shifts[] = { "<<", ">>", ">>>" };
    switch (r) {
    case 0: return leaf_int(ty(TY_INT), d);
    case 1: case 2: return var_or(ty(TY_INT), d, leaf_int);
    case 3: case 4: case 5: case 6:
        a = expr_int(d + 1), b = expr_int(d + 1);
        s = sfmt("(%s %s %s)", a, ops[rnd(8)], b);
        break;
    case 7:
        a = expr_int(d + 1), b = expr_int(d + 1);
        s = sfmt("(%s %s %s)", a, shifts[rnd(3)], b);
        break;
    case 8:
        a = expr_int(d + 1), b = expr_int(d + 1);
        s = sfmt("(%s %s (%s | 1))", a, chance(50) ? "/" : "%", b);
        break;
    case 9:
        a = expr_int(d + 1);
        s = sfmt("(%s %s -1)", a, chance(50) ? "/" : "%");
        free(a);
        return s;
    case 10:
        a = expr_int(d + 1);
        s = sfmt("%s(%s)", chance(50) ? "-" : "~", a);
        break;
    case 11: {
        Var *v = pick_var(ty(TY_IARR), false, true);
        if (!v) return leaf_int(ty(TY_INT), d);
        a = expr_int(d + 1);
        s = sfmt("%s[(%s & 7)]", v->name, a);
        free(a);
        return s;
    }
    case 12: {
        Var *v = pick_var(ty(TY_STR), false, true);
        if (!v) return strdup("7");
        switch (rnd(4)) {
        case 0: return sfmt("%s.length", v->name);
        case 1: return sfmt("%s.hash()", v->name);
        case 2: a = expr(ty(TY_STR), d + 1); s = sfmt("%s.indexOf(%s)", v->name, a); free(a); return s;
        default: a = expr_int(d + 1); s = sfmt("sat(%s, %s)", v->name, a); free(a); return s;
        }
    }
    case 13: case 14: case 15: {
        char *c = call_expr(ty(TY_INT), d);
        if (c) return c;
        return var_or(ty(TY_INT), d, leaf_int);
    }
    case 16:
        a = expr(ty(TY_FLOAT), d + 1);
        G.cost += G.mult * 6;   /* str() of a float: the dearest built-in */
        s = chance(50) ? sfmt("fi(%s)", a) : sfmt("str(%s).hash()", a);
        break;
    case 17:
        a = expr(ty(TY_BOOL), d + 1);
        s = sfmt("str(%s).hash()", a);
        break;
    case 18: {
        Var *v = pick_var((Ty){ TY_OBJ, 0 }, false, false);
        if (!v) return var_or(ty(TY_INT), d, leaf_int);
        if (G.cls[v->ty.cls].extra && chance(50)) return sfmt("%s.b%d", v->name, v->ty.cls);
        return sfmt("%s.a", v->name);
    }
    case 19:
        if (G.self_cls >= 0) {
            if (G.cls[G.self_cls].extra && chance(50)) return sfmt("self.b%d", G.self_cls);
            return strdup("self.a");
        }
        return var_or(ty(TY_INT), d, leaf_int);
    case 20: {
        Var *v = pick_var(ty(TY_FN), false, true);
        if (!v || G.in_lambda) return var_or(ty(TY_INT), d, leaf_int);
        G.cost += G.mult * 40;
        a = expr_int(d + 1);
        s = sfmt("%s(%s)", v->name, a);
        free(a);
        return s;
    }
    case 21:
        a = expr_int(d + 1), b = expr_int(d + 1);
        s = sfmt("mix(%s, %s)", a, b);
        break;
    case 22: {
        Var *v = pick_var(ty(TY_IARR), false, true);
        if (v) return sfmt("%s.length", v->name);
        return leaf_int(ty(TY_INT), d);
    }
    default:
        return var_or(ty(TY_INT), d, leaf_int);
    }
    free(a), free(b);
    return s;
}

static char *expr_float(int d)
{
    int r = rnd(d >= 4 ? 3 : 16);
    char *a = NULL, *b = NULL, *s;
    static const char *ops[] = { "+", "-", "*", "/" };
    switch (r) {
    case 0: return leaf_float(ty(TY_FLOAT), d);
    case 1: case 2: return var_or(ty(TY_FLOAT), d, leaf_float);
    case 3: case 4: case 5:
        a = expr_float(d + 1), b = expr_float(d + 1);
        s = sfmt("(%s %s %s)", a, ops[rnd(4)], b);
        free(b);
        break;
    case 6: case 7:
        a = expr(ty(TY_INT), d + 1);
        s = sfmt("float(%s)", a);
        break;
    case 8:
        a = expr_float(d + 1);
        s = sfmt("%s(%s)", chance(50) ? "sqrt" : "-", a);
        break;
    case 9: {
        Var *v = pick_var(ty(TY_FARR), false, true);
        if (!v) return leaf_float(ty(TY_FLOAT), d);
        a = expr(ty(TY_INT), d + 1);
        s = sfmt("%s[(%s & 3)]", v->name, a);
        break;
    }
    case 10: case 11: {
        char *c = call_expr(ty(TY_FLOAT), d);
        if (c) return c;
        return var_or(ty(TY_FLOAT), d, leaf_float);
    }
    case 12: {
        Var *v = pick_var((Ty){ TY_OBJ, 0 }, false, false);
        if (v) return sfmt("%s.f", v->name);
        if (G.self_cls >= 0) return strdup("self.f");
        return leaf_float(ty(TY_FLOAT), d);
    }
    default:
        return var_or(ty(TY_FLOAT), d, leaf_float);
    }
    free(a);
    return s;
}

static char *expr_bool(int d)
{
    int r = rnd(d >= 4 ? 2 : 12);
    char *a = NULL, *b = NULL, *s;
    static const char *cmp[] = { "<", "<=", ">", ">=", "==", "!=" };
    switch (r) {
    case 0: return strdup(chance(50) ? "true" : "false");
    case 1: case 2: case 3:
        a = expr(ty(TY_INT), d + 1), b = expr(ty(TY_INT), d + 1);
        s = sfmt("(%s %s %s)", a, cmp[rnd(6)], b);
        break;
    case 4:
        a = expr(ty(TY_FLOAT), d + 1), b = expr(ty(TY_FLOAT), d + 1);
        s = sfmt("(%s %s %s)", a, cmp[rnd(6)], b);
        break;
    case 5: case 6:
        a = expr_bool(d + 1), b = expr_bool(d + 1);
        s = sfmt("(%s %s %s)", a, chance(50) ? "&&" : "||", b);
        break;
    case 7:
        a = expr_bool(d + 1);
        s = sfmt("!%s", a);
        free(a);
        return s;
    case 8:
        a = expr(ty(TY_STR), d + 1), b = expr(ty(TY_STR), d + 1);
        s = sfmt("(%s %s %s)", a, chance(50) ? "==" : "!=", b);
        break;
    case 9: {
        Var *v = pick_var((Ty){ TY_OBJ, 0 }, false, false);
        if (!v) return strdup("true");
        int c = 1 + rnd(G.ncls - 1);
        if (chance(25)) return sfmt("(%s is Op)", v->name);
        if (chance(20)) {
            /* identity: two references of any types, or null */
            Var *w = pick_var((Ty){ TY_OBJ, 0 }, false, false);
            if (!w || chance(30)) return sfmt("(%s %s null)", v->name, chance(50) ? "==" : "!=");
            return sfmt("(%s %s %s)", v->name, chance(50) ? "==" : "!=", w->name);
        }
        return sfmt("(%s is K%d)", v->name, c);
    }
    case 10: {
        Var *v = pick_var(ty(TY_BOOL), false, true);
        if (v) return strdup(v->name);
        return strdup("false");
    }
    default: {
        char *c = call_expr(ty(TY_BOOL), d);
        if (c) return c;
        return strdup("true");
    }
    }
    free(a), free(b);
    return s;
}

static char *expr_str(int d)
{
    int r = rnd(d >= 4 ? 2 : 12);
    char *a = NULL, *b = NULL, *s;
    switch (r) {
    case 0: return strdup(STR_CONSTS[rnd((int)(sizeof STR_CONSTS / sizeof *STR_CONSTS))]);
    case 1: case 2: {
        Var *v = pick_var(ty(TY_STR), false, true);
        if (v) return strdup(v->name);
        return strdup("\"v\"");
    }
    case 3: case 4:
        G.cost += G.mult * 4;
        a = expr(chance(50) ? ty(TY_INT) : chance(70) ? ty(TY_FLOAT) : ty(TY_BOOL), d + 1);
        s = sfmt("str(%s)", a);
        free(a);
        return s;
    case 5:
        a = expr(ty(TY_INT), d + 1);
        s = sfmt("chr(%s)", a);
        free(a);
        return s;
    case 6: case 7:
        G.cost += G.mult * 4;
        a = expr_str(d + 1), b = expr_str(d + 1);
        s = sfmt("cut(%s + %s)", a, b);
        free(a), free(b);
        return s;
    case 8: {
        Var *v = pick_var(ty(TY_STR), false, true);
        if (!v) return strdup("\"w\"");
        return sfmt("%s.substring(%s.length / 3, %s.length)", v->name, v->name, v->name);
    }
    case 9: {
        Var *v = pick_var((Ty){ TY_OBJ, 0 }, false, false);
        if (v) return sfmt("%s.s", v->name);
        if (G.self_cls >= 0) return strdup("self.s");
        return strdup("\"o\"");
    }
    default: {
        char *c = call_expr(ty(TY_STR), d);
        if (c) return c;
        return strdup("\"c\"");
    }
    }
}

static char *new_obj(int c, int d)
{
    /* a concrete class at or below c */
    int cand[MAX_CLS], n = 0;
    for (int i = 1; i < G.ncls; i++)
        if (is_sub(i, c)) cand[n++] = i;
    int k = cand[rnd(n)];
    char *a = expr(ty(TY_INT), d + 1);
    char *s = sfmt("K%d(%s)", k, a);
    free(a);
    G.cost += G.mult * 3;
    return s;
}

static char *expr(Ty t, int d)
{
    switch (t.k) {
    case TY_INT: return expr_int(d);
    case TY_FLOAT: return expr_float(d);
    case TY_BOOL: return expr_bool(d);
    case TY_STR: return expr_str(d);
    case TY_IARR: {
        Var *v = pick_var(t, false, true);
        if (v && chance(80)) return strdup(v->name);
        Buf b = { 0 };
        buf_add(&b, "[");
        for (int i = 0; i < IARR_LEN; i++) {
            char *e = i < 2 ? expr_int(d + 2) : leaf_int(t, d);
            buf_add(&b, "%s%s", i ? ", " : "", e);
            free(e);
        }
        buf_add(&b, "]");
        return buf_take(&b);
    }
    case TY_FARR: {
        Var *v = pick_var(t, false, true);
        if (v) return strdup(v->name);
        return strdup("new float[4]");
    }
    case TY_FN: {
        Var *v = pick_var(t, false, true);
        if (v && chance(70)) return strdup(v->name);
        return lambda_expr(d);
    }
    case TY_OBJ: {
        Var *v = pick_var(t, false, false);
        if (v && chance(75)) return strdup(v->name);
        if (G.self_cls >= 0 && is_sub(G.self_cls, t.cls) && chance(30)) return strdup("self");
        return new_obj(t.cls, d);
    }
    case TY_OP: {
        Var *v = pick_var(t, false, false);
        if (v && chance(75)) return strdup(v->name);
        if (chance(40) && !G.in_lambda) {
            char *l = lambda_expr(d);
            char *s = sfmt("FnOp(%s)", l);
            free(l);
            return s;
        }
        int cand[MAX_CLS], n = 0;
        for (int i = 1; i < G.ncls; i++)
            if (cls_op(i)) cand[n++] = i;
        char *a = expr(ty(TY_INT), d + 1);
        char *s = sfmt("K%d(%s)", cand[rnd(n)], a);
        free(a);
        return s;
    }
    }
    return strdup("0");
}

/* ---- statements ---- */
static void block(int nstmts);

static void stmt_assign(void)
{
    static const char *iops[] = { "+=", "-=", "*=", "^=", "|=", "&=", "<<=", ">>=", ">>>=" };
    static const char *fops[] = { "+=", "-=", "*=", "/=" };
    int r = rnd(8);
    if (r == 0 && G.self_cls >= 0) {
        char *e = expr(ty(TY_INT), 1);
        if (G.cls[G.self_cls].extra && chance(50)) line("self.b%d %s %s;", G.self_cls, chance(50) ? "=" : "+=", e);
        else line("self.a %s %s;", chance(50) ? "=" : "^=", e);
        free(e);
        return;
    }
    if (r == 1) {
        Var *v = pick_var((Ty){ TY_OBJ, 0 }, false, false);
        if (v) {
            char *e = chance(70) ? expr(ty(TY_INT), 1) : NULL;
            if (e) line("%s.a += %s;", v->name, e);
            else { e = expr(ty(TY_FLOAT), 1); line("%s.f = %s;", v->name, e); }
            free(e);
            return;
        }
    }
    if (r == 2 || r == 3) {   /* an int[] (8 long) or a float[] (4 long) element */
        bool f = r == 3;
        Var *v = pick_var(ty(f ? TY_FARR : TY_IARR), false, true);
        if (v) {
            char *i = expr(ty(TY_INT), 2), *e = expr(ty(f ? TY_FLOAT : TY_INT), 1);
            line("%s[(%s & %d)] %s %s;", v->name, i, f ? 3 : 7, chance(50) ? "=" : (f ? fops : iops)[rnd(3)], e);
            free(i), free(e);
            return;
        }
    }
    /* a mutable local or parameter */
    static const int kinds[] = { TY_INT, TY_INT, TY_INT, TY_FLOAT, TY_STR, TY_BOOL, TY_OBJ };
    Ty t = ty(kinds[rnd(7)]);
    Var *v = NULL;
    if (t.k == TY_OBJ) {
        int c[MAX_VARS], n = 0;
        for (int i = 0; i < G.nvars; i++)
            if (G.vars[i].mut && G.vars[i].ty.k == TY_OBJ) c[n++] = i;
        if (n) v = &G.vars[c[rnd(n)]];
        if (v) t = v->ty;
    } else {
        v = pick_var(t, true, true);
    }
    if (!v) {
        char *e = expr(ty(TY_INT), 0);
        line("ck = mix(ck, %s);", e);
        free(e);
        return;
    }
    char *e = expr(t, 0);
    switch (t.k) {
    case TY_INT: line("%s %s %s;", v->name, chance(40) ? "=" : iops[rnd(9)], e); break;
    case TY_FLOAT: line("%s %s %s;", v->name, chance(50) ? "=" : fops[rnd(4)], e); break;
    case TY_STR: line("%s = cut(%s + %s);", v->name, v->name, e); break;
    default: line("%s = %s;", v->name, e); break;
    }
    free(e);
}

static void stmt_decl(void)
{
    static const int kinds[] = { TY_INT, TY_INT, TY_FLOAT, TY_STR, TY_BOOL, TY_OBJ, TY_IARR, TY_FN, TY_OP, TY_FARR };
    Ty t = ty(kinds[rnd(10)]);
    if (t.k == TY_OBJ) t.cls = rnd(G.ncls);
    if (G.in_lambda && (t.k == TY_FN || t.k == TY_OP)) t = ty(TY_INT);
    char *e = expr(t, 0);
    bool mut = chance(60);
    Var *v = add_var("v", t, mut);
    if (chance(50) || t.k == TY_FN || t.k == TY_OP || t.k == TY_OBJ)
        line("%s %s: %s = %s;", mut ? "var" : "let", v->name, ty_name(t), e);
    else
        line("%s %s = %s;", mut ? "var" : "let", v->name, e);
    free(e);
    G.cost += G.mult;
}

static void stmt_if(int n)
{
    char *c = expr(ty(TY_BOOL), 0);
    line("if %s {", c);
    free(c);
    G.depth++;
    block(n);
    G.depth--;
    if (chance(40)) {
        line("} else {");
        G.depth++;
        block(n);
        G.depth--;
    }
    line("}");
}

static void stmt_for(int n)
{
    int trip = 1 + rnd(G.loop_depth ? 4 : 8);
    char lo[64];
    int lo_v = rnd(5) - 2;
    snprintf(lo, sizeof lo, "%d", lo_v);
    char *e = chance(30) ? expr(ty(TY_INT), 2) : NULL;
    Var *i = add_var("i", ty(TY_INT), false);
    if (e) {
        line("for %s in %s..(%s + (%s & %d)) {", i->name, lo, lo, e, trip - 1 > 0 ? trip - 1 : 1);
        free(e);
    } else {
        line("for %s in %s..%d {", i->name, lo, lo_v + trip);
    }
    i->depth = G.depth + 1;
    long m = G.mult;
    G.mult *= trip;
    G.loop_depth++;
    G.depth++;
    block(n);
    if (chance(20)) {
        char *c = expr(ty(TY_BOOL), 1);
        line("if %s { %s; }", c, chance(50) ? "break" : "continue");
        free(c);
    }
    G.depth--;
    pop_scope(G.depth);
    G.loop_depth--;
    G.mult = m;
    line("}");
}

static void stmt_while(int n)
{
    int trip = 1 + rnd(G.loop_depth ? 4 : 8);
    Var *w = add_var("w", ty(TY_INT), false);   /* assigned only by the header */
    line("var %s = 0;", w->name);
    line("while %s < %d { %s += 1;", w->name, trip, w->name);
    long m = G.mult;
    G.mult *= trip;
    G.loop_depth++;
    G.depth++;
    if (chance(40)) {
        char *c = expr(ty(TY_BOOL), 1);
        line("if %s { %s; }", c, chance(50) ? "break" : "continue");
        free(c);
    }
    block(n);
    G.depth--;
    pop_scope(G.depth);
    G.loop_depth--;
    G.mult = m;
    line("}");
}

/* a downcast guarded by `is`: `if (v is K2) { ck = mix(ck, (v as K2).b2); }` */
static void stmt_cast(void)
{
    Var *v = pick_var((Ty){ TY_OBJ, 0 }, false, false);
    if (!v) {
        stmt_assign();
        return;
    }
    Callee *apply = &G.callee[G.ncallee - 1];
    if (chance(25) && apply->level < G.level && !G.in_lambda && G.cost + G.mult * apply->cost <= G.budget) {
        G.cost += G.mult * apply->cost;
        line("if (%s is Op) { ck = mix(ck, (%s as Op).apply(%d)); }", v->name, v->name, rnd(9));
        return;
    }
    int cand[MAX_CLS], n = 0;
    for (int c = 1; c < G.ncls; c++)
        if (is_sub(c, v->ty.cls)) cand[n++] = c;
    if (!n) {
        stmt_assign();
        return;
    }
    int c = cand[rnd(n)];
    if (G.cls[c].extra) line("if (%s is K%d) { ck = mix(ck, (%s as K%d).b%d); }", v->name, c, v->name, c, c);
    else line("if (%s is K%d) { ck = mix(ck, (%s as K%d).a); }", v->name, c, v->name, c);
}

static void stmt(int budget_stmts)
{
    int r = rnd(20);
    G.cost += G.mult;
    bool nest = G.depth < 5 && budget_stmts > 1;
    if (r < 4) { stmt_decl(); return; }
    if (r < 10) { stmt_assign(); return; }
    if (r < 12) {
        char *e = expr(ty(TY_INT), 0);
        line("ck = mix(ck, %s);", e);
        free(e);
        return;
    }
    if (r < 14 && nest) { stmt_if(budget_stmts / 2); return; }
    if (r < 15 && nest && G.loop_depth < 3) { stmt_for(budget_stmts / 2); return; }
    if (r < 16 && nest && G.loop_depth < 3) { stmt_while(budget_stmts / 2); return; }
    if (r < 17 && G.ret.k != TY_VOID && G.depth > 1) {
        char *c = expr(ty(TY_BOOL), 1), *e = expr(G.ret, 1);
        line("if %s { return %s; }", c, e);
        free(c), free(e);
        return;
    }
    if (r < 18) {
        char *e = expr(ty(TY_FLOAT), 0);
        G.cost += G.mult * 6;
        line("ck = mix(ck, str(%s).hash());", e);
        free(e);
        return;
    }
    if (r == 18) {
        stmt_cast();
        return;
    }
    stmt_assign();
}

static void block(int n)
{
    int d = G.depth;
    for (int i = 0; i < n; i++) stmt(n - i);
    pop_scope(d - 1);   /* the block's own locals */
}

/* fn(x: int): int { ... } — captures are read only, calls only leaves */
static char *lambda_expr(int d)
{
    (void)d;
    Buf b = { 0 };
    Buf *save_out = G.out;
    int save_depth = G.depth, save_nvars = G.nvars;
    bool save_lam = G.in_lambda, save_mut[MAX_VARS];
    Ty save_ret = G.ret;
    long save_mult = G.mult, save_cost = G.cost, save_budget = G.budget;
    int save_loop = G.loop_depth;
    for (int i = 0; i < G.nvars; i++) save_mut[i] = G.vars[i].mut, G.vars[i].mut = false;
    G.out = &b;
    G.in_lambda = true;
    G.ret = ty(TY_INT);
    G.mult = 1, G.cost = 0, G.budget = 40, G.loop_depth = 3;  /* no loops in lambdas */
    Var *x = add_var("x", ty(TY_INT), true);
    buf_add(&b, "fn(%s: int): int {\n", x->name);
    G.depth = save_depth + 1;
    x->depth = save_depth;
    block(1 + rnd(2));
    char *e = expr(ty(TY_INT), 1);
    line("return %s;", e);
    free(e);
    G.depth = save_depth;
    for (int i = 0; i < G.depth; i++) buf_add(&b, "    ");
    buf_add(&b, "}");
    G.out = save_out;
    G.nvars = save_nvars;
    for (int i = 0; i < G.nvars; i++) G.vars[i].mut = save_mut[i];
    G.in_lambda = save_lam;
    G.ret = save_ret;
    G.mult = save_mult, G.cost = save_cost + save_mult * 40, G.budget = save_budget;
    G.loop_depth = save_loop;
    return buf_take(&b);
}

/* ---- program ---- */
static Ty rand_ret(void)
{
    static const int k[] = { TY_INT, TY_INT, TY_INT, TY_FLOAT, TY_STR, TY_BOOL };
    return ty(k[rnd(6)]);
}
static Ty rand_param(bool leaf)
{
    static const int k[] = { TY_INT, TY_INT, TY_INT, TY_FLOAT, TY_STR, TY_BOOL, TY_IARR, TY_OBJ, TY_OP, TY_FN, TY_FARR };
    Ty t = ty(k[rnd(leaf ? 8 : 11)]);
    if (t.k == TY_OBJ) t.cls = rnd(G.ncls);
    return t;
}

/* the body of a callable into *out; params become locals */
static long gen_body(Buf *out, Callee *c, int self_cls, int stmts, const char **pnames)
{
    G.out = out;
    G.nvars = 0;
    G.depth = self_cls != -1 ? 2 : 1;   /* methods (and statics, -2) sit in their class */
    G.loop_depth = 0;
    G.mult = 1;
    G.cost = 2;
    G.budget = 150;
    G.level = c->level;
    G.in_lambda = false;
    G.self_cls = self_cls;
    G.ret = c->ret;
    for (int p = 0; p < c->np; p++) {
        Var *v = &G.vars[G.nvars++];
        snprintf(v->name, sizeof v->name, "%s", pnames[p]);
        v->ty = c->par[p];
        v->mut = true;
        v->depth = 0;
    }
    if (c->leaf) G.in_lambda = false;
    /* leaves may not reach function values: hide fn/Op parameters */
    block(stmts);
    if (c->ret.k != TY_VOID) {
        char *e = expr(c->ret, 1);
        line("return %s;", e);
        free(e);
    }
    return G.cost;
}

static int usage(void)
{
    fprintf(stderr, "usage: tlgen SEED [--iters N] [--fns N] [--no-trap]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) return usage();
    char *end;
    unsigned long long seed = strtoull(argv[1], &end, 10);
    if (*end) return usage();
    int iters = -1, nfns = -1, trap = -1;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--fns") && i + 1 < argc) nfns = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-trap")) trap = 0;
        else return usage();
    }
    rng_state = seed * 0x9E3779B97F4A7C15ULL + 0x1234567ULL;
    for (int i = 0; i < 4; i++) rng_next();
    if (iters < 0) iters = 1000 + rnd(1501);
    if (nfns < 0) nfns = 3 + rnd(4);
    if (nfns > 12) nfns = 12;
    if (trap < 0) trap = chance(30);

    /* classes */
    G.ncls = 2 + rnd(MAX_CLS - 2);
    G.nslots = 2 + rnd(MAX_SLOTS - 1);
    G.cls[0].parent = -1;
    for (int c = 1; c < G.ncls; c++) {
        G.cls[c].parent = chance(50) ? 0 : rnd(c);
        G.cls[c].decl_op = chance(40);
        G.cls[c].extra = chance(50);
        for (int s = 0; s <= MAX_SLOTS; s++) G.cls[c].over[s] = chance(45);
        if (G.cls[c].parent == 0) G.cls[c].over[0] = true;   /* m0 is abstract in K0 */
    }
    G.cls[1].decl_op = true;  /* at least one class is an Op */
    for (int s = 0; s <= MAX_SLOTS; s++) G.cls[0].over[s] = s != 0;

    /* callables: leaf functions first, then slots and functions mixed */
    int level = 1;
    int nleaf = 1 + nfns / 3;
    for (int i = 0; i < nfns; i++) {
        Callee *c = &G.callee[G.ncallee++];
        snprintf(c->name, sizeof c->name, "f%d", i);
        /* the last non-leaf function is a static method of K0 */
        if (i == nfns - 1 && i >= nleaf) snprintf(c->name, sizeof c->name, "K0.s%d", i);
        c->leaf = i < nleaf;
        c->ret = rand_ret();
        if (c->leaf && i == 0) c->ret = ty(TY_INT);
        c->np = 1 + rnd(MAX_PARAMS);
        for (int p = 0; p < c->np; p++) c->par[p] = rand_param(c->leaf);
        if (i == 0) { c->np = 1; c->par[0] = ty(TY_INT); }   /* f0 is a fn(int): int value */
    }
    static const int slot_ret[] = { TY_INT, TY_FLOAT, TY_INT, TY_STR, TY_BOOL };
    for (int s = 0; s < G.nslots; s++) {
        Callee *c = &G.callee[G.ncallee++];
        snprintf(c->name, sizeof c->name, "m%d", s);
        c->is_slot = true;
        c->ret = ty(slot_ret[s]);
        c->np = 1;
        c->par[0] = ty(TY_INT);
        if (s == 1) { c->np = 2; c->par[1] = ty(TY_FLOAT); }
    }
    Callee *apply = &G.callee[G.ncallee++];
    snprintf(apply->name, sizeof apply->name, "apply");
    apply->is_slot = true;
    apply->ret = ty(TY_INT);
    apply->np = 1;
    apply->par[0] = ty(TY_INT);
    /* levels: leaves lowest; then a shuffle of the rest */
    int order[MAX_CALLEES], no = 0;
    for (int i = 0; i < G.ncallee; i++)
        if (G.callee[i].leaf) G.callee[i].level = level++;
        else order[no++] = i;
    for (int i = no - 1; i > 0; i--) {
        int j = rnd(i + 1), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (int i = 0; i < no; i++) G.callee[order[i]].level = level++;
    for (int i = 0; i < G.ncallee; i++) G.callee[i].cost = 1L << 40;  /* unknown yet */

    /* bodies in level order */
    char *fn_text[MAX_CALLEES] = { 0 };
    char *meth_text[MAX_CLS][MAX_SLOTS + 1] = { { 0 } };
    char *static_text = NULL;
    for (int lv = 1; lv < level; lv++) {
        int ci = -1;
        for (int i = 0; i < G.ncallee; i++)
            if (G.callee[i].level == lv) ci = i;
        Callee *c = &G.callee[ci];
        if (!c->is_slot) {
            Buf b = { 0 };
            const char *pn[MAX_PARAMS];
            char names[MAX_PARAMS][8];
            bool st = c->name[0] == 'K';
            buf_add(&b, "%sfn %s(", st ? "    static " : "", st ? c->name + 3 : c->name);
            for (int p = 0; p < c->np; p++) {
                snprintf(names[p], sizeof names[p], "p%d", p);
                pn[p] = names[p];
                buf_add(&b, "%s%s: %s", p ? ", " : "", names[p], ty_name(c->par[p]));
            }
            buf_add(&b, "): %s {\n", ty_name(c->ret));
            G.counter = 0;
            long cost = gen_body(&b, c, st ? -2 : -1, 3 + rnd(6), pn);
            buf_add(&b, "%s}\n", st ? "    " : "");
            c->cost = cost;
            if (st) static_text = buf_take(&b);
            else fn_text[ci] = buf_take(&b);
            continue;
        }
        int s = strcmp(c->name, "apply") == 0 ? MAX_SLOTS : c->name[1] - '0';
        long worst = 0;
        for (int k = 0; k < G.ncls; k++) {
            if (!G.cls[k].over[s]) continue;
            Buf b = { 0 };
            const char *pn[2] = { "x", "y" };
            buf_add(&b, "    fn %s(x: int%s): %s {\n", c->name, c->np == 2 ? ", y: float" : "", ty_name(c->ret));
            G.counter = 0;
            /* super.mN(): the parent's version, when it has a concrete one */
            int anc = G.cls[k].parent;
            while (anc >= 0 && !G.cls[anc].over[s]) anc = G.cls[anc].parent;
            Buf body = { 0 };
            c->cost = worst ? worst : 1;
            long cost = gen_body(&body, c, k, 2 + rnd(5), pn);
            buf_add(&b, "%s", body.p);
            free(body.p);
            (void)anc;
            buf_add(&b, "    }\n");
            if (cost > worst) worst = cost;
            meth_text[k][s] = buf_take(&b);
        }
        /* a super call is an override of the same slot: add the parent's
         * cost by rewriting the return of some overrides */
        for (int k = 1; k < G.ncls; k++) {
            if (!meth_text[k][s] || c->ret.k != TY_INT || !chance(50)) continue;
            int anc = G.cls[k].parent;
            while (anc >= 0 && !G.cls[anc].over[s]) anc = G.cls[anc].parent;
            if (anc < 0 || (s == 0 && anc == 0)) continue;
            char *t = meth_text[k][s];
            char *r = strstr(t, "        return ");
            if (!r || strstr(r + 1, "        return ")) continue;
            /* last top-level return: add super's result to it */
            char *semi = strrchr(t, ';');
            Buf b = { 0 };
            buf_add(&b, "%.*s + super.%s(x%s)%s", (int)(semi - t), t, c->name, c->np == 2 ? ", y" : "", semi);
            free(t);
            meth_text[k][s] = buf_take(&b);
            worst *= 2;
        }
        c->cost = worst + 1;
    }

    /* the program text */
    Buf P = { 0 };
    buf_add(&P, "// tlgen %llu: a generated program (tests/gen/tlgen.c)\n", seed);
    buf_add(&P, "var ck: int = %d;\n", rnd(1000));
    buf_add(&P, "var gi: int = %s;\n", INT_CONSTS[rnd(20)]);
    buf_add(&P, "var gs: string = \"g\";\n");
    buf_add(&P, "fn mix(h: int, v: int): int {\n    return ((h ^ v) * 1099511628211) + (h >>> 29);\n}\n");
    buf_add(&P, "fn fi(f: float): int {\n    if f != f { return 7; }\n    if f > 1e18 { return 8; }\n"
                "    if f < -1e18 { return 9; }\n    return int(f);\n}\n");
    buf_add(&P, "fn sat(s: string, i: int): int {\n    if s.length == 0 { return -1; }\n"
                "    var r = i %% s.length;\n    if r < 0 { r += s.length; }\n    return s[r];\n}\n");
    buf_add(&P, "fn cut(s: string): string {\n    if s.length > 24 { return s.substring(s.length - 24, s.length); }\n"
                "    return s;\n}\n");
    buf_add(&P, "interface Op {\n    fn apply(x: int): int;\n}\n");
    buf_add(&P, "class FnOp implements Op {\n    g: fn(int): int;\n    init(g: fn(int): int) {\n        self.g = g;\n    }\n"
                "    fn apply(x: int): int {\n        return self.g(x);\n    }\n}\n");
    for (int k = 0; k < G.ncls; k++) {
        if (k == 0) buf_add(&P, "abstract class K0 {\n    a: int;\n    f: float;\n    s: string;\n"
                                "    init(a: int, f: float) {\n        self.a = a;\n        self.f = f;\n        self.s = \"k\";\n    }\n"
                                "    abstract fn m0(x: int): int;\n");
        if (k == 0 && static_text) buf_add(&P, "%s", static_text);
        else {
            buf_add(&P, "class K%d extends K%d%s {\n", k, G.cls[k].parent, G.cls[k].decl_op ? " implements Op" : "");
            if (G.cls[k].extra) buf_add(&P, "    b%d: int;\n", k);
            if (G.cls[k].parent == 0) buf_add(&P, "    init(a: int) {\n        super(a, %s);\n", FLOAT_CONSTS[rnd(15)]);
            else buf_add(&P, "    init(a: int) {\n        super(a + %d);\n", k);
            if (G.cls[k].extra) buf_add(&P, "        self.b%d = a * %d;\n", k, 3 + k);
            buf_add(&P, "    }\n");
        }
        for (int s = 0; s <= MAX_SLOTS; s++)
            if (meth_text[k][s]) buf_add(&P, "%s", meth_text[k][s]);
        buf_add(&P, "}\n");
    }
    for (int i = 0; i < G.ncallee; i++)
        if (fn_text[i]) buf_add(&P, "%s", fn_text[i]);

    /* bounded recursion */
    buf_add(&P, "fn rec0(n: int, acc: int): int {\n    if n <= 0 { return acc; }\n"
                "    return rec0(n - 1, mix(acc, n * %d)) + %d;\n}\n", 3 + rnd(50), rnd(9));

    /* the trap: a run-time error at iteration T of main's loop */
    int trap_at = iters / 2 + rnd(iters / 2);
    int trap_kind = rnd(8);
    if (trap) {
        buf_add(&P, "fn trap(it: int, o: K0, arr: int[]): int {\n");
        switch (trap_kind) {
        case 0: buf_add(&P, "    return 1000 / (%d - it);\n", trap_at); break;
        case 1: buf_add(&P, "    return 1000 %% (it - %d);\n", trap_at); break;
        case 2: buf_add(&P, "    var k = 0;\n    if it == %d { k = 8; }\n    return arr[k];\n", trap_at); break;
        case 3: buf_add(&P, "    var p = o;\n    if it == %d { p = null; }\n    return p.m0(it);\n", trap_at); break;
        case 4: buf_add(&P, "    var p: K0 = o;\n    if it == %d { p = K%d(1); }\n    return (p as K%d).a;\n",
                        trap_at, 1, G.ncls - 1 == 1 ? 1 : G.ncls - 1);
            break;
        case 5: buf_add(&P, "    var f = 1.5;\n    if it == %d { f = 0.0 / 0.0; }\n    return int(f);\n", trap_at); break;
        case 6: buf_add(&P, "    let a = new int[%d - it];\n    return a.length;\n", trap_at); break;
        default: buf_add(&P, "    assert(it != %d, \"trap\");\n    return it;\n", trap_at); break;
        }
        buf_add(&P, "}\n");
    }

    /* main: a loop of `iters` iterations calling everything */
    Callee mainc = { .ret = { TY_VOID, 0 }, .level = level };
    Buf mb = { 0 };
    G.out = &mb;
    G.nvars = 0;
    G.depth = 1;
    G.level = level;
    G.self_cls = -1;
    G.ret = mainc.ret;
    G.counter = 0;
    G.mult = 1, G.cost = 0, G.budget = 1L << 30, G.loop_depth = 0;
    Var *arr = add_var("arr", ty(TY_IARR), false);
    line("let %s = [1, 2, 3, 4, 5, 6, 7, 8];", arr->name);
    Var *farr = add_var("fa", ty(TY_FARR), false);
    line("let %s = [0.5, 1.5, -2.0, 3.25];", farr->name);
    int cobj = G.ncls - 1;
    Var *o = add_var("o", (Ty){ TY_OBJ, 0 }, true);
    line("var %s: K0 = K%d(%d);", o->name, cobj, rnd(100));
    Var *op = add_var("op", ty(TY_OP), true);
    line("var %s: Op = K1(%d);", op->name, rnd(100));
    Var *s = add_var("s", ty(TY_STR), true);
    line("var %s = \"m\";", s->name);
    Var *fl = add_var("fl", ty(TY_FLOAT), true);
    line("var %s = 0.25;", fl->name);
    Var *h = add_var("h", ty(TY_FN), true);
    line("var %s: fn(int): int = f0;", h->name);
    /* per-iteration work: a budget so the whole loop stays cheap */
    Var *it = add_var("it", ty(TY_INT), false);
    line("for %s in 0..%d {", it->name, iters);
    it->depth = 1;      /* the loop body's block (depth 2) must not drop it */
    G.depth = 2;
    G.mult = 1, G.cost = 0, G.budget = 200;
    G.loop_depth = 1;
    block(4 + rnd(6));
    /* every function is called at least once an iteration when it fits */
    for (int i = 0; i < G.ncallee; i++) {
        Callee *c = &G.callee[i];
        if (c->is_slot || G.cost + c->cost > 600) continue;
        G.budget = 1L << 30;
        char *e = emit_call(c, 0);
        switch (c->ret.k) {
        case TY_INT: line("ck = mix(ck, %s);", e); break;
        case TY_FLOAT: line("ck = mix(ck, str(%s).hash());", e); break;
        case TY_BOOL: line("ck = mix(ck, str(%s).hash());", e); break;
        case TY_STR: line("ck = mix(ck, %s.hash());", e); break;
        }
        free(e);
    }
    line("ck = mix(ck, rec0(%s & 15, %s));", it->name, it->name);
    if (trap) line("ck = mix(ck, trap(%s, %s, %s));", it->name, o->name, arr->name);
    line("if (%s %% %d) == 0 {", it->name, 97 + rnd(400));
    line("    println(ck);");
    line("}");
    G.depth = 1;
    pop_scope(1);
    line("}");
    line("println(ck);");
    line("println(gi);");
    line("println(gs);");
    line("println(%s);", s->name);
    line("println(%s);", fl->name);
    line("println(%s.a);", o->name);
    line("println(%s.f);", o->name);
    line("println(%s.apply(3));", op->name);
    line("for j in 0..8 {");
    line("    print(%s[j]);", arr->name);
    line("    print(\" \");");
    line("}");
    line("println();");
    line("println(%s[0] + %s[3]);", farr->name, farr->name);
    buf_add(&P, "fn main() {\n%s}\n", mb.p);
    free(mb.p);
    if (out_of_memory) {
        fprintf(stderr, "tlgen: out of memory\n");
        return 2;
    }
    fwrite(P.p, 1, P.n, stdout);
    free(P.p);
    return fflush(stdout) == 0 ? 0 : 2;
}
