/* vm/load.c — decodes .tlb bytes into a VmModule (the inverse of write.c).
 *
 * Input: untrusted bytes.  Output: a module, or NULL with "bad module: ..."
 * in err naming the first problem and where it is ("truncated in method 3
 * code", "unknown opcode 200 in method main at offset 4").
 * Invariants: every read is bounds checked; a count is accepted only if at
 * least that many bytes remain (each entry takes one byte at least), so a
 * forged count cannot make us allocate more than ~40x the input; every
 * table's count always equals the number of (zeroed or filled) entries
 * allocated, so vm_module_free can release a half-built module.  Checks
 * here are structural only (layout, opcode range, type refs pointing
 * backwards, representable operands); whether indices make sense is
 * vm_verify's job.
 */
#include "vm.h"

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct Reader {
    const uint8_t *p, *end;
    VmError *err;
    jmp_buf fail;
    char ctx[160];   /* where we are, for messages: "method 3 code" */
} Reader;

static _Noreturn __attribute__((format(printf, 2, 3))) void bad(Reader *r, const char *fmt, ...)
{
    if (r->err) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        vm_fail(r->err, "bad module: %s", msg);
    }
    longjmp(r->fail, 1);
}

static void setctx(Reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void setctx(Reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->ctx, sizeof r->ctx, fmt, ap);
    va_end(ap);
}

static uint8_t get_byte(Reader *r)
{
    if (r->p >= r->end)
        bad(r, "truncated in %s", r->ctx);
    return *r->p++;
}

static uint64_t get_leb(Reader *r)
{
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
        uint8_t b = get_byte(r);
        if (shift == 63 && (b & 0x7e))
            bad(r, "integer too large in %s", r->ctx);
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
        if (shift == 63)
            bad(r, "integer too large in %s", r->ctx);
    }
}

static uint32_t get_u32(Reader *r)
{
    uint64_t v = get_leb(r);
    if (v > UINT32_MAX)
        bad(r, "integer too large in %s", r->ctx);
    return (uint32_t)v;
}

static int64_t get_s64(Reader *r)
{
    uint64_t v = get_leb(r);
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static uint32_t get_opt(Reader *r)
{
    uint32_t v = get_u32(r);
    return v == 0 ? VM_NONE : v - 1;
}

/* A count of entries that take at least one byte each. */
static uint32_t get_count(Reader *r)
{
    uint32_t n = get_u32(r);
    if (n > (size_t)(r->end - r->p))
        bad(r, "truncated in %s (%u entries, %zu bytes left)", r->ctx, n, (size_t)(r->end - r->p));
    return n;
}

static void *alloc(Reader *r, size_t n, size_t size)
{
    if (n == 0)
        return NULL;
    void *p = calloc(n, size);
    if (!p)
        bad(r, "out of memory in %s", r->ctx);
    return p;
}

static char *get_bytes(Reader *r, uint32_t *lenp)
{
    uint32_t len = get_u32(r);
    if (len > (size_t)(r->end - r->p))
        bad(r, "truncated in %s", r->ctx);
    char *s = malloc((size_t)len + 1);
    if (!s)
        bad(r, "out of memory in %s", r->ctx);
    memcpy(s, r->p, len);
    s[len] = 0;
    r->p += len;
    *lenp = len;
    return s;
}

/* Table names must be names of the text form ([A-Za-z_$][A-Za-z0-9_$.]*)
 * so that every module we accept disassembles to text that reassembles.
 * *dst is set before checking so the caller's module owns the allocation
 * either way. */
static void get_name(Reader *r, char **dst)
{
    uint32_t len;
    char *s = *dst = get_bytes(r, &len);
    bool ok = len > 0 && (isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == '$');
    for (uint32_t i = 1; ok && i < len; i++)
        ok = isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '$' || s[i] == '.';
    if (!ok)
        bad(r, "bad name in %s", r->ctx);
}

/* Module, source and file names are free text (but C strings). */
static void get_text(Reader *r, char **dst)
{
    uint32_t len;
    *dst = get_bytes(r, &len);
    if (strlen(*dst) != len)
        bad(r, "NUL byte in %s", r->ctx);
}

static void get_list(Reader *r, uint32_t *n, uint32_t **v)
{
    uint32_t cnt = get_count(r);
    *v = alloc(r, cnt, sizeof **v);
    *n = cnt;
    for (uint32_t i = 0; i < cnt; i++)
        (*v)[i] = get_u32(r);
}

static double get_f64(Reader *r)
{
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++)
        bits |= (uint64_t)get_byte(r) << (8 * i);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* Operands in a/b/c must fit int32_t; anything larger is not a module we wrote. */
static int32_t get_operand(Reader *r, char kind, const VmMethod *mm, uint32_t pc)
{
    if (kind == 's') {
        int64_t v = get_s64(r);
        if (v < INT32_MIN || v > INT32_MAX)
            bad(r, "immediate %lld out of range in method %s at offset %u", (long long)v, mm->name, pc);
        return (int32_t)v;
    }
    uint32_t v = get_u32(r);
    if (kind == 'D') {
        if (v == 0)
            return -1;
        v--;
    }
    if (v > INT32_MAX)
        bad(r, "operand %u out of range in method %s at offset %u", v, mm->name, pc);
    return (int32_t)v;
}

static void read_types(Reader *r, VmModule *m)
{
    setctx(r, "types");
    uint32_t n = get_count(r);
    m->types = alloc(r, n, sizeof *m->types);
    m->ntypes = n;
    for (uint32_t i = 0; i < n; i++) {
        VmType *t = &m->types[i];
        setctx(r, "type %u", i);
        t->kind = get_byte(r);
        if (t->kind >= VM_T_COUNT)
            bad(r, "unknown type kind %u in type %u", t->kind, i);
        switch (t->kind) {
        case VM_T_CLASS:
        case VM_T_IFACE:
            t->ref = get_u32(r);
            break;
        case VM_T_ARRAY:
            t->ref = get_u32(r);
            if (t->ref >= i)
                bad(r, "type %u refers to type %u (must be < %u)", i, t->ref, i);
            break;
        case VM_T_FUNC:
            t->ret = get_u32(r);
            if (t->ret >= i)
                bad(r, "type %u refers to type %u (must be < %u)", i, t->ret, i);
            get_list(r, &t->nparams, &t->params);
            for (uint32_t k = 0; k < t->nparams; k++)
                if (t->params[k] >= i)
                    bad(r, "type %u refers to type %u (must be < %u)", i, t->params[k], i);
            break;
        default:
            break;
        }
    }
}

static void read_methods(Reader *r, VmModule *m)
{
    setctx(r, "methods");
    uint32_t n = get_count(r);
    m->methods = alloc(r, n, sizeof *m->methods);
    m->nmethods = n;
    for (uint32_t i = 0; i < n; i++) {
        VmMethod *mm = &m->methods[i];
        mm->owner = VM_NONE;
        mm->slot = -1;
        setctx(r, "method %u", i);
        get_name(r, &mm->name);
        mm->flags = get_u32(r);
        if (mm->flags & ~(uint32_t)(VM_M_STATIC | VM_M_ABSTRACT | VM_M_LAMBDA))
            bad(r, "unknown flags 0x%x in method %s", mm->flags, mm->name);
        mm->owner = get_opt(r);
        mm->nparams = get_u32(r);
        mm->ret = get_u32(r);
        get_list(r, &mm->nregs, &mm->regs);
        get_list(r, &mm->ncaps, &mm->caps);
        setctx(r, "method %u code", i);
        uint32_t ncode = get_count(r);
        mm->code = alloc(r, ncode, sizeof *mm->code);
        mm->ncode = ncode;
        for (uint32_t pc = 0; pc < ncode; pc++) {
            VmInsn *in = &mm->code[pc];
            uint8_t op = get_byte(r);
            if (op >= VM_OP_COUNT)
                bad(r, "unknown opcode %u in method %s at offset %u", op, mm->name, pc);
            in->op = op;
            int32_t *slots[3] = {&in->a, &in->b, &in->c};
            int s = 0;
            for (const char *o = vm_op_info[op].operands; *o; o++) {
                if (*o == 'i')
                    in->k.i = get_s64(r);
                else if (*o == 'f')
                    in->k.f = get_f64(r);
                else if (s < 3)
                    *slots[s++] = get_operand(r, *o, mm, pc);
            }
        }
        setctx(r, "method %u lines", i);
        uint32_t nl = get_count(r);
        mm->lines = alloc(r, nl, sizeof *mm->lines);
        mm->nlines = nl;
        uint32_t pc = 0;
        for (uint32_t k = 0; k < nl; k++) {
            pc += get_u32(r);  /* wraps like the writer */
            mm->lines[k].pc = pc;
            mm->lines[k].line = get_u32(r);
        }
        setctx(r, "method %u file", i);
        mm->file = get_u32(r);  /* the verifier checks the range */
    }
}

static void read_module(Reader *r, VmModule *m)
{
    setctx(r, "magic");
    for (int i = 0; i < 4; i++)
        if (get_byte(r) != (uint8_t)VM_FORMAT_MAGIC[i])
            bad(r, "not a tally module (bad magic)");
    setctx(r, "version");
    uint32_t version = get_u32(r);
    if (version != VM_FORMAT_VERSION)
        bad(r, "unsupported format version %u (expected %u)", version, VM_FORMAT_VERSION);

    setctx(r, "constants");
    uint32_t n = get_count(r);
    m->consts = alloc(r, n, sizeof *m->consts);
    m->nconsts = n;
    for (uint32_t i = 0; i < n; i++) {
        setctx(r, "constant %u", i);
        m->consts[i].bytes = get_bytes(r, &m->consts[i].len);
    }

    setctx(r, "files");
    n = get_count(r);
    m->files = alloc(r, n, sizeof *m->files);
    m->nfiles = n;
    for (uint32_t i = 0; i < n; i++) {
        setctx(r, "file %u", i);
        get_text(r, &m->files[i]);
    }

    read_types(r, m);

    setctx(r, "classes");
    n = get_count(r);
    m->classes = alloc(r, n, sizeof *m->classes);
    m->nclasses = n;
    for (uint32_t i = 0; i < n; i++) {
        VmClass *c = &m->classes[i];
        c->super = VM_NONE;
        setctx(r, "class %u", i);
        get_name(r, &c->name);
        c->flags = get_u32(r);
        if (c->flags & ~(uint32_t)(VM_C_ABSTRACT | VM_C_INTERFACE))
            bad(r, "unknown flags 0x%x in class %s", c->flags, c->name);
        c->super = get_opt(r);
        get_list(r, &c->nifaces, &c->ifaces);
        get_list(r, &c->nvtable, &c->vtable);
        /* imap: a count of pairs, then the pairs */
        uint32_t np = get_count(r);
        if (np > UINT32_MAX / 2)
            bad(r, "imap of class %s too large (%u pairs)", c->name, np);
        c->imap = alloc(r, 2 * np, sizeof *c->imap);
        c->nimap = np;
        for (uint32_t k = 0; k < 2 * np; k++)
            c->imap[k] = get_u32(r);
    }

    setctx(r, "fields");
    n = get_count(r);
    m->fields = alloc(r, n, sizeof *m->fields);
    m->nfields = n;
    for (uint32_t i = 0; i < n; i++) {
        setctx(r, "field %u", i);
        get_name(r, &m->fields[i].name);
        m->fields[i].owner = get_u32(r);
        m->fields[i].type = get_u32(r);
    }

    read_methods(r, m);

    setctx(r, "natives");
    n = get_count(r);
    m->natives = alloc(r, n, sizeof *m->natives);
    m->nnatives = n;
    for (uint32_t i = 0; i < n; i++) {
        VmNative *nv = &m->natives[i];
        setctx(r, "native %u", i);
        get_name(r, &nv->name);
        get_text(r, &nv->lib);
        get_text(r, &nv->symbol);
        get_list(r, &nv->nparams, &nv->params);
        nv->ret = get_u32(r);
    }

    setctx(r, "globals");
    n = get_count(r);
    m->globals = alloc(r, n, sizeof *m->globals);
    m->nglobals = n;
    for (uint32_t i = 0; i < n; i++) {
        setctx(r, "global %u", i);
        get_name(r, &m->globals[i].name);
        m->globals[i].type = get_u32(r);
    }

    setctx(r, "header");
    get_text(r, &m->name);
    get_text(r, &m->source);
    m->main = get_opt(r);
    m->init = get_opt(r);
    if (r->p != r->end)
        bad(r, "%zu trailing bytes after the header", (size_t)(r->end - r->p));
}

VmModule *vm_module_read(const uint8_t *data, size_t len, VmError *err)
{
    Reader r = {.p = data, .end = data + len, .err = err};
    VmModule *m = vm_module_new();
    if (setjmp(r.fail)) {
        vm_module_free(m);
        return NULL;
    }
    if (!data && len)
        bad(&r, "no data");
    read_module(&r, m);
    return m;
}
