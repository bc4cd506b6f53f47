/* lang/emit.c — code generation: module layout, methods, statements.
 *
 * Input: a checked program without errors (TlCompiler after check*.c).
 * Output: TlCompiler.m, a VmModule the verifier accepts: types (components
 * before the types using them), classes with explicit vtables, fields
 * grouped by owner class, methods (functions, virtual and static methods,
 * `Class.init` as static methods with owner, interface and abstract
 * methods, lambdas `<encl>$lambdaN`, wrappers `f$fn`, adapters `$adaptN`,
 * bridges `Class.name$Iface` with their imap entries),
 * natives (built-ins declared on first use, externs), globals, `$init`.
 * Invariants: every method's code ends in an instruction that does not
 * fall through and every label is placed before the method is finished;
 * a local's register has exactly the erased type of the local, so
 * captures, parameters and assignments agree on types.
 */
#include "emit.h"

#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        abort();  /* malloc failure outside the GC heap: nothing sane left */
    return q;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s);
    char *d = xrealloc(NULL, n + 1);
    memcpy(d, s, n + 1);
    return d;
}

#define GROW(arr, n, cap)                                                   \
    do {                                                                    \
        if ((n) >= (cap)) {                                                 \
            (cap) = (cap) ? (cap) * 2 : 16;                                 \
            (arr) = xrealloc((arr), (size_t)(cap) * sizeof *(arr));         \
        }                                                                   \
    } while (0)

/* ---- module tables ------------------------------------------------------- */

static uint32_t add_type(TlEmProg *p, uint8_t kind, uint32_t ref, uint32_t ret, uint32_t *params, uint32_t n)
{
    VmType t = {.kind = kind, .ref = ref, .ret = ret, .nparams = n, .params = params};
    return vm_module_add_type(p->m, &t);
}

uint32_t tl_em_vmtype(TlEmProg *p, TlType *t)
{
    TlCompiler *c = p->c;
    t = tl_erase(c, t);
    if (t->vm)
        return t->vm - 1;
    uint32_t r;
    switch (t->kind) {
    case TY_VOID: r = p->vt_void; break;
    case TY_INT: r = p->vt_int; break;
    case TY_FLOAT: r = p->vt_float; break;
    case TY_BOOL: r = p->vt_bool; break;
    case TY_STRING: r = p->vt_string; break;
    case TY_CLASS:
        r = add_type(p, t->cls->is_iface ? VM_T_IFACE : VM_T_CLASS, t->cls->vm, 0, NULL, 0);
        break;
    case TY_ARRAY:
        r = add_type(p, VM_T_ARRAY, tl_em_vmtype(p, t->elem), 0, NULL, 0);
        break;
    case TY_FUNC: {
        uint32_t small[16];
        uint32_t *ps = t->nargs <= 16 ? small : xrealloc(NULL, t->nargs * sizeof *ps);
        for (uint32_t i = 0; i < t->nargs; i++)
            ps[i] = tl_em_vmtype(p, t->args[i]);
        uint32_t ret = tl_em_vmtype(p, t->ret);
        r = add_type(p, VM_T_FUNC, 0, ret, ps, t->nargs);
        if (ps != small)
            free(ps);
        break;
    }
    default:
        r = p->vt_object;
        break;
    }
    t->vm = r + 1;
    return r;
}

static uint64_t hash_bytes(const char *s, uint32_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h;
}

uint32_t tl_em_const(TlEmProg *p, const char *bytes, uint32_t len)
{
    VmModule *m = p->m;
    if ((m->nconsts + 1) * 2 > p->ccap) {
        size_t cap = p->ccap ? p->ccap * 2 : 64;
        uint32_t *tab = calloc(cap, sizeof *tab);
        if (!tab)
            abort();
        for (uint32_t i = 0; i < m->nconsts; i++) {
            size_t j = hash_bytes(m->consts[i].bytes, m->consts[i].len) & (cap - 1);
            while (tab[j])
                j = (j + 1) & (cap - 1);
            tab[j] = i + 1;
        }
        free(p->ctab);
        p->ctab = tab;
        p->ccap = cap;
    }
    size_t j = hash_bytes(bytes, len) & (p->ccap - 1);
    for (; p->ctab[j]; j = (j + 1) & (p->ccap - 1)) {
        VmConst *k = &m->consts[p->ctab[j] - 1];
        if (k->len == len && memcmp(k->bytes, bytes, len) == 0)
            return p->ctab[j] - 1;
    }
    if (m->nconsts >= p->capconsts) {
        p->capconsts = p->capconsts ? p->capconsts * 2 : 64;
        m->consts = xrealloc(m->consts, p->capconsts * sizeof *m->consts);
    }
    char *copy = xrealloc(NULL, len + 1);
    memcpy(copy, bytes, len);
    copy[len] = 0;
    m->consts[m->nconsts] = (VmConst){copy, len};
    p->ctab[j] = m->nconsts + 1;
    return m->nconsts++;
}

uint32_t tl_em_native(TlEmProg *p, const char *symbol, const char *lib, const uint32_t *params,
                      uint32_t nparams, uint32_t ret)
{
    TlCompiler *c = p->c;
    const char *key = tl_intern(c, symbol, strlen(symbol));
    uintptr_t have = (uintptr_t)tl_map_get(&p->natives, lib[0] ? (void *)1 : NULL, key);
    if (have)
        return (uint32_t)have - 1;
    VmModule *m = p->m;
    uint32_t idx = m->nnatives;
    m->natives = xrealloc(m->natives, (idx + 1) * sizeof *m->natives);
    VmNative *n = &m->natives[idx];
    memset(n, 0, sizeof *n);
    /* built-ins are named by symbol; a user extern of the same name keeps
     * its name, so the built-in gets a prefix */
    if (!lib[0] && tl_map_get(&c->globals, NULL, key)) {
        size_t len = strlen(symbol) + 9;
        n->name = xrealloc(NULL, len);
        snprintf(n->name, len, "builtin$%s", symbol);
    } else {
        n->name = xstrdup(symbol);
    }
    n->lib = xstrdup(lib);
    n->symbol = xstrdup(symbol);
    n->nparams = nparams;
    n->params = nparams ? xrealloc(NULL, nparams * sizeof *n->params) : NULL;
    if (nparams)
        memcpy(n->params, params, nparams * sizeof *params);
    n->ret = ret;
    m->nnatives++;
    tl_map_put(&p->natives, lib[0] ? (void *)1 : NULL, key, (void *)(uintptr_t)(idx + 1));
    return idx;
}

uint32_t tl_em_new_method(TlEmProg *p)
{
    VmModule *m = p->m;
    if (m->nmethods >= p->capmethods) {
        p->capmethods = p->capmethods ? p->capmethods * 2 : 64;
        m->methods = xrealloc(m->methods, p->capmethods * sizeof *m->methods);
    }
    memset(&m->methods[m->nmethods], 0, sizeof *m->methods);
    m->methods[m->nmethods].owner = VM_NONE;
    return m->nmethods++;
}

/* ---- per-method code ------------------------------------------------------ */

void tl_em_init(TlEm *E, TlEmProg *p, const char *name, TlFile *file)
{
    memset(E, 0, sizeof *E);
    E->p = p;
    E->c = p->c;
    E->name = name;
    E->file = file;
}

void tl_em_free(TlEm *E)
{
    free(E->code);
    free(E->lines);
    free(E->regs);
    free(E->busy);
    for (uint32_t i = 0; i < E->nfree; i++)
        free(E->free[i].regs);
    free(E->free);
    free(E->temps);
    free(E->labels);
    free(E->fix);
    free(E->loops);
    free(E->locals);
    free(E->capregs);
}

uint32_t tl_em_opk(TlEm *E, VmOp op, int32_t a, int32_t b, int32_t c, int64_t k)
{
    if (E->line && (E->nlines == 0 || E->lines[E->nlines - 1].line != E->line)) {
        if (E->nlines && E->lines[E->nlines - 1].pc == E->ncode) {
            E->lines[E->nlines - 1].line = E->line;
            if (E->nlines > 1 && E->lines[E->nlines - 2].line == E->line)
                E->nlines--;
        } else {
            GROW(E->lines, E->nlines, E->caplines);
            E->lines[E->nlines++] = (VmLine){E->ncode, E->line};
        }
    }
    GROW(E->code, E->ncode, E->capcode);
    VmInsn *in = &E->code[E->ncode];
    memset(in, 0, sizeof *in);
    in->op = op;
    in->a = a;
    in->b = b;
    in->c = c;
    in->k.i = k;
    return E->ncode++;
}

uint32_t tl_em_op(TlEm *E, VmOp op, int32_t a, int32_t b, int32_t c)
{
    return tl_em_opk(E, op, a, b, c, 0);
}

uint32_t tl_em_opf(TlEm *E, VmOp op, int32_t a, double f)
{
    uint32_t pc = tl_em_opk(E, op, a, 0, 0, 0);
    E->code[pc].k.f = f;
    return pc;
}

int32_t tl_em_label(TlEm *E)
{
    GROW(E->labels, E->nlabels, E->caplabels);
    E->labels[E->nlabels] = -1;
    return (int32_t)E->nlabels++;
}

void tl_em_place(TlEm *E, int32_t label)
{
    E->labels[label] = (int32_t)E->ncode;
}

/* Position of the `j` operand in the opcode's a/b/c slots. */
static int target_slot(VmOp op)
{
    const char *ops = vm_op_info[op].operands;
    int k = 0;
    for (const char *q = ops; *q; q++) {
        if (*q == 'i' || *q == 'f')
            continue;
        if (*q == 'j')
            return k;
        k++;
    }
    return -1;
}

void tl_em_jump(TlEm *E, VmOp op, int32_t a, int32_t b, int32_t label)
{
    int slot = target_slot(op);
    int32_t ops[3] = {a, b, 0};
    if (slot == 0) {
        ops[0] = label;
    } else if (slot == 1) {
        ops[1] = label;
    } else {
        ops[2] = label;
    }
    uint32_t pc = tl_em_op(E, op, ops[0], ops[1], ops[2]);
    GROW(E->fix, E->nfix, E->capfix);
    E->fix[E->nfix++] = pc;
}

bool tl_em_terminated(TlEm *E)
{
    if (!E->ncode)
        return false;
    uint32_t op = E->code[E->ncode - 1].op;
    if (op != VM_OP_JMP && op != VM_OP_RET && op != VM_OP_RETV)
        return false;
    /* a label placed here (an inner if's end, a loop's break) is reached
     * by a jump even though the last instruction does not fall through */
    for (uint32_t i = 0; i < E->nlabels; i++)
        if (E->labels[i] == (int32_t)E->ncode)
            return false;
    return true;
}

/* ---- registers ----------------------------------------------------------- */

uint32_t tl_em_regtype(TlEm *E, int32_t r)
{
    return E->regs[r];
}

bool tl_em_assignable(TlEm *E, uint32_t from, uint32_t to)
{
    return vm_type_assignable(E->p->m, from, to);
}

int32_t tl_em_new_reg(TlEm *E, uint32_t type)
{
    GROW(E->regs, E->nregs, E->capregs_);
    if (E->nregs >= E->capbusy) {
        E->capbusy = E->capregs_;
        E->busy = xrealloc(E->busy, E->capbusy);
    }
    E->regs[E->nregs] = type;
    E->busy[E->nregs] = 1;
    return (int32_t)E->nregs++;
}

static TlEmFree *free_list(TlEm *E, uint32_t type)
{
    if (type >= E->nfree) {
        uint32_t n = type + 16;
        E->free = xrealloc(E->free, n * sizeof *E->free);
        memset(E->free + E->nfree, 0, (n - E->nfree) * sizeof *E->free);
        E->nfree = n;
    }
    return &E->free[type];
}

int32_t tl_em_local_reg(TlEm *E, uint32_t type)
{
    TlEmFree *f = free_list(E, type);
    while (f->n) {
        int32_t r = f->regs[--f->n];
        if (!E->busy[r]) {
            E->busy[r] = 1;
            return r;
        }
    }
    return tl_em_new_reg(E, type);
}

/* Takes register r as a temporary if it is free and of exactly this type
 * (a dead operand becoming the result of the instruction reading it). */
bool tl_em_take(TlEm *E, int32_t r, uint32_t type)
{
    if (r < 0 || (uint32_t)r >= E->nregs || E->busy[r] || E->regs[r] != type)
        return false;
    /* its free-list entry goes stale: tl_em_local_reg skips busy entries */
    E->busy[r] = 1;
    GROW(E->temps, E->ntemps, E->captemps);
    E->temps[E->ntemps++] = r;
    return true;
}

int32_t tl_em_temp(TlEm *E, uint32_t type)
{
    int32_t r = tl_em_local_reg(E, type);
    GROW(E->temps, E->ntemps, E->captemps);
    E->temps[E->ntemps++] = r;
    return r;
}

void tl_em_release(TlEm *E, int32_t r)
{
    if (r < 0 || (uint32_t)r >= E->nregs || !E->busy[r])
        return;
    E->busy[r] = 0;
    TlEmFree *f = free_list(E, E->regs[r]);
    GROW(f->regs, f->n, f->cap);
    f->regs[f->n++] = r;
}

/* Consecutive temporaries of the given types (call arguments): reuses a
 * free run of matching registers near the top, else appends. */
int32_t tl_em_block(TlEm *E, const uint32_t *types, uint32_t n)
{
    int32_t base = -1;
    if (n == 0)
        return (int32_t)E->nregs;
    uint32_t lo = E->nregs > 64 + n ? E->nregs - 64 - n : 0;
    for (uint32_t s = lo; s + n <= E->nregs && base < 0; s++) {
        bool ok = true;
        for (uint32_t i = 0; i < n && ok; i++)
            ok = !E->busy[s + i] && E->regs[s + i] == types[i];
        if (ok)
            base = (int32_t)s;
    }
    if (base < 0) {
        /* extend a free tail that matches a prefix, or append */
        uint32_t k = n - 1 < E->nregs ? n - 1 : E->nregs;
        for (; k > 0; k--) {
            bool ok = true;
            for (uint32_t i = 0; i < k && ok; i++)
                ok = !E->busy[E->nregs - k + i] && E->regs[E->nregs - k + i] == types[i];
            if (ok)
                break;
        }
        base = (int32_t)(E->nregs - k);
        for (uint32_t i = 0; i < k; i++)
            E->busy[base + i] = 1;
        for (uint32_t i = k; i < n; i++)
            tl_em_new_reg(E, types[i]);
    } else {
        for (uint32_t i = 0; i < n; i++)
            E->busy[base + i] = 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        GROW(E->temps, E->ntemps, E->captemps);
        E->temps[E->ntemps++] = base + (int32_t)i;
    }
    return base;
}

static void release_temps(TlEm *E, uint32_t mark)
{
    while (E->ntemps > mark)
        tl_em_release(E, E->temps[--E->ntemps]);
}

static void bind_local(TlEm *E, TlLocal *l, int32_t r)
{
    l->reg = r;
    GROW(E->locals, E->nlocals, E->caplocals);
    E->locals[E->nlocals++] = l;
}

static void release_locals(TlEm *E, uint32_t mark)
{
    while (E->nlocals > mark) {
        TlLocal *l = E->locals[--E->nlocals];
        if (l->reg >= 0)
            tl_em_release(E, l->reg);
    }
}

/* Ends the method: a final return where control can reach the end, labels
 * resolved; writes code, registers and lines into method `index`. */
void tl_em_finish_method(TlEm *E, uint32_t index)
{
    if (!tl_em_terminated(E)) {
        if (E->vm_ret == E->p->vt_void) {
            tl_em_op(E, VM_OP_RETV, 0, 0, 0);
        } else {
            /* unreachable (the checker proved a return), but the verifier
             * wants no fall-through: return a zeroed register */
            int32_t r = tl_em_local_reg(E, E->vm_ret);
            tl_em_op(E, VM_OP_RET, r, 0, 0);
        }
    }
    for (uint32_t i = 0; i < E->nfix; i++) {
        VmInsn *in = &E->code[E->fix[i]];
        int slot = target_slot((VmOp)in->op);
        int32_t *t = slot == 0 ? &in->a : slot == 1 ? &in->b : &in->c;
        int32_t pc = E->labels[*t];
        *t = pc < 0 ? 0 : pc;
    }
    VmMethod *mm = &E->p->m->methods[index];
    mm->ncode = E->ncode;
    mm->code = E->code;
    mm->nlines = E->nlines;
    mm->lines = E->lines;
    mm->nregs = E->nregs;
    free(mm->regs);   /* the header's, parameters only */
    mm->regs = E->regs;
    mm->file = E->file ? E->file->index : 0;
    E->code = NULL;
    E->lines = NULL;
    E->regs = NULL;
}

/* ---- statements ---------------------------------------------------------- */

static void stmt(TlEm *E, TlStmt *s);

static void block(TlEm *E, TlStmt *s)
{
    uint32_t mark = E->nlocals;
    for (uint32_t i = 0; i < s->n; i++)
        stmt(E, s->stmts[i]);
    release_locals(E, mark);
}

static void assign(TlEm *E, TlStmt *s)
{
    TlExpr *t = s->e;
    TlCompiler *c = E->c;
    int op = s->op;
    int bop = 0;
    switch (op) {
    case TK_PLUS_ASSIGN: bop = TK_PLUS; break;
    case TK_MINUS_ASSIGN: bop = TK_MINUS; break;
    case TK_STAR_ASSIGN: bop = TK_STAR; break;
    case TK_SLASH_ASSIGN: bop = TK_SLASH; break;
    case TK_PERCENT_ASSIGN: bop = TK_PERCENT; break;
    case TK_AMP_ASSIGN: bop = TK_AMP; break;
    case TK_PIPE_ASSIGN: bop = TK_PIPE; break;
    case TK_CARET_ASSIGN: bop = TK_CARET; break;
    case TK_SHL_ASSIGN: bop = TK_SHL; break;
    case TK_SHR_ASSIGN: bop = TK_SHR; break;
    case TK_USHR_ASSIGN: bop = TK_USHR; break;
    default: break;
    }
    /* a compound assignment is `t = t op v` with t evaluated once */
    TlExpr bin = {.kind = E_BINARY, .op = (uint8_t)bop, .pos = s->pos, .a = t, .b = s->e2, .type = t->type,
                  .aux = -1};
    TlExpr *val = bop ? &bin : s->e2;
    if (t->kind == E_NAME && t->rk == R_LOCAL) {
        TlLocal *l = t->sym;
        tl_em_expr(E, val, l->reg);
        return;
    }
    if (t->kind == E_NAME && t->rk == R_GLOBAL) {
        TlGlobal *g = t->sym;
        uint32_t gt = tl_em_vmtype(E->p, g->type);
        int32_t r = tl_em_coerce(E, tl_em_expr(E, val, -1), gt);
        E->line = s->pos.line;
        tl_em_op(E, VM_OP_STG, (int32_t)g->vm, r, 0);
        return;
    }
    if (t->kind == E_INDEX) {
        uint32_t at = tl_em_vmtype(E->p, t->a->type);
        int32_t a = tl_em_coerce(E, tl_em_expr(E, t->a, -1), at);
        int32_t i = tl_em_expr(E, t->b, -1);
        TlType *et = t->a->type->elem;
        uint32_t evt = E->p->m->types[at].ref;
        int32_t v;
        VmOp get, put;
        uint8_t k = E->p->m->types[evt].kind;
        get = k == VM_T_INT ? VM_OP_AGETI : k == VM_T_FLOAT ? VM_OP_AGETF : k == VM_T_BOOL ? VM_OP_AGETB : VM_OP_AGETR;
        put = k == VM_T_INT ? VM_OP_APUTI : k == VM_T_FLOAT ? VM_OP_APUTF : k == VM_T_BOOL ? VM_OP_APUTB : VM_OP_APUTR;
        if (bop) {
            uint32_t mark = E->ntemps;   /* above a and i, still needed */
            int32_t old = tl_em_temp(E, evt);
            E->line = s->pos.line;
            tl_em_op(E, get, old, a, i);
            int32_t rhs = tl_em_expr(E, s->e2, -1);
            v = tl_em_binop_regs(E, bop, et, old, rhs, -1, mark);
        } else {
            v = tl_em_expr(E, s->e2, -1);
        }
        v = tl_em_coerce(E, v, evt);
        E->line = s->pos.line;
        tl_em_op(E, put, a, i, v);
        return;
    }
    if (t->kind == E_MEMBER && t->rk == R_FIELD) {
        TlField *f = t->sym;
        uint32_t ot = tl_em_vmtype(E->p, t->a->type);
        int32_t o = tl_em_coerce(E, tl_em_expr(E, t->a, -1), ot);
        uint32_t ft = tl_em_vmtype(E->p, f->type);
        int32_t v;
        if (bop) {
            uint32_t mark = E->ntemps;   /* above o, still needed */
            int32_t old = tl_em_temp(E, ft);
            E->line = s->pos.line;
            tl_em_op(E, VM_OP_GETF, old, o, (int32_t)f->vm);
            /* a generic field holds Object: operate on the declared type */
            int32_t oldc = tl_em_coerce(E, old, tl_em_vmtype(E->p, t->type));
            int32_t rhs = tl_em_expr(E, s->e2, -1);
            v = tl_em_binop_regs(E, bop, t->type, oldc, rhs, -1, mark);
        } else {
            v = tl_em_expr(E, s->e2, -1);
        }
        v = tl_em_coerce(E, v, ft);
        E->line = s->pos.line;
        tl_em_op(E, VM_OP_PUTF, o, (int32_t)f->vm, v);
        return;
    }
    (void)c;
}

static void loop_body(TlEm *E, TlStmt *body, int32_t brk, int32_t cont)
{
    GROW(E->loops, E->nloops, E->caploops);
    E->loops[E->nloops++] = (TlEmLoop){brk, cont};
    block(E, body);
    E->nloops--;
}

/* `for i in a..b`: the counter register is the variable; LOOP is the back
 * edge, guarded once before the first iteration. */
static void for_stmt(TlEm *E, TlStmt *s)
{
    uint32_t vi = E->p->vt_int;
    uint32_t mark = E->nlocals;
    int32_t ri = tl_em_local_reg(E, vi);
    tl_em_expr(E, s->e, ri);
    int32_t rend;
    TlExpr *b = s->e2;
    bool const_end = b->kind == E_INT;
    if (b->kind == E_NAME && b->rk == R_LOCAL) {
        TlLocal *l = b->sym;
        if (!l->mutable_ || l->loopvar || b->aux >= 0) {
            rend = tl_em_local_of(E, l, b->aux);
            goto have_end;
        }
    }
    rend = tl_em_local_reg(E, vi);
    tl_em_expr(E, b, rend);
    {
        /* registered as a local so it is released with the loop */
        TlLocal *hidden = tl_alloc(E->c, sizeof *hidden);
        hidden->reg = rend;
        GROW(E->locals, E->nlocals, E->caplocals);
        E->locals[E->nlocals++] = hidden;
    }
have_end:;
    int32_t top = tl_em_label(E), cont = tl_em_label(E), brk = tl_em_label(E);
    E->line = s->pos.line;
    bool skip_guard = const_end && s->e->kind == E_INT && s->e->ival < b->ival;
    if (!skip_guard) {
        if (const_end && b->ival >= INT32_MIN && b->ival <= INT32_MAX)
            tl_em_jump(E, VM_OP_JGES, ri, (int32_t)b->ival, brk);
        else if (s->e->kind == E_INT && s->e->ival >= INT32_MIN && s->e->ival <= INT32_MAX)
            tl_em_jump(E, VM_OP_JLES, rend, (int32_t)s->e->ival, brk);
        else
            tl_em_jump(E, VM_OP_JLE, rend, ri, brk);
    }
    tl_em_place(E, top);
    bind_local(E, s->local, ri);
    uint32_t inner = E->nlocals;
    loop_body(E, s->body, brk, cont);
    release_locals(E, inner);
    tl_em_place(E, cont);
    E->line = s->pos.line;
    tl_em_jump(E, VM_OP_LOOP, ri, rend, top);
    tl_em_place(E, brk);
    /* the loop variable's register stays busy until here */
    release_locals(E, mark);
    if (E->nlocals > mark)
        E->nlocals = mark;
    tl_em_release(E, ri);
}

/* Might the value of e be wider at run time than its static type says
 * (a use of a generic member whose declared type mentions a parameter)? */
static bool maybe_widened(TlExpr *e)
{
    for (int n = 0; n < 10000; n++) {
        if (e->kind == E_CALL && (e->rk == R_CALL_VIRTUAL || e->rk == R_CALL_IFACE || e->rk == R_CALL_SUPER))
            return tl_type_has_param(((TlMethod *)e->sym)->ret);
        if (e->kind == E_MEMBER && e->rk == R_FIELD)
            return tl_type_has_param(((TlField *)e->sym)->type);
        if ((e->kind == E_INDEX || (e->kind == E_CALL && e->rk == R_CALL_CLOSURE)) && e->a) {
            e = e->a;
            continue;
        }
        return false;
    }
    return false;
}

/* The label a body consisting of only `break;` or `continue;` jumps to
 * (possibly nested in plain blocks), else -1. */
static int32_t jump_only(TlEm *E, TlStmt *body)
{
    while (body && body->kind == S_BLOCK && body->n == 1)
        body = body->stmts[0];
    if (!body || !E->nloops)
        return -1;
    if (body->kind == S_BREAK)
        return E->loops[E->nloops - 1].brk;
    if (body->kind == S_CONTINUE)
        return E->loops[E->nloops - 1].cont;
    return -1;
}

static void stmt(TlEm *E, TlStmt *s)
{
    uint32_t tmark = E->ntemps;
    E->line = s->pos.line;
    switch ((TlStmtKind)s->kind) {
    case S_LET:
    case S_VAR: {
        uint32_t want = tl_em_vmtype(E->p, s->local->type);
        TlType *lt = s->local->type;
        if ((lt->kind == TY_ARRAY || lt->kind == TY_FUNC) && maybe_widened(s->e)) {
            /* a value read from a generic member (an Object, or a function
             * of erased type, at run time): the variable keeps the run-time
             * type and its uses cast or adapt it.  (An array of a type
             * parameter has an erased array type from the checker, whose
             * VM type is already the Object[] it is at run time.) */
            int32_t v = tl_em_expr(E, s->e, -1);
            uint32_t vt = tl_em_regtype(E, v);
            int32_t r = tl_em_local_reg(E, tl_em_assignable(E, vt, want) ? want : vt);
            tl_em_coerce_into(E, v, r);
            bind_local(E, s->local, r);
            break;
        }
        int32_t r = tl_em_local_reg(E, want);
        tl_em_expr(E, s->e, r);
        bind_local(E, s->local, r);
        break;
    }
    case S_ASSIGN:
        assign(E, s);
        break;
    case S_EXPR:
        tl_em_expr(E, s->e, -1);
        break;
    case S_IF: {
        int32_t end = tl_em_label(E);
        for (; s && s->kind == S_IF; s = s->els) {
            E->line = s->pos.line;
            int32_t target = jump_only(E, s->body);
            if (target >= 0) {
                /* `if c { break; }`: one conditional jump to the target */
                tl_em_cond(E, s->e, true, target);
                release_temps(E, tmark);
                continue;
            }
            int32_t next = tl_em_label(E);
            tl_em_cond(E, s->e, false, next);
            release_temps(E, tmark);
            block(E, s->body);
            if (s->els && !tl_em_terminated(E))
                tl_em_jump(E, VM_OP_JMP, 0, 0, end);
            tl_em_place(E, next);
        }
        if (s)
            block(E, s);
        tl_em_place(E, end);
        break;
    }
    case S_WHILE: {
        int32_t top = tl_em_label(E), cont = tl_em_label(E), brk = tl_em_label(E);
        bool forever = s->e->kind == E_BOOL && s->e->ival;
        if (!forever && !(s->e->kind == E_BOOL))
            tl_em_jump(E, VM_OP_JMP, 0, 0, cont);
        else if (!forever)
            tl_em_jump(E, VM_OP_JMP, 0, 0, brk);
        tl_em_place(E, top);
        loop_body(E, s->body, brk, forever ? top : cont);
        tl_em_place(E, cont);
        E->line = s->pos.line;
        if (forever)
            tl_em_jump(E, VM_OP_JMP, 0, 0, top);
        else if (s->e->kind != E_BOOL)
            tl_em_cond(E, s->e, true, top);
        tl_em_place(E, brk);
        break;
    }
    case S_FOR:
        for_stmt(E, s);
        break;
    case S_BREAK:
        tl_em_jump(E, VM_OP_JMP, 0, 0, E->loops[E->nloops - 1].brk);
        break;
    case S_CONTINUE:
        tl_em_jump(E, VM_OP_JMP, 0, 0, E->loops[E->nloops - 1].cont);
        break;
    case S_RETURN:
        if (s->e) {
            int32_t r = tl_em_coerce(E, tl_em_expr(E, s->e, -1), E->vm_ret);
            E->line = s->pos.line;
            tl_em_op(E, VM_OP_RET, r, 0, 0);
        } else {
            tl_em_op(E, VM_OP_RETV, 0, 0, 0);
        }
        break;
    case S_BLOCK:
        block(E, s);
        break;
    case S_ERROR:
        break;
    }
    release_temps(E, tmark);
}

/* ---- methods ------------------------------------------------------------- */

void tl_em_set_header(TlEmProg *p, uint32_t index, const char *name, uint32_t flags, uint32_t owner,
                       const uint32_t *params, uint32_t nparams, uint32_t ret)
{
    VmMethod *mm = &p->m->methods[index];
    mm->name = xstrdup(name);
    mm->flags = flags;
    mm->owner = owner;
    mm->nparams = nparams;
    mm->ret = ret;
    mm->nregs = nparams;
    mm->regs = nparams ? xrealloc(NULL, nparams * sizeof *mm->regs) : NULL;
    if (nparams)
        memcpy(mm->regs, params, nparams * sizeof *params);
}

/* The VM parameter types of a method: receiver (if any), erased params. */
static uint32_t *vm_params(TlEmProg *p, TlMethod *m, bool receiver, uint32_t *n)
{
    uint32_t k = receiver ? 1 : 0;
    *n = m->nparams + k;
    uint32_t *ps = xrealloc(NULL, (*n ? *n : 1) * sizeof *ps);
    if (receiver)
        ps[0] = tl_em_vmtype(p, m->owner->self_type);
    for (uint32_t i = 0; i < m->nparams; i++)
        ps[i + k] = tl_em_vmtype(p, m->eparams ? m->eparams[i] : m->params[i]);
    return ps;
}

static const char *method_name(TlCompiler *c, TlMethod *m)
{
    if (!m->owner)
        return m->name;
    size_t n = strlen(m->owner->name) + strlen(m->name) + 2;
    char *s = tl_alloc(c, n);
    snprintf(s, n, "%s.%s", m->owner->name, m->name);
    return s;
}

static void emit_method(TlEmProg *p, TlMethod *m)
{
    TlCompiler *c = p->c;
    TlEm E;
    tl_em_init(&E, p, method_name(c, m), m->file);
    VmMethod *mm = &p->m->methods[m->vm];
    for (uint32_t i = 0; i < mm->nparams; i++)
        tl_em_new_reg(&E, mm->regs[i]);
    E.ret = m->ret;
    E.vm_ret = mm->ret;
    E.line = m->pos.line;
    bool receiver = m->kind == M_VIRTUAL || m->kind == M_INIT;
    uint32_t k = receiver ? 1 : 0;
    TlFunc *fn = m->fn;
    if (m->self)
        m->self->reg = 0;   /* the receiver; lambdas capture it from here */
    for (uint32_t i = 0; i < fn->nparams; i++) {
        TlLocal *l = fn->params[i].local;
        if (!l)
            continue;
        uint32_t want = tl_em_vmtype(p, l->type);
        int32_t r = (int32_t)(i + k);
        if (want != E.regs[r]) {
            /* the VM signature is an inherited erasure: convert on entry */
            int32_t nr = tl_em_new_reg(&E, want);
            tl_em_coerce_into(&E, r, nr);
            r = nr;
        }
        l->reg = r;
    }
    block(&E, fn->body);
    tl_em_finish_method(&E, m->vm);
    tl_em_free(&E);
}

/* A bridge (check.c add_bridge): the interface method's erased signature;
 * converts the arguments to the erasure of the method it stands for, calls
 * that method virtually on the receiver (so overrides in subclasses run),
 * converts the result back. */
static void emit_bridge(TlEmProg *p, TlMethod *b)
{
    TlCompiler *c = p->c;
    TlEm E;
    tl_em_init(&E, p, method_name(c, b), b->file);
    const VmMethod *bm = &p->m->methods[b->vm];
    uint32_t n = bm->nparams;
    for (uint32_t i = 0; i < n; i++)
        tl_em_new_reg(&E, bm->regs[i]);
    E.ret = b->ret;
    E.vm_ret = bm->ret;
    E.line = b->pos.line;
    /* copied: adapters made while converting may move the method table */
    const VmMethod *tm = &p->m->methods[b->bridge_to->vm];
    uint32_t tret = tm->ret;
    uint32_t *tps = xrealloc(NULL, (n ? n : 1) * sizeof *tps);
    if (tm->nparams == n && n)
        memcpy(tps, tm->regs, n * sizeof *tps);
    int32_t base = tl_em_block(&E, tps, n);
    for (uint32_t i = 0; i < n; i++)
        tl_em_coerce_into(&E, (int32_t)i, base + (int32_t)i);
    free(tps);
    if (tret == p->vt_void) {
        tl_em_op(&E, VM_OP_CALLV, -1, base, (int32_t)b->bridge_to->vm);
        tl_em_op(&E, VM_OP_RETV, 0, 0, 0);
    } else {
        int32_t d = tl_em_temp(&E, tret);
        tl_em_op(&E, VM_OP_CALLV, d, base, (int32_t)b->bridge_to->vm);
        tl_em_op(&E, VM_OP_RET, tl_em_coerce(&E, d, E.vm_ret), 0, 0);
    }
    tl_em_finish_method(&E, b->vm);
    tl_em_free(&E);
}

void tl_em_emit_lambda_body(TlEm *E, TlLambda *lam, uint32_t index)
{
    TlEmProg *p = E->p;
    VmMethod *mm = &p->m->methods[index];
    for (uint32_t i = 0; i < mm->nparams; i++)
        tl_em_new_reg(E, mm->regs[i]);
    E->lambda = lam;
    E->ret = lam->type->ret;
    E->vm_ret = mm->ret;
    E->line = lam->fn.pos.line;
    E->capregs = xrealloc(NULL, (lam->ncaps ? lam->ncaps : 1) * sizeof *E->capregs);
    for (uint32_t i = 0; i < lam->ncaps; i++) {
        E->capregs[i] = tl_em_new_reg(E, mm->caps[i]);
        tl_em_op(E, VM_OP_LDCAP, E->capregs[i], (int32_t)i, 0);
    }
    for (uint32_t i = 0; i < lam->fn.nparams; i++)
        lam->fn.params[i].local->reg = (int32_t)i + 1;
    block(E, lam->fn.body);
    tl_em_finish_method(E, index);
}

/* ---- program ------------------------------------------------------------- */

static char *stem(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 3 && strcmp(b + n - 3, ".tl") == 0)
        n -= 3;
    char *s = xrealloc(NULL, n + 1);
    memcpy(s, b, n);
    s[n] = 0;
    return s;
}

static void layout_classes(TlEmProg *p)
{
    TlCompiler *c = p->c;
    VmModule *m = p->m;
    m->nclasses = c->nclasses;
    m->classes = xrealloc(NULL, (c->nclasses ? c->nclasses : 1) * sizeof *m->classes);
    memset(m->classes, 0, (c->nclasses ? c->nclasses : 1) * sizeof *m->classes);
    for (uint32_t i = 0; i < c->nclasses; i++)
        c->classes[i]->vm = i;
    uint32_t nfields = 0;
    for (uint32_t i = 0; i < c->nclasses; i++) {
        TlClass *k = c->classes[i];
        VmClass *vc = &m->classes[i];
        vc->name = xstrdup(k->name);
        vc->flags = (k->is_iface ? VM_C_INTERFACE : 0) | (k->is_abstract ? VM_C_ABSTRACT : 0);
        vc->super = k->super ? k->super->cls->vm : VM_NONE;
        vc->nifaces = k->nifaces;
        vc->ifaces = k->nifaces ? xrealloc(NULL, k->nifaces * sizeof *vc->ifaces) : NULL;
        for (uint32_t j = 0; j < k->nifaces; j++)
            vc->ifaces[j] = k->ifaces[j]->cls->vm;
        nfields += k->nfields;
    }
    m->fields = xrealloc(NULL, (nfields ? nfields : 1) * sizeof *m->fields);
    for (uint32_t i = 0; i < c->nclasses; i++) {
        TlClass *k = c->classes[i];
        for (uint32_t j = 0; j < k->nfields; j++) {
            TlField *f = k->fields[j];
            VmField *vf = &m->fields[m->nfields];
            memset(vf, 0, sizeof *vf);
            vf->name = xstrdup(f->name);
            vf->owner = i;
            vf->type = tl_em_vmtype(p, f->type);
            f->vm = m->nfields++;
        }
    }
}

static void declare_method(TlEmProg *p, TlMethod *m)
{
    TlCompiler *c = p->c;
    uint32_t n;
    if (m->kind == M_EXTERN) {
        uint32_t *ps = vm_params(p, m, false, &n);
        m->vm = tl_em_native(p, m->name, m->fn->lib, ps, n, tl_em_vmtype(p, m->ret));
        free(ps);
        return;
    }
    bool receiver = m->kind == M_VIRTUAL || m->kind == M_IFACE || m->kind == M_INIT;
    uint32_t *ps = vm_params(p, m, receiver, &n);
    uint32_t flags = 0;
    if (m->kind == M_FUNC || m->kind == M_STATIC || m->kind == M_INIT)
        flags |= VM_M_STATIC;
    if (m->is_abstract)
        flags |= VM_M_ABSTRACT;
    m->vm = tl_em_new_method(p);
    uint32_t ret = tl_em_vmtype(p, m->eret ? m->eret : m->ret);
    tl_em_set_header(p, m->vm, method_name(c, m), flags, m->owner ? m->owner->vm : VM_NONE, ps, n, ret);
    free(ps);
}

static void emit_init(TlEmProg *p)
{
    TlCompiler *c = p->c;
    if (!c->ngvars)
        return;
    /* one initializer method per file (so traces name the right file);
     * `$init` runs those of the imports, then the main file's */
    uint32_t *per_file = calloc(c->nfiles + 1, sizeof *per_file);
    if (!per_file)
        abort();
    for (uint32_t fi = 0; fi < c->norder; fi++) {
        TlFile *f = c->order[fi];
        bool any = false;
        for (uint32_t i = 0; i < c->ngvars; i++)
            any |= c->gvars[i]->file == f;
        if (!any && f->index != 0)
            continue;
        char name[32];
        if (f->index == 0)
            snprintf(name, sizeof name, "$init");
        else
            snprintf(name, sizeof name, "$init$%u", f->index);
        uint32_t idx = tl_em_new_method(p);
        tl_em_set_header(p, idx, name, VM_M_STATIC, VM_NONE, NULL, 0, p->vt_void);
        TlEm E;
        tl_em_init(&E, p, p->m->methods[idx].name, f);
        E.ret = c->t_void;
        E.vm_ret = p->vt_void;
        if (f->index == 0) {
            p->m->init = idx;
            /* the imports' initializers, in initialization order */
            for (uint32_t k = 0; k < c->norder; k++) {
                uint32_t fi2 = c->order[k]->index;
                if (per_file[fi2]) {
                    E.line = 1;
                    tl_em_op(&E, VM_OP_CALL, -1, 0, (int32_t)(per_file[fi2] - 1));
                }
            }
        } else {
            per_file[f->index] = idx + 1;
        }
        for (uint32_t i = 0; i < c->ngvars; i++) {
            TlGlobal *g = c->gvars[i];
            if (g->file != f)
                continue;
            uint32_t mark = E.ntemps;
            E.line = g->pos.line;
            int32_t r = tl_em_coerce(&E, tl_em_expr(&E, g->decl->init, -1), tl_em_vmtype(p, g->type));
            E.line = g->pos.line;
            tl_em_op(&E, VM_OP_STG, (int32_t)g->vm, r, 0);
            release_temps(&E, mark);
        }
        tl_em_finish_method(&E, idx);
        tl_em_free(&E);
    }
    free(per_file);
}

bool tl_emit_program(TlCompiler *c, const char *main_path)
{
    TlEmProg P = {.c = c};
    TlEmProg *p = &P;
    VmModule *m = vm_module_new();
    p->m = m;
    c->m = m;
    m->name = stem(main_path);
    m->source = xstrdup(main_path);
    if (c->nfiles > 1) {
        m->nfiles = c->nfiles - 1;
        m->files = xrealloc(NULL, m->nfiles * sizeof *m->files);
        for (uint32_t i = 1; i < c->nfiles; i++)
            m->files[i - 1] = xstrdup(c->files[i]->path);
    }
    p->vt_void = add_type(p, VM_T_VOID, 0, 0, NULL, 0);
    p->vt_int = add_type(p, VM_T_INT, 0, 0, NULL, 0);
    p->vt_float = add_type(p, VM_T_FLOAT, 0, 0, NULL, 0);
    p->vt_bool = add_type(p, VM_T_BOOL, 0, 0, NULL, 0);
    p->vt_string = add_type(p, VM_T_STRING, 0, 0, NULL, 0);
    p->vt_object = add_type(p, VM_T_OBJECT, 0, 0, NULL, 0);
    layout_classes(p);
    for (uint32_t i = 0; i < c->nfuncs; i++)
        declare_method(p, c->funcs[i]);
    for (uint32_t i = 0; i < c->nclasses; i++) {
        TlClass *k = c->classes[i];
        if (k->init)
            declare_method(p, k->init);
        for (uint32_t j = 0; j < k->nmethods; j++)
            declare_method(p, k->methods[j]);
        for (uint32_t j = 0; j < k->nbridges; j++)
            declare_method(p, k->bridges[j]);
    }
    for (uint32_t i = 0; i < c->nclasses; i++) {
        TlClass *k = c->classes[i];
        VmClass *vc = &m->classes[i];
        vc->nvtable = k->nvtable;
        vc->vtable = k->nvtable ? xrealloc(NULL, k->nvtable * sizeof *vc->vtable) : NULL;
        for (uint32_t j = 0; j < k->nvtable; j++)
            vc->vtable[j] = k->vtable[j]->vm;
        /* each bridge binds its interface method (the short-name rule
         * would find the erased method) */
        vc->nimap = k->nbridges;
        vc->imap = k->nbridges ? xrealloc(NULL, 2 * k->nbridges * sizeof *vc->imap) : NULL;
        for (uint32_t j = 0; j < k->nbridges; j++) {
            vc->imap[2 * j] = k->bridges[j]->bridge_for->vm;
            vc->imap[2 * j + 1] = k->bridges[j]->vm;
        }
    }
    m->nglobals = c->ngvars;
    m->globals = xrealloc(NULL, (c->ngvars ? c->ngvars : 1) * sizeof *m->globals);
    for (uint32_t i = 0; i < c->ngvars; i++) {
        TlGlobal *g = c->gvars[i];
        g->vm = i;
        m->globals[i].name = xstrdup(g->name);
        m->globals[i].type = tl_em_vmtype(p, g->type);
    }
    if (c->main)
        m->main = c->main->vm;
    for (uint32_t i = 0; i < c->nfuncs; i++)
        if (c->funcs[i]->kind == M_FUNC)
            emit_method(p, c->funcs[i]);
    for (uint32_t i = 0; i < c->nclasses; i++) {
        TlClass *k = c->classes[i];
        if (k->init)
            emit_method(p, k->init);
        for (uint32_t j = 0; j < k->nmethods; j++)
            if (!k->methods[j]->is_abstract)
                emit_method(p, k->methods[j]);
        for (uint32_t j = 0; j < k->nbridges; j++)
            emit_bridge(p, k->bridges[j]);
    }
    emit_init(p);
    free(p->ctab);
    tl_map_free(&p->natives);
    tl_map_free(&p->adapters);
    return true;
}
