/* vm/link.c — prepares a verified module for execution.
 *
 * Input: a module vm_verify accepted and the VM it will run in.  Output:
 * the "filled by vm_link" fields of every table: canonical types and their
 * runtime classes, class layouts (fields, displays, vtables, itables),
 * method entries, threaded code with resolved operands and profile slots,
 * interned constant strings, zeroed globals, bound natives.
 *
 * Invariants:
 * - Superclasses and super-interfaces are linked before the classes that
 *   use them, so a class copies its super's layout and interface list.
 * - Per array or function type there is exactly one runtime class, owned by
 *   the canonical (first structurally equal) type; every equal type points
 *   at it, so type tests compare one pointer.  Vm.rtclasses owns them.
 * - Globals and constants live in uncollectable GC blocks: they are roots,
 *   and Vm.roots owns them.
 * - An itable entry comes from an imap entry (the class's own, else the
 *   nearest superclass's, through the vtable slot of the bound method, so
 *   overrides count), else from the vtable method with the same short name.
 * - Indices are re-checked even though the verifier ran: a mistake in a
 *   later pass should give an error, not a wild pointer.
 */
#define GC_THREADS
#include <gc/gc.h>

#include "vm.h"

#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        abort();  /* malloc failure outside the GC heap: nothing sane left */
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p)
        abort();
    return p;
}

static void own_rtclass(Vm *vm, VmClass *c)
{
    vm->rtclasses = xrealloc(vm->rtclasses, (vm->nrtclasses + 1) * sizeof *vm->rtclasses);
    vm->rtclasses[vm->nrtclasses++] = c;
}

static void own_root(Vm *vm, void *p)
{
    vm->roots = xrealloc(vm->roots, (vm->nroots + 1) * sizeof *vm->roots);
    vm->roots[vm->nroots++] = p;
}

/* ---- types -------------------------------------------------------------- */

static VmClass *new_rtclass(Vm *vm, VmModule *m, uint32_t ti, uint8_t rkind)
{
    VmClass *c = xcalloc(1, sizeof *c);
    size_t n = vm_type_format(m, ti, NULL, 0);
    c->name = xcalloc(n + 1, 1);
    vm_type_format(m, ti, c->name, n + 1);
    c->rkind = rkind;
    c->index = VM_NONE;
    c->super = VM_NONE;
    c->superc = vm->object_class;
    c->depth = 1;
    c->display = xcalloc(2, sizeof *c->display);
    c->display[0] = vm->object_class;
    c->display[1] = c;
    c->size = rkind == VM_RK_ARRAY ? sizeof(VmArray) : sizeof(VmClosure);
    c->has_refs = true;
    c->type = &m->types[ti];
    own_rtclass(vm, c);
    return c;
}

static bool link_types(Vm *vm, VmModule *m, VmError *err)
{
    for (uint32_t i = 0; i < m->ntypes; i++) {
        VmType *t = &m->types[i];
        uint32_t c = 0;
        while (c < i && !vm_type_equal(m, c, i))
            c++;
        t->canon = &m->types[c];
        switch (t->kind) {
        case VM_T_CLASS:
        case VM_T_IFACE:
            if (t->ref >= m->nclasses)
                return vm_fail(err, "%s: type %u: bad class index", m->name, i);
            t->cls = &m->classes[t->ref];
            break;
        case VM_T_ARRAY:
            if (t->ref >= i)
                return vm_fail(err, "%s: type %u: bad element type", m->name, i);
            t->elem = &m->types[t->ref];
            /* fall through */
        case VM_T_FUNC:
            if (c == i)
                t->cls = new_rtclass(vm, m, i, t->kind == VM_T_ARRAY ? VM_RK_ARRAY : VM_RK_CLOSURE);
            else
                t->cls = t->canon->cls;
            break;
        case VM_T_STRING:
            t->cls = vm->string_class;
            break;
        case VM_T_OBJECT:
            t->cls = vm->object_class;
            break;
        default:
            t->cls = NULL;
        }
    }
    return true;
}

/* ---- classes ------------------------------------------------------------ */

static const char *short_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot ? dot + 1 : name;
}

static void add_iface(VmClass *c, uint32_t *cap, VmClass *i)
{
    for (uint32_t k = 0; k < c->nall_ifaces; k++)
        if (c->all_ifaces[k] == i)
            return;
    if (c->nall_ifaces == *cap) {
        *cap = *cap ? *cap * 2 : 4;
        c->all_ifaces = xrealloc(c->all_ifaces, *cap * sizeof *c->all_ifaces);
    }
    c->all_ifaces[c->nall_ifaces++] = i;
}

/* The method an imap entry binds interface method ii to in class c: the
 * entry of c itself, else the nearest superclass's; the entry names a
 * method of its class's vtable, and c takes whatever occupies that slot in
 * its own vtable (an override of the bound method).  NULL if none. */
static VmMethod *imap_bind(const VmModule *m, const VmClass *c, uint32_t ii)
{
    for (const VmClass *x = c; x; x = x->super < m->nclasses ? &m->classes[x->super] : NULL)
        for (uint32_t j = 0; j < x->nimap; j++) {
            if (x->imap[2 * j] != ii)
                continue;
            for (uint32_t v = 0; v < x->nvtable && v < c->nvtable; v++)
                if (x->vtable[v] == x->imap[2 * j + 1])
                    return c->vt[v];
            return NULL;
        }
    return NULL;
}

/* Links class ci after its super and interfaces; state: 0 new, 1 in
 * progress (a cycle if seen again), 2 done. */
static bool link_class(Vm *vm, VmModule *m, uint32_t ci, uint8_t *state, VmError *err)
{
    if (state[ci] == 2)
        return true;
    VmClass *c = &m->classes[ci];
    if (state[ci] == 1)
        return vm_fail(err, "%s: class %s: inheritance cycle", m->name, c->name);
    state[ci] = 1;
    bool iface = c->flags & VM_C_INTERFACE;
    if (c->super != VM_NONE) {
        if (c->super >= m->nclasses || iface)
            return vm_fail(err, "%s: class %s: bad superclass", m->name, c->name);
        if (!link_class(vm, m, c->super, state, err))
            return false;
    }
    for (uint32_t k = 0; k < c->nifaces; k++) {
        if (c->ifaces[k] >= m->nclasses || !(m->classes[c->ifaces[k]].flags & VM_C_INTERFACE))
            return vm_fail(err, "%s: class %s: bad interface", m->name, c->name);
        if (!link_class(vm, m, c->ifaces[k], state, err))
            return false;
    }

    VmClass *sup = c->super != VM_NONE ? &m->classes[c->super] : NULL;
    c->rkind = iface ? VM_RK_IFACE : VM_RK_INSTANCE;
    c->index = ci;
    c->superc = iface ? NULL : sup ? sup : vm->object_class;
    VmClass *parent = sup ? sup : vm->object_class;
    c->depth = parent->depth + 1;
    free(c->display);
    c->display = xcalloc(c->depth + 1, sizeof *c->display);
    memcpy(c->display, parent->display, c->depth * sizeof *c->display);
    c->display[c->depth] = c;

    /* fields: the super's first, then this class's in table order */
    uint32_t inherited = sup ? sup->nfields : 0, own = 0;
    for (uint32_t f = 0; f < m->nfields; f++)
        own += m->fields[f].owner == ci;
    if (iface && own)
        return vm_fail(err, "%s: interface %s has fields", m->name, c->name);
    c->nfields = inherited + own;
    free(c->field_types);
    c->field_types = xcalloc(c->nfields, sizeof *c->field_types);
    c->has_refs = sup && sup->has_refs;
    if (inherited)
        memcpy(c->field_types, sup->field_types, inherited * sizeof *c->field_types);
    uint32_t slot = inherited;
    for (uint32_t f = 0; f < m->nfields; f++) {
        VmField *fd = &m->fields[f];
        if (fd->owner != ci)
            continue;
        if (fd->type >= m->ntypes)
            return vm_fail(err, "%s: field %s: bad type", m->name, fd->name);
        fd->slot = slot;
        VmType *ft = &m->types[fd->type];
        c->field_types[slot++] = ft;
        if (vm_type_is_ref(ft))
            c->has_refs = true;
    }
    c->size = sizeof(VmObject) + (size_t)c->nfields * sizeof(VmValue);

    /* vtable, or an interface's methods in slot order */
    free(c->vt);
    c->vt = xcalloc(c->nvtable, sizeof *c->vt);
    for (uint32_t s = 0; s < c->nvtable; s++) {
        if (c->vtable[s] >= m->nmethods)
            return vm_fail(err, "%s: class %s: bad vtable entry %u", m->name, c->name, s);
        c->vt[s] = &m->methods[c->vtable[s]];
    }

    /* every interface, transitively: the super's, then the declared ones
     * with their super-interfaces */
    free(c->all_ifaces);
    c->all_ifaces = NULL;
    c->nall_ifaces = 0;
    uint32_t cap = 0;
    if (sup)
        for (uint32_t k = 0; k < sup->nall_ifaces; k++)
            add_iface(c, &cap, sup->all_ifaces[k]);
    for (uint32_t k = 0; k < c->nifaces; k++) {
        VmClass *i = &m->classes[c->ifaces[k]];
        add_iface(c, &cap, i);
        for (uint32_t j = 0; j < i->nall_ifaces; j++)
            add_iface(c, &cap, i->all_ifaces[j]);
    }

    if (!iface && c->nall_ifaces) {
        c->itables = xcalloc(c->nall_ifaces, sizeof *c->itables);
        for (uint32_t k = 0; k < c->nall_ifaces; k++) {
            VmClass *i = c->all_ifaces[k];
            c->itables[k] = xcalloc(i->nvtable, sizeof **c->itables);
            for (uint32_t s = 0; s < i->nvtable; s++) {
                if ((c->itables[k][s] = imap_bind(m, c, i->vtable[s])))
                    continue;
                const char *want = short_name(i->vt[s]->name);
                for (uint32_t v = 0; v < c->nvtable; v++)
                    if (strcmp(short_name(c->vt[v]->name), want) == 0) {
                        c->itables[k][s] = c->vt[v];
                        break;
                    }
            }
        }
    }
    state[ci] = 2;
    return true;
}

static bool link_classes(Vm *vm, VmModule *m, VmError *err)
{
    uint8_t *state = xcalloc(m->nclasses, 1);
    bool ok = true;
    for (uint32_t i = 0; ok && i < m->nclasses; i++)
        ok = link_class(vm, m, i, state, err);
    free(state);
    return ok;
}

/* ---- constants and globals ---------------------------------------------- */

static bool link_constants(Vm *vm, VmModule *m, VmError *err)
{
    m->cstrings = GC_MALLOC_UNCOLLECTABLE((m->nconsts ? m->nconsts : 1) * sizeof(void *));
    m->gvals = GC_MALLOC_UNCOLLECTABLE((m->nglobals ? m->nglobals : 1) * sizeof(VmValue));
    if (!m->cstrings || !m->gvals)
        return vm_fail(err, "%s: out of memory", m->name);
    own_root(vm, m->cstrings);
    own_root(vm, m->gvals);
    memset(m->gvals, 0, (m->nglobals ? m->nglobals : 1) * sizeof(VmValue));
    /* equal constants share one string (the reader need not dedup); an
     * open-addressing table keeps this linear for big pools */
    size_t cap = 16;
    while (cap < 2 * (size_t)m->nconsts)
        cap *= 2;
    VmString **table = xcalloc(cap, sizeof *table);
    for (uint32_t i = 0; i < m->nconsts; i++) {
        const VmConst *k = &m->consts[i];
        size_t size = offsetof(VmString, bytes) + (size_t)k->len + 1;
        VmString *s = GC_MALLOC_ATOMIC(size);
        if (!s) {
            free(table);
            return vm_fail(err, "%s: out of memory", m->name);
        }
        memset(s, 0, size);
        s->cls = vm->string_class;
        s->length = k->len;
        memcpy(s->bytes, k->bytes, k->len);
        size_t h = (size_t)vm_string_hash(s) & (cap - 1);
        while (table[h] && !vm_string_equal(table[h], s))
            h = (h + 1) & (cap - 1);
        if (table[h])
            GC_FREE(s);
        else
            table[h] = s;
        m->cstrings[i] = table[h];
    }
    free(table);
    return true;
}

/* ---- methods and code --------------------------------------------------- */

/* Position of `letter` among the operands that land in a, b, c (immediates
 * i and f go to k and take no position); -1 if absent. */
static int operand_pos(const char *operands, char letter)
{
    int pos = 0;
    for (const char *o = operands; *o; o++) {
        if (*o == letter)
            return pos;
        if (*o != 'i' && *o != 'f')
            pos++;
    }
    return -1;
}

static int32_t operand(const VmInsn *in, int pos)
{
    return pos == 0 ? in->a : pos == 1 ? in->b : in->c;
}

static bool is_branch_profiled(const VmInsn *in, uint32_t pc)
{
    const char *ops = vm_op_info[in->op].operands;
    int j = operand_pos(ops, 'j');
    if (j < 0)
        return false;
    /* a lone target is the unconditional jump: profiled only going back */
    return strlen(ops) > 1 || (uint32_t)operand(in, j) <= pc;
}

static bool link_code(VmModule *m, VmMethod *mm, const void *const *handlers, VmError *err)
{
    uint32_t nb = 0, ns = 0;
    for (uint32_t pc = 0; pc < mm->ncode; pc++) {
        const VmInsn *in = &mm->code[pc];
        if (in->op >= VM_OP_COUNT)
            return vm_fail(err, "%s: method %s at offset %u: bad opcode", m->name, mm->name, pc);
        nb += is_branch_profiled(in, pc);
        ns += in->op == VM_OP_CALLV || in->op == VM_OP_CALLI;
    }
    free(mm->prof.branches);
    free(mm->prof.sites);
    mm->prof.nbranches = nb;
    mm->prof.branches = nb ? xcalloc(nb, sizeof *mm->prof.branches) : NULL;
    mm->prof.nsites = ns;
    mm->prof.sites = ns ? xcalloc(ns, sizeof *mm->prof.sites) : NULL;

    nb = ns = 0;
    for (uint32_t pc = 0; pc < mm->ncode; pc++) {
        VmInsn *in = &mm->code[pc];
        const char *ops = vm_op_info[in->op].operands;
        in->h = handlers ? handlers[in->op] : NULL;
        if (is_branch_profiled(in, pc)) {
            mm->prof.branches[nb].pc = pc;
            in->k.i = nb++;
            continue;
        }
        /* each opcode names at most one table entry; resolve it by letter */
        static const char refs[] = "mnctkgF";
        int pos = -1;
        char letter = 0;
        for (const char *r = refs; *r && pos < 0; r++)
            if ((pos = operand_pos(ops, *r)) >= 0)
                letter = *r;
        if (pos < 0)
            continue;
        uint32_t idx = (uint32_t)operand(in, pos);
        uint32_t limit = letter == 'm' ? m->nmethods : letter == 'n' ? m->nnatives
                       : letter == 'c' ? m->nclasses : letter == 't' ? m->ntypes
                       : letter == 'k' ? m->nconsts : letter == 'g' ? m->nglobals : m->nfields;
        if (idx >= limit)
            return vm_fail(err, "%s: method %s at offset %u: bad operand", m->name, mm->name, pc);
        switch (letter) {
        case 'm':
            if (in->op == VM_OP_CALLV || in->op == VM_OP_CALLI) {
                VmCallSite *s = &mm->prof.sites[ns++];
                s->target = &m->methods[idx];
                s->pc = pc;
                in->k.p = s;
            } else {
                in->k.p = &m->methods[idx];
            }
            break;
        case 'n': in->k.p = &m->natives[idx]; break;
        case 'c': in->k.p = &m->classes[idx]; break;
        case 't': in->k.p = &m->types[idx]; break;
        case 'k': in->k.p = m->cstrings[idx]; break;
        case 'g': in->k.p = &m->gvals[idx]; break;
        case 'F': in->k.i = m->fields[idx].slot; break;
        }
    }
    return true;
}

static bool link_methods(Vm *vm, VmModule *m, VmError *err)
{
    const void *const *handlers = vm_interp_handlers();
    for (uint32_t i = 0; i < m->nmethods; i++) {
        VmMethod *mm = &m->methods[i];
        mm->index = i;
        mm->module = m;
        mm->ownerc = mm->owner < m->nclasses ? &m->classes[mm->owner] : NULL;
        mm->slot = -1;
        if (mm->ret >= m->ntypes)
            return vm_fail(err, "%s: method %s: bad return type", m->name, mm->name);
        mm->rtype = &m->types[mm->ret];
        mm->entry = vm_interp_entry;
        memset(&mm->prof, 0, sizeof mm->prof);
        mm->prof.hot_countdown = vm->tun.hot_threshold;
        if (!link_code(m, mm, handlers, err))
            return false;
    }
    /* a method's slot is its position in its owner's vtable (or method list) */
    for (uint32_t ci = 0; ci < m->nclasses; ci++) {
        const VmClass *c = &m->classes[ci];
        for (uint32_t s = 0; s < c->nvtable; s++) {
            VmMethod *mm = &m->methods[c->vtable[s]];
            if (mm->owner == ci)
                mm->slot = (int32_t)s;
        }
    }
    return true;
}

/* ---- the whole module --------------------------------------------------- */

bool vm_link(Vm *vm, VmModule *m, VmError *err)
{
    if (m->linked)
        return m->vm == vm || vm_fail(err, "%s: already linked in another VM", m->name);
    if (m->main != VM_NONE && m->main >= m->nmethods)
        return vm_fail(err, "%s: bad main method", m->name);
    if (m->init != VM_NONE && m->init >= m->nmethods)
        return vm_fail(err, "%s: bad init method", m->name);
    m->vm = vm;
    if (!link_types(vm, m, err) || !link_classes(vm, m, err) || !link_constants(vm, m, err))
        return false;
    for (uint32_t i = 0; i < m->nnatives; i++) {
        VmError e;
        e.msg[0] = 0;
        if (!vm_native_bind(vm, m, &m->natives[i], &e))
            return vm_fail(err, "%s: native %s: %s", m->name, m->natives[i].name, e.msg);
    }
    if (!link_methods(vm, m, err))
        return false;
    m->linked = true;
    vm->module = m;
    return true;
}
