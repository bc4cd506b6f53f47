/* jit/same.c — whether two of a bakeoff's variants compiled to the same
 * machine code (jit_asm_same).
 *
 * Input: two contexts' assembly texts (JitAsmView), each with the symbol
 * of its variant's clean code, the functions to leave out (variant 0's
 * context also holds the timed wrapper) and the
 * JitWhere descriptors its variant's code made.  Output: true when the
 * texts are the same up to
 *   - the names of local labels (.L…: numbered in order of first use),
 *   - the variant's own symbol,
 *   - the addresses of the descriptors (each codegen allocates its own;
 *     an address reads as its index, and the descriptors at equal
 *     indices must hold the same method and pc chain),
 *   - alignment and .text lines outside functions (lay_out puts every
 *     part on a page of its own anyway), .file and .ident.
 * Every other number, every other symbol and every instruction must be
 * equal: another callee, another constant, another order is "not the
 * same".  A false "not the same" only costs a bakeoff that runs as before.
 *
 * Why: with the `inline` client 63 of 68 bakeoffs of the AWFY benchmarks
 * compiled both variants to the same code, with `optlevel` 38 of 65 —
 * bakeoffs that could only time code placement, holding the one slot
 * (research.same_code, docs/auditing.md).
 */
#include "jit_int.h"

#include <stdlib.h>
#include <string.h>

/* The local-label names met so far, in order (their index is their
 * canonical name). */
typedef struct Labels {
    struct { const char *s; size_t n; } *v;
    size_t count, cap;
} Labels;

static size_t label_index(Labels *l, const char *s, size_t n)
{
    for (size_t i = 0; i < l->count; i++)
        if (l->v[i].n == n && !memcmp(l->v[i].s, s, n))
            return i;
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        void *v = realloc(l->v, cap * sizeof *l->v);
        if (!v)
            return SIZE_MAX;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->count].s = s;
    l->v[l->count].n = n;
    return l->count++;
}

static bool starts_with(const char *s, const char *e, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(e - s) >= n && !memcmp(s, word, n) && (s + n == e || !jit_ident_char(s[n]));
}

/* The symbol a directive line names (".globl X", ".size X, .-X"), or
 * NULL: *n its length. */
static const char *directive_name(const char *s, const char *e, const char *dir, size_t *n)
{
    if (!starts_with(s, e, dir))
        return NULL;
    s += strlen(dir);
    while (s < e && (*s == ' ' || *s == '\t'))
        s++;
    const char *p = s;
    while (p < e && jit_ident_char(*p))
        p++;
    *n = (size_t)(p - s);
    return s;
}

static bool is_name(const char *s, size_t n, const char *name)
{
    return name && strlen(name) == n && !memcmp(s, name, n);
}

/* The descriptor at address x among v's, as its index, or -1. */
static long where_index(const JitAsmView *v, unsigned long long x)
{
    for (uint32_t i = 0; i < v->nwheres; i++)
        if ((unsigned long long)(uintptr_t)v->wheres[i] == x)
            return (long)i;
    return -1;
}

/* One line, canonical, onto out. */
static bool canon_line(const JitAsmView *v, Labels *l, const char *s, const char *e, VmBuf *out)
{
    size_t nself = v->self ? strlen(v->self) : 0;
    bool quoted = false;
    for (const char *p = s; p < e;) {
        bool starts = p == s || !jit_ident_char(p[-1]);
        char buf[32];
        if (quoted || *p == '"') {
            if (quoted && *p == '\\' && p + 1 < e) {
                vm_buf_put(out, p, 2);
                p += 2;
                continue;
            }
            if (*p == '"')
                quoted = !quoted;
            vm_buf_put(out, p++, 1);
        } else if (starts && *p == '.' && p + 2 < e && p[1] == 'L' && jit_ident_char(p[2])) {
            const char *q = p + 2;
            while (q < e && jit_ident_char(*q))
                q++;
            size_t i = label_index(l, p, (size_t)(q - p));
            if (i == SIZE_MAX)
                return false;
            vm_buf_put(out, buf, (size_t)snprintf(buf, sizeof buf, ".L%zu", i));
            p = q;
        } else if (starts && nself && (size_t)(e - p) >= nself && !memcmp(p, v->self, nself) &&
                   (p + nself == e || !jit_ident_char(p[nself]) || p[nself] == '.')) {
            vm_buf_put(out, "SELF", 4);
            p += nself;
        } else if ((starts || p[-1] == '$') && *p >= '0' && *p <= '9') {
            const char *q = p;
            unsigned long long x = 0;
            while (q < e && *q >= '0' && *q <= '9')
                x = x * 10 + (unsigned)(*q++ - '0');
            long w = q < e && jit_ident_char(*q) ? -1 : where_index(v, x);
            if (w >= 0)
                vm_buf_put(out, buf, (size_t)snprintf(buf, sizeof buf, "W%ld", w));
            else
                vm_buf_put(out, p, (size_t)(q - p));
            p = q;
        } else {
            vm_buf_put(out, p++, 1);
        }
    }
    vm_buf_put(out, "\n", 1);
    return true;
}

/* v's text, canonical (see the top), onto out.  False: out of memory. */
static bool canon(const JitAsmView *v, VmBuf *out)
{
    Labels l = {0};
    bool ok = true, in_fn = false;
    const char *skipping = NULL;
    const char *t = v->text, *end = v->text + v->len;
    for (const char *i = t; i < end && ok;) {
        const char *e = memchr(i, '\n', (size_t)(end - i));
        if (!e)
            e = end;
        const char *s = i;
        i = e < end ? e + 1 : e;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        size_t n;
        const char *name;
        if (skipping) {
            if ((name = directive_name(s, e, ".size", &n)) && is_name(name, n, skipping))
                skipping = NULL;
            continue;
        }
        if ((name = directive_name(s, e, ".globl", &n)) && (is_name(name, n, v->skip[0]) || is_name(name, n, v->skip[1]))) {
            skipping = is_name(name, n, v->skip[0]) ? v->skip[0] : v->skip[1];
            continue;
        }
        if (s == e || starts_with(s, e, ".file") || starts_with(s, e, ".ident"))
            continue;
        if (starts_with(s, e, ".type") && memmem(s, (size_t)(e - s), "@function", 9))
            in_fn = true;
        if (!in_fn && (starts_with(s, e, ".p2align") || starts_with(s, e, ".align") || starts_with(s, e, ".balign") ||
                       starts_with(s, e, ".text")))
            continue;
        if (starts_with(s, e, ".size"))
            in_fn = false;
        ok = canon_line(v, &l, s, e, out);
    }
    free(l.v);
    return ok;
}

static bool where_same(const JitWhere *a, const JitWhere *b)
{
    if (a->n != b->n)
        return false;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->lv[i].m != b->lv[i].m || a->lv[i].pc != b->lv[i].pc)
            return false;
    return true;
}

bool jit_asm_same(const JitAsmView *a, const JitAsmView *b)
{
    if (a->nwheres != b->nwheres)
        return false;
    for (uint32_t i = 0; i < a->nwheres; i++)
        if (!where_same(a->wheres[i], b->wheres[i]))
            return false;
    VmBuf ca = {0}, cb = {0};
    bool same = canon(a, &ca) && canon(b, &cb) && ca.len == cb.len && !memcmp(ca.data, cb.data, ca.len);
    vm_buf_free(&ca);
    vm_buf_free(&cb);
    return same;
}
