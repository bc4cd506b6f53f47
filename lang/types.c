/* lang/types.c — the language's types: interning, generic substitution,
 * assignability, printing.
 *
 * Input: type constructors called by the checker.  Output: interned
 * TlType nodes (structurally equal types are the same pointer, so type
 * equality is pointer equality everywhere in lang/).
 * Invariants: a class type's args has exactly cls->ntparams entries;
 * TY_PARAM nodes belong to one class and are only substituted by that
 * class's arguments; walks over class hierarchies stop after the number of
 * classes, so a cyclic hierarchy (reported by the checker) cannot hang.
 */
#include "ast.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9ull;
}

static uint64_t type_hash(const TlType *t)
{
    uint64_t h = mix(t->kind, (uintptr_t)t->cls);
    h = mix(h, (uintptr_t)t->elem);
    h = mix(h, (uintptr_t)t->ret);
    h = mix(h, t->index);
    h = mix(h, (uintptr_t)t->rt);
    for (uint32_t i = 0; i < t->nargs; i++)
        h = mix(h, (uintptr_t)t->args[i]);
    return h;
}

static bool type_same(const TlType *a, const TlType *b)
{
    if (a->kind != b->kind || a->cls != b->cls || a->elem != b->elem || a->ret != b->ret
        || a->index != b->index || a->nargs != b->nargs || a->rt != b->rt)
        return false;
    for (uint32_t i = 0; i < a->nargs; i++)
        if (a->args[i] != b->args[i])
            return false;
    return true;
}

static TlType *intern(TlCompiler *c, const TlType *proto)
{
    if ((c->tyn + 1) * 2 > c->tycap) {
        size_t cap = c->tycap ? c->tycap * 2 : 256;
        TlType **tab = calloc(cap, sizeof *tab);
        if (!tab)
            abort();
        for (size_t i = 0; i < c->tycap; i++) {
            TlType *t = c->tytab[i];
            if (!t)
                continue;
            size_t j = type_hash(t) & (cap - 1);
            while (tab[j])
                j = (j + 1) & (cap - 1);
            tab[j] = t;
        }
        free(c->tytab);
        c->tytab = tab;
        c->tycap = cap;
    }
    size_t j = type_hash(proto) & (c->tycap - 1);
    for (; c->tytab[j]; j = (j + 1) & (c->tycap - 1))
        if (type_same(c->tytab[j], proto))
            return c->tytab[j];
    TlType *t = tl_alloc(c, sizeof *t);
    *t = *proto;
    if (proto->nargs) {
        t->args = tl_alloc(c, proto->nargs * sizeof *t->args);
        memcpy(t->args, proto->args, proto->nargs * sizeof *t->args);
    }
    c->tytab[j] = t;
    c->tyn++;
    return t;
}

static TlType *basic(TlCompiler *c, TlTypeKind k)
{
    TlType proto = {.kind = (uint8_t)k};
    return intern(c, &proto);
}

void tl_types_init(TlCompiler *c)
{
    c->t_error = basic(c, TY_ERROR);
    c->t_void = basic(c, TY_VOID);
    c->t_int = basic(c, TY_INT);
    c->t_float = basic(c, TY_FLOAT);
    c->t_bool = basic(c, TY_BOOL);
    c->t_string = basic(c, TY_STRING);
    c->t_object = basic(c, TY_OBJECT);
    c->t_null = basic(c, TY_NULL);
}

TlType *tl_type_array(TlCompiler *c, TlType *elem)
{
    if (elem->kind == TY_ERROR)
        return elem;
    TlType proto = {.kind = TY_ARRAY, .elem = elem};
    return intern(c, &proto);
}

TlType *tl_type_func(TlCompiler *c, TlType **params, uint32_t n, TlType *ret)
{
    TlType proto = {.kind = TY_FUNC, .args = params, .nargs = n, .ret = ret};
    return intern(c, &proto);
}

TlType *tl_type_class(TlCompiler *c, TlClass *cls, TlType **args, uint32_t n)
{
    TlType proto = {.kind = TY_CLASS, .cls = cls, .args = args, .nargs = n};
    return intern(c, &proto);
}

TlType *tl_type_param(TlCompiler *c, TlClass *cls, uint32_t index, const char *name)
{
    TlType proto = {.kind = TY_PARAM, .cls = cls, .index = index, .name = name};
    return intern(c, &proto);
}

bool tl_type_has_param(const TlType *t)
{
    switch (t->kind) {
    case TY_PARAM:
        return true;
    case TY_ARRAY:
        return tl_type_has_param(t->elem);
    case TY_FUNC:
        if (tl_type_has_param(t->ret))
            return true;
        /* fall through */
    case TY_CLASS:
        for (uint32_t i = 0; i < t->nargs; i++)
            if (tl_type_has_param(t->args[i]))
                return true;
        return false;
    default:
        return false;
    }
}

/* s as a value the VM holds as type r (an erased type): s itself when
 * that is s's own erasure, else an erased array. */
static TlType *held_as(TlCompiler *c, TlType *s, TlType *r)
{
    if (s->kind != TY_ARRAY || tl_erase(c, s) == r)
        return s;
    TlType proto = {.kind = TY_ARRAY, .elem = s->elem, .rt = r};
    return intern(c, &proto);
}

/* Walks s and d in parallel: a type parameter in d holds a real s (read
 * through a checked cast); an array in d is d's erasure at run time, with
 * elements as the same walk says; class arguments and function parameters
 * and results are walked the same way, so `Box<T[]>` seen as
 * `Box<string[]>` has an erased array argument. */
static TlType *rt_walk(TlCompiler *c, TlType *s, TlType *d, int depth)
{
    if (depth > 100 || s->kind == TY_ERROR || d->kind == TY_PARAM)
        return s;
    switch (d->kind) {
    case TY_ARRAY:
        if (s->kind != TY_ARRAY)
            return s;
        return held_as(c, tl_type_array(c, rt_walk(c, s->elem, d->elem, depth + 1)), tl_erase(c, d));
    case TY_CLASS:
    case TY_FUNC: {
        if (s->kind != d->kind || s->nargs != d->nargs || (d->kind == TY_CLASS && (s->cls != d->cls || !s->nargs)))
            return s;
        TlType *small[8];
        TlType **a = s->nargs <= 8 ? small : tl_alloc(c, s->nargs * sizeof *a);
        bool changed = false;
        for (uint32_t i = 0; i < s->nargs; i++) {
            a[i] = rt_walk(c, s->args[i], d->args[i], depth + 1);
            changed |= a[i] != s->args[i];
        }
        if (s->kind == TY_CLASS)
            return changed ? tl_type_class(c, s->cls, a, s->nargs) : s;
        TlType *r = rt_walk(c, s->ret, d->ret, depth + 1);
        return changed || r != s->ret ? tl_type_func(c, a, s->nargs, r) : s;
    }
    default:
        return s;
    }
}

TlType *tl_type_rt(TlCompiler *c, TlType *s, TlType *d)
{
    return rt_walk(c, s, d, 0);
}

bool tl_type_has_rt(const TlType *t)
{
    switch (t->kind) {
    case TY_ARRAY:
        return t->rt || tl_type_has_rt(t->elem);
    case TY_FUNC:
        if (tl_type_has_rt(t->ret))
            return true;
        /* fall through */
    case TY_CLASS:
        for (uint32_t i = 0; i < t->nargs; i++)
            if (tl_type_has_rt(t->args[i]))
                return true;
        return false;
    default:
        return false;
    }
}

TlType *tl_type_strip(TlCompiler *c, TlType *t)
{
    if (!tl_type_has_rt(t))
        return t;
    switch (t->kind) {
    case TY_ARRAY:
        return tl_type_array(c, tl_type_strip(c, t->elem));
    case TY_CLASS:
    case TY_FUNC: {
        TlType **a = tl_alloc(c, (t->nargs ? t->nargs : 1) * sizeof *a);
        for (uint32_t i = 0; i < t->nargs; i++)
            a[i] = tl_type_strip(c, t->args[i]);
        if (t->kind == TY_CLASS)
            return tl_type_class(c, t->cls, a, t->nargs);
        return tl_type_func(c, a, t->nargs, tl_type_strip(c, t->ret));
    }
    default:
        return t;
    }
}

/* Replaces the type parameters of cls in t by args. */
TlType *tl_subst(TlCompiler *c, TlType *t, TlClass *cls, TlType **args)
{
    if (!args || !cls || !cls->ntparams)
        return t;
    switch (t->kind) {
    case TY_PARAM:
        return t->cls == cls && t->index < cls->ntparams ? args[t->index] : t;
    case TY_ARRAY: {
        TlType *e = tl_subst(c, t->elem, cls, args);
        if (e == t->elem)
            return t;
        /* an erased array keeps what it is at run time */
        return t->rt ? held_as(c, tl_type_array(c, e), t->rt) : tl_type_array(c, e);
    }
    case TY_FUNC:
    case TY_CLASS: {
        if (!t->nargs && t->kind == TY_CLASS)
            return t;
        TlType *small[8];
        TlType **a = t->nargs <= 8 ? small : tl_alloc(c, t->nargs * sizeof *a);
        bool changed = false;
        for (uint32_t i = 0; i < t->nargs; i++) {
            a[i] = tl_subst(c, t->args[i], cls, args);
            changed |= a[i] != t->args[i];
        }
        if (t->kind == TY_CLASS)
            return changed ? tl_type_class(c, t->cls, a, t->nargs) : t;
        TlType *r = tl_subst(c, t->ret, cls, args);
        return changed || r != t->ret ? tl_type_func(c, a, t->nargs, r) : t;
    }
    default:
        return t;
    }
}

bool tl_type_is_ref(const TlType *t)
{
    switch (t->kind) {
    case TY_STRING: case TY_OBJECT: case TY_NULL: case TY_CLASS: case TY_ARRAY: case TY_FUNC:
    case TY_PARAM:
        return true;
    default:
        return false;
    }
}

/* Depth-first over supertypes of the class type t; returns the instance
 * type of target.  `budget` bounds the walk. */
static TlType *as_super(TlCompiler *c, TlType *t, TlClass *target, uint32_t *budget)
{
    if (t->kind != TY_CLASS || !*budget)
        return NULL;
    (*budget)--;
    if (t->cls == target)
        return t;
    TlClass *k = t->cls;
    if (k->super) {
        TlType *s = as_super(c, tl_subst(c, k->super, k, t->args), target, budget);
        if (s)
            return s;
    }
    for (uint32_t i = 0; i < k->nifaces; i++) {
        TlType *s = as_super(c, tl_subst(c, k->ifaces[i], k, t->args), target, budget);
        if (s)
            return s;
    }
    return NULL;
}

TlType *tl_type_as_super(TlCompiler *c, TlType *t, TlClass *target)
{
    uint32_t budget = 4 * c->nclasses + 16;
    return as_super(c, t, target, &budget);
}

bool tl_type_assignable(TlCompiler *c, TlType *from, TlType *to)
{
    if (from == to || from->kind == TY_ERROR || to->kind == TY_ERROR)
        return true;
    if (from->kind == TY_NULL)
        return tl_type_is_ref(to);
    if (to->kind == TY_OBJECT)
        return tl_type_is_ref(from);
    if (from->kind == TY_CLASS && to->kind == TY_CLASS)
        return tl_type_as_super(c, from, to->cls) == to;
    return false;
}

static void put(char **buf, size_t *n, size_t *cap, TlCompiler *c, const char *s)
{
    size_t k = strlen(s);
    if (*n + k + 1 > *cap) {
        size_t nc = (*cap + k + 1) * 2;
        char *b = tl_alloc(c, nc);
        if (*n)
            memcpy(b, *buf, *n);
        *buf = b;
        *cap = nc;
    }
    memcpy(*buf + *n, s, k);
    *n += k;
    (*buf)[*n] = 0;
}

static void fmt(TlCompiler *c, const TlType *t, char **buf, size_t *n, size_t *cap, int depth)
{
    if (depth > 50) {
        put(buf, n, cap, c, "...");
        return;
    }
    switch (t->kind) {
    case TY_ERROR: put(buf, n, cap, c, "<error>"); break;
    case TY_VOID: put(buf, n, cap, c, "void"); break;
    case TY_INT: put(buf, n, cap, c, "int"); break;
    case TY_FLOAT: put(buf, n, cap, c, "float"); break;
    case TY_BOOL: put(buf, n, cap, c, "bool"); break;
    case TY_STRING: put(buf, n, cap, c, "string"); break;
    case TY_OBJECT: put(buf, n, cap, c, "Object"); break;
    case TY_NULL: put(buf, n, cap, c, "null"); break;
    case TY_PARAM: put(buf, n, cap, c, t->name ? t->name : "?"); break;
    case TY_CLASS:
        put(buf, n, cap, c, t->cls->name);
        if (t->nargs) {
            put(buf, n, cap, c, "<");
            for (uint32_t i = 0; i < t->nargs; i++) {
                if (i)
                    put(buf, n, cap, c, ", ");
                fmt(c, t->args[i], buf, n, cap, depth + 1);
            }
            put(buf, n, cap, c, ">");
        }
        break;
    case TY_ARRAY:
        if (t->elem->kind == TY_FUNC) {
            put(buf, n, cap, c, "(");
            fmt(c, t->elem, buf, n, cap, depth + 1);
            put(buf, n, cap, c, ")");
        } else {
            fmt(c, t->elem, buf, n, cap, depth + 1);
        }
        put(buf, n, cap, c, "[]");
        break;
    case TY_FUNC:
        put(buf, n, cap, c, "fn(");
        for (uint32_t i = 0; i < t->nargs; i++) {
            if (i)
                put(buf, n, cap, c, ", ");
            fmt(c, t->args[i], buf, n, cap, depth + 1);
        }
        put(buf, n, cap, c, ")");
        if (t->ret->kind != TY_VOID) {
            put(buf, n, cap, c, ": ");
            fmt(c, t->ret, buf, n, cap, depth + 1);
        }
        break;
    default:
        put(buf, n, cap, c, "?");
    }
}

const char *tl_type_str(TlCompiler *c, const TlType *t)
{
    char *buf = NULL;
    size_t n = 0, cap = 0;
    put(&buf, &n, &cap, c, "");
    fmt(c, t, &buf, &n, &cap, 0);
    return buf;
}

TlType *tl_erase(TlCompiler *c, TlType *t)
{
    switch (t->kind) {
    case TY_PARAM:
    case TY_NULL:
        return c->t_object;
    case TY_CLASS:
        return t->nargs ? tl_type_class(c, t->cls, NULL, 0) : t;
    case TY_ARRAY: {
        if (t->rt)
            return t->rt;
        TlType *e = tl_erase(c, t->elem);
        return e == t->elem ? t : tl_type_array(c, e);
    }
    case TY_FUNC: {
        TlType *small[8];
        TlType **a = t->nargs <= 8 ? small : tl_alloc(c, t->nargs * sizeof *a);
        bool changed = false;
        for (uint32_t i = 0; i < t->nargs; i++) {
            a[i] = tl_erase(c, t->args[i]);
            changed |= a[i] != t->args[i];
        }
        TlType *r = tl_erase(c, t->ret);
        return changed || r != t->ret ? tl_type_func(c, a, t->nargs, r) : t;
    }
    default:
        return t;
    }
}
