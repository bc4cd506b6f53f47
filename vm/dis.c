/* vm/dis.c — prints the canonical .tla text of a module.
 *
 * Input: any module the reader or assembler produced, verified or not.
 * Output: text on a FILE in the order module, source, files, main, init,
 * consts, types, globals, natives, classes/interfaces (with their fields),
 * methods — every table in table order, so vm_asm reproduces the module
 * exactly: the `files`, `consts` and `types` lines pre-populate the
 * tables, and an index that a name, path or spelled-out type would not
 * reproduce (out of range, a duplicate entry that is not the first of its
 * kind, a file entry equal to the source) prints as `#N`, which the
 * assembler takes literally.  Jump targets get labels L<pc>; floats print
 * as the shortest %.15g/%.16g/%.17g text that reads back exactly.  Never
 * crashes on bad indices: it prints `#N` or `?`.
 *
 * vm_dis_source adds a `// N: text` comment after each `line N` directive
 * with line N of the method's source file, read from disk once per file
 * on first use; an unreadable file or a line past its end adds nothing, so
 * the output still reassembles to the same module.
 */
#include "vm.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A source file's text split into lines, for vm_dis_source. */
typedef struct SrcText {
    bool tried;          /* read attempted (success or not) */
    VmBuf text;
    uint32_t nlines;
    size_t *starts;      /* nlines + 1 offsets: line k is [starts[k-1], starts[k]) */
} SrcText;

typedef struct Dis {
    const VmModule *m;
    FILE *out;
    uint32_t *tcanon;    /* first structurally equal type, per type */
    uint32_t *kcanon;    /* first equal constant, per constant */
    bool *fcanon;        /* per VmMethod.file value 1..nfiles: `file "path"`
                            assembles back to this index */
    SrcText *src;        /* vm_dis_source: per file index 0..nfiles; else NULL */
} Dis;

static void put_escaped(FILE *out, const char *s, size_t n)
{
    fputc('"', out);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        case '\\': fputs("\\\\", out); break;
        case '"': fputs("\\\"", out); break;
        case 0: fputs("\\0", out); break;
        default:
            if (c < 0x20 || c == 0x7f)
                fprintf(out, "\\x%02x", c);
            else
                fputc(c, out);
        }
    }
    fputc('"', out);
}

static void put_float(FILE *out, double d)
{
    if (isnan(d)) {
        fputs(signbit(d) ? "-nan" : "nan", out);
        return;
    }
    if (isinf(d)) {
        fputs(d < 0 ? "-inf" : "inf", out);
        return;
    }
    char buf[48];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    if (!strpbrk(buf, ".e"))
        strcat(buf, ".0");
    fputs(buf, out);
}

/* ---- types -------------------------------------------------------------- */

static void type_ref(Dis *d, uint32_t t, int depth);

/* The structure of type t (its components by reference). */
static void type_shape(Dis *d, uint32_t t, int depth)
{
    const VmModule *m = d->m;
    static const char *const prim[] = {
        [VM_T_VOID] = "void", [VM_T_INT] = "int", [VM_T_FLOAT] = "float",
        [VM_T_BOOL] = "bool", [VM_T_STRING] = "string", [VM_T_OBJECT] = "Object",
    };
    const VmType *ty = &m->types[t];
    if (depth > 64) {
        fputc('?', d->out);
        return;
    }
    switch (ty->kind) {
    case VM_T_CLASS:
    case VM_T_IFACE: {
        bool ok = ty->ref < m->nclasses &&
                  !(m->classes[ty->ref].flags & VM_C_INTERFACE) == (ty->kind == VM_T_CLASS);
        fputs(ok ? m->classes[ty->ref].name : "?", d->out);
        break;
    }
    case VM_T_ARRAY: {
        uint32_t e = ty->ref;
        /* `fn(...):R[]` would read as a function returning an array */
        bool group = e < m->ntypes && d->tcanon[e] == e && m->types[e].kind == VM_T_FUNC;
        if (group)
            fputc('(', d->out);
        type_ref(d, e, depth + 1);
        fputs(group ? ")[]" : "[]", d->out);
        break;
    }
    case VM_T_FUNC:
        fputs("fn(", d->out);
        for (uint32_t i = 0; i < ty->nparams; i++) {
            if (i)
                fputc(',', d->out);
            type_ref(d, ty->params[i], depth + 1);
        }
        fputc(')', d->out);
        if (!(ty->ret < m->ntypes && m->types[ty->ret].kind == VM_T_VOID && d->tcanon[ty->ret] == ty->ret)) {
            fputc(':', d->out);
            type_ref(d, ty->ret, depth + 1);
        }
        break;
    default:
        fputs(ty->kind < VM_T_CLASS ? prim[ty->kind] : "?", d->out);
    }
}

/* A reference to type t: spelled out when that resolves back to t. */
static void type_ref(Dis *d, uint32_t t, int depth)
{
    if (t >= d->m->ntypes || d->tcanon[t] != t)
        fprintf(d->out, "#%u", t);
    else
        type_shape(d, t, depth);
}

static void type_list(Dis *d, uint32_t n, const uint32_t *v, uint32_t from, const char *sep)
{
    for (uint32_t i = from; i < n; i++) {
        if (i > from)
            fputs(sep, d->out);
        type_ref(d, v[i], 0);
    }
}

/* ---- names -------------------------------------------------------------- */

static void class_ref(Dis *d, uint32_t c)
{
    if (c < d->m->nclasses)
        fputs(d->m->classes[c].name, d->out);
    else
        fprintf(d->out, "#%u", c);
}

static void method_ref(Dis *d, uint32_t k)
{
    if (k < d->m->nmethods)
        fputs(d->m->methods[k].name, d->out);
    else
        fprintf(d->out, "#%u", k);
}

static void const_ref(Dis *d, uint32_t k)
{
    if (k < d->m->nconsts && d->kcanon[k] == k)
        put_escaped(d->out, d->m->consts[k].bytes, d->m->consts[k].len);
    else
        fprintf(d->out, "#%u", k);
}

static void field_ref(Dis *d, uint32_t f)
{
    const VmModule *m = d->m;
    if (f < m->nfields && m->fields[f].owner < m->nclasses)
        fprintf(d->out, "%s.%s", m->classes[m->fields[f].owner].name, m->fields[f].name);
    else
        fprintf(d->out, "#%u", f);
}

/* ---- canonical indices -------------------------------------------------- */

static int cmp_const(const void *x, const void *y, void *ctx)
{
    const VmModule *m = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    const VmConst *ca = &m->consts[a], *cb = &m->consts[b];
    if (ca->len != cb->len)
        return ca->len < cb->len ? -1 : 1;
    int c = memcmp(ca->bytes, cb->bytes, ca->len);
    if (c)
        return c;
    return a < b ? -1 : a > b;
}

static void canonical(Dis *d)
{
    const VmModule *m = d->m;
    d->tcanon = calloc(m->ntypes + 1, sizeof *d->tcanon);
    d->kcanon = calloc(m->nconsts + 1, sizeof *d->kcanon);
    if (!d->tcanon || !d->kcanon)
        abort();
    for (uint32_t i = 0; i < m->ntypes; i++) {
        d->tcanon[i] = i;
        for (uint32_t j = 0; j < i; j++)
            if (d->tcanon[j] == j && vm_type_equal(m, j, i)) {
                d->tcanon[i] = j;
                break;
            }
    }
    d->fcanon = calloc(m->nfiles + 1, sizeof *d->fcanon);
    if (!d->fcanon)
        abort();
    const char *source = m->source ? m->source : "";  /* as header() prints it */
    for (uint32_t k = 1; k <= m->nfiles; k++) {
        const char *f = m->files ? m->files[k - 1] : NULL;
        bool ok = f && strcmp(f, source) != 0;
        for (uint32_t j = 1; ok && j < k; j++)
            ok = strcmp(m->files[j - 1] ? m->files[j - 1] : "", f) != 0;
        d->fcanon[k] = ok;
    }
    uint32_t *order = calloc(m->nconsts + 1, sizeof *order);
    if (!order)
        abort();
    for (uint32_t i = 0; i < m->nconsts; i++)
        order[i] = i;
    qsort_r(order, m->nconsts, sizeof *order, cmp_const, (void *)m);
    for (uint32_t i = 0; i < m->nconsts; i++) {
        bool same = i > 0 && m->consts[order[i]].len == m->consts[order[i - 1]].len &&
                    memcmp(m->consts[order[i]].bytes, m->consts[order[i - 1]].bytes, m->consts[order[i]].len) == 0;
        d->kcanon[order[i]] = same ? d->kcanon[order[i - 1]] : order[i];
    }
    free(order);
}

/* ---- declarations ------------------------------------------------------- */

static void header(Dis *d)
{
    const VmModule *m = d->m;
    FILE *out = d->out;
    fputs("module ", out);
    put_escaped(out, m->name ? m->name : "", m->name ? strlen(m->name) : 0);
    fputs("\nsource ", out);
    put_escaped(out, m->source ? m->source : "", m->source ? strlen(m->source) : 0);
    fputc('\n', out);
    for (uint32_t i = 0; i < m->nfiles; i++) {
        const char *f = m->files && m->files[i] ? m->files[i] : "";
        fputs(i % 8 ? ", " : i ? "\nfiles " : "files ", out);
        put_escaped(out, f, strlen(f));
    }
    if (m->nfiles)
        fputc('\n', out);
    if (m->main != VM_NONE) {
        fputs("main ", out);
        method_ref(d, m->main);
        fputc('\n', out);
    }
    if (m->init != VM_NONE) {
        fputs("init ", out);
        method_ref(d, m->init);
        fputc('\n', out);
    }
    for (uint32_t i = 0; i < m->nconsts; i++) {
        fputs(i % 8 ? ", " : i ? "\nconsts " : "consts ", out);
        put_escaped(out, m->consts[i].bytes, m->consts[i].len);
    }
    if (m->nconsts)
        fputc('\n', out);
    for (uint32_t i = 0; i < m->ntypes; i++) {
        fputs(i % 8 ? ", " : i ? "\ntypes " : "types ", out);
        type_shape(d, i, 0);
    }
    if (m->ntypes)
        fputc('\n', out);
}

static void tables(Dis *d)
{
    const VmModule *m = d->m;
    FILE *out = d->out;
    if (m->nglobals || m->nnatives)
        fputc('\n', out);
    for (uint32_t i = 0; i < m->nglobals; i++) {
        fprintf(out, "global %s ", m->globals[i].name);
        type_ref(d, m->globals[i].type, 0);
        fputc('\n', out);
    }
    for (uint32_t i = 0; i < m->nnatives; i++) {
        const VmNative *n = &m->natives[i];
        fprintf(out, "native %s (", n->name);
        type_list(d, n->nparams, n->params, 0, ", ");
        fputs(") : ", out);
        type_ref(d, n->ret, 0);
        fputs(" = ", out);
        if (!n->lib || !*n->lib) {
            fputs("builtin", out);
        } else {
            put_escaped(out, n->lib, strlen(n->lib));
        }
        fputc(' ', out);
        put_escaped(out, n->symbol ? n->symbol : "", n->symbol ? strlen(n->symbol) : 0);
        fputc('\n', out);
    }
    for (uint32_t i = 0; i < m->nclasses; i++) {
        const VmClass *c = &m->classes[i];
        bool iface = c->flags & VM_C_INTERFACE;
        fprintf(out, "\n%s %s", iface ? "interface" : "class", c->name);
        if (!iface && c->super != VM_NONE) {
            fputs(" extends ", out);
            class_ref(d, c->super);
        }
        for (uint32_t k = 0; k < c->nifaces; k++) {
            fputs(k ? ", " : iface ? " extends " : " implements ", out);
            class_ref(d, c->ifaces[k]);
        }
        if (c->flags & VM_C_ABSTRACT)
            fputs(" abstract", out);
        fputc('\n', out);
        for (uint32_t f = 0; f < m->nfields; f++) {
            if (m->fields[f].owner != i)
                continue;
            fprintf(out, "  field %s ", m->fields[f].name);
            type_ref(d, m->fields[f].type, 0);
            fputc('\n', out);
        }
        for (uint32_t k = 0; k < c->nvtable; k++) {
            fputs(k ? ", " : iface ? "  methods " : "  vtable ", out);
            method_ref(d, c->vtable[k]);
        }
        if (c->nvtable)
            fputc('\n', out);
        for (uint32_t k = 0; k < c->nimap && c->imap; k++) {
            fputs("  imap ", out);
            method_ref(d, c->imap[2 * k]);
            fputs(" = ", out);
            method_ref(d, c->imap[2 * k + 1]);
            fputc('\n', out);
        }
        fputs("end\n", out);
    }
    for (uint32_t f = 0; f < m->nfields; f++)
        if (m->fields[f].owner >= m->nclasses)
            fprintf(out, "// field %u (%s) has owner #%u, out of range\n", f, m->fields[f].name, m->fields[f].owner);
}

/* ---- methods ------------------------------------------------------------ */

static void operand(Dis *d, const VmMethod *mm, const VmInsn *in, char kind, int32_t v)
{
    FILE *out = d->out;
    switch (kind) {
    case 'i': fprintf(out, "%lld", (long long)in->k.i); break;
    case 'f': put_float(out, in->k.f); break;
    case 'd': case 'r': fprintf(out, "r%d", v); break;
    case 'D':
        if (v < 0)
            fputc('_', out);
        else
            fprintf(out, "r%d", v);
        break;
    case 's': case 'u': fprintf(out, "%d", v); break;
    case 'j':
        if (v >= 0 && (uint32_t)v < mm->ncode)
            fprintf(out, "L%d", v);
        else
            fprintf(out, "#%d", v);
        break;
    case 'k': const_ref(d, (uint32_t)v); break;
    case 't': type_ref(d, (uint32_t)v, 0); break;
    case 'F': field_ref(d, (uint32_t)v); break;
    case 'm': method_ref(d, (uint32_t)v); break;
    case 'c': class_ref(d, (uint32_t)v); break;
    case 'g':
        if ((uint32_t)v < d->m->nglobals)
            fputs(d->m->globals[v].name, out);
        else
            fprintf(out, "#%d", v);
        break;
    case 'n':
        if ((uint32_t)v < d->m->nnatives)
            fputs(d->m->natives[v].name, out);
        else
            fprintf(out, "#%d", v);
        break;
    default: fputc('?', out);
    }
}

/* ---- source lines (vm_dis_source) -------------------------------------- */

/* The text of file index k (0 = the module's source), or NULL. */
static SrcText *source_text(Dis *d, uint32_t k)
{
    const VmModule *m = d->m;
    if (!d->src || k > m->nfiles)
        return NULL;
    SrcText *s = &d->src[k];
    if (!s->tried) {
        s->tried = true;
        const char *path = k == 0 ? m->source : m->files ? m->files[k - 1] : NULL;
        struct stat st;
        /* a module names any path it likes: read regular files only, so
         * "/dev/zero" or a FIFO cannot hang the disassembler */
        if (!path || !*path || stat(path, &st) != 0 || !S_ISREG(st.st_mode)
            || !vm_read_file(path, &s->text, NULL)) {
            vm_buf_free(&s->text);
            return NULL;
        }
        size_t n = 1;
        for (size_t i = 0; i < s->text.len; i++)
            n += s->text.data[i] == '\n';
        if (n > UINT32_MAX)
            n = UINT32_MAX;
        s->starts = calloc(n + 1, sizeof *s->starts);
        if (!s->starts)
            abort();
        uint32_t l = 0;
        s->starts[l++] = 0;
        for (size_t i = 0; i < s->text.len && l < n; i++)
            if (s->text.data[i] == '\n')
                s->starts[l++] = i + 1;
        s->starts[l] = s->text.len + 1;  /* the last line has no '\n' */
        s->nlines = l;
    }
    return s->starts ? s : NULL;
}

/* `line N`, then in vm_dis_source the source text of line N as a comment
 * (trimmed; control bytes shown as '?' so the comment stays one line). */
static void line_directive(Dis *d, const VmMethod *mm, uint32_t line)
{
    FILE *out = d->out;
    fprintf(out, "  line %u\n", line);
    SrcText *s = source_text(d, mm->file);
    if (!s || line == 0 || line > s->nlines)
        return;
    const uint8_t *b = s->text.data + s->starts[line - 1];
    const uint8_t *e = s->text.data + s->starts[line] - 1;  /* at the '\n' or end */
    while (b < e && isspace(*b))
        b++;
    while (e > b && isspace(e[-1]))
        e--;
    fprintf(out, "  // %u:", line);
    if (b < e)
        fputc(' ', out);
    for (; b < e; b++)
        fputc(*b < 0x20 || *b == 0x7f ? '?' : *b, out);
    fputc('\n', out);
}

static void method(Dis *d, const VmMethod *mm)
{
    FILE *out = d->out;
    fprintf(out, "\nmethod %s (", mm->name);
    for (uint32_t i = 0; i < mm->nparams; i++) {
        if (i)
            fputs(", ", out);
        if (i < mm->nregs)
            type_ref(d, mm->regs[i], 0);
        else
            fputc('?', out);
    }
    fputs(") : ", out);
    type_ref(d, mm->ret, 0);
    if (mm->owner != VM_NONE) {
        fputs(" owner ", out);
        class_ref(d, mm->owner);
    }
    if (mm->file != 0) {
        fputs(" file ", out);
        if (mm->file <= d->m->nfiles && d->fcanon[mm->file])
            put_escaped(out, d->m->files[mm->file - 1], strlen(d->m->files[mm->file - 1]));
        else
            fprintf(out, "#%u", mm->file);
    }
    if (mm->flags & VM_M_STATIC)
        fputs(" static", out);
    if (mm->flags & VM_M_ABSTRACT)
        fputs(" abstract", out);
    if (mm->flags & VM_M_LAMBDA)
        fputs(" lambda", out);
    fputc('\n', out);
    if (mm->flags & VM_M_ABSTRACT)
        return;
    if (mm->ncaps) {
        fputs("  caps ", out);
        type_list(d, mm->ncaps, mm->caps, 0, ", ");
        fputc('\n', out);
    }
    if (mm->nregs > mm->nparams) {
        fputs("  regs ", out);
        type_list(d, mm->nregs, mm->regs, mm->nparams, ", ");
        fputc('\n', out);
    }
    bool *target = calloc(mm->ncode + 1, sizeof *target);
    if (!target)
        abort();
    for (uint32_t pc = 0; pc < mm->ncode; pc++) {
        const VmInsn *in = &mm->code[pc];
        if (in->op >= VM_OP_COUNT)
            continue;
        const int32_t slots[3] = {in->a, in->b, in->c};
        int s = 0;
        for (const char *o = vm_op_info[in->op].operands; *o; o++) {
            if (*o == 'i' || *o == 'f')
                continue;
            if (*o == 'j' && s < 3 && slots[s] >= 0 && (uint32_t)slots[s] < mm->ncode)
                target[slots[s]] = true;
            s++;
        }
    }
    uint32_t li = 0;
    for (uint32_t pc = 0; pc < mm->ncode; pc++) {
        const VmInsn *in = &mm->code[pc];
        if (target[pc])
            fprintf(out, "L%u:\n", pc);
        for (; li < mm->nlines && mm->lines[li].pc <= pc; li++)
            line_directive(d, mm, mm->lines[li].line);
        if (in->op >= VM_OP_COUNT) {
            fprintf(out, "  ?op%u\n", in->op);
            continue;
        }
        fprintf(out, "  %s", vm_op_info[in->op].name);
        const int32_t slots[3] = {in->a, in->b, in->c};
        int s = 0;
        for (const char *o = vm_op_info[in->op].operands; *o; o++) {
            fputs(o == vm_op_info[in->op].operands ? " " : ", ", out);
            int32_t v = 0;
            if (*o != 'i' && *o != 'f')
                v = s < 3 ? slots[s++] : 0;
            operand(d, mm, in, *o, v);
        }
        fputc('\n', out);
    }
    for (; li < mm->nlines; li++)
        line_directive(d, mm, mm->lines[li].line);
    free(target);
    fputs("end\n", out);
}

static void dis(const VmModule *m, FILE *out, bool annotate)
{
    Dis d = {.m = m, .out = out};
    if (annotate) {
        d.src = calloc((size_t)m->nfiles + 1, sizeof *d.src);
        if (!d.src)
            abort();
    }
    canonical(&d);
    header(&d);
    tables(&d);
    for (uint32_t i = 0; i < m->nmethods; i++)
        method(&d, &m->methods[i]);
    if (d.src) {
        for (uint32_t k = 0; k <= m->nfiles; k++) {
            vm_buf_free(&d.src[k].text);
            free(d.src[k].starts);
        }
    }
    free(d.src);
    free(d.tcanon);
    free(d.kcanon);
    free(d.fcanon);
}

void vm_dis(const VmModule *m, FILE *out)
{
    dis(m, out, false);
}

void vm_dis_source(const VmModule *m, FILE *out)
{
    dis(m, out, true);
}
