/* lang/emit_expr.c — code generation for expressions and conditions.
 *
 * Input: checked expressions (types and resolutions set).  Output:
 * instructions in the current TlEm.  tl_em_expr(e, dst) leaves the value in a
 * register and returns it; with dst >= 0 the value ends up in dst
 * (converted to dst's type), and the last instruction writes dst directly
 * whenever the types allow, so assignments need no extra MOV.
 * tl_em_cond(e, when, label) jumps to label when e is `when` and falls
 * through otherwise, using the fused compare-and-branch instructions.
 * Invariants: sub-expressions never write into dst before all operands
 * are read (dst may be a variable the expression reads); values that
 * erasure widened (a generic `T` read as Object) are cast back where a
 * specific type is needed (tl_em_coerce); temporaries of a finished
 * sub-expression are released at once, so registers stay few.
 */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        abort();  /* malloc failure outside the GC heap: nothing sane left */
    return p;
}

#define AT(E, e) ((E)->line = (e)->pos.line)

static const VmType *vt(TlEm *E, uint32_t t)
{
    return &E->p->m->types[t];
}

/* Where an instruction producing type t should write. */
static int32_t out(TlEm *E, uint32_t t, int32_t dst)
{
    if (dst >= 0 && tl_em_assignable(E, t, tl_em_regtype(E, dst)))
        return dst;
    return tl_em_temp(E, t);
}

static int32_t fin(TlEm *E, int32_t r, int32_t dst)
{
    if (dst < 0 || r == dst || r < 0)
        return r < 0 ? dst : r;
    tl_em_coerce_into(E, r, dst);
    return dst;
}

/* Releases the temporaries allocated since mark, except keep. */
static void release_above(TlEm *E, uint32_t mark, int32_t keep)
{
    bool kept = false;
    while (E->ntemps > mark) {
        int32_t r = E->temps[--E->ntemps];
        if (r == keep)
            kept = true;
        else
            tl_em_release(E, r);
    }
    if (kept)
        E->temps[E->ntemps++] = keep;
}

/* The register for the result of an instruction reading a and b: the
 * temporaries above mark (the operands' own, dead once the instruction has
 * read them) are released first, then dst when its type allows, else a
 * dead operand register of type t, else any free temporary.  Locals and
 * dst are never released here: they are not temporaries above mark. */
static int32_t out_after(TlEm *E, uint32_t t, int32_t dst, uint32_t mark, int32_t a, int32_t b)
{
    release_above(E, mark, -1);
    if (dst >= 0 && tl_em_assignable(E, t, tl_em_regtype(E, dst)))
        return dst;
    if (tl_em_take(E, a, t))
        return a;
    if (tl_em_take(E, b, t))
        return b;
    return tl_em_temp(E, t);
}

int32_t tl_em_local_of(TlEm *E, TlLocal *l, int32_t cap)
{
    if (cap >= 0 && E->capregs)
        return E->capregs[cap];
    return l->reg;
}

/* ---- conversions ---------------------------------------------------------- */

static uint32_t adapter(TlEm *E, uint32_t from, uint32_t to);

void tl_em_coerce_into(TlEm *E, int32_t src, int32_t dst)
{
    uint32_t from = tl_em_regtype(E, src), to = tl_em_regtype(E, dst);
    if (tl_em_assignable(E, from, to)) {
        tl_em_op(E, VM_OP_MOV, dst, src, 0);
    } else if (vt(E, from)->kind == VM_T_FUNC && vt(E, to)->kind == VM_T_FUNC) {
        uint32_t a = adapter(E, from, to);
        tl_em_op(E, VM_OP_CLOS, dst, src, (int32_t)a);
    } else {
        tl_em_op(E, VM_OP_CAST, dst, src, (int32_t)to);
    }
}

int32_t tl_em_coerce(TlEm *E, int32_t r, uint32_t t)
{
    if (r < 0 || tl_em_assignable(E, tl_em_regtype(E, r), t))
        return r;
    int32_t d = tl_em_temp(E, t);
    tl_em_coerce_into(E, r, d);
    return d;
}

/* A lambda that makes a closure of type `from` usable as type `to` (same
 * arity; erasure made one of them wider): converts the arguments, calls,
 * converts the result. */
static uint32_t adapter(TlEm *E, uint32_t from, uint32_t to)
{
    TlEmProg *p = E->p;
    uintptr_t have = (uintptr_t)tl_map_get(&p->adapters, (void *)(uintptr_t)(from + 1),
                                           (void *)(uintptr_t)(to + 1));
    if (have)
        return (uint32_t)have - 1;
    VmModule *m = p->m;
    uint32_t n = m->types[to].nparams;
    uint32_t *ps = xmalloc((n + 1) * sizeof *ps);
    ps[0] = to;
    for (uint32_t i = 0; i < n; i++)
        ps[i + 1] = m->types[to].params[i];
    uint32_t idx = tl_em_new_method(p);
    char name[32];
    snprintf(name, sizeof name, "$adapt%u", ++p->nadapters);
    tl_em_set_header(p, idx, name, VM_M_LAMBDA, VM_NONE, ps, n + 1, m->types[to].ret);
    m->methods[idx].ncaps = 1;
    m->methods[idx].caps = xmalloc(sizeof(uint32_t));
    m->methods[idx].caps[0] = from;
    tl_map_put(&p->adapters, (void *)(uintptr_t)(from + 1), (void *)(uintptr_t)(to + 1),
               (void *)(uintptr_t)(idx + 1));
    TlEm A;
    tl_em_init(&A, p, name, E->file);
    for (uint32_t i = 0; i <= n; i++)
        tl_em_new_reg(&A, ps[i]);
    A.vm_ret = m->types[to].ret;
    A.line = E->line;   /* traces show where the conversion was made */
    uint32_t fn = m->types[from].nparams;
    uint32_t *bt = xmalloc((fn + 1) * sizeof *bt);
    bt[0] = from;
    for (uint32_t i = 0; i < fn; i++)
        bt[i + 1] = m->types[from].params[i];
    uint32_t fret = m->types[from].ret;
    int32_t base = tl_em_block(&A, bt, fn + 1);
    tl_em_op(&A, VM_OP_LDCAP, base, 0, 0);
    for (uint32_t i = 0; i < fn && i < n; i++)
        tl_em_coerce_into(&A, (int32_t)i + 1, base + 1 + (int32_t)i);
    if (p->m->types[fret].kind == VM_T_VOID) {
        tl_em_op(&A, VM_OP_CALLF, -1, base, 0);
        tl_em_op(&A, VM_OP_RETV, 0, 0, 0);
    } else {
        int32_t r = tl_em_new_reg(&A, fret);
        tl_em_op(&A, VM_OP_CALLF, r, base, 0);
        r = tl_em_coerce(&A, r, A.vm_ret);
        tl_em_op(&A, VM_OP_RET, r, 0, 0);
    }
    tl_em_finish_method(&A, idx);
    tl_em_free(&A);
    free(ps);
    free(bt);
    return idx;
}

/* ---- lambdas and function values ----------------------------------------- */

static int32_t outer_value(TlEm *E, TlLocal *l);

uint32_t tl_em_lambda_method(TlEm *E, TlLambda *lam)
{
    TlEmProg *p = E->p;
    TlFunc *fn = &lam->fn;
    uint32_t n = fn->nparams + 1;
    uint32_t *ps = xmalloc(n * sizeof *ps);
    ps[0] = tl_em_vmtype(p, lam->type);
    for (uint32_t i = 0; i < fn->nparams; i++)
        ps[i + 1] = tl_em_vmtype(p, fn->params[i].local->type);
    size_t len = strlen(E->name) + 32;
    char *name = tl_alloc(E->c, len);
    snprintf(name, len, "%s$lambda%u", E->name, ++E->nlambdas);
    uint32_t idx = tl_em_new_method(p);
    tl_em_set_header(p, idx, name, VM_M_LAMBDA, VM_NONE, ps, n, tl_em_vmtype(p, lam->type->ret));
    free(ps);
    VmMethod *mm = &p->m->methods[idx];
    mm->ncaps = lam->ncaps;
    mm->caps = lam->ncaps ? xmalloc(lam->ncaps * sizeof *mm->caps) : NULL;
    /* the type of the register holding each value where the closure is made */
    for (uint32_t i = 0; i < lam->ncaps; i++)
        mm->caps[i] = tl_em_regtype(E, outer_value(E, lam->caps[i]));
    TlEm L;
    tl_em_init(&L, p, name, E->file);
    L.depth = E->depth + 1;
    tl_em_emit_lambda_body(&L, lam, idx);
    tl_em_free(&L);
    return idx;
}

/* The register of captured-or-own local l as seen by the current function. */
static int32_t outer_value(TlEm *E, TlLocal *l)
{
    if (l->fdepth == E->depth || !E->lambda)
        return l->reg;
    for (uint32_t i = 0; i < E->lambda->ncaps; i++)
        if (E->lambda->caps[i] == l)
            return E->capregs[i];
    return l->reg;
}

static int32_t closure(TlEm *E, uint32_t idx, const int32_t *vals, uint32_t n, int32_t dst)
{
    VmMethod *mm = &E->p->m->methods[idx];
    uint32_t t = mm->regs[0];
    int32_t base = 0;
    uint32_t mark = E->ntemps;
    if (n) {
        uint32_t *types = xmalloc(n * sizeof *types);
        memcpy(types, mm->caps, n * sizeof *types);
        base = tl_em_block(E, types, n);
        for (uint32_t i = 0; i < n; i++)
            tl_em_coerce_into(E, vals[i], base + (int32_t)i);
        free(types);
    }
    /* CLOS copies the captures before it writes its result */
    release_above(E, mark, -1);
    int32_t r = dst >= 0 && vm_type_equal(E->p->m, tl_em_regtype(E, dst), t) ? dst : tl_em_temp(E, t);
    tl_em_op(E, VM_OP_CLOS, r, base, (int32_t)idx);
    return fin(E, r, dst);
}

/* `f` used as a value: a capture-less lambda `f$fn` calling it. */
static uint32_t wrapper(TlEm *E, TlMethod *m)
{
    if (m->wrapper)
        return m->wrapper - 1;
    TlEmProg *p = E->p;
    uint32_t n = m->nparams + 1;
    uint32_t *ps = xmalloc(n * sizeof *ps);
    ps[0] = tl_em_vmtype(p, m->ftype);
    for (uint32_t i = 0; i < m->nparams; i++)
        ps[i + 1] = tl_em_vmtype(p, m->params[i]);
    size_t len = strlen(m->name) + 8;
    char *name = tl_alloc(E->c, len);
    snprintf(name, len, "%s$fn", m->name);
    uint32_t idx = tl_em_new_method(p);
    uint32_t ret = tl_em_vmtype(p, m->ret);
    tl_em_set_header(p, idx, name, VM_M_LAMBDA, VM_NONE, ps, n, ret);
    m->wrapper = idx + 1;
    TlEm W;
    tl_em_init(&W, p, name, m->file);
    for (uint32_t i = 0; i < n; i++)
        tl_em_new_reg(&W, ps[i]);
    W.vm_ret = ret;
    W.line = m->pos.line;
    bool void_ = p->m->types[ret].kind == VM_T_VOID;
    /* the arguments are copied at the call: the result may overwrite r1 */
    int32_t r = void_ ? -1 : n > 1 && ps[1] == ret ? 1 : tl_em_new_reg(&W, ret);
    tl_em_op(&W, m->kind == M_EXTERN ? VM_OP_CALLN : VM_OP_CALL, r, 1, (int32_t)m->vm);
    if (void_)
        tl_em_op(&W, VM_OP_RETV, 0, 0, 0);
    else
        tl_em_op(&W, VM_OP_RET, r, 0, 0);
    tl_em_finish_method(&W, idx);
    tl_em_free(&W);
    free(ps);
    return idx;
}

/* ---- operators ------------------------------------------------------------ */

static bool is_cmp(int op)
{
    return op == TK_LT || op == TK_LE || op == TK_GT || op == TK_GE || op == TK_EQEQ || op == TK_NE;
}

int32_t tl_em_binop_regs(TlEm *E, int op, TlType *t, int32_t a, int32_t b, int32_t dst, uint32_t mark)
{
    TlCompiler *c = E->c;
    TlEmProg *p = E->p;
    VmOp o = VM_OP_NOP;
    uint32_t rt = p->vt_int;
    if (t == c->t_string) {
        a = tl_em_coerce(E, a, p->vt_string);
        b = tl_em_coerce(E, b, p->vt_string);
        int32_t r = out_after(E, p->vt_string, dst, mark, a, b);
        tl_em_op(E, VM_OP_SCAT, r, a, b);
        return fin(E, r, dst);
    }
    if (t == c->t_float) {
        rt = p->vt_float;
        o = op == TK_PLUS ? VM_OP_FADD : op == TK_MINUS ? VM_OP_FSUB : op == TK_STAR ? VM_OP_FMUL : VM_OP_FDIV;
    } else {
        switch (op) {
        case TK_PLUS: o = VM_OP_ADD; break;
        case TK_MINUS: o = VM_OP_SUB; break;
        case TK_STAR: o = VM_OP_MUL; break;
        case TK_SLASH: o = VM_OP_DIV; break;
        case TK_PERCENT: o = VM_OP_MOD; break;
        case TK_AMP: o = VM_OP_AND; break;
        case TK_PIPE: o = VM_OP_OR; break;
        case TK_CARET: o = VM_OP_XOR; break;
        case TK_SHL: o = VM_OP_SHL; break;
        case TK_SHR: o = VM_OP_SHR; break;
        case TK_USHR: o = VM_OP_USHR; break;
        default: break;
        }
    }
    int32_t r = out_after(E, rt, dst, mark, a, b);
    tl_em_op(E, o, r, a, b);
    return fin(E, r, dst);
}

/* Comparison producing a bool value. */
static int32_t compare_value(TlEm *E, TlExpr *e, int32_t dst)
{
    TlCompiler *c = E->c;
    TlEmProg *p = E->p;
    TlType *lt = e->a->type, *rt = e->b->type;
    int op = e->op;
    uint32_t mark = E->ntemps;
    int32_t a = tl_em_expr(E, e->a, -1);
    int32_t b = tl_em_expr(E, e->b, -1);
    AT(E, e);
    VmOp o;
    bool swap = op == TK_GT || op == TK_GE, negate = false;
    if (lt == c->t_int || lt == c->t_float) {
        bool f = lt == c->t_float;
        switch (op) {
        case TK_LT: case TK_GT: o = f ? VM_OP_FLT : VM_OP_LT; break;
        case TK_LE: case TK_GE: o = f ? VM_OP_FLE : VM_OP_LE; break;
        case TK_EQEQ: o = f ? VM_OP_FEQ : VM_OP_EQ; break;
        default: o = f ? VM_OP_FNE : VM_OP_NE; break;
        }
    } else if (lt == c->t_bool) {
        o = op == TK_EQEQ ? VM_OP_BEQ : VM_OP_BNE;
    } else if (lt == c->t_string && rt == c->t_string) {
        a = tl_em_coerce(E, a, p->vt_string);
        b = tl_em_coerce(E, b, p->vt_string);
        o = VM_OP_SEQ;
        negate = op == TK_NE;
    } else {
        o = op == TK_EQEQ ? VM_OP_REQ : VM_OP_RNE;
    }
    int32_t r = out_after(E, p->vt_bool, dst, mark, a, b);
    if (swap)
        tl_em_op(E, o, r, b, a);
    else
        tl_em_op(E, o, r, a, b);
    if (negate)
        tl_em_op(E, VM_OP_NOT, r, r, 0);
    return fin(E, r, dst);
}

static bool small(int64_t v)
{
    return v >= INT32_MIN && v <= INT32_MAX;
}

static int negate_cmp(int op)
{
    switch (op) {
    case TK_LT: return TK_GE;
    case TK_LE: return TK_GT;
    case TK_GT: return TK_LE;
    case TK_GE: return TK_LT;
    case TK_EQEQ: return TK_NE;
    default: return TK_EQEQ;
    }
}

static int swap_cmp(int op)
{
    switch (op) {
    case TK_LT: return TK_GT;
    case TK_LE: return TK_GE;
    case TK_GT: return TK_LT;
    case TK_GE: return TK_LE;
    default: return op;
    }
}

static void compare_jump(TlEm *E, TlExpr *e, bool when, int32_t label)
{
    TlCompiler *c = E->c;
    TlType *lt = e->a->type, *rt = e->b->type;
    int op = when ? e->op : negate_cmp(e->op);
    uint32_t mark = E->ntemps;
    if (lt == c->t_int && rt == c->t_int) {
        TlExpr *x = e->a, *k = e->b;
        if (x->kind == E_INT && small(x->ival) && !(k->kind == E_INT)) {
            x = e->b;
            k = e->a;
            op = swap_cmp(op);
        }
        if (k->kind == E_INT && small(k->ival)) {
            int32_t a = tl_em_expr(E, x, -1);
            AT(E, e);
            VmOp o = op == TK_LT ? VM_OP_JLTS : op == TK_LE ? VM_OP_JLES : op == TK_GT ? VM_OP_JGTS
                   : op == TK_GE ? VM_OP_JGES : op == TK_EQEQ ? VM_OP_JEQS : VM_OP_JNES;
            tl_em_jump(E, o, a, (int32_t)k->ival, label);
            release_above(E, mark, -1);
            return;
        }
        int32_t a = tl_em_expr(E, e->a, -1), b = tl_em_expr(E, e->b, -1);
        AT(E, e);
        switch (op) {
        case TK_LT: tl_em_jump(E, VM_OP_JLT, a, b, label); break;
        case TK_LE: tl_em_jump(E, VM_OP_JLE, a, b, label); break;
        case TK_GT: tl_em_jump(E, VM_OP_JLT, b, a, label); break;
        case TK_GE: tl_em_jump(E, VM_OP_JLE, b, a, label); break;
        case TK_EQEQ: tl_em_jump(E, VM_OP_JEQ, a, b, label); break;
        default: tl_em_jump(E, VM_OP_JNE, a, b, label); break;
        }
        release_above(E, mark, -1);
        return;
    }
    if (lt == c->t_float && rt == c->t_float) {
        int32_t a = tl_em_expr(E, e->a, -1), b = tl_em_expr(E, e->b, -1);
        AT(E, e);
        /* jump-if-false must be true for NaN: use the negated opcodes */
        int o = e->op;
        bool sw = o == TK_GT || o == TK_GE;
        int32_t x = sw ? b : a, y = sw ? a : b;
        VmOp v;
        if (o == TK_EQEQ || o == TK_NE)
            v = (o == TK_EQEQ) == when ? VM_OP_FJEQ : VM_OP_FJNE;
        else if (o == TK_LT || o == TK_GT)
            v = when ? VM_OP_FJLT : VM_OP_FJNLT;
        else
            v = when ? VM_OP_FJLE : VM_OP_FJNLE;
        tl_em_jump(E, v, x, y, label);
        release_above(E, mark, -1);
        return;
    }
    if ((e->op == TK_EQEQ || e->op == TK_NE) && (e->a->kind == E_NULL || e->b->kind == E_NULL)) {
        TlExpr *x = e->a->kind == E_NULL ? e->b : e->a;
        int32_t a = tl_em_expr(E, x, -1);
        AT(E, e);
        if (a < 0 || x->kind == E_NULL) {
            /* null == null */
            if ((e->op == TK_EQEQ) == when)
                tl_em_jump(E, VM_OP_JMP, 0, 0, label);
            release_above(E, mark, -1);
            return;
        }
        bool jnull = (e->op == TK_EQEQ) == when;
        tl_em_jump(E, jnull ? VM_OP_JNULL : VM_OP_JNNULL, a, 0, label);
        release_above(E, mark, -1);
        return;
    }
    int32_t r = compare_value(E, e, -1);
    tl_em_jump(E, when ? VM_OP_JT : VM_OP_JF, r, 0, label);
    release_above(E, mark, -1);
}

void tl_em_cond(TlEm *E, TlExpr *e, bool when, int32_t label)
{
    switch (e->kind) {
    case E_BOOL:
        if ((e->ival != 0) == when)
            tl_em_jump(E, VM_OP_JMP, 0, 0, label);
        return;
    case E_UNARY:
        if (e->op == TK_BANG) {
            tl_em_cond(E, e->a, !when, label);
            return;
        }
        break;
    case E_AND:
    case E_OR: {
        bool and_ = e->kind == E_AND;
        if (and_ != when) {
            /* a && b false: either false; a || b true: either true */
            tl_em_cond(E, e->a, when, label);
            tl_em_cond(E, e->b, when, label);
        } else {
            int32_t skip = tl_em_label(E);
            tl_em_cond(E, e->a, !when, skip);
            tl_em_cond(E, e->b, when, label);
            tl_em_place(E, skip);
        }
        return;
    }
    case E_BINARY:
        if (is_cmp(e->op)) {
            compare_jump(E, e, when, label);
            return;
        }
        break;
    default:
        break;
    }
    uint32_t mark = E->ntemps;
    int32_t r = tl_em_expr(E, e, -1);
    AT(E, e);
    tl_em_jump(E, when ? VM_OP_JT : VM_OP_JF, r, 0, label);
    release_above(E, mark, -1);
}

/* ---- calls ---------------------------------------------------------------- */

/* Evaluates args into base+k, base+k+1, ... (at most n - k of them). */
static void fill_args(TlEm *E, int32_t base, uint32_t k, uint32_t n, TlExpr **args, uint32_t nargs)
{
    for (uint32_t i = 0; i < nargs && k + i < n; i++) {
        uint32_t mark = E->ntemps;
        tl_em_expr(E, args[i], base + (int32_t)(k + i));
        release_above(E, mark, -1);
    }
}

/* Argument block of the given types: receiver (expression, or register
 * `recv_reg` when recv is NULL and recv_reg >= 0) and arguments. */
static int32_t arg_block(TlEm *E, const uint32_t *types, uint32_t n, TlExpr *recv, int32_t recv_reg,
                         TlExpr **args, uint32_t nargs)
{
    if (n == 1) {
        /* one argument: the callee copies it, so any register holding it
         * will do (no MOV into a fresh block) */
        int32_t r = recv ? tl_em_expr(E, recv, -1) : recv_reg >= 0 ? recv_reg
                  : nargs ? tl_em_expr(E, args[0], -1) : -1;
        if (r >= 0)
            return tl_em_coerce(E, r, types[0]);
    }
    int32_t base = tl_em_block(E, types, n);
    uint32_t k = 0;
    if (recv || recv_reg >= 0) {
        uint32_t mark = E->ntemps;
        if (recv)
            tl_em_expr(E, recv, base);
        else
            tl_em_coerce_into(E, recv_reg, base);
        release_above(E, mark, -1);
        k = 1;
    }
    fill_args(E, base, k, n, args, nargs);
    return base;
}

/* The call; the temporaries above mark (callee, receiver and argument
 * window) are dead once the arguments are copied, so the result may land
 * in the first of them. */
static int32_t call_op(TlEm *E, TlExpr *e, VmOp op, int32_t base, uint32_t target, uint32_t ret, int32_t dst,
                       uint32_t mark)
{
    AT(E, e);
    if (vt(E, ret)->kind == VM_T_VOID) {
        tl_em_op(E, op, -1, base, (int32_t)target);
        release_above(E, mark, -1);
        return -1;
    }
    int32_t r = out_after(E, ret, dst, mark, base, -1);
    tl_em_op(E, op, r, base, (int32_t)target);
    return fin(E, r, dst);
}

/* Parameter types of VM method idx, copied (the table may move). */
static uint32_t *method_params(TlEm *E, uint32_t idx, uint32_t *n)
{
    VmMethod *mm = &E->p->m->methods[idx];
    *n = mm->nparams;
    uint32_t *ps = xmalloc((*n ? *n : 1) * sizeof *ps);
    if (*n)
        memcpy(ps, mm->regs, *n * sizeof *ps);
    return ps;
}

static int32_t native_call(TlEm *E, TlExpr *e, const char *sym, const uint32_t *ps, uint32_t n, uint32_t ret,
                           TlExpr *recv, TlExpr **args, uint32_t nargs, int32_t dst)
{
    uint32_t idx = tl_em_native(E->p, sym, "", ps, n, ret);
    uint32_t mark = E->ntemps;
    int32_t base = n ? arg_block(E, ps, n, recv, -1, args, nargs) : 0;
    return call_op(E, e, VM_OP_CALLN, base, idx, ret, dst, mark);
}

static int32_t builtin(TlEm *E, TlExpr *e, int32_t dst)
{
    TlCompiler *c = E->c;
    TlEmProg *p = E->p;
    TlType *t = e->nargs ? e->args[0]->type : NULL;
    const char *suffix = t == c->t_int ? "int" : t == c->t_float ? "float" : t == c->t_bool ? "bool" : "string";
    uint32_t at = t == c->t_int ? p->vt_int : t == c->t_float ? p->vt_float : t == c->t_bool ? p->vt_bool : p->vt_string;
    char sym[32];
    switch ((TlBuiltin)e->aux) {
    case B_PRINT:
    case B_PRINTLN:
        if (!e->nargs)
            return native_call(E, e, "println", NULL, 0, p->vt_void, NULL, NULL, 0, dst);
        snprintf(sym, sizeof sym, "%s_%s", e->aux == B_PRINT ? "print" : "println", suffix);
        return native_call(E, e, sym, &at, 1, p->vt_void, NULL, e->args, 1, dst);
    case B_STR:
        if (t == c->t_string)
            return tl_em_expr(E, e->args[0], dst);
        snprintf(sym, sizeof sym, "str_%s", suffix);
        return native_call(E, e, sym, &at, 1, p->vt_string, NULL, e->args, 1, dst);
    case B_FLOAT:
    case B_INT: {
        bool to_float = e->aux == B_FLOAT;
        if (t == (to_float ? c->t_float : c->t_int))
            return tl_em_expr(E, e->args[0], dst);
        uint32_t mark = E->ntemps;
        int32_t a = tl_em_expr(E, e->args[0], -1);
        AT(E, e);
        int32_t r = out_after(E, to_float ? p->vt_float : p->vt_int, dst, mark, a, -1);
        tl_em_op(E, to_float ? VM_OP_I2F : VM_OP_F2I, r, a, 0);
        return fin(E, r, dst);
    }
    case B_CHR:
        return native_call(E, e, "chr", &p->vt_int, 1, p->vt_string, NULL, e->args, 1, dst);
    case B_SQRT:
        return native_call(E, e, "sqrt", &p->vt_float, 1, p->vt_float, NULL, e->args, 1, dst);
    case B_EXIT:
        return native_call(E, e, "exit", &p->vt_int, 1, p->vt_void, NULL, e->args, 1, dst);
    case B_CLOCK:
        return native_call(E, e, "clock", NULL, 0, p->vt_float, NULL, NULL, 0, dst);
    case B_ARGS:
        return native_call(E, e, "args", NULL, 0, tl_em_vmtype(p, tl_type_array(c, c->t_string)), NULL, NULL, 0, dst);
    case B_ASSERT: {
        uint32_t ps[2] = {p->vt_bool, p->vt_string};
        return native_call(E, e, "assert", ps, 2, p->vt_void, NULL, e->args, 2, dst);
    }
    default:
        return dst;
    }
}

static int32_t string_call(TlEm *E, TlExpr *e, int32_t dst)
{
    TlEmProg *p = E->p;
    TlExpr *recv = e->a->a;
    switch ((TlBuiltin)e->aux) {
    case B_SUBSTRING: {
        uint32_t ps[3] = {p->vt_string, p->vt_int, p->vt_int};
        return native_call(E, e, "substring", ps, 3, p->vt_string, recv, e->args, 2, dst);
    }
    case B_INDEXOF: {
        uint32_t ps[2] = {p->vt_string, p->vt_string};
        return native_call(E, e, "index_of", ps, 2, p->vt_int, recv, e->args, 1, dst);
    }
    default:
        return native_call(E, e, "string_hash", &p->vt_string, 1, p->vt_int, recv, NULL, 0, dst);
    }
}

static int32_t call(TlEm *E, TlExpr *e, int32_t dst)
{
    TlEmProg *p = E->p;
    VmModule *m = p->m;
    uint32_t mark = E->ntemps;
    switch (e->rk) {
    case R_CALL_BUILTIN:
        return builtin(E, e, dst);
    case R_CALL_STRING:
        return string_call(E, e, dst);
    case R_CALL_FUNC: {
        TlMethod *fm = e->sym;
        if (fm->kind == M_EXTERN) {
            VmNative *nat = &m->natives[fm->vm];
            uint32_t n = nat->nparams, ret = nat->ret;
            uint32_t *ps = xmalloc((n ? n : 1) * sizeof *ps);
            if (n)
                memcpy(ps, nat->params, n * sizeof *ps);
            int32_t base = n ? arg_block(E, ps, n, NULL, -1, e->args, e->nargs) : 0;
            free(ps);
            return call_op(E, e, VM_OP_CALLN, base, fm->vm, ret, dst, mark);
        }
        uint32_t n;
        uint32_t *ps = method_params(E, fm->vm, &n);
        uint32_t ret = m->methods[fm->vm].ret;
        int32_t base = n ? arg_block(E, ps, n, NULL, -1, e->args, e->nargs) : 0;
        free(ps);
        return call_op(E, e, VM_OP_CALL, base, fm->vm, ret, dst, mark);
    }
    case R_CALL_VIRTUAL:
    case R_CALL_IFACE:
    case R_CALL_SUPER: {
        TlMethod *vm_ = e->sym;
        uint32_t n;
        uint32_t *ps = method_params(E, vm_->vm, &n);
        uint32_t ret = m->methods[vm_->vm].ret;
        int32_t base;
        if (e->rk == R_CALL_SUPER) {
            TlExpr *s = e->a;
            base = arg_block(E, ps, n, NULL, tl_em_local_of(E, s->sym, s->aux), e->args, e->nargs);
        } else {
            base = arg_block(E, ps, n, e->a->a, -1, e->args, e->nargs);
        }
        free(ps);
        VmOp op = e->rk == R_CALL_VIRTUAL ? VM_OP_CALLV : e->rk == R_CALL_IFACE ? VM_OP_CALLI : VM_OP_CALL;
        return call_op(E, e, op, base, vm_->vm, ret, dst, mark);
    }
    case R_CALL_SUPER_INIT: {
        TlMethod *init = e->sym;
        uint32_t n;
        uint32_t *ps = method_params(E, init->vm, &n);
        int32_t base = arg_block(E, ps, n, NULL, 0, e->args, e->nargs);
        free(ps);
        return call_op(E, e, VM_OP_CALL, base, init->vm, p->vt_void, -1, mark);
    }
    case R_CALL_NEW: {
        TlClass *k = e->sym;
        uint32_t ct = tl_em_vmtype(p, e->type);
        TlMethod *init = k->ctor;
        AT(E, e);
        if (!init) {
            int32_t r = out(E, ct, dst);
            tl_em_op(E, VM_OP_NEW, r, (int32_t)k->vm, 0);
            return fin(E, r, dst);
        }
        uint32_t n;
        uint32_t *ps = method_params(E, init->vm, &n);
        int32_t obj, base;
        if (init->owner == k) {
            /* construct straight into the receiver slot of the call */
            base = tl_em_block(E, ps, n);
            tl_em_op(E, VM_OP_NEW, base, (int32_t)k->vm, 0);
            obj = base;
            fill_args(E, base, 1, n, e->args, e->nargs);
        } else {
            obj = tl_em_temp(E, ct);
            tl_em_op(E, VM_OP_NEW, obj, (int32_t)k->vm, 0);
            base = arg_block(E, ps, n, NULL, obj, e->args, e->nargs);
        }
        free(ps);
        AT(E, e);
        tl_em_op(E, VM_OP_CALL, -1, base, (int32_t)init->vm);
        release_above(E, mark, obj);
        return fin(E, obj, dst);
    }
    case R_CALL_CLOSURE: {
        int32_t f = tl_em_expr(E, e->a, -1);
        uint32_t ft = tl_em_regtype(E, f);
        if (vt(E, ft)->kind != VM_T_FUNC) {
            f = tl_em_coerce(E, f, tl_em_vmtype(p, e->a->type));
            ft = tl_em_regtype(E, f);
        }
        const VmType *fty = vt(E, ft);
        uint32_t n = fty->nparams + 1;
        uint32_t *ps = xmalloc(n * sizeof *ps);
        ps[0] = ft;
        if (fty->nparams)
            memcpy(ps + 1, fty->params, fty->nparams * sizeof *ps);
        uint32_t ret = fty->ret;
        int32_t base = arg_block(E, ps, n, NULL, f, e->args, e->nargs);
        free(ps);
        return call_op(E, e, VM_OP_CALLF, base, 0, ret, dst, mark);
    }
    default:
        return dst;
    }
}

/* ---- expressions ---------------------------------------------------------- */

static VmOp aget_op(uint8_t kind)
{
    return kind == VM_T_INT ? VM_OP_AGETI : kind == VM_T_FLOAT ? VM_OP_AGETF
         : kind == VM_T_BOOL ? VM_OP_AGETB : VM_OP_AGETR;
}

static VmOp aput_op(uint8_t kind)
{
    return kind == VM_T_INT ? VM_OP_APUTI : kind == VM_T_FLOAT ? VM_OP_APUTF
         : kind == VM_T_BOOL ? VM_OP_APUTB : VM_OP_APUTR;
}

static int32_t array_literal(TlEm *E, TlExpr *e, int32_t dst)
{
    TlEmProg *p = E->p;
    uint32_t at = tl_em_vmtype(p, e->type);
    uint32_t et = vt(E, at)->ref;
    uint8_t ek = vt(E, et)->kind;
    uint32_t mark0 = E->ntemps;
    int32_t arr = tl_em_temp(E, at);
    int32_t idx = tl_em_temp(E, p->vt_int);
    tl_em_opk(E, VM_OP_LDI, idx, 0, 0, e->nargs);
    tl_em_op(E, VM_OP_NEWA, arr, idx, (int32_t)at);
    for (uint32_t i = 0; i < e->nargs; i++) {
        uint32_t mark = E->ntemps;
        int32_t v = tl_em_coerce(E, tl_em_expr(E, e->args[i], -1), et);
        tl_em_opk(E, VM_OP_LDI, idx, 0, 0, i);
        AT(E, e->args[i]);
        tl_em_op(E, aput_op(ek), arr, idx, v);
        release_above(E, mark, -1);
    }
    release_above(E, mark0, arr);
    return fin(E, arr, dst);
}

static int32_t expr_kind(TlEm *E, TlExpr *e, int32_t dst)
{
    TlCompiler *c = E->c;
    TlEmProg *p = E->p;
    switch ((TlExprKind)e->kind) {
    case E_INT: {
        int32_t r = out(E, p->vt_int, dst);
        tl_em_opk(E, VM_OP_LDI, r, 0, 0, e->ival);
        return fin(E, r, dst);
    }
    case E_FLOAT: {
        int32_t r = out(E, p->vt_float, dst);
        tl_em_opf(E, VM_OP_LDF, r, e->fval);
        return fin(E, r, dst);
    }
    case E_STRING: {
        int32_t r = out(E, p->vt_string, dst);
        tl_em_op(E, VM_OP_LDK, r, (int32_t)tl_em_const(p, e->str, e->slen), 0);
        return fin(E, r, dst);
    }
    case E_BOOL: {
        int32_t r = out(E, p->vt_bool, dst);
        tl_em_op(E, e->ival ? VM_OP_LDTRUE : VM_OP_LDFALSE, r, 0, 0);
        return fin(E, r, dst);
    }
    case E_NULL: {
        int32_t r = dst >= 0 && vm_type_is_ref(vt(E, tl_em_regtype(E, dst))) ? dst : tl_em_temp(E, p->vt_object);
        tl_em_op(E, VM_OP_LDNULL, r, 0, 0);
        return fin(E, r, dst);
    }
    case E_NAME:
    case E_SELF:
        if (e->rk == R_LOCAL)
            return fin(E, tl_em_local_of(E, e->sym, e->aux), dst);
        if (e->rk == R_GLOBAL) {
            TlGlobal *g = e->sym;
            int32_t r = out(E, tl_em_vmtype(p, g->type), dst);
            tl_em_op(E, VM_OP_LDG, r, (int32_t)g->vm, 0);
            return fin(E, r, dst);
        }
        if (e->rk == R_FUNC)
            return closure(E, wrapper(E, e->sym), NULL, 0, dst);
        return dst;
    case E_UNARY: {
        uint32_t mark = E->ntemps;
        int32_t a = tl_em_expr(E, e->a, -1);
        AT(E, e);
        VmOp o;
        uint32_t t;
        if (e->op == TK_BANG) {
            o = VM_OP_NOT;
            t = p->vt_bool;
        } else if (e->op == TK_TILDE) {
            o = VM_OP_BNOT;
            t = p->vt_int;
        } else if (e->type == c->t_float) {
            o = VM_OP_FNEG;
            t = p->vt_float;
        } else {
            o = VM_OP_NEG;
            t = p->vt_int;
        }
        int32_t r = out_after(E, t, dst, mark, a, -1);
        tl_em_op(E, o, r, a, 0);
        return fin(E, r, dst);
    }
    case E_BINARY: {
        if (is_cmp(e->op))
            return compare_value(E, e, dst);
        uint32_t mark = E->ntemps;
        if (e->type == c->t_int && (e->op == TK_PLUS || e->op == TK_MINUS)) {
            TlExpr *x = NULL;
            int64_t k = 0;
            if (e->b->kind == E_INT && (e->op == TK_PLUS || e->b->ival != INT64_MIN)) {
                x = e->a;
                k = e->op == TK_PLUS ? e->b->ival : -e->b->ival;
            } else if (e->a->kind == E_INT && e->op == TK_PLUS) {
                x = e->b;
                k = e->a->ival;
            }
            if (x) {
                int32_t a = tl_em_expr(E, x, -1);
                AT(E, e);
                int32_t r = out_after(E, p->vt_int, dst, mark, a, -1);
                tl_em_opk(E, VM_OP_ADDK, r, a, 0, k);
                return fin(E, r, dst);
            }
        }
        int32_t a = tl_em_expr(E, e->a, -1);
        int32_t b = tl_em_expr(E, e->b, -1);
        AT(E, e);
        return tl_em_binop_regs(E, e->op, e->type, a, b, dst, mark);
    }
    case E_AND:
    case E_OR: {
        int32_t r = tl_em_temp(E, p->vt_bool);
        uint32_t mark = E->ntemps;
        int32_t end = tl_em_label(E);
        tl_em_expr(E, e->a, r);
        release_above(E, mark, -1);
        AT(E, e);
        tl_em_jump(E, e->kind == E_AND ? VM_OP_JF : VM_OP_JT, r, 0, end);
        tl_em_expr(E, e->b, r);
        release_above(E, mark, -1);
        tl_em_place(E, end);
        return fin(E, r, dst);
    }
    case E_IS: {
        uint32_t mark = E->ntemps;
        int32_t a = tl_em_expr(E, e->a, -1);
        AT(E, e);
        int32_t r = out_after(E, p->vt_bool, dst, mark, a, -1);
        tl_em_op(E, VM_OP_ISA, r, a, (int32_t)tl_em_vmtype(p, e->rtype));
        return fin(E, r, dst);
    }
    case E_AS: {
        uint32_t mark = E->ntemps;
        int32_t a = tl_em_expr(E, e->a, -1);
        uint32_t t = tl_em_vmtype(p, e->rtype);
        if (tl_em_assignable(E, tl_em_regtype(E, a), t))
            return fin(E, a, dst);
        AT(E, e);
        int32_t r = out_after(E, t, dst, mark, a, -1);
        tl_em_op(E, VM_OP_CAST, r, a, (int32_t)t);
        return fin(E, r, dst);
    }
    case E_NEWARRAY: {
        uint32_t mark = E->ntemps;
        int32_t n = tl_em_expr(E, e->a, -1);
        AT(E, e);
        uint32_t t = tl_em_vmtype(p, e->rtype);
        int32_t r = out_after(E, t, dst, mark, n, -1);
        tl_em_op(E, VM_OP_NEWA, r, n, (int32_t)t);
        return fin(E, r, dst);
    }
    case E_ARRAY:
        return array_literal(E, e, dst);
    case E_LAMBDA: {
        TlLambda *lam = e->lambda;
        uint32_t idx = tl_em_lambda_method(E, lam);
        int32_t *vals = xmalloc((lam->ncaps ? lam->ncaps : 1) * sizeof *vals);
        for (uint32_t i = 0; i < lam->ncaps; i++)
            vals[i] = outer_value(E, lam->caps[i]);
        AT(E, e);
        int32_t r = closure(E, idx, vals, lam->ncaps, dst);
        free(vals);
        return r;
    }
    case E_INDEX: {
        uint32_t mark = E->ntemps;
        int32_t a = tl_em_expr(E, e->a, -1);
        int32_t i = tl_em_expr(E, e->b, -1);
        AT(E, e);
        int32_t r;
        if (e->a->type == c->t_string) {
            a = tl_em_coerce(E, a, p->vt_string);
            r = out_after(E, p->vt_int, dst, mark, a, i);
            tl_em_op(E, VM_OP_SGET, r, a, i);
        } else {
            uint32_t at = tl_em_regtype(E, a);
            if (vt(E, at)->kind != VM_T_ARRAY) {
                a = tl_em_coerce(E, a, tl_em_vmtype(p, e->a->type));
                at = tl_em_regtype(E, a);
            }
            uint32_t et = vt(E, at)->ref;
            r = out_after(E, et, dst, mark, a, i);
            tl_em_op(E, aget_op(vt(E, et)->kind), r, a, i);
        }
        return fin(E, r, dst);
    }
    case E_MEMBER: {
        uint32_t mark = E->ntemps;
        int32_t a = tl_em_expr(E, e->a, -1);
        AT(E, e);
        int32_t r;
        if (e->rk == R_LENGTH) {
            bool s = e->a->type == c->t_string;
            if (s || vt(E, tl_em_regtype(E, a))->kind != VM_T_ARRAY)
                a = tl_em_coerce(E, a, s ? p->vt_string : tl_em_vmtype(p, e->a->type));
            r = out_after(E, p->vt_int, dst, mark, a, -1);
            tl_em_op(E, s ? VM_OP_SLEN : VM_OP_ALEN, r, a, 0);
        } else {
            TlField *f = e->sym;
            a = tl_em_coerce(E, a, tl_em_vmtype(p, e->a->type));
            r = out_after(E, tl_em_vmtype(p, f->type), dst, mark, a, -1);
            tl_em_op(E, VM_OP_GETF, r, a, (int32_t)f->vm);
        }
        return fin(E, r, dst);
    }
    case E_CALL:
    case E_SUPER_CALL:
        return call(E, e, dst);
    default:
        return dst;
    }
}

int32_t tl_em_expr(TlEm *E, TlExpr *e, int32_t dst)
{
    AT(E, e);
    return expr_kind(E, e, dst);
}
