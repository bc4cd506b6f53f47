/* vm/asm.c — the .tla assembler: text to VmModule.
 *
 * Input: .tla text (docs/bytecode.md "Text form"), not NUL-terminated.
 * Output: a module, or NULL with "file:line: message" for the first error.
 *
 * Passes: (1) scan declarations, creating table entries in textual order
 * and checking their syntax without resolving names (names may be used
 * before they are declared); (2) resolve declarations: `consts`, `types`
 * and `files` first (they pre-populate the pools in order, which makes
 * dis→asm reproduce tables exactly), then every other declaration in
 * textual order; (3) assemble method bodies.  Types are interned with
 * vm_module_add_type, components first, so references point backwards.
 *
 * Checked here: syntax, operand count and kind, names, labels, register
 * numbers against the method's register count, immediate ranges,
 * duplicates.  Not checked: types and meaning (vm_verify does that; tests
 * assemble ill-typed code on purpose).  `#N` is accepted wherever an index
 * goes, so dis can print (and asm reproduce) out-of-range indices.
 */
#include "vm.h"

#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- symbol table ------------------------------------------------------- */

enum { K_CLASS = 1, K_METHOD, K_NATIVE, K_GLOBAL, K_FIELD, K_LABEL };

/* kind = K_x << 32 | scope: fields are scoped by owner class, labels by
 * method, so one map serves every namespace. */
typedef struct Sym {
    const char *name;    /* not owned: module strings or the source text */
    size_t len;
    uint64_t kind;
    uint32_t idx, line;
} Sym;

typedef struct Map {
    Sym *tab;
    size_t cap, n;
} Map;

typedef enum {
    D_MODULE, D_SOURCE, D_MAIN, D_INIT, D_CONSTS, D_TYPES, D_FILES, D_GLOBAL, D_NATIVE,
    D_CLASS, D_FIELD, D_VTABLE, D_IMAP, D_METHOD,
} DeclKind;

typedef struct Decl {
    DeclKind kind;
    uint32_t line;       /* 0-based line index */
    uint32_t idx;        /* table index (class for D_VTABLE and D_IMAP, D_FIELD's field) */
    uint32_t end;        /* D_METHOD with a body: line index of its `end` */
} Decl;

typedef struct Line {
    const char *s;
    size_t n;
} Line;

typedef struct Fixup {
    uint32_t pc, line;
    int slot;
    const char *name;
    size_t len;
} Fixup;

typedef struct Asm {
    VmModule *m;
    const char *file;
    VmError *err;
    jmp_buf fail;
    Line *lines;
    uint32_t nlines;
    Map map;
    Decl *decls;
    uint32_t ndecls, capdecls;
    Fixup *fix;
    uint32_t nfix, capfix;
    uint32_t *tmp;          /* scratch list for type lists */
    uint32_t ntmp, captmp;
    bool have_module, have_source, have_main, have_init;
} Asm;

static _Noreturn __attribute__((format(printf, 3, 4))) void aerr(Asm *a, uint32_t line, const char *fmt, ...)
{
    if (a->err) {
        char msg[900];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        vm_fail(a->err, "%s:%u: %s", a->file, line, msg);
    }
    longjmp(a->fail, 1);
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        abort();  /* malloc failure outside the GC heap: nothing sane left */
    return q;
}

/* Appends to an array with a separate capacity. */
#define PUSH(arr, n, cap)                                                       \
    (((n) >= (cap) ? ((cap) = (cap) ? (cap) * 2 : 16,                           \
                      (arr) = xrealloc((arr), (cap) * sizeof *(arr))) : 0),      \
     &(arr)[(n)++])

/* Module tables grow the way module.c's vm_module_add_* expect: capacity is
 * the next power of two, reallocated when the count is one. */
static void *grow_pow2(void *p, uint32_t n, size_t elem)
{
    if (n & (n - 1))
        return p;
    return xrealloc(p, (n ? (size_t)n * 2 : 1) * elem);
}

static uint64_t hash_name(const char *s, size_t n, uint64_t kind)
{
    uint64_t h = 1469598103934665603ull ^ kind;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return h;
}

static Sym *map_find(Map *mp, uint64_t kind, const char *s, size_t n)
{
    if (!mp->cap)
        return NULL;
    for (size_t i = hash_name(s, n, kind) & (mp->cap - 1);; i = (i + 1) & (mp->cap - 1)) {
        Sym *e = &mp->tab[i];
        if (!e->name)
            return NULL;
        if (e->kind == kind && e->len == n && memcmp(e->name, s, n) == 0)
            return e;
    }
}

/* Adds a name; returns the earlier entry instead if it exists. */
static Sym *map_add(Map *mp, uint64_t kind, const char *s, size_t n, uint32_t idx, uint32_t line)
{
    Sym *old = map_find(mp, kind, s, n);
    if (old)
        return old;
    if ((mp->n + 1) * 2 > mp->cap) {
        Map nm = {.cap = mp->cap ? mp->cap * 2 : 64};
        nm.tab = calloc(nm.cap, sizeof *nm.tab);
        if (!nm.tab)
            abort();
        for (size_t i = 0; i < mp->cap; i++) {
            Sym *e = &mp->tab[i];
            if (!e->name)
                continue;
            size_t j = hash_name(e->name, e->len, e->kind) & (nm.cap - 1);
            while (nm.tab[j].name)
                j = (j + 1) & (nm.cap - 1);
            nm.tab[j] = *e;
        }
        nm.n = mp->n;
        free(mp->tab);
        *mp = nm;
    }
    size_t i = hash_name(s, n, kind) & (mp->cap - 1);
    while (mp->tab[i].name)
        i = (i + 1) & (mp->cap - 1);
    mp->tab[i] = (Sym){s, n, kind, idx, line};
    mp->n++;
    return NULL;
}

/* ---- lexer (one line at a time) ----------------------------------------- */

typedef enum { T_EOL, T_NAME, T_INT, T_FLOAT, T_STR, T_PUNCT } TokKind;

typedef struct Lex {
    Asm *a;
    uint32_t line;       /* 1-based, for messages */
    const char *p, *end;
    TokKind k;
    const char *ts;      /* token text */
    size_t tn;
} Lex;

static bool name_start(int c) { return isalpha(c) || c == '_' || c == '$'; }
static bool name_char(int c) { return isalnum(c) || c == '_' || c == '$' || c == '.'; }

static void next(Lex *lx)
{
    const char *p = lx->p, *e = lx->end;
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    lx->ts = p;
    if (p >= e || (p[0] == '/' && p + 1 < e && p[1] == '/')) {
        lx->k = T_EOL;
        lx->tn = 0;
        lx->p = e;
        return;
    }
    unsigned char c = (unsigned char)*p;
    if (name_start(c)) {
        while (p < e && name_char((unsigned char)*p))
            p++;
        lx->k = T_NAME;
    } else if (c == '-' && p + 1 < e && name_start((unsigned char)p[1])) {
        p++;
        while (p < e && name_char((unsigned char)*p))
            p++;
        if (!((p - lx->ts == 4) && (!memcmp(lx->ts, "-inf", 4) || !memcmp(lx->ts, "-nan", 4))))
            aerr(lx->a, lx->line, "unexpected '%.*s'", (int)(p - lx->ts), lx->ts);
        lx->k = T_FLOAT;
    } else if (isdigit(c) || (c == '-' && p + 1 < e && (isdigit((unsigned char)p[1]) || p[1] == '.')) ||
               (c == '.' && p + 1 < e && isdigit((unsigned char)p[1]))) {
        if (*p == '-')
            p++;
        bool hex = p + 1 < e && p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
        bool flt = false;
        while (p < e) {
            unsigned char d = (unsigned char)*p;
            if (isalnum(d) || d == '.' || d == '_') {
                if (!hex && (d == '.' || d == 'e' || d == 'E'))
                    flt = true;
                p++;
            } else if ((d == '+' || d == '-') && !hex && (p[-1] == 'e' || p[-1] == 'E')) {
                p++;
            } else {
                break;
            }
        }
        lx->k = flt ? T_FLOAT : T_INT;
    } else if (c == '"') {
        p++;
        while (p < e && *p != '"')
            p += (*p == '\\' && p + 1 < e) ? 2 : 1;
        if (p >= e)
            aerr(lx->a, lx->line, "unterminated string");
        p++;
        lx->k = T_STR;
    } else if (strchr("(),:[]=#", c) && c) {
        p++;
        lx->k = T_PUNCT;
    } else {
        aerr(lx->a, lx->line, isprint(c) ? "unexpected character '%c'" : "unexpected byte 0x%02x", c);
    }
    lx->tn = (size_t)(p - lx->ts);
    lx->p = p;
}

static void lex_line(Lex *lx, Asm *a, uint32_t i)
{
    lx->a = a;
    lx->line = i + 1;
    lx->p = a->lines[i].s;
    lx->end = a->lines[i].s + a->lines[i].n;
    next(lx);
}

static bool is_punct(const Lex *lx, char c) { return lx->k == T_PUNCT && lx->ts[0] == c; }

static bool is_word(const Lex *lx, const char *w)
{
    return lx->k == T_NAME && lx->tn == strlen(w) && memcmp(lx->ts, w, lx->tn) == 0;
}

/* The current token, for messages. */
static const char *tok_desc(const Lex *lx, char *buf, size_t size)
{
    if (lx->k == T_EOL)
        return "end of line";
    snprintf(buf, size, "'%.*s'", (int)(lx->tn > 40 ? 40 : lx->tn), lx->ts);
    return buf;
}

static _Noreturn void expected(Lex *lx, const char *what)
{
    char buf[64];
    aerr(lx->a, lx->line, "expected %s, got %s", what, tok_desc(lx, buf, sizeof buf));
}

static void expect_punct(Lex *lx, char c)
{
    if (!is_punct(lx, c)) {
        char what[8] = {'\'', c, '\'', 0};
        expected(lx, what);
    }
    next(lx);
}

static void expect_eol(Lex *lx)
{
    if (lx->k != T_EOL) {
        char buf[64];
        aerr(lx->a, lx->line, "unexpected %s at end of line", tok_desc(lx, buf, sizeof buf));
    }
}

static void expect_name(Lex *lx, const char *what, const char **s, size_t *n)
{
    if (lx->k != T_NAME)
        expected(lx, what);
    *s = lx->ts;
    *n = lx->tn;
    next(lx);
}

static char *dup_n(const char *s, size_t n)
{
    char *d = xrealloc(NULL, n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

static int hexval(int c)
{
    return isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
}

/* Decodes the current string token into a new buffer (NUL-terminated). */
static char *take_string(Lex *lx, uint32_t *lenp)
{
    if (lx->k != T_STR)
        expected(lx, "a string");
    /* advance first: an error there must not leak the decoded copy */
    const char *ts = lx->ts;
    size_t tn = lx->tn;
    next(lx);
    char *out = xrealloc(NULL, tn);
    size_t n = 0;
    for (const char *p = ts + 1, *e = ts + tn - 1; p < e; p++) {
        if (*p != '\\') {
            out[n++] = *p;
            continue;
        }
        p++;
        switch (*p) {
        case 'n': out[n++] = '\n'; break;
        case 't': out[n++] = '\t'; break;
        case 'r': out[n++] = '\r'; break;
        case '0': out[n++] = 0; break;
        case '\\': case '"': case '\'': out[n++] = *p; break;
        case 'x': {
            int h = p + 1 < e ? hexval((unsigned char)p[1]) : -1;
            int l = p + 2 < e ? hexval((unsigned char)p[2]) : -1;
            if (h < 0 || l < 0) {
                free(out);
                aerr(lx->a, lx->line, "bad \\x escape in string (needs two hex digits)");
            }
            out[n++] = (char)(h * 16 + l);
            p += 2;
            break;
        }
        default: {
            char c = *p;
            free(out);
            aerr(lx->a, lx->line, "unknown escape '\\%c' in string", c);
        }
        }
    }
    out[n] = 0;
    *lenp = (uint32_t)n;
    return out;
}

/* Integer token: sign and magnitude; decimal or 0x hex. */
static void int_parts(Lex *lx, bool *neg, uint64_t *mag)
{
    if (lx->k != T_INT)
        expected(lx, "an integer");
    const char *p = lx->ts, *e = lx->ts + lx->tn;
    *neg = *p == '-';
    if (*neg)
        p++;
    unsigned base = 10;
    if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    uint64_t v = 0;
    if (p >= e)
        aerr(lx->a, lx->line, "bad integer '%.*s'", (int)lx->tn, lx->ts);
    for (; p < e; p++) {
        int d = base == 16 ? hexval((unsigned char)*p) : isdigit((unsigned char)*p) ? *p - '0' : -1;
        if (d < 0)
            aerr(lx->a, lx->line, "bad integer '%.*s'", (int)lx->tn, lx->ts);
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            aerr(lx->a, lx->line, "integer '%.*s' does not fit in 64 bits", (int)lx->tn, lx->ts);
        v = v * base + (uint64_t)d;
    }
    *mag = v;
}

static int64_t take_int64(Lex *lx)
{
    bool neg;
    uint64_t mag;
    int_parts(lx, &neg, &mag);
    const char *d = lx->ts + (lx->ts[0] == '-');
    bool hex = lx->ts + lx->tn - d > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X');
    /* hex may spell any 64-bit pattern; decimal must be in range */
    if ((neg && mag > (uint64_t)INT64_MAX + 1) || (!neg && !hex && mag > (uint64_t)INT64_MAX))
        aerr(lx->a, lx->line, "integer '%.*s' does not fit in 64 bits", (int)lx->tn, lx->ts);
    next(lx);
    return neg ? (int64_t)(0 - mag) : (int64_t)mag;
}

static int64_t take_int_range(Lex *lx, int64_t lo, int64_t hi, const char *what)
{
    const char *s = lx->ts;
    int n = (int)lx->tn;
    uint32_t line = lx->line;
    int64_t v = take_int64(lx);
    if (v < lo || v > hi)
        aerr(lx->a, line, "%s %.*s out of range (%lld..%lld)", what, n, s, (long long)lo, (long long)hi);
    return v;
}

static double take_float(Lex *lx)
{
    if (lx->k == T_NAME && (is_word(lx, "inf") || is_word(lx, "nan"))) {
        double d = is_word(lx, "inf") ? INFINITY : NAN;
        next(lx);
        return d;
    }
    if (lx->k != T_FLOAT)
        expected(lx, "a float (with '.', 'e', or inf/nan)");
    char buf[128];
    if (lx->tn >= sizeof buf)
        aerr(lx->a, lx->line, "float literal too long");
    memcpy(buf, lx->ts, lx->tn);
    buf[lx->tn] = 0;
    char *end;
    double d = strtod(buf, &end);
    if (*end || strchr(buf, 'x') || strchr(buf, 'X'))
        aerr(lx->a, lx->line, "bad float '%s'", buf);
    next(lx);
    return d;
}

/* `#N`: a raw table index. */
static uint32_t take_raw(Lex *lx, uint32_t max)
{
    expect_punct(lx, '#');
    return (uint32_t)take_int_range(lx, 0, max, "index");
}

/* ---- declarations: names ------------------------------------------------ */

static uint64_t kind_of(int k, uint32_t scope) { return (uint64_t)k << 32 | scope; }

static const char *const kind_names[] = {
    [K_CLASS] = "class", [K_METHOD] = "method", [K_NATIVE] = "native",
    [K_GLOBAL] = "global", [K_FIELD] = "field", [K_LABEL] = "label",
};

static void declare(Asm *a, int k, uint32_t scope, const char *name, uint32_t idx, uint32_t line)
{
    Sym *old = map_add(&a->map, kind_of(k, scope), name, strlen(name), idx, line);
    if (old)
        aerr(a, line, "duplicate %s '%s' (first declared on line %u)", kind_names[k], name, old->line);
}

/* A name reference (or `#N`) of a kind; the index it resolves to. */
static uint32_t take_ref(Lex *lx, int k, uint32_t max)
{
    if (is_punct(lx, '#'))
        return take_raw(lx, max);
    const char *s;
    size_t n;
    expect_name(lx, kind_names[k], &s, &n);
    Sym *e = map_find(&lx->a->map, kind_of(k, 0), s, n);
    if (!e)
        aerr(lx->a, lx->line, "unknown %s '%.*s'", kind_names[k], (int)n, s);
    return e->idx;
}

/* ---- types -------------------------------------------------------------- */

static uint32_t prim_type(Asm *a, uint8_t kind)
{
    return vm_module_add_type(a->m, &(VmType){.kind = kind});
}

static const struct { const char *name; uint8_t kind; } prims[] = {
    {"void", VM_T_VOID}, {"int", VM_T_INT}, {"float", VM_T_FLOAT}, {"bool", VM_T_BOOL},
    {"string", VM_T_STRING}, {"Object", VM_T_OBJECT},
};

static bool reserved_type_name(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof prims / sizeof *prims; i++)
        if (strlen(prims[i].name) == n && !memcmp(prims[i].name, s, n))
            return true;
    return n == 2 && !memcmp(s, "fn", 2);
}

static uint32_t parse_type(Lex *lx, bool resolve, bool nested);

/* Parses a type into *shape without interning the outermost entry (the
 * `types` declaration appends entries as they are); components are interned.
 * Returns true if the type was `#N` (then *raw holds it). */
static bool parse_shape(Lex *lx, bool resolve, bool nested, VmType *shape, uint32_t *raw)
{
    Asm *a = lx->a;
    memset(shape, 0, sizeof *shape);
    if (is_punct(lx, '#')) {
        next(lx);
        uint32_t line = lx->line;
        int64_t v = take_int_range(lx, 0, UINT32_MAX - 1, "type index");
        if (resolve && nested && (uint64_t)v >= a->m->ntypes)
            aerr(a, line, "type #%lld out of range inside a type", (long long)v);
        *raw = (uint32_t)v;
    } else if (is_punct(lx, '(')) {
        next(lx);
        *raw = parse_type(lx, resolve, true);
        expect_punct(lx, ')');
    } else if (is_word(lx, "fn")) {
        next(lx);
        expect_punct(lx, '(');
        uint32_t params[256], np = 0;
        if (!is_punct(lx, ')')) {
            for (;;) {
                if (np == 256)
                    aerr(a, lx->line, "too many parameters in function type");
                params[np++] = parse_type(lx, resolve, true);
                if (!is_punct(lx, ','))
                    break;
                next(lx);
            }
        }
        expect_punct(lx, ')');
        shape->kind = VM_T_FUNC;
        bool has_ret = is_punct(lx, ':');
        if (has_ret) {
            next(lx);
            shape->ret = parse_type(lx, resolve, true);
        } else if (resolve) {
            shape->ret = prim_type(a, VM_T_VOID);
        }
        shape->nparams = np;
        shape->params = np ? xrealloc(NULL, np * sizeof *params) : NULL;
        if (np)
            memcpy(shape->params, params, np * sizeof *params);
        if (has_ret)
            return false;  /* a return type takes any `[]` that follows */
        if (!is_punct(lx, '['))
            return false;
        *raw = resolve ? vm_module_add_type(a->m, shape) : 0;
        free(shape->params);
        shape->params = NULL;
    } else if (lx->k == T_NAME) {
        int prim = -1;
        for (size_t i = 0; i < sizeof prims / sizeof *prims; i++)
            if (is_word(lx, prims[i].name))
                prim = prims[i].kind;
        if (prim >= 0) {
            shape->kind = (uint8_t)prim;
            next(lx);
            if (!is_punct(lx, '['))
                return false;
            *raw = resolve ? vm_module_add_type(a->m, shape) : 0;
        } else {
            uint32_t line = lx->line;
            const char *s = lx->ts;
            int n = (int)lx->tn;
            *raw = 0;
            if (resolve) {
                Sym *e = map_find(&a->map, kind_of(K_CLASS, 0), s, (size_t)n);
                if (!e)
                    aerr(a, line, "unknown type '%.*s'", n, s);
                bool iface = a->m->classes[e->idx].flags & VM_C_INTERFACE;
                shape->kind = iface ? VM_T_IFACE : VM_T_CLASS;
                shape->ref = e->idx;
                next(lx);
                if (!is_punct(lx, '['))
                    return false;
                *raw = vm_module_add_type(a->m, shape);
            } else {
                next(lx);
            }
        }
    } else {
        expected(lx, "a type");
    }
    /* *raw holds the element so far; apply `[]` suffixes */
    bool any = false;
    while (is_punct(lx, '[')) {
        uint32_t line = lx->line;
        next(lx);
        expect_punct(lx, ']');
        if (any)
            *raw = resolve ? vm_module_add_type(a->m, shape) : 0;
        if (resolve && *raw >= a->m->ntypes)
            aerr(a, line, "type #%u out of range inside a type", *raw);
        *shape = (VmType){.kind = VM_T_ARRAY, .ref = *raw};
        any = true;
    }
    if (!any)
        return true;
    return false;
}

static uint32_t parse_type(Lex *lx, bool resolve, bool nested)
{
    VmType shape;
    uint32_t raw = 0;
    if (parse_shape(lx, resolve, nested, &shape, &raw))
        return raw;
    uint32_t t = resolve ? vm_module_add_type(lx->a->m, &shape) : 0;
    free(shape.params);
    return t;
}

/* A comma-separated type list into a->tmp (may be empty if `stop` follows). */
static void parse_type_list(Lex *lx, bool resolve, char stop)
{
    Asm *a = lx->a;
    a->ntmp = 0;
    if (stop && is_punct(lx, stop))
        return;
    if (!stop && lx->k == T_EOL)
        return;
    for (;;) {
        uint32_t t = parse_type(lx, resolve, false);
        *PUSH(a->tmp, a->ntmp, a->captmp) = t;
        if (!is_punct(lx, ','))
            break;
        next(lx);
    }
}

static uint32_t *copy_tmp(Asm *a)
{
    if (!a->ntmp)
        return NULL;
    uint32_t *v = xrealloc(NULL, a->ntmp * sizeof *v);
    memcpy(v, a->tmp, a->ntmp * sizeof *v);
    return v;
}

/* ---- pass 1: declarations ----------------------------------------------- */

static Decl *add_decl(Asm *a, DeclKind k, uint32_t line, uint32_t idx)
{
    Decl *d = PUSH(a->decls, a->ndecls, a->capdecls);
    *d = (Decl){k, line, idx, 0};
    return d;
}

/* Appends a zeroed entry to a module table, keeping the count in step. */
#define ADD_ENTRY(a, arr, n)                                                    \
    ((arr) = grow_pow2((arr), (n), sizeof *(arr)), memset(&(arr)[(n)], 0, sizeof *(arr)), (n)++)

/* A file path of the text form as a VmMethod.file index: the module's
 * `source` is 0 and never enters the table; other paths are found (first
 * equal entry) or appended.  Takes ownership of path. */
static uint32_t intern_file(Asm *a, char *path)
{
    VmModule *m = a->m;
    if (m->source && strcmp(path, m->source) == 0) {
        free(path);
        return 0;
    }
    for (uint32_t i = 0; i < m->nfiles; i++)
        if (strcmp(path, m->files[i]) == 0) {
            free(path);
            return i + 1;
        }
    m->files = grow_pow2(m->files, m->nfiles, sizeof *m->files);
    m->files[m->nfiles++] = path;
    return m->nfiles;
}

/* A file path string; paths are C strings in the module, so no NUL. */
static char *take_path(Lex *lx)
{
    uint32_t len, line = lx->line;
    char *path = take_string(lx, &len);
    if (strlen(path) != len) {
        free(path);
        aerr(lx->a, line, "NUL byte in a file path");
    }
    return path;
}

/* `method NAME (T...) : R [owner C] [file "F"] [static] [abstract] [lambda]`
 * (clauses in any order, each at most once); in pass 1 only the syntax and
 * flags; in resolve mode the types, owner and file. */
static void method_header(Lex *lx, VmMethod *mm, bool resolve)
{
    Asm *a = lx->a;
    const char *s;
    size_t n;
    next(lx);  /* `method` */
    expect_name(lx, "a method name", &s, &n);
    expect_punct(lx, '(');
    parse_type_list(lx, resolve, ')');
    expect_punct(lx, ')');
    if (resolve) {
        mm->nparams = a->ntmp;
        mm->nregs = a->ntmp;
        mm->regs = copy_tmp(a);
    }
    expect_punct(lx, ':');
    uint32_t ret = parse_type(lx, resolve, false);
    uint32_t flags = 0, owner = VM_NONE, file = 0;
    bool seen_owner = false, seen_file = false;
    while (lx->k != T_EOL) {
        uint32_t f = is_word(lx, "static") ? VM_M_STATIC : is_word(lx, "abstract") ? VM_M_ABSTRACT
                   : is_word(lx, "lambda") ? VM_M_LAMBDA : 0;
        char buf[64];
        if (f) {
            if (flags & f)
                aerr(a, lx->line, "duplicate %s", tok_desc(lx, buf, sizeof buf));
            flags |= f;
            next(lx);
        } else if (is_word(lx, "owner")) {
            if (seen_owner)
                aerr(a, lx->line, "duplicate 'owner'");
            seen_owner = true;
            next(lx);
            if (resolve)
                owner = take_ref(lx, K_CLASS, UINT32_MAX - 1);
            else if (is_punct(lx, '#'))
                take_raw(lx, UINT32_MAX - 1);
            else
                expect_name(lx, "a class", &s, &n);
        } else if (is_word(lx, "file")) {
            if (seen_file)
                aerr(a, lx->line, "duplicate 'file'");
            seen_file = true;
            next(lx);
            if (is_punct(lx, '#'))
                file = take_raw(lx, UINT32_MAX);  /* the verifier checks the range */
            else if (resolve)
                file = intern_file(a, take_path(lx));
            else if (lx->k == T_STR)
                next(lx);
            else
                expected(lx, "a file path string");
        } else {
            aerr(a, lx->line, "unexpected %s in method header (expected owner, file, static, abstract or lambda)",
                 tok_desc(lx, buf, sizeof buf));
        }
    }
    mm->flags = flags;
    if (resolve) {
        mm->ret = ret;
        mm->owner = owner;
        mm->file = file;
    }
}

/* `native NAME (T...) : R = builtin "sym"` or `= "lib" "sym"` */
static void native_decl(Lex *lx, VmNative *nv, bool resolve)
{
    Asm *a = lx->a;
    const char *s;
    size_t n;
    next(lx);
    expect_name(lx, "a native name", &s, &n);
    expect_punct(lx, '(');
    parse_type_list(lx, resolve, ')');
    expect_punct(lx, ')');
    if (resolve) {
        nv->nparams = a->ntmp;
        nv->params = copy_tmp(a);
    }
    expect_punct(lx, ':');
    uint32_t ret = parse_type(lx, resolve, false);
    expect_punct(lx, '=');
    /* pass 1 checks only the shape; escapes are decoded when resolving */
    uint32_t len;
    bool builtin = is_word(lx, "builtin");
    if (builtin)
        next(lx);
    if (resolve) {
        nv->lib = builtin ? dup_n("", 0) : take_string(lx, &len);
        nv->symbol = take_string(lx, &len);
        nv->ret = ret;
    } else {
        for (int k = builtin; k < 2; k++) {
            if (lx->k != T_STR)
                expected(lx, k ? "a symbol string" : "builtin or a library string");
            next(lx);
        }
    }
    expect_eol(lx);
}

/* `class NAME [extends B] [implements I, J] [abstract]` or
 * `interface NAME [extends I, J] [abstract]` (clauses in any order). */
static void class_header(Lex *lx, VmClass *c, bool resolve)
{
    Asm *a = lx->a;
    bool iface = is_word(lx, "interface");
    const char *s;
    size_t n;
    next(lx);
    expect_name(lx, "a class name", &s, &n);
    uint32_t flags = iface ? VM_C_INTERFACE : 0;
    bool seen_ext = false, seen_impl = false;
    a->ntmp = 0;
    while (lx->k != T_EOL) {
        char buf[64];
        if (is_word(lx, "abstract")) {
            if (flags & VM_C_ABSTRACT)
                aerr(a, lx->line, "duplicate 'abstract'");
            flags |= VM_C_ABSTRACT;
            next(lx);
        } else if ((is_word(lx, "extends") && !seen_ext) || (is_word(lx, "implements") && !iface && !seen_impl)) {
            bool list = iface || is_word(lx, "implements");
            if (is_word(lx, "extends"))
                seen_ext = true;
            else
                seen_impl = true;
            next(lx);
            for (;;) {
                uint32_t k = 0;
                if (resolve)
                    k = take_ref(lx, K_CLASS, UINT32_MAX - 1);
                else if (is_punct(lx, '#'))
                    take_raw(lx, UINT32_MAX - 1);
                else
                    expect_name(lx, "a class name", &s, &n);
                if (!list) {
                    if (resolve)
                        c->super = k;
                    break;
                }
                if (resolve)
                    *PUSH(a->tmp, a->ntmp, a->captmp) = k;
                if (!is_punct(lx, ','))
                    break;
                next(lx);
            }
        } else {
            aerr(a, lx->line, "unexpected %s in %s header", tok_desc(lx, buf, sizeof buf),
                 iface ? "interface" : "class");
        }
    }
    c->flags = flags;
    if (resolve) {
        c->nifaces = a->ntmp;
        c->ifaces = copy_tmp(a);
    }
}

/* `vtable M, ...` / `methods M, ...` (appends) */
static void vtable_decl(Lex *lx, VmClass *c, bool resolve)
{
    Asm *a = lx->a;
    next(lx);
    a->ntmp = 0;
    while (lx->k != T_EOL) {
        uint32_t k = 0;
        if (resolve) {
            k = take_ref(lx, K_METHOD, UINT32_MAX - 1);
        } else if (is_punct(lx, '#')) {
            take_raw(lx, UINT32_MAX - 1);
        } else {
            const char *s;
            size_t n;
            expect_name(lx, "a method name", &s, &n);
        }
        *PUSH(a->tmp, a->ntmp, a->captmp) = k;
        if (lx->k == T_EOL)
            break;
        expect_punct(lx, ',');
    }
    if (resolve && a->ntmp) {
        c->vtable = xrealloc(c->vtable, (c->nvtable + a->ntmp) * sizeof *c->vtable);
        memcpy(c->vtable + c->nvtable, a->tmp, a->ntmp * sizeof *a->tmp);
        c->nvtable += a->ntmp;
    }
}

/* `imap IFACE.m = CLASS.m` (one entry per line, appended) */
static void imap_decl(Lex *lx, VmClass *c, bool resolve)
{
    next(lx);
    uint32_t pair[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        if (resolve) {
            pair[k] = take_ref(lx, K_METHOD, UINT32_MAX - 1);
        } else if (is_punct(lx, '#')) {
            take_raw(lx, UINT32_MAX - 1);
        } else {
            const char *s;
            size_t n;
            expect_name(lx, "a method name", &s, &n);
        }
        if (k == 0)
            expect_punct(lx, '=');
    }
    expect_eol(lx);
    if (resolve) {
        c->imap = xrealloc(c->imap, (c->nimap + 1) * 2 * sizeof *c->imap);
        c->imap[2 * c->nimap] = pair[0];
        c->imap[2 * c->nimap + 1] = pair[1];
        c->nimap++;
    }
}

static char *take_decl_name(Lex *lx, const char *what)
{
    const char *s;
    size_t n;
    next(lx);
    expect_name(lx, what, &s, &n);
    return dup_n(s, n);
}

static const char *const top_keywords[] = {
    "module", "source", "main", "init", "consts", "types", "files", "global", "native",
    "class", "interface", "method",
};

static const char *suggest(const char *w, size_t wn, const char *const *cands, size_t n);

static void pass1(Asm *a)
{
    VmModule *m = a->m;
    enum { NONE, IN_CLASS, IN_METHOD } state = NONE;
    uint32_t cur = 0;      /* class or method index */
    uint32_t open_line = 0;
    uint32_t open_decl = 0;
    for (uint32_t i = 0; i < a->nlines; i++) {
        Lex lx;
        lex_line(&lx, a, i);
        if (lx.k == T_EOL)
            continue;
        if (state == IN_METHOD) {
            if (is_word(&lx, "end")) {
                next(&lx);
                if (lx.k == T_EOL) {
                    a->decls[open_decl].end = i;
                    state = NONE;
                }
            }
            continue;
        }
        if (state == IN_CLASS) {
            if (is_word(&lx, "end")) {
                next(&lx);
                expect_eol(&lx);
                state = NONE;
            } else if (is_word(&lx, "field")) {
                char *name = take_decl_name(&lx, "a field name");
                uint32_t f = m->nfields;
                ADD_ENTRY(a, m->fields, m->nfields);
                m->fields[f].name = name;
                m->fields[f].owner = cur;
                parse_type(&lx, false, false);
                expect_eol(&lx);
                declare(a, K_FIELD, cur, name, f, i + 1);
                add_decl(a, D_FIELD, i, f);
            } else if (is_word(&lx, "vtable") || is_word(&lx, "methods")) {
                bool iface = m->classes[cur].flags & VM_C_INTERFACE;
                if (iface != is_word(&lx, "methods"))
                    aerr(a, i + 1, iface ? "an interface lists 'methods', not 'vtable'"
                                         : "a class lists 'vtable', not 'methods'");
                vtable_decl(&lx, &m->classes[cur], false);
                add_decl(a, D_VTABLE, i, cur);
            } else if (is_word(&lx, "imap")) {
                imap_decl(&lx, &m->classes[cur], false);
                add_decl(a, D_IMAP, i, cur);
            } else {
                char buf[64];
                aerr(a, i + 1, "unexpected %s in class body (expected field, vtable, imap, methods or end)",
                     tok_desc(&lx, buf, sizeof buf));
            }
            continue;
        }
        open_line = i;
        char buf[64];
        if (is_word(&lx, "module") || is_word(&lx, "source")) {
            bool mod = is_word(&lx, "module");
            bool *have = mod ? &a->have_module : &a->have_source;
            if (*have)
                aerr(a, i + 1, "duplicate '%s' declaration", mod ? "module" : "source");
            *have = true;
            next(&lx);
            uint32_t len;
            char *s = take_string(&lx, &len);
            char **dst = mod ? &m->name : &m->source;
            free(*dst);
            *dst = s;
            expect_eol(&lx);
        } else if (is_word(&lx, "main") || is_word(&lx, "init")) {
            bool mn = is_word(&lx, "main");
            bool *have = mn ? &a->have_main : &a->have_init;
            if (*have)
                aerr(a, i + 1, "duplicate '%s' declaration", mn ? "main" : "init");
            *have = true;
            add_decl(a, mn ? D_MAIN : D_INIT, i, 0);
        } else if (is_word(&lx, "consts")) {
            add_decl(a, D_CONSTS, i, 0);
        } else if (is_word(&lx, "files")) {
            add_decl(a, D_FILES, i, 0);
        } else if (is_word(&lx, "types")) {
            next(&lx);
            parse_type_list(&lx, false, 0);
            expect_eol(&lx);
            add_decl(a, D_TYPES, i, 0);
        } else if (is_word(&lx, "global")) {
            char *name = take_decl_name(&lx, "a global name");
            uint32_t g = m->nglobals;
            ADD_ENTRY(a, m->globals, m->nglobals);
            m->globals[g].name = name;
            parse_type(&lx, false, false);
            expect_eol(&lx);
            declare(a, K_GLOBAL, 0, name, g, i + 1);
            add_decl(a, D_GLOBAL, i, g);
        } else if (is_word(&lx, "native")) {
            Lex l2 = lx;
            char *name = take_decl_name(&l2, "a native name");
            uint32_t k = m->nnatives;
            ADD_ENTRY(a, m->natives, m->nnatives);
            m->natives[k].name = name;
            native_decl(&lx, &m->natives[k], false);
            declare(a, K_NATIVE, 0, name, k, i + 1);
            add_decl(a, D_NATIVE, i, k);
        } else if (is_word(&lx, "class") || is_word(&lx, "interface")) {
            Lex l2 = lx;
            char *name = take_decl_name(&l2, "a class name");
            uint32_t k = m->nclasses;
            ADD_ENTRY(a, m->classes, m->nclasses);
            m->classes[k].name = name;
            m->classes[k].super = VM_NONE;
            if (reserved_type_name(name, strlen(name)))
                aerr(a, i + 1, "'%s' is a built-in type name", name);
            class_header(&lx, &m->classes[k], false);
            declare(a, K_CLASS, 0, name, k, i + 1);
            add_decl(a, D_CLASS, i, k);
            state = IN_CLASS;
            cur = k;
        } else if (is_word(&lx, "method")) {
            Lex l2 = lx;
            char *name = take_decl_name(&l2, "a method name");
            uint32_t k = m->nmethods;
            ADD_ENTRY(a, m->methods, m->nmethods);
            VmMethod *mm = &m->methods[k];
            mm->name = name;
            mm->owner = VM_NONE;
            mm->slot = -1;
            method_header(&lx, mm, false);
            declare(a, K_METHOD, 0, name, k, i + 1);
            open_decl = a->ndecls;
            add_decl(a, D_METHOD, i, k);
            if (!(mm->flags & VM_M_ABSTRACT)) {
                state = IN_METHOD;
                cur = k;
            }
        } else if (lx.k == T_NAME && vm_op_lookup(lx.ts, lx.tn) >= 0) {
            aerr(a, i + 1, "instruction %s outside a method", tok_desc(&lx, buf, sizeof buf));
        } else {
            const char *sug = lx.k == T_NAME ? suggest(lx.ts, lx.tn, top_keywords,
                                                      sizeof top_keywords / sizeof *top_keywords) : NULL;
            if (sug)
                aerr(a, i + 1, "unknown declaration %s (did you mean '%s'?)", tok_desc(&lx, buf, sizeof buf), sug);
            aerr(a, i + 1, "unknown declaration %s", tok_desc(&lx, buf, sizeof buf));
        }
    }
    if (state == IN_CLASS)
        aerr(a, open_line + 1, "missing 'end' for class '%s'", m->classes[cur].name);
    if (state == IN_METHOD)
        aerr(a, open_line + 1, "missing 'end' for method '%s'", m->methods[cur].name);
}

/* ---- pass 2: resolve declarations --------------------------------------- */

static void resolve_decl(Asm *a, const Decl *d)
{
    VmModule *m = a->m;
    Lex lx;
    lex_line(&lx, a, d->line);
    switch (d->kind) {
    case D_MAIN:
    case D_INIT:
        next(&lx);
        *(d->kind == D_MAIN ? &m->main : &m->init) = take_ref(&lx, K_METHOD, UINT32_MAX - 1);
        expect_eol(&lx);
        break;
    case D_GLOBAL:
        next(&lx);
        next(&lx);
        m->globals[d->idx].type = parse_type(&lx, true, false);
        break;
    case D_NATIVE:
        native_decl(&lx, &m->natives[d->idx], true);
        break;
    case D_CLASS:
        class_header(&lx, &m->classes[d->idx], true);
        break;
    case D_FIELD:
        next(&lx);
        next(&lx);
        m->fields[d->idx].type = parse_type(&lx, true, false);
        break;
    case D_VTABLE:
        vtable_decl(&lx, &m->classes[d->idx], true);
        break;
    case D_IMAP:
        imap_decl(&lx, &m->classes[d->idx], true);
        break;
    case D_METHOD:
        method_header(&lx, &m->methods[d->idx], true);
        break;
    default:
        break;
    }
}

static void resolve_pools(Asm *a)
{
    VmModule *m = a->m;
    for (uint32_t i = 0; i < a->ndecls; i++) {
        if (a->decls[i].kind != D_CONSTS)
            continue;
        Lex lx;
        lex_line(&lx, a, a->decls[i].line);
        next(&lx);
        while (lx.k != T_EOL) {
            uint32_t len;
            char *s = take_string(&lx, &len);
            m->consts = grow_pow2(m->consts, m->nconsts, sizeof *m->consts);
            m->consts[m->nconsts++] = (VmConst){s, len};
            if (lx.k != T_EOL)
                expect_punct(&lx, ',');
        }
    }
    for (uint32_t i = 0; i < a->ndecls; i++) {
        if (a->decls[i].kind != D_FILES)
            continue;
        Lex lx;
        lex_line(&lx, a, a->decls[i].line);
        next(&lx);
        while (lx.k != T_EOL) {
            /* literally, duplicates and the source included: `file #N` may
             * name any entry */
            char *path = take_path(&lx);
            m->files = grow_pow2(m->files, m->nfiles, sizeof *m->files);
            m->files[m->nfiles++] = path;
            if (lx.k != T_EOL)
                expect_punct(&lx, ',');
        }
    }
    for (uint32_t i = 0; i < a->ndecls; i++) {
        if (a->decls[i].kind != D_TYPES)
            continue;
        Lex lx;
        lex_line(&lx, a, a->decls[i].line);
        next(&lx);
        while (lx.k != T_EOL) {
            VmType shape;
            uint32_t raw;
            uint32_t line = lx.line;
            if (parse_shape(&lx, true, false, &shape, &raw))
                aerr(a, line, "a 'types' entry must spell a type, not #%u", raw);
            m->types = grow_pow2(m->types, m->ntypes, sizeof *m->types);
            m->types[m->ntypes++] = shape;  /* takes shape.params */
            if (lx.k != T_EOL)
                expect_punct(&lx, ',');
        }
    }
}

/* ---- pass 3: method bodies ---------------------------------------------- */

/* Closest candidate, through the VM's one suggestion helper (case-blind). */
static const char *suggest(const char *w, size_t wn, const char *const *cands, size_t n)
{
    char word[64];
    if (wn >= sizeof word)
        return NULL;
    memcpy(word, w, wn);
    word[wn] = 0;
    return vm_suggest(word, cands, n);
}

static int32_t take_reg(Lex *lx, const VmMethod *mm, bool optional)
{
    if (optional && is_word(lx, "_")) {
        next(lx);
        return -1;
    }
    char buf[64];
    bool ok = lx->k == T_NAME && lx->tn >= 2 && lx->tn <= 11 && lx->ts[0] == 'r';
    for (size_t i = 1; ok && i < lx->tn; i++)
        ok = isdigit((unsigned char)lx->ts[i]);
    if (!ok)
        aerr(lx->a, lx->line, "expected a register (r0, r1, ...%s), got %s", optional ? " or _" : "",
             tok_desc(lx, buf, sizeof buf));
    long long v = strtoll(lx->ts + 1, NULL, 10);
    if (v >= mm->nregs)
        aerr(lx->a, lx->line, "register r%lld out of range (method %s has %u registers)", v, mm->name, mm->nregs);
    next(lx);
    return (int32_t)v;
}

static uint32_t take_field(Lex *lx)
{
    Asm *a = lx->a;
    if (is_punct(lx, '#'))
        return take_raw(lx, INT32_MAX);
    const char *s;
    size_t n;
    uint32_t line = lx->line;
    expect_name(lx, "a field (Class.field)", &s, &n);
    const char *dot = NULL;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '.')
            dot = s + i;
    if (!dot)
        aerr(a, line, "expected a field as Class.field, got '%.*s'", (int)n, s);
    Sym *c = map_find(&a->map, kind_of(K_CLASS, 0), s, (size_t)(dot - s));
    if (!c)
        aerr(a, line, "unknown class '%.*s'", (int)(dot - s), s);
    /* a field inherited from a superclass may be named through the subclass */
    uint32_t k = c->idx;
    for (uint32_t steps = 0; k < a->m->nclasses && steps <= a->m->nclasses; steps++) {
        Sym *f = map_find(&a->map, kind_of(K_FIELD, k), dot + 1, (size_t)(s + n - dot - 1));
        if (f)
            return f->idx;
        k = a->m->classes[k].super;
    }
    aerr(a, line, "unknown field '%.*s'", (int)n, s);
}

static void instruction(Lex *lx, uint32_t mi, int op)
{
    Asm *a = lx->a;
    VmMethod *mm = &a->m->methods[mi];
    const char *ops = vm_op_info[op].operands;
    const char *name = vm_op_info[op].name;
    size_t want = strlen(ops);
    next(lx);
    /* count operands first: commas at parenthesis depth 0 */
    Lex probe = *lx;
    size_t got = probe.k == T_EOL ? 0 : 1;
    for (int depth = 0; probe.k != T_EOL; next(&probe)) {
        if (is_punct(&probe, '('))
            depth++;
        else if (is_punct(&probe, ')'))
            depth--;
        else if (is_punct(&probe, ',') && depth == 0)
            got++;
    }
    if (got != want)
        aerr(a, lx->line, "%s takes %zu operand%s, got %zu", name, want, want == 1 ? "" : "s", got);
    VmInsn *in = &mm->code[mm->ncode];
    memset(in, 0, sizeof *in);
    in->op = (uint32_t)op;
    int32_t *slots[3] = {&in->a, &in->b, &in->c};
    int s = 0;
    for (const char *o = ops; *o; o++) {
        if (o != ops)
            expect_punct(lx, ',');
        int32_t v = 0;
        switch (*o) {
        case 'i': in->k.i = take_int64(lx); continue;
        case 'f': in->k.f = take_float(lx); continue;
        case 'd': case 'r': v = take_reg(lx, mm, false); break;
        case 'D': v = take_reg(lx, mm, true); break;
        case 's': v = (int32_t)take_int_range(lx, INT32_MIN, INT32_MAX, "immediate"); break;
        case 'u': v = (int32_t)take_int_range(lx, 0, INT32_MAX, "count"); break;
        case 'j':
            if (is_punct(lx, '#')) {
                v = (int32_t)take_raw(lx, INT32_MAX);
            } else {
                const char *ls;
                size_t ln;
                uint32_t line = lx->line;
                expect_name(lx, "a label", &ls, &ln);
                *PUSH(a->fix, a->nfix, a->capfix) = (Fixup){mm->ncode, line, s, ls, ln};
            }
            break;
        case 'k':
            if (is_punct(lx, '#')) {
                v = (int32_t)take_raw(lx, INT32_MAX);
            } else {
                uint32_t len;
                char *str = take_string(lx, &len);
                v = (int32_t)vm_module_add_const(a->m, str, len);
                free(str);
            }
            break;
        case 't': {
            uint32_t line = lx->line;
            uint32_t t = parse_type(lx, true, false);
            if (t > INT32_MAX)
                aerr(a, line, "type index out of range");
            v = (int32_t)t;
            break;
        }
        case 'F': v = (int32_t)take_field(lx); break;
        case 'g': v = (int32_t)take_ref(lx, K_GLOBAL, INT32_MAX); break;
        case 'm': v = (int32_t)take_ref(lx, K_METHOD, INT32_MAX); break;
        case 'n': v = (int32_t)take_ref(lx, K_NATIVE, INT32_MAX); break;
        case 'c': v = (int32_t)take_ref(lx, K_CLASS, INT32_MAX); break;
        default: aerr(a, lx->line, "internal: operand kind '%c'", *o);
        }
        if (s < 3)
            *slots[s++] = v;
    }
    expect_eol(lx);
    mm->ncode++;
}

static void append_types(Asm *a, uint32_t *n, uint32_t **v)
{
    if (!a->ntmp)
        return;
    *v = xrealloc(*v, (*n + a->ntmp) * sizeof **v);
    memcpy(*v + *n, a->tmp, a->ntmp * sizeof *a->tmp);
    *n += a->ntmp;
}

static void body(Asm *a, const Decl *d)
{
    VmMethod *mm = &a->m->methods[d->idx];
    uint32_t cap = d->end - d->line;
    mm->code = xrealloc(NULL, cap * sizeof *mm->code);
    mm->ncode = 0;
    uint32_t capl = 0;
    a->nfix = 0;
    for (uint32_t i = d->line + 1; i < d->end; i++) {
        Lex lx;
        lex_line(&lx, a, i);
        if (lx.k == T_EOL)
            continue;
        char buf[64];
        if (lx.k == T_NAME) {
            Lex l2 = lx;
            next(&l2);
            if (is_punct(&l2, ':')) {
                next(&l2);
                expect_eol(&l2);
                Sym *old = map_add(&a->map, kind_of(K_LABEL, d->idx), lx.ts, lx.tn, mm->ncode, i + 1);
                if (old)
                    aerr(a, i + 1, "duplicate label '%.*s' (first defined on line %u)", (int)lx.tn, lx.ts,
                         old->line);
                continue;
            }
        }
        if (is_word(&lx, "regs") || is_word(&lx, "caps")) {
            bool regs = is_word(&lx, "regs");
            if (mm->ncode)
                aerr(a, i + 1, "'%s' must come before the first instruction", regs ? "regs" : "caps");
            next(&lx);
            parse_type_list(&lx, true, 0);
            expect_eol(&lx);
            if (regs)
                append_types(a, &mm->nregs, &mm->regs);
            else
                append_types(a, &mm->ncaps, &mm->caps);
        } else if (is_word(&lx, "line")) {
            next(&lx);
            uint32_t ln = (uint32_t)take_int_range(&lx, 0, UINT32_MAX, "line");
            expect_eol(&lx);
            if (mm->nlines && mm->lines[mm->nlines - 1].pc == mm->ncode) {
                mm->lines[mm->nlines - 1].line = ln;  /* the last one at a pc wins */
            } else {
                if (mm->nlines == capl) {
                    capl = capl ? capl * 2 : 8;
                    mm->lines = xrealloc(mm->lines, capl * sizeof *mm->lines);
                }
                mm->lines[mm->nlines++] = (VmLine){mm->ncode, ln};
            }
        } else if (lx.k == T_NAME) {
            int op = vm_op_lookup(lx.ts, lx.tn);
            if (op < 0) {
                const char *names[VM_OP_COUNT];
                for (int k = 0; k < VM_OP_COUNT; k++)
                    names[k] = vm_op_info[k].name;
                const char *sug = suggest(lx.ts, lx.tn, names, VM_OP_COUNT);
                if (sug)
                    aerr(a, i + 1, "unknown opcode %s (did you mean %s?)", tok_desc(&lx, buf, sizeof buf), sug);
                aerr(a, i + 1, "unknown opcode %s", tok_desc(&lx, buf, sizeof buf));
            }
            instruction(&lx, d->idx, op);
        } else {
            aerr(a, i + 1, "expected an instruction, label or directive, got %s", tok_desc(&lx, buf, sizeof buf));
        }
    }
    for (uint32_t k = 0; k < a->nfix; k++) {
        Fixup *f = &a->fix[k];
        Sym *l = map_find(&a->map, kind_of(K_LABEL, d->idx), f->name, f->len);
        if (!l)
            aerr(a, f->line, "unknown label '%.*s'", (int)f->len, f->name);
        VmInsn *in = &mm->code[f->pc];
        int32_t *slots[3] = {&in->a, &in->b, &in->c};
        *slots[f->slot] = (int32_t)l->idx;
    }
}

/* ---- driver ------------------------------------------------------------- */

static char *file_stem(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    const char *dot = strrchr(b, '.');
    return dup_n(b, dot && dot != b ? (size_t)(dot - b) : strlen(b));
}

static void assemble(Asm *a, const char *text, size_t len)
{
    uint32_t cap = 0;
    for (const char *p = text, *e = text + len; p < e;) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        const char *le = nl ? nl : e;
        Line *l = PUSH(a->lines, a->nlines, cap);
        *l = (Line){p, (size_t)(le - p)};
        p = nl ? nl + 1 : e;
    }
    pass1(a);
    /* `file "F"` clauses compare against the source, so settle it first */
    if (!a->m->source)
        a->m->source = dup_n(a->file, strlen(a->file));
    resolve_pools(a);
    for (uint32_t i = 0; i < a->ndecls; i++)
        resolve_decl(a, &a->decls[i]);
    for (uint32_t i = 0; i < a->ndecls; i++)
        if (a->decls[i].kind == D_METHOD && !(a->m->methods[a->decls[i].idx].flags & VM_M_ABSTRACT))
            body(a, &a->decls[i]);
    if (!a->m->name)
        a->m->name = file_stem(a->file);
}

static void asm_cleanup(Asm *a)
{
    free(a->lines);
    free(a->map.tab);
    free(a->decls);
    free(a->fix);
    free(a->tmp);
}

VmModule *vm_asm(const char *text, size_t len, const char *filename, VmError *err)
{
    Asm *a = calloc(1, sizeof *a);
    if (!a)
        abort();
    a->m = vm_module_new();
    a->file = filename ? filename : "input";
    a->err = err;
    VmModule *m = a->m;
    if (setjmp(a->fail)) {
        vm_module_free(a->m);
        asm_cleanup(a);
        free(a);
        return NULL;
    }
    assemble(a, text ? text : "", text ? len : 0);
    asm_cleanup(a);
    free(a);
    return m;
}
