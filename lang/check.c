/* lang/check.c — name resolution and checking of declarations: top-level
 * names, type expressions, class headers and hierarchies, members,
 * overriding, vtables, interface implementation, erased signatures.
 *
 * Input: the parsed files of a program, possibly with syntax errors (then
 * with placeholder names "?" and error nodes, which are skipped or checked
 * as the silent error type: no follow-on messages).  Output: the
 * semantic entities (TlClass, TlMethod, TlField, TlGlobal) registered in
 * TlCompiler, errors reported; then check_body.c checks the code.
 * Invariants after tl_check_program: hierarchies are acyclic (edges that
 * closed a cycle were cut after reporting); every class's vtable lists its
 * superclass's slots first, an override in its base's slot; each virtual
 * or interface method has an erased signature (eparams/eret) equal to the
 * one of the method it overrides, and to the interface method it
 * implements unless a bridge (TlClass.bridges, bound by an imap entry)
 * stands in between, so the VM's verifier accepts the vtables and itables
 * the emitter builds from them.
 */
#include "ast.h"

#include <string.h>

static const char *const builtin_names[] = {"print", "println", "str", "float", "int", "chr",
                                            "sqrt", "exit", "clock", "args", "assert"};

/* ---- top-level names ----------------------------------------------------- */

static bool is_builtin(const char *name)
{
    for (size_t i = 0; i < sizeof builtin_names / sizeof *builtin_names; i++)
        if (strcmp(name, builtin_names[i]) == 0)
            return true;
    return false;
}

/* The parser's stand-in for a name it could not read (reported then). */
static bool is_placeholder(const char *name)
{
    return !name || (name[0] == '?' && !name[1]);
}

static TlSym *declare(TlCompiler *c, const char *name, TlPos pos, TlSymKind kind, void *p)
{
    if (is_placeholder(name))
        return NULL;
    if (is_builtin(name)) {
        tl_error(c, pos, TL_D_BUILTIN_NAME, name);
        return NULL;
    }
    TlSym *old = tl_map_get(&c->globals, NULL, name);
    if (old) {
        tl_error(c, pos, TL_D_DUPLICATE, name, tl_pos_str(c, old->pos));
        return NULL;
    }
    TlSym *s = tl_alloc(c, sizeof *s);
    s->kind = (uint8_t)kind;
    s->pos = pos;
    s->p = p;
    tl_map_put(&c->globals, NULL, name, s);
    return s;
}

static bool reserved_type_name(TlCompiler *c, const char *name)
{
    static const char *const r[] = {"int", "float", "bool", "string", "Object", "void"};
    for (size_t i = 0; i < sizeof r / sizeof *r; i++)
        if (strcmp(name, r[i]) == 0)
            return true;
    (void)c;
    return false;
}

static TlMethod *new_method(TlCompiler *c, TlFunc *fn, TlClass *owner, TlFile *file)
{
    TlMethod *m = tl_alloc(c, sizeof *m);
    m->name = fn->name;
    m->pos = fn->pos;
    m->fn = fn;
    m->owner = owner;
    m->file = file;
    m->slot = -1;
    fn->m = m;
    return m;
}

static void declare_all(TlCompiler *c)
{
    for (uint32_t fi = 0; fi < c->norder; fi++) {
        TlFile *f = c->order[fi];
        for (uint32_t i = 0; i < f->ndecls; i++) {
            TlDecl *d = f->decls[i];
            switch (d->kind) {
            case D_CLASS: {
                TlClass *k = tl_alloc(c, sizeof *k);
                k->name = d->name;
                k->pos = d->pos;
                k->decl = d;
                k->file = f;
                k->is_iface = d->is_iface;
                k->is_abstract = d->is_abstract;
                d->cls = k;
                *TL_PUSH(c, c->classes, c->nclasses, c->capclasses) = k;
                if (reserved_type_name(c, d->name))
                    tl_error(c, d->pos, TL_D_RESERVED_NAME, d->name);
                else
                    declare(c, d->name, d->pos, SYM_CLASS, k);
                break;
            }
            case D_FUNC:
            case D_EXTERN: {
                if (!d->fn)
                    break;
                TlMethod *m = new_method(c, d->fn, NULL, f);
                m->kind = d->kind == D_FUNC ? M_FUNC : M_EXTERN;
                *TL_PUSH(c, c->funcs, c->nfuncs, c->capfuncs) = m;
                declare(c, d->name, d->pos, SYM_FUNC, m);
                break;
            }
            case D_GLOBAL: {
                TlGlobal *g = tl_alloc(c, sizeof *g);
                g->name = d->name;
                g->pos = d->pos;
                g->decl = d;
                g->file = f;
                g->mutable_ = d->mutable_;
                d->global = g;
                *TL_PUSH(c, c->gvars, c->ngvars, c->capgvars) = g;
                declare(c, d->name, d->pos, SYM_GLOBAL, g);
                break;
            }
            default:
                break;
            }
        }
    }
}

/* ---- type expressions ---------------------------------------------------- */

static TlType *undefined_type(TlCompiler *c, TlTypeExpr *te)
{
    /* one report per name: later uses get the silent error type */
    static const char tag = 't';
    if (!tl_map_get(&c->undefined, &tag, te->name)) {
        tl_map_put(&c->undefined, &tag, te->name, (void *)1);
        tl_error(c, te->pos, TL_D_UNKNOWN_TYPE, te->name);
    }
    return c->t_error;
}

TlType *tl_resolve_type(TlCompiler *c, TlTypeExpr *te, TlClass *scope, bool in_static)
{
    /* the parser always gives a type node (named "?" after an error), but
     * a missing one is the silent error type all the same */
    if (!te || (te->kind == TE_NAME && !te->name) || (te->kind == TE_ARRAY && !te->elem))
        return c->t_error;
    switch (te->kind) {
    case TE_ARRAY:
        return tl_type_array(c, tl_resolve_type(c, te->elem, scope, in_static));
    case TE_FUNC: {
        TlType **ps = te->nargs ? tl_alloc(c, te->nargs * sizeof *ps) : NULL;
        bool bad = false;
        for (uint32_t i = 0; i < te->nargs; i++) {
            ps[i] = tl_resolve_type(c, te->args[i], scope, in_static);
            bad |= ps[i]->kind == TY_ERROR;
        }
        TlType *r = te->elem ? tl_resolve_type(c, te->elem, scope, in_static) : c->t_void;
        if (bad || r->kind == TY_ERROR)
            return c->t_error;
        return tl_type_func(c, ps, te->nargs, r);
    }
    default:
        break;
    }
    const char *n = te->name;
    TlType *basic = NULL;
    if (!strcmp(n, "int"))
        basic = c->t_int;
    else if (!strcmp(n, "float"))
        basic = c->t_float;
    else if (!strcmp(n, "bool"))
        basic = c->t_bool;
    else if (!strcmp(n, "string"))
        basic = c->t_string;
    else if (!strcmp(n, "Object"))
        basic = c->t_object;
    else if (!strcmp(n, "?"))
        return c->t_error;
    if (!basic && scope) {
        for (uint32_t i = 0; i < scope->ntparams; i++)
            if (scope->tparams[i]->name == n) {
                basic = scope->tparams[i];
                if (in_static) {
                    tl_error(c, te->pos, TL_D_TYPE_PARAM_STATIC, n);
                    return c->t_error;
                }
            }
    }
    if (basic) {
        if (te->nargs) {
            tl_error(c, te->pos, TL_D_NOT_GENERIC, n);
            return c->t_error;
        }
        return basic;
    }
    TlSym *s = tl_map_get(&c->globals, NULL, n);
    if (!s)
        return undefined_type(c, te);
    if (s->kind != SYM_CLASS) {
        tl_error(c, te->pos, TL_D_NOT_A_TYPE, n);
        return c->t_error;
    }
    TlClass *k = s->p;
    if (k->ntparams && !te->nargs) {
        tl_error(c, te->pos, TL_D_GENERIC_NEEDS_ARGS, n);
        return c->t_error;
    }
    if (!k->ntparams && te->nargs) {
        tl_error(c, te->pos, TL_D_NOT_GENERIC, n);
        return c->t_error;
    }
    if (k->ntparams != te->nargs) {
        tl_error(c, te->pos, TL_D_TYPE_ARG_COUNT, n, (int)k->ntparams, (int)te->nargs);
        return c->t_error;
    }
    TlType **args = te->nargs ? tl_alloc(c, te->nargs * sizeof *args) : NULL;
    bool bad = false;
    for (uint32_t i = 0; i < te->nargs; i++) {
        args[i] = tl_resolve_type(c, te->args[i], scope, in_static);
        if (args[i]->kind == TY_ERROR)
            bad = true;
        else if (!tl_type_is_ref(args[i])) {
            tl_error(c, te->args[i]->pos, TL_D_TYPE_ARG_NOT_REF, tl_type_str(c, args[i]));
            bad = true;
        }
    }
    return bad ? c->t_error : tl_type_class(c, k, args, te->nargs);
}

/* ---- class headers ------------------------------------------------------- */

static void resolve_headers(TlCompiler *c)
{
    for (uint32_t i = 0; i < c->nclasses; i++) {
        TlClass *k = c->classes[i];
        TlDecl *d = k->decl;
        k->ntparams = d->ntparams;
        k->tparams = d->ntparams ? tl_alloc(c, d->ntparams * sizeof *k->tparams) : NULL;
        for (uint32_t j = 0; j < d->ntparams; j++) {
            for (uint32_t q = 0; q < j; q++)
                if (d->tparams[q] == d->tparams[j])
                    tl_error(c, d->tparam_pos[j], TL_D_DUP_TYPE_PARAM, d->tparams[j]);
            k->tparams[j] = tl_type_param(c, k, j, d->tparams[j]);
        }
        k->self_type = tl_type_class(c, k, k->tparams, k->ntparams);
    }
    for (uint32_t i = 0; i < c->nclasses; i++) {
        TlClass *k = c->classes[i];
        TlDecl *d = k->decl;
        if (d->super) {
            TlType *s = tl_resolve_type(c, d->super, k, false);
            if (s->kind == TY_CLASS && !s->cls->is_iface)
                k->super = s;
            else if (s->kind != TY_ERROR)
                tl_error(c, d->super->pos, TL_D_EXTENDS_NOT_CLASS, tl_type_str(c, s));
        }
        k->ifaces = d->nifaces ? tl_alloc(c, d->nifaces * sizeof *k->ifaces) : NULL;
        for (uint32_t j = 0; j < d->nifaces; j++) {
            TlType *s = tl_resolve_type(c, d->ifaces[j], k, false);
            if (s->kind == TY_ERROR)
                continue;
            if (s->kind != TY_CLASS || !s->cls->is_iface) {
                tl_error(c, d->ifaces[j]->pos, TL_D_IMPLEMENTS_NOT_IFACE, tl_type_str(c, s));
                continue;
            }
            bool dup = false;
            for (uint32_t q = 0; q < k->nifaces; q++)
                dup |= k->ifaces[q]->cls == s->cls;
            if (dup) {
                tl_error(c, d->ifaces[j]->pos, TL_D_DUP_IFACE, s->cls->name);
                continue;
            }
            k->ifaces[k->nifaces++] = s;
        }
    }
}

/* Depth-first search for cycles through superclass and interface edges;
 * the edge that closes a cycle is reported and removed. */
static void break_cycles(TlCompiler *c, TlClass *k)
{
    k->state = 1;
    if (k->super) {
        TlClass *s = k->super->cls;
        if (s->state == 1) {
            tl_error(c, s->pos, TL_D_CYCLIC_INHERITANCE, s->name);
            k->super = NULL;
        } else if (s->state == 0) {
            break_cycles(c, s);
        }
    }
    for (uint32_t j = 0; j < k->nifaces; j++) {
        TlClass *s = k->ifaces[j]->cls;
        if (s->state == 1) {
            tl_error(c, s->pos, TL_D_CYCLIC_INHERITANCE, s->name);
            k->ifaces[j--] = k->ifaces[--k->nifaces];
        } else if (s->state == 0) {
            break_cycles(c, s);
        }
    }
    k->state = 2;
}

/* ---- members ------------------------------------------------------------- */

void *tl_class_member(TlCompiler *c, TlClass *cls, const char *name, bool *is_field)
{
    void *kind = tl_map_get(&c->member_kind, cls, name);
    if (!kind)
        return NULL;
    if (is_field)
        *is_field = kind == (void *)1;
    return tl_map_get(&c->members, cls, name);
}

static bool add_member(TlCompiler *c, TlClass *k, const char *name, TlPos pos, void *p, bool field)
{
    if (is_placeholder(name))
        return false;
    if (tl_map_get(&c->member_kind, k, name)) {
        tl_error(c, pos, TL_D_DUP_MEMBER, name, k->name);
        return false;
    }
    tl_map_put(&c->member_kind, k, name, (void *)(uintptr_t)(field ? 1 : 2));
    tl_map_put(&c->members, k, name, p);
    return true;
}

static void resolve_signature(TlCompiler *c, TlMethod *m, TlClass *scope, bool in_static)
{
    TlFunc *fn = m->fn;
    m->nparams = fn->nparams;
    m->params = fn->nparams ? tl_alloc(c, fn->nparams * sizeof *m->params) : NULL;
    for (uint32_t i = 0; i < fn->nparams; i++) {
        m->params[i] = tl_resolve_type(c, fn->params[i].texpr, scope, in_static);
        for (uint32_t j = 0; j < i; j++)
            if (fn->params[j].name == fn->params[i].name)
                tl_error(c, fn->params[i].pos, TL_D_DUP_LOCAL, fn->params[i].name);
    }
    m->ret = fn->ret ? tl_resolve_type(c, fn->ret, scope, in_static) : c->t_void;
    m->ftype = tl_type_func(c, m->params, m->nparams, m->ret);
}

static void resolve_members(TlCompiler *c, TlClass *k)
{
    TlDecl *d = k->decl;
    uint32_t capf = 0, capm = 0;
    for (uint32_t i = 0; i < d->nfields; i++) {
        TlFieldDecl *fd = &d->fields[i];
        TlField *f = tl_alloc(c, sizeof *f);
        f->name = fd->name;
        f->pos = fd->pos;
        f->owner = k;
        f->type = tl_resolve_type(c, fd->texpr, k, false);
        if (add_member(c, k, f->name, f->pos, f, true))
            *TL_PUSH(c, k->fields, k->nfields, capf) = f;
    }
    for (uint32_t i = 0; i < d->nmethods; i++) {
        TlFunc *fn = d->methods[i];
        if (!fn)
            continue;
        TlMethod *m = new_method(c, fn, k, k->file);
        m->is_abstract = fn->is_abstract || k->is_iface;
        if (fn->is_init) {
            m->kind = M_INIT;
            resolve_signature(c, m, k, false);
            if (k->init)
                tl_error(c, fn->pos, TL_D_DUP_INIT, k->name);
            else
                k->init = m;
            continue;
        }
        m->kind = k->is_iface ? M_IFACE : fn->is_static ? M_STATIC : M_VIRTUAL;
        resolve_signature(c, m, k, fn->is_static);
        if (add_member(c, k, m->name, m->pos, m, false))
            *TL_PUSH(c, k->methods, k->nmethods, capm) = m;
    }
}

/* ---- hierarchy checks ---------------------------------------------------- */

static bool same_sig(TlMethod *m, TlType **params, TlType *ret)
{
    if (m->ret != ret)
        return false;
    for (uint32_t i = 0; i < m->nparams; i++)
        if (m->params[i] != params[i])
            return false;
    return true;
}

/* The signature of method b (declared in the class of `owner_type`) as
 * seen through owner_type's type arguments. */
static void subst_sig(TlCompiler *c, TlMethod *b, TlType *owner_type, TlType ***params, TlType **ret)
{
    TlType **ps = b->nparams ? tl_alloc(c, b->nparams * sizeof *ps) : NULL;
    for (uint32_t i = 0; i < b->nparams; i++)
        ps[i] = tl_subst(c, b->params[i], b->owner, owner_type->args);
    *params = ps;
    *ret = tl_subst(c, b->ret, b->owner, owner_type->args);
}

/* Finds `name` in the superclass chain of k (not k itself). */
static void *super_member(TlCompiler *c, TlClass *k, const char *name, bool *is_field, TlType **where)
{
    TlType *t = k->super;
    for (uint32_t steps = 0; t && steps <= c->nclasses; steps++) {
        void *p = tl_class_member(c, t->cls, name, is_field);
        if (p) {
            *where = t;
            return p;
        }
        TlClass *s = t->cls;
        t = s->super ? tl_subst(c, s->super, s, t->args) : NULL;
    }
    return NULL;
}

static void erase_sig(TlCompiler *c, TlMethod *m)
{
    m->eparams = m->nparams ? tl_alloc(c, m->nparams * sizeof *m->eparams) : NULL;
    for (uint32_t i = 0; i < m->nparams; i++)
        m->eparams[i] = tl_erase(c, m->params[i]);
    m->eret = tl_erase(c, m->ret);
}

static bool same_erased(TlMethod *a, TlMethod *b)
{
    if (a->nparams != b->nparams || a->eret != b->eret)
        return false;
    for (uint32_t i = 0; i < a->nparams; i++)
        if (a->eparams[i] != b->eparams[i])
            return false;
    return true;
}

static const char *qual(TlCompiler *c, TlMethod *m)
{
    /* names may be missing after a syntax error (already reported) */
    const char *owner = m->owner && m->owner->name ? m->owner->name : "";
    const char *name = m->name ? m->name : "?";
    size_t n = strlen(owner) + strlen(name) + 2;
    char *s = tl_alloc(c, n);
    snprintf(s, n, "%s%s%s", owner, *owner ? "." : "", name);
    return s;
}

/* When m (seen through owner type mt; NULL: its own class) overrides or
 * implements b (seen through bt) with the same language signature, do
 * they still disagree on what the VM holds — an array of a type parameter
 * (an Object[]) on one side, a concrete array on the other?  No cast or
 * bridge converts between the two, so that is an error.  *what gets the
 * erased side's type. */
static bool erased_clash(TlCompiler *c, TlMethod *m, TlType *mt, TlMethod *b, TlType *bt, TlType **what)
{
    if (m->nparams != b->nparams)
        return false;
    for (uint32_t i = 0; i <= m->nparams; i++) {
        TlType *md = i < m->nparams ? m->params[i] : m->ret;
        TlType *bd = i < b->nparams ? b->params[i] : b->ret;
        TlType *ms = mt ? tl_type_rt(c, tl_subst(c, md, m->owner, mt->args), md) : md;
        TlType *bs = bt ? tl_type_rt(c, tl_subst(c, bd, b->owner, bt->args), bd) : bd;
        if (ms != bs && (tl_type_has_rt(ms) || tl_type_has_rt(bs))) {
            *what = tl_type_has_rt(bs) ? bs : ms;
            return true;
        }
    }
    return false;
}

static void report_clash(TlCompiler *c, TlPos pos, TlMethod *m, const char *verb, TlMethod *b, TlType *what)
{
    tl_error(c, pos, TL_D_ERASED_OVERRIDE, m->name, verb, qual(c, b), tl_type_str(c, tl_type_strip(c, what)),
             tl_type_str(c, tl_erase(c, what)));
}

/* Every interface instance type that class type t implements, directly or
 * through superclasses and super-interfaces (duplicates possible). */
static void all_ifaces(TlCompiler *c, TlType *t, TlType ***out, uint32_t *n, uint32_t *cap, uint32_t *budget)
{
    if (!t || !*budget)
        return;
    (*budget)--;
    TlClass *k = t->cls;
    if (k->is_iface)
        *TL_PUSH(c, *out, *n, *cap) = t;
    if (k->super)
        all_ifaces(c, tl_subst(c, k->super, k, t->args), out, n, cap, budget);
    for (uint32_t i = 0; i < k->nifaces; i++)
        all_ifaces(c, tl_subst(c, k->ifaces[i], k, t->args), out, n, cap, budget);
}

/* Does k or a superclass already have a bridge for interface method im?
 * A subclass's method for im sits in the same vtable slot as the one the
 * inherited bridge calls virtually, so the inherited bridge serves it. */
static bool has_bridge(TlCompiler *c, TlClass *k, TlMethod *im)
{
    uint32_t steps = 0;
    for (TlClass *x = k; x && steps <= c->nclasses; x = x->super ? x->super->cls : NULL, steps++)
        for (uint32_t i = 0; i < x->nbridges; i++)
            if (x->bridges[i]->bridge_for == im)
                return true;
    return false;
}

/* Adds to class k a bridge `name$Iface` for interface method im (language
 * signature ps/r as seen from k), bound to m: a new vtable slot with im's
 * erased signature whose body calls m virtually and converts (emit.c);
 * the emitter binds im to it with an imap entry. */
static void add_bridge(TlCompiler *c, TlClass *k, TlMethod *m, TlMethod *im, TlType **ps, TlType *r,
                       uint32_t *capv)
{
    const char *iname = im->owner && im->owner->name ? im->owner->name : "?";
    /* "$bridge$" keeps it apart from generated lambda and adapter names */
    size_t n = strlen(m->name) + strlen(iname) + sizeof "$bridge$";
    char *name = tl_alloc(c, n);
    snprintf(name, n, "%s$bridge$%s", m->name, iname);
    TlMethod *b = tl_alloc(c, sizeof *b);
    b->name = name;
    b->pos = m->owner == k ? m->pos : k->pos;
    b->kind = M_VIRTUAL;
    b->owner = k;
    b->file = m->owner == k ? m->file : k->file;
    b->params = ps;
    b->nparams = im->nparams;
    b->ret = r;
    b->eparams = im->eparams;
    b->eret = im->eret;
    b->bridge_to = m;
    b->bridge_for = im;
    b->slot = (int32_t)k->nvtable;
    *TL_PUSH(c, k->vtable, k->nvtable, *capv) = b;
    uint32_t capb = k->nbridges;
    *TL_PUSH(c, k->bridges, k->nbridges, capb) = b;
}

static void check_class(TlCompiler *c, TlClass *k)
{
    if (k->state == 3)
        return;
    k->state = 3;
    if (k->super)
        check_class(c, k->super->cls);
    for (uint32_t i = 0; i < k->nifaces; i++)
        check_class(c, k->ifaces[i]->cls);
    uint32_t capv = 0;
    if (k->is_iface) {
        for (uint32_t i = 0; i < k->nmethods; i++) {
            TlMethod *m = k->methods[i];
            erase_sig(c, m);
            m->slot = (int32_t)i;
            *TL_PUSH(c, k->vtable, k->nvtable, capv) = m;
        }
        return;
    }
    /* inherited slots first */
    TlClass *sup = k->super ? k->super->cls : NULL;
    if (sup)
        for (uint32_t i = 0; i < sup->nvtable; i++)
            *TL_PUSH(c, k->vtable, k->nvtable, capv) = sup->vtable[i];
    for (uint32_t i = 0; i < k->nfields; i++) {
        TlField *f = k->fields[i];
        bool is_field;
        TlType *where;
        if (super_member(c, k, f->name, &is_field, &where))
            tl_error(c, f->pos, is_field ? TL_D_FIELD_REDECLARED : TL_D_MEMBER_CONFLICT, f->name,
                     where->cls->name);
    }
    for (uint32_t i = 0; i < k->nmethods; i++) {
        TlMethod *m = k->methods[i];
        bool is_field;
        TlType *where;
        TlMethod *b = super_member(c, k, m->name, &is_field, &where);
        if (b && (is_field || m->kind == M_STATIC || b->kind == M_STATIC)) {
            tl_error(c, m->pos, TL_D_MEMBER_CONFLICT, m->name, where->cls->name);
            b = NULL;
        }
        if (m->kind == M_STATIC) {
            erase_sig(c, m);
            continue;
        }
        if (b) {
            TlType **ps, *r;
            subst_sig(c, b, where, &ps, &r);
            TlType *what;
            if (b->nparams != m->nparams || !same_sig(m, ps, r))
                tl_error(c, m->pos, TL_D_OVERRIDE_SIGNATURE, m->name, qual(c, b));
            else if (erased_clash(c, m, NULL, b, where, &what))
                report_clash(c, m->pos, m, "override", b, what);
            m->overrides = b;
            m->slot = b->slot;
            m->eparams = b->eparams;
            m->eret = b->eret;
            if (b->nparams != m->nparams)
                erase_sig(c, m);
            if (m->slot >= 0 && (uint32_t)m->slot < k->nvtable)
                k->vtable[m->slot] = m;
        } else {
            erase_sig(c, m);
            m->slot = (int32_t)k->nvtable;
            *TL_PUSH(c, k->vtable, k->nvtable, capv) = m;
        }
    }
    /* interfaces: implementations must match at the language level.  The
     * VM binds an interface method to the vtable method of the same name
     * when their erased signatures are equal: an own, not overriding
     * method adopts the interface's erasure the first time it is matched;
     * otherwise (inherited or overriding methods, or a method already
     * pinned by another interface) a bridge method is added. */
    TlType **ifs = NULL;
    uint32_t nifs = 0, capifs = 0, budget = 8 * c->nclasses + 16;
    all_ifaces(c, k->self_type, &ifs, &nifs, &capifs, &budget);
    TlMap matched = {0};   /* (method, NULL) -> first interface method it implements */
    for (uint32_t i = 0; i < nifs; i++) {
        TlClass *ik = ifs[i]->cls;
        for (uint32_t j = 0; j < ik->nmethods; j++) {
            TlMethod *im = ik->methods[j];
            bool is_field = false;
            TlMethod *m = NULL;
            TlType *where = k->self_type;
            m = tl_class_member(c, k, im->name, &is_field);
            if (!m)
                m = super_member(c, k, im->name, &is_field, &where);
            if (!m || is_field || m->kind == M_STATIC) {
                if (!k->is_abstract)
                    tl_error(c, k->pos, TL_D_NOT_IMPLEMENTED, k->name, qual(c, im));
                continue;
            }
            TlType **ps, *r;
            subst_sig(c, im, ifs[i], &ps, &r);
            /* m's own signature, seen from k */
            TlType **mps, *mr;
            subst_sig(c, m, where, &mps, &mr);
            bool same = im->nparams == m->nparams && mr == r;
            for (uint32_t q = 0; same && q < m->nparams; q++)
                same = mps[q] == ps[q];
            TlMethod *first = tl_map_get(&matched, m, NULL);
            if (!same) {
                if (first && first->owner != im->owner)
                    tl_error(c, m->owner == k ? m->pos : k->pos, TL_D_SIGNATURE_CONFLICT, m->name,
                             qual(c, first), qual(c, im));
                else if (!first)
                    tl_error(c, m->owner == k ? m->pos : k->pos, TL_D_OVERRIDE_SIGNATURE, m->name,
                             qual(c, im));
                continue;
            }
            TlType *what;
            if (erased_clash(c, m, where, im, ifs[i], &what)) {
                /* an inherited method for an interface of the superclass
                 * was reported with the superclass */
                bool seen = m->owner != k && k->super && tl_type_as_super(c, k->super, ik);
                if (first != im && !seen)
                    report_clash(c, m->owner == k ? m->pos : k->pos, m, "implement", im, what);
                if (!first)
                    tl_map_put(&matched, m, NULL, im);
                continue;
            }
            if (!first)
                tl_map_put(&matched, m, NULL, im);
            if (!im->eparams)
                erase_sig(c, im);
            if (same_erased(m, im)) {
                if (m->owner == k)
                    m->vm_sig_done = true;   /* pinned: bound by name */
            } else if (m->owner == k && !m->overrides && !m->vm_sig_done) {
                m->eparams = im->eparams;
                m->eret = im->eret;
                m->vm_sig_done = true;   /* adopted from an interface */
            } else if (!has_bridge(c, k, im)) {
                add_bridge(c, k, m, im, ps, r, &capv);
            }
        }
    }
    tl_map_free(&matched);
    for (uint32_t i = 0; i < k->nmethods; i++)
        k->methods[i]->vm_sig_done = false;
    /* a concrete class implements every abstract method it inherits */
    if (!k->is_abstract)
        for (uint32_t i = 0; i < k->nvtable; i++)
            if (k->vtable[i]->is_abstract)
                tl_error(c, k->pos, TL_D_NOT_IMPLEMENTED, k->name, qual(c, k->vtable[i]));
    /* construction: own init, or the nearest inherited one (which then must
     * take no parameters) */
    if (k->init) {
        erase_sig(c, k->init);
        k->ctor = k->init;
    } else if (sup && sup->ctor) {
        k->ctor = sup->ctor;
        if (sup->ctor->nparams && !k->is_abstract)
            tl_error(c, k->pos, TL_D_SUPER_INIT_ARGS, k->name,
                     sup->ctor->owner ? sup->ctor->owner->name : sup->name);
    }
}

static void check_main(TlCompiler *c)
{
    TlSym *s = tl_map_get(&c->globals, NULL, c->n_main);
    if (!s || s->kind != SYM_FUNC || ((TlMethod *)s->p)->kind != M_FUNC) {
        /* after a syntax error main may just not have been parsed */
        if (!c->syntax_errors)
            tl_error(c, c->nfiles && c->files[0]->ntoks ? c->files[0]->toks[0].pos : (TlPos){0, 0, 0},
                     TL_D_MAIN_MISSING);
        return;
    }
    TlMethod *m = s->p;
    c->main = m;
    bool ok = m->ret == c->t_void
           && (m->nparams == 0
               || (m->nparams == 1 && m->params[0] == tl_type_array(c, c->t_string)));
    if (!ok)
        tl_error(c, m->pos, TL_D_MAIN_SIGNATURE);
}

static bool extern_type_ok(TlCompiler *c, TlType *t, bool ret)
{
    if (t == c->t_int || t == c->t_float || t == c->t_bool || t == c->t_string || t->kind == TY_ERROR)
        return true;
    if (ret)
        return t == c->t_void;
    return t->kind == TY_ARRAY
        && (t->elem == c->t_int || t->elem == c->t_float || t->elem == c->t_bool);
}

void tl_check_program(TlCompiler *c)
{
    tl_types_init(c);
    c->n_main = tl_intern(c, "main", 4);
    c->n_init = tl_intern(c, "init", 4);
    c->n_length = tl_intern(c, "length", 6);
    c->n_Object = tl_intern(c, "Object", 6);
    c->n_self = tl_intern(c, "self", 4);
    declare_all(c);
    resolve_headers(c);
    for (uint32_t i = 0; i < c->nclasses; i++)
        if (c->classes[i]->state == 0)
            break_cycles(c, c->classes[i]);
    for (uint32_t i = 0; i < c->nclasses; i++)
        resolve_members(c, c->classes[i]);
    for (uint32_t i = 0; i < c->nfuncs; i++) {
        TlMethod *m = c->funcs[i];
        resolve_signature(c, m, NULL, true);
        erase_sig(c, m);
        if (m->kind == M_EXTERN) {
            for (uint32_t j = 0; j < m->nparams; j++)
                if (!extern_type_ok(c, m->params[j], false) && m->fn->params[j].texpr)
                    tl_error(c, m->fn->params[j].texpr->pos, TL_D_EXTERN_TYPE, tl_type_str(c, m->params[j]));
            if (!extern_type_ok(c, m->ret, true) && m->fn->ret)
                tl_error(c, m->fn->ret->pos, TL_D_EXTERN_TYPE, tl_type_str(c, m->ret));
        }
    }
    for (uint32_t i = 0; i < c->nclasses; i++)
        check_class(c, c->classes[i]);
    check_main(c);
    for (uint32_t i = 0; i < c->ngvars; i++) {
        TlGlobal *g = c->gvars[i];
        if (g->decl->texpr) {
            g->type = tl_resolve_type(c, g->decl->texpr, NULL, true);
            g->state = 2;
        }
    }
    tl_check_bodies(c);
}

/* ---- member lookup ------------------------------------------------------- */

static void *lookup_in(TlCompiler *c, TlType *t, const char *name, bool *is_field, TlType ***args,
                       uint32_t *budget)
{
    if (!t || t->kind != TY_CLASS || !*budget)
        return NULL;
    (*budget)--;
    void *p = tl_class_member(c, t->cls, name, is_field);
    if (p) {
        *args = t->args;
        return p;
    }
    TlClass *k = t->cls;
    if (k->super) {
        p = lookup_in(c, tl_subst(c, k->super, k, t->args), name, is_field, args, budget);
        if (p)
            return p;
    }
    for (uint32_t i = 0; i < k->nifaces; i++) {
        p = lookup_in(c, tl_subst(c, k->ifaces[i], k, t->args), name, is_field, args, budget);
        if (p)
            return p;
    }
    return NULL;
}

void *tl_lookup_member(TlCompiler *c, TlType *recv, const char *name, bool *is_field,
                       TlType ***owner_args)
{
    uint32_t budget = 8 * c->nclasses + 16;
    *owner_args = NULL;
    return lookup_in(c, recv, name, is_field, owner_args, &budget);
}
