/* vm/module.c — the opcode table, module allocation, and type relations.
 *
 * Type relations here work on module indices (before vm_link), so the
 * assembler, the verifier and the linker share one definition of "equal"
 * and "assignable".  They assume the class graph is acyclic, which the
 * verifier checks before it asks (they still stop after nclasses steps).
 */
#include "vm.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const VmOpInfo vm_op_info[VM_OP_COUNT] = {
#define OP(name, operands, types, summary) [VM_OP_##name] = {#name, operands, types, summary},
#include "opcodes.def"
#undef OP
};

int vm_op_lookup(const char *name, size_t len)
{
    for (int i = 0; i < VM_OP_COUNT; i++)
        if (strlen(vm_op_info[i].name) == len && memcmp(vm_op_info[i].name, name, len) == 0)
            return i;
    return -1;
}

/* ---- buffers and files -------------------------------------------------- */

void vm_buf_put(VmBuf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *d = realloc(b->data, cap);
        if (!d)
            abort();  /* malloc failure outside the GC heap: nothing sane left */
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void vm_buf_free(VmBuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

bool vm_read_file(const char *path, VmBuf *out, VmError *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return vm_fail(err, "%s: %s", path, strerror(errno));
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        vm_buf_put(out, chunk, n);
    bool bad = ferror(f);
    fclose(f);
    if (bad)
        return vm_fail(err, "%s: read error", path);
    vm_buf_put(out, "", 1);  /* NUL after the data, not counted */
    out->len--;
    return true;
}

/* ---- modules ------------------------------------------------------------ */

VmModule *vm_module_new(void)
{
    VmModule *m = calloc(1, sizeof *m);
    if (!m)
        abort();
    m->main = VM_NONE;
    m->init = VM_NONE;
    return m;
}

void vm_module_free(VmModule *m)
{
    if (!m)
        return;
    free(m->name);
    free(m->source);
    for (uint32_t i = 0; i < m->nfiles && m->files; i++)
        free(m->files[i]);
    free(m->files);
    for (uint32_t i = 0; i < m->nconsts; i++)
        free(m->consts[i].bytes);
    free(m->consts);
    for (uint32_t i = 0; i < m->ntypes; i++)
        free(m->types[i].params);
    free(m->types);
    for (uint32_t i = 0; i < m->nclasses; i++) {
        VmClass *c = &m->classes[i];
        free(c->name);
        free(c->ifaces);
        free(c->vtable);
        free(c->imap);
        free(c->display);
        free(c->field_types);
        free(c->vt);
        free(c->all_ifaces);
        if (c->itables)
            for (uint32_t j = 0; j < c->nall_ifaces; j++)
                free(c->itables[j]);
        free(c->itables);
    }
    free(m->classes);
    for (uint32_t i = 0; i < m->nfields; i++)
        free(m->fields[i].name);
    free(m->fields);
    for (uint32_t i = 0; i < m->nmethods; i++) {
        VmMethod *mm = &m->methods[i];
        free(mm->name);
        free(mm->regs);
        free(mm->caps);
        free(mm->code);
        free(mm->lines);
        free(mm->prof.branches);
        free(mm->prof.sites);
    }
    free(m->methods);
    for (uint32_t i = 0; i < m->nnatives; i++) {
        VmNative *n = &m->natives[i];
        free(n->name);
        free(n->lib);
        free(n->symbol);
        free(n->params);
        free(n->cif);
    }
    free(m->natives);
    for (uint32_t i = 0; i < m->nglobals; i++)
        free(m->globals[i].name);
    free(m->globals);
    /* gvals and cstrings belong to the GC (uncollectable) and to the VM */
    free(m);
}

static void *grow(void *p, uint32_t n, size_t elem)
{
    /* tables grow one entry at a time in the assembler; double at powers of 2 */
    if (n & (n - 1))
        return p;
    void *q = realloc(p, (n ? n * 2 : 1) * elem);
    if (!q)
        abort();
    return q;
}

uint32_t vm_module_add_const(VmModule *m, const char *bytes, uint32_t len)
{
    for (uint32_t i = 0; i < m->nconsts; i++)
        if (m->consts[i].len == len && memcmp(m->consts[i].bytes, bytes, len) == 0)
            return i;
    m->consts = grow(m->consts, m->nconsts, sizeof *m->consts);
    char *copy = malloc(len + 1);
    if (!copy)
        abort();
    memcpy(copy, bytes, len);
    copy[len] = 0;
    m->consts[m->nconsts] = (VmConst){copy, len};
    return m->nconsts++;
}

/* Structural equality of a type entry with a candidate not yet in the table. */
static bool same_shape(const VmModule *m, const VmType *a, const VmType *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case VM_T_CLASS:
    case VM_T_IFACE:
        return a->ref == b->ref;
    case VM_T_ARRAY:
        return vm_type_equal(m, a->ref, b->ref);
    case VM_T_FUNC:
        if (!vm_type_equal(m, a->ret, b->ret) || a->nparams != b->nparams)
            return false;
        for (uint32_t i = 0; i < a->nparams; i++)
            if (!vm_type_equal(m, a->params[i], b->params[i]))
                return false;
        return true;
    default:
        return true;
    }
}

uint32_t vm_module_add_type(VmModule *m, const VmType *t)
{
    for (uint32_t i = 0; i < m->ntypes; i++)
        if (same_shape(m, &m->types[i], t))
            return i;
    m->types = grow(m->types, m->ntypes, sizeof *m->types);
    VmType *n = &m->types[m->ntypes];
    memset(n, 0, sizeof *n);
    n->kind = t->kind;
    n->ref = t->ref;
    n->ret = t->ret;
    n->nparams = t->nparams;
    if (t->nparams) {
        n->params = malloc(t->nparams * sizeof *n->params);
        if (!n->params)
            abort();
        memcpy(n->params, t->params, t->nparams * sizeof *n->params);
    }
    return m->ntypes++;
}

bool vm_type_equal(const VmModule *m, uint32_t a, uint32_t b)
{
    if (a == b)
        return true;
    if (a >= m->ntypes || b >= m->ntypes)
        return false;
    return same_shape(m, &m->types[a], &m->types[b]);
}

/* Does interface `i` equal or extend interface `target` (class indices)?
 * Depth-first with a visited set, so diamonds cost linear time. */
bool vm_iface_extends(const VmModule *m, uint32_t i, uint32_t target)
{
    if (i == target)
        return true;
    if (i >= m->nclasses)
        return false;
    uint8_t small[512];
    size_t n = m->nclasses;
    uint8_t *seen = n <= sizeof small ? small : calloc(n, 1);
    uint32_t *stack = malloc(n * sizeof *stack);
    if (!seen || !stack)
        abort();
    if (seen == small)
        memset(small, 0, n);
    bool found = false;
    size_t sp = 0;
    stack[sp++] = i;
    seen[i] = 1;
    while (sp && !found) {
        const VmClass *c = &m->classes[stack[--sp]];
        for (uint32_t k = 0; k < c->nifaces; k++) {
            uint32_t j = c->ifaces[k];
            if (j == target) {
                found = true;
                break;
            }
            if (j < n && !seen[j]) {
                seen[j] = 1;
                stack[sp++] = j;
            }
        }
    }
    if (seen != small)
        free(seen);
    free(stack);
    return found;
}

bool vm_class_implements(const VmModule *m, uint32_t c, uint32_t iface)
{
    for (uint32_t steps = 0; c < m->nclasses && steps <= m->nclasses; steps++) {
        const VmClass *k = &m->classes[c];
        for (uint32_t j = 0; j < k->nifaces; j++)
            if (vm_iface_extends(m, k->ifaces[j], iface))
                return true;
        c = k->super;
    }
    return false;
}

bool vm_class_extends(const VmModule *m, uint32_t c, uint32_t target)
{
    for (uint32_t steps = 0; c < m->nclasses && steps <= m->nclasses; steps++) {
        if (c == target)
            return true;
        c = m->classes[c].super;
    }
    return false;
}

bool vm_type_assignable(const VmModule *m, uint32_t from, uint32_t to)
{
    if (from >= m->ntypes || to >= m->ntypes)
        return false;
    if (vm_type_equal(m, from, to))
        return true;
    const VmType *f = &m->types[from], *t = &m->types[to];
    if (!vm_type_is_ref(f) || !vm_type_is_ref(t))
        return false;
    if (t->kind == VM_T_OBJECT)
        return true;
    if (f->kind == VM_T_CLASS && t->kind == VM_T_CLASS)
        return vm_class_extends(m, f->ref, t->ref);
    if (f->kind == VM_T_CLASS && t->kind == VM_T_IFACE)
        return vm_class_implements(m, f->ref, t->ref);
    if (f->kind == VM_T_IFACE && t->kind == VM_T_IFACE)
        return vm_iface_extends(m, f->ref, t->ref);
    return false;
}

/* ---- printing types ----------------------------------------------------- */

static void fmt_type(const VmModule *m, uint32_t t, VmBuf *b, int depth)
{
    static const char *const prim[] = {
        [VM_T_VOID] = "void", [VM_T_INT] = "int", [VM_T_FLOAT] = "float",
        [VM_T_BOOL] = "bool", [VM_T_STRING] = "string", [VM_T_OBJECT] = "Object",
    };
    if (t >= m->ntypes || depth > 64) {
        vm_buf_put(b, "?", 1);
        return;
    }
    const VmType *ty = &m->types[t];
    const char *s = NULL;
    switch (ty->kind) {
    case VM_T_CLASS:
    case VM_T_IFACE:
        s = ty->ref < m->nclasses ? m->classes[ty->ref].name : "?";
        vm_buf_put(b, s, strlen(s));
        return;
    case VM_T_ARRAY:
        fmt_type(m, ty->ref, b, depth + 1);
        vm_buf_put(b, "[]", 2);
        return;
    case VM_T_FUNC:
        vm_buf_put(b, "fn(", 3);
        for (uint32_t i = 0; i < ty->nparams; i++) {
            if (i)
                vm_buf_put(b, ",", 1);
            fmt_type(m, ty->params[i], b, depth + 1);
        }
        vm_buf_put(b, ")", 1);
        if (ty->ret < m->ntypes && m->types[ty->ret].kind != VM_T_VOID) {
            vm_buf_put(b, ":", 1);
            fmt_type(m, ty->ret, b, depth + 1);
        }
        return;
    default:
        s = ty->kind < VM_T_CLASS ? prim[ty->kind] : "?";
        vm_buf_put(b, s, strlen(s));
    }
}

size_t vm_type_format(const VmModule *m, uint32_t t, char *buf, size_t size)
{
    VmBuf b = {0};
    fmt_type(m, t, &b, 0);
    size_t n = b.len;
    if (size) {
        size_t k = n < size - 1 ? n : size - 1;
        memcpy(buf, b.data, k);
        buf[k] = 0;
    }
    vm_buf_free(&b);
    return n;
}

void vm_type_print(const VmModule *m, uint32_t t, FILE *out)
{
    VmBuf b = {0};
    fmt_type(m, t, &b, 0);
    fwrite(b.data, 1, b.len, out);
    vm_buf_free(&b);
}
