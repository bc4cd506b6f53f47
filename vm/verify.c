/* vm/verify.c — the load-time verifier: module tables.
 *
 * Input: a VmModule from the assembler, the binary reader or a compiler;
 * nothing about it is trusted beyond the array lengths it states.
 * Output: true, or false with the first problem in err, as
 *   "MODULE: class NAME: reason"   "MODULE: method NAME: reason"
 *   "MODULE: type #N: reason"      "MODULE: field NAME: reason"
 *   "MODULE: native NAME: reason"  "MODULE: global NAME: reason"
 *   "MODULE: method NAME at offset PC: reason"   (code, verify_code.c)
 *
 * Checks run in an order where each step may rely on the previous ones:
 * types (refs below their own index, so type walks terminate), classes
 * (indices, kinds, then acyclicity — module.c's assignability assumes it),
 * fields, method headers (with their source file index), vtables, imaps and interfaces, globals, natives,
 * main/init, and finally the code of every method.  After vm_verify
 * accepts a module the interpreter trusts every index, register and type
 * in it, so every check here guards a possible crash or type confusion.
 */
#include "verify_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MOD(v) vm_verify_str((v)->m->name)

const char *vm_verify_str(const char *s)
{
    return s ? s : "?";
}

const char *vm_verify_tname(VmVerifier *v, uint32_t t)
{
    char *b = v->tbuf[v->tnext++ & 3];
    vm_type_format(v->m, t, b, sizeof v->tbuf[0]);
    return b;
}

/* Formats "MODULE: KIND NAME: reason". */
static bool fail_entry(VmVerifier *v, const char *kind, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool fail_entry(VmVerifier *v, const char *kind, const char *name, const char *fmt, ...)
{
    char reason[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    return vm_fail(v->err, "%s: %s %s: %s", MOD(v), kind, vm_verify_str(name), reason);
}

#define FAIL_TYPE(v, i, ...) ({ char n_[16]; snprintf(n_, sizeof n_, "#%u", (unsigned)(i)); \
                                fail_entry(v, "type", n_, __VA_ARGS__); })
#define FAIL_CLASS(v, c, ...) fail_entry(v, "class", (c)->name, __VA_ARGS__)
#define FAIL_FIELD(v, f, ...) fail_entry(v, "field", (f)->name, __VA_ARGS__)
#define FAIL_METHOD(v, mm, ...) fail_entry(v, "method", (mm)->name, __VA_ARGS__)
#define FAIL_GLOBAL(v, g, ...) fail_entry(v, "global", (g)->name, __VA_ARGS__)
#define FAIL_NATIVE(v, n, ...) fail_entry(v, "native", (n)->name, __VA_ARGS__)

/* ---- name sets (open addressing on string hashes) ----------------------- */

typedef struct NameSet {
    const char **slot;
    size_t cap;
} NameSet;

static void names_init(NameSet *s, size_t n)
{
    s->cap = 16;
    while (s->cap < 2 * n + 1)
        s->cap *= 2;
    s->slot = calloc(s->cap, sizeof *s->slot);
    if (!s->slot)
        abort();  /* malloc failure outside the GC heap, as in module.c */
}

/* Inserts name; false if it was already there. */
static bool names_add(NameSet *s, const char *name)
{
    uint64_t h = 1469598103934665603u;
    for (const char *p = name; *p; p++)
        h = (h ^ (uint8_t)*p) * 1099511628211u;
    for (size_t i = h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->slot[i]) {
            s->slot[i] = name;
            return true;
        }
        if (strcmp(s->slot[i], name) == 0)
            return false;
    }
}

static void names_free(NameSet *s)
{
    free(s->slot);
}

/* ---- class relations (valid once the graph is known acyclic) ------------ */

bool vm_verify_class_fits(const VmModule *m, uint32_t c, uint32_t t)
{
    if (t >= m->ntypes)
        return false;
    const VmType *ty = &m->types[t];
    switch (ty->kind) {
    case VM_T_OBJECT:
        return true;
    case VM_T_CLASS:
        return vm_class_extends(m, c, ty->ref);
    case VM_T_IFACE:
        return vm_class_implements(m, c, ty->ref);
    default:
        return false;
    }
}

static bool is_iface(const VmModule *m, uint32_t c)
{
    return c < m->nclasses && (m->classes[c].flags & VM_C_INTERFACE);
}

bool vm_verify_is_virtual(const VmModule *m, const VmMethod *mm)
{
    return mm->owner < m->nclasses && !is_iface(m, mm->owner)
        && !(mm->flags & (VM_M_STATIC | VM_M_LAMBDA));
}

bool vm_verify_is_iface_method(const VmModule *m, const VmMethod *mm)
{
    return is_iface(m, mm->owner) && !(mm->flags & (VM_M_STATIC | VM_M_LAMBDA));
}

static bool is_void(const VmModule *m, uint32_t t)
{
    return t < m->ntypes && m->types[t].kind == VM_T_VOID;
}

/* ---- types -------------------------------------------------------------- */

static bool check_types(VmVerifier *v)
{
    const VmModule *m = v->m;
    for (uint32_t i = 0; i < m->ntypes; i++) {
        const VmType *t = &m->types[i];
        switch (t->kind) {
        case VM_T_VOID: case VM_T_INT: case VM_T_FLOAT: case VM_T_BOOL:
        case VM_T_STRING: case VM_T_OBJECT:
            break;
        case VM_T_CLASS:
        case VM_T_IFACE:
            if (t->ref >= m->nclasses)
                return FAIL_TYPE(v, i, "class index %u out of range", t->ref);
            if (t->kind == VM_T_CLASS && is_iface(m, t->ref))
                return FAIL_TYPE(v, i, "class type names interface %s",
                                 vm_verify_str(m->classes[t->ref].name));
            if (t->kind == VM_T_IFACE && !is_iface(m, t->ref))
                return FAIL_TYPE(v, i, "interface type names class %s",
                                 vm_verify_str(m->classes[t->ref].name));
            break;
        case VM_T_ARRAY:
            /* below its own index: type walks (equality, printing) terminate */
            if (t->ref >= i)
                return FAIL_TYPE(v, i, "element type index %u out of range", t->ref);
            if (is_void(m, t->ref))
                return FAIL_TYPE(v, i, "array of void");
            break;
        case VM_T_FUNC:
            if (t->ret >= i)
                return FAIL_TYPE(v, i, "return type index %u out of range", t->ret);
            if (t->nparams && !t->params)
                return FAIL_TYPE(v, i, "missing parameter types");
            for (uint32_t k = 0; k < t->nparams; k++) {
                if (t->params[k] >= i)
                    return FAIL_TYPE(v, i, "parameter %u: type index %u out of range", k, t->params[k]);
                if (is_void(m, t->params[k]))
                    return FAIL_TYPE(v, i, "parameter %u has type void", k);
            }
            break;
        default:
            return FAIL_TYPE(v, i, "unknown type kind %u", t->kind);
        }
    }
    return true;
}

/* ---- classes ------------------------------------------------------------ */

static const char *const reserved_names[] = {"int", "float", "bool", "string", "Object", "void", "fn"};

static bool check_classes(VmVerifier *v)
{
    const VmModule *m = v->m;
    NameSet names;
    names_init(&names, m->nclasses);
    bool ok = true;
    for (uint32_t i = 0; i < m->nclasses && ok; i++) {
        const VmClass *c = &m->classes[i];
        bool iface = c->flags & VM_C_INTERFACE;
        if (!c->name || !*c->name) {
            ok = FAIL_CLASS(v, c, "missing name");
            break;
        }
        for (size_t k = 0; k < sizeof reserved_names / sizeof *reserved_names; k++)
            if (strcmp(c->name, reserved_names[k]) == 0) {
                ok = FAIL_CLASS(v, c, "reserved name");
                break;
            }
        if (!ok)
            break;
        if (!names_add(&names, c->name))
            ok = FAIL_CLASS(v, c, "duplicate class name");
        else if (c->flags & ~(uint32_t)(VM_C_ABSTRACT | VM_C_INTERFACE))
            ok = FAIL_CLASS(v, c, "unknown flags 0x%x", c->flags);
        else if ((c->nifaces && !c->ifaces) || (c->nvtable && !c->vtable))
            ok = FAIL_CLASS(v, c, "missing interface or vtable array");
        else if (iface && c->super != VM_NONE)
            ok = FAIL_CLASS(v, c, "an interface cannot extend a class");
        else if (c->super != VM_NONE && c->super >= m->nclasses)
            ok = FAIL_CLASS(v, c, "superclass index %u out of range", c->super);
        else if (c->super != VM_NONE && is_iface(m, c->super))
            ok = FAIL_CLASS(v, c, "superclass %s is an interface",
                            vm_verify_str(m->classes[c->super].name));
        for (uint32_t k = 0; ok && k < c->nifaces; k++) {
            uint32_t j = c->ifaces[k];
            if (j >= m->nclasses)
                ok = FAIL_CLASS(v, c, "interface index %u out of range", j);
            else if (!is_iface(m, j))
                ok = FAIL_CLASS(v, c, "%s is not an interface", vm_verify_str(m->classes[j].name));
        }
    }
    names_free(&names);
    return ok;
}

/* Superclass chains end and super-interface graphs have no cycle. */
static bool check_hierarchy(VmVerifier *v)
{
    const VmModule *m = v->m;
    for (uint32_t i = 0; i < m->nclasses; i++) {
        uint32_t c = m->classes[i].super, steps = 0;
        for (; c != VM_NONE && c != i && steps < m->nclasses; steps++)
            c = m->classes[c].super;
        if (c != VM_NONE)
            return FAIL_CLASS(v, &m->classes[i], "cyclic class hierarchy");
    }
    /* iterative depth-first search over interfaces: 0 new, 1 open, 2 done */
    uint8_t *state = calloc(m->nclasses + 1, 1);
    uint32_t *stack = malloc((m->nclasses + 1) * sizeof *stack);
    uint32_t *next = malloc((m->nclasses + 1) * sizeof *next);
    if (!state || !stack || !next)
        abort();
    bool ok = true;
    for (uint32_t root = 0; root < m->nclasses && ok; root++) {
        if (!is_iface(m, root) || state[root])
            continue;
        uint32_t sp = 0;
        stack[sp] = root;
        next[sp++] = 0;
        state[root] = 1;
        while (sp && ok) {
            uint32_t n = stack[sp - 1];
            const VmClass *c = &m->classes[n];
            if (next[sp - 1] == c->nifaces) {
                state[n] = 2;
                sp--;
                continue;
            }
            uint32_t s = c->ifaces[next[sp - 1]++];
            if (state[s] == 1)
                ok = FAIL_CLASS(v, &m->classes[s], "cyclic interface hierarchy");
            else if (state[s] == 0) {
                state[s] = 1;
                stack[sp] = s;
                next[sp++] = 0;
            }
        }
    }
    free(state);
    free(stack);
    free(next);
    return ok;
}

/* ---- fields ------------------------------------------------------------- */

static bool check_fields(VmVerifier *v)
{
    const VmModule *m = v->m;
    uint32_t group = 0;   /* first field of the current owner's group */
    for (uint32_t i = 0; i < m->nfields; i++) {
        const VmField *f = &m->fields[i];
        if (!f->name || !*f->name)
            return FAIL_FIELD(v, f, "missing name");
        if (f->owner >= m->nclasses)
            return FAIL_FIELD(v, f, "owner class index %u out of range", f->owner);
        if (is_iface(m, f->owner))
            return FAIL_FIELD(v, f, "owner %s is an interface", vm_verify_str(m->classes[f->owner].name));
        if (f->type >= m->ntypes)
            return FAIL_FIELD(v, f, "type index %u out of range", f->type);
        if (is_void(m, f->type))
            return FAIL_FIELD(v, f, "field of type void");
        if (i > 0 && f->owner < m->fields[i - 1].owner)
            return FAIL_FIELD(v, f, "fields are not grouped by owner class");
        if (i > 0 && f->owner != m->fields[i - 1].owner)
            group = i;
        for (uint32_t k = group; k < i; k++)
            if (strcmp(m->fields[k].name, f->name) == 0)
                return FAIL_FIELD(v, f, "duplicate field name in class %s",
                                  vm_verify_str(m->classes[f->owner].name));
    }
    return true;
}

/* ---- method headers ----------------------------------------------------- */

static bool check_lines(VmVerifier *v, const VmMethod *mm)
{
    for (uint32_t i = 0; i < mm->nlines; i++) {
        if (mm->lines[i].pc >= mm->ncode)
            return FAIL_METHOD(v, mm, "line table entry %u: pc %u out of range (%u instructions)",
                               i, mm->lines[i].pc, mm->ncode);
        if (i > 0 && mm->lines[i].pc <= mm->lines[i - 1].pc)
            return FAIL_METHOD(v, mm, "line table entry %u: pc %u not after pc %u",
                               i, mm->lines[i].pc, mm->lines[i - 1].pc);
    }
    return true;
}

static bool check_method(VmVerifier *v, const VmMethod *mm)
{
    const VmModule *m = v->m;
    const uint32_t known = VM_M_STATIC | VM_M_ABSTRACT | VM_M_LAMBDA;
    bool stat = mm->flags & VM_M_STATIC, abstr = mm->flags & VM_M_ABSTRACT;
    bool lambda = mm->flags & VM_M_LAMBDA;
    if (mm->flags & ~known)
        return FAIL_METHOD(v, mm, "unknown flags 0x%x", mm->flags);
    if ((mm->nregs && !mm->regs) || (mm->ncaps && !mm->caps) || (mm->ncode && !mm->code)
        || (mm->nlines && !mm->lines))
        return FAIL_METHOD(v, mm, "missing register, capture, code or line array");
    if (mm->owner != VM_NONE && mm->owner >= m->nclasses)
        return FAIL_METHOD(v, mm, "owner class index %u out of range", mm->owner);
    /* stack traces and `tally dis` name files[file - 1] */
    if (mm->file > m->nfiles)
        return FAIL_METHOD(v, mm, "file index %u out of range (%u files)", mm->file, m->nfiles);
    if (mm->ret >= m->ntypes)
        return FAIL_METHOD(v, mm, "return type index %u out of range", mm->ret);
    if (mm->nparams > mm->nregs)
        return FAIL_METHOD(v, mm, "%u parameters but only %u registers", mm->nparams, mm->nregs);
    for (uint32_t r = 0; r < mm->nregs; r++) {
        if (mm->regs[r] >= m->ntypes)
            return FAIL_METHOD(v, mm, "register r%u: type index %u out of range", r, mm->regs[r]);
        if (is_void(m, mm->regs[r]))
            return FAIL_METHOD(v, mm, "register r%u has type void", r);
    }
    if (mm->ncaps && !lambda)
        return FAIL_METHOD(v, mm, "captures in a method that is not a lambda");
    for (uint32_t k = 0; k < mm->ncaps; k++) {
        if (mm->caps[k] >= m->ntypes)
            return FAIL_METHOD(v, mm, "capture %u: type index %u out of range", k, mm->caps[k]);
        if (is_void(m, mm->caps[k]))
            return FAIL_METHOD(v, mm, "capture %u has type void", k);
    }
    if (!stat && !lambda && mm->owner == VM_NONE)
        return FAIL_METHOD(v, mm, "a method without an owner must be static or a lambda");
    if (abstr && (stat || lambda))
        return FAIL_METHOD(v, mm, "an abstract method cannot be static or a lambda");
    if (vm_verify_is_iface_method(m, mm) && !abstr)
        return FAIL_METHOD(v, mm, "an interface method must be abstract");
    if (abstr && mm->ncode)
        return FAIL_METHOD(v, mm, "abstract method has code");
    if (!abstr && !mm->ncode)
        return FAIL_METHOD(v, mm, "method has no code");
    if (vm_verify_is_virtual(m, mm) || vm_verify_is_iface_method(m, mm)) {
        /* the receiver: dispatch and GETF on r0 rely on its type */
        if (mm->nparams < 1)
            return FAIL_METHOD(v, mm, "no receiver parameter");
        const VmType *t = &m->types[mm->regs[0]];
        uint8_t want = is_iface(m, mm->owner) ? VM_T_IFACE : VM_T_CLASS;
        if (t->kind != want || t->ref != mm->owner)
            return FAIL_METHOD(v, mm, "receiver r0 has type %s, expected %s",
                               vm_verify_tname(v, mm->regs[0]),
                               vm_verify_str(m->classes[mm->owner].name));
    }
    if (lambda) {
        /* CALLF passes the closure as r0 and checks arguments against its
         * function type, so that type must describe the lambda exactly */
        if (mm->nparams < 1)
            return FAIL_METHOD(v, mm, "a lambda needs its closure parameter r0");
        const VmType *t = &m->types[mm->regs[0]];
        bool match = t->kind == VM_T_FUNC && t->nparams == mm->nparams - 1
                     && vm_type_equal(m, t->ret, mm->ret);
        for (uint32_t k = 0; match && k < t->nparams; k++)
            match = vm_type_equal(m, t->params[k], mm->regs[k + 1]);
        if (!match)
            return FAIL_METHOD(v, mm, "closure r0 has type %s, which does not match the lambda's signature",
                               vm_verify_tname(v, mm->regs[0]));
    }
    return check_lines(v, mm);
}

static bool check_methods(VmVerifier *v)
{
    const VmModule *m = v->m;
    NameSet names;
    names_init(&names, m->nmethods);
    bool ok = true;
    for (uint32_t i = 0; i < m->nmethods && ok; i++) {
        const VmMethod *mm = &m->methods[i];
        if (!mm->name || !*mm->name)
            ok = FAIL_METHOD(v, mm, "missing name");
        else if (!names_add(&names, mm->name))
            ok = FAIL_METHOD(v, mm, "duplicate method name");
        else
            ok = check_method(v, mm);
    }
    names_free(&names);
    return ok;
}

/* ---- vtables and interfaces --------------------------------------------- */

/* Same parameter types after the receiver, same return type. */
static bool same_signature(const VmModule *m, const VmMethod *a, const VmMethod *b)
{
    if (a->nparams != b->nparams || !vm_type_equal(m, a->ret, b->ret))
        return false;
    for (uint32_t k = 1; k < a->nparams; k++)
        if (!vm_type_equal(m, a->regs[k], b->regs[k]))
            return false;
    return true;
}

static const char *short_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot ? dot + 1 : name;
}

static bool check_class_vtable(VmVerifier *v, uint32_t ci, uint32_t *count)
{
    const VmModule *m = v->m;
    const VmClass *c = &m->classes[ci];
    const VmClass *sup = c->super != VM_NONE ? &m->classes[c->super] : NULL;
    if (sup && c->nvtable < sup->nvtable)
        return FAIL_CLASS(v, c, "vtable has %u slots, fewer than the %u of superclass %s",
                          c->nvtable, sup->nvtable, sup->name);
    for (uint32_t i = 0; i < c->nvtable; i++) {
        uint32_t mi = c->vtable[i];
        if (mi >= m->nmethods)
            return FAIL_CLASS(v, c, "vtable slot %u: method index %u out of range", i, mi);
        const VmMethod *mm = &m->methods[mi];
        if (!vm_verify_is_virtual(m, mm))
            return FAIL_CLASS(v, c, "vtable slot %u: %s is not a virtual method", i, mm->name);
        const VmClass *owner = &m->classes[mm->owner];
        if (!vm_class_extends(m, ci, mm->owner))
            return FAIL_CLASS(v, c, "vtable slot %u: %s belongs to %s, not to %s or a superclass",
                              i, mm->name, owner->name, c->name);
        if (mm->owner != ci && (i >= owner->nvtable || owner->vtable[i] != mi))
            return FAIL_CLASS(v, c, "vtable slot %u: inherited %s is not in slot %u of %s",
                              i, mm->name, i, owner->name);
        if (mm->owner == ci)
            count[mi]++;
        if (sup && i < sup->nvtable && sup->vtable[i] < m->nmethods && sup->vtable[i] != mi) {
            const VmMethod *base = &m->methods[sup->vtable[i]];
            if (!same_signature(m, mm, base))
                return FAIL_CLASS(v, c, "vtable slot %u: %s does not match the signature of %s",
                                  i, mm->name, base->name);
        }
        if (!(c->flags & VM_C_ABSTRACT) && (mm->flags & VM_M_ABSTRACT))
            return FAIL_CLASS(v, c, "abstract method %s in the vtable of a non-abstract class", mm->name);
    }
    return true;
}

static bool check_iface_methods(VmVerifier *v, uint32_t ci, uint32_t *count)
{
    const VmModule *m = v->m;
    const VmClass *c = &m->classes[ci];
    for (uint32_t i = 0; i < c->nvtable; i++) {
        uint32_t mi = c->vtable[i];
        if (mi >= m->nmethods)
            return FAIL_CLASS(v, c, "method %u: method index %u out of range", i, mi);
        const VmMethod *mm = &m->methods[mi];
        if (mm->owner != ci || !vm_verify_is_iface_method(m, mm))
            return FAIL_CLASS(v, c, "method %u: %s is not an abstract method of %s", i, mm->name, c->name);
        count[mi]++;
    }
    return true;
}

/* The explicit interface-method map of class ci: each entry binds a method
 * of an interface the class implements (transitively) to a method of its
 * own vtable with exactly the interface method's signature, at most once
 * per interface method. */
static bool check_imap(VmVerifier *v, uint32_t ci)
{
    const VmModule *m = v->m;
    const VmClass *c = &m->classes[ci];
    if (!c->nimap)
        return true;
    if (!c->imap)
        return FAIL_CLASS(v, c, "missing imap array");
    if (c->flags & VM_C_INTERFACE)
        return FAIL_CLASS(v, c, "an interface has no imap");
    for (uint32_t k = 0; k < c->nimap; k++) {
        uint32_t ii = c->imap[2 * k], mi = c->imap[2 * k + 1];
        if (ii >= m->nmethods)
            return FAIL_CLASS(v, c, "imap entry %u: method index %u out of range", k, ii);
        if (mi >= m->nmethods)
            return FAIL_CLASS(v, c, "imap entry %u: method index %u out of range", k, mi);
        const VmMethod *im = &m->methods[ii], *cm = &m->methods[mi];
        if (!vm_verify_is_iface_method(m, im))
            return FAIL_CLASS(v, c, "imap entry %u: %s is not an interface method", k, im->name);
        if (!vm_class_implements(m, ci, im->owner))
            return FAIL_CLASS(v, c, "imap entry %u: %s does not implement %s", k, c->name,
                              m->classes[im->owner].name);
        bool in_vtable = false;
        for (uint32_t s = 0; s < c->nvtable && !in_vtable; s++)
            in_vtable = c->vtable[s] == mi;
        if (!in_vtable)
            return FAIL_CLASS(v, c, "imap entry %u: %s is not in the vtable of %s", k, cm->name, c->name);
        if (!same_signature(m, cm, im))
            return FAIL_CLASS(v, c, "imap entry %u: %s does not match the signature of %s", k,
                              cm->name, im->name);
        for (uint32_t j = 0; j < k; j++)
            if (c->imap[2 * j] == ii)
                return FAIL_CLASS(v, c, "imap entry %u: %s is already bound by entry %u", k, im->name, j);
    }
    return true;
}

/* Does an imap entry of class ci or of a superclass bind interface method ii? */
static bool imap_covers(const VmModule *m, uint32_t ci, uint32_t ii)
{
    for (uint32_t k = ci; k != VM_NONE; k = m->classes[k].super)
        for (uint32_t j = 0; j < m->classes[k].nimap; j++)
            if (m->classes[k].imap[2 * j] == ii)
                return true;
    return false;
}

/* A non-abstract class has, for every interface method it inherits and no
 * imap entry (its own or a superclass's) binds, vtable methods of the same
 * short name, all with the interface's signature (the linker binds the
 * rest of the itables by short name). */
static bool check_implements(VmVerifier *v, uint32_t ci, uint32_t *mark, uint32_t *stack)
{
    const VmModule *m = v->m;
    const VmClass *c = &m->classes[ci];
    uint32_t stamp = ci + 1, sp = 0;
    for (uint32_t k = ci; k != VM_NONE; k = m->classes[k].super)
        for (uint32_t j = 0; j < m->classes[k].nifaces; j++) {
            uint32_t i = m->classes[k].ifaces[j];
            if (mark[i] != stamp) {
                mark[i] = stamp;
                stack[sp++] = i;
            }
        }
    while (sp) {
        const VmClass *ic = &m->classes[stack[--sp]];
        for (uint32_t j = 0; j < ic->nifaces; j++)
            if (mark[ic->ifaces[j]] != stamp) {
                mark[ic->ifaces[j]] = stamp;
                stack[sp++] = ic->ifaces[j];
            }
        for (uint32_t s = 0; s < ic->nvtable; s++) {
            const VmMethod *im = &m->methods[ic->vtable[s]];
            if (imap_covers(m, ci, ic->vtable[s]))
                continue;
            const char *want = short_name(im->name);
            bool found = false;
            for (uint32_t t = 0; t < c->nvtable; t++) {
                const VmMethod *cm = &m->methods[c->vtable[t]];
                if (strcmp(short_name(cm->name), want) != 0)
                    continue;
                if (!same_signature(m, cm, im))
                    return FAIL_CLASS(v, c, "%s does not match the signature of %s", cm->name, im->name);
                found = true;
            }
            if (!found)
                return FAIL_CLASS(v, c, "does not implement %s", im->name);
        }
    }
    return true;
}

static bool check_vtables(VmVerifier *v)
{
    const VmModule *m = v->m;
    uint32_t *count = calloc(m->nmethods + 1, sizeof *count);
    uint32_t *mark = calloc(m->nclasses + 1, sizeof *mark);
    uint32_t *stack = malloc((m->nclasses + 1) * sizeof *stack);
    if (!count || !mark || !stack)
        abort();
    bool ok = true;
    for (uint32_t ci = 0; ci < m->nclasses && ok; ci++)
        ok = is_iface(m, ci) ? check_iface_methods(v, ci, count) : check_class_vtable(v, ci, count);
    /* each virtual or interface method has exactly one slot: its owner's */
    for (uint32_t i = 0; i < m->nmethods && ok; i++) {
        const VmMethod *mm = &m->methods[i];
        if (!vm_verify_is_virtual(m, mm) && !vm_verify_is_iface_method(m, mm))
            continue;
        if (count[i] != 1)
            ok = FAIL_METHOD(v, mm, "listed %u times in the %s of %s, expected once", count[i],
                             is_iface(m, mm->owner) ? "methods" : "vtable",
                             m->classes[mm->owner].name);
    }
    for (uint32_t ci = 0; ci < m->nclasses && ok; ci++)
        ok = check_imap(v, ci);
    for (uint32_t ci = 0; ci < m->nclasses && ok; ci++) {
        const VmClass *c = &m->classes[ci];
        if (!(c->flags & (VM_C_INTERFACE | VM_C_ABSTRACT)))
            ok = check_implements(v, ci, mark, stack);
    }
    free(count);
    free(mark);
    free(stack);
    return ok;
}

/* ---- globals, natives, entry points ------------------------------------- */

static bool check_globals(VmVerifier *v)
{
    const VmModule *m = v->m;
    NameSet names;
    names_init(&names, m->nglobals);
    bool ok = true;
    for (uint32_t i = 0; i < m->nglobals && ok; i++) {
        const VmGlobal *g = &m->globals[i];
        if (!g->name || !*g->name)
            ok = FAIL_GLOBAL(v, g, "missing name");
        else if (!names_add(&names, g->name))
            ok = FAIL_GLOBAL(v, g, "duplicate global name");
        else if (g->type >= m->ntypes)
            ok = FAIL_GLOBAL(v, g, "type index %u out of range", g->type);
        else if (is_void(m, g->type))
            ok = FAIL_GLOBAL(v, g, "global of type void");
    }
    names_free(&names);
    return ok;
}

static bool check_natives(VmVerifier *v)
{
    const VmModule *m = v->m;
    NameSet names;
    names_init(&names, m->nnatives);
    bool ok = true;
    for (uint32_t i = 0; i < m->nnatives && ok; i++) {
        const VmNative *n = &m->natives[i];
        if (!n->name || !*n->name)
            ok = FAIL_NATIVE(v, n, "missing name");
        else if (!names_add(&names, n->name))
            ok = FAIL_NATIVE(v, n, "duplicate native name");
        else if (!n->lib || !n->symbol || (n->nparams && !n->params))
            ok = FAIL_NATIVE(v, n, "missing library, symbol or parameter array");
        else if (n->ret >= m->ntypes)
            ok = FAIL_NATIVE(v, n, "return type index %u out of range", n->ret);
        for (uint32_t k = 0; ok && k < n->nparams; k++) {
            if (n->params[k] >= m->ntypes)
                ok = FAIL_NATIVE(v, n, "parameter %u: type index %u out of range", k, n->params[k]);
            else if (is_void(m, n->params[k]))
                ok = FAIL_NATIVE(v, n, "parameter %u has type void", k);
        }
    }
    names_free(&names);
    return ok;
}

static bool check_entry(VmVerifier *v, uint32_t index, const char *what)
{
    const VmModule *m = v->m;
    if (index == VM_NONE)
        return true;
    if (index >= m->nmethods)
        return vm_fail(v->err, "%s: %s: method index %u out of range", MOD(v), what, index);
    const VmMethod *mm = &m->methods[index];
    if ((mm->flags & (VM_M_STATIC | VM_M_LAMBDA | VM_M_ABSTRACT)) != VM_M_STATIC)
        return FAIL_METHOD(v, mm, "%s must be a static method", what);
    if (!is_void(m, mm->ret))
        return FAIL_METHOD(v, mm, "%s must return void", what);
    bool is_main = strcmp(what, "main") == 0;
    if (mm->nparams == 0)
        return true;
    if (is_main && mm->nparams == 1) {
        const VmType *t = &m->types[mm->regs[0]];
        if (t->kind == VM_T_ARRAY && m->types[t->ref].kind == VM_T_STRING)
            return true;
    }
    return FAIL_METHOD(v, mm, is_main ? "main takes no parameters or one string[]"
                                      : "init takes no parameters");
}

/* ---- entry -------------------------------------------------------------- */

bool vm_verify(const VmModule *m, VmError *err)
{
    VmVerifier v = {.m = m, .err = err};
    if ((m->nconsts && !m->consts) || (m->ntypes && !m->types) || (m->nclasses && !m->classes)
        || (m->nfields && !m->fields) || (m->nmethods && !m->methods)
        || (m->nnatives && !m->natives) || (m->nglobals && !m->globals) || (m->nfiles && !m->files))
        return vm_fail(err, "%s: missing table", MOD(&v));
    for (uint32_t i = 0; i < m->nfiles; i++)
        if (!m->files[i])
            return vm_fail(err, "%s: file %u: missing name", MOD(&v), i + 1);
    if (!check_types(&v) || !check_classes(&v) || !check_hierarchy(&v) || !check_fields(&v)
        || !check_methods(&v) || !check_vtables(&v) || !check_globals(&v) || !check_natives(&v)
        || !check_entry(&v, m->main, "main") || !check_entry(&v, m->init, "init"))
        return false;
    for (uint32_t i = 0; i < m->nmethods; i++)
        if (m->methods[i].ncode && !vm_verify_code(&v, &m->methods[i]))
            return false;
    return true;
}
