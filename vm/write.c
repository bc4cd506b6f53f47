/* vm/write.c — encodes a VmModule as .tlb bytes.
 *
 * Input: a module (assembled, read, or built by a compiler; need not be
 * verified).  Output: appended to a VmBuf, in the layout of
 * docs/bytecode.md "Binary form": magic, version, then the sections
 * constants, files, types, classes, fields, methods, natives, globals,
 * header.
 * Invariant: vm_module_read(vm_module_write(m)) reproduces every table
 * field that is part of the format, so write∘read∘write is byte-exact.
 * Instruction operands follow each opcode's operand string in
 * opcodes.def; nothing here lists opcodes by hand.
 */
#include "vm.h"

#include <string.h>

static void put_u(VmBuf *b, uint64_t v)
{
    uint8_t t[10];
    size_t n = 0;
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        if (v)
            byte |= 0x80;
        t[n++] = byte;
    } while (v);
    vm_buf_put(b, t, n);
}

static void put_s(VmBuf *b, int64_t v)
{
    put_u(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* Optional indices: VM_NONE as 0, others as index + 1. */
static void put_opt(VmBuf *b, uint32_t v)
{
    put_u(b, v == VM_NONE ? 0 : (uint64_t)v + 1);
}

static void put_bytes(VmBuf *b, const char *s, uint32_t len)
{
    put_u(b, len);
    if (len)
        vm_buf_put(b, s, len);
}

static void put_name(VmBuf *b, const char *s)
{
    put_bytes(b, s ? s : "", s ? (uint32_t)strlen(s) : 0);
}

static void put_list(VmBuf *b, uint32_t n, const uint32_t *v)
{
    put_u(b, n);
    for (uint32_t i = 0; i < n; i++)
        put_u(b, v ? v[i] : 0);
}

static void put_f64(VmBuf *b, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    uint8_t t[8];
    for (int i = 0; i < 8; i++)
        t[i] = (uint8_t)(bits >> (8 * i));
    vm_buf_put(b, t, 8);
}

static void put_insn(VmBuf *b, const VmInsn *in)
{
    uint8_t op = (uint8_t)in->op;
    vm_buf_put(b, &op, 1);
    if (in->op >= VM_OP_COUNT)
        return;  /* the reader rejects it; nothing sane to encode */
    const int32_t slots[3] = {in->a, in->b, in->c};
    int s = 0;
    for (const char *o = vm_op_info[in->op].operands; *o; o++) {
        if (*o == 'i') {
            put_s(b, in->k.i);
        } else if (*o == 'f') {
            put_f64(b, in->k.f);
        } else {
            int32_t v = s < 3 ? slots[s] : 0;
            s++;
            if (*o == 'D')
                put_u(b, v < 0 ? 0 : (uint64_t)v + 1);
            else if (*o == 's')
                put_s(b, v);
            else
                put_u(b, (uint32_t)v);
        }
    }
}

void vm_module_write(const VmModule *m, VmBuf *out)
{
    vm_buf_put(out, VM_FORMAT_MAGIC, 4);
    put_u(out, VM_FORMAT_VERSION);

    put_u(out, m->nconsts);
    for (uint32_t i = 0; i < m->nconsts; i++)
        put_bytes(out, m->consts[i].bytes, m->consts[i].len);

    put_u(out, m->nfiles);
    for (uint32_t i = 0; i < m->nfiles; i++)
        put_name(out, m->files ? m->files[i] : NULL);

    put_u(out, m->ntypes);
    for (uint32_t i = 0; i < m->ntypes; i++) {
        const VmType *t = &m->types[i];
        vm_buf_put(out, &t->kind, 1);
        switch (t->kind) {
        case VM_T_CLASS:
        case VM_T_IFACE:
        case VM_T_ARRAY:
            put_u(out, t->ref);
            break;
        case VM_T_FUNC:
            put_u(out, t->ret);
            put_list(out, t->nparams, t->params);
            break;
        default:
            break;
        }
    }

    put_u(out, m->nclasses);
    for (uint32_t i = 0; i < m->nclasses; i++) {
        const VmClass *c = &m->classes[i];
        put_name(out, c->name);
        put_u(out, c->flags);
        put_opt(out, c->super);
        put_list(out, c->nifaces, c->ifaces);
        put_list(out, c->nvtable, c->vtable);
        put_u(out, c->nimap);
        for (uint32_t k = 0; k < 2 * c->nimap; k++)
            put_u(out, c->imap ? c->imap[k] : 0);
    }

    put_u(out, m->nfields);
    for (uint32_t i = 0; i < m->nfields; i++) {
        const VmField *f = &m->fields[i];
        put_name(out, f->name);
        put_u(out, f->owner);
        put_u(out, f->type);
    }

    put_u(out, m->nmethods);
    for (uint32_t i = 0; i < m->nmethods; i++) {
        const VmMethod *mm = &m->methods[i];
        put_name(out, mm->name);
        put_u(out, mm->flags);
        put_opt(out, mm->owner);
        put_u(out, mm->nparams);
        put_u(out, mm->ret);
        put_list(out, mm->nregs, mm->regs);
        put_list(out, mm->ncaps, mm->caps);
        put_u(out, mm->ncode);
        for (uint32_t k = 0; k < mm->ncode; k++)
            put_insn(out, &mm->code[k]);
        put_u(out, mm->nlines);
        uint32_t prev = 0;
        for (uint32_t k = 0; k < mm->nlines; k++) {
            put_u(out, (uint32_t)(mm->lines[k].pc - prev));  /* wraps like the reader */
            put_u(out, mm->lines[k].line);
            prev = mm->lines[k].pc;
        }
        put_u(out, mm->file);
    }

    put_u(out, m->nnatives);
    for (uint32_t i = 0; i < m->nnatives; i++) {
        const VmNative *n = &m->natives[i];
        put_name(out, n->name);
        put_name(out, n->lib);
        put_name(out, n->symbol);
        put_list(out, n->nparams, n->params);
        put_u(out, n->ret);
    }

    put_u(out, m->nglobals);
    for (uint32_t i = 0; i < m->nglobals; i++) {
        put_name(out, m->globals[i].name);
        put_u(out, m->globals[i].type);
    }

    put_name(out, m->name);
    put_name(out, m->source);
    put_opt(out, m->main);
    put_opt(out, m->init);
}
