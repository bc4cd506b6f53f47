/* lang/diag.c — the front end's plumbing: arena allocation, name interning,
 * pointer-keyed hash maps, and error reporting.
 *
 * Input: requests from the other lang/ files.  Output: memory that lives
 * until tl_compiler_free, and diagnostics on TlCompiler.diag in the form
 *   file:line:col: error: message
 *       the source line
 *       ^
 * Invariants: an interned name is a unique pointer per spelling; maps never
 * hold a NULL k1 and k2 together with a NULL value (lookups of missing keys
 * return NULL); only the first max_errors errors are printed, all counted.
 */
#include "ast.h"

#include <stdlib.h>
#include <string.h>

const char *const tl_tok_text[TK_COUNT] = {
#define TOK(name, text) [TK_##name] = text,
#define KW(name, text) [TK_##name] = "'" text "'",
#include "tokens.def"
#undef TOK
#undef KW
};

static const char *const diag_fmt[TL_D_COUNT] = {
#define DIAG(name, fmt) [TL_D_##name] = fmt,
#include "diag.def"
#undef DIAG
};

/* ---- arena --------------------------------------------------------------- */

struct TlChunk {
    TlChunk *next;
    size_t used, cap;
    max_align_t data[];
};

void *tl_alloc(TlCompiler *c, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    TlChunk *k = c->arena;
    if (!k || k->cap - k->used < n) {
        size_t cap = n > 65536 ? n : 65536;
        k = malloc(sizeof *k + cap);
        if (!k)
            abort();  /* malloc failure outside the GC heap: nothing sane left */
        k->next = c->arena;
        k->used = 0;
        k->cap = cap;
        c->arena = k;
    }
    void *p = (char *)k->data + k->used;
    k->used += n;
    memset(p, 0, n);
    return p;
}

char *tl_strndup(TlCompiler *c, const char *s, size_t n)
{
    char *p = tl_alloc(c, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void *tl_grow(TlCompiler *c, void *arr, uint32_t n, uint32_t *cap, size_t elem)
{
    if (n < *cap)
        return arr;
    uint32_t nc = *cap ? *cap * 2 : 8;
    void *p = tl_alloc(c, nc * elem);
    if (n)
        memcpy(p, arr, n * elem);
    *cap = nc;
    return p;
}

/* ---- maps ---------------------------------------------------------------- */

static size_t hash_ptrs(const void *a, const void *b)
{
    uint64_t h = (uint64_t)(uintptr_t)a * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)(uintptr_t)b + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
    return (size_t)(h ^ (h >> 31));
}

void *tl_map_get(const TlMap *m, const void *k1, const void *k2)
{
    if (!m->cap)
        return NULL;
    for (size_t i = hash_ptrs(k1, k2) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        const TlMapEnt *e = &m->tab[i];
        if (!e->val)
            return NULL;
        if (e->k1 == k1 && e->k2 == k2)
            return e->val;
    }
}

static void map_insert(TlMap *m, const void *k1, const void *k2, void *val)
{
    for (size_t i = hash_ptrs(k1, k2) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        TlMapEnt *e = &m->tab[i];
        if (!e->val) {
            *e = (TlMapEnt){k1, k2, val};
            m->n++;
            return;
        }
        if (e->k1 == k1 && e->k2 == k2) {
            e->val = val;
            return;
        }
    }
}

/* val must not be NULL (NULL marks an empty slot; there is no removal). */
void tl_map_put(TlMap *m, const void *k1, const void *k2, void *val)
{
    if ((m->n + 1) * 2 > m->cap) {
        TlMap nm = {.cap = m->cap ? m->cap * 2 : 64};
        nm.tab = calloc(nm.cap, sizeof *nm.tab);
        if (!nm.tab)
            abort();
        for (size_t i = 0; i < m->cap; i++)
            if (m->tab[i].val)
                map_insert(&nm, m->tab[i].k1, m->tab[i].k2, m->tab[i].val);
        free(m->tab);
        *m = nm;
    }
    map_insert(m, k1, k2, val);
}

void tl_map_free(TlMap *m)
{
    free(m->tab);
    m->tab = NULL;
    m->cap = m->n = 0;
}

/* ---- interning ----------------------------------------------------------- */

/* The interned table is a TlMap whose k1 is the string and k2 its hash:
 * lookups scan the probe sequence of the hash comparing contents. */
const char *tl_intern(TlCompiler *c, const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    TlMap *m = &c->interned;
    if (m->cap) {
        for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
            TlMapEnt *e = &m->tab[i];
            if (!e->val)
                break;
            const char *t = e->k1;
            if ((uint64_t)(uintptr_t)e->k2 == h && strlen(t) == n && memcmp(t, s, n) == 0)
                return t;
        }
    }
    char *copy = tl_strndup(c, s, n);
    if ((m->n + 1) * 2 > m->cap) {
        TlMap nm = {.cap = m->cap ? m->cap * 2 : 256};
        nm.tab = calloc(nm.cap, sizeof *nm.tab);
        if (!nm.tab)
            abort();
        for (size_t i = 0; i < m->cap; i++) {
            TlMapEnt *e = &m->tab[i];
            if (!e->val)
                continue;
            size_t j = (uint64_t)(uintptr_t)e->k2 & (nm.cap - 1);
            while (nm.tab[j].val)
                j = (j + 1) & (nm.cap - 1);
            nm.tab[j] = *e;
            nm.n++;
        }
        free(m->tab);
        *m = nm;
    }
    size_t j = h & (m->cap - 1);
    while (m->tab[j].val)
        j = (j + 1) & (m->cap - 1);
    m->tab[j] = (TlMapEnt){copy, (void *)(uintptr_t)h, copy};
    m->n++;
    return copy;
}

/* ---- errors -------------------------------------------------------------- */

const char *tl_pos_str(TlCompiler *c, TlPos pos)
{
    const char *path = pos.file < c->nfiles ? c->files[pos.file]->path : "?";
    size_t n = strlen(path) + 32;
    char *s = tl_alloc(c, n);
    snprintf(s, n, "%s:%u:%u", path, pos.line, pos.col);
    return s;
}

/* Prints the source line of pos and a caret under its column; tabs in the
 * line are kept in the caret line so the caret lines up. */
static void show_line(TlCompiler *c, TlPos pos)
{
    if (pos.file >= c->nfiles)
        return;
    TlFile *f = c->files[pos.file];
    if (!f->lines || pos.line == 0 || pos.line > f->nlines)
        return;
    const char *s = f->text + f->lines[pos.line - 1];
    const char *end = f->text + f->len;
    size_t n = 0;
    while (s + n < end && s[n] != '\n' && s[n] != '\r' && n < 400)
        n++;
    fputs("    ", c->diag);
    for (size_t i = 0; i < n; i++)
        fputc(s[i] == 0 ? ' ' : s[i], c->diag);
    fputs("\n    ", c->diag);
    for (size_t i = 0; i + 1 < pos.col && i < n; i++)
        fputc(s[i] == '\t' ? '\t' : ' ', c->diag);
    fputs("^\n", c->diag);
}

void tl_verror(TlCompiler *c, TlPos pos, TlDiag d, va_list ap)
{
    c->nerrors++;
    if (c->nerrors > c->max_errors || !c->diag)
        return;
    char msg[1024];
    vsnprintf(msg, sizeof msg, diag_fmt[d], ap);
    if (pos.line)
        fprintf(c->diag, "%s:%u:%u: error: %s\n", pos.file < c->nfiles ? c->files[pos.file]->path : "?",
                pos.line, pos.col, msg);
    else
        fprintf(c->diag, "%s: error: %s\n", pos.file < c->nfiles ? c->files[pos.file]->path : "tally",
                msg);
    if (pos.line)
        show_line(c, pos);
    if (c->nerrors == c->max_errors)
        fprintf(c->diag, "error: too many errors; stopping here\n");
}

void tl_error(TlCompiler *c, TlPos pos, TlDiag d, ...)
{
    va_list ap;
    va_start(ap, d);
    tl_verror(c, pos, d, ap);
    va_end(ap);
}

void tl_compiler_free(TlCompiler *c)
{
    tl_map_free(&c->interned);
    tl_map_free(&c->globals);
    tl_map_free(&c->members);
    tl_map_free(&c->member_kind);
    tl_map_free(&c->undefined);
    free(c->tytab);
    for (TlChunk *k = c->arena, *next; k; k = next) {
        next = k->next;
        free(k);
    }
    c->arena = NULL;
}
