/* lang/check_body.c — checking of code: statements and expressions in
 * functions, methods, inits, lambdas and global initializers.
 *
 * Input: the declarations resolved by check.c.  Output: every TlExpr gets
 * its static type (TlExpr.type) and resolution (rk/sym/aux), every local
 * its TlLocal, every lambda its captures; errors are reported.
 * Invariants: an expression whose type could not be determined has the
 * error type, and nothing derived from an error type reports again (no
 * cascades); an undefined name is reported once per name.  Captures:
 * when code in lambda depth d uses a local of depth d0 < d, every lambda
 * between them captures it, so the emitter finds each captured value in
 * the immediately enclosing function.
 */
#include "ast.h"

#include <string.h>

typedef struct Fn {
    struct Fn *outer;
    TlMethod *m;            /* the method this code belongs to (outermost) */
    TlLambda *lambda;       /* the lambda being checked, NULL at depth 0 */
    uint32_t depth;
    TlType *ret;
    TlClass *cls;           /* type parameter scope */
    bool in_static;
    TlLocal *self;
    int loops;
    bool super_ok;          /* checking the first statement of an init */
    bool super_done;
} Fn;

typedef struct K {
    TlCompiler *c;
    Fn *fn;
    TlMap scope;            /* (NULL, name) -> TlLocal (or &unbound) */
    TlLocal **stack;
    uint32_t nstack, capstack;
    uint32_t scope_id, next_scope;
} K;

static TlLocal unbound;

static const char *const builtin_names[B_COUNT] = {
    [B_PRINT] = "print", [B_PRINTLN] = "println", [B_STR] = "str", [B_FLOAT] = "float",
    [B_INT] = "int", [B_CHR] = "chr", [B_SQRT] = "sqrt", [B_EXIT] = "exit", [B_CLOCK] = "clock",
    [B_ARGS] = "args", [B_ASSERT] = "assert", [B_SUBSTRING] = "substring",
    [B_INDEXOF] = "indexOf", [B_HASH] = "hash",
};

static int builtin_of(const char *name, int from, int to)
{
    for (int i = from; i < to; i++)
        if (strcmp(name, builtin_names[i]) == 0)
            return i;
    return -1;
}

/* Operator spelling without the quotes of tl_tok_text. */
static const char *op_text(K *k, int op)
{
    const char *t = tl_tok_text[op];
    size_t n = strlen(t);
    if (n >= 2 && t[0] == '\'')
        return tl_strndup(k->c, t + 1, n - 2);
    return t;
}

/* Where an expression starts (its leftmost token), for messages about the
 * expression as a whole. */
static TlPos start_pos(TlExpr *e)
{
    for (int n = 0; n < 10000 && e->a
                    && (e->kind == E_MEMBER || e->kind == E_INDEX || e->kind == E_CALL
                        || e->kind == E_BINARY || e->kind == E_AND || e->kind == E_OR
                        || e->kind == E_IS || e->kind == E_AS);
         n++)
        e = e->a;
    return e->pos;
}

static const char *tstr(K *k, TlType *t)
{
    return tl_type_str(k->c, t);
}

/* ---- scopes -------------------------------------------------------------- */

static uint32_t push_scope(K *k)
{
    uint32_t saved = k->scope_id;
    k->scope_id = ++k->next_scope;
    return saved;
}

static void pop_scope(K *k, uint32_t saved, uint32_t mark)
{
    while (k->nstack > mark) {
        TlLocal *l = k->stack[--k->nstack];
        tl_map_put(&k->scope, NULL, l->name, l->shadow ? l->shadow : &unbound);
    }
    k->scope_id = saved;
}

static TlLocal *find_local(K *k, const char *name)
{
    TlLocal *l = tl_map_get(&k->scope, NULL, name);
    return l == &unbound ? NULL : l;
}

static TlLocal *declare_local(K *k, const char *name, TlPos pos, TlType *t, bool mutable_)
{
    TlLocal *old = find_local(k, name);
    if (old && old->scope == k->scope_id && old->fdepth == k->fn->depth)
        tl_error(k->c, pos, TL_D_DUP_LOCAL, name);
    TlLocal *l = tl_alloc(k->c, sizeof *l);
    l->name = name;
    l->pos = pos;
    l->type = t;
    l->mutable_ = mutable_;
    l->fdepth = k->fn->depth;
    l->scope = k->scope_id;
    l->shadow = old;
    l->reg = -1;
    tl_map_put(&k->scope, NULL, name, l);
    *TL_PUSH(k->c, k->stack, k->nstack, k->capstack) = l;
    return l;
}

/* Records that the current function uses outer local l; returns its
 * capture index in the current lambda (-1 if l is the function's own). */
static int32_t capture(K *k, TlLocal *l)
{
    int32_t idx = -1;
    for (Fn *f = k->fn; f && f->depth > l->fdepth; f = f->outer) {
        TlLambda *lam = f->lambda;
        int32_t found = -1;
        for (uint32_t i = 0; i < lam->ncaps; i++)
            if (lam->caps[i] == l)
                found = (int32_t)i;
        if (found < 0) {
            found = (int32_t)lam->ncaps;
            *TL_PUSH(k->c, lam->caps, lam->ncaps, lam->capcaps) = l;
        }
        if (f == k->fn)
            idx = found;
    }
    return idx;
}

static void undefined(K *k, TlPos pos, const char *name)
{
    if (!tl_map_get(&k->c->undefined, NULL, name)) {
        tl_map_put(&k->c->undefined, NULL, name, (void *)1);
        tl_error(k->c, pos, TL_D_UNDEFINED, name);
    }
}

/* ---- expressions --------------------------------------------------------- */

static TlType *expr(K *k, TlExpr *e, TlType *want);
static void block(K *k, TlStmt *s);
static void stmt(K *k, TlStmt *s);

/* An expression used for its value: void is an error. */
static TlType *value(K *k, TlExpr *e, TlType *want)
{
    TlType *t = expr(k, e, want);
    if (t->kind == TY_VOID) {
        tl_error(k->c, e->pos, TL_D_VOID_VALUE);
        e->type = k->c->t_error;
        return k->c->t_error;
    }
    return t;
}

/* The first place where from and to (equal but for erased arrays)
 * differ in being erased: *wf and *wt are the array types there. */
static bool erased_diff(TlCompiler *c, TlType *from, TlType *to, TlType **wf, TlType **wt, int depth)
{
    if (from == to || depth > 100)
        return false;
    if (from->kind == TY_CLASS && to->kind == TY_CLASS && from->cls != to->cls) {
        from = tl_type_as_super(c, from, to->cls);
        if (!from)
            return false;
    }
    if (from->kind != to->kind || from->nargs != to->nargs)
        return false;
    switch (from->kind) {
    case TY_ARRAY:
        if (from->rt != to->rt) {
            *wf = from;
            *wt = to;
            return true;
        }
        return erased_diff(c, from->elem, to->elem, wf, wt, depth + 1);
    case TY_FUNC:
        if (erased_diff(c, from->ret, to->ret, wf, wt, depth + 1))
            return true;
        /* fall through */
    case TY_CLASS:
        for (uint32_t i = 0; i < from->nargs; i++)
            if (erased_diff(c, from->args[i], to->args[i], wf, wt, depth + 1))
                return true;
        return false;
    default:
        return false;
    }
}

/* Reports that a value of type t cannot be used as type want. */
static void mismatch(K *k, TlPos pos, TlType *t, TlType *want)
{
    TlCompiler *c = k->c;
    TlType *wf = NULL, *wt = NULL;
    if ((tl_type_has_rt(t) || tl_type_has_rt(want))
        && tl_type_assignable(c, tl_type_strip(c, t), tl_type_strip(c, want))
        && erased_diff(c, t, want, &wf, &wt, 0)) {
        /* the types agree but for arrays of a type parameter, which the VM
         * holds as Object[] (no cast could turn one into a string[]) */
        if (wf->rt)
            tl_error(c, pos, TL_D_ERASED_ARRAY, tstr(k, wf->rt), tstr(k, wt));
        else
            tl_error(c, pos, TL_D_ERASED_ARRAY_TARGET, tstr(k, wf), tstr(k, wt->rt));
        return;
    }
    tl_error(c, pos, TL_D_TYPE_MISMATCH, tstr(k, want), tstr(k, t));
}

static TlType *expect(K *k, TlExpr *e, TlType *want)
{
    TlType *t = value(k, e, want);
    if (!tl_type_assignable(k->c, t, want))
        mismatch(k, e->pos, t, want);
    return t;
}

/* A generic member's declared type d as seen through the type arguments
 * of its owner (NULL: no substitution), with erased arrays where the VM
 * holds d's erasure. */
static TlType *seen(K *k, TlType *d, TlClass *owner, TlType **owner_args)
{
    if (!owner_args)
        return d;
    return tl_type_rt(k->c, tl_subst(k->c, d, owner, owner_args), d);
}

static void cond(K *k, TlExpr *e)
{
    TlType *t = value(k, e, k->c->t_bool);
    if (t != k->c->t_bool && t->kind != TY_ERROR)
        tl_error(k->c, e->pos, TL_D_COND_NOT_BOOL, tstr(k, t));
}

static bool is_num(TlCompiler *c, TlType *t) { return t == c->t_int || t == c->t_float; }

static TlType *binop(K *k, int op, TlType *l, TlType *r, TlPos pos)
{
    TlCompiler *c = k->c;
    if (l->kind == TY_ERROR || r->kind == TY_ERROR)
        return c->t_error;
    switch (op) {
    case TK_PLUS:
        if (l == r && (is_num(c, l) || l == c->t_string))
            return l;
        break;
    case TK_MINUS: case TK_STAR: case TK_SLASH:
        if (l == r && is_num(c, l))
            return l;
        break;
    case TK_PERCENT: case TK_AMP: case TK_PIPE: case TK_CARET: case TK_SHL: case TK_SHR: case TK_USHR:
        if (l == c->t_int && r == c->t_int)
            return l;
        break;
    case TK_LT: case TK_LE: case TK_GT: case TK_GE:
        if (l == r && is_num(c, l))
            return c->t_bool;
        break;
    case TK_EQEQ: case TK_NE:
        if (l == r && (is_num(c, l) || l == c->t_bool))
            return c->t_bool;
        if (tl_type_is_ref(l) && tl_type_is_ref(r))
            return c->t_bool;
        break;
    default:
        break;
    }
    tl_error(c, pos, TL_D_BAD_OPERANDS, op_text(k, op), tstr(k, l), tstr(k, r));
    return c->t_error;
}

/* Can a value of static type `from` ever be a `to`?  False only when the
 * types are provably disjoint: string, arrays and functions are final
 * kinds, and two classes (single inheritance) are related or disjoint. */
static bool castable(TlCompiler *c, TlType *from, TlType *to)
{
    from = tl_erase(c, from);
    to = tl_erase(c, to);
    if (from->kind == TY_OBJECT || to->kind == TY_OBJECT || from->kind == TY_NULL)
        return true;
    if (tl_type_assignable(c, from, to) || tl_type_assignable(c, to, from))
        return true;
    if (from->kind != to->kind)
        return false;
    if (from->kind == TY_CLASS) {
        if (from->cls->is_iface || to->cls->is_iface)
            return true;
        return tl_type_as_super(c, from, to->cls) || tl_type_as_super(c, to, from->cls);
    }
    if (from->kind == TY_ARRAY)
        return tl_type_is_ref(from->elem) && tl_type_is_ref(to->elem) && castable(c, from->elem, to->elem);
    return from->kind == TY_FUNC;
}

static TlType *local_type(K *k, TlExpr *e, TlLocal *l)
{
    e->rk = R_LOCAL;
    e->sym = l;
    e->aux = l->fdepth < k->fn->depth ? capture(k, l) : -1;
    return l->type;
}

static TlType *name_expr(K *k, TlExpr *e)
{
    TlCompiler *c = k->c;
    TlLocal *l = find_local(k, e->str);
    if (l)
        return local_type(k, e, l);
    TlSym *s = tl_map_get(&c->globals, NULL, e->str);
    if (s) {
        switch (s->kind) {
        case SYM_GLOBAL: {
            TlGlobal *g = s->p;
            tl_resolve_global(c, g);
            e->rk = R_GLOBAL;
            e->sym = g;
            return g->type;
        }
        case SYM_FUNC: {
            TlMethod *m = s->p;
            e->rk = R_FUNC;
            e->sym = m;
            return m->ftype;
        }
        default:
            tl_error(c, e->pos, TL_D_NOT_A_VALUE, e->str);
            return c->t_error;
        }
    }
    if (builtin_of(e->str, 0, B_SUBSTRING) >= 0) {
        tl_error(c, e->pos, TL_D_BUILTIN_VALUE, e->str);
        return c->t_error;
    }
    undefined(k, e->pos, e->str);
    return c->t_error;
}

/* If e names a class (not shadowed by a value), returns its instance type
 * (raw for generic classes named without arguments). */
static TlClass *class_named(K *k, TlExpr *e, TlType **inst)
{
    if (e->kind == E_NAME) {
        if (find_local(k, e->str))
            return NULL;
        TlSym *s = tl_map_get(&k->c->globals, NULL, e->str);
        if (!s || s->kind != SYM_CLASS)
            return NULL;
        TlClass *cls = s->p;
        *inst = cls->ntparams ? NULL : cls->self_type;
        return cls;
    }
    if (e->kind == E_GENERIC) {
        TlSym *s = tl_map_get(&k->c->globals, NULL, e->str);
        if (!s || s->kind != SYM_CLASS)
            return NULL;
        TlTypeExpr te = {.kind = TE_NAME, .pos = e->pos, .name = e->str, .args = e->targs,
                         .nargs = e->ntargs};
        TlType *t = tl_resolve_type(k->c, &te, k->fn->cls, k->fn->in_static);
        *inst = t->kind == TY_CLASS ? t : k->c->t_error;
        return s->p;
    }
    return NULL;
}

static void check_args(K *k, TlExpr *call, const char *name, TlType **params, uint32_t n,
                       TlMethod *m, TlType **owner_args)
{
    if (call->nargs != n) {
        tl_error(k->c, call->pos, TL_D_ARG_COUNT, name, (int)n, (int)call->nargs);
        for (uint32_t i = 0; i < call->nargs; i++)
            value(k, call->args[i], NULL);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        TlType *p = params[i];
        if (m && owner_args)
            p = seen(k, p, m->owner, owner_args);
        expect(k, call->args[i], p);
    }
}

static TlType *method_ret(K *k, TlMethod *m, TlType **owner_args)
{
    return seen(k, m->ret, m->owner, owner_args);
}

static TlType *builtin_call(K *k, TlExpr *e, int b)
{
    TlCompiler *c = k->c;
    e->rk = R_CALL_BUILTIN;
    e->aux = b;
    const char *name = builtin_names[b];
    TlType *a[2] = {NULL, NULL};
    int want = b == B_CLOCK || b == B_ARGS ? 0 : b == B_ASSERT ? 2 : 1;
    if (b == B_PRINTLN && e->nargs == 0)
        return c->t_void;
    if ((int)e->nargs != want) {
        tl_error(c, e->pos, TL_D_ARG_COUNT, name, want, (int)e->nargs);
        for (uint32_t i = 0; i < e->nargs; i++)
            value(k, e->args[i], NULL);
        return b == B_PRINT || b == B_PRINTLN || b == B_EXIT || b == B_ASSERT ? c->t_void : c->t_error;
    }
    for (int i = 0; i < want; i++)
        a[i] = value(k, e->args[i], NULL);
    TlType *t = a[0];
    bool err = t && t->kind == TY_ERROR;
    bool ok = true;
    TlType *res = c->t_error;
    switch (b) {
    case B_PRINT: case B_PRINTLN:
        ok = err || is_num(c, t) || t == c->t_bool || t == c->t_string;
        res = c->t_void;
        break;
    case B_STR:
        ok = err || is_num(c, t) || t == c->t_bool || t == c->t_string;
        res = c->t_string;
        break;
    case B_FLOAT:
        ok = err || is_num(c, t);
        res = c->t_float;
        break;
    case B_INT:
        ok = err || is_num(c, t);
        res = c->t_int;
        break;
    case B_CHR:
        ok = err || t == c->t_int;
        res = c->t_string;
        break;
    case B_SQRT:
        ok = err || t == c->t_float;
        res = c->t_float;
        break;
    case B_EXIT:
        ok = err || t == c->t_int;
        res = c->t_void;
        break;
    case B_CLOCK:
        res = c->t_float;
        break;
    case B_ARGS:
        res = tl_type_array(c, c->t_string);
        break;
    case B_ASSERT:
        ok = err || t == c->t_bool;
        if (ok && a[1]->kind != TY_ERROR && a[1] != c->t_string) {
            tl_error(c, e->args[1]->pos, TL_D_TYPE_MISMATCH, "string", tstr(k, a[1]));
        }
        res = c->t_void;
        break;
    default:
        break;
    }
    if (!ok)
        tl_error(c, e->args[0]->pos, TL_D_BUILTIN_ARG, name, tstr(k, t));
    return res;
}

static TlType *new_call(K *k, TlExpr *e, TlClass *cls, TlType *inst)
{
    TlCompiler *c = k->c;
    if (!inst) {
        tl_error(c, e->a->pos, TL_D_GENERIC_NEEDS_ARGS, cls->name);
        inst = c->t_error;
    }
    if (inst->kind == TY_ERROR) {
        for (uint32_t i = 0; i < e->nargs; i++)
            value(k, e->args[i], NULL);
        return inst;
    }
    if (cls->is_iface || cls->is_abstract) {
        tl_error(c, e->a->pos, cls->is_iface ? TL_D_INSTANTIATE_IFACE : TL_D_INSTANTIATE_ABSTRACT, cls->name);
        for (uint32_t i = 0; i < e->nargs; i++)
            value(k, e->args[i], NULL);
        return inst;
    }
    e->rk = R_CALL_NEW;
    e->sym = cls;
    TlMethod *init = cls->ctor;
    if (!init) {
        check_args(k, e, cls->name, NULL, 0, NULL, NULL);
    } else {
        TlType *as = tl_type_as_super(c, inst, init->owner);
        check_args(k, e, cls->name, init->params, init->nparams, init, as ? as->args : NULL);
    }
    return inst;
}

static TlType *string_method(K *k, TlExpr *e, TlExpr *callee)
{
    TlCompiler *c = k->c;
    int b = builtin_of(callee->str, B_SUBSTRING, B_COUNT);
    if (b < 0) {
        tl_error(c, callee->pos, TL_D_NO_MEMBER, "string", callee->str);
        for (uint32_t i = 0; i < e->nargs; i++)
            value(k, e->args[i], NULL);
        return c->t_error;
    }
    e->rk = R_CALL_STRING;
    e->aux = b;
    TlType *ps[2] = {c->t_int, c->t_int};
    if (b == B_INDEXOF)
        ps[0] = c->t_string;
    check_args(k, e, callee->str, ps, b == B_SUBSTRING ? 2 : b == B_INDEXOF ? 1 : 0, NULL, NULL);
    return b == B_SUBSTRING ? c->t_string : c->t_int;
}

static TlType *member_value(K *k, TlExpr *e);

static TlType *call_expr(K *k, TlExpr *e)
{
    TlCompiler *c = k->c;
    TlExpr *f = e->a;
    TlType *inst = NULL;
    if (f->kind == E_NAME) {
        /* a local that is not a function does not hide a built-in: main's
         * `args` parameter and args() can coexist */
        TlLocal *l = find_local(k, f->str);
        int b = builtin_of(f->str, 0, B_SUBSTRING);
        if (l && l->type->kind != TY_FUNC && l->type->kind != TY_ERROR && b >= 0)
            return builtin_call(k, e, b);
    }
    if (f->kind == E_NAME && !find_local(k, f->str)) {
        TlSym *s = tl_map_get(&c->globals, NULL, f->str);
        if (!s) {
            int b = builtin_of(f->str, 0, B_SUBSTRING);
            if (b >= 0)
                return builtin_call(k, e, b);
            TlClass *scope = k->fn->cls;
            for (uint32_t i = 0; scope && i < scope->ntparams; i++)
                if (scope->tparams[i]->name == f->str) {
                    tl_error(c, f->pos, TL_D_TYPE_PARAM_NEW, f->str);
                    for (uint32_t j = 0; j < e->nargs; j++)
                        value(k, e->args[j], NULL);
                    return c->t_error;
                }
        } else if (s->kind == SYM_FUNC) {
            TlMethod *m = s->p;
            e->rk = R_CALL_FUNC;
            e->sym = m;
            check_args(k, e, m->name, m->params, m->nparams, NULL, NULL);
            return m->ret;
        } else if (s->kind == SYM_CLASS) {
            TlClass *cls = class_named(k, f, &inst);
            return new_call(k, e, cls, inst);
        }
    }
    if (f->kind == E_GENERIC) {
        TlClass *cls = class_named(k, f, &inst);
        if (!cls) {
            tl_error(c, f->pos, TL_D_UNKNOWN_TYPE, f->str);
            return c->t_error;
        }
        return new_call(k, e, cls, inst);
    }
    if (f->kind == E_MEMBER) {
        TlClass *cls = class_named(k, f->a, &inst);
        if (cls) {
            /* Class.m(...): a static method */
            bool is_field = false;
            TlType **args;
            TlMethod *m = tl_lookup_member(c, cls->self_type, f->str, &is_field, &args);
            if (!m || is_field || m->kind != M_STATIC) {
                if (m && !is_field)
                    tl_error(c, f->pos, TL_D_NOT_STATIC, f->str, cls->name);
                else
                    tl_error(c, f->pos, TL_D_NO_MEMBER, cls->name, f->str);
                for (uint32_t i = 0; i < e->nargs; i++)
                    value(k, e->args[i], NULL);
                return c->t_error;
            }
            e->rk = R_CALL_FUNC;
            e->sym = m;
            check_args(k, e, m->name, m->params, m->nparams, NULL, NULL);
            return m->ret;
        }
        TlType *rt = value(k, f->a, NULL);
        if (rt->kind == TY_ERROR) {
            for (uint32_t i = 0; i < e->nargs; i++)
                value(k, e->args[i], NULL);
            return rt;
        }
        if (rt == c->t_string && f->str != c->n_length)
            return string_method(k, e, f);
        if (rt->kind == TY_CLASS) {
            bool is_field = false;
            TlType **args;
            void *p = tl_lookup_member(c, rt, f->str, &is_field, &args);
            if (p && !is_field) {
                TlMethod *m = p;
                if (m->kind == M_STATIC) {
                    tl_error(c, f->pos, TL_D_STATIC_VIA_INSTANCE, f->str, m->owner->name, f->str);
                    for (uint32_t i = 0; i < e->nargs; i++)
                        value(k, e->args[i], NULL);
                    return c->t_error;
                }
                e->rk = m->kind == M_IFACE ? R_CALL_IFACE : R_CALL_VIRTUAL;
                e->sym = m;
                f->type = rt;
                check_args(k, e, f->str, m->params, m->nparams, m, args);
                return method_ret(k, m, args);
            }
            if (!p && f->str == c->n_init) {
                tl_error(c, f->pos, TL_D_INIT_CALL);
                return c->t_error;
            }
        }
        /* a field (or length) holding a function: fall through to CALLF */
    }
    if (f->kind == E_SUPER_MEMBER) {
        if (!k->fn->self || !k->fn->cls || k->fn->cls->is_iface) {
            tl_error(c, f->pos, TL_D_SUPER_OUTSIDE);
            return c->t_error;
        }
        TlClass *cls = k->fn->cls;
        if (!cls->super) {
            tl_error(c, f->pos, TL_D_NO_SUPERCLASS, cls->name);
            return c->t_error;
        }
        if (k->fn->depth > 0)
            capture(k, k->fn->self);
        bool is_field = false;
        TlType **args;
        TlMethod *m = tl_lookup_member(c, cls->super, f->str, &is_field, &args);
        if (!m || is_field || m->kind == M_STATIC || m->kind == M_IFACE) {
            tl_error(c, f->pos, TL_D_NO_MEMBER, tstr(k, cls->super), f->str);
            return c->t_error;
        }
        if (m->is_abstract) {
            tl_error(c, f->pos, TL_D_SUPER_ABSTRACT, f->str);
            return c->t_error;
        }
        e->rk = R_CALL_SUPER;
        e->sym = m;
        f->sym = k->fn->self;
        f->aux = k->fn->depth > 0 ? capture(k, k->fn->self) : -1;
        check_args(k, e, f->str, m->params, m->nparams, m, args);
        return method_ret(k, m, args);
    }
    TlType *ft = f->kind == E_MEMBER ? member_value(k, f) : value(k, f, NULL);
    if (ft->kind == TY_ERROR) {
        for (uint32_t i = 0; i < e->nargs; i++)
            value(k, e->args[i], NULL);
        return ft;
    }
    if (ft->kind != TY_FUNC) {
        tl_error(c, f->pos, TL_D_NOT_CALLABLE,
                 f->kind == E_NAME || f->kind == E_MEMBER ? f->str : tstr(k, ft));
        for (uint32_t i = 0; i < e->nargs; i++)
            value(k, e->args[i], NULL);
        return c->t_error;
    }
    e->rk = R_CALL_CLOSURE;
    const char *name = f->kind == E_NAME || f->kind == E_MEMBER ? f->str : "function";
    check_args(k, e, name, ft->args, ft->nargs, NULL, NULL);
    return ft->ret;
}

static TlType *member_value(K *k, TlExpr *e)
{
    TlCompiler *c = k->c;
    TlType *inst;
    TlClass *cls = class_named(k, e->a, &inst);
    if (cls) {
        bool is_field = false;
        TlType **args;
        void *p = tl_lookup_member(c, cls->self_type, e->str, &is_field, &args);
        if (p && !is_field)
            tl_error(c, e->pos, TL_D_METHOD_VALUE, e->str);
        else
            tl_error(c, e->pos, TL_D_NO_MEMBER, cls->name, e->str);
        return c->t_error;
    }
    TlType *t = value(k, e->a, NULL);
    if (t->kind == TY_ERROR)
        return t;
    if (e->str == c->n_length && (t == c->t_string || t->kind == TY_ARRAY)) {
        e->rk = R_LENGTH;
        return c->t_int;
    }
    if (t->kind == TY_CLASS) {
        bool is_field = false;
        TlType **args;
        void *p = tl_lookup_member(c, t, e->str, &is_field, &args);
        if (p && is_field) {
            TlField *f = p;
            e->rk = R_FIELD;
            e->sym = f;
            return seen(k, f->type, f->owner, args);
        }
        if (p) {
            tl_error(c, e->pos, TL_D_METHOD_VALUE, e->str);
            return c->t_error;
        }
    }
    if (t == c->t_string && builtin_of(e->str, B_SUBSTRING, B_COUNT) >= 0) {
        tl_error(c, e->pos, TL_D_METHOD_VALUE, e->str);
        return c->t_error;
    }
    tl_error(c, e->pos, TL_D_NO_MEMBER, tstr(k, t), e->str);
    return c->t_error;
}

static bool returns(TlStmt *s);

static void check_function(K *k, Fn *f, TlFunc *fn, TlType **params, TlPos pos);

static TlType *lambda_expr(K *k, TlExpr *e)
{
    TlCompiler *c = k->c;
    TlLambda *lam = e->lambda;
    TlFunc *fn = &lam->fn;
    Fn f = {.outer = k->fn, .m = k->fn->m, .lambda = lam, .depth = k->fn->depth + 1,
            .cls = k->fn->cls, .in_static = k->fn->in_static, .self = k->fn->self};
    lam->encl = k->fn->m;
    lam->parent = k->fn->lambda;
    TlType **ps = fn->nparams ? tl_alloc(c, fn->nparams * sizeof *ps) : NULL;
    bool bad = false;
    for (uint32_t i = 0; i < fn->nparams; i++) {
        ps[i] = tl_resolve_type(c, fn->params[i].texpr, f.cls, f.in_static);
        bad |= ps[i]->kind == TY_ERROR;
    }
    f.ret = fn->ret ? tl_resolve_type(c, fn->ret, f.cls, f.in_static) : c->t_void;
    lam->type = bad || f.ret->kind == TY_ERROR ? c->t_error : tl_type_func(c, ps, fn->nparams, f.ret);
    check_function(k, &f, fn, ps, e->pos);
    return lam->type;
}

static TlType *array_lit(K *k, TlExpr *e, TlType *want)
{
    TlCompiler *c = k->c;
    if (want && want->kind == TY_ARRAY) {
        for (uint32_t i = 0; i < e->nargs; i++)
            expect(k, e->args[i], want->elem);
        return want;
    }
    if (e->nargs == 0) {
        tl_error(c, e->pos, TL_D_EMPTY_ARRAY_TYPE);
        return c->t_error;
    }
    TlType *el = value(k, e->args[0], NULL);
    if (el->kind == TY_NULL) {
        tl_error(c, e->args[0]->pos, TL_D_NULL_NEEDS_TYPE);
        el = c->t_error;
    }
    for (uint32_t i = 1; i < e->nargs; i++)
        expect(k, e->args[i], el);
    return tl_type_array(c, el);
}

static TlType *expr_kind(K *k, TlExpr *e, TlType *want)
{
    TlCompiler *c = k->c;
    /* operands that must be there (after a syntax error the parser gives
     * an error node, but nothing here relies on it) */
    if ((e->kind == E_CALL || e->kind == E_MEMBER || e->kind == E_UNARY || e->kind == E_IS
         || e->kind == E_AS || e->kind == E_INDEX || e->kind == E_BINARY || e->kind == E_AND
         || e->kind == E_OR) && !e->a)
        return c->t_error;
    if ((e->kind == E_LAMBDA && !e->lambda) || ((e->kind == E_MEMBER || e->kind == E_SUPER_MEMBER
                                                 || e->kind == E_NAME || e->kind == E_GENERIC) && !e->str))
        return c->t_error;
    switch ((TlExprKind)e->kind) {
    case E_INT: return c->t_int;
    case E_FLOAT: return c->t_float;
    case E_STRING: return c->t_string;
    case E_BOOL: return c->t_bool;
    case E_NULL: return c->t_null;
    case E_ERROR: return c->t_error;
    case E_NAME: return name_expr(k, e);
    case E_SELF:
        if (!k->fn->self) {
            tl_error(c, e->pos, TL_D_SELF_OUTSIDE);
            return c->t_error;
        }
        return local_type(k, e, k->fn->self);
    case E_UNARY: {
        TlType *t = value(k, e->a, NULL);
        if (t->kind == TY_ERROR)
            return t;
        if ((e->op == TK_MINUS && is_num(c, t)) || (e->op == TK_BANG && t == c->t_bool)
            || (e->op == TK_TILDE && t == c->t_int))
            return t;
        tl_error(c, e->pos, TL_D_BAD_OPERAND, op_text(k, e->op), tstr(k, t));
        return c->t_error;
    }
    case E_BINARY: {
        TlType *l = value(k, e->a, NULL);
        TlType *r = value(k, e->b, l->kind == TY_ERROR ? NULL : l);
        return binop(k, e->op, l, r, e->pos);
    }
    case E_AND:
    case E_OR: {
        TlType *l = value(k, e->a, c->t_bool), *r = value(k, e->b, c->t_bool);
        if (l->kind == TY_ERROR || r->kind == TY_ERROR)
            return c->t_error;
        if (l != c->t_bool || r != c->t_bool) {
            tl_error(c, e->pos, TL_D_BAD_OPERANDS, e->kind == E_AND ? "&&" : "||", tstr(k, l), tstr(k, r));
            return c->t_error;
        }
        return c->t_bool;
    }
    case E_IS:
    case E_AS: {
        TlType *t = value(k, e->a, NULL);
        TlType *target = tl_resolve_type(c, e->texpr, k->fn->cls, k->fn->in_static);
        e->rtype = target;
        if (t->kind == TY_ERROR || target->kind == TY_ERROR)
            return e->kind == E_IS ? c->t_bool : target;
        if (!tl_type_is_ref(t) || !tl_type_is_ref(target)) {
            if (e->kind == E_AS && !tl_type_is_ref(t) && !tl_type_is_ref(target))
                tl_error(c, start_pos(e), TL_D_NUMERIC_CAST, tstr(k, t), tstr(k, target));
            else if (e->kind == E_AS)
                tl_error(c, start_pos(e), TL_D_BAD_CAST, tstr(k, t), tstr(k, target));
            else if (tl_type_is_ref(t))
                tl_error(c, e->texpr->pos, TL_D_NOT_REFERENCE, tstr(k, target));
            else
                tl_error(c, start_pos(e), TL_D_NOT_REFERENCE, tstr(k, t));
            return e->kind == E_IS ? c->t_bool : c->t_error;
        }
        if (e->kind == E_AS && !castable(c, t, target)) {
            tl_error(c, start_pos(e), TL_D_BAD_CAST, tstr(k, t), tstr(k, target));
            return c->t_error;
        }
        return e->kind == E_IS ? c->t_bool : target;
    }
    case E_NEWARRAY: {
        TlType *el = tl_resolve_type(c, e->texpr, k->fn->cls, k->fn->in_static);
        TlType *n = value(k, e->a, c->t_int);
        if (n != c->t_int && n->kind != TY_ERROR)
            tl_error(c, e->a->pos, TL_D_LENGTH_NOT_INT, tstr(k, n));
        TlType *t = tl_type_array(c, el);
        for (uint32_t i = 0; i < e->ndims; i++)
            t = tl_type_array(c, t);
        e->rtype = t;
        return t;
    }
    case E_ARRAY:
        return array_lit(k, e, want);
    case E_LAMBDA:
        return lambda_expr(k, e);
    case E_INDEX: {
        TlType *a = value(k, e->a, NULL);
        TlType *i = value(k, e->b, c->t_int);
        if (i != c->t_int && i->kind != TY_ERROR)
            tl_error(c, e->b->pos, TL_D_INDEX_NOT_INT, tstr(k, i));
        if (a->kind == TY_ERROR)
            return a;
        if (a->kind == TY_ARRAY)
            return a->elem;
        if (a == c->t_string)
            return c->t_int;
        tl_error(c, e->a->pos, TL_D_NOT_INDEXABLE, tstr(k, a));
        return c->t_error;
    }
    case E_MEMBER:
        return member_value(k, e);
    case E_SUPER_MEMBER:
        if (!k->fn->self)
            tl_error(c, e->pos, TL_D_SUPER_OUTSIDE);
        else
            tl_error(c, e->pos, TL_D_METHOD_VALUE, e->str);
        return c->t_error;
    case E_CALL:
        return call_expr(k, e);
    case E_GENERIC:
        tl_error(c, e->pos, TL_D_NOT_A_VALUE, e->str);
        return c->t_error;
    case E_SUPER_CALL: {
        Fn *f = k->fn;
        bool ok = f->super_ok;
        f->super_ok = false;
        for (uint32_t i = 0; i < e->nargs && !ok; i++)
            value(k, e->args[i], NULL);
        if (!ok) {
            tl_error(c, e->pos, TL_D_SUPER_CALL_PLACE);
            return c->t_void;
        }
        TlClass *cls = f->cls;
        if (!cls->super) {
            tl_error(c, e->pos, TL_D_NO_SUPERCLASS, cls->name);
            return c->t_void;
        }
        TlClass *sup = cls->super->cls;
        if (!sup->ctor) {
            tl_error(c, e->pos, TL_D_SUPER_NO_INIT, sup->name);
            return c->t_void;
        }
        f->super_done = true;
        e->rk = R_CALL_SUPER_INIT;
        e->sym = sup->ctor;
        TlType *as = tl_type_as_super(c, cls->super, sup->ctor->owner);
        check_args(k, e, sup->name, sup->ctor->params, sup->ctor->nparams, sup->ctor, as ? as->args : NULL);
        return c->t_void;
    }
    }
    return c->t_error;
}

static TlType *expr(K *k, TlExpr *e, TlType *want)
{
    /* after a syntax error the parser may leave a subexpression missing;
     * its error has been reported, so it checks as the silent error type */
    if (!e)
        return k->c->t_error;
    TlType *t = expr_kind(k, e, want);
    e->type = t;
    return t;
}

/* ---- statements ---------------------------------------------------------- */

static bool has_break(TlStmt *s)
{
    if (!s)
        return false;
    switch (s->kind) {
    case S_BREAK:
        return true;
    case S_IF:
        for (; s && s->kind == S_IF; s = s->els)
            if (has_break(s->body))
                return true;
        return s && has_break(s);
    case S_BLOCK:
        for (uint32_t i = 0; i < s->n; i++)
            if (has_break(s->stmts[i]))
                return true;
        return false;
    default:
        return false;   /* loops own their breaks */
    }
}

static bool returns(TlStmt *s)
{
    if (!s)
        return false;
    switch (s->kind) {
    case S_RETURN:
        return true;
    case S_BLOCK:
        for (uint32_t i = 0; i < s->n; i++)
            if (returns(s->stmts[i]))
                return true;
        return false;
    case S_IF:
        for (; s && s->kind == S_IF; s = s->els)
            if (!s->els || !returns(s->body))
                return false;
        return s == NULL || returns(s);
    case S_WHILE:
        return s->e && s->e->kind == E_BOOL && s->e->ival && !has_break(s->body);
    case S_EXPR:
        /* exit() ends the program */
        return s->e && s->e->kind == E_CALL && s->e->rk == R_CALL_BUILTIN && s->e->aux == B_EXIT;
    default:
        return false;
    }
}

static int binary_of(int op)
{
    switch (op) {
    case TK_PLUS_ASSIGN: return TK_PLUS;
    case TK_MINUS_ASSIGN: return TK_MINUS;
    case TK_STAR_ASSIGN: return TK_STAR;
    case TK_SLASH_ASSIGN: return TK_SLASH;
    case TK_PERCENT_ASSIGN: return TK_PERCENT;
    case TK_AMP_ASSIGN: return TK_AMP;
    case TK_PIPE_ASSIGN: return TK_PIPE;
    case TK_CARET_ASSIGN: return TK_CARET;
    case TK_SHL_ASSIGN: return TK_SHL;
    case TK_SHR_ASSIGN: return TK_SHR;
    case TK_USHR_ASSIGN: return TK_USHR;
    default: return 0;
    }
}

/* The assignment target's type, reporting targets that cannot be assigned. */
static TlType *target_kind(K *k, TlExpr *e);

static TlType *target(K *k, TlExpr *e)
{
    TlType *t = target_kind(k, e);
    if (e)
        e->type = t;
    return t;
}

static TlType *target_kind(K *k, TlExpr *e)
{
    TlCompiler *c = k->c;
    if (!e)
        return c->t_error;
    switch (e->kind) {
    case E_NAME: {
        TlLocal *l = find_local(k, e->str);
        if (l) {
            TlType *t = local_type(k, e, l);
            if (l->fdepth < k->fn->depth)
                tl_error(c, e->pos, TL_D_ASSIGN_CAPTURED, e->str);
            else if (l->loopvar)
                tl_error(c, e->pos, TL_D_ASSIGN_LOOP_VAR, e->str);
            else if (!l->mutable_)
                tl_error(c, e->pos, TL_D_ASSIGN_LET, e->str);
            return t;
        }
        TlSym *s = tl_map_get(&c->globals, NULL, e->str);
        if (s && s->kind == SYM_GLOBAL) {
            TlType *t = name_expr(k, e);
            if (!((TlGlobal *)s->p)->mutable_)
                tl_error(c, e->pos, TL_D_ASSIGN_LET, e->str);
            return t;
        }
        if (s) {
            tl_error(c, e->pos, TL_D_ASSIGN_NOT_VAR, e->str);
            return c->t_error;
        }
        return name_expr(k, e);
    }
    case E_INDEX: {
        TlType *t = expr(k, e, NULL);
        if (e->a && e->a->type == c->t_string) {
            tl_error(c, start_pos(e), TL_D_ASSIGN_STRING);
            return c->t_error;
        }
        return t;
    }
    case E_MEMBER: {
        TlType *t = expr(k, e, NULL);
        if (e->rk == R_LENGTH) {
            tl_error(c, start_pos(e), TL_D_ASSIGN_LENGTH);
            return c->t_error;
        }
        return t;
    }
    default:
        expr(k, e, NULL);
        return c->t_error;
    }
}

static void var_stmt(K *k, TlStmt *s)
{
    TlCompiler *c = k->c;
    TlType *t;
    if (s->texpr) {
        t = tl_resolve_type(c, s->texpr, k->fn->cls, k->fn->in_static);
        if (t->kind == TY_ERROR)
            value(k, s->e, NULL);
        else
            expect(k, s->e, t);
    } else {
        t = value(k, s->e, NULL);
        if (t->kind == TY_NULL && s->e) {
            tl_error(c, s->e->pos, TL_D_NULL_NEEDS_TYPE);
            t = c->t_error;
        }
    }
    s->local = declare_local(k, s->name, s->name_pos, t, s->kind == S_VAR);
}

/* A super(...) call statement? */
static bool is_super_call(const TlStmt *s)
{
    return s && s->kind == S_EXPR && s->e && s->e->kind == E_SUPER_CALL;
}

static void stmt(K *k, TlStmt *s)
{
    TlCompiler *c = k->c;
    /* statements and their parts are never missing after a syntax error
     * (the parser gives error nodes), but nothing here relies on it */
    if (!s)
        return;
    switch ((TlStmtKind)s->kind) {
    case S_LET:
    case S_VAR:
        var_stmt(k, s);
        break;
    case S_ASSIGN: {
        TlType *t = target(k, s->e);
        if (s->op == TK_ASSIGN) {
            if (t->kind == TY_ERROR)
                value(k, s->e2, NULL);
            else
                expect(k, s->e2, t);
        } else {
            TlType *r = value(k, s->e2, t->kind == TY_ERROR ? NULL : t);
            TlType *res = binop(k, binary_of(s->op), t, r, s->pos);
            if (res->kind != TY_ERROR && !tl_type_assignable(c, res, t))
                mismatch(k, s->pos, res, t);
        }
        break;
    }
    case S_EXPR:
        expr(k, s->e, NULL);
        break;
    case S_IF:
        for (; s && s->kind == S_IF; s = s->els) {
            cond(k, s->e);
            block(k, s->body);
        }
        if (s)
            block(k, s);
        break;
    case S_WHILE:
        cond(k, s->e);
        k->fn->loops++;
        block(k, s->body);
        k->fn->loops--;
        break;
    case S_FOR: {
        TlType *a = value(k, s->e, c->t_int), *b = value(k, s->e2, c->t_int);
        if (!s->name)
            break;
        if (a != c->t_int && a->kind != TY_ERROR)
            tl_error(c, s->e->pos, TL_D_RANGE_NOT_INT, tstr(k, a));
        if (b != c->t_int && b->kind != TY_ERROR)
            tl_error(c, s->e2->pos, TL_D_RANGE_NOT_INT, tstr(k, b));
        uint32_t mark = k->nstack, saved = push_scope(k);
        s->local = declare_local(k, s->name, s->name_pos, c->t_int, false);
        s->local->loopvar = true;
        k->fn->loops++;
        block(k, s->body);
        k->fn->loops--;
        pop_scope(k, saved, mark);
        break;
    }
    case S_BREAK:
    case S_CONTINUE:
        if (!k->fn->loops)
            tl_error(c, s->pos, s->kind == S_BREAK ? TL_D_BREAK_OUTSIDE : TL_D_CONTINUE_OUTSIDE);
        break;
    case S_RETURN: {
        TlType *r = k->fn->ret;
        if (s->e) {
            if (r == c->t_void) {
                expr(k, s->e, NULL);
                tl_error(c, s->pos, TL_D_RETURN_VALUE_VOID);
            } else if (r->kind == TY_ERROR) {
                value(k, s->e, NULL);
            } else {
                expect(k, s->e, r);
            }
        } else if (r != c->t_void && r->kind != TY_ERROR) {
            tl_error(c, s->pos, TL_D_RETURN_NEEDS_VALUE, tstr(k, r));
        }
        break;
    }
    case S_BLOCK:
        block(k, s);
        break;
    case S_ERROR:
        break;
    }
}

static void block(K *k, TlStmt *s)
{
    if (!s)
        return;
    if (s->kind != S_BLOCK) {
        stmt(k, s);
        return;
    }
    uint32_t mark = k->nstack, saved = push_scope(k);
    for (uint32_t i = 0; i < s->n; i++)
        stmt(k, s->stmts[i]);
    pop_scope(k, saved, mark);
}

/* Checks a function body in context f: parameters, body, missing return. */
static void check_function(K *k, Fn *f, TlFunc *fn, TlType **params, TlPos pos)
{
    TlCompiler *c = k->c;
    Fn *outer = k->fn;
    k->fn = f;
    uint32_t mark = k->nstack, saved = push_scope(k);
    for (uint32_t i = 0; i < fn->nparams; i++) {
        /* duplicates among a method's parameters were reported with its signature */
        TlLocal *old = find_local(k, fn->params[i].name);
        bool dup = old && old->scope == k->scope_id && old->fdepth == f->depth;
        if (dup && !f->lambda)
            old->scope = 0;
        fn->params[i].local = declare_local(k, fn->params[i].name, fn->params[i].pos, params[i], true);
    }
    if (fn->body) {
        TlStmt *b = fn->body;
        uint32_t first = 0;
        if (fn->is_init && b->n > 0 && is_super_call(b->stmts[0])) {
            f->super_ok = true;
            uint32_t m2 = k->nstack, s2 = push_scope(k);
            stmt(k, b->stmts[0]);
            pop_scope(k, s2, m2);
            first = 1;
        }
        bool has_super = false;
        for (uint32_t i = 0; i < b->n; i++)
            has_super |= is_super_call(b->stmts[i]);
        /* name the class whose init the superclass runs: it may be inherited */
        TlMethod *sup_ctor = f->cls && f->cls->super ? f->cls->super->cls->ctor : NULL;
        if (fn->is_init && !has_super && sup_ctor)
            tl_error(c, fn->pos, TL_D_SUPER_CALL_MISSING, f->cls->name,
                     sup_ctor->owner ? sup_ctor->owner->name : f->cls->super->cls->name);
        uint32_t m3 = k->nstack, s3 = push_scope(k);
        for (uint32_t i = first; i < b->n; i++)
            stmt(k, b->stmts[i]);
        pop_scope(k, s3, m3);
        if (f->ret != c->t_void && f->ret->kind != TY_ERROR && !returns(b))
            tl_error(c, pos, TL_D_MISSING_RETURN);
    }
    pop_scope(k, saved, mark);
    k->fn = outer;
}

static void check_method(TlCompiler *c, TlMethod *m)
{
    K k = {.c = c};
    TlClass *cls = m->owner;
    bool stat = m->kind == M_STATIC || m->kind == M_FUNC;
    Fn f = {.m = m, .ret = m->ret, .cls = cls, .in_static = stat};
    k.fn = &f;
    if (!stat && cls) {
        TlLocal *self = tl_alloc(c, sizeof *self);
        self->name = c->n_self;
        self->pos = m->pos;
        self->type = cls->self_type;
        self->is_self = true;
        self->reg = -1;
        f.self = self;
        m->self = self;
    }
    check_function(&k, &f, m->fn, m->params, m->pos);
    tl_map_free(&k.scope);
}

void tl_resolve_global(TlCompiler *c, TlGlobal *g)
{
    if (g->state >= 2 && g->type)
        return;
    if (g->state == 1) {
        tl_error(c, g->pos, TL_D_GLOBAL_CYCLE, g->name);
        g->type = c->t_error;
        g->state = 2;
        return;
    }
    g->state = 1;
    K k = {.c = c};
    Fn f = {.m = c->ginit, .ret = c->t_void, .in_static = true};
    k.fn = &f;
    TlType *t = value(&k, g->decl->init, NULL);
    if (t->kind == TY_NULL && g->decl->init) {
        tl_error(c, g->decl->init->pos, TL_D_NULL_NEEDS_TYPE);
        t = c->t_error;
    }
    if (g->state == 1 || !g->type)
        g->type = t;
    g->state = 3;
    tl_map_free(&k.scope);
}

void tl_check_bodies(TlCompiler *c)
{
    c->ginit = tl_alloc(c, sizeof *c->ginit);
    c->ginit->name = tl_intern(c, "$init", 5);
    c->ginit->kind = M_FUNC;
    c->ginit->ret = c->t_void;
    for (uint32_t i = 0; i < c->ngvars; i++) {
        TlGlobal *g = c->gvars[i];
        if (g->state == 3)
            continue;
        if (g->state == 2) {
            K k = {.c = c};
            Fn f = {.m = c->ginit, .ret = c->t_void, .in_static = true};
            k.fn = &f;
            if (g->type->kind == TY_ERROR)
                value(&k, g->decl->init, NULL);
            else
                expect(&k, g->decl->init, g->type);
            g->state = 3;
            tl_map_free(&k.scope);
        } else {
            tl_resolve_global(c, g);
        }
    }
    for (uint32_t i = 0; i < c->nfuncs; i++)
        if (c->funcs[i]->kind == M_FUNC)
            check_method(c, c->funcs[i]);
    for (uint32_t i = 0; i < c->nclasses; i++) {
        TlClass *cls = c->classes[i];
        if (cls->init)
            check_method(c, cls->init);
        for (uint32_t j = 0; j < cls->decl->nmethods; j++) {
            TlMethod *m = cls->decl->methods[j] ? cls->decl->methods[j]->m : NULL;
            if (m && m != cls->init && m->fn->body)
                check_method(c, m);
        }
    }
}
